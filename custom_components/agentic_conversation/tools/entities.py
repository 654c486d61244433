"""What our tools may see of Home Assistant: exposed entities, described briefly."""

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
import re
from typing import Any

from homeassistant.components.homeassistant.exposed_entities import async_should_expose
from homeassistant.core import HomeAssistant, State, valid_entity_id
from homeassistant.helpers import (
    area_registry as ar,
    device_registry as dr,
    entity_registry as er,
    floor_registry as fr,
)

# An entity registry id, which many services accept in place of an entity id.
_REGISTRY_ID = re.compile(r"[0-9a-f]{32}")

# The assistant whose exposure settings apply (Settings → Voice assistants → Expose).
ASSISTANT = "conversation"

# Attributes worth a model's attention; the rest (icons, supported features, lists of
# modes…) only fill the context window.
USEFUL_ATTRIBUTES = (
    "unit_of_measurement",
    "device_class",
    "brightness",
    "color_temp_kelvin",
    "rgb_color",
    "current_position",
    "current_tilt_position",
    "temperature",
    "target_temp_high",
    "target_temp_low",
    "current_temperature",
    "current_humidity",
    "humidity",
    "hvac_action",
    "preset_mode",
    "fan_mode",
    "percentage",
    "media_title",
    "media_artist",
    "volume_level",
    "is_volume_muted",
    "source",
    "battery_level",
)


@dataclass(frozen=True, slots=True)
class EntityInfo:
    """An exposed entity, with the names a user may call it by."""

    entity_id: str
    name: str
    aliases: tuple[str, ...]
    area: str | None
    area_aliases: tuple[str, ...]
    area_id: str | None
    device_id: str | None
    state: State
    floor: str | None = None
    floor_aliases: tuple[str, ...] = ()
    floor_level: int | None = None

    @property
    def domain(self) -> str:
        """The entity's domain."""
        return self.entity_id.split(".", 1)[0]

    def as_dict(self) -> dict[str, Any]:
        """The entity as a tool result shows it."""
        return describe(self.state, self.name, self.area)


def describe(
    state: State, name: str | None = None, area: str | None = None
) -> dict[str, Any]:
    """A state with the few attributes that matter."""
    attributes = {
        key: state.attributes[key]
        for key in USEFUL_ATTRIBUTES
        if state.attributes.get(key) is not None
    }
    return {
        "entity_id": state.entity_id,
        "name": name or state.name,
        "area": area,
        "domain": state.domain,
        "state": state.state,
        **({"attributes": attributes} if attributes else {}),
    }


def area_of(hass: HomeAssistant, entity_id: str) -> ar.AreaEntry | None:
    """An entity's area: its own, else its device's."""
    entry = er.async_get(hass).async_get(entity_id)
    if entry is None:
        return None
    area_id = entry.area_id
    if area_id is None and entry.device_id:
        device = dr.async_get(hass).async_get(entry.device_id)
        area_id = device.area_id if device else None
    return ar.async_get(hass).async_get_area(area_id) if area_id else None


def describe_entity(hass: HomeAssistant, state: State) -> dict[str, Any]:
    """A state as our tools show it, with its area's name."""
    area = area_of(hass, state.entity_id)
    return describe(state, area=area.name if area else None)


def is_exposed(hass: HomeAssistant, entity_id: str) -> bool:
    """Whether the user exposed this entity to Assist."""
    return async_should_expose(hass, ASSISTANT, entity_id)


def exposed_entities(hass: HomeAssistant) -> list[EntityInfo]:
    """Every exposed entity that has a state, with names, aliases and area."""
    entities = er.async_get(hass)
    floors = fr.async_get(hass)
    found: list[EntityInfo] = []
    for state in hass.states.async_all():
        if not is_exposed(hass, state.entity_id):
            continue
        entry = entities.async_get(state.entity_id)
        area = area_of(hass, state.entity_id)
        floor = (
            floors.async_get_floor(area.floor_id) if area and area.floor_id else None
        )
        found.append(
            EntityInfo(
                entity_id=state.entity_id,
                name=state.name,
                aliases=(
                    tuple(a for a in entry.aliases if isinstance(a, str))
                    if entry
                    else ()
                ),
                area=area.name if area else None,
                area_aliases=tuple(area.aliases) if area else (),
                area_id=area.id if area else None,
                device_id=entry.device_id if entry else None,
                state=state,
                floor=floor.name if floor else None,
                floor_aliases=tuple(floor.aliases) if floor else (),
                floor_level=floor.level if floor else None,
            )
        )
    return found


def entity_refs(value: Any) -> Iterator[str]:
    """Every string in data that HA could take for an entity (id or registry id)."""
    if isinstance(value, Mapping):
        for key, item in value.items():
            yield from entity_refs(key)
            yield from entity_refs(item)
    elif isinstance(value, list | tuple | set):
        for item in value:
            yield from entity_refs(item)
    elif isinstance(value, str):
        for part in value.split(","):
            ref = part.strip().lower()
            if (valid_entity_id(ref) and ref[0].isalpha()) or _REGISTRY_ID.fullmatch(
                part.strip()
            ):
                yield ref


def resolve_entity_ref(hass: HomeAssistant, ref: str) -> str:
    """The entity id an entity ref stands for (a registry id resolved)."""
    return er.async_resolve_entity_id(er.async_get(hass), ref) or ref
