"""The agentic loop when turns do not simply succeed.

LLM errors, the deadline, the iteration cap, repeated calls and cancellation: each ends
the turn with its stop reason and consistent messages, never with an exception (but
cancellation, which is re-raised).
"""

import asyncio
import contextlib
import logging
from typing import Any

import pytest

from custom_components.agentic_conversation.agent import (
    AgenticLoop,
    LLMAuthError,
    LLMBadResponseError,
    LLMCallStarted,
    LLMConnectionError,
    LLMError,
    LLMForbiddenError,
    LLMRateLimitError,
    LLMServerError,
    LLMStreamBrokenError,
    LLMTimeoutError,
    LoopEvent,
    LoopFinished,
    LoopLimits,
    OpenAICompatibleProvider,
    StopReason,
    ToolCallFinished,
)
from custom_components.agentic_conversation.agent.composition import (
    FINAL_ANSWER_INSTRUCTION,
)
from tests.fake_llm import MODEL, FakeLLM, Reply, closed_port_url

from .common import Dispatcher, Events, assert_consistent, envelope, weather


@pytest.mark.parametrize(
    ("reply", "error_class", "status", "retry_after"),
    [
        (Reply.error(401, "bad key"), LLMAuthError, 401, None),
        (Reply.error(403), LLMForbiddenError, 403, None),
        (Reply.error(429, retry_after="7"), LLMRateLimitError, 429, 7.0),
        (Reply.error(429), LLMRateLimitError, 429, None),
        (Reply.error(500), LLMServerError, 500, None),
    ],
)
async def test_http_errors(
    fake_llm: FakeLLM,
    provider: OpenAICompatibleProvider,
    *,
    reply: Reply,
    error_class: type[LLMError],
    status: int,
    retry_after: float | None,
) -> None:
    """An HTTP error ends the turn as LLM_ERROR with the classified error, no retry."""
    fake_llm.script([reply])
    events = Events()

    result = await AgenticLoop(provider, Dispatcher()).run(
        "hi", [], [], on_event=events
    )

    assert result.stop_reason is StopReason.LLM_ERROR
    assert type(result.error) is error_class
    assert result.error.status_code == status
    assert result.error.retry_after == retry_after
    assert result.text == ""
    assert result.messages == [{"role": "user", "content": "hi"}]
    assert len(fake_llm.requests) == 1  # the SDK did not retry
    assert events.finished.result is result


async def test_error_after_tools_keeps_completed_steps(
    fake_llm: FakeLLM, provider: OpenAICompatibleProvider
) -> None:
    """An LLM error on the second call keeps the first call's tool round."""
    fake_llm.script(
        [Reply.tool_calls([("weather", {"city": "Lisbon"})]), Reply.error(500)]
    )
    tools = Dispatcher(weather=weather)

    result = await AgenticLoop(provider, tools).run("weather", [], tools.specs)

    assert result.stop_reason is StopReason.LLM_ERROR
    assert isinstance(result.error, LLMServerError)
    assert [m["role"] for m in result.messages] == ["user", "assistant", "tool"]
    assert_consistent(result.messages)
    assert result.iterations == 2


async def test_connection_refused(socket_enabled: None) -> None:
    """Nobody listening: LLM_ERROR with LLMConnectionError."""
    provider = OpenAICompatibleProvider(
        base_url=closed_port_url(), api_key=None, model=MODEL
    )
    try:
        result = await AgenticLoop(provider, Dispatcher()).run("hi", [], [])
    finally:
        await provider.close()

    assert result.stop_reason is StopReason.LLM_ERROR
    assert isinstance(result.error, LLMConnectionError)
    assert result.error.status_code is None


