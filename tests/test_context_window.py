"""The whole request fits the agent's context window, on every LLM call of a turn."""

from collections.abc import Iterator
import json
from typing import Any

import probatio
import pytest

from homeassistant.const import CONF_LLM_HASS_API
from homeassistant.core import HomeAssistant
from homeassistant.helpers import intent, llm
from homeassistant.util.json import JsonObjectType

from custom_components.agentic_conversation.const import (
    CONF_CONTEXT_WINDOW,
    CONF_HISTORY_TOKENS,
    CONF_MAX_TOKENS,
)
from tests.fake_llm import FakeLLM, Reply
from tests.helpers import converse as _ask, speech as _speech
from tests.server_replies import LLAMA_CPP_PROPS
from tests.test_conversation import _agent

MARKER = "…[shortened to fit the context"


class BulkyAPI(llm.API):
    """An HA LLM API with one tool whose result is long."""

    def __init__(self, hass: HomeAssistant) -> None:
        """Register as "bulky"."""
        super().__init__(hass=hass, id="bulky", name="Bulky tools")

    async def async_get_api_instance(
        self, llm_context: llm.LLMContext
    ) -> llm.APIInstance:
        """The instance with the tool."""
        return llm.APIInstance(
            api=self,
            api_prompt="Use the tools.",
            llm_context=llm_context,
            tools=[_ReadLogTool()],
        )


class _ReadLogTool(llm.Tool):
    name = "read_log"
    description = "Reads the house log."
    parameters = probatio.Schema({}, extra=probatio.ALLOW_EXTRA)

    async def async_call(
        self,
        hass: HomeAssistant,
        tool_input: llm.ToolInput,
        llm_context: llm.LLMContext,
    ) -> JsonObjectType:
        return {"log": "The porch light was switched. " * 1000}


@pytest.fixture
def bulky(ha_core: HomeAssistant) -> Iterator[HomeAssistant]:
    """A hass with the bulky API registered."""
    unregister = llm.async_register_api(ha_core, BulkyAPI(ha_core))
    yield ha_core
    unregister()


def _sent_size(request: dict[str, Any]) -> int:
    """Characters of the messages and tools a request carried."""
    size = len(json.dumps(request["messages"], ensure_ascii=False))
    return size + len(json.dumps(request.get("tools", []), ensure_ascii=False))


def _check_calls_answered(messages: list[dict[str, Any]]) -> None:
    """Each assistant tool call is followed by its results, nothing orphaned."""
    waiting: list[str] = []
    for message in messages:
        if message["role"] == "tool":
            assert waiting.pop(0) == message["tool_call_id"]
            continue
        assert not waiting, messages
        waiting = [call["id"] for call in message.get("tool_calls") or ()]
    assert not waiting


async def test_a_long_tool_result_and_a_50_turn_history_fit_a_small_window(
    bulky: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """Oldest history goes, long results shrink, the latest exchange stays whole."""
    hass = bulky
    agent = await _agent(
        hass,
        fake_llm,
        **{
            CONF_LLM_HASS_API: ["bulky"],
            CONF_CONTEXT_WINDOW: 2048,
            CONF_MAX_TOKENS: 256,
            CONF_HISTORY_TOKENS: 1_000_000,  # only the window limits history here
        },
    )
    conversation_id = None
    for turn in range(50):
        if turn % 5 == 0:
            fake_llm.script([Reply.tool_calls([("read_log", {})])])
        fake_llm.script([Reply.text(f"Answer {turn}: the porch light is on.")])
        result = await _ask(hass, agent, f"request {turn}", conversation_id)
        conversation_id = result.conversation_id
    asked = len(fake_llm.requests)
    fake_llm.script(
        [Reply.tool_calls([("read_log", {"since": "today"})]), Reply.text("Off.")]
    )

    result = await _ask(hass, agent, "turn it off", conversation_id)

    assert _speech(result) == "Off."
    budget = (2048 - 256) * 4
    assert all(_sent_size(request) <= budget for request in fake_llm.requests)
    first, second = fake_llm.requests[asked:]
    for request in (first, second):
        messages = request["messages"]
        _check_calls_answered(messages)
        assert messages[0]["role"] == "system"
        users = [m["content"] for m in messages if m["role"] == "user"]
        assert "request 0" not in users  # the oldest went first
        assert users[-2:] == ["request 49", "turn it off"]  # "it" still means it
    # The latest exchange: the user message, the call and its (shortened) result.
    assert second["messages"][-3]["content"] == "turn it off"
    call = second["messages"][-2]["tool_calls"][0]
    assert call["function"]["name"] == "read_log"
    result_message = second["messages"][-1]
    assert result_message["tool_call_id"] == call["id"]
    assert result_message["content"].startswith('{"success": true')
    assert MARKER in result_message["content"]
    assert _sent_size(second) > budget * 0.9  # the room is used, not wasted


@pytest.mark.parametrize(
    ("language", "spoken"),
    [
        (
            "en",
            (
                "My context window is too small for my tools. Please give me a bigger"
                " context window or fewer tools."
            ),
        ),
        (
            "de",
            (
                "Mein Kontextfenster ist zu klein für meine Werkzeuge. Bitte gib mir"
                " ein größeres Kontextfenster oder weniger Werkzeuge."
            ),
        ),
    ],
)
async def test_a_context_too_small_for_the_tools_is_spoken(
    ha_core: HomeAssistant, fake_llm: FakeLLM, language: str, spoken: str
) -> None:
    """Not even the prompt and tools fit: no LLM call, a short reply."""
    agent = await _agent(
        ha_core,
        fake_llm,
        **{
            CONF_LLM_HASS_API: [llm.LLM_API_ASSIST],
            CONF_CONTEXT_WINDOW: 600,
            CONF_MAX_TOKENS: 256,
        },
    )

    result = await _ask(ha_core, agent, "turn on the porch light", language=language)

    assert _speech(result) == spoken
    assert result.response.error_code is intent.IntentResponseErrorCode.UNKNOWN
    assert fake_llm.requests == []


async def test_requests_fit_the_context_the_server_tells(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """llama-server runs the model with 4096 tokens: requests fit that, not 16384."""
    fake_llm.props_body = LLAMA_CPP_PROPS
    agent = await _agent(
        ha_core,
        fake_llm,
        **{CONF_CONTEXT_WINDOW: 16384, CONF_HISTORY_TOKENS: 1_000_000},
    )
    await ha_core.async_block_till_done(wait_background_tasks=True)
    conversation_id = None
    for turn in range(12):
        fake_llm.script([Reply.text(f"Answer {turn}.")])
        result = await _ask(
            ha_core,
            agent,
            f"request {turn}: " + "tell me more. " * 150,
            conversation_id,
        )
        conversation_id = result.conversation_id

    assert _speech(result) == "Answer 11."
    budget = (4096 - 1024) * 4
    sizes = [_sent_size(request) for request in fake_llm.requests]
    assert max(sizes) <= budget
    assert sizes[-1] > budget * 0.6  # trimmed to the server's room, not emptied
    users = [
        m["content"] for m in fake_llm.requests[-1]["messages"] if m["role"] == "user"
    ]
    assert users[-1].startswith("request 11: ")
    assert not any(u.startswith("request 0: ") for u in users)
