"""Arguments checked against exposure, for `call_service`'s data and every other tool.

Entity ids (and registry ids) in arguments must name exposed entities; devices and
places, which exposure cannot filter there, are refused. An unexposed entity is
reported exactly like one that does not exist.
"""

from collections.abc import Mapping
from typing import Any

from homeassistant.const import (
    ATTR_AREA_ID,
    ATTR_DEVICE_ID,
    ATTR_ENTITY_ID,
    ATTR_FLOOR_ID,
    ATTR_LABEL_ID,
)
from homeassistant.core import HomeAssistant
from homeassistant.helpers import llm

from .entities import entity_refs, is_exposed, resolve_entity_ref
from .errors import refuse

TARGET_KEYS = (
    ATTR_ENTITY_ID,
    ATTR_DEVICE_ID,
    ATTR_AREA_ID,
    ATTR_FLOOR_ID,
    ATTR_LABEL_ID,
)
# Field selectors that name devices or places: those belong in target.
_ID_SELECTORS = frozenset({"target", "device", "area", "floor", "label"})
FIND_IDS = "Use search_entities to find entity ids."


def refuse_data(
    hass: HomeAssistant, data: Mapping[str, Any], description: Mapping[str, Any]
) -> llm.ToolResult | None:
    """Refuse data that could reach entities outside the resolved target."""
    if keys := sorted(k for k in data if str(k).strip().lower() in TARGET_KEYS):
        return refuse(
            "Targets go in target, not in data: move "
            + ", ".join(map(str, keys))
            + " to target."
        )
    if fields := sorted(id_fields(description.get("fields") or {}) & set(data)):
        return refuse(
            "The assistant may not give devices or places in data: "
            + ", ".join(fields)
            + ". Put them in target."
        )
    # Only what HA itself would read as an entity: lowercased, comma lists split.
    unknown = sorted(
        {
            ref
            for ref in entity_refs(data)
            if not is_exposed_entity(hass, resolve_entity_ref(hass, ref))
        }
    )
    if unknown:
        return refuse(
            "Unknown entity in data: " + ", ".join(unknown) + ".", hint=FIND_IDS
        )
    return None


def refuse_arguments(
    hass: HomeAssistant, arguments: Mapping[str, Any], fields: Mapping[str, Any]
) -> llm.ToolResult | None:
    """Any other tool's arguments (a script's fields too), checked like `data` above.

    Entity ids (and registry ids) must name exposed entities; devices and places, which
    exposure cannot filter here, are refused. `fields` are the tool's field
    descriptions (a script's), if any.
    """
    places = sorted(
        {
            str(key)
            for key in _keys(arguments)
            if str(key).strip().lower() in TARGET_KEYS
        }
        - {ATTR_ENTITY_ID}
        | (id_fields(fields) & set(arguments))
    )
    if places:
        return refuse(
            "The assistant may not give devices or places to this tool: "
            + ", ".join(places)
            + "."
        )
    unknown = sorted(
        {
            ref
            for ref in entity_refs(arguments)
            if _may_be_entity(hass, ref)
            and not is_exposed_entity(hass, resolve_entity_ref(hass, ref))
        }
    )
    if unknown:
        # One name that matched nothing: the dispatcher adds the closest exposed ones.
        return refuse(
            "Unknown entity: " + ", ".join(unknown) + ".",
            hint=FIND_IDS,
            **({"unmatched": unknown[0]} if len(unknown) == 1 else {}),
        )
    return None


def _keys(value: Any) -> set[Any]:
    """Every key in nested data."""
    if isinstance(value, Mapping):
        return set(value) | {k for item in value.values() for k in _keys(item)}
    if isinstance(value, list | tuple):
        return {k for item in value for k in _keys(item)}
    return set()


def _may_be_entity(hass: HomeAssistant, ref: str) -> bool:
    """Whether a ref could name an entity: a registry id, or of a domain HA has.

    "st.louis" for a weather place is not an entity; "lock.x" is, hidden or missing.
    """
    domain, dot, _ = ref.partition(".")
    return not dot or domain in hass.config.components


def id_fields(fields: Mapping[str, Any]) -> set[str]:
    """Fields whose selector names devices, areas, floors or labels."""
    found: set[str] = set()
    for name, field in fields.items():
        if not isinstance(field, Mapping):
            continue
        if isinstance(section := field.get("fields"), Mapping):
            found |= id_fields(section)
        elif _ID_SELECTORS & set(field.get("selector") or {}):
            found.add(name)
    return found


def is_exposed_entity(hass: HomeAssistant, entity_id: str) -> bool:
    """Whether the entity exists and is exposed to Assist."""
    return hass.states.get(entity_id) is not None and is_exposed(hass, entity_id)
