"""A held call that also does something safe: the question names all it will do.

"Open the garage and the shutter" as one call: the garage door is risky, the shutter
is not, and the call waits whole for the user's yes. The question used to name the
garage door alone, so a "no" left the shutter closed without a word, and a "yes"
opened what was never asked about. Now the question names both; a "no" leaves both,
as asked; restating only the safe part ("open the shutter") is no yes to the garage.
"""

import pytest

from homeassistant.core import HomeAssistant

from tests.fake_llm import FakeLLM, Reply
from tests.helpers import converse, speech, state_of
from tests.test_confirmation import GARAGE, SHUTTER, _agent, _tool, home

__all__ = ["home"]  # the fixture: a locked front door, a closed garage and shutter

BOTH = {"domain": "cover", "service": "open_cover"} | {
    "target": {"entity_id": [GARAGE, SHUTTER]}
}
QUESTIONS = {
    "en": "Shall I open Garage door and Kitchen shutter?",
    "de": "Soll ich Garage door und Kitchen shutter öffnen?",
    "fr": "Voulez-vous que j'ouvre Garage door et Kitchen shutter ?",
}


async def _asked(
    hass: HomeAssistant, server: FakeLLM, language: str = "en"
) -> tuple[str, str]:
    """The model opens both in one call; the question heard; agent, conversation."""
    agent = await _agent(hass, server)
    server.script([Reply.tool_calls([(await _tool(hass, "call_service"), BOTH)])])
    asked = await converse(
        hass, agent, "open the garage and the shutter", None, language
    )
    assert speech(asked) == QUESTIONS[language]
    assert asked.continue_conversation is True
    assert (state_of(hass, GARAGE), state_of(hass, SHUTTER)) == ("closed", "closed")
    assert asked.conversation_id is not None
    return agent, asked.conversation_id


@pytest.mark.parametrize(
    ("language", "answer", "heard", "opened"),
    [
        ("en", "no", "Okay, I won't.", False),
        ("en", "yes", "I opened Garage door and Kitchen shutter.", True),
        ("de", "nein", "In Ordnung, dann nicht.", False),
        ("de", "ja", "Ich habe Garage door und Kitchen shutter geöffnet.", True),
        ("fr", "non", "D'accord, je ne le fais pas.", False),
        ("fr", "oui", "J'ai ouvert Garage door et Kitchen shutter.", True),
    ],
)
async def test_the_question_names_both_and_the_answer_decides_both(
    home: HomeAssistant,
    fake_llm: FakeLLM,
    *,
    language: str,
    answer: str,
    heard: str,
    opened: bool,
) -> None:
    """No leaves both closed, yes opens both: each as the question said."""
    hass = home
    agent, conversation_id = await _asked(hass, fake_llm, language)

    result = await converse(hass, agent, answer, conversation_id, language)

    assert speech(result) == heard
    state = "open" if opened else "closed"
    assert (state_of(hass, GARAGE), state_of(hass, SHUTTER)) == (state, state)
    assert len(fake_llm.requests) == 1  # the answer was ours to judge, not the model's


@pytest.mark.parametrize(
    "answer", ["open the shutter", "yes, open the shutter", "the shutter", "shutter"]
)
async def test_restating_the_safe_part_is_no_yes_to_the_garage(
    home: HomeAssistant, fake_llm: FakeLLM, answer: str
) -> None:
    """Words about the shutter alone never open the garage door: a new request."""
    hass = home
    agent, conversation_id = await _asked(hass, fake_llm)
    fake_llm.script([Reply.text("Which one do you mean?")])

    result = await converse(hass, agent, answer, conversation_id)

    assert speech(result) == "Which one do you mean?"  # the model's: nothing ran
    assert (state_of(hass, GARAGE), state_of(hass, SHUTTER)) == ("closed", "closed")
    assert fake_llm.requests[-1]["messages"][-1]["content"] == answer


async def test_restating_what_was_asked_is_a_yes_to_all_of_it(
    home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """The risky verb and "it" ("open it"): what the question named; both open."""
    hass = home
    agent, conversation_id = await _asked(hass, fake_llm)

    result = await converse(hass, agent, "open it", conversation_id)

    assert speech(result) == "I opened Garage door and Kitchen shutter."
    assert (state_of(hass, GARAGE), state_of(hass, SHUTTER)) == ("open", "open")
