"""A cover set to a level by its area or a device word: "set the living room curtains to 50%".

HA's own sentences take a cover class with an area ("the living room curtains" are
curtains, not the blind the home has there) or the cover's whole name; where they
fail, ours reads the level with HA's own number words and runs HA's HassSetPosition
on the one cover that fits and can take a position. Two covers in different areas
are asked about; a cover that cannot take a position, a level past 100 and words
that name no cover run nothing; the garage door is asked as everywhere.
"""

from typing import Any

import pytest

from homeassistant.components import conversation
from homeassistant.components.cover import CoverEntity
from homeassistant.components.cover.const import CoverDeviceClass, CoverEntityFeature
from homeassistant.core import HomeAssistant
from homeassistant.helpers import area_registry as ar, entity_registry as er

from custom_components.agentic_conversation.const import CONF_LOCAL_FIRST
from tests.fake_llm import FakeLLM, Reply
from tests.helpers import add_agent, async_test_platforms, converse, speech, state_of

pytestmark = pytest.mark.usefixtures("no_retry_wait")

_MOVES = (
    CoverEntityFeature.OPEN | CoverEntityFeature.CLOSE | CoverEntityFeature.SET_POSITION
)


class _Cover(CoverEntity):
    """A cover that goes to the position it is told at once."""

    def __init__(
        self,
        name: str,
        device_class: CoverDeviceClass,
        features: CoverEntityFeature = _MOVES,
    ) -> None:
        self._attr_name = name
        self._attr_unique_id = name.lower().replace(" ", "_")
        self._attr_device_class = device_class
        self._attr_supported_features = features
        self._attr_current_cover_position = 0
        self._attr_is_closed = True

    async def async_set_cover_position(self, **kwargs: Any) -> None:
        self._attr_current_cover_position = int(kwargs["position"])
        self._attr_is_closed = self._attr_current_cover_position == 0
        self.async_write_ha_state()


class _SlowCover(_Cover):
    """A cover that takes the level and starts moving, arriving later (a real motor)."""

    async def async_set_cover_position(self, **kwargs: Any) -> None:
        target = int(kwargs["position"])
        self._attr_is_opening = target > (self._attr_current_cover_position or 0)
        self._attr_is_closing = not self._attr_is_opening
        self.async_write_ha_state()


# name, device class, area
_COVERS = {
    "en": [
        ("Smart Curtain", CoverDeviceClass.BLIND, "Living room"),
        ("Bedroom curtains", CoverDeviceClass.CURTAIN, "Bedroom"),
        ("Garage door", CoverDeviceClass.GARAGE, "Hall"),
    ],
    "de": [
        ("Vorhang Süd", CoverDeviceClass.BLIND, "Wohnzimmer"),
        ("Rollladen", CoverDeviceClass.SHUTTER, "Schlafzimmer"),
    ],
    "fr": [
        ("Rideau salon", CoverDeviceClass.BLIND, "Salon"),
        ("Volet", CoverDeviceClass.SHUTTER, "Chambre"),
    ],
    "es": [("Cortina del salón", CoverDeviceClass.BLIND, "Living room")],
    "nl": [("Gordijn woonkamer", CoverDeviceClass.BLIND, "Living room")],
    "it": [("Tenda soggiorno", CoverDeviceClass.BLIND, "Living room")],
}


async def _home(
    hass: HomeAssistant,
    covers: list[tuple[str, CoverDeviceClass, str]],
    features: CoverEntityFeature = _MOVES,
) -> dict[str, str]:
    """The covers in their areas, exposed; their entity ids by name."""
    entities = [
        _Cover(name, device_class, features) for name, device_class, _area in covers
    ]
    await async_test_platforms(hass, {"cover": entities})
    areas, registry = ar.async_get(hass), er.async_get(hass)
    found: dict[str, str] = {}
    for entity, (name, _class, area) in zip(entities, covers, strict=True):
        assert entity.entity_id is not None
        place = areas.async_get_or_create(area)
        registry.async_update_entity(entity.entity_id, area_id=place.id)
        found[name] = entity.entity_id
    return found


def _positions(hass: HomeAssistant, ids: dict[str, str]) -> dict[str, int]:
    """Each cover's position as the house shows it."""
    found: dict[str, int] = {}
    for name, entity_id in ids.items():
        state = hass.states.get(entity_id)
        assert state is not None
        found[name] = int(state.attributes["current_position"])
    return found


