"""An exposed entity's id given as a tool's name, read as the intent it plainly means.

Small models sometimes call the entity instead of a tool: `smart_lock` with
`{"action": "unlock"}` where `lock.smart_lock` is exposed. When the name is the object
id (or the id) of exactly one exposed entity and the arguments say plainly which way
(on or off, lock or unlock, open or close), the call is Home Assistant's HassTurnOn or
HassTurnOff with that entity as its name, and goes through every check any call does
(a risky one is asked first). A hidden entity reads as one that does not exist: its
id stays an unknown tool. Anything unclear is no repair.
"""

from collections.abc import Collection
from typing import Any

from homeassistant.core import HomeAssistant, split_entity_id, valid_entity_id

from ..agent import EntityCall
from ..agent.tool_call_repair import match_tool_name
from .argument_checks import is_exposed_entity

_ON, _OFF = "HassTurnOn", "HassTurnOff"
# The words an argument may say the way with, per domain (HassTurnOn locks a lock
# and opens a cover; HassTurnOff unlocks and closes).
_GENERIC = {"on": _ON, "turn_on": _ON, "off": _OFF, "turn_off": _OFF}
_WAYS = {
    "lock": {"lock": _ON, "locked": _ON, "unlock": _OFF, "unlocked": _OFF},
    "cover": {"open": _ON, "opened": _ON, "close": _OFF, "closed": _OFF},
    "valve": {"open": _ON, "opened": _ON, "close": _OFF, "closed": _OFF},
}
# Keys whose true or false says on or off.
_SWITCH_KEYS = frozenset({"state", "on", "power"})
_LONGEST_ID = 255


def entity_call(
    hass: HomeAssistant, name: str, arguments: dict[str, Any], offered: Collection[str]
) -> EntityCall | None:
    """The intent call an entity's id as a tool's name means, if it is plain."""
    entity_id = _exposed_entity(hass, name.strip().casefold()[:_LONGEST_ID])
    if entity_id is None:
        return None
    domain = split_entity_id(entity_id)[0]
    ways = {**_GENERIC, **_WAYS.get(domain, {})}
    meant = {way for key, value in arguments.items() if (way := _way(key, value, ways))}
    if len(meant) != 1:
        return None  # no way said, or both
    (intent,) = meant
    tool = match_tool_name(intent, offered).name
    if tool is None:
        return None
    return EntityCall(
        name=tool,
        arguments={"name": entity_id},
        repair=f"entity {entity_id!r} called as a tool: read as {intent}",
    )


def _exposed_entity(hass: HomeAssistant, name: str) -> str | None:
    """The one exposed entity whose id or object id the name is."""
    if valid_entity_id(name):
        return name if is_exposed_entity(hass, name) else None
    found = [
        state.entity_id
        for state in hass.states.async_all()
        if state.object_id == name and is_exposed_entity(hass, state.entity_id)
    ]
    return found[0] if len(found) == 1 else None


def _way(key: str, value: Any, ways: dict[str, str]) -> str | None:
    """The intent an argument says (`"unlock"`, `"lock.unlock"`, `"state": true`)."""
    if isinstance(value, bool):
        return (_ON if value else _OFF) if key in _SWITCH_KEYS else None
    if not isinstance(value, str) or len(value) > 40:
        return None
    word = value.strip().casefold().replace(" ", "_").replace("-", "_")
    return ways.get(word.rpartition(".")[2])
