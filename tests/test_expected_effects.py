"""What an action implies for an entity's state, and the watch that checks it."""

import pytest

from homeassistant.core import HomeAssistant

from custom_components.agentic_conversation.verify.expected import (
    Verb,
    intent_expectation,
    service_expectation,
)
from custom_components.agentic_conversation.verify.note import note_intent
from custom_components.agentic_conversation.verify.outcome import (
    EntityEffect,
    Reason,
    Status,
    summary,
)
from custom_components.agentic_conversation.verify.watch import EffectWatch


@pytest.mark.parametrize(
    ("domain", "service", "data", "state", "attributes", "met"),
    [
        ("lock", "unlock", {}, "unlocked", {}, True),
        ("lock", "unlock", {}, "locked", {}, False),
        ("lock", "unlock", {}, "jammed", {}, False),
        ("lock", "unlock", {}, "unavailable", {}, False),
        ("cover", "open_cover", {}, "opening", {}, True),
        ("cover", "open_cover", {}, "closed", {}, False),
        ("cover", "set_cover_position", {"position": 40}, "open", {"current_position": 40}, True),
        ("cover", "set_cover_position", {"position": 40}, "open", {"current_position": 100}, False),
        ("cover", "set_cover_position", {"position": 40}, "open", {}, False),
        ("light", "turn_on", {"brightness_pct": 50}, "on", {"brightness": 128}, True),
        ("light", "turn_on", {"brightness_pct": 50}, "on", {"brightness": 255}, False),
        ("light", "turn_on", {"brightness_pct": "50"}, "on", {"brightness": True}, False),
        ("light", "turn_on", {"brightness_pct": 0}, "off", {}, True),
        ("light", "turn_on", {}, "on", {}, True),
        # a colour, as the light reports it in any colour mode: hue and saturation
        ("light", "turn_on", {"rgb_color": [255, 0, 0]}, "on", {"hs_color": (0.0, 100.0)}, True),
        ("light", "turn_on", {"rgb_color": [255, 0, 0]}, "on", {"hs_color": (240.0, 100.0)}, False),
        ("light", "turn_on", {"rgb_color": [255, 0, 0]}, "on", {}, False),
        ("light", "turn_on", {"rgb_color": [255, 0, 0]}, "off", {"hs_color": (0.0, 100.0)}, False),
        ("light", "turn_on", {"color_name": "Red"}, "on", {"hs_color": (352.0, 90.0)}, True),
        # an early Hue bulb's green, clipped to its gamut; not the blue it kept
        ("light", "turn_on", {"color_name": "green"}, "on", {"hs_color": (66.383, 73.725)}, True),
        ("light", "turn_on", {"color_name": "green"}, "on", {"hs_color": (240.0, 100.0)}, False),
        ("light", "turn_on", {"hs_color": [120, 100]}, "on", {"hs_color": (120.0, 40.0)}, False),
        ("light", "turn_on", {"xy_color": [0.172, 0.747]}, "on", {"hs_color": (118.0, 100.0)}, True),
        ("light", "turn_on", {"xy_color": [0.172, 0.747]}, "on", {"hs_color": ["118", 100]}, False),
        # a white: any white, a colour temperature too; never a red
        ("light", "turn_on", {"color_name": "white"}, "on", {"color_mode": "color_temp", "hs_color": (28.4, 65.7)}, True),
        ("light", "turn_on", {"color_name": "white"}, "on", {"color_mode": "hs", "hs_color": (0.0, 10.0)}, True),
        ("light", "turn_on", {"color_name": "white"}, "on", {"color_mode": "hs", "hs_color": (0.0, 100.0)}, False),
        # a colour HA would refuse: the light being on is all there is to see
        ("light", "turn_on", {"rgb_color": "red"}, "on", {}, True),
        # a colour temperature, within the light's range
        ("light", "turn_on", {"color_temp_kelvin": 2700}, "on", {"color_temp_kelvin": 2703}, True),
        ("light", "turn_on", {"color_temp_kelvin": 2700}, "on", {"color_temp_kelvin": 4000}, False),
        ("light", "turn_on", {"color_temp_kelvin": 7000}, "on", {"color_temp_kelvin": 6500, "max_color_temp_kelvin": 6500}, True),
        ("light", "turn_on", {"color_temp_kelvin": 1000}, "on", {"color_temp_kelvin": 2000, "min_color_temp_kelvin": 2000}, True),
        ("light", "turn_on", {"color_temp_kelvin": 2700}, "on", {}, False),
        ("switch", "turn_off", {}, "off", {}, True),
        ("switch", "turn_off", {}, "on", {}, False),
        ("climate", "set_temperature", {"temperature": 21}, "heat", {"temperature": 21.0}, True),
        ("input_number", "set_value", {"value": 20}, "20.0", {}, True),
        ("alarm_control_panel", "alarm_disarm", {}, "disarmed", {}, True),
        ("alarm_control_panel", "alarm_arm_away", {}, "armed_home", {}, False),
        # a fan's speed: as asked, or the step at or above it (three speeds: 50 → 66.7)
        ("fan", "set_percentage", {"percentage": 50}, "on", {"percentage": 50}, True),
        ("fan", "set_percentage", {"percentage": 50}, "on", {"percentage": 66.67, "percentage_step": 33.33}, True),
        ("fan", "set_percentage", {"percentage": 50}, "on", {"percentage": 33.33, "percentage_step": 33.33}, False),
        ("fan", "set_percentage", {"percentage": 50}, "on", {"percentage": 66.67}, False),
        ("fan", "set_percentage", {"percentage": 50}, "off", {"percentage": 50}, False),
        ("fan", "set_percentage", {"percentage": "0"}, "off", {}, True),
        ("fan", "turn_on", {"percentage": 100}, "on", {"percentage": 100}, True),
        ("fan", "turn_on", {"preset_mode": "Sleep"}, "on", {"preset_mode": "sleep"}, True),
        ("fan", "turn_on", {"preset_mode": "sleep"}, "on", {"preset_mode": "auto"}, False),
        ("fan", "oscillate", {"oscillating": "yes"}, "on", {"oscillating": True}, True),
        ("fan", "oscillate", {"oscillating": True}, "on", {"oscillating": "true"}, False),
        # muted: a boolean as HA reads it, never a word that is true
        ("media_player", "volume_mute", {"is_volume_muted": True}, "playing", {"is_volume_muted": True}, True),
        ("media_player", "volume_mute", {"is_volume_muted": "off"}, "playing", {"is_volume_muted": False}, True),
        ("media_player", "volume_mute", {"is_volume_muted": True}, "playing", {"is_volume_muted": False}, False),
        ("media_player", "volume_mute", {"is_volume_muted": True}, "playing", {}, False),
        ("media_player", "select_source", {"source": "TV"}, "on", {"source": "HDMI 1"}, False),
        ("climate", "set_hvac_mode", {"hvac_mode": "off"}, "off", {}, True),
        ("climate", "set_hvac_mode", {"hvac_mode": "cool"}, "heat", {}, False),
        ("climate", "set_fan_mode", {"fan_mode": "high"}, "heat", {"fan_mode": "high"}, True),
        ("climate", "set_fan_mode", {"fan_mode": "high"}, "heat", {"fan_mode": "low"}, False),
        ("climate", "turn_on", {}, "heat", {}, True),
        ("climate", "turn_on", {}, "off", {}, False),
        ("humidifier", "set_humidity", {"humidity": 45}, "on", {"humidity": 45}, True),
        ("humidifier", "set_humidity", {"humidity": 45}, "on", {"humidity": 60}, False),
        ("water_heater", "set_operation_mode", {"operation_mode": "eco"}, "eco", {}, True),
        ("cover", "close_cover_tilt", {}, "open", {"current_tilt_position": 0}, True),
        ("cover", "close_cover_tilt", {}, "open", {"current_tilt_position": 50}, False),
        ("lawn_mower", "start_mowing", {}, "mowing", {}, True),
        ("lawn_mower", "start_mowing", {}, "docked", {}, False),
        ("vacuum", "stop", {}, "cleaning", {}, False),
    ],
)  # fmt: skip
def test_what_a_service_implies(
    domain: str,
    service: str,
    data: dict[str, object],
    state: str,
    attributes: dict[str, object],
    *,
    met: bool,
) -> None:
    """Done only in the state (and with the attributes) the call implies."""
    expectation = service_expectation(domain, service, data)
    assert expectation is not None
    assert expectation.met(state, attributes) is met


