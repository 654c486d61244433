"""`search_entities` finds what people say: word forms, floors, device words, places.

A two-floor home, names in English with German aliases, and one light upstairs that is
not exposed. Every test asserts the exact entities returned, in order.
"""

import dataclasses
from typing import Any

import pytest

from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import HomeAssistant, State
from homeassistant.helpers import (
    area_registry as ar,
    entity_registry as er,
    floor_registry as fr,
    llm,
)
from homeassistant.setup import async_setup_component

from custom_components.agentic_conversation.const import DOMAIN, LLM_API_ID
from custom_components.agentic_conversation.tools.entities import EntityInfo
from custom_components.agentic_conversation.tools.search import find
from tests.tools.conftest import context

GROUND, FIRST = "Ground floor", "First floor"
# area: (floor, aliases)
AREAS = {
    "Kitchen": (GROUND, ["Küche"]),
    "Living room": (GROUND, ["Wohnzimmer"]),
    "Guest bedroom": (GROUND, ["Gästezimmer"]),
    "Bedroom": (FIRST, ["Schlafzimmer"]),
    "Kids room": (FIRST, ["Kinderzimmer"]),
}
# entity id, name, area, device class, aliases, exposed
ENTITIES: list[tuple[str, str, str | None, str | None, list[str], bool]] = [
    ("light.kitchen_ceiling", "Kitchen ceiling", "Kitchen", None, [], True),
    ("light.floor_lamp", "Stehlampe", "Living room", None, [], True),
    ("light.guest_bedroom", "Guest bedroom light", "Guest bedroom", None, [], True),
    ("light.bedroom", "Bedroom light", "Bedroom", None, [], True),
    ("light.kids_room", "Kids room light", "Kids room", None, [], True),
    ("light.attic", "Attic light", "Bedroom", None, [], False),
    ("cover.curtains", "Bedroom curtains", "Bedroom", "curtain", [], True),
    ("cover.blind", "Rollo", "Living room", "blind", [], True),
    ("media_player.sonos", "Sonos", "Living room", "speaker", [], True),
    ("todo.shopping_list", "Shopping list", None, None, ["Einkaufsliste"], True),
    ("todo.tasks", "Tasks", None, None, [], True),
    ("vacuum.robi", "Robi", "Living room", None, [], True),
    ("lock.smart_lock", "Smart lock", None, None, [], True),
    ("binary_sensor.smart_lock", "Smart lock", None, "lock", [], True),
    ("sensor.kitchen_temp", "Kitchen temperature", "Kitchen", "temperature", [], True),
]


@pytest.fixture
async def house(ha_core: HomeAssistant) -> HomeAssistant:
    """The house, with floors, area aliases and device classes."""
    hass = ha_core
    floors = fr.async_get(hass)
    levels = {GROUND: 0, FIRST: 1}
    floor_ids = {
        name: floors.async_create(
            name, level=level, aliases={"Obergeschoss"} if level else {"Erdgeschoss"}
        ).floor_id
        for name, level in levels.items()
    }
    areas = ar.async_get(hass)
    area_ids = {
        name: areas.async_create(
            name, floor_id=floor_ids[floor], aliases=set(aliases)
        ).id
        for name, (floor, aliases) in AREAS.items()
    }
    registry = er.async_get(hass)
    for entity_id, name, area, device_class, aliases, exposed in ENTITIES:
        domain, object_id = entity_id.split(".")
        entry = registry.async_get_or_create(
            domain, "test", object_id, suggested_object_id=object_id
        )
        assert entry.entity_id == entity_id
        registry.async_update_entity(
            entity_id,
            area_id=area_ids[area] if area else None,
            aliases=list(aliases),
        )
        attributes: dict[str, Any] = {"friendly_name": name}
        if device_class:
            attributes["device_class"] = device_class
        hass.states.async_set(entity_id, "off", attributes)
        async_expose_entity(hass, "conversation", entity_id, exposed)
    assert await async_setup_component(hass, DOMAIN, {})
    return hass


async def search(
    hass: HomeAssistant, query: str, language: str = "en", **args: Any
) -> tuple[list[str], int]:
    """The entity ids search_entities returns, and its total_matches."""
    llm_context = dataclasses.replace(context(), language=language)
    api = await llm.async_get_api(hass, LLM_API_ID, llm_context)
    result = await api.async_call_tool(
        llm.ToolInput(tool_name="search_entities", tool_args={"query": query, **args})
    )
    data: Any = result.data
    return [e["entity_id"] for e in data["entities"]], data["total_matches"]


UPSTAIRS_LIGHTS = ["light.bedroom", "light.kids_room"]


