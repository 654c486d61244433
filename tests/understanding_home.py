"""A home built like a real one, for our understanding after Home Assistant's.

Two floors (neither called "upstairs"), nine areas, 38 exposed entities with
aliases, two fans both called "Fan", a vacuum called after its brand, a lock called
"Entry", a shopping list called after the shop; an unexposed light. Each device is a
template entity backed by an input boolean, so a command that works changes a state
a test can read.
"""

from typing import Any

from pytest_homeassistant_custom_component.common import MockConfigEntry

from homeassistant.components import conversation
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.const import EVENT_HOMEASSISTANT_START
from homeassistant.core import HomeAssistant
from homeassistant.helpers import (
    area_registry as ar,
    entity_registry as er,
    floor_registry as fr,
)
from homeassistant.setup import async_setup_component

FLOORS = {"ground": ("Ground floor", 0), "first": ("First floor", 1)}
AREAS = {  # area id -> (name, floor)
    "living_room": ("Living room", "ground"),
    "kitchen": ("Kitchen", "ground"),
    "hall": ("Hall", "ground"),
    "office": ("Office", "ground"),
    "front_yard": ("Front yard", "ground"),
    "bedroom": ("Bedroom", "first"),
    "kids_room": ("Kids room", "first"),
    "bathroom": ("Bathroom", "first"),
    "study": ("Study", "first"),
}
# domain -> key -> (name, area, starts on, aliases)
DEVICES: dict[str, dict[str, tuple[str, str | None, bool, tuple[str, ...]]]] = {
    "light": {
        "living_ceiling": ("Living room ceiling", "living_room", False, ()),
        "floor_lamp": ("Floor lamp", "living_room", True, ("Standing lamp",)),
        "tv_backlight": ("TV backlight", "living_room", False, ()),
        "kitchen_ceiling": ("Kitchen ceiling", "kitchen", False, ()),
        "island": ("Island pendants", "kitchen", False, ()),
        "hall": ("Hall light", "hall", True, ()),
        "desk": ("Desk lamp", "office", False, ()),
        "bedroom_ceiling": ("Bedroom ceiling", "bedroom", False, ()),
        "bedside": ("Bedside lamp", "bedroom", False, ()),
        "kids": ("Kids room light", "kids_room", False, ()),
        "night": ("Night light", "kids_room", False, ()),
        "bathroom": ("Bathroom light", "bathroom", False, ()),
        "mirror": ("Mirror light", "bathroom", False, ()),
        "study": ("Reading lamp", "study", False, ()),
        "porch": ("Porch light", None, False, ()),
        "path": ("Path lights", "front_yard", False, ()),
        "secret": ("Secret lamp", "study", False, ()),  # not exposed
    },
    "switch": {
        "coffee": ("Coffee machine", "kitchen", False, ()),
        "dishwasher": ("Dishwasher", "kitchen", False, ()),
        "tree": ("Christmas tree", "living_room", False, ()),
        "blanket": ("Electric blanket", "bedroom", False, ()),
        "sprinkler": ("Rain Bird zone 1", "front_yard", False, ("Lawn sprinkler",)),
        "printer": ("Printer", "office", True, ()),
        "towel": ("Towel rail", "bathroom", False, ()),
    },
    "fan": {
        "kitchen_fan": ("Fan", "kitchen", False, ()),
        "bedroom_fan": ("Fan", "bedroom", False, ()),
        "desk_fan": ("Breeze 300", "office", False, ()),
    },
}
COVERS = {  # key -> (name, area, device class, starts open)
    "blinds": ("Living room blinds", "living_room", "blind", False),
    "curtains": ("Bedroom curtains", "bedroom", "curtain", True),
    "garage": ("Garage door", "hall", "garage", False),
}
UNEXPOSED = {"light.secret"}


def _on_off(key: str) -> tuple[dict[str, Any], dict[str, Any], str]:
    target = {"entity_id": f"input_boolean.{key}"}
    return (
        {"action": "input_boolean.turn_on", "target": target},
        {"action": "input_boolean.turn_off", "target": target},
        f"is_state('input_boolean.{key}', 'on')",
    )


def _switched(key: str, name: str) -> dict[str, Any]:
    on, off, is_on = _on_off(key)
    return {
        "name": name,
        "unique_id": key,
        "state": f"{{{{ {is_on} }}}}",
        "turn_on": on,
        "turn_off": off,
    }


