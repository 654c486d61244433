"""What state an action implies for the entity it targets, and whether it is there.

Pure logic (no Home Assistant objects): a service call or an intent on an entity of a
domain gives an `Expectation` (the states that mean done, attributes that must match,
the verb it is told with), or None when its effect cannot be seen in the entity's
state (a button, a scene, a script, a notification: said as "sent", never "done").

A light's colour is compared as `verify/colour.py` says.
"""

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
import math
from typing import Any

import probatio

from homeassistant.helpers import config_validation as cv

from . import service_fields as fields
from .colour import COLOUR_KEYS, asked_colour, shows_colour, shows_kelvin

UNAVAILABLE = frozenset({"unavailable", "unknown"})


class Verb(StrEnum):
    """How an action is told ("I unlocked …", "… did not unlock"); a words key part."""

    TURN_ON = "turn_on"
    TURN_OFF = "turn_off"
    UNLOCK = "unlock"
    LOCK = "lock"
    OPEN = "open"
    CLOSE = "close"
    DISARM = "disarm"
    ARM = "arm"
    OTHER = "other"


@dataclass(frozen=True, slots=True)
class Expectation:
    """The states that mean an action is done, and the attributes it sets."""

    verb: Verb
    states: frozenset[str] = frozenset()
    """Any of these states is done; empty: any available state (attributes decide)."""
    attributes: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    """Attribute → (value, tolerance): a number the entity must report."""
    values: Mapping[str, str | bool] = field(default_factory=dict)
    """Attribute → what it must report: a mode, a source, muted or not."""
    on_its_way: frozenset[str] = frozenset()
    """States that show the command taken and under way (a cover moving to a level)."""
    colour: tuple[float, float] | None = None
    """A light's colour (hue, saturation) to show, near enough (`colour.shows_colour`)."""
    kelvin: float | None = None
    """A light's colour temperature to show, within its range."""

    def met(self, state: str, attributes: Mapping[str, Any]) -> bool:
        """Whether an entity in this state, with these attributes, shows it done."""
        if state in self.on_its_way:
            return True
        if state in UNAVAILABLE or (self.states and state not in self.states):
            return False
        for name, (value, tolerance) in self.attributes.items():
            if not _shows_number(attributes, name, value, tolerance):
                return False
        for name, wanted in self.values.items():
            if not _same(attributes.get(name), wanted):
                return False
        if self.colour is not None and not shows_colour(attributes, *self.colour):
            return False
        return self.kelvin is None or shows_kelvin(attributes, self.kelvin)


# An attribute an entity rounds up to a step it reports: a three-speed fan asked
# for 50 % runs at its second speed and shows 66.7 %.
_STEPS = {"percentage": "percentage_step"}


def _shows_number(
    attributes: Mapping[str, Any], name: str, value: float, tolerance: float
) -> bool:
    reported = attributes.get(name)
    if isinstance(reported, bool) or not isinstance(reported, int | float):
        return False
    if abs(reported - value) <= tolerance:
        return True
    step = attributes.get(_STEPS.get(name, ""))
    if isinstance(step, bool) or not isinstance(step, int | float) or step <= 0:
        return False
    return abs(reported - math.ceil(value / step - 1e-6) * step) <= tolerance


def _same(reported: Any, wanted: str | bool) -> bool:
    """Whether an attribute shows the value asked (a mode's case aside)."""
    if isinstance(reported, bool) or isinstance(wanted, bool):
        return reported is wanted
    return isinstance(reported, str) and reported.casefold() == wanted.casefold()


def _on(verb: Verb = Verb.TURN_ON) -> Expectation:
    return Expectation(verb, frozenset({"on"}))


def _off(verb: Verb = Verb.TURN_OFF) -> Expectation:
    return Expectation(verb, frozenset({"off"}))


