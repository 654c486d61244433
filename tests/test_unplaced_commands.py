"""A command for a device Home Assistant knows nothing by: no "Done." unless one acted.

"Turn on the dishwasher" in a home with no dishwasher: local first leaves it
to the model (it may find it under another name). A model that answers without
acting claims what nothing did; the user hears Home Assistant's "not aware of any
device called dishwasher" instead, in their language, with the model's closing
question if it asked one. A model that acts is heard as the house shows it. Words HA
did not read as a command, names our own reading finds a device for, and names of
devices hidden from Assist stay the model's.
"""

import pytest

from homeassistant.components import conversation
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import HomeAssistant

from tests.acceptance.home import (  # the home fixture: the table's home
    states,
    table_home,  # noqa: F401
)
from tests.across_releases import offered_name
from tests.assist_pipeline import Door
from tests.fake_llm import FakeLLM, Reply
from tests.helpers import converse, speech, state_of
from tests.test_confirmation import NEW_AGENT_APIS
from tests.test_state_answers import _agent

NOWHERE = "Sorry, I am not aware of any device called dishwasher"


async def test_done_for_a_device_there_is_not_is_not_said(
    home: HomeAssistant, fake_llm: FakeLLM, door: Door
) -> None:
    """The model's "Done." never reaches the user, nor a satellite's speaker."""
    hass = home
    agent = await _agent(hass, fake_llm)
    ask = await door.open(hass, agent)
    before = states(hass)
    fake_llm.script([Reply.text("Done.")])

    answer = await ask("turn on the dishwasher", None)

    assert answer["response"]["speech"]["plain"]["speech"] == NOWHERE
    assert states(hass) == before
    (request,) = fake_llm.requests  # the model was asked: it might have found one
    assert request["messages"][-1]["content"] == "turn on the dishwasher"
    if door.name == "pipeline":
        assert door.said == [NOWHERE]


# Languages we have no words of our own for: Home Assistant's words all the same.
# (Russian is one too, but 2026.11 no longer reads "включи посудомойку" as a command.)
ELSEWHERE = [
    ("pl", "włącz zmywarkę", "Gotowe.", "Brak urządzenia lub encji o nazwie zmywarkę"),
    (
        "pt",
        "liga o ventilador",
        "Feito.",
        "Não existe nenhum dispositivo ou entidade com o nome ventilador.",
    ),
    (
        "sv",
        "sätt på diskmaskinen",
        "Klart.",
        "Det finns ingen enhet eller entitet som heter diskmaskinen",
    ),
    (
        "da",
        "tænd opvaskemaskinen",
        "Færdig.",
        "Undskyld, jeg kan ikke finde opvaskemaskinen",
    ),
    (
        "nb",
        "slå på oppvaskmaskinen",
        "Ferdig.",
        "Finner ingen enhet som heter oppvaskmaskinen",
    ),
    (
        "fi",
        "laita astianpesukone päälle",
        "Valmis.",
        "Pahoittelut, en löydä laitetta tai kohdetta nimellä astianpesukone",
    ),
    (
        "cs",
        "zapni myčku",
        "Hotovo.",
        "Promiňte, ale nebyla nalezena žádná entita se jménem myčku",
    ),
    (
        "uk",
        "увімкни посудомийку",
        "Готово.",
        "Вибачте, мені не відомо пристрою з назвою посудомийку",
    ),
    (
        "ca",
        "encén el rentaplats",
        "Fet.",
        "No hi ha cap dispositiu o entitat que es digui rentaplats",
    ),
]


@pytest.mark.parametrize(
    ("language", "command", "guess", "heard"),
    [
        ("en", "turn off the dishwasher", "I turned it off.", NOWHERE),
        (
            "de",
            "schalte die Spülmaschine ein",
            "Erledigt.",
            "Spülmaschine existiert nicht",
        ),
        (
            "fr",
            "allume le lave-vaisselle",
            "C'est fait.",
            "Désolé, je ne connais pas cet appareil",
        ),
        *ELSEWHERE,
    ],
)
async def test_in_the_users_language(
    home: HomeAssistant,
    fake_llm: FakeLLM,
    *,
    language: str,
    command: str,
    guess: str,
    heard: str,
) -> None:
    """Home Assistant's own words for it, in the language it was asked in.

    (Without our words for a language: no word of the name begins like a word of a
    device's name or place.)
    """
    hass = home
    agent = await _agent(hass, fake_llm)
    before = states(hass)
    fake_llm.script([Reply.text(guess)])

    result = await converse(hass, agent, command, language=language)

    assert speech(result) == heard
    assert states(hass) == before
    assert len(fake_llm.requests) == 1