def _templates() -> dict[str, Any]:
    found: dict[str, Any] = {
        domain: [_switched(key, name) for key, (name, *_rest) in group.items()]
        for domain, group in DEVICES.items()
    }
    covers = []
    for key, (name, _area, device_class, _open) in COVERS.items():
        on, off, is_on = _on_off(key)
        covers.append(
            {
                "name": name,
                "unique_id": key,
                "device_class": device_class,
                "state": f"{{{{ 'open' if {is_on} else 'closed' }}}}",
                "open_cover": on,
                "close_cover": off,
            }
        )
    found["cover"] = covers
    lock_on, lock_off, locked = _on_off("entry")
    found["lock"] = [
        {
            "name": "Entry",
            "unique_id": "entry",
            "state": f"{{{{ {locked} }}}}",
            "lock": lock_on,
            "unlock": lock_off,
        }
    ]
    start, dock, cleaning = _on_off("roborock")
    found["vacuum"] = [
        {
            "name": "Roborock S7",
            "unique_id": "roborock",
            "state": f"{{{{ 'cleaning' if {cleaning} else 'docked' }}}}",
            "start": start,
            "return_to_base": dock,
        }
    ]
    return found


PLACES: dict[str, str | None] = {
    **{
        f"{domain}.{key}": area
        for domain, group in DEVICES.items()
        for key, (_name, area, _on, _aliases) in group.items()
    },
    **{f"cover.{key}": area for key, (_n, area, _c, _o) in COVERS.items()},
    "lock.entry": "hall",
    "vacuum.roborock": "living_room",
    "todo.lidl": None,
}


async def async_build_home(hass: HomeAssistant) -> None:
    """Set up the home: entities, floors, areas, aliases, exposure."""
    booleans: dict[str, dict[str, Any]] = {
        key: {"initial": on}
        for group in DEVICES.values()
        for key, (_name, _area, on, _aliases) in group.items()
    }
    booleans |= {key: {"initial": is_open} for key, (*_, is_open) in COVERS.items()}
    booleans |= {"entry": {"initial": True}, "roborock": {}}
    assert await async_setup_component(
        hass, "input_boolean", {"input_boolean": booleans}
    )
    assert await async_setup_component(hass, "template", {"template": [_templates()]})
    shop = MockConfigEntry(domain="shopping_list", unique_id="shopping_list")
    shop.add_to_hass(hass)
    assert await hass.config_entries.async_setup(shop.entry_id)
    for component in ("homeassistant", "intent", "conversation"):
        assert await async_setup_component(hass, component, {})
    hass.bus.async_fire(EVENT_HOMEASSISTANT_START)
    await hass.async_block_till_done()
    entities = er.async_get(hass)
    # Entity ids by key (templates name them after their names: "fan.fan_2").
    for entity_id in PLACES:
        domain, key = entity_id.split(".")
        if (found := entities.async_get_entity_id(domain, "template", key)) is not None:
            entities.async_update_entity(found, new_entity_id=entity_id)
    # The shopping list, called after the shop.
    shopping = entities.async_get("todo.shopping_list")
    assert shopping is not None
    entities.async_update_entity(
        shopping.entity_id, new_entity_id="todo.lidl", name="Lidl"
    )
    floors, areas = fr.async_get(hass), ar.async_get(hass)
    floor_ids = {
        key: floors.async_create(name, level=level).floor_id
        for key, (name, level) in FLOORS.items()
    }
    area_ids = {
        key: areas.async_create(name, floor_id=floor_ids[floor]).id
        for key, (name, floor) in AREAS.items()
    }
    for entity_id, area in PLACES.items():
        assert hass.states.get(entity_id) is not None, entity_id
        entities.async_update_entity(
            entity_id, area_id=area_ids[area] if area else None
        )
    for domain, group in DEVICES.items():
        for key, (_name, _area, _on, aliases) in group.items():
            if aliases:  # the name stays one of the names it is called by
                entities.async_update_entity(
                    f"{domain}.{key}", aliases=[er.COMPUTED_NAME, *aliases]
                )
    for entity_id in PLACES:
        exposed = entity_id not in UNEXPOSED
        async_expose_entity(hass, conversation.DOMAIN, entity_id, exposed)
    await hass.async_block_till_done()


def states(hass: HomeAssistant) -> dict[str, str]:
    """Every state a command can change."""
    return {
        entity_id: state.state
        for entity_id in PLACES
        if (state := hass.states.get(entity_id)) is not None
    }
