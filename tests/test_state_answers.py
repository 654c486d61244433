"""A state question is answered from the house, never from a guess.

Local first leaves a state question ("is the desk lamp on?") to a model that can act,
as HA's own pipeline does. A model that answers it without reading anything (no tool
call: the prompt holds no states) guessed; the user hears Home Assistant's answer,
read from the house, and the guess is never spoken. The same for a question about the
house HA found nothing for ("the temperature in the garage": no thermostat there): the
model may look further; if it reads nothing, HA's "not aware of any" is heard. A model
that reads the house is heard as it answers.
"""

from typing import Any

import pytest
from pytest_homeassistant_custom_component.typing import (
    ClientSessionGenerator,
    WebSocketGenerator,
)

from homeassistant.components import conversation
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import HomeAssistant
from homeassistant.helpers import area_registry as ar, entity_registry as er
from homeassistant.setup import async_setup_component

from custom_components.agentic_conversation.const import (
    CONF_BUDGET,
    CONF_LOCAL_FIRST,
    CONF_PRICE_INPUT,
    CONF_PRICE_OUTPUT,
)
from tests.acceptance.home import (  # the home fixture: the table's home
    states,
    table_home,  # noqa: F401
)
from tests.across_releases import offered_name
from tests.assist_pipeline import Door, RecordingTTS, run_pipeline, use_pipeline
from tests.fake_llm import FakeLLM, Reply
from tests.helpers import converse, said, speech, state_of
from tests.test_confirmation import NEW_AGENT_APIS, _agent as confirmation_agent

LAMP = "light.desk_lamp"


async def _agent(hass: HomeAssistant, server: FakeLLM, **options: Any) -> str:
    return await confirmation_agent(hass, server, **{CONF_LOCAL_FIRST: True, **options})


async def test_a_guess_is_not_said_home_assistant_reads_the_house(
    home: HomeAssistant,
    fake_llm: FakeLLM,
    door: Door,
) -> None:
    """The lamp is off, the model says "on" without looking: "No, off" is heard."""
    hass = home
    agent = await _agent(hass, fake_llm)
    ask = await door.open(hass, agent)
    before = states(hass)
    assert before[LAMP] == "off"
    fake_llm.script([Reply.text("The desk lamp is on.")])

    answer = await ask("is the desk lamp on", None)

    assert said(answer) == "No, off"
    assert states(hass) == before
    (request,) = fake_llm.requests  # the model was asked, as HA's pipeline leaves it
    assert request["messages"][-1]["content"] == "is the desk lamp on"
    if door.name == "pipeline":
        assert door.said == ["No, off"]  # the guess never reached the speaker


async def test_a_model_that_reads_the_house_is_heard(
    home: HomeAssistant,
    fake_llm: FakeLLM,
    door: Door,
) -> None:
    """Its words before the reading stream; its answer after it is its own."""
    hass = home
    agent = await _agent(hass, fake_llm)
    ask = await door.open(hass, agent)
    live = await offered_name(hass, NEW_AGENT_APIS, "GetLiveContext")
    fake_llm.script(
        [
            Reply.tool_calls([(live, {})], text="Let me look. "),
            Reply.text("The desk lamp is off; the other lights are on."),
        ]
    )

    answer = await ask("is the desk lamp on", None)

    assert said(answer) == "The desk lamp is off; the other lights are on."
    second = fake_llm.requests[1]["messages"]
    assert [m["role"] for m in second] == ["system", "user", "assistant", "tool"]
    assert second[2]["tool_calls"][0]["function"]["name"] == live
    if door.name == "pipeline":
        assert door.said == [
            "Let me look. The desk lamp is off; the other lights are on."
        ]


@pytest.mark.parametrize(
    ("language", "question", "guess", "heard_off", "heard_on"),
    [
        ("en", "is the desk lamp on", "Yes, it is.", "No, off", "Yes"),
        ("de", "ist die Desk lamp eingeschaltet", "Ja.", "Nein, aus", "Ja"),
        ("fr", "est-ce que Desk lamp est allumée", "Non.", "Non", "Oui"),
    ],
)
async def test_in_the_users_language_whatever_the_guess(
    home: HomeAssistant,
    fake_llm: FakeLLM,
    recorder: RecordingTTS,
    hass_ws_client: WebSocketGenerator,
    hass_client: ClientSessionGenerator,
    *,
    language: str,
    question: str,
    guess: str,
    heard_off: str,
    heard_on: str,
) -> None:
    """The same guess, the lamp off then on: the house decides what is heard."""
    hass = home
    agent = await _agent(hass, fake_llm)
    fake_llm.script([Reply.text(guess), Reply.text(guess)])

    off = await converse(hass, agent, question, language=language)
    await hass.services.async_call(
        "light", "turn_on", {"entity_id": LAMP}, blocking=True
    )
    assert await async_setup_component(hass, "assist_pipeline", {})
    ws = await hass_ws_client(hass)
    await use_pipeline(ws, agent, language)
    on, _ = await run_pipeline(hass, ws, await hass_client(), question, language)

    assert speech(off) == heard_off
    assert on["response"]["speech"]["plain"]["speech"] == heard_on
    assert recorder.said == [heard_on]
    assert len(fake_llm.requests) == 2


