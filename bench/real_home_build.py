"""One home of bench/real_homes.py in a running hass: entities with real state.

Each switchable entity is a template entity backed by an input_boolean (a thermostat
by an input_number, a to-do list is held in memory), renamed to the home's entity id,
placed in its area and exposed to Assist. `reset` puts every state back as it started.
"""

from dataclasses import dataclass, field
from typing import Any

from homeassistant.components import conversation
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.components.todo.const import (
    DATA_COMPONENT as TODO_LISTS,
    TodoItemStatus,
    TodoListEntityFeature,
)
from homeassistant.components.todo.entity import TodoItem, TodoListEntity
from homeassistant.core import HomeAssistant
from homeassistant.helpers import area_registry as ar, entity_registry as er
from homeassistant.setup import async_setup_component
from homeassistant.util import slugify

# domain -> (state when the boolean is on, when off)
_STATES = {
    "light": ("on", "off"),
    "switch": ("on", "off"),
    "fan": ("on", "off"),
    "cover": ("open", "closed"),
    "lock": ("locked", "unlocked"),
    "vacuum": ("cleaning", "docked"),
}
# domain -> (its service when on, when off) in the template's keys
_ACTIONS = {
    "light": ("turn_on", "turn_off"),
    "switch": ("turn_on", "turn_off"),
    "fan": ("turn_on", "turn_off"),
    "cover": ("open_cover", "close_cover"),
    "lock": ("lock", "unlock"),
    "vacuum": ("start", "return_to_base"),
}


@dataclass
class Home:
    """The home's entities: id -> (name, area, device class, initial state)."""

    entities: dict[str, tuple[str, str, str, str]]
    booleans: dict[str, bool] = field(default_factory=dict)
    numbers: dict[str, float] = field(default_factory=dict)


def parse(spec: str) -> Home:
    """A home from its lines."""
    home = Home({})
    for line in spec.strip().splitlines():
        entity_id, name, area, device_class, initial = line.split("|")
        home.entities[entity_id] = (name, area, device_class, initial)
        domain = entity_id.split(".", maxsplit=1)[0]
        key = entity_id.replace(".", "_")
        if domain in _STATES:
            home.booleans[key] = initial == _STATES[domain][0]
        elif domain == "climate":
            home.numbers[key] = float(initial)
    return home


def _template(entity_id: str, name: str, device_class: str) -> dict[str, Any]:
    domain = entity_id.split(".", maxsplit=1)[0]
    key = entity_id.replace(".", "_")
    target = {"entity_id": f"input_boolean.{key}"}
    on, off = _ACTIONS[domain]
    when_on, when_off = _STATES[domain]
    is_on = f"is_state('input_boolean.{key}', 'on')"
    config: dict[str, Any] = {
        "name": name,
        "unique_id": key,
        "state": f"{{{{ '{when_on}' if {is_on} else '{when_off}' }}}}",
        on: {"action": "input_boolean.turn_on", "target": target},
        off: {"action": "input_boolean.turn_off", "target": target},
    }
    if domain in ("light", "switch", "fan"):
        config["state"] = f"{{{{ {is_on} }}}}"
    if device_class and domain == "cover":
        config["device_class"] = device_class
    return config


def _climate(entity_id: str, name: str) -> dict[str, Any]:
    key = entity_id.replace(".", "_")
    return {
        "name": name,
        "unique_id": key,
        "hvac_modes": "{{ ['heat', 'off'] }}",
        "hvac_mode": "heat",
        "current_temperature": "20",
        "target_temperature": f"{{{{ states('input_number.{key}') }}}}",
        "min_temperature": 7,
        "max_temperature": 30,
        "temperature_unit": "°C",
        "set_hvac_mode": [],
        "set_temperature": {
            "action": "input_number.set_value",
            "target": {"entity_id": f"input_number.{key}"},
            "data": {"value": "{{ temperature }}"},
        },
    }