_MOVING = frozenset({"opening", "closing"})
# Domains whose turn_on/turn_off/toggle end in "on"/"off".
_ON_OFF = frozenset(
    {
        "light",
        "switch",
        "fan",
        "input_boolean",
        "siren",
        "humidifier",
        "remote",
        "automation",
    }
)

# (domain, service) → what it implies; "*" stands for any on/off domain.
_SERVICES: dict[tuple[str, str], Expectation] = {
    ("lock", "unlock"): Expectation(Verb.UNLOCK, frozenset({"unlocked", "open"})),
    ("lock", "open"): Expectation(Verb.OPEN, frozenset({"open", "unlocked"})),
    ("lock", "lock"): Expectation(Verb.LOCK, frozenset({"locked"})),
    # A moving cover or valve has accepted the command and is on its way.
    ("cover", "open_cover"): Expectation(Verb.OPEN, frozenset({"open", "opening"})),
    ("cover", "close_cover"): Expectation(Verb.CLOSE, frozenset({"closed", "closing"})),
    ("valve", "open_valve"): Expectation(Verb.OPEN, frozenset({"open", "opening"})),
    ("valve", "close_valve"): Expectation(Verb.CLOSE, frozenset({"closed", "closing"})),
    ("alarm_control_panel", "alarm_disarm"): Expectation(
        Verb.DISARM, frozenset({"disarmed"})
    ),
    ("media_player", "turn_on"): Expectation(
        Verb.TURN_ON, frozenset({"on", "idle", "playing", "paused", "buffering"})
    ),
    ("media_player", "turn_off"): Expectation(
        Verb.TURN_OFF, frozenset({"off", "standby"})
    ),
    ("media_player", "media_pause"): Expectation(Verb.OTHER, frozenset({"paused"})),
    ("media_player", "media_play"): Expectation(Verb.OTHER, frozenset({"playing"})),
    ("media_player", "media_stop"): Expectation(
        Verb.OTHER, frozenset({"idle", "off", "paused", "on"})
    ),
    ("vacuum", "start"): Expectation(Verb.OTHER, frozenset({"cleaning"})),
    ("vacuum", "return_to_base"): Expectation(
        Verb.OTHER, frozenset({"returning", "docked"})
    ),
    ("climate", "turn_off"): Expectation(Verb.TURN_OFF, frozenset({"off"})),
    ("climate", "turn_on"): Expectation(
        Verb.TURN_ON,
        frozenset({"heat", "cool", "heat_cool", "auto", "dry", "fan_only"}),
    ),
    ("lawn_mower", "start_mowing"): Expectation(Verb.OTHER, frozenset({"mowing"})),
    ("lawn_mower", "dock"): Expectation(Verb.OTHER, frozenset({"returning", "docked"})),
    ("lawn_mower", "pause"): Expectation(Verb.OTHER, frozenset({"paused"})),
    ("vacuum", "clean_area"): Expectation(Verb.OTHER, frozenset({"cleaning"})),
    ("vacuum", "clean_spot"): Expectation(Verb.OTHER, frozenset({"cleaning"})),
    ("vacuum", "pause"): Expectation(Verb.OTHER, frozenset({"paused"})),
    ("vacuum", "stop"): Expectation(Verb.OTHER, frozenset({"idle", "docked"})),
}