@pytest.mark.parametrize(
    ("domain", "service", "data", "old"),
    [
        ("button", "press", {}, None),
        ("scene", "turn_on", {}, None),
        ("script", "turn_on", {}, None),
        ("notify", "send_message", {"message": "hi"}, None),
        ("light", "toggle", {}, None),  # the state before is unknown
        ("input_number", "set_value", {}, None),  # no value: nothing to compare
        ("cover", "set_cover_position", {"position": "half"}, None),
        ("media_player", "volume_mute", {"is_volume_muted": "maybe"}, None),
        ("media_player", "volume_mute", {}, None),
        ("climate", "set_fan_mode", {"fan_mode": ""}, None),
        ("climate", "set_hvac_mode", {}, None),
        ("media_player", "media_next_track", {}, None),
    ],
)
def test_what_cannot_be_seen(
    domain: str, service: str, data: dict[str, object], old: str | None
) -> None:
    """A press, a scene, a message: no state shows them (said as "sent")."""
    assert service_expectation(domain, service, data, old) is None


def test_a_toggle_implies_the_other_state() -> None:
    """Known the state before, a toggle is a turn off or on."""
    off = service_expectation("light", "toggle", {}, "on")
    assert off is not None
    assert off.met("off", {}) and not off.met("on", {})


