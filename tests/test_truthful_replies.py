"""What the agent says is true and in the user's language.

Only calls that changed something count as done; the loop's own words (a filtered or a
cut-off answer) are translated like every other reply.
"""

from typing import Any

import pytest

from homeassistant.components import conversation
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import HomeAssistant
from homeassistant.helpers import llm
from homeassistant.setup import async_setup_component

from custom_components.agentic_conversation.const import LLM_API_ID
from tests.across_releases import offered_name
from tests.fake_llm import FakeLLM, Reply
from tests.helpers import add_agent, say as _speech


@pytest.fixture
async def porch(ha_core: HomeAssistant) -> str:
    """An exposed input_boolean the intents and our tools can read and switch."""
    hass = ha_core
    assert await async_setup_component(
        hass, "input_boolean", {"input_boolean": {"porch": {"name": "Porch light"}}}
    )
    assert await async_setup_component(hass, "intent", {})
    await hass.async_block_till_done()
    async_expose_entity(hass, conversation.DOMAIN, "input_boolean.porch", True)
    return "input_boolean.porch"


async def _agent(hass: HomeAssistant, server: FakeLLM) -> str:
    return await add_agent(hass, server, apis=[llm.LLM_API_ASSIST, LLM_API_ID])


async def _tool(hass: HomeAssistant, name: str) -> str:
    return await offered_name(hass, [llm.LLM_API_ASSIST, LLM_API_ID], name)


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("get_entity_state", {"entity_ids": ["input_boolean.porch"]}),
        ("search_entities", {"query": "porch"}),
        ("GetLiveContext", {}),
    ],
)
@pytest.mark.usefixtures("porch")
async def test_reading_is_never_told_as_done(
    ha_core: HomeAssistant, fake_llm: FakeLLM, tool: str, arguments: dict[str, Any]
) -> None:
    """A read, then the server fails: the reply does not claim anything was done."""
    hass = ha_core
    agent = await _agent(hass, fake_llm)
    fake_llm.script(
        [Reply.tool_calls([(await _tool(hass, tool), arguments)]), Reply.error(500)]
    )

    speech = await _speech(hass, agent, "is the porch light on?")

    assert speech == "The AI service had a problem answering. Please try again later."


@pytest.mark.usefixtures("porch")
async def test_a_change_is_still_told(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """A switch, then the server fails: the reply says what was switched."""
    hass = ha_core
    agent = await _agent(hass, fake_llm)
    fake_llm.script(
        [
            Reply.tool_calls(
                [(await _tool(hass, "HassTurnOn"), {"name": "Porch light"})]
            ),
            Reply.error(500),
        ]
    )

    speech = await _speech(hass, agent, "porch light on")

    assert hass.states.get("input_boolean.porch").state == "on"  # type: ignore[union-attr]
    assert speech == (
        "I turned on Porch light. But the AI service had a problem answering. "
        "Please try again later."
    )


@pytest.mark.parametrize(
    ("reply", "language", "expected"),
    [
        (
            Reply.text("", finish_reason="content_filter"),
            "de",
            "Dabei kann ich nicht helfen.",
        ),
        (
            Reply.text("", finish_reason="content_filter"),
            "en",
            "I can't help with that request.",
        ),
        (
            Reply.text("", finish_reason="length"),
            "nl",
            "Sorry, mijn antwoord werd afgebroken.",
        ),
    ],
)
async def test_the_loops_own_words_are_translated(
    ha_core: HomeAssistant,
    fake_llm: FakeLLM,
    reply: Reply,
    language: str,
    expected: str,
) -> None:
    """A filtered or cut-off answer is said in the user's language."""
    agent = await _agent(ha_core, fake_llm)
    fake_llm.script([reply])

    assert await _speech(ha_core, agent, "…", language) == expected
