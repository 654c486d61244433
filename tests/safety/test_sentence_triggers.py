"""An automation's own sentence ("open sesame") is judged by what the automation does.

With local first on, Home Assistant's agent runs sentence triggers outside any
intent: the sentence is mapped back to its automation, and one that unlocks the front
door is asked about (a "yes" runs it, with the sentence's variables), while one that
turns on a light runs at once. A sentence trigger that belongs to no automation we can
read is never run unasked in a home with a lock.
"""

from typing import Any

import pytest

from homeassistant.components.conversation import ConversationInput
from homeassistant.components.conversation.agent_manager import get_agent_manager
from homeassistant.core import HomeAssistant
from homeassistant.setup import async_setup_component

from custom_components.agentic_conversation.const import (
    CONF_LOCAL_FALLBACK,
    CONF_LOCAL_FIRST,
)
from custom_components.agentic_conversation.sentence_triggers import TRIGGER_TOOL
from tests.fake_llm import FakeLLM, Reply
from tests.helpers import converse, speech, state_of
from tests.test_confirmation import LIGHT, LOCK, _agent, home

__all__ = ["home"]

QUESTION = "Shall I run Open sesame? It unlocks Front door."
AUTOMATIONS = [
    {
        "id": "open_sesame",
        "alias": "Open sesame",
        "triggers": [{"trigger": "conversation", "command": ["open sesame"]}],
        "actions": [
            {"action": "lock.unlock", "target": {"entity_id": LOCK}},
            {"set_conversation_response": "Come in, {{ trigger.sentence }}."},
        ],
    },
    {
        "id": "porch_glow",
        "alias": "Porch glow",
        "triggers": [{"trigger": "conversation", "command": "let the porch glow"}],
        "actions": [{"action": "light.turn_on", "target": {"entity_id": LIGHT}}],
    },
    {
        # What it does depends on the word said: only the door is asked about.
        "id": "let_in",
        "alias": "Let in",
        "triggers": [{"trigger": "conversation", "command": "let in the {what}"}],
        "actions": [
            {
                "action": "{{ 'lock.unlock' if trigger.slots.what == 'guests' "
                "else 'light.turn_on' }}",
                "target": {
                    "entity_id": "{{ 'lock.front_door' if trigger.slots.what == "
                    "'guests' else 'light.porch_light' }}"
                },
            }
        ],
    },
]


@pytest.fixture
async def trigger_home(home: HomeAssistant) -> HomeAssistant:
    """The front-door home with the user's sentence-triggered automations."""
    assert await async_setup_component(home, "automation", {"automation": AUTOMATIONS})
    await home.async_block_till_done()
    return home


async def test_the_automations_unlocking_sentence_is_asked(
    trigger_home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """Asked, no model call; "no thanks" keeps the door locked; "yes" unlocks it."""
    hass = trigger_home
    agent = await _agent(hass, fake_llm, **{CONF_LOCAL_FIRST: True})

    asked = await converse(hass, agent, "open sesame")
    conversation_id = asked.conversation_id

    assert speech(asked) == QUESTION
    assert asked.continue_conversation is True
    assert state_of(hass, LOCK) == "locked"

    declined = await converse(hass, agent, "no thanks", conversation_id)

    assert speech(declined) == "Okay, I won't."
    assert state_of(hass, LOCK) == "locked"

    assert speech(await converse(hass, agent, "open sesame", conversation_id)) == (
        QUESTION
    )
    done = await converse(hass, agent, "yes", conversation_id)

    assert speech(done) == "I ran Open sesame."
    assert state_of(hass, LOCK) == "unlocked"
    assert fake_llm.requests == []


async def test_the_model_cannot_run_a_sentence_trigger(
    trigger_home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """The tool that runs a confirmed sentence is offered only to the user's yes."""
    hass = trigger_home
    agent = await _agent(hass, fake_llm, **{CONF_LOCAL_FIRST: True})
    fake_llm.script(
        [
            Reply.tool_calls([(TRIGGER_TOOL, {"sentence": "open sesame"})]),
            Reply.text("I opened it."),
            Reply.text("Sorry, I could not."),
        ]
    )

    await converse(hass, agent, "say open sesame for me")

    assert state_of(hass, LOCK) == "locked"
    assert TRIGGER_TOOL not in [
        tool["function"]["name"] for tool in fake_llm.requests[0]["tools"]
    ]


async def test_a_sentence_that_lights_runs_at_once(
    trigger_home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """Its automation only turns on a light: done at once, in HA's words."""
    hass = trigger_home
    agent = await _agent(hass, fake_llm, **{CONF_LOCAL_FIRST: True})

    assert speech(await converse(hass, agent, "let the porch glow")) == "Done"
    assert state_of(hass, LIGHT) == "on"
    assert state_of(hass, LOCK) == "locked"
    assert fake_llm.requests == []


async def test_the_sentences_words_decide(
    trigger_home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """The same sentence trigger: "guests" unlocks (asked), "light" just lights."""
    hass = trigger_home
    agent = await _agent(hass, fake_llm, **{CONF_LOCAL_FIRST: True})

    assert speech(await converse(hass, agent, "let in the light")) == "Done"
    assert state_of(hass, LIGHT) == "on"

    asked = await converse(hass, agent, "let in the guests")

    assert speech(asked) == QUESTION.replace("Open sesame", "Let in")
    assert state_of(hass, LOCK) == "locked"
    done = await converse(hass, agent, "yes", asked.conversation_id)

    assert speech(done) == "I ran Let in."
    assert state_of(hass, LOCK) == "unlocked"
    assert fake_llm.requests == []


async def test_an_unmapped_sentence_trigger_is_never_run_unasked(
    home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """Another integration's sentence trigger: its code is unread, the home has a lock."""
    hass = home
    ran: list[str] = []

    async def unlock(user_input: ConversationInput, _result: Any) -> str | None:
        ran.append(user_input.text)
        await hass.services.async_call(
            "lock", "unlock", {"entity_id": LOCK}, blocking=True
        )
        return "Opened."

    get_agent_manager(hass).register_trigger(["abracadabra"], unlock)
    agent = await _agent(hass, fake_llm, **{CONF_LOCAL_FIRST: True})

    asked = await converse(hass, agent, "abracadabra")

    assert speech(asked) == "Shall I change Garage door and Front door?"
    assert ran == []
    assert state_of(hass, LOCK) == "locked"

    done = await converse(hass, agent, "yes", asked.conversation_id)

    assert ran == ["abracadabra"]
    assert state_of(hass, LOCK) == "unlocked"
    assert speech(done) == "I took care of Garage door and Front door."


async def test_no_model_answers_the_automations_sentence(
    trigger_home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """The LLM-down route: the unlocking sentence is refused, the lighting one runs."""
    hass = trigger_home
    agent = await _agent(hass, fake_llm, **{CONF_LOCAL_FALLBACK: True})
    fake_llm.script([Reply.error(500), Reply.error(500)])

    refused = await converse(hass, agent, "open sesame")

    assert state_of(hass, LOCK) == "locked"
    assert speech(refused) == (
        "The AI service isn't available, so I used the basic assistant: That needs "
        "the AI service, which isn't available right now, so I didn't do it."
    )
    fake_llm.script([Reply.error(500), Reply.error(500)])
    assert speech(await converse(hass, agent, "let the porch glow")) == (
        "The AI service isn't available, so I used the basic assistant: Done"
    )
    assert state_of(hass, LIGHT) == "on"
