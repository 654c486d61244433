"""A small real home for the tool tests.

Template entities over input_booleans, areas on a floor, a label, devices, scripts and
old-style groups, some exposed to Assist and some not.
"""

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry

from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import Context, HomeAssistant
from homeassistant.helpers import (
    area_registry as ar,
    device_registry as dr,
    entity_registry as er,
    floor_registry as fr,
    label_registry as lr,
    llm,
)
from homeassistant.setup import async_setup_component

from custom_components.agentic_conversation.const import DOMAIN, LLM_API_ID
from custom_components.agentic_conversation.tool_options import (
    AgenticLLMContext,
    ToolOptions,
)
from custom_components.agentic_conversation.tools import open_meteo
from tests.fake_open_meteo import FakeOpenMeteo
from tests.helpers import state_of

__all__ = ["state_of"]  # the tool tests read states with it from here

# name, domain, area, exposed
HOME = [
    ("Porch light", "light", "Porch", True),
    ("Kitchen light", "light", "Kitchen", True),
    ("Kitchen strip", "light", "Kitchen", False),
    ("Garage light", "light", "Garage", False),
    ("Coffee machine", "switch", "Kitchen", True),
    ("Front door", "lock", "Hall", True),
    ("Garage door", "cover", "Garage", True),
]
# The label "Night": one exposed light, one not.
NIGHT = ("light.porch_light", "light.garage_light")
# Scripts: (object id, name, input_boolean it turns on, exposed).
SCRIPTS = [
    ("open_garage", "Open garage", "garage_door", True),
    ("garage_light_on", "Garage light on", "garage_light", False),
]
# Old-style groups: (object id, members, exposed).
GROUPS = [
    ("outside", ["light.porch_light", "light.garage_light"], True),
    ("hidden_porch", ["light.porch_light"], False),
]


def _key(name: str) -> str:
    return name.lower().replace(" ", "_")


def _template(name: str, domain: str) -> dict[str, Any]:
    flag = f"input_boolean.{_key(name)}"
    on = {"action": "input_boolean.turn_on", "target": {"entity_id": flag}}
    off = {"action": "input_boolean.turn_off", "target": {"entity_id": flag}}
    config: dict[str, Any] = {"name": name, "unique_id": _key(name)}
    if domain in {"light", "switch"}:
        config |= {
            "state": f"{{{{ is_state('{flag}', 'on') }}}}",
            "turn_on": on,
            "turn_off": off,
        }
    elif domain == "lock":
        config |= {
            "state": f"{{{{ is_state('{flag}', 'on') }}}}",
            "lock": on,
            "unlock": off,
        }
    else:
        config |= {
            "state": f"{{{{ 'open' if is_state('{flag}', 'on') else 'closed' }}}}",
            "open_cover": on,
            "close_cover": off,
        }
    return config


