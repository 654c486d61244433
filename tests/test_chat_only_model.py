"""A model that cannot call tools, local first off: the one local stage acts and asks.

An agent saved before the local-first option existed, on a model the endpoint check
found ignoring tools: HA's recognition takes the commands, a risky one is asked
exactly as everywhere else and "yes" runs it, with no request to the model. "Never
mind" (any language HA knows it in) ends the turn as HA's own agent ends it: silently.
"""

from typing import Any

import pytest

from homeassistant.core import HomeAssistant

from custom_components.agentic_conversation.const import CONF_LOCAL_FIRST
from tests.acceptance.home import (  # the home fixture: the table's home
    states,
    table_home,  # noqa: F401
)
from tests.assist_pipeline import Door
from tests.fake_llm import FakeLLM, Reply
from tests.helpers import converse, said as _speech
from tests.test_confirmation import _agent as confirmation_agent

DOOR = "lock.front_door"
NEVER_MIND = [("en", "never mind"), ("de", "vergiss es"), ("fr", "oublie")]


async def _agent(hass: HomeAssistant, server: FakeLLM, **options: Any) -> str:
    """A chat-only model's agent, local first off (as saved before the option)."""
    server.probe_tool_reply = Reply.text("I cannot call tools.")
    agent = await confirmation_agent(
        hass, server, **{CONF_LOCAL_FIRST: False, **options}
    )
    await hass.async_block_till_done(wait_background_tasks=True)  # the probe
    return agent


async def test_a_risky_command_is_asked_and_yes_runs_it(
    home: HomeAssistant,
    fake_llm: FakeLLM,
    door: Door,
) -> None:
    """The question is heard, the door stays locked until "yes"; the model is never asked."""
    hass = home
    agent = await _agent(hass, fake_llm)
    ask = await door.open(hass, agent)
    before = states(hass)

    asked = await ask("unlock the front door", None)

    assert _speech(asked) == "Shall I unlock Front door?"
    assert asked["continue_conversation"] is True
    assert states(hass) == before

    unlocked = await ask("yes", asked["conversation_id"])

    assert _speech(unlocked) == "I unlocked Front door."
    assert unlocked["conversation_id"] == asked["conversation_id"]
    assert states(hass) == before | {DOOR: "unlocked"}

    done = await ask("turn on the kitchen lights", None)

    assert _speech(done) == "Turned on the lights"
    assert states(hass) == before | {
        DOOR: "unlocked",
        "light.kitchen_ceiling": "on",
        "light.kitchen_spots": "on",
    }
    assert fake_llm.requests == []
    if door.name == "pipeline":
        assert door.said == [
            "Shall I unlock Front door?",
            "I unlocked Front door.",
            "Turned on the lights",
        ]


async def test_no_is_no(home: HomeAssistant, fake_llm: FakeLLM) -> None:
    """A "no" to the question leaves the door locked, and the model unasked."""
    hass = home
    agent = await _agent(hass, fake_llm)

    asked = await converse(hass, agent, "unlock the front door")
    refused = await converse(hass, agent, "no", asked.conversation_id)

    assert refused.response.speech["plain"]["speech"] == "Okay, I won't."
    assert states(hass)[DOOR] == "locked"
    assert fake_llm.requests == []


async def test_a_language_without_answer_words_is_told_so(
    home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """Afrikaans "unlock": HA recognises it, we could not judge a "ja": nothing held."""
    hass = home
    agent = await _agent(hass, fake_llm)
    fake_llm.script([Reply.text("Wat?")])

    told = await converse(hass, agent, "sluit front door oop", language="af")
    yes = await converse(hass, agent, "ja", told.conversation_id, language="af")

    assert told.response.speech["plain"]["speech"] == (
        "I can't confirm that in your language yet, so I did nothing."
    )
    assert told.continue_conversation is False
    assert states(hass)[DOOR] == "locked"
    # Nothing was held: "ja" is no answer, only words for the model.
    assert yes.response.speech["plain"]["speech"] == "Wat?"
    assert [r["messages"][-1]["content"] for r in fake_llm.requests] == ["ja"]
    assert states(hass)[DOOR] == "locked"


@pytest.mark.parametrize(("language", "text"), NEVER_MIND)
@pytest.mark.parametrize("model", ["chat-only, local first off", "local first on"])
async def test_never_mind_ends_the_turn_quietly(
    home: HomeAssistant, fake_llm: FakeLLM, *, model: str, language: str, text: str
) -> None:
    """No words, as HA's own agent says none; a conversation id; no model request."""
    hass = home
    if model == "local first on":
        agent = await confirmation_agent(hass, fake_llm, **{CONF_LOCAL_FIRST: True})
    else:
        agent = await _agent(hass, fake_llm)
    before = states(hass)

    ours = await converse(hass, agent, text, language=language)
    theirs = await converse(
        hass, "conversation.home_assistant", text, language=language
    )

    # HA's agent sets no speech at all; ours is the empty speech of a chat log's reply.
    assert ours.response.speech["plain"]["speech"] == ""
    assert theirs.response.speech.get("plain", {}).get("speech", "") == ""
    assert ours.response.response_type is theirs.response.response_type
    assert ours.conversation_id
    assert ours.continue_conversation is False
    assert fake_llm.requests == []
    assert states(hass) == before