async def test_a_spent_budget_still_answers_a_state_question(
    home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """No model to ask: Home Assistant's answer, not the budget sentence."""
    hass = home
    agent = await _agent(
        hass,
        fake_llm,
        **{CONF_PRICE_INPUT: 10, CONF_PRICE_OUTPUT: 30, CONF_BUDGET: 1.0},
    )
    fake_llm.script([Reply.text("Ha.").with_usage(97_000, 1_000)])
    await converse(hass, agent, "tell me a joke")  # spends all of it

    result = await converse(hass, agent, "is the desk lamp on")

    assert speech(result) == "No, off"
    assert len(fake_llm.requests) == 1


@pytest.mark.parametrize(
    ("language", "question", "heard"),
    [
        (
            "en",
            "what is the temperature in the garage",
            "Sorry, I am not aware of any climate in the Garage area",
        ),
        (
            "de",
            "wie warm ist es in der Garage",
            "Im Bereich Garage wurde kein Thermostat gefunden",
        ),
        (
            "fr",
            "quelle est la température dans le garage",
            "Désolé, je n'ai pas trouvé de thermostats dans cette pièce",
        ),
    ],
)
async def test_a_question_home_assistant_found_nothing_for_is_not_guessed(
    home: HomeAssistant,
    fake_llm: FakeLLM,
    *,
    language: str,
    question: str,
    heard: str,
) -> None:
    """No thermostat in the garage: the model may look; a number it makes up is not said.

    Home Assistant found nothing for it, so the model is asked (it may find a sensor
    under another name); one that answers without reading anything guessed.
    """
    hass = home
    agent = await _agent(hass, fake_llm)
    live = await offered_name(hass, NEW_AGENT_APIS, "GetLiveContext")
    fake_llm.script(
        [
            Reply.text("It is 21 °C in the garage."),
            Reply.tool_calls([(live, {})]),
            Reply.text("There is no temperature sensor in the garage."),
        ]
    )

    guessed = await converse(hass, agent, question, language=language)
    looked = await converse(hass, agent, question, language=language)

    assert speech(guessed) == heard
    assert speech(looked) == "There is no temperature sensor in the garage."
    assert len(fake_llm.requests) == 3


async def test_the_models_closing_question_follows_home_assistants_words(
    home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """A guess is not said; a question to the user claims nothing, and is."""
    hass = home
    agent = await _agent(hass, fake_llm)
    fake_llm.script([Reply.text("It is 21 °C in the garage. Shall I heat it?")])

    result = await converse(hass, agent, "what is the temperature in the garage")

    assert speech(result) == (
        "Sorry, I am not aware of any climate in the Garage area. Shall I heat it?"
    )


@pytest.mark.parametrize(
    "question",
    ["what is the temperature in the garage", "what is the temperature of the heater"],
)
async def test_home_assistants_words_never_tell_of_what_is_hidden(
    home: HomeAssistant, fake_llm: FakeLLM, *, question: str
) -> None:
    """A thermostat not exposed to Assist: HA's "Heater is not exposed" is not said.

    Nor its "no climate in the Garage area is exposed" (one is, hidden): the model's
    answer stands, as for a command placed nowhere.
    """
    hass = home
    registry = er.async_get(hass)
    heater = registry.async_get_or_create(
        "climate", "test", "heater", suggested_object_id="heater"
    )
    garage = ar.async_get(hass).async_get_or_create("Garage")
    registry.async_update_entity(heater.entity_id, area_id=garage.id)
    hass.states.async_set(
        heater.entity_id, "heat", {"friendly_name": "Heater", "current_temperature": 12}
    )
    async_expose_entity(hass, conversation.DOMAIN, heater.entity_id, False)
    agent = await _agent(hass, fake_llm)
    fake_llm.script([Reply.text("I can't see a thermostat there.")])

    result = await converse(hass, agent, question)

    assert speech(result) == "I can't see a thermostat there."
    assert state_of(hass, heater.entity_id) == "heat"
