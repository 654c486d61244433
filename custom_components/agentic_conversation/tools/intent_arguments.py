"""An intent tool's arguments as small models slip on them, read as they plainly meant.

An exposed entity's id given as `entity_id` is taken as its name: Home Assistant's
intents match a name that is exactly an entity id to that entity (a friendly name may
not match: an entity with aliases answers to them alone). An id in `name` is spelt as
HA spells ids. An id that names no exposed entity is refused as unknown: a hidden
entity reads exactly as one that does not exist. A name nearly right that fits exactly
one exposed entity is read as its id (near_names.py); an area, floor, domain or device
class sent with a name only one exposed entity has is dropped (it can only make the
match fail: a guessed "living room" for the kettle). Keys the intent does not take
are dropped, and the model is told which (Home Assistant's own agent ignores them too).
"""

from collections.abc import Collection
from typing import Any

from homeassistant.const import ATTR_ENTITY_ID, ATTR_NAME
from homeassistant.core import HomeAssistant, State, valid_entity_id

from ..agent import PreparedCall, ToolRefusedError
from .argument_checks import FIND_IDS, is_exposed_entity
from .closest import NAME_CHARS, async_closest_names
from .entities import exposed_entities, resolve_entity_ref
from .near_names import named_entity, near_entity

_AREA, _FLOOR, _DOMAIN = "area", "floor", "domain"
_NARROWING = (_AREA, _FLOOR, _DOMAIN, "device_class")


async def async_intent_arguments(
    hass: HomeAssistant,
    arguments: dict[str, Any],
    takes: Collection[str],
    language: str,
    platforms: Collection[str] = (),
) -> PreparedCall:
    """The arguments the intent takes, entity ids read as names; or a refusal.

    `platforms`: the only domains the intent acts on, if it says.
    """
    arguments = dict(arguments)
    repairs: list[str] = []
    if empty := [k for k in _NARROWING if k in arguments and arguments[k] in ("", [])]:
        # "area": "" means no area; Home Assistant's intent fails on it.
        for key in empty:
            del arguments[key]
        repairs.append(f"empty {', '.join(empty)} dropped")
    if (
        ATTR_NAME in takes
        and ATTR_ENTITY_ID not in takes
        and ATTR_ENTITY_ID in arguments
    ):
        sent = arguments[ATTR_ENTITY_ID]
        if not arguments.get(ATTR_NAME):
            if (one := _single(sent)) is None:
                raise refused(
                    {
                        "error": "This tool takes one entity by its name, not "
                        "entity_id: give one name in name, one call per entity.",
                        "hint": FIND_IDS,
                    }
                )
            if (state := _exposed_state(hass, one)) is None:
                raise await async_unknown_entity(hass, one, language)
            del arguments[ATTR_ENTITY_ID]
            arguments[ATTR_NAME] = state.entity_id
            repairs.append(f"entity_id {sent!r} taken as the name")
    if ATTR_NAME in takes and isinstance(name := arguments.get(ATTR_NAME), str):
        # Not exposed: left as sent, and refused as unknown like any tool's argument.
        state = _exposed_state(hass, name)
        if state is not None and state.entity_id != name:
            arguments[ATTR_NAME] = state.entity_id
            repairs.append(f"name {name!r} read as {state.entity_id!r}")
        elif state is None and (near := _near(hass, arguments, platforms)):
            arguments[ATTR_NAME] = near
            # The entity is exact: an area or floor it was placed with is not needed.
            for key in (_AREA, _FLOOR):
                arguments.pop(key, None)
            repairs.append(f"name {name!r} read as {near!r}")
        elif state is None and (
            narrowed := [key for key in _NARROWING if arguments.get(key)]
        ):
            if named_entity(exposed_entities(hass), name[:NAME_CHARS]) is not None:
                # The name alone is one entity: what was added can only miss it.
                for key in narrowed:
                    del arguments[key]
                repairs.append(f"{', '.join(narrowed)} dropped: {name!r} is one entity")
    ignored = tuple(sorted(key for key in arguments if key not in takes))
    for key in ignored:
        del arguments[key]
    return PreparedCall(arguments, tuple(repairs), ignored)


async def async_unknown_entity(
    hass: HomeAssistant, sent: str, language: str
) -> ToolRefusedError:
    """The refusal of an entity id that names nothing exposed, with what is closest."""
    return refused(
        {
            "error": f"Unknown entity: {sent.strip().lower()[:NAME_CHARS]}.",
            "hint": FIND_IDS,
            "unmatched": sent[:NAME_CHARS],
            "closest": await async_closest_names(hass, sent, language),
        }
    )


def refused(data: dict[str, Any]) -> ToolRefusedError:
    """A tool's error result as the refusal the model reads: its error, its hints."""
    error = ToolRefusedError(str(data.get("error") or "The tool refused the call."))
    error.hints = {k: v for k, v in data.items() if k not in ("error", "success")}
    return error


def _near(
    hass: HomeAssistant, arguments: dict[str, Any], platforms: Collection[str]
) -> str | None:
    """The entity id of the one exposed entity a nearly right name fits."""
    area = arguments.get(_AREA)
    domain = arguments.get(_DOMAIN)
    domains = set(platforms) or (
        {domain} if isinstance(domain, str) else set(domain or ()) - {""}
    )
    found = near_entity(
        exposed_entities(hass),
        str(arguments[ATTR_NAME])[:NAME_CHARS],
        area if isinstance(area, str) else None,
        {d for d in domains if isinstance(d, str)},
        one_kind=bool(platforms),
    )
    return found.entity_id if found else None


def _single(value: Any) -> str | None:
    """One entity id, sent as a string or a list of one."""
    if isinstance(value, list) and len(value) == 1:
        value = value[0]
    return value if isinstance(value, str) else None


def _exposed_state(hass: HomeAssistant, ref: str) -> State | None:
    """The state of the exposed entity an id (or registry id) names, if any."""
    entity_id = resolve_entity_ref(hass, ref.strip().lower())
    if not valid_entity_id(entity_id) or not is_exposed_entity(hass, entity_id):
        return None
    return hass.states.get(entity_id)
