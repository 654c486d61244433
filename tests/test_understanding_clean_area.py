"""Cleaning an area without the model: "clean the living room", "vacuum the kitchen".

HA's own agent reads these as HassVacuumCleanArea and fails ("no device supports
the required features") when the vacuum does not clean by area, as the home's
Roborock does not: ours starts the vacuum the words mean, with HA's HassVacuumStart
and HA's words, and asks no model. A vacuum that cleans by area gets HA's
HassVacuumCleanArea where HA's own sentences miss (Italian has none). A vacuum on another floor than the area, an area
the home does not have, or a vacuum not exposed: nothing runs.
"""

from typing import Any

import pytest
from pytest_homeassistant_custom_component.common import setup_test_component_platform

from homeassistant.components import conversation
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.components.vacuum import Segment, StateVacuumEntity
from homeassistant.components.vacuum.const import VacuumActivity, VacuumEntityFeature
from homeassistant.core import HomeAssistant
from homeassistant.helpers import area_registry as ar, entity_registry as er
from homeassistant.setup import async_setup_component

from custom_components.agentic_conversation.const import CONF_LOCAL_FIRST
from tests.fake_llm import FakeLLM, Reply
from tests.helpers import add_agent, async_test_platforms, converse, speech
from tests.understanding_home import async_build_home, states

pytestmark = pytest.mark.usefixtures("no_retry_wait")

# What the areas are called in other languages: aliases, as a home in them has.
ALIASES = {
    "living_room": {"Wohnzimmer", "salon", "salón", "soggiorno", "woonkamer"},
    "kitchen": {"Küche", "cuisine", "cocina", "cucina", "keuken"},
}


@pytest.fixture
def hass_config_dir(hass_tmp_config_dir: str) -> str:
    """The shopping list is a file: a folder of the test's own."""
    return hass_tmp_config_dir


@pytest.fixture
async def home(ha_core: HomeAssistant) -> HomeAssistant:
    """The home of tests/understanding_home.py, its areas named in six languages."""
    await async_build_home(ha_core)
    areas = ar.async_get(ha_core)
    for area_id, aliases in ALIASES.items():
        areas.async_update(area_id, aliases=aliases)
    return ha_core


@pytest.fixture
async def local(home: HomeAssistant, fake_llm: FakeLLM) -> str:
    """An agent with local first on; the model must not be asked."""
    options: dict[str, Any] = {CONF_LOCAL_FIRST: True}
    return await add_agent(home, fake_llm, **options)


@pytest.mark.parametrize(
    ("language", "text", "spoken"),
    [
        ("en", "clean the living room", "Started"),
        ("en", "vacuum the kitchen", "Started"),
        ("en", "Clean the Kitchen.", "Started"),
        ("de", "Wohnzimmer saugen", "Gestartet"),
        ("de", "sauge die Küche", "Gestartet"),
        ("fr", "nettoie le salon", "Nettoyage lancé"),
        ("es", "limpia la cocina", "Limpieza iniciada"),
        ("nl", "stofzuig de woonkamer", "Gestart"),
        ("it", "pulisci la cucina", "Pulizia avviata"),
        ("it", "aspira il soggiorno", "Pulizia avviata"),
    ],
)
async def test_the_one_vacuum_cleans(
    home: HomeAssistant,
    fake_llm: FakeLLM,
    local: str,
    *,
    language: str,
    text: str,
    spoken: str,
) -> None:
    """HA's agent fails; ours starts the only vacuum, in HA's words, no model asked."""
    hass = home
    before = states(hass)
    ha = await converse(
        hass, conversation.HOME_ASSISTANT_AGENT, text, language=language
    )
    assert ha.response.response_type.value == "error", speech(ha)
    assert states(hass) == before

    result = await converse(hass, local, text, language=language)

    assert speech(result) == spoken
    assert states(hass) == before | {"vacuum.roborock": "cleaning"}
    assert fake_llm.requests == []


@pytest.mark.parametrize(
    "text",
    [
        "clean the bedroom",  # upstairs: the vacuum lives downstairs
        "clean the garage",  # the home has no garage
        "clean the living room with the fan",  # a fan is no vacuum
        "clean the kitchen and the bedroom",  # not one area
    ],
)
async def test_not_this_vacuum_left_unrun(
    home: HomeAssistant, fake_llm: FakeLLM, local: str, text: str
) -> None:
    """No vacuum that surely cleans it: the model's turn, and no state changed."""
    hass = home
    before = states(hass)
    fake_llm.script([Reply.text("The model answered.")])

    result = await converse(hass, local, text)

    assert speech(result) == "The model answered."
    assert len(fake_llm.requests) == 1
    assert states(hass) == before


async def test_an_unexposed_vacuum_is_not_started(
    home: HomeAssistant, fake_llm: FakeLLM, local: str
) -> None:
    """With the vacuum hidden from Assist, 'clean the living room' runs nothing."""
    hass = home
    async_expose_entity(hass, conversation.DOMAIN, "vacuum.roborock", False)
    before = states(hass)
    fake_llm.script([Reply.text("The model answered.")])

    result = await converse(hass, local, "clean the living room")

    assert speech(result) == "The model answered."
    assert states(hass) == before