# HA's words for a position set, in each language.
_SET = {
    "en": "Position set",
    "de": "Position festgelegt",
    "fr": "Position réglée",
    "es": "Posición establecida",
    "nl": "Positie aangepast",
    "it": "Posizione {name} impostata",
}


@pytest.fixture
async def local(ha_core: HomeAssistant, fake_llm: FakeLLM) -> str:
    """An agent with local first on; the model must not be asked."""
    options: dict[str, Any] = {CONF_LOCAL_FIRST: True}
    return await add_agent(ha_core, fake_llm, **options)


@pytest.mark.parametrize(
    ("language", "text", "cover", "position"),
    [
        ("en", "set the living room curtains to 50%", "Smart Curtain", 50),
        ("en", "set the curtain in the living room to 30 percent", "Smart Curtain", 30),
        ("en", "set the living room curtains to fifty percent", "Smart Curtain", 50),
        ("en", "open the curtain to 20% in the living room", "Smart Curtain", 20),
        ("de", "fahre den Vorhang auf 50 Prozent im Wohnzimmer", "Vorhang Süd", 50),
        ("fr", "règle le rideau à 50 % dans le salon", "Rideau salon", 50),
        ("de", "stelle den Vorhang auf 50 Prozent", "Vorhang Süd", 50),
        ("fr", "règle le rideau à 50 %", "Rideau salon", 50),
        ("es", "pon la cortina al 50%", "Cortina del salón", 50),
        ("nl", "zet het gordijn op 40%", "Gordijn woonkamer", 40),
        ("it", "imposta la tenda al 50%", "Tenda soggiorno", 50),
    ],
)
async def test_the_one_cover_to_the_level(
    ha_core: HomeAssistant,
    fake_llm: FakeLLM,
    local: str,
    *,
    language: str,
    text: str,
    cover: str,
    position: int,
) -> None:
    """HA's agent fails; ours sets the one cover the words mean, no model asked."""
    hass = ha_core
    ids = await _home(hass, _COVERS[language])
    before = _positions(hass, ids)
    ha = await converse(
        hass, conversation.HOME_ASSISTANT_AGENT, text, language=language
    )
    assert ha.response.response_type.value == "error", speech(ha)
    assert _positions(hass, ids) == before

    result = await converse(hass, local, text, language=language)

    assert speech(result) == _SET[language].replace("{name}", cover)
    assert result.response.response_type.value == "action_done"
    assert _positions(hass, ids) == before | {cover: position}
    assert fake_llm.requests == []


async def test_a_curtain_of_two_in_two_areas_asked(
    ha_core: HomeAssistant, fake_llm: FakeLLM, local: str
) -> None:
    """'The curtain' is one of two covers in two areas: asked, the answer sets one.

    The home's garage door is a cover too, but no curtain: never offered.
    """
    hass = ha_core
    ids = await _home(hass, _COVERS["en"])

    asked = await converse(hass, local, "set the curtain to 50%")

    assert speech(asked) == "Bedroom curtains or Smart Curtain?"
    assert _positions(hass, ids) == dict.fromkeys(ids, 0)
    answer = await converse(hass, local, "the bedroom", asked.conversation_id)
    assert speech(answer) == "Position set"
    assert _positions(hass, ids) == dict.fromkeys(ids, 0) | {"Bedroom curtains": 50}
    assert fake_llm.requests == []


async def test_the_curtains_in_two_areas_are_both_set(
    ha_core: HomeAssistant, fake_llm: FakeLLM, local: str
) -> None:
    """'The curtains' (a plural) are both of them; the garage door is no curtain."""
    hass = ha_core
    ids = await _home(hass, _COVERS["en"])

    result = await converse(hass, local, "set the curtains to 50%")

    assert speech(result) == "Position set"
    assert _positions(hass, ids) == dict.fromkeys(ids, 0) | {
        "Bedroom curtains": 50,
        "Smart Curtain": 50,
    }
    assert fake_llm.requests == []


