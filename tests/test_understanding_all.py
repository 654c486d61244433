"""Every one of them ("all the fans"), never "which one?".

Home Assistant's own agent has no sentence for "turn on all the fans" (nor "close all
the covers"); our reading found the three fans and asked "Bedroom Fan, Kitchen Fan
or Breeze 300?", though the words said all. Now all of them run, through HA's own
intent when HA's matching finds exactly them (every exposed fan, or every exposed
cover of one class), else on each by its own name; a risky one among them is asked
about with the rest named. An
unexposed fan is never among them, and "all the lamps" (maybe some lights only) is
left to the model. "The fans" (a plural, no "all") is the same: it was asked "which
one?" too; said to a satellite in a room with fans, it is those.
"""

import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry

from homeassistant.components import conversation
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import Context, HomeAssistant, State
from homeassistant.helpers import device_registry as dr

from custom_components.agentic_conversation.tools.entities import EntityInfo
from custom_components.agentic_conversation.understanding.resolve import (
    Resolved,
    _every,
)
from tests.fake_llm import FakeLLM, Reply
from tests.helpers import converse, speech
from tests.test_local_understanding import hass_config_dir, home, local
from tests.understanding_home import states

__all__ = ["hass_config_dir", "home", "local"]  # fixtures: the understanding home

FANS = ("fan.kitchen_fan", "fan.bedroom_fan", "fan.desk_fan")
COVERS = ("cover.garage", "cover.blinds", "cover.curtains")
MODEL = "The model answered."


async def _ha_asks_or_says_sorry(hass: HomeAssistant, text: str, language: str) -> None:
    """HA's own agent does not do it."""
    before = states(hass)
    result = await converse(
        hass, conversation.HOME_ASSISTANT_AGENT, text, None, language
    )
    assert result.response.response_type.value == "error", speech(result)
    assert states(hass) == before


async def _set(hass: HomeAssistant, entity_ids: tuple[str, ...], service: str) -> None:
    domain = entity_ids[0].split(".")[0]
    await hass.services.async_call(
        domain, service, {"entity_id": list(entity_ids)}, blocking=True
    )


@pytest.mark.parametrize(
    ("language", "text", "start", "heard", "end"),
    [
        ("en", "turn off all the fans", "turn_on", "Turned off all of the fans", "off"),
        # HA's words for turning fans on have no "all": its own for the fans
        ("en", "turn on every fan", "turn_off", "Turned on the fans", "on"),
        ("de", "schalte alle Ventilatoren aus", "turn_on", "Alle Ventilatoren ausgeschaltet", "off"),
        ("fr", "éteins tous les ventilateurs", "turn_on", "Ventilateurs éteints", "off"),
    ],
)  # fmt: skip
async def test_every_fan_with_no_question(
    home: HomeAssistant,
    fake_llm: FakeLLM,
    local: str,
    *,
    language: str,
    text: str,
    start: str,
    heard: str,
    end: str,
) -> None:
    """Each fan, in three areas, changes; nothing else does; the model is not asked."""
    hass = home
    await _set(hass, FANS, start)
    await _ha_asks_or_says_sorry(hass, text, language)
    before = states(hass)

    result = await converse(hass, local, text, None, language)

    assert speech(result) == heard
    assert states(hass) == before | dict.fromkeys(FANS, end)
    assert fake_llm.requests == []


async def test_an_unexposed_fan_is_not_among_them(
    home: HomeAssistant, fake_llm: FakeLLM, local: str
) -> None:
    """Every fan the user exposed to Assist is "all", never one hidden from it."""
    hass = home
    async_expose_entity(hass, conversation.DOMAIN, "fan.desk_fan", False)
    before = states(hass)

    result = await converse(hass, local, "turn on all the fans")

    assert speech(result) == "Turned on the fans"
    assert states(hass) == before | {"fan.kitchen_fan": "on", "fan.bedroom_fan": "on"}
    assert fake_llm.requests == []


async def test_all_the_covers_with_the_garage_door_asked_first(
    home: HomeAssistant, fake_llm: FakeLLM, local: str
) -> None:
    """The garage door is risky: asked about with the rest named; yes opens all."""
    hass = home
    await _set(hass, COVERS, "close_cover")
    before = states(hass)

    asked = await converse(hass, local, "open all the covers")

    assert speech(asked) == (
        "Shall I open Garage door, Living room blinds and Bedroom curtains?"
    )
    assert states(hass) == before

    opened = await converse(hass, local, "yes", asked.conversation_id)

    assert speech(opened) == (
        "I opened Living room blinds, Bedroom curtains and Garage door."
    )
    assert states(hass) == before | dict.fromkeys(COVERS, "open")
    assert fake_llm.requests == []


async def test_all_that_no_class_names_alone_each_by_its_name(
    home: HomeAssistant, fake_llm: FakeLLM, local: str
) -> None:
    """The blinds and the curtains (two classes): each closed by its own name."""
    hass = home
    await _set(hass, COVERS, "open_cover")
    before = states(hass)

    result = await converse(hass, local, "close all the blinds")

    assert speech(result) == "Closing"
    assert states(hass) == before | {
        "cover.blinds": "closed",
        "cover.curtains": "closed",
    }
    assert fake_llm.requests == []


