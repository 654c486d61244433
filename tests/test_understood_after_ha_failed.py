"""HA's recognizer tries and fails, our reading places it: only ours is the turn.

"Open the door in the garage": HA reads a door in the Garage area, runs its intent,
and finds none (the garage door's class is "garage"); our reading finds the garage
door and asks first. HA's failed attempt is not something the turn did: the user
hears only the question (not "Sorry, … no door in the Garage area. Shall I …?"),
the result is not an error (the dashboard shows errors as errors), and the model's
history holds only what ran.
"""

import json

import pytest

from homeassistant.components import conversation
from homeassistant.core import HomeAssistant
from homeassistant.helpers import intent, llm

from custom_components.agentic_conversation.basic_assistant import _drop_failed
from tests.acceptance.home import (  # the home fixture: the table's home
    states,
    table_home,  # noqa: F401
)
from tests.assist_pipeline import Door
from tests.fake_llm import FakeLLM, Reply
from tests.helpers import converse, speech
from tests.test_state_answers import _agent

GARAGE = "cover.garage_door"
JOKE = "Why did the door blush? It saw the garage open."


async def test_only_the_question_is_heard_and_yes_opens(
    home: HomeAssistant, fake_llm: FakeLLM, door: Door
) -> None:
    """Through every door: the question alone, no error, and "yes" opens the garage."""
    hass = home
    agent = await _agent(hass, fake_llm)
    ask = await door.open(hass, agent)
    before = states(hass)

    asked = await ask("open the door in the garage", None)

    assert asked["response"]["speech"]["plain"]["speech"] == "Shall I open Garage door?"
    assert asked["response"]["response_type"] == "action_done"
    assert states(hass) == before

    opened = await ask("yes", asked["conversation_id"])

    assert opened["response"]["speech"]["plain"]["speech"] == "I opened Garage door."
    assert states(hass) == before | {GARAGE: "open"}
    assert fake_llm.requests == []
    if door.name == "pipeline":
        assert door.said == ["Shall I open Garage door?", "I opened Garage door."]


@pytest.mark.parametrize(
    ("language", "command", "question", "yes", "done"),
    [
        (
            "fr",
            "ouvre la porte du garage",
            "Voulez-vous que j'ouvre Garage door ?",
            "oui",
            "J'ai ouvert Garage door.",
        ),
        (
            "it",
            "apri la porta del garage",
            "Vuoi che apra Garage door?",
            "sì",
            "Ho aperto Garage door.",
        ),
    ],
)
async def test_in_other_languages(
    home: HomeAssistant,
    fake_llm: FakeLLM,
    *,
    language: str,
    command: str,
    question: str,
    yes: str,
    done: str,
) -> None:
    """HA's "no door in this room" is not said before the question, in any language."""
    hass = home
    agent = await _agent(hass, fake_llm)
    before = states(hass)

    asked = await converse(hass, agent, command, language=language)

    assert speech(asked) == question
    assert asked.response.response_type is intent.IntentResponseType.ACTION_DONE
    assert states(hass) == before

    opened = await converse(hass, agent, yes, asked.conversation_id, language)

    assert speech(opened) == done
    assert states(hass) == before | {GARAGE: "open"}
    assert fake_llm.requests == []


async def test_the_model_is_told_only_what_ran(
    home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """Closing needs no yes; the next turn's history has that call alone, not HA's."""
    hass = home
    agent = await _agent(hass, fake_llm)
    await hass.services.async_call(
        "input_boolean", "turn_on", {"entity_id": "input_boolean.garage"}, blocking=True
    )
    await hass.async_block_till_done()
    before = states(hass)
    assert before[GARAGE] == "open"
    fake_llm.script([Reply.text(JOKE)])

    closed = await converse(hass, agent, "close the door in the garage")

    assert speech(closed) == "Closing"  # HA's own words for a cover
    assert states(hass) == before | {GARAGE: "closed"}
    assert fake_llm.requests == []

    joke = await converse(hass, agent, "tell me a joke", closed.conversation_id)

    assert speech(joke) == JOKE
    (request,) = fake_llm.requests
    history = [
        (m["role"], [c["function"]["arguments"] for c in m.get("tool_calls", [])])
        for m in request["messages"][1:]
    ]
    assert [role for role, _ in history] == [
        "user",
        "assistant",
        "tool",
        "assistant",
        "user",
    ]
    (call,) = history[1][1]
    assert json.loads(call) == {"name": "Garage door", "domain": ["cover"]}
    result = json.loads(request["messages"][3]["content"])
    assert result["response_type"] == "action_done"
    assert result["data"]["success"] == [
        {"name": "Garage door", "type": "entity", "id": GARAGE}
    ]


async def test_only_the_failed_attempts_leave_the_log(home: HomeAssistant) -> None:
    """A done intent before the failed one stays: it is what the house did."""
    hass = home
    log = conversation.ChatLog(hass, "c1")
    start = len(log.content)
    for call_id, response_type in (("done", "action_done"), ("failed", "error")):
        log.async_add_assistant_content_without_tools(
            conversation.AssistantContent(
                "agent",
                None,
                tool_calls=[llm.ToolInput("HassTurnOn", {}, id=call_id, external=True)],
            )
        )
        log.async_add_assistant_content_without_tools(
            conversation.ToolResultContent(
                "agent",
                call_id,
                "HassTurnOn",
                llm.ToolResult(data={"response_type": response_type}),
            )
        )

    _drop_failed(log, start, len(log.content))

    kept = [
        c.tool_call_id
        if isinstance(c, conversation.ToolResultContent)
        else [call.id for call in c.tool_calls or ()]
        for c in log.content[start:]
        if isinstance(c, conversation.ToolResultContent | conversation.AssistantContent)
    ]
    assert kept == [["done"], "done"]