@pytest.mark.parametrize("stream", [True, False])
async def test_server_hangs_past_deadline(
    fake_llm: FakeLLM, provider: OpenAICompatibleProvider, stream: bool
) -> None:
    """The turn deadline bounds the LLM call: DEADLINE with an LLMTimeoutError."""
    fake_llm.script([Reply.hang()])
    events = Events()
    loop = AgenticLoop(provider, Dispatcher(), LoopLimits(turn_timeout=0.3))

    result = await loop.run("hi", [], [], on_event=events if stream else None)

    assert result.stop_reason is StopReason.DEADLINE
    assert isinstance(result.error, LLMTimeoutError)
    assert result.messages == [{"role": "user", "content": "hi"}]
    if stream:
        assert events.kinds == ["LLMCallStarted", "LoopFinished"]


async def test_provider_timeout_before_deadline(fake_llm: FakeLLM) -> None:
    """The provider's own timeout, shorter than the turn's: LLM_ERROR, not DEADLINE."""
    provider = OpenAICompatibleProvider(
        base_url=fake_llm.base_url, api_key=None, model=MODEL, timeout=0.2
    )
    fake_llm.script([Reply.hang()])
    try:
        result = await AgenticLoop(provider, Dispatcher()).run("hi", [], [])
    finally:
        await provider.close()

    assert result.stop_reason is StopReason.LLM_ERROR
    assert isinstance(result.error, LLMTimeoutError)


@pytest.mark.parametrize(
    ("cut", "error_class"),
    [("connection", LLMStreamBrokenError), ("clean", LLMBadResponseError)],
)
async def test_truncated_stream(
    fake_llm: FakeLLM,
    provider: OpenAICompatibleProvider,
    cut: str,
    error_class: type[LLMError],
) -> None:
    """A stream cut short: the connection dropped mid-answer, or it ended early.

    A dropped connection after the first chunk is not "unreachable": its own error.
    """
    fake_llm.script([Reply.truncated("Half an ans", cut=cut)])
    events = Events()

    result = await AgenticLoop(provider, Dispatcher()).run(
        "hi", [], [], on_event=events
    )

    assert result.stop_reason is StopReason.LLM_ERROR
    assert type(result.error) is error_class
    assert result.text == ""
    assert result.messages == [{"role": "user", "content": "hi"}]
    assert events.kinds[0] == "LLMCallStarted"
    assert events.kinds[-1] == "LoopFinished"


def _always_calling(n: int) -> list[Reply]:
    """Responses each calling the weather tool, for a different city each time."""
    return [Reply.tool_calls([("weather", {"city": f"city {i}"})]) for i in range(n)]


