"""A home whose devices fail as real ones do, for the verified-effects tests.

- Front door: a lock that can drop off the network (its `online` flag);
- Slow door: an unlock that waits a second, then fails (a jammed lock);
- Late door: an unlock that takes 0.3 s, then works;
- Slow light: a light that takes 0.3 s to come on;
- Porch light: a light that answers at once;
- Kitchen shutter: a cover whose opening fails at once;
- the Garage area: two lights whose turning on fails at once;
- Doorbell (a button) and Movie night (a scene): their state cannot show a press.
"""

from typing import Any

import pytest

from homeassistant.components import conversation
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import HomeAssistant
from homeassistant.helpers import area_registry as ar, entity_registry as er
from homeassistant.setup import async_setup_component

from custom_components.agentic_conversation.config_flow import default_agent_options
from custom_components.agentic_conversation.const import (
    CONF_ALLOWED_SERVICES,
    CONF_VERIFY_TIMEOUT,
)
from tests.fake_llm import FakeLLM
from tests.helpers import add_agent

FRONT = "lock.front_door"
SLOW = "lock.slow_door"
LATE = "lock.late_door"
SLOW_LIGHT = "light.slow_light"
PORCH = "light.porch_light"
SHUTTER = "cover.kitchen_shutter"
GARAGE_LIGHTS = ("light.left_garage_light", "light.right_garage_light")
DOORBELL = "input_button.doorbell"
MOVIE = "scene.movie_night"
ONLINE = "input_boolean.front_door_online"
FAIL = {"stop": "The device did not answer", "error": True}


def _flag(name: str, value: str) -> dict[str, Any]:
    return {"action": f"input_boolean.turn_{value}", "target": {"entity_id": name}}


def _lock(key: str, name: str, unlock: list[dict[str, Any]]) -> dict[str, Any]:
    flag = f"input_boolean.{key}"
    return {
        "name": name,
        "state": f"{{{{ is_state('{flag}', 'on') }}}}",  # on: locked
        "lock": _flag(flag, "on"),
        "unlock": unlock,
    }


def _light(key: str, name: str, turn_on: list[dict[str, Any]]) -> dict[str, Any]:
    flag = f"input_boolean.{key}"
    return {
        "name": name,
        "unique_id": key,
        "state": f"{{{{ is_state('{flag}', 'on') }}}}",
        "turn_on": turn_on,
        "turn_off": _flag(flag, "off"),
    }


@pytest.fixture
async def home(ha_core: HomeAssistant) -> HomeAssistant:
    """The home above, every device exposed, the doors locked, the lights off."""
    hass = ha_core
    locked = {"front_door", "slow_door", "late_door", "front_door_online"}
    flags = [*locked, "slow_light", "porch_light", "garage_left", "garage_right"]
    flags += ["kitchen_shutter", "movie"]
    assert await async_setup_component(
        hass,
        "input_boolean",
        {"input_boolean": {f: {"initial": f in locked} for f in flags}},
    )
    assert await async_setup_component(
        hass, "input_button", {"input_button": {"doorbell": {"name": "Doorbell"}}}
    )
    assert await async_setup_component(
        hass,
        "scene",
        {"scene": [{"name": "Movie night", "entities": {"input_boolean.movie": "on"}}]},
    )
    front = _lock(
        "front_door", "Front door", [_flag("input_boolean.front_door", "off")]
    )
    front["availability"] = f"{{{{ is_state('{ONLINE}', 'on') }}}}"
    assert await async_setup_component(
        hass,
        "template",
        {
            "template": [
                {
                    "lock": [
                        front,
                        _lock("slow_door", "Slow door", [{"delay": 1}, FAIL]),
                        _lock(
                            "late_door",
                            "Late door",
                            [{"delay": 0.3}, _flag("input_boolean.late_door", "off")],
                        ),
                    ],
                    "light": [
                        _light(
                            "slow_light",
                            "Slow light",
                            [{"delay": 0.3}, _flag("input_boolean.slow_light", "on")],
                        ),
                        _light(
                            "porch_light",
                            "Porch light",
                            [_flag("input_boolean.porch_light", "on")],
                        ),
                        _light("garage_left", "Left garage light", [FAIL]),
                        _light("garage_right", "Right garage light", [FAIL]),
                    ],
                    "cover": [
                        {
                            "name": "Kitchen shutter",
                            "device_class": "shutter",
                            "state": "{{ 'open' if is_state('input_boolean."
                            "kitchen_shutter', 'on') else 'closed' }}",
                            "open_cover": [FAIL],
                            "close_cover": _flag(
                                "input_boolean.kitchen_shutter", "off"
                            ),
                        }
                    ],
                }
            ]
        },
    )
    assert await async_setup_component(hass, "intent", {})
    await hass.async_block_till_done()
    garage = ar.async_get(hass).async_create("Garage")
    for entity_id in GARAGE_LIGHTS:
        er.async_get(hass).async_update_entity(entity_id, area_id=garage.id)
    for entity_id in (
        FRONT,
        SLOW,
        LATE,
        SLOW_LIGHT,
        PORCH,
        SHUTTER,
        *GARAGE_LIGHTS,
        DOORBELL,
        MOVIE,
    ):
        async_expose_entity(hass, conversation.DOMAIN, entity_id, True)
    return hass


async def agent(hass: HomeAssistant, server: FakeLLM, deadline: float = 2.0) -> str:
    """A new agent (Compact home control) that may call services on all of these."""
    options: dict[str, Any] = {
        CONF_ALLOWED_SERVICES: ["light", "cover", "lock", "input_button"],
        CONF_VERIFY_TIMEOUT: deadline,
    }
    return await add_agent(
        hass,
        server,
        apis=default_agent_options([])["llm_hass_api"],
        background=True,
        **options,
    )
