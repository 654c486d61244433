"""What state an action implies for the entity it targets, and whether it is there.

Pure logic (no Home Assistant objects): a service call or an intent on an entity of a
domain gives an `Expectation` (the states that mean done, attributes that must match,
the verb it is told with), or None when its effect cannot be seen in the entity's
state (a button, a scene, a script, a notification: said as "sent", never "done").

A light's colour is compared as hue and saturation: every colour mode reports
`hs_color`, and a bulb clips a colour to its gamut and rounds it, so "near" is
generous (red is told from green or blue, not from orange): it tells a colour taken
from one kept. A white is any white the light makes, a colour temperature too. A
colour temperature is compared within the light's own range (asked 7000 K, a light
that goes to 6500 K shows 6500 K).
"""

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

from homeassistant.util import color as color_util

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
    on_its_way: frozenset[str] = frozenset()
    """States that show the command taken and under way (a cover moving to a level)."""
    colour: tuple[float, float] | None = None
    """A light's colour (hue, saturation) to show, near enough (`_shows_colour`)."""
    kelvin: float | None = None
    """A light's colour temperature to show, within its range."""

    def met(self, state: str, attributes: Mapping[str, Any]) -> bool:
        """Whether an entity in this state, with these attributes, shows it done."""
        if state in self.on_its_way:
            return True
        if state in UNAVAILABLE or (self.states and state not in self.states):
            return False
        for name, (value, tolerance) in self.attributes.items():
            reported = attributes.get(name)
            if isinstance(reported, bool) or not isinstance(reported, int | float):
                return False
            if abs(reported - value) > tolerance:
                return False
        if self.colour is not None and not _shows_colour(attributes, *self.colour):
            return False
        return self.kelvin is None or _shows_kelvin(attributes, self.kelvin)


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
}
_ARMED = {
    "alarm_arm_away": "armed_away",
    "alarm_arm_home": "armed_home",
    "alarm_arm_night": "armed_night",
    "alarm_arm_vacation": "armed_vacation",
    "alarm_arm_custom_bypass": "armed_custom_bypass",
}
_VALUE_SETTERS = {
    ("input_number", "set_value"),
    ("number", "set_value"),
    ("input_select", "select_option"),
    ("select", "select_option"),
    ("input_text", "set_value"),
    ("text", "set_value"),
}


def service_expectation(
    domain: str, service: str, data: Mapping[str, Any], old_state: str | None = None
) -> Expectation | None:
    """What a service call implies for one entity of `domain`; None: not observable.

    `old_state` is the entity's state before the call, for a toggle.
    """
    if (domain, service) in _SERVICES:
        return _SERVICES[(domain, service)]
    if domain == "alarm_control_panel" and service in _ARMED:
        return Expectation(Verb.ARM, frozenset({_ARMED[service], "arming"}))
    if (domain, service) in _VALUE_SETTERS:
        value = data.get("value", data.get("option"))
        return None if value is None else Expectation(Verb.OTHER, _as_states(value))
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
        colour=_asked_colour(data),
        kelvin=_float(data.get("color_temp_kelvin")),
    )


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
        "HassMediaPause",
        "HassMediaUnpause",
        "HassMediaNext",
        "HassMediaPrevious",
        "HassSetVolume",
        "HassVacuumStart",
        "HassVacuumReturnToBase",
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
    if intent_type == "HassMediaPause":
        return service_expectation(domain, "media_pause", {})
    if intent_type == "HassMediaUnpause":
        return service_expectation(domain, "media_play", {})
    if intent_type == "HassVacuumStart":
        return service_expectation(domain, "start", {})
    if intent_type == "HassVacuumReturnToBase":
        return service_expectation(domain, "return_to_base", {})
    return None


# A light's colour or colour temperature asked, and whether the light shows it.
# Degrees of hue and points of saturation (0-100) a shown colour may be off by: an
# early Hue bulb (gamut B) shows "green" at a hue of 66, saturation 74. Near enough
# to tell a colour taken from one kept (a blue asked for red is 120 degrees away).
_HUE_SLACK = 60.0
_SATURATION_SLACK = 35.0
# At most this saturation a colour asked is a white; a white shown, at most _PALE.
_WHITE = 20.0
_PALE = 30.0
_WHITE_MODES = frozenset({"color_temp", "white"})
# Kelvin a colour temperature may be off by, as a share of it (mireds are rounded).
_KELVIN_SLACK = 0.05


def _asked_colour(data: Mapping[str, Any]) -> tuple[float, float] | None:
    """The (hue, saturation) a light's turn_on asks for, if it asks for a colour."""
    try:
        if (name := data.get("color_name")) is not None:
            return color_util.color_RGB_to_hs(*color_util.color_name_to_rgb(str(name)))
        if (rgb := _numbers(data.get("rgb_color"), 3)) is not None:
            return color_util.color_RGB_to_hs(*rgb)
        if (hs := _numbers(data.get("hs_color"), 2)) is not None:
            return hs[0], hs[1]
        if (xy := _numbers(data.get("xy_color"), 2)) is not None:
            return color_util.color_xy_to_hs(xy[0], xy[1])
    except ValueError, TypeError, ZeroDivisionError:
        return None  # HA rejects it too: nothing to see
    return None


def _shows_colour(attributes: Mapping[str, Any], hue: float, saturation: float) -> bool:
    """Whether a light's state shows the colour (hue, saturation), near enough."""
    shown = _numbers(attributes.get("hs_color"), 2)
    if saturation <= _WHITE:
        if attributes.get("color_mode") in _WHITE_MODES:
            return True
        return shown is not None and shown[1] <= _PALE
    if shown is None:
        return False
    apart = abs(shown[0] - hue) % 360
    return (
        min(apart, 360 - apart) <= _HUE_SLACK
        and abs(shown[1] - saturation) <= _SATURATION_SLACK
    )


def _shows_kelvin(attributes: Mapping[str, Any], kelvin: float) -> bool:
    """Whether a light shows the colour temperature, within the light's range."""
    shown = attributes.get("color_temp_kelvin")
    if isinstance(shown, bool) or not isinstance(shown, int | float):
        return False
    low, high = (
        attributes.get("min_color_temp_kelvin"),
        attributes.get("max_color_temp_kelvin"),
    )
    if isinstance(low, int | float) and not isinstance(low, bool):
        kelvin = max(kelvin, low)
    if isinstance(high, int | float) and not isinstance(high, bool):
        kelvin = min(kelvin, high)
    return abs(shown - kelvin) <= kelvin * _KELVIN_SLACK


def _numbers(value: Any, count: int) -> list[float] | None:
    """`count` numbers (a list or tuple of them), or None."""
    if not isinstance(value, list | tuple) or len(value) != count:
        return None
    if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in value):
        return None
    return [float(v) for v in value]