async def test_iteration_cap_final_call(
    fake_llm: FakeLLM,
    provider: OpenAICompatibleProvider,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """At the cap: one more call with tool_choice "none"; its text is the answer."""
    fake_llm.script([*_always_calling(2), Reply.text("Lisbon and Porto are sunny.")])
    tools = Dispatcher(weather=weather)
    events = Events()
    loop = AgenticLoop(provider, tools, LoopLimits(max_iterations=2))

    result = await loop.run("weather", [], tools.specs, on_event=events)

    assert result.stop_reason is StopReason.ITERATION_CAP
    assert result.text == "Lisbon and Porto are sunny."
    assert result.summarized is False
    assert result.iterations == 3
    assert len(tools.calls) == 2
    first, second, final = fake_llm.requests
    assert first["tool_choice"] == second["tool_choice"] == "auto"
    assert final["tool_choice"] == "none"
    assert final["tools"] == first["tools"]
    assert final["messages"][-1] == {
        "role": "user",
        "content": FINAL_ANSWER_INSTRUCTION,
    }
    # The instruction is not part of history.
    assert FINAL_ANSWER_INSTRUCTION not in str(result.messages)
    assert result.messages[-1] == {
        "role": "assistant",
        "content": "Lisbon and Porto are sunny.",
    }
    assert_consistent(result.messages)
    assert [e.iteration for e in events.of(LLMCallStarted)] == [
        1,
        2,
        3,
    ]
    assert any(
        r.levelno == logging.WARNING and "limit of 2 iterations" in r.getMessage()
        for r in caplog.records
    )


@pytest.mark.parametrize(
    "final",
    [
        Reply.tool_calls([("weather", {"city": "again"})]),
        Reply.error(500),
        Reply.text(""),
    ],
    ids=["tool_calls", "error", "empty"],
)
async def test_iteration_cap_summary(
    fake_llm: FakeLLM, provider: OpenAICompatibleProvider, final: Reply
) -> None:
    """No usable final answer: a summary of what was and was not done."""

    async def lock(door: str) -> None:
        raise RuntimeError("jammed")

    fake_llm.script(
        [
            Reply.tool_calls(
                [("weather", {"city": "Lisbon"}), ("lock", {"door": "front"})]
            ),
            final,
        ]
    )
    tools = Dispatcher(weather=weather, lock=lock)
    loop = AgenticLoop(provider, tools, LoopLimits(max_iterations=1))

    result = await loop.run("go", [], tools.specs)

    assert result.stop_reason is StopReason.ITERATION_CAP
    assert result.text == (
        "I couldn't finish this request within the steps allowed."
        " Done: weather. Not done: lock."
    )
    assert result.summarized is True
    assert len(tools.calls) == 2  # the final call's tool call was not run
    assert result.messages[-1] == {"role": "assistant", "content": result.text}
    assert_consistent(result.messages)
    if final.kind == "error":
        assert isinstance(result.error, LLMServerError)
    else:
        assert result.error is None


async def test_iteration_cap_summary_nothing_done(
    fake_llm: FakeLLM, provider: OpenAICompatibleProvider
) -> None:
    """With a cap of 0 the only call is the final one; if it fails, nothing was done."""
    fake_llm.script([Reply.error(503)])
    loop = AgenticLoop(provider, Dispatcher(), LoopLimits(max_iterations=0))

    result = await loop.run("go", [], [])

    assert result.text.endswith("Nothing was done.")
    assert result.summarized is True
    assert result.stop_reason is StopReason.ITERATION_CAP


async def test_repeated_call_not_run_twice(
    fake_llm: FakeLLM, provider: OpenAICompatibleProvider
) -> None:
    """The same call again (keys in another order): the earlier result, with a note."""
    fake_llm.script(
        [
            Reply.tool_calls([("weather", {"city": "Lisbon", "unit": "C"})]),
            Reply.tool_calls(
                [("weather", {"unit": "C", "city": "Lisbon"}, "call_again")]
            ),
            Reply.text("Sunny."),
        ]
    )

    async def weather_unit(city: str, unit: str) -> dict[str, Any]:
        return {"city": city, "unit": unit}

    tools = Dispatcher(weather=weather_unit)

    result = await AgenticLoop(provider, tools).run("weather", [], tools.specs)

    assert len(tools.calls) == 1
    first, again = result.tool_calls
    assert not first.repeated and again.repeated
    assert again.ok
    repeated = envelope(fake_llm.requests[2]["messages"][-1])
    assert repeated["result"] == {"city": "Lisbon", "unit": "C"}
    assert "already made" in repeated["note"]
    assert result.stop_reason is StopReason.FINAL


async def test_repeated_within_one_response(
    fake_llm: FakeLLM, provider: OpenAICompatibleProvider
) -> None:
    """Twice the same call in one response: run once, both answered."""
    fake_llm.script(
        [
            Reply.tool_calls(
                [("weather", {"city": "Lisbon"}), ("weather", {"city": "Lisbon"})]
            ),
            Reply.text("Sunny."),
        ]
    )
    tools = Dispatcher(weather=weather)
    events = Events()

    result = await AgenticLoop(provider, tools).run(
        "weather", [], tools.specs, on_event=events
    )

    assert len(tools.calls) == 1
    assert [r.repeated for r in result.tool_calls] == [False, True]
    assert [e.record.call_id for e in events.of(ToolCallFinished)] == [
        "call_0",
        "call_1",
    ]
    assert_consistent(result.messages)


async def test_third_repetition_ends_tool_phase(
    fake_llm: FakeLLM, provider: OpenAICompatibleProvider
) -> None:
    """The third identical request: answered from before, then the final-answer call."""
    same = ("weather", {"city": "Lisbon"})
    fake_llm.script(
        [
            Reply.tool_calls([same]),
            Reply.tool_calls([same]),
            Reply.tool_calls([same]),
            Reply.text("It is sunny in Lisbon."),
        ]
    )
    tools = Dispatcher(weather=weather)

    result = await AgenticLoop(provider, tools).run("weather", [], tools.specs)

    assert len(tools.calls) == 1
    assert [r.repeated for r in result.tool_calls] == [False, True, True]
    assert result.stop_reason is StopReason.ITERATION_CAP
    assert result.text == "It is sunny in Lisbon."
    final = fake_llm.requests[3]
    assert final["tool_choice"] == "none"
    third = envelope(final["messages"][-2])
    assert "Stop calling it" in third["note"]
    assert_consistent(result.messages)


async def test_cancelled_mid_tool(
    fake_llm: FakeLLM, provider: OpenAICompatibleProvider
) -> None:
    """Cancelled while a tool runs: LoopFinished(CANCELLED), then CancelledError.

    The finished call's result is kept; the unfinished one gets a "cancelled"
    envelope (and is itself cancelled), so no tool call is left without a result.
    """
    stuck_cancelled = asyncio.Event()

    async def stuck() -> None:
        try:
            await asyncio.Event().wait()
        finally:
            stuck_cancelled.set()

    fake_llm.script(
        [Reply.tool_calls([("weather", {"city": "Lisbon"}), ("stuck", {})])]
    )
    tools = Dispatcher(weather=weather, stuck=stuck)
    events = Events()
    task = asyncio.create_task(
        AgenticLoop(provider, tools).run("go", [], tools.specs, on_event=events)
    )
    while not events.of(ToolCallFinished):
        events.changed.clear()
        await events.changed.wait()

    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    assert stuck_cancelled.is_set()
    result = events.finished.result
    assert result.stop_reason is StopReason.CANCELLED
    assert_consistent(result.messages)
    done, cancelled = result.messages[-2:]
    assert envelope(done)["success"] is True
    assert envelope(cancelled) == {"success": False, "error": "cancelled"}
    assert [(r.name, r.ok) for r in result.tool_calls] == [
        ("weather", True),
        ("stuck", False),
    ]
    # Every requested call got a ToolCallFinished.
    assert [e.record.name for e in events.of(ToolCallFinished)] == ["weather", "stuck"]


async def test_cancelled_during_llm_call(
    fake_llm: FakeLLM, provider: OpenAICompatibleProvider
) -> None:
    """Cancelled while waiting for the LLM: nothing but the user message."""
    fake_llm.script([Reply.hang()])
    events = Events()
    task = asyncio.create_task(
        AgenticLoop(provider, Dispatcher()).run("hi", [], [], on_event=events)
    )
    await fake_llm.wait_for_requests(1)

    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    assert events.finished.result.stop_reason is StopReason.CANCELLED
    assert events.finished.result.messages == [{"role": "user", "content": "hi"}]


async def test_deadline_during_tools(
    fake_llm: FakeLLM, provider: OpenAICompatibleProvider
) -> None:
    """The deadline while tools run: finished results kept, the rest marked."""

    async def stuck() -> None:
        await asyncio.Event().wait()

    fake_llm.script(
        [Reply.tool_calls([("weather", {"city": "Lisbon"}), ("stuck", {})])]
    )
    tools = Dispatcher(weather=weather, stuck=stuck)
    events = Events()
    loop = AgenticLoop(provider, tools, LoopLimits(turn_timeout=0.3, tool_timeout=5))

    result = await loop.run("go", [], tools.specs, on_event=events)

    assert result.stop_reason is StopReason.DEADLINE
    assert isinstance(result.error, LLMTimeoutError)
    assert_consistent(result.messages)
    assert envelope(result.messages[-2])["success"] is True
    assert "ran out of time" in envelope(result.messages[-1])["error"]
    assert len(events.of(ToolCallFinished)) == 2


@pytest.mark.parametrize(
    ("script", "limits", "reason"),
    [
        ([Reply.text("hi")], LoopLimits(), StopReason.FINAL),
        ([Reply.error(500)], LoopLimits(), StopReason.LLM_ERROR),
        ([Reply.hang()], LoopLimits(turn_timeout=0.2), StopReason.DEADLINE),
        (
            [*_always_calling(1), Reply.text("ok")],
            LoopLimits(max_iterations=1),
            StopReason.ITERATION_CAP,
        ),
    ],
)
async def test_stop_reasons_reachable(
    fake_llm: FakeLLM,
    provider: OpenAICompatibleProvider,
    script: list[Reply],
    limits: LoopLimits,
    reason: StopReason,
) -> None:
    """Each stop reason but CANCELLED (see test_cancelled_*) from a script."""
    fake_llm.script(script)
    tools = Dispatcher(weather=weather)

    result = await AgenticLoop(provider, tools, limits).run("hi", [], tools.specs)

    assert result.stop_reason is reason
    assert_consistent(result.messages)


async def test_stream_yields_events(
    fake_llm: FakeLLM, provider: OpenAICompatibleProvider
) -> None:
    """stream(): the same events as run(on_event=...), LoopFinished last."""
    fake_llm.script(
        [Reply.tool_calls([("weather", {"city": "Lisbon"})]), Reply.text("Sunny.")]
    )
    tools = Dispatcher(weather=weather)

    events: list[LoopEvent] = [
        event
        async for event in AgenticLoop(provider, tools).stream("w", [], tools.specs)
    ]

    assert isinstance(events[-1], LoopFinished)
    assert events[-1].result.text == "Sunny."
    assert [type(e).__name__ for e in events][:3] == [
        "LLMCallStarted",
        "ToolCallsRequested",
        "ToolCallFinished",
    ]


async def test_stream_closed_early_cancels_turn(
    fake_llm: FakeLLM, provider: OpenAICompatibleProvider
) -> None:
    """Leaving the iterator early cancels the turn and its tools; nothing lingers."""
    stuck_started = asyncio.Event()
    stuck_cancelled = asyncio.Event()

    async def stuck() -> None:
        stuck_started.set()
        try:
            await asyncio.Event().wait()
        finally:
            stuck_cancelled.set()

    fake_llm.script([Reply.tool_calls([("stuck", {})])])
    tools = Dispatcher(stuck=stuck)
    stream = AgenticLoop(provider, tools).stream("go", [], tools.specs)

    async with contextlib.aclosing(stream) as events:
        async for event in events:
            if type(event).__name__ == "ToolCallsRequested":
                await stuck_started.wait()
                break

    assert stuck_cancelled.is_set()


async def test_stream_consumer_cancelled(
    fake_llm: FakeLLM, provider: OpenAICompatibleProvider
) -> None:
    """Cancelling the task iterating stream() cancels the turn too."""
    fake_llm.script([Reply.hang()])
    started = asyncio.Event()

    async def consume() -> None:
        stream = AgenticLoop(provider, Dispatcher()).stream("hi", [], [])
        async with contextlib.aclosing(stream) as events:
            async for _ in events:
                started.set()

    task = asyncio.create_task(consume())
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_stream_reraises_turn_failure(
    fake_llm: FakeLLM, provider: OpenAICompatibleProvider
) -> None:
    """A bug below the loop surfaces from stream() instead of hanging it."""

    class Broken(OpenAICompatibleProvider):
        """A provider raising something that is not an LLMError."""

        async def complete(self, *args: Any, **kwargs: Any) -> Any:
            """Fail like a bug."""
            raise KeyError("bug")

    broken = Broken(base_url=fake_llm.base_url, api_key=None, model=MODEL)

    with pytest.raises(KeyError):
        async for _ in AgenticLoop(broken, Dispatcher()).stream("hi", [], []):
            pass
