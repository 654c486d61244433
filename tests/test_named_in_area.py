"""A word of the command names one of an area's devices: that one goes on, not all.

Home Assistant reads "turn on the lamp in the snug" as all the snug's lights. In a
home like bench/real_homes.py's cottage (Wall lights and Lamp by the log burner in the
Snug) the user meant the lamp; found by bench/real_model.py, where Home Assistant's own
agent (and ours through it, local first) turned on both.
"""

from typing import Any

import pytest

from homeassistant.components import conversation
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import HomeAssistant
from homeassistant.helpers import area_registry as ar, entity_registry as er
from homeassistant.setup import async_setup_component

from custom_components.agentic_conversation.const import CONF_LOCAL_FIRST
from tests.fake_llm import FakeLLM, Reply
from tests.helpers import add_agent, converse, speech, state_of

WALL, LAMP, BATH = "light.wall_lights", "light.lamp_by_the_log_burner", "light.bath"


def _light(name: str, key: str) -> dict[str, Any]:
    target = {"entity_id": f"input_boolean.{key}"}
    return {
        "name": name,
        "unique_id": key,
        "state": f"{{{{ is_state('input_boolean.{key}', 'on') }}}}",
        "turn_on": {"action": "input_boolean.turn_on", "target": target},
        "turn_off": {"action": "input_boolean.turn_off", "target": target},
    }


@pytest.fixture
async def snug(ha_core: HomeAssistant) -> HomeAssistant:
    """Two lights in the Snug, one in the bathroom, all exposed and off."""
    hass = ha_core
    assert await async_setup_component(
        hass, "input_boolean", {"input_boolean": {"wall": {}, "lamp": {}, "bath": {}}}
    )
    lights = [
        _light("Wall lights", "wall"),
        _light("Lamp by the log burner", "lamp"),
        _light("Bath", "bath"),
    ]
    assert await async_setup_component(
        hass, "template", {"template": [{"light": lights}]}
    )
    assert await async_setup_component(hass, "intent", {})
    await hass.async_block_till_done()
    area = ar.async_get(hass).async_create("Snug")
    bathroom = ar.async_get(hass).async_create("Bathroom")
    registry = er.async_get(hass)
    for entity_id, area_id in ((WALL, area.id), (LAMP, area.id), (BATH, bathroom.id)):
        assert registry.async_get(entity_id) is not None, entity_id
        registry.async_update_entity(entity_id, area_id=area_id)
        async_expose_entity(hass, conversation.DOMAIN, entity_id, True)
    return hass


def _lights(hass: HomeAssistant) -> tuple[str, str, str]:
    return state_of(hass, WALL), state_of(hass, LAMP), state_of(hass, BATH)


@pytest.mark.parametrize(
    ("text", "wall", "lamp", "said"),
    [
        # One device named by a word of its name: that one only, and said so (HA's
        # sentence would say "Turned on the lights").
        (
            "turn on the lamp in the snug",
            "off",
            "on",
            "I turned on Lamp by the log burner.",
        ),
        # All the area's lights, as Home Assistant reads it.
        ("turn on the lights in the snug", "on", "on", "Turned on the lights"),
        ("turn on the snug lights", "on", "on", "Turned on the lights"),
    ],
)
async def test_the_device_the_words_name_is_the_one(
    snug: HomeAssistant,
    fake_llm: FakeLLM,
    *,
    text: str,
    wall: str,
    lamp: str,
    said: str,
) -> None:
    """Local first, no model call: only what the words mean changes."""
    hass = snug
    options: dict[str, Any] = {CONF_LOCAL_FIRST: True}
    agent = await add_agent(hass, fake_llm, **options)
    before = len(fake_llm.requests)

    result = await converse(hass, agent, text)

    assert _lights(hass) == (wall, lamp, "off")
    assert speech(result) == said
    assert len(fake_llm.requests) == before


async def test_with_the_model_down_the_one_device_is_said_too(
    snug: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """No model answers: HA's own agent runs it on the lamp, and the lamp is named."""
    hass = snug
    agent = await add_agent(hass, fake_llm)
    await hass.async_block_till_done(wait_background_tasks=True)
    fake_llm.script([Reply.error(500)] * 2)

    result = await converse(hass, agent, "turn on the lamp in the snug")

    assert _lights(hass) == ("off", "on", "off")
    assert speech(result) == (
        "The AI service isn't available, so I used the basic assistant:"
        " I turned on Lamp by the log burner."
    )