@pytest.mark.parametrize(
    ("text", "question"),
    [
        ("close the curtain", "Bedroom curtains or Smart Curtain?"),
        ("open the blind", "Smart Curtain or Bedroom curtains?"),
        # A door word names no curtain: the garage door, which is risky to open.
        ("open the garage door", "Shall I open Garage door?"),
    ],
)
async def test_a_cover_word_names_covers_of_its_kind(
    ha_core: HomeAssistant,
    fake_llm: FakeLLM,
    local: str,
    *,
    text: str,
    question: str,
) -> None:
    """Curtains and blinds are never the garage door; nothing runs before the answer."""
    hass = ha_core
    ids = await _home(hass, _COVERS["en"])

    asked = await converse(hass, local, text)

    assert speech(asked) == question
    assert _positions(hass, ids) == dict.fromkeys(ids, 0)
    assert fake_llm.requests == []


@pytest.mark.parametrize(
    ("text", "heard"),
    [
        ("set the living room curtains to 150%", "The model answered."),
        ("set the living room speakers to 50%", "The model answered."),
        # no device by the name: the model did nothing, HA's words
        ("set the kitchen curtains to 50%", "Sorry, I am not aware of any device called kitchen curtains"),
        ("set the curtains upstairs to 50%", "Sorry, I am not aware of any device called curtains upstairs"),
    ],
)  # fmt: skip
async def test_no_cover_for_sure_left_unrun(
    ha_core: HomeAssistant, fake_llm: FakeLLM, local: str, *, text: str, heard: str
) -> None:
    """A level past 100 or words naming no cover of the home: the model's turn."""
    hass = ha_core
    ids = await _home(hass, _COVERS["en"])
    fake_llm.script([Reply.text("The model answered.")])

    result = await converse(hass, local, text)

    assert speech(result) == heard
    assert _positions(hass, ids) == dict.fromkeys(ids, 0)


@pytest.mark.parametrize(
    ("text", "curtain"),
    [
        # The one curtain cannot take a position: nothing is run on it.
        ("set the curtains to 50%", ("Smart Curtain", "Living room")),
        # Read as opening "the curtains to 50% in the bedroom" it would open it
        # fully: the level read wins, the curtain cannot take it, the model is asked.
        ("open the curtains to 50% in the bedroom", ("Bedroom curtains", "Bedroom")),
    ],
)
async def test_a_cover_without_positions_is_not_set(
    ha_core: HomeAssistant,
    fake_llm: FakeLLM,
    local: str,
    *,
    text: str,
    curtain: tuple[str, str],
) -> None:
    """A level asked of a curtain that cannot take one: never run without it."""
    hass = ha_core
    name, area = curtain
    ids = await _home(
        hass,
        [(name, CoverDeviceClass.BLIND, area)],
        CoverEntityFeature.OPEN | CoverEntityFeature.CLOSE,
    )
    fake_llm.script([Reply.text("The model answered.")])

    result = await converse(hass, local, text)

    assert speech(result) == "The model answered."
    assert [state_of(hass, entity_id) for entity_id in ids.values()] == ["closed"]


async def test_the_garage_door_to_a_level_is_asked(
    ha_core: HomeAssistant, fake_llm: FakeLLM, local: str
) -> None:
    """Opening the garage door half way is risky: asked as everywhere, not run."""
    hass = ha_core
    ids = await _home(hass, _COVERS["en"])
    fake_llm.script([Reply.text("The model answered.")])

    result = await converse(hass, local, "set the garage to 50%")

    assert _positions(hass, ids) == dict.fromkeys(ids, 0)
    assert speech(result) == "Shall I open Garage door?"
    assert fake_llm.requests == []


async def test_a_cover_on_its_way_to_the_level_is_said_done(
    ha_core: HomeAssistant, fake_llm: FakeLLM, local: str
) -> None:
    """Opening toward 50 % when the words are said: set, as 'open' is while opening.

    Not "did not change: it is opening" (a demo cover moves 10 % a second).
    """
    hass = ha_core
    slow = _SlowCover("Smart Curtain", CoverDeviceClass.BLIND)
    await async_test_platforms(hass, {"cover": [slow]})
    assert slow.entity_id is not None

    result = await converse(hass, local, "set the smart curtain to 50%")

    assert speech(result) == "Position set"
    assert state_of(hass, slow.entity_id) == "opening"
    assert fake_llm.requests == []
