"""A light's colour is checked like its brightness: done when the light shows it.

"Turn the kitchen lights red" was told as "I sent the command to Kitchen lights"
even when the light was red, and a model's "Done, it's red." stood for a bulb that
kept its colour. Now the colour asked (a name, RGB, HS or XY) is compared with the
colour the light reports: Home Assistant's "Color set" is heard when it shows it,
and a light that kept its colour is told as not changed, in the user's language.
"""

from typing import Any

import pytest

from homeassistant.components import conversation
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import HomeAssistant
from homeassistant.setup import async_setup_component

from custom_components.agentic_conversation.config_flow import default_agent_options
from custom_components.agentic_conversation.const import (
    CONF_ALLOWED_SERVICES,
    CONF_LOCAL_FIRST,
    CONF_VERIFY_TIMEOUT,
)
from tests.across_releases import offered_name
from tests.fake_llm import FakeLLM, Reply
from tests.helpers import add_agent, converse, speech

KITCHEN = "light.kitchen_lights"
STUCK = "light.stuck_lamp"
BLUE = (240, 100)
APIS = default_agent_options([])["llm_hass_api"]


def _colour_light(key: str, name: str, *, takes_colour: bool) -> dict[str, Any]:
    """A colour light whose hue and saturation live in two input numbers.

    One that does not take a colour comes on and keeps the one it had.
    """
    hue, saturation, on = (
        f"input_number.{key}_hue",
        f"input_number.{key}_saturation",
        f"input_boolean.{key}",
    )

    def _set(entity_id: str, value: str) -> dict[str, Any]:
        return {
            "action": "input_number.set_value",
            "target": {"entity_id": entity_id},
            "data": {"value": value},
        }

    turn_on = {"action": "input_boolean.turn_on", "target": {"entity_id": on}}
    set_hs = [turn_on]
    if takes_colour:
        set_hs += [_set(hue, "{{ h }}"), _set(saturation, "{{ s }}")]
    return {
        "name": name,
        "unique_id": key,
        "state": f"{{{{ is_state('{on}', 'on') }}}}",
        "hs": f"{{{{ [states('{hue}') | float, states('{saturation}') | float] }}}}",
        "turn_on": turn_on,
        "turn_off": {"action": "input_boolean.turn_off", "target": {"entity_id": on}},
        "set_hs": set_hs,
    }


@pytest.fixture
async def home(ha_core: HomeAssistant) -> HomeAssistant:
    """Two colour lights, on and blue; the stuck lamp does not take a colour."""
    hass = ha_core
    keys = ("kitchen_lights", "stuck_lamp")
    assert await async_setup_component(
        hass, "input_boolean", {"input_boolean": {k: {"initial": True} for k in keys}}
    )
    numbers: dict[str, Any] = {}
    for key in keys:
        numbers[f"{key}_hue"] = {"min": 0, "max": 360, "initial": BLUE[0]}
        numbers[f"{key}_saturation"] = {"min": 0, "max": 100, "initial": BLUE[1]}
    assert await async_setup_component(hass, "input_number", {"input_number": numbers})
    lights = [
        _colour_light("kitchen_lights", "Kitchen lights", takes_colour=True),
        _colour_light("stuck_lamp", "Stuck lamp", takes_colour=False),
    ]
    assert await async_setup_component(
        hass, "template", {"template": [{"light": lights}]}
    )
    assert await async_setup_component(hass, "intent", {})
    await hass.async_block_till_done()
    for entity_id in (KITCHEN, STUCK):
        async_expose_entity(hass, conversation.DOMAIN, entity_id, True)
    return hass


async def _agent(hass: HomeAssistant, server: FakeLLM, **options: Any) -> str:
    return await add_agent(
        hass,
        server,
        apis=APIS,
        background=True,
        **{CONF_ALLOWED_SERVICES: ["light"], CONF_VERIFY_TIMEOUT: 0.5, **options},
    )


def _hs(hass: HomeAssistant, entity_id: str) -> tuple[float, float]:
    state = hass.states.get(entity_id)
    assert state is not None and state.state == "on"
    hue, saturation = state.attributes["hs_color"]
    return round(hue), round(saturation)


@pytest.mark.parametrize(
    ("command", "heard", "light", "shown"),
    [
        # Home Assistant's own words, when the light is red
        ("turn the kitchen lights red", "Color set", KITCHEN, (0, 100)),
        # not "Color set" for a lamp still blue
        (
            "turn the stuck lamp red",
            "Stuck lamp did not change: it is still on.",
            STUCK,
            BLUE,
        ),
    ],
)
async def test_home_assistants_colour_set_only_when_the_light_shows_it(
    home: HomeAssistant,
    fake_llm: FakeLLM,
    *,
    command: str,
    heard: str,
    light: str,
    shown: tuple[int, int],
) -> None:
    """Local first runs HA's intent, no model asked; the light's colour decides."""
    hass = home
    agent = await _agent(hass, fake_llm, **{CONF_LOCAL_FIRST: True})

    result = await converse(hass, agent, command)

    assert speech(result) == heard
    assert _hs(hass, light) == shown
    assert fake_llm.requests == []


@pytest.mark.parametrize(
    ("language", "heard"),
    [
        ("en", "Stuck lamp did not change: it is still on."),
        ("de", "Stuck lamp hat sich nicht geändert: es ist immer noch ein."),
        ("fr", "Stuck lamp n'a pas changé : il est toujours allumé."),
    ],
)
async def test_the_models_done_for_a_lamp_still_blue_is_not_said(
    home: HomeAssistant, fake_llm: FakeLLM, *, language: str, heard: str
) -> None:
    """An intent, in three languages: what the lamp shows is heard, not "Done."."""
    hass = home
    agent = await _agent(hass, fake_llm)
    light_set = await offered_name(hass, APIS, "HassLightSet")
    fake_llm.script(
        [
            Reply.tool_calls([(light_set, {"name": "Stuck lamp", "color": "red"})]),
            Reply.text("Done."),
        ]
    )

    result = await converse(hass, agent, "make the stuck lamp red", language=language)

    assert speech(result) == heard
    assert _hs(hass, STUCK) == BLUE


@pytest.mark.parametrize(
    ("colour", "heard"),
    [
        ({"rgb_color": [255, 0, 0]}, "I turned on Kitchen lights; Stuck lamp did not change: it is still on."),
        ({"hs_color": [0, 100]}, "I turned on Kitchen lights; Stuck lamp did not change: it is still on."),
        ({"color_name": "blue"}, "Done, both are blue."),
    ],
)  # fmt: skip
async def test_a_service_call_with_a_colour(
    home: HomeAssistant, fake_llm: FakeLLM, *, colour: dict[str, Any], heard: str
) -> None:
    """call_service turns both on with a colour: each told as its state shows."""
    hass = home
    agent = await _agent(hass, fake_llm)
    call_service = await offered_name(hass, APIS, "call_service")
    arguments = {
        "domain": "light",
        "service": "turn_on",
        "target": {"entity_id": [KITCHEN, STUCK]},
        "data": colour,
    }
    fake_llm.script(
        [
            Reply.tool_calls([(call_service, arguments)]),
            Reply.text("Done, both are blue." if "color_name" in colour else "Done."),
        ]
    )

    result = await converse(hass, agent, "make both lights that colour")

    assert speech(result) == heard
    assert _hs(hass, STUCK) == BLUE
    assert _hs(hass, KITCHEN) == (BLUE if "color_name" in colour else (0, 100))