@pytest.mark.parametrize(
    ("intent", "domain", "slots", "verb", "done_state"),
    [
        ("HassTurnOff", "lock", {}, Verb.UNLOCK, "unlocked"),
        ("HassTurnOn", "lock", {}, Verb.LOCK, "locked"),
        ("HassTurnOn", "cover", {}, Verb.OPEN, "open"),
        ("HassTurnOff", "cover", {}, Verb.CLOSE, "closed"),
        ("HassTurnOn", "light", {}, Verb.TURN_ON, "on"),
        ("HassTurnOff", "fan", {}, Verb.TURN_OFF, "off"),
        ("HassMediaPause", "media_player", {}, Verb.OTHER, "paused"),
        ("HassLightSet", "light", {}, Verb.OTHER, "on"),
        ("HassFanSetSpeed", "fan", {"percentage": 0}, Verb.TURN_OFF, "off"),
        ("HassLawnMowerStartMowing", "lawn_mower", {}, Verb.OTHER, "mowing"),
        ("HassLawnMowerDock", "lawn_mower", {}, Verb.OTHER, "docked"),
        ("HassVacuumCleanArea", "vacuum", {"area": "Kitchen"}, Verb.OTHER, "cleaning"),
    ],
)
def test_what_an_intent_implies(
    intent: str, domain: str, slots: dict[str, object], verb: Verb, done_state: str
) -> None:
    """Each intent as the service HA's handler calls on that domain."""
    expectation = intent_expectation(intent, domain, slots)
    assert expectation is not None
    assert expectation.verb is verb
    assert expectation.met(done_state, {})


@pytest.mark.parametrize(
    ("intent", "slots", "attributes", "met"),
    [
        ("HassFanSetSpeed", {"percentage": 50}, {"percentage": 50}, True),
        ("HassFanSetSpeed", {"percentage": 50}, {"percentage": 100}, False),
        ("HassMediaPlayerMute", {}, {"is_volume_muted": True}, True),
        ("HassMediaPlayerMute", {}, {"is_volume_muted": False}, False),
        ("HassMediaPlayerUnmute", {}, {"is_volume_muted": False}, True),
        ("HassMediaPlayerUnmute", {}, {"is_volume_muted": True}, False),
    ],
)
def test_a_setting_intent_is_done_when_the_entity_shows_it(
    intent: str, slots: dict[str, object], attributes: dict[str, object], *, met: bool
) -> None:
    """A fan's speed, muted or not: the attribute the entity reports decides."""
    domain = "fan" if intent == "HassFanSetSpeed" else "media_player"
    expectation = intent_expectation(intent, domain, slots)
    assert expectation is not None
    assert expectation.met("on", attributes) is met


@pytest.mark.parametrize("domain", ["button", "input_button", "scene", "script"])
def test_an_intent_on_a_stateless_target_is_sent(domain: str) -> None:
    """Turning on a scene or pressing a button: nothing in a state shows it."""
    assert intent_expectation("HassTurnOn", domain, {}) is None


