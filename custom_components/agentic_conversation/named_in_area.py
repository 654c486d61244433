"""A word of the command that names one of an area's devices: that one, not all.

Home Assistant reads "turn on the lamp in the snug" as the snug's lights (its
sentences take "lamp" for the light domain), so the wall lights go on too. When the
words also name exactly one of those devices ("Lamp by the log burner": "lamp" is in
its name and no other's), the intent runs on that one by name. Words that name
nothing in the language (`the`, `in`…) and the area's own words never pick one, and a
device word in the plural ("the lights in the snug") means them all: nothing changes.
Home Assistant's own words follow its sentence ("Turned on the lights"): the user
hears what the house shows instead (`LocalOutcome.narrowed`).
"""

from collections.abc import Iterable
from typing import Any

from .tools.entities import EntityInfo
from .tools.near_names import words
from .understanding.words import LanguageWords

_ON_OFF = frozenset({"HassTurnOn", "HassTurnOff"})


def area_without_name(intent_name: str, slots: dict[str, Any]) -> str | None:
    """The area of an on/off intent that names no device (else None): cheap, first."""
    if intent_name not in _ON_OFF or "name" in slots:
        return None
    return _value(slots.get("area")) or None


def one_named(
    intent_name: str,
    slots: dict[str, Any],
    text: str,
    entities: Iterable[EntityInfo],
    known: LanguageWords,
) -> dict[str, Any] | None:
    """The slots with the one device the words name in place of the area; else None.

    `known`: the language's words that name nothing (never pick a device) and its
    device words; one in the plural ("lights", "lamps") means every one.
    """
    area = area_without_name(intent_name, slots)
    if area is None or words(text) & _plurals(known):
        return None
    skip = known.skip
    domains = _values(slots.get("domain"))
    place = words(area.replace("_", " "))
    candidates = [
        e
        for e in entities
        if (e.area is not None and words(e.area) == place or e.area_id == area)
        and (not domains or e.domain in domains)
    ]
    if len(candidates) < 2:
        return None
    said = words(text) - skip - place
    named = {
        e.entity_id: e for e in candidates if said & (words(e.name) - place - skip)
    }
    if len(named) != 1:
        return None
    (entity,) = named.values()
    narrowed = {key: value for key, value in slots.items() if key != "area"}
    narrowed["name"] = {"value": entity.name, "text": entity.name}
    return narrowed


def _plurals(known: LanguageWords) -> frozenset[str]:
    """The device words that are another device word with a plural ending."""
    return frozenset(
        word
        for kind in known.device_words.values()
        for word in kind
        for ending in known.plural_endings
        if ending and word.endswith(ending) and word[: -len(ending)] in kind
    )


def _value(slot: Any) -> str | None:
    value = slot.get("value") if isinstance(slot, dict) else None
    return value if isinstance(value, str) else None


def _values(slot: Any) -> set[str]:
    value = slot.get("value") if isinstance(slot, dict) else None
    if isinstance(value, str):
        return {value}
    if isinstance(value, list):
        return {v for v in value if isinstance(v, str)}
    return set()
