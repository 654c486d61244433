"""The acceptance table's home: template entities with real state, areas and floors.

Every entity is backed by an input helper (or HA's shopping list), so a command that
works changes a state a test can read; each is exposed to Assist and placed in an area
on a floor. Some start on or open, so that turning off and closing can be asked.
"""

from typing import Any

import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry

from homeassistant.components import conversation
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.const import EVENT_HOMEASSISTANT_START
from homeassistant.core import Context, HomeAssistant
from homeassistant.helpers import (
    area_registry as ar,
    entity_registry as er,
    floor_registry as fr,
)
from homeassistant.setup import async_setup_component

from custom_components.agentic_conversation.basic_assistant import (
    LocalOutcome,
    async_run_local_route,
)
from tests.across_releases import open_chat_session

# entity id -> area id (None: in no area)
PLACES: dict[str, str | None] = {
    "light.kitchen_ceiling": "kitchen",
    "light.kitchen_spots": "kitchen",
    "light.desk_lamp": "office",
    "light.bedside_lamp": "bedroom",
    "light.hall_light": "hall",  # on
    "light.living_room_lamp": "living_room",  # on
    "light.landing_light": "landing",  # on
    "switch.coffee_maker": "kitchen",
    "switch.dehumidifier": "bedroom",  # on
    "cover.living_room_curtains": "living_room",
    "cover.bedroom_blinds": "bedroom",  # open
    "cover.garage_door": "garage",
    "fan.ceiling_fan": "bedroom",
    "fan.office_fan": "office",  # on
    "lock.front_door": "hall",  # locked
    "climate.thermostat": "living_room",  # heating to 19 °C
    "media_player.living_room_tv": "living_room",  # playing at 30 %
    "vacuum.robot_vacuum": "hall",  # docked
    "weather.home": None,
    "todo.shopping_list": None,
}
# An attribute a command changes, read as its own "state": entity id -> attribute.
ATTRIBUTES = {
    "climate.thermostat": "temperature",
    "media_player.living_room_tv": "volume_level",
}
AREAS = {  # area id -> (name, floor id)
    "kitchen": ("Kitchen", "ground"),
    "living_room": ("Living room", "ground"),
    "hall": ("Hall", "ground"),
    "garage": ("Garage", "ground"),
    "office": ("Office", "upstairs"),
    "bedroom": ("Bedroom", "upstairs"),
    "landing": ("Landing", "upstairs"),
}
FLOORS = {"ground": "Ground floor", "upstairs": "Upstairs"}
# input_boolean key -> (entity name, starts on)
SWITCHED = {
    "light": {
        "kitchen_ceiling": ("Kitchen ceiling", False),
        "kitchen_spots": ("Kitchen spots", False),
        "desk_lamp": ("Desk lamp", False),
        "bedside_lamp": ("Bedside lamp", False),
        "hall_light": ("Hall light", True),
        "living_room_lamp": ("Living room lamp", True),
        "landing_light": ("Landing light", True),
    },
    "switch": {
        "coffee_maker": ("Coffee maker", False),
        "dehumidifier": ("Dehumidifier", True),
    },
    "fan": {
        "ceiling_fan": ("Ceiling fan", False),
        "office_fan": ("Office fan", True),
    },
}
# input_boolean key -> (entity name, device class, starts open)
COVERS = {
    "curtains": ("Living room curtains", "curtain", False),
    "blinds": ("Bedroom blinds", "blind", True),
    "garage": ("Garage door", "garage", False),
}


def _on_off(key: str) -> dict[str, Any]:
    target = {"entity_id": f"input_boolean.{key}"}
    return {
        "on": {"action": "input_boolean.turn_on", "target": target},
        "off": {"action": "input_boolean.turn_off", "target": target},
        "is_on": f"is_state('input_boolean.{key}', 'on')",
    }


def _switched(key: str, name: str) -> dict[str, Any]:
    act = _on_off(key)
    return {
        "name": name,
        "unique_id": key,
        "state": f"{{{{ {act['is_on']} }}}}",
        "turn_on": act["on"],
        "turn_off": act["off"],
    }


def _cover(key: str, name: str, device_class: str) -> dict[str, Any]:
    act = _on_off(key)
    return {
        "name": name,
        "unique_id": key,
        "device_class": device_class,
        "state": f"{{{{ 'open' if {act['is_on']} else 'closed' }}}}",
        "open_cover": act["on"],
        "close_cover": act["off"],
    }


def _set_number(key: str, variable: str) -> dict[str, Any]:
    return {
        "action": "input_number.set_value",
        "target": {"entity_id": f"input_number.{key}"},
        "data": {"value": f"{{{{ {variable} }}}}"},
    }