@pytest.mark.parametrize(
    ("language", "name", "command", "answer"),
    [
        ("pl", "Zmywarka", "włącz zmywarkę", "Zmywarka jest już włączona."),
        ("cs", "Myčka nádobí", "zapni myčku", "Myčka už běží."),
        ("uk", "Посудомийка", "увімкни посудомийку", "Посудомийка вже працює."),
        ("pl", "Lampa nocna", "włącz lampę", "Lampa nocna już świeci."),
    ],
)
async def test_a_name_that_may_be_a_device_said_otherwise_stays_the_models(
    home: HomeAssistant,
    fake_llm: FakeLLM,
    *,
    language: str,
    name: str,
    command: str,
    answer: str,
) -> None:
    """Inflected ("zmywarkę" for "Zmywarka"), HA finds no such name: the model may."""
    hass = home
    hass.states.async_set("switch.dishwasher", "on", {"friendly_name": name})
    async_expose_entity(hass, conversation.DOMAIN, "switch.dishwasher", True)
    agent = await _agent(hass, fake_llm)
    fake_llm.script([Reply.text(answer)])

    result = await converse(hass, agent, command, language=language)

    assert speech(result) == answer
    assert state_of(hass, "switch.dishwasher") == "on"


async def test_reading_the_house_is_not_doing(
    home: HomeAssistant, fake_llm: FakeLLM, door: Door
) -> None:
    """It looks, finds nothing to act on, says "Done.": its words before the look stay."""
    hass = home
    agent = await _agent(hass, fake_llm)
    live = await offered_name(hass, NEW_AGENT_APIS, "GetLiveContext")
    before = states(hass)
    fake_llm.script(
        [
            Reply.tool_calls([(live, {})], text="Let me look. "),
            Reply.text("Done, the dishwasher is on."),
        ]
    )

    ask = await door.open(hass, agent)

    answer = await ask("turn on the dishwasher", None)

    assert answer["response"]["speech"]["plain"]["speech"] == NOWHERE
    assert states(hass) == before
    assert len(fake_llm.requests) == 2
    if door.name == "pipeline":
        assert door.said == [f"Let me look. {NOWHERE}"]  # its words before the look


async def test_a_model_that_finds_the_device_and_acts_is_heard(
    home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """Words HA has no device for (the study lamp is the Desk lamp): it acts, is heard."""
    hass = home
    agent = await _agent(hass, fake_llm)
    turn_on = await offered_name(hass, NEW_AGENT_APIS, "HassTurnOn")
    assert state_of(hass, "light.desk_lamp") == "off"
    fake_llm.script(
        [
            Reply.tool_calls([(turn_on, {"name": "Desk lamp"})]),
            Reply.text("I turned on the desk lamp in the study."),
        ]
    )

    result = await converse(hass, agent, "turn on the study lamp")

    assert speech(result) == "I turned on the desk lamp in the study."
    assert state_of(hass, "light.desk_lamp") == "on"


async def test_an_action_that_fails_is_told_as_a_failure(
    home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """It tries the name as said, the tool finds nothing, it says "Done.": not said."""
    hass = home
    agent = await _agent(hass, fake_llm)
    turn_on = await offered_name(hass, NEW_AGENT_APIS, "HassTurnOn")
    before = states(hass)
    fake_llm.script(
        [
            Reply.tool_calls([(turn_on, {"name": "dishwasher"})]),
            Reply.text("Done."),
        ]
    )

    result = await converse(hass, agent, "turn on the dishwasher")

    assert speech(result) == "I couldn't find “dishwasher”."
    assert states(hass) == before


async def test_the_models_closing_question_follows(
    home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """A question claims nothing: it follows Home Assistant's words."""
    hass = home
    agent = await _agent(hass, fake_llm)
    fake_llm.script(
        [Reply.text("I switched it on for you. Shall I turn on the Hall light too?")]
    )

    result = await converse(hass, agent, "turn on the dishwasher")

    assert speech(result) == f"{NOWHERE}. Shall I turn on the Hall light too?"


@pytest.mark.parametrize(
    ("words", "answer"),
    [
        ("what is the capital of France", "Paris."),
        ("turn on the charm and tell me a joke", "Why did the lamp blush? It was lit."),
        ("turn off the lights when I leave", "I can't do that later, only now."),
        ("set brightness of the hall light to 150%", "Brightness goes up to 100%."),
    ],
)
async def test_words_that_are_not_such_a_command_stay_the_models(
    home: HomeAssistant, fake_llm: FakeLLM, *, words: str, answer: str
) -> None:
    """A question, words HA places nowhere, a value out of range: the model answers."""
    hass = home
    agent = await _agent(hass, fake_llm)
    before = states(hass)
    fake_llm.script([Reply.text(answer)])

    result = await converse(hass, agent, words)

    assert speech(result) == answer
    assert states(hass) == before


async def test_a_device_hidden_from_assist_is_never_named(
    home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """HA's "Dishwasher is not exposed" would tell it exists: the model's answer."""
    hass = home
    hass.states.async_set("switch.dishwasher", "off", {"friendly_name": "Dishwasher"})
    async_expose_entity(hass, conversation.DOMAIN, "switch.dishwasher", False)
    agent = await _agent(hass, fake_llm)
    fake_llm.script([Reply.text("I can't find a dishwasher.")])

    result = await converse(hass, agent, "turn on the dishwasher")

    assert speech(result) == "I can't find a dishwasher."
    assert state_of(hass, "switch.dishwasher") == "off"
