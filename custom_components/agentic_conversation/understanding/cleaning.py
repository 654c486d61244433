"""Cleaning an area: "clean the living room", "vacuum the kitchen".

HA's own HassVacuumCleanArea sentences name an area, and a vacuum only when there
are several. HA's handler needs a vacuum that cleans by area (mapped segments); the
others fail on it, and so does HA's agent. We pick the vacuum the words mean: the
one named, else the home's only exposed one, else the one in that area, else the
one on its floor; two or three are asked about. A vacuum on another floor than the
area cannot clean it and is never taken. The stage then runs HassVacuumCleanArea on
a vacuum that cleans by area, and HassVacuumStart (HA's "Started") on one that does
not: it cleans as it does when started, which is what the user hears.
"""

from collections.abc import Mapping, Sequence

from hassil.intents import TextSlotList

from homeassistant.core import HomeAssistant
from homeassistant.helpers import area_registry as ar, floor_registry as fr

from ..tools.entities import EntityInfo
from .reading import CLEAN_AREA, Reading
from .resolve import MAX_CHOICES, Resolved, covering
from .words import LanguageWords


def area_list(hass: HomeAssistant) -> TextSlotList:
    """The home's areas by name and alias, each standing for its area id."""
    pairs = [
        (text, area.id)
        for area in ar.async_get(hass).async_list_areas()
        for text in {area.name, *area.aliases}
        if text.strip()
    ]
    return TextSlotList.from_tuples(pairs, allow_template=False, name="area")


def area_floors(hass: HomeAssistant) -> dict[str, str | None]:
    """Each area's floor, by name (as EntityInfo.floor has it)."""
    floors = fr.async_get(hass)
    found: dict[str, str | None] = {}
    for area in ar.async_get(hass).async_list_areas():
        floor = floors.async_get_floor(area.floor_id) if area.floor_id else None
        found[area.id] = floor.name if floor else None
    return found


def resolve_cleaning(
    readings: Sequence[Reading],
    entities: Sequence[EntityInfo],
    language: LanguageWords,
    floors: Mapping[str, str | None],
) -> Resolved | None:
    """The vacuum (or the vacuums to ask about) for cleaning the area read."""
    found: dict[str, tuple[Reading, list[EntityInfo]]] = {}
    for reading in readings:
        if reading.intent != CLEAN_AREA or reading.area is None:
            continue
        if (picked := _vacuums(reading, entities, language, floors)) is not None:
            found[reading.area] = (reading, picked)
    if len(found) != 1:
        return None  # no area, or two areas read: not sure
    ((reading, vacuums),) = found.values()
    return Resolved(
        reading.intent,
        tuple(vacuums),
        reading.response,
        ask=len(vacuums) > 1,
        area_id=reading.area,
    )


def _vacuums(
    reading: Reading,
    entities: Sequence[EntityInfo],
    language: LanguageWords,
    floors: Mapping[str, str | None],
) -> list[EntityInfo] | None:
    """One vacuum, or two or three to ask about; None when none fits for sure."""
    area_floor = floors.get(reading.area or "")
    vacuums = [
        e
        for e in entities
        if e.domain == "vacuum"
        and not (area_floor and e.floor and e.floor != area_floor)
    ]
    if reading.name:
        vacuums = covering(vacuums, reading.name, language, frozenset({"vacuum"}))
    if len(vacuums) <= 1:
        return vacuums or None
    for narrower in (
        [e for e in vacuums if e.area_id == reading.area],
        [e for e in vacuums if area_floor and e.floor == area_floor],
    ):
        if len(narrower) == 1:
            return narrower
    return vacuums if len(vacuums) <= MAX_CHOICES else None