@pytest.mark.parametrize(
    ("query", "language"),
    [
        ("turn off the lights upstairs", "en"),
        ("all the lights on the first floor", "en"),
        ("Mach die Lampen im Obergeschoss aus", "de"),
        ("Schalte oben alle Lichter aus", "de"),
        ("Licht im OG aus", "de"),
    ],
)
async def test_plural_and_floor_find_every_light_up_there(
    house: HomeAssistant, query: str, language: str
) -> None:
    """Plurals match singular names; floors by name, alias or level.

    The unexposed attic light upstairs is never returned.
    """
    assert await search(house, query, language) == (UPSTAIRS_LIGHTS, 2)


async def test_area_and_floor_together(house: HomeAssistant) -> None:
    """Bedroom lights upstairs: not the guest bedroom on the ground floor."""
    assert await search(house, "bedroom lights upstairs") == (["light.bedroom"], 1)
    assert await search(house, "Schlafzimmerlicht oben", "de") == (
        ["light.bedroom"],
        1,
    )


async def test_area_alias_and_german_plural(house: HomeAssistant) -> None:
    """Lampen im Wohnzimmer: the floor lamp, named in German, by its area alias."""
    assert await search(house, "Lampen im Wohnzimmer", "de") == (
        ["light.floor_lamp"],
        1,
    )
    assert await search(house, "wie warm ist es in der Küche", "de") == (
        ["sensor.kitchen_temp"],
        1,
    )


@pytest.mark.parametrize(
    ("query", "language", "expected"),
    [
        ("pause the music", "en", ["media_player.sonos"]),
        ("mute the speaker in the living room", "en", ["media_player.sonos"]),
        ("Musik leiser", "de", ["media_player.sonos"]),
        ("clean the living room", "en", ["vacuum.robi"]),
        ("sauge das Wohnzimmer", "de", ["vacuum.robi"]),
        ("put apples on the shopping list", "en", ["todo.shopping_list", "todo.tasks"]),
        (
            "setz Milch auf die Einkaufsliste",
            "de",
            ["todo.shopping_list", "todo.tasks"],
        ),
        (
            "history homework on my task list",
            "en",
            ["todo.shopping_list", "todo.tasks"],
        ),
        ("close the curtains", "en", ["cover.curtains", "cover.blind"]),
        ("schließ die Jalousien", "de", ["cover.blind"]),
    ],
)
async def test_device_words_find_domains_and_classes(
    house: HomeAssistant, query: str, language: str, expected: list[str]
) -> None:
    """Device words name a domain or device class; the named class comes first."""
    found, total = await search(house, query, language)

    assert found == expected
    assert total == len(expected)


async def test_a_name_that_is_also_the_domain_ranks_that_domain_first(
    house: HomeAssistant,
) -> None:
    """Lock smart lock: the lock before the lock sensor of the same name."""
    assert await search(house, "lock smart lock") == (
        ["lock.smart_lock", "binary_sensor.smart_lock"],
        2,
    )


async def test_equal_scores_come_back_in_one_order(house: HomeAssistant) -> None:
    """Same name, same score: ordered by entity id, every time."""
    for _ in range(3):
        assert await search(house, "smart") == (
            ["binary_sensor.smart_lock", "lock.smart_lock"],
            2,
        )


async def test_many_things_up_to_the_limit_with_the_right_total(
    house: HomeAssistant,
) -> None:
    """All the lights: the five exposed lights, two of them returned at limit 2."""
    assert await search(house, "all the lights", limit=2) == (
        ["light.bedroom", "light.guest_bedroom"],
        5,
    )
    assert await search(house, "alle Lampen", "de", floor="Obergeschoss") == (
        UPSTAIRS_LIGHTS,
        2,
    )


async def test_unexposed_is_never_named(house: HomeAssistant) -> None:
    """The attic light, asked for by its own name, is not found.

    "attic" is read as upstairs, where the exposed lights are.
    """
    assert await search(house, "attic light") == (UPSTAIRS_LIGHTS, 2)


def _info(entity_id: str, name: str) -> EntityInfo:
    return EntityInfo(
        entity_id=entity_id,
        name=name,
        aliases=(),
        area=None,
        area_aliases=(),
        area_id=None,
        device_id=None,
        state=State(entity_id, "off", {"friendly_name": name}),
    )


def test_order_does_not_depend_on_the_order_of_the_states() -> None:
    """Equal names and scores: the same order whichever order the states come in."""
    lamps = [
        _info("light.lamp_b", "Lamp"),
        _info("switch.lamp", "Lamp"),
        _info("light.lamp_a", "Lamp"),
        _info("sensor.lamp_power", "Lamp power"),
    ]
    expected = ["light.lamp_a", "light.lamp_b", "switch.lamp", "sensor.lamp_power"]

    for states in (lamps, lamps[::-1], lamps[1:] + lamps[:1]):
        assert [e.entity_id for e in find(states, "lamps", "en")] == expected