def service_expectation(
    domain: str, service: str, data: Mapping[str, Any], old_state: str | None = None
) -> Expectation | None:
    """What a service call implies for one entity of `domain`; None: not observable.

    `old_state` is the entity's state before the call, for a toggle.
    """
    if (domain, service) in _SERVICES:
        return _SERVICES[(domain, service)]
    if domain == "alarm_control_panel" and service in fields.ARMED:
        return Expectation(Verb.ARM, frozenset({fields.ARMED[service], "arming"}))
    if (domain, service) in fields.STATE_SETTERS:
        value = data.get(fields.STATE_SETTERS[(domain, service)])
        return None if value is None else Expectation(Verb.OTHER, _as_states(value))
    if (domain, service) in fields.SETTINGS:
        return _setting(*fields.SETTINGS[(domain, service)], data)
    if (domain, service) in fields.NUMBERS:
        key, attribute, tolerance = fields.NUMBERS[(domain, service)]
        return _number(Verb.OTHER, attribute, data.get(key), tolerance)
    if (domain, service) in fields.TILTS:
        return _number(
            Verb.OTHER, "current_tilt_position", fields.TILTS[(domain, service)], 0
        )
    if domain == "fan" and service in ("turn_on", "set_percentage"):
        verb = Verb.TURN_ON if service == "turn_on" else Verb.OTHER
        return _fan_on(data, verb)
    if (domain, service) in (
        ("cover", "set_cover_position"),
        ("valve", "set_valve_position"),
    ):
        # Moving, it has taken the level and is on its way (as opening for "open").
        level = _number(Verb.OTHER, "current_position", data.get("position"), 0)
        return level and replace(level, on_its_way=_MOVING)
    if domain == "climate" and service == "set_temperature":
        return _number(Verb.OTHER, "temperature", data.get("temperature"), 0.05)
    if domain == "media_player" and service == "volume_set":
        return _number(Verb.OTHER, "volume_level", data.get("volume_level"), 0.01)
    if domain == "light" and service == "turn_on":
        return _light_on(data)
    if domain in _ON_OFF:
        if service == "turn_on":
            return _on()
        if service == "turn_off":
            return _off()
        if service == "toggle" and old_state in ("on", "off"):
            return _off() if old_state == "on" else _on()
    return None


def _light_on(data: Mapping[str, Any], verb: Verb = Verb.TURN_ON) -> Expectation:
    """A light's turn_on: on, at the brightness, colour or temperature asked for."""
    level = _float(data.get("brightness"))
    if (pct := _float(data.get("brightness_pct"))) is not None:
        level = pct * 255 / 100
    if level is not None and level <= 0:
        return _off()  # HA turns a light off at brightness 0
    return Expectation(
        verb,
        frozenset({"on"}),
        # HA rounds a percentage to 0-255: a step either way is the same brightness.
        {} if level is None else {"brightness": (level, 3.0)},
        colour=asked_colour(data) if COLOUR_KEYS & data.keys() else None,
        kelvin=_float(data.get("color_temp_kelvin")),
    )


def _fan_on(data: Mapping[str, Any], verb: Verb) -> Expectation:
    """A fan's turn_on or speed: on, at the speed or preset asked for."""
    speed = _float(data.get("percentage"))
    if speed is not None and speed <= 0:
        return _off()  # HA turns a fan off at 0 %
    preset = data.get("preset_mode")
    return Expectation(
        verb,
        frozenset({"on"}),
        {} if speed is None else {"percentage": (speed, 1.0)},
        values={} if preset is None else {"preset_mode": str(preset)},
    )


def _setting(key: str, attribute: str, data: Mapping[str, Any]) -> Expectation | None:
    """A service that sets one attribute to the value of one of its fields."""
    value = data.get(key)
    if attribute in fields.BOOLEANS:
        try:
            value = cv.boolean(value)
        except probatio.Invalid:
            return None  # Home Assistant refuses it too: nothing to see
    if not isinstance(value, bool | str) or value == "":
        return None
    return Expectation(Verb.OTHER, values={attribute: value})


def _light_set(slots: Mapping[str, Any]) -> Expectation | None:
    """HassLightSet's service on a light: a brightness, colour or temperature set."""
    data = {
        "brightness_pct": slots.get("brightness"),
        "color_temp_kelvin": slots.get("temperature"),
    }
    if (colour := slots.get("color")) is not None:
        data["rgb_color" if isinstance(colour, list | tuple) else "color_name"] = colour
    expectation = _light_on(data, Verb.OTHER)  # "set": neither on nor off
    if colour is not None and expectation.colour is None:
        return None  # a colour we cannot read: HA's own check decides
    return expectation