class _AreaVacuum(StateVacuumEntity):
    """A vacuum that cleans by area, its kitchen mapped to one segment."""

    _attr_name = "Robbie"
    _attr_unique_id = "robbie"
    _attr_activity = VacuumActivity.DOCKED
    _attr_supported_features = (
        VacuumEntityFeature.START
        | VacuumEntityFeature.STATE
        | VacuumEntityFeature.RETURN_HOME
        | VacuumEntityFeature.CLEAN_AREA
    )

    def __init__(self) -> None:
        self.cleaned: list[list[str]] = []

    async def async_get_segments(self) -> list[Segment]:
        return [Segment(id="s1", name="Kitchen"), Segment(id="s2", name="Hall")]

    async def async_clean_segments(self, segment_ids: list[str], **kwargs: Any) -> None:
        self.cleaned.append(list(segment_ids))
        self._attr_activity = VacuumActivity.CLEANING
        self.async_write_ha_state()


async def test_a_vacuum_that_cleans_by_area_cleans_that_area(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """Italian has no HA sentence for it: ours runs HassVacuumCleanArea, one room."""
    hass = ha_core
    areas = ar.async_get(hass)
    kitchen = areas.async_create("Kitchen", aliases={"cucina"})
    areas.async_create("Hall", aliases={"ingresso"})
    vacuum = _AreaVacuum()
    setup_test_component_platform(hass, "vacuum", [vacuum])
    for component in ("homeassistant", "intent", "conversation"):
        assert await async_setup_component(hass, component, {})
    assert await async_setup_component(hass, "vacuum", {"vacuum": {"platform": "test"}})
    await hass.async_block_till_done()
    entities = er.async_get(hass)
    entity_id = entities.async_get_entity_id("vacuum", "test", "robbie")
    assert entity_id is not None
    entities.async_update_entity_options(
        entity_id,
        "vacuum",
        {
            "area_mapping": {kitchen.id: ["s1"], "hall": ["s2"]},
            "last_seen_segments": [
                {"id": "s1", "name": "Kitchen", "group": None},
                {"id": "s2", "name": "Hall", "group": None},
            ],
        },
    )
    async_expose_entity(hass, conversation.DOMAIN, entity_id, True)
    await hass.async_block_till_done()
    options: dict[str, Any] = {CONF_LOCAL_FIRST: True}
    local = await add_agent(hass, fake_llm, **options)
    ha = await converse(
        hass, conversation.HOME_ASSISTANT_AGENT, "pulisci la cucina", language="it"
    )
    assert ha.response.response_type.value == "error", speech(ha)

    result = await converse(hass, local, "pulisci la cucina", language="it")

    assert speech(result) == "Sto pulendo Kitchen"
    assert vacuum.cleaned == [["s1"]]  # the kitchen's segment, not the hall's
    state = hass.states.get(entity_id)
    assert state is not None
    assert state.state == "cleaning"
    assert fake_llm.requests == []


class _PlainVacuum(StateVacuumEntity):
    """A vacuum that only starts and docks."""

    _attr_activity = VacuumActivity.DOCKED
    _attr_supported_features = (
        VacuumEntityFeature.START
        | VacuumEntityFeature.STATE
        | VacuumEntityFeature.RETURN_HOME
    )

    def __init__(self, name: str) -> None:
        self._attr_name = name
        self._attr_unique_id = name.lower()

    async def async_start(self) -> None:
        self._attr_activity = VacuumActivity.CLEANING
        self.async_write_ha_state()


async def test_two_vacuums_in_the_area_asked_and_the_answer_carried(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """Two vacuums in the kitchen: asked which; 'Dusty' starts Dusty alone."""
    hass = ha_core
    kitchen = ar.async_get(hass).async_create("Kitchen")
    vacuums = [_PlainVacuum("Robbie"), _PlainVacuum("Dusty")]
    await async_test_platforms(hass, {"vacuum": vacuums})
    for vacuum in vacuums:
        assert vacuum.entity_id is not None
        er.async_get(hass).async_update_entity(vacuum.entity_id, area_id=kitchen.id)
    options: dict[str, Any] = {CONF_LOCAL_FIRST: True}
    local = await add_agent(hass, fake_llm, **options)

    asked = await converse(hass, local, "clean the kitchen")

    assert speech(asked) == "Robbie or Dusty?"
    assert asked.continue_conversation is True
    assert [v.activity for v in vacuums] == [VacuumActivity.DOCKED] * 2

    done = await converse(hass, local, "Dusty", asked.conversation_id)

    assert speech(done) == "Started"
    assert [v.activity for v in vacuums] == [
        VacuumActivity.DOCKED,
        VacuumActivity.CLEANING,
    ]
    assert fake_llm.requests == []