async def async_build(hass: HomeAssistant, home: Home) -> None:
    """Set the home up in `hass` (homeassistant, conversation, intent already set up)."""
    assert await async_setup_component(
        hass,
        "input_boolean",
        {"input_boolean": {key: {"initial": on} for key, on in home.booleans.items()}},
    )
    assert await async_setup_component(
        hass,
        "input_number",
        {
            "input_number": {
                key: {"min": 7, "max": 30, "step": 0.5, "initial": value}
                for key, value in home.numbers.items()
            }
        },
    )
    templates: dict[str, list[dict[str, Any]]] = {}
    for entity_id, (name, _, device_class, _) in home.entities.items():
        domain = entity_id.split(".", maxsplit=1)[0]
        if domain in _STATES:
            templates.setdefault(domain, []).append(
                _template(entity_id, name, device_class)
            )
        elif domain == "climate":
            templates.setdefault(domain, []).append(_climate(entity_id, name))
    assert await async_setup_component(hass, "template", {"template": [templates]})
    assert await async_setup_component(hass, "todo", {})
    await hass.data[TODO_LISTS].async_add_entities(
        [
            _TodoList(entity_id, name)
            for entity_id, (name, *_) in home.entities.items()
            if entity_id.startswith("todo.")
        ]
    )
    await hass.async_block_till_done()
    areas, registry = ar.async_get(hass), er.async_get(hass)
    for entity_id, (name, area, _, _) in home.entities.items():
        domain = entity_id.split(".", maxsplit=1)[0]
        made = (
            registry.async_get_entity_id(
                domain, "todo" if domain == "todo" else "template", _unique(entity_id)
            )
            or f"{domain}.{slugify(name)}"
        )
        if made != entity_id:
            registry.async_update_entity(made, new_entity_id=entity_id)
        if area:
            found = areas.async_get_area_by_name(area) or areas.async_create(area)
            registry.async_update_entity(entity_id, area_id=found.id)
        async_expose_entity(hass, conversation.DOMAIN, entity_id, True)
    await hass.async_block_till_done()
    for entity_id in home.entities:
        assert hass.states.get(entity_id) is not None, entity_id


class _TodoList(TodoListEntity):
    """A to-do list in memory that items can be added to."""

    _attr_supported_features = TodoListEntityFeature.CREATE_TODO_ITEM

    def __init__(self, entity_id: str, name: str) -> None:
        self.entity_id = entity_id
        self._attr_name = name
        self._attr_unique_id = _unique(entity_id)
        self._attr_todo_items = []

    async def async_create_todo_item(self, item: TodoItem) -> None:
        """Add the item, as needing action."""
        assert self._attr_todo_items is not None
        item.status = TodoItemStatus.NEEDS_ACTION
        self._attr_todo_items.append(item)
        self.async_write_ha_state()


def _unique(entity_id: str) -> str:
    return entity_id.replace(".", "_")


async def async_reset(hass: HomeAssistant, home: Home) -> None:
    """Every state as it started."""
    for key, on in home.booleans.items():
        await hass.services.async_call(
            "input_boolean",
            "turn_on" if on else "turn_off",
            {"entity_id": f"input_boolean.{key}"},
            blocking=True,
        )
    for key, value in home.numbers.items():
        await hass.services.async_call(
            "input_number",
            "set_value",
            {"entity_id": f"input_number.{key}", "value": value},
            blocking=True,
        )
    for entity_id in home.entities:
        # A list starts empty for every agent: an item an earlier agent added must
        # not read as this one's (or hide that it added it again).
        if entity_id.startswith("todo.") and (
            todo := hass.data[TODO_LISTS].get_entity(entity_id)
        ):
            todo._attr_todo_items = []  # noqa: SLF001 - our own bench list
            todo.async_write_ha_state()
    await hass.async_block_till_done()


async def async_states(hass: HomeAssistant, home: Home) -> dict[str, str]:
    """Each entity's state as a command changes it: a thermostat's target, a list's items."""
    seen: dict[str, str] = {}
    for entity_id in home.entities:
        state = hass.states.get(entity_id)
        domain = entity_id.split(".", maxsplit=1)[0]
        if state is None:
            seen[entity_id] = "missing"
        elif domain == "climate":
            seen[entity_id] = f"{float(state.attributes.get('temperature') or 0):g}"
        elif domain == "todo":
            todo = hass.data[TODO_LISTS].get_entity(entity_id)
            listed = (todo.todo_items if todo else None) or []
            seen[entity_id] = "|".join(sorted(str(i.summary).lower() for i in listed))
        else:
            seen[entity_id] = state.state
    return seen