def _number(
    verb: Verb, attribute: str, value: Any, tolerance: float
) -> Expectation | None:
    number = _float(value)
    if number is None:
        return None
    return Expectation(verb, frozenset(), {attribute: (number, tolerance)})


def _float(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    try:
        return float(str(value))
    except ValueError:
        return None


def _as_states(value: Any) -> frozenset[str]:
    """A value as the states that show it ("20" and "20.0" are the same number)."""
    states = {str(value)}
    if (number := _float(value)) is not None:
        states.add(str(number))
        if number.is_integer():
            states.add(str(int(number)))
    return frozenset(states)


# Each intent as the service it calls on an entity of a domain (HA's own handlers).
_INTENT_ON = {
    "lock": "lock",
    "cover": "open_cover",
    "valve": "open_valve",
}
_INTENT_OFF = {
    "lock": "unlock",
    "cover": "close_cover",
    "valve": "close_valve",
}
_NOT_OBSERVABLE = frozenset({"button", "input_button", "scene", "script"})
# Intents that call one service with no data of their own: that service.
_INTENT_SERVICES = {
    "HassMediaPause": "media_pause",
    "HassMediaUnpause": "media_play",
    "HassVacuumStart": "start",
    "HassVacuumReturnToBase": "return_to_base",
    "HassVacuumCleanArea": "clean_area",
    "HassLawnMowerStartMowing": "start_mowing",
    "HassLawnMowerDock": "dock",
}
_MUTES = {"HassMediaPlayerMute": True, "HassMediaPlayerUnmute": False}
# Intents that act on their targets' state: what they target is checked (or, when
# no state can show it, said as "sent"). Any other intent (a timer, a list item, a
# broadcast, a question) is told by its own result.
ACTING_INTENTS = frozenset(
    {
        "HassTurnOn",
        "HassTurnOff",
        "HassToggle",
        "HassLightSet",
        "HassSetPosition",
        "HassClimateSetTemperature",
        "HassMediaNext",
        "HassMediaPrevious",
        "HassSetVolume",
        "HassFanSetSpeed",
        *_MUTES,
        *_INTENT_SERVICES,
    }
)


def intent_expectation(
    intent_type: str, domain: str, slots: Mapping[str, Any]
) -> Expectation | None:
    """What an intent implies for one entity of `domain` it acted on; None: not seen.

    `slots` are the intent's arguments (plain values: `{"brightness": 50}`).
    """
    if domain in _NOT_OBSERVABLE:
        return None
    if intent_type == "HassTurnOn":
        return service_expectation(domain, _INTENT_ON.get(domain, "turn_on"), {})
    if intent_type == "HassTurnOff":
        return service_expectation(domain, _INTENT_OFF.get(domain, "turn_off"), {})
    if intent_type == "HassLightSet" and domain == "light":
        return _light_set(slots)
    if intent_type == "HassSetPosition":
        service = "set_valve_position" if domain == "valve" else "set_cover_position"
        return service_expectation(domain, service, {"position": slots.get("position")})
    if intent_type == "HassClimateSetTemperature":
        return service_expectation(
            "climate", "set_temperature", {"temperature": slots.get("temperature")}
        )
    if intent_type == "HassSetVolume" and (level := _float(slots.get("volume_level"))):
        return service_expectation(domain, "volume_set", {"volume_level": level / 100})
    if intent_type == "HassFanSetSpeed" and domain == "fan":
        return service_expectation(
            domain, "set_percentage", {"percentage": slots.get("percentage")}
        )
    if intent_type in _MUTES:
        muted = {"is_volume_muted": _MUTES[intent_type]}
        return service_expectation(domain, "volume_mute", muted)
    if intent_type in _INTENT_SERVICES:
        return service_expectation(domain, _INTENT_SERVICES[intent_type], {})
    return None
