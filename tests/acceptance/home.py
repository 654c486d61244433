"""The acceptance table's home: template entities with real state, areas and floors.

Every entity is backed by an input helper, so a command that works changes a state a
test can read; each is exposed to Assist and placed in an area on a floor.
"""

from typing import Any

from homeassistant.components import conversation
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
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

# entity id -> (name, area id)
PLACES: dict[str, tuple[str, str]] = {
    "light.kitchen_ceiling": ("Kitchen ceiling", "kitchen"),
    "light.kitchen_spots": ("Kitchen spots", "kitchen"),
    "light.desk_lamp": ("Desk lamp", "office"),
    "light.bedside_lamp": ("Bedside lamp", "bedroom"),
    "switch.coffee_maker": ("Coffee maker", "kitchen"),
    "cover.living_room_curtains": ("Living room curtains", "living_room"),
    "fan.ceiling_fan": ("Ceiling fan", "bedroom"),
    "lock.front_door": ("Front door", "hall"),
}
AREAS = {  # area id -> (name, floor id)
    "kitchen": ("Kitchen", "ground"),
    "living_room": ("Living room", "ground"),
    "hall": ("Hall", "ground"),
    "office": ("Office", "upstairs"),
    "bedroom": ("Bedroom", "upstairs"),
}
FLOORS = {"ground": "Ground floor", "upstairs": "Upstairs"}


def _switched(key: str, name: str) -> dict[str, Any]:
    target = {"entity_id": f"input_boolean.{key}"}
    return {
        "name": name,
        "unique_id": key,
        "state": f"{{{{ is_state('input_boolean.{key}', 'on') }}}}",
        "turn_on": {"action": "input_boolean.turn_on", "target": target},
        "turn_off": {"action": "input_boolean.turn_off", "target": target},
    }


async def async_build_home(hass: HomeAssistant) -> None:
    """Set up the home: everything off, the curtains closed, the door locked."""
    booleans = ["kitchen_ceiling", "kitchen_spots", "desk_lamp", "bedside_lamp"]
    booleans += ["coffee_maker", "curtains", "ceiling_fan"]
    assert await async_setup_component(
        hass,
        "input_boolean",
        {"input_boolean": {key: {} for key in booleans} | {"door": {"initial": True}}},
    )
    door = {"entity_id": "input_boolean.door"}
    curtains = {"entity_id": "input_boolean.curtains"}
    lights = [
        _switched("kitchen_ceiling", "Kitchen ceiling"),
        _switched("kitchen_spots", "Kitchen spots"),
        _switched("desk_lamp", "Desk lamp"),
        _switched("bedside_lamp", "Bedside lamp"),
    ]
    assert await async_setup_component(
        hass,
        "template",
        {
            "template": [
                {
                    "light": lights,
                    "switch": [_switched("coffee_maker", "Coffee maker")],
                    "fan": [_switched("ceiling_fan", "Ceiling fan")],
                    "cover": [
                        {
                            "name": "Living room curtains",
                            "unique_id": "curtains",
                            "device_class": "curtain",
                            "state": "{{ 'open' if is_state('input_boolean.curtains', 'on') else 'closed' }}",
                            "open_cover": {
                                "action": "input_boolean.turn_on",
                                "target": curtains,
                            },
                            "close_cover": {
                                "action": "input_boolean.turn_off",
                                "target": curtains,
                            },
                        }
                    ],
                    "lock": [
                        {
                            "name": "Front door",
                            "unique_id": "door",
                            "state": "{{ is_state('input_boolean.door', 'on') }}",
                            "lock": {"action": "input_boolean.turn_on", "target": door},
                            "unlock": {
                                "action": "input_boolean.turn_off",
                                "target": door,
                            },
                        }
                    ],
                }
            ]
        },
    )
    assert await async_setup_component(hass, "homeassistant", {})
    assert await async_setup_component(hass, "intent", {})
    assert await async_setup_component(hass, "conversation", {})
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
    for entity_id, (_name, area) in PLACES.items():
        entities.async_update_entity(entity_id, area_id=area_ids[area])
        async_expose_entity(hass, conversation.DOMAIN, entity_id, True)
    await hass.async_block_till_done()


def states(hass: HomeAssistant) -> dict[str, str]:
    """Every state the table can change."""
    return {
        entity_id: state.state
        for entity_id in PLACES
        if (state := hass.states.get(entity_id)) is not None
    }


async def async_run_local(
    hass: HomeAssistant, text: str, ask_before: list[str]
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
        return await async_run_local_route(hass, user_input, chat_log, ask_before)