def _templates() -> dict[str, Any]:
    door, vacuum = _on_off("door"), _on_off("vacuum")
    return {
        "light": [_switched(key, name) for key, (name, _) in SWITCHED["light"].items()],
        "switch": [_switched(k, name) for k, (name, _) in SWITCHED["switch"].items()],
        "fan": [_switched(key, name) for key, (name, _) in SWITCHED["fan"].items()],
        "cover": [_cover(key, name, dc) for key, (name, dc, _) in COVERS.items()],
        "lock": [
            {
                "name": "Front door",
                "unique_id": "door",
                "state": f"{{{{ {door['is_on']} }}}}",
                "lock": door["on"],
                "unlock": door["off"],
            }
        ],
        "climate": [
            {
                "name": "Thermostat",
                "unique_id": "thermostat",
                "hvac_modes": "{{ ['heat', 'off'] }}",
                "hvac_mode": "heat",
                "current_temperature": "20.5",
                "target_temperature": "{{ states('input_number.thermostat') }}",
                "min_temperature": 7,
                "max_temperature": 30,
                "temperature_unit": "°C",
                "set_hvac_mode": [],
                "set_temperature": _set_number("thermostat", "temperature"),
            }
        ],
        "vacuum": [
            {
                "name": "Robot vacuum",
                "unique_id": "vacuum",
                "state": f"{{{{ 'cleaning' if {vacuum['is_on']} else 'docked' }}}}",
                "start": vacuum["on"],
                "return_to_base": vacuum["off"],
            }
        ],
        "weather": [
            {
                "name": "Home",
                "unique_id": "weather",
                "condition": "sunny",
                "temperature": "18",
                "temperature_unit": "°C",
                "humidity": "50",
            }
        ],
    }


def _media_player() -> dict[str, Any]:
    playing = _on_off("tv_playing")
    return {
        "platform": "universal",
        "name": "Living room TV",
        "unique_id": "tv",
        "children": [],
        "state_template": f"{{{{ 'playing' if {playing['is_on']} else 'paused' }}}}",
        "commands": {
            "media_play": playing["on"],
            "media_pause": playing["off"],
            "volume_set": _set_number("tv_volume", "volume_level"),
        },
        "attributes": {"volume_level": "input_number.tv_volume"},
    }


@pytest.fixture(name="home")
async def table_home(ha_core: HomeAssistant) -> HomeAssistant:
    """The table's home as the `home` fixture of tests beside the table."""
    await async_build_home(ha_core)
    return ha_core


async def async_build_home(hass: HomeAssistant) -> None:
    """Set up the home (its shopping list is a file in the test's config folder)."""
    booleans: dict[str, dict[str, Any]] = {
        key: {"initial": on}
        for group in SWITCHED.values()
        for key, (_name, on) in group.items()
    }
    booleans |= {key: {"initial": on} for key, (_, _, on) in COVERS.items()}
    booleans |= {
        "door": {"initial": True},
        "vacuum": {},
        "tv_playing": {"initial": True},
    }
    numbers = {
        "thermostat": {"min": 7, "max": 30, "step": 0.5, "initial": 19},
        "tv_volume": {"min": 0, "max": 1, "step": 0.01, "initial": 0.3},
    }
    assert await async_setup_component(
        hass, "input_boolean", {"input_boolean": booleans}
    )
    assert await async_setup_component(hass, "input_number", {"input_number": numbers})
    assert await async_setup_component(hass, "template", {"template": [_templates()]})
    assert await async_setup_component(
        hass, "media_player", {"media_player": [_media_player()]}
    )
    todo = MockConfigEntry(domain="shopping_list", unique_id="shopping_list")
    todo.add_to_hass(hass)
    assert await hass.config_entries.async_setup(todo.entry_id)
    assert await async_setup_component(hass, "homeassistant", {})
    assert await async_setup_component(hass, "intent", {})
    assert await async_setup_component(hass, "conversation", {})
    # The media player reads its state template once Home Assistant has started.
    hass.bus.async_fire(EVENT_HOMEASSISTANT_START)
    await hass.async_block_till_done()
    floors, areas = fr.async_get(hass), ar.async_get(hass)
    floor_ids = {
        key: floors.async_create(name).floor_id for key, name in FLOORS.items()
    }
    area_ids = {
        key: areas.async_create(name, floor_id=floor_ids[floor]).id
        for key, (name, floor) in AREAS.items()
    }
    entities = er.async_get(hass)
    for entity_id, area in PLACES.items():
        assert hass.states.get(entity_id) is not None, entity_id
        if area is not None:
            entities.async_update_entity(entity_id, area_id=area_ids[area])
        async_expose_entity(hass, conversation.DOMAIN, entity_id, True)
    await hass.async_block_till_done()


def states(hass: HomeAssistant) -> dict[str, str]:
    """Every state the table can change (and the attributes in `ATTRIBUTES`)."""
    seen: dict[str, str] = {}
    for entity_id in PLACES:
        if (state := hass.states.get(entity_id)) is None:
            continue
        seen[entity_id] = state.state
        if attribute := ATTRIBUTES.get(entity_id):
            seen[f"{entity_id} {attribute}"] = str(state.attributes.get(attribute))
    return seen


async def async_run_local(
    hass: HomeAssistant,
    text: str,
    ask_before: list[str],
    for_the_model: frozenset[str] = frozenset(),
) -> LocalOutcome:
    """The local route's outcome for these words, in a fresh chat log."""
    context = Context()
    user_input = conversation.ConversationInput(
        text=text,
        context=context,
        conversation_id=None,
        device_id=None,
        satellite_id=None,
        language="en",
        agent_id="conversation.agent",
    )
    with (
        open_chat_session(hass, context) as session,
        conversation.async_get_chat_log(hass, session, user_input) as chat_log,
    ):
        return await async_run_local_route(
            hass, user_input, chat_log, ask_before, for_the_model
        )