async def test_an_intent_failed_list_and_an_assumed_state(hass: HomeAssistant) -> None:
    """An area a success with every entity in `failed`; an assumed state is "sent"."""
    hass.states.async_set("light.left", "off", {"friendly_name": "Left"})
    hass.states.async_set("switch.old", "off", {"assumed_state": True})
    watch = EffectWatch(hass, 2.0)
    note_intent(
        watch,
        "HassTurnOn",
        {"area": "Garage"},
        {
            "success": [{"type": "area", "id": "garage", "name": "Garage"}],
            "failed": [{"type": "entity", "id": "light.left", "name": "Left"}],
        },
    )
    note_intent(
        watch,
        "HassTurnOn",
        {"name": "Old"},
        {"success": [{"type": "entity", "id": "switch.old", "name": "Old"}]},
    )

    effects = await watch.async_wait()

    assert effects == [
        EntityEffect(
            "light.left", "Left", Verb.TURN_ON, Status.NOT_DONE, Reason.ERROR, "off"
        ),
        EntityEffect("switch.old", "Old", Verb.TURN_ON, Status.SENT),
    ]
    assert watch.waited < 0.5  # nothing awaited: no wait at all
    assert summary(effects) == "1 not done, 1 sent"


async def test_a_failed_entry_whose_state_shows_it_is_judged_by_its_state(
    hass: HomeAssistant,
) -> None:
    """HA may name the wrong one of several in `failed`: a door shut is not "not shut"."""
    hass.states.async_set("cover.shed", "closed", {"friendly_name": "Shed"})
    hass.states.async_set("cover.hall", "open", {"friendly_name": "Hall"})
    watch = EffectWatch(hass, 0.0)
    note_intent(
        watch,
        "HassTurnOff",
        {"domain": ["cover"]},
        {
            "success": [{"type": "entity", "id": "cover.hall", "name": "Hall"}],
            "failed": [{"type": "entity", "id": "cover.shed", "name": "Shed"}],
        },
    )

    effects = await watch.async_wait()

    assert effects == [
        EntityEffect("cover.hall", "Hall", Verb.CLOSE, Status.NOT_DONE, Reason.STILL, "open"),
        EntityEffect("cover.shed", "Shed", Verb.CLOSE, Status.DONE),
    ]  # fmt: skip


async def test_the_watch_ends_at_the_state_change(hass: HomeAssistant) -> None:
    """An awaited entity done by a state change; another still at the deadline."""
    hass.states.async_set("lock.a", "locked", {"friendly_name": "A"})
    hass.states.async_set("lock.b", "locked", {"friendly_name": "B"})
    watch = EffectWatch(hass, 0.2)
    unlock = service_expectation("lock", "unlock", {})
    watch.expect("lock.a", unlock)
    watch.expect("lock.b", unlock)
    hass.states.async_set("lock.a", "unlocked", {"friendly_name": "A"})

    effects = await watch.async_wait()

    assert [(e.entity_id, e.status, e.reason, e.state) for e in effects] == [
        ("lock.a", Status.DONE, None, ""),
        ("lock.b", Status.NOT_DONE, Reason.STILL, "locked"),
    ]
    watch.close()


@pytest.mark.parametrize(
    ("slots", "attributes", "met"),
    [
        ({"color": "red"}, {"hs_color": (0.0, 100.0)}, True),
        ({"color": "red"}, {"hs_color": (240.0, 100.0)}, False),
        ({"color": (255, 0, 0)}, {"hs_color": (0.0, 100.0)}, True),  # HA's own RGB
        ({"temperature": 3000}, {"color_temp_kelvin": 3000}, True),
        ({"temperature": 3000}, {"color_temp_kelvin": 6000}, False),
        ({"brightness": 0}, {}, False),  # off, not on
    ],
)
def test_a_light_set_intent_implies_what_it_sets(
    slots: dict[str, object], attributes: dict[str, object], *, met: bool
) -> None:
    """HassLightSet: the colour or temperature asked, in the light's state."""
    expectation = intent_expectation("HassLightSet", "light", slots)
    assert expectation is not None
    assert expectation.met("on", attributes) is met


def test_a_light_set_to_a_colour_no_one_knows_is_not_judged() -> None:
    """A colour name HA does not know: HA refuses it; nothing is expected."""
    assert intent_expectation("HassLightSet", "light", {"color": "sunset"}) is None
