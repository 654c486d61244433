"""The loop with an in-process provider, for edges a real server cannot produce."""

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from custom_components.agentic_conversation.agent import (
    AgenticLoop,
    DeltaCallback,
    LLMProvider,
    LLMResponse,
    LLMTimeoutError,
    LoopLimits,
    Message,
    StopReason,
    ToolCall,
    ToolCallCallback,
    ToolSpec,
)

from .common import Dispatcher, assert_consistent, envelope


class ScriptedProvider:
    """Returns scripted responses, or raises scripted exceptions, in order."""

    def __init__(self, *steps: LLMResponse | BaseException) -> None:
        """Initialise with the steps."""
        self.steps = list(steps)
        self.timeouts: list[float | None] = []

    async def complete(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec],
        *,
        tool_choice: str | None = None,
        on_delta: DeltaCallback | None = None,
        on_tool_call: ToolCallCallback | None = None,
        timeout: float | None = None,  # noqa: ASYNC109
        response_format: Mapping[str, Any] | None = None,
    ) -> LLMResponse:
        """The next step."""
        self.timeouts.append(timeout)
        step = self.steps.pop(0)
        if isinstance(step, BaseException):
            raise step
        return step


def _calls(*names: str) -> LLMResponse:
    return LLMResponse(
        "", [ToolCall(f"c{i}", name, {}) for i, name in enumerate(names)], "tool_calls"
    )


def test_scripted_provider_is_a_provider() -> None:
    """The protocol is satisfied structurally."""
    provider: LLMProvider = ScriptedProvider()
    assert provider is not None


async def test_provider_timeout_at_deadline_is_deadline() -> None:
    """An LLMTimeoutError when the turn's time is up counts as the deadline."""
    timeout = LLMTimeoutError("read timeout")
    provider = ScriptedProvider(timeout)
    loop = AgenticLoop(provider, Dispatcher(), LoopLimits(turn_timeout=0.01))

    result = await loop.run("hi", [], [])

    assert result.stop_reason is StopReason.DEADLINE
    assert result.error is timeout
    assert provider.timeouts[0] is not None
    assert 0 <= provider.timeouts[0] <= 0.01


async def test_stray_timeout_error_propagates() -> None:
    """A builtin TimeoutError that is not the turn's deadline is a bug: raised."""
    loop = AgenticLoop(ScriptedProvider(TimeoutError()), Dispatcher())

    with pytest.raises(TimeoutError):
        await loop.run("hi", [], [])


async def test_tool_cancelling_itself() -> None:
    """A tool whose task ends cancelled from inside gets a "cancelled" envelope."""

    async def quits() -> None:
        raise asyncio.CancelledError

    provider = ScriptedProvider(_calls("quits"), LLMResponse("ok", [], "stop"))
    tools = Dispatcher(quits=quits)

    result = await AgenticLoop(provider, tools).run("go", [], tools.specs)

    assert result.stop_reason is StopReason.FINAL
    assert envelope(result.messages[2]) == {"success": False, "error": "cancelled"}
    assert_consistent(result.messages)


async def test_length_without_tool_calls() -> None:
    """finish_reason "length" with text only: the partial text."""
    provider = ScriptedProvider(LLMResponse("Partial", [], "length"))

    result = await AgenticLoop(provider, Dispatcher()).run("go", [], [])

    assert result.text == "Partial"
    assert result.finish_reason == "length"


async def test_final_answer_content_filter() -> None:
    """At the cap, a filtered final answer is the refusal, not a summary."""
    provider = ScriptedProvider(_calls("noop"), LLMResponse("", [], "content_filter"))

    async def noop() -> None:
        return None

    tools = Dispatcher(noop=noop)
    loop = AgenticLoop(provider, tools, LoopLimits(max_iterations=1))

    result = await loop.run("go", [], tools.specs)

    assert result.stop_reason is StopReason.REFUSED
    assert result.text == "I can't help with that request."


async def test_tools_not_offered_still_answered() -> None:
    """Tool calls when no tools were offered: each gets an unknown-tool envelope."""
    provider = ScriptedProvider(_calls("ghost"), LLMResponse("ok", [], "stop"))

    result = await AgenticLoop(provider, Dispatcher()).run("go", [], [])

    assert envelope(result.messages[2])["valid_tools"] == []
    assert result.text == "ok"


async def test_run_with_tuple_history() -> None:
    """Any sequence works as history."""
    history: tuple[dict[str, Any], ...] = ({"role": "user", "content": "a"},)
    provider = ScriptedProvider(LLMResponse("ok", [], "stop"))

    result = await AgenticLoop(provider, Dispatcher()).run("b", history, [])

    assert result.text == "ok"