@pytest.fixture
async def home(ha_core: HomeAssistant) -> HomeAssistant:
    """The home.

    Devices: "Garage hub" holds the garage light and door, "Kitchen bar" (in the
    kitchen) the kitchen light, which has no area of its own, and the strip. The
    floor "Ground floor" holds the kitchen and the garage.
    """
    hass = ha_core
    assert await async_setup_component(
        hass, "input_boolean", {"input_boolean": {_key(n): {} for n, *_ in HOME}}
    )
    templates: dict[str, list[dict[str, Any]]] = {}
    for name, domain, _, _ in HOME:
        templates.setdefault(domain, []).append(_template(name, domain))
    templates["weather"] = [
        {
            "name": "Home",
            "unique_id": "home_weather",
            "condition_template": "sunny",
            "temperature_template": "{{ 21 }}",
            "humidity_template": "{{ 40 }}",
            "forecast_daily_template": (
                "{{ [{'datetime': '2026-11-23T00:00:00+00:00',"
                " 'condition': 'rainy', 'temperature': 15}] }}"
            ),
        }
    ]
    assert await async_setup_component(hass, "template", {"template": [templates]})
    await hass.async_block_till_done()

    areas = ar.async_get(hass)
    entities = er.async_get(hass)
    hub_entry = MockConfigEntry(domain="hub")
    hub_entry.add_to_hass(hass)
    devices = {
        area: dr.async_get(hass).async_get_or_create(
            config_entry_id=hub_entry.entry_id,
            identifiers={("hub", area)},
            name=name,
        )
        for area, name in (("Garage", "Garage hub"), ("Kitchen", "Kitchen bar"))
    }
    for name, domain, area, exposed in HOME:
        entity_id = f"{domain}.{_key(name)}"
        area_entry = areas.async_get_area_by_name(area) or areas.async_create(area)
        device = devices.get(area) if domain in {"light", "cover"} else None
        entities.async_update_entity(
            entity_id, area_id=area_entry.id, device_id=device.id if device else None
        )
        async_expose_entity(hass, "conversation", entity_id, exposed)
    for name, *_ in HOME:
        async_expose_entity(hass, "conversation", f"input_boolean.{_key(name)}", False)
    entities.async_update_entity("light.porch_light", aliases=["front light"])
    # The kitchen light is in the kitchen through its device only.
    dr.async_get(hass).async_update_device(devices["Kitchen"].id, area_id="kitchen")
    entities.async_update_entity("light.kitchen_light", area_id=None)

    floor = fr.async_get(hass).async_create("Ground floor")
    for area_id in ("kitchen", "garage"):
        areas.async_update(area_id, floor_id=floor.floor_id)
    night = lr.async_get(hass).async_create("Night")
    for entity_id in NIGHT:
        entities.async_update_entity(entity_id, labels={night.label_id})

    assert await async_setup_component(
        hass,
        "script",
        {
            "script": {
                key: {
                    "alias": name,
                    "sequence": [
                        {
                            "action": "input_boolean.turn_on",
                            "target": {"entity_id": f"input_boolean.{flag}"},
                        }
                    ],
                }
                for key, name, flag, _ in SCRIPTS
            }
        },
    )
    assert await async_setup_component(
        hass,
        "group",
        {"group": {key: {"entities": members} for key, members, _ in GROUPS}},
    )
    await hass.async_block_till_done()
    for key, *_, exposed in SCRIPTS:
        async_expose_entity(hass, "conversation", f"script.{key}", exposed)
    for key, _, exposed in GROUPS:
        async_expose_entity(hass, "conversation", f"group.{key}", exposed)
    assert await async_setup_component(hass, DOMAIN, {})
    return hass


def context(**options: Any) -> AgenticLLMContext:
    """An LLM context as our agent builds it, with these tool options."""
    return AgenticLLMContext(
        platform=DOMAIN,
        context=Context(),
        language="en",
        assistant="conversation",
        device_id=None,
        tool_options=ToolOptions(**options),
    )


@dataclass(frozen=True)
class Result:
    """A tool's result, with its JSON data loosely typed for reading in tests."""

    data: Any
    error: bool


async def call(
    hass: HomeAssistant, tool: str, args: dict[str, Any], **options: Any
) -> Result:
    """Call one of our tools the way HA's LLM layer does."""
    api = await llm.async_get_api(hass, LLM_API_ID, context(**options))
    result = await api.async_call_tool(llm.ToolInput(tool_name=tool, tool_args=args))
    return Result(result.data, result.error)


async def act(
    hass: HomeAssistant,
    action: str,
    target: Any,
    data: Any = None,
    **options: Any,
) -> Result:
    """Call `call_service` for "domain.service" on a target; let scripts finish."""
    domain, service = action.split(".")
    args = {"domain": domain, "service": service, "target": target}
    if data is not None:
        args["data"] = data
    result = await call(hass, "call_service", args, **options)
    await hass.async_block_till_done()
    return result


@pytest.fixture
async def fake_open_meteo(
    socket_enabled: None, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[FakeOpenMeteo]:
    """The fake Open-Meteo, with our client pointed at it."""
    async with FakeOpenMeteo() as server:
        monkeypatch.setattr(open_meteo, "GEOCODING_URL", server.geocoding_url)
        monkeypatch.setattr(open_meteo, "FORECAST_URL", server.forecast_url)
        yield server