async def test_all_the_lamps_is_the_models(
    home: HomeAssistant, fake_llm: FakeLLM, local: str
) -> None:
    """Maybe only the lamps: nothing runs, nothing is asked; the model has the words."""
    hass = home
    before = states(hass)
    fake_llm.script([Reply.text(MODEL)])

    result = await converse(hass, local, "turn on all the lamps")

    assert speech(result) == MODEL
    assert states(hass) == before
    (request,) = fake_llm.requests
    assert request["messages"][-1]["content"] == "turn on all the lamps"


@pytest.mark.parametrize(
    ("language", "text", "heard"),
    [
        ("en", "turn on each fan", "Turned on the fans"),
        ("es", "enciende todos los ventiladores", "Ventiladores encendidos"),
        ("es", "enciende cada ventilador", "Ventiladores encendidos"),
        # Italian has no words of HA's for all the fans: its words for one, named
        ("it", "accendi tutti i ventilatori", "Ho acceso Breeze 300, Bedroom Fan, Kitchen Fan"),
        ("it", "accendi ogni ventilatore", "Ho acceso Breeze 300, Bedroom Fan, Kitchen Fan"),
        ("nl", "zet elke ventilator aan", "Ventilatoren aangezet"),
        ("fr", "allume chaque ventilateur", "Ventilateurs allumés"),
        # a plural, no word for all, across three rooms
        ("en", "turn on the fans", "Turned on the fans"),
        ("it", "accendi i ventilatori", "Ho acceso Breeze 300, Bedroom Fan, Kitchen Fan"),
        ("de", "schalte die Ventilatoren ein", "Alle Ventilatoren eingeschaltet"),
        ("fr", "allume les ventilateurs", "Ventilateurs allumés"),
    ],
)  # fmt: skip
async def test_every_fan_by_each_languages_words(
    home: HomeAssistant,
    fake_llm: FakeLLM,
    local: str,
    *,
    language: str,
    text: str,
    heard: str,
) -> None:
    """Words for all name nothing, a plural is all: every fan, no "which one?"."""
    hass = home
    await _ha_asks_or_says_sorry(hass, text, language)
    before = states(hass)

    result = await converse(hass, local, text, None, language)

    assert speech(result) == heard
    assert states(hass) == before | dict.fromkeys(FANS, "on")
    assert fake_llm.requests == []


async def test_the_fan_is_still_asked_which(
    home: HomeAssistant, fake_llm: FakeLLM, local: str
) -> None:
    """One fan of three: which one is asked; nothing runs."""
    hass = home
    before = states(hass)

    result = await converse(hass, local, "turn on the fan")

    assert speech(result) == "Bedroom Fan, Kitchen Fan or Breeze 300?"
    assert states(hass) == before


async def test_the_fans_said_in_the_kitchen_are_the_kitchens(
    home: HomeAssistant, fake_llm: FakeLLM, local: str
) -> None:
    """Said to a satellite in the kitchen, "the fans" are the kitchen's.

    (HA's own "turn on the fans" there is its area sentence; "fire up" is ours.)
    """
    hass = home
    entry = MockConfigEntry(domain="test")
    entry.add_to_hass(hass)
    devices = dr.async_get(hass)
    device = devices.async_get_or_create(
        config_entry_id=entry.entry_id, identifiers={("test", "kitchen-satellite")}
    )
    devices.async_update_device(device.id, area_id="kitchen")
    before = states(hass)

    result = await conversation.async_converse(
        hass,
        "fire up the fans",
        None,
        Context(),
        language="en",
        agent_id=local,
        device_id=device.id,
    )

    assert speech(result) == "Turned on the fan"
    assert states(hass) == before | {"fan.kitchen_fan": "on"}
    assert fake_llm.requests == []


async def test_the_covers_with_the_garage_door_asked_and_no_is_no(
    home: HomeAssistant, fake_llm: FakeLLM, local: str
) -> None:
    """Every cover, the garage door among them: asked first; "no" leaves all shut."""
    hass = home
    await _set(hass, COVERS, "close_cover")
    before = states(hass)

    asked = await converse(hass, local, "open the covers")

    assert speech(asked) == (
        "Shall I open Garage door, Living room blinds and Bedroom curtains?"
    )
    refused = await converse(hass, local, "no", asked.conversation_id)

    assert speech(refused) == "Okay, I won't."
    assert states(hass) == before
    assert fake_llm.requests == []


@pytest.mark.parametrize(
    ("entity_ids", "every"),
    [
        (("fan.a", "fan.b"), True),
        (("switch.lava_lamp", "light.desk_lamp"), False),
        (("light.desk_lamp", "switch.lava_lamp"), False),
        (("light.desk_lamp", "light.floor_lamp"), False),
    ],
)
def test_every_one_is_of_one_domain_and_no_light(
    entity_ids: tuple[str, ...], *, every: bool
) -> None:
    """A lamp plug among lamps (either first) or only lights: not "all" of ours."""
    matches = [
        EntityInfo(e, e, (), None, (), None, None, State(e, "off")) for e in entity_ids
    ]
    found = _every(Resolved("HassTurnOn", (), None), matches)
    assert (found is not None and found.every) is every
