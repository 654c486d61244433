"""The agentic loop over the real OpenAI SDK and the fake server: turns that succeed.

What the LLM was sent, what the loop returned, and how tool failures come back to the
model as JSON envelopes it recovers from.
"""

import asyncio
import copy
import json
import logging
from typing import Any

import pytest

from custom_components.agentic_conversation.agent import (
    AgenticLoop,
    LLMCallStarted,
    LoopLimits,
    OpenAICompatibleProvider,
    StopReason,
    TextDelta,
    ToolCallFinished,
    ToolCallsRequested,
    ToolValidationError,
    UnknownToolError,
)
from tests.fake_llm import FakeLLM, Reply

from .common import Dispatcher, Events, assert_consistent, envelope, weather


async def test_plain_answer(
    fake_llm: FakeLLM, provider: OpenAICompatibleProvider
) -> None:
    """No tools: one request without tools, the answer, history after the prompt."""
    fake_llm.script([Reply.text("Hello there.")])
    history = [
        {"role": "user", "content": "earlier"},
        {"role": "assistant", "content": "reply"},
    ]
    loop = AgenticLoop(provider, Dispatcher(), system_prompt="Be brief.")

    result = await loop.run("Hi", history, [])

    assert result.text == "Hello there."
    assert result.stop_reason is StopReason.FINAL
    assert result.finish_reason == "stop"
    assert result.iterations == 1
    assert result.error is None
    assert result.messages == [
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "Hello there."},
    ]
    (sent,) = fake_llm.requests
    assert sent["messages"] == [
        {"role": "system", "content": "Be brief."},
        *history,
        {"role": "user", "content": "Hi"},
    ]
    assert "tools" not in sent
    assert "tool_choice" not in sent
    assert not sent.get("stream")  # nobody listens to deltas: not streamed


async def test_one_tool(
    fake_llm: FakeLLM,
    provider: OpenAICompatibleProvider,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A tool call, its result sent back under its id, then the answer; logged."""
    fake_llm.script(
        [
            Reply.tool_calls([("weather", {"city": "Lisbon"}, "call_w")]),
            Reply.text("Sunny in Lisbon."),
        ]
    )
    tools = Dispatcher(weather=weather)
    loop = AgenticLoop(provider, tools, system_prompt="sys")

    result = await loop.run("Weather in Lisbon?", [], tools.specs)

    assert result.text == "Sunny in Lisbon."
    assert result.stop_reason is StopReason.FINAL
    assert result.iterations == 2
    assert tools.calls == [("weather", {"city": "Lisbon"})]
    first, second = fake_llm.requests
    assert first["tool_choice"] == "auto"
    assert [t["function"]["name"] for t in first["tools"]] == ["weather"]
    assert second["messages"][0] == {"role": "system", "content": "sys"}
    assistant, tool = second["messages"][2:]
    assert assistant == {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {
                "id": "call_w",
                "type": "function",
                "function": {"name": "weather", "arguments": '{"city": "Lisbon"}'},
            }
        ],
    }
    assert tool["tool_call_id"] == "call_w"
    assert envelope(tool) == {
        "success": True,
        "result": {"city": "Lisbon", "sky": "sunny"},
    }
    assert result.messages == [*second["messages"][1:], result.messages[-1]]
    assert result.messages[-1] == {"role": "assistant", "content": "Sunny in Lisbon."}
    (record,) = result.tool_calls
    assert record.ok and record.error is None and not record.repeated
    assert record.call_id == "call_w"
    assert record.arguments == {"city": "Lisbon"}
    assert json.loads(record.result)["success"] is True
    logged = [
        (r.levelno, r.getMessage())
        for r in caplog.records
        if r.name.startswith("custom_components.agentic_conversation.agent")
    ]
    assert (logging.INFO, "iteration 1/10, 1 tool calls") in logged
    assert (logging.INFO, "iteration 2/10, 0 tool calls") in logged
    assert any(
        level == logging.DEBUG and "{'city': 'Lisbon'}" in message
        for level, message in logged
    )


async def test_three_tools_run_concurrently(
    fake_llm: FakeLLM, provider: OpenAICompatibleProvider
) -> None:
    """All calls of one response run at once: each started before any finished."""

    async def slow(n: int) -> int:
        await asyncio.sleep(0.2)
        return n

    fake_llm.script(
        [
            Reply.tool_calls(
                [("slow", {"n": 1}), ("slow", {"n": 2}), ("slow", {"n": 3})]
            ),
            Reply.text("Done."),
        ]
    )
    tools = Dispatcher(slow=slow)

    result = await AgenticLoop(provider, tools).run("go", [], tools.specs)

    records = result.tool_calls
    assert len(records) == 3
    assert max(r.started_at for r in records) < min(r.finished_at for r in records)
    tool_messages = fake_llm.requests[1]["messages"][2:]
    assert [m["tool_call_id"] for m in tool_messages] == ["call_0", "call_1", "call_2"]
    assert [envelope(m)["result"] for m in tool_messages] == [1, 2, 3]


async def test_results_in_request_order_events_in_completion_order(
    fake_llm: FakeLLM, provider: OpenAICompatibleProvider
) -> None:
    """Tools finishing in reverse order: events follow completion, messages requests."""
    # Tool n waits until the loop has reported tool n + 1 finished: 3, 2, then 1.
    reported = {n: asyncio.Event() for n in (1, 2, 3)}

    async def chained(n: int) -> int:
        if n < 3:
            await reported[n + 1].wait()
        return n

    async def on_event(event: Any) -> None:
        await events(event)
        if isinstance(event, ToolCallFinished):
            assert isinstance(event.record.arguments, dict)
            reported[event.record.arguments["n"]].set()

    fake_llm.script(
        [
            Reply.tool_calls([("chained", {"n": n}) for n in (1, 2, 3)]),
            Reply.text("ok"),
        ]
    )
    tools = Dispatcher(chained=chained)
    events = Events()

    result = await AgenticLoop(provider, tools).run(
        "go", [], tools.specs, on_event=on_event
    )

    finished = [e.record.call_id for e in events.of(ToolCallFinished)]
    assert finished == ["call_2", "call_1", "call_0"]
    assert [r.call_id for r in result.tool_calls] == ["call_0", "call_1", "call_2"]
    tool_messages = fake_llm.requests[1]["messages"][2:]
    assert [m["tool_call_id"] for m in tool_messages] == ["call_0", "call_1", "call_2"]
    assert_consistent(result.messages)


async def test_validation_error_then_corrected_call(
    fake_llm: FakeLLM, provider: OpenAICompatibleProvider
) -> None:
    """A ToolValidationError goes back as an envelope; the corrected call succeeds."""

    async def set_temperature(degrees: Any) -> str:
        if not isinstance(degrees, int):
            raise ToolValidationError("degrees must be an integer")
        return f"set to {degrees}"

    fake_llm.script(
        [
            Reply.tool_calls([("set_temperature", {"degrees": "warm"})]),
            Reply.tool_calls([("set_temperature", {"degrees": 21}, "call_b")]),
            Reply.text("Set to 21."),
        ]
    )
    tools = Dispatcher(set_temperature=set_temperature)

    result = await AgenticLoop(provider, tools).run("warmer", [], tools.specs)

    assert result.text == "Set to 21."
    assert result.stop_reason is StopReason.FINAL
    failed = envelope(fake_llm.requests[1]["messages"][-1])
    assert failed["success"] is False
    assert "degrees must be an integer" in failed["error"]
    assert "hint" in failed
    assert envelope(fake_llm.requests[2]["messages"][-1]) == {
        "success": True,
        "result": "set to 21",
    }
    assert [r.ok for r in result.tool_calls] == [False, True]
    assert_consistent(result.messages)


@pytest.mark.parametrize("stream", [True, False])
async def test_arguments_not_json_then_recovery(
    fake_llm: FakeLLM, provider: OpenAICompatibleProvider, stream: bool
) -> None:
    """Unparsable arguments: not run, an envelope quoting them, then a good call."""
    fake_llm.script(
        [
            Reply.tool_calls([("weather", "{city: Lisbon", "call_bad")]),
            Reply.tool_calls([("weather", {"city": "Lisbon"})]),
            Reply.text("Sunny."),
        ]
    )
    tools = Dispatcher(weather=weather)
    events = Events()

    result = await AgenticLoop(provider, tools).run(
        "weather", [], tools.specs, on_event=events if stream else None
    )

    assert result.text == "Sunny."
    assert tools.calls == [("weather", {"city": "Lisbon"})]
    bad = result.tool_calls[0]
    assert bad.arguments == "{city: Lisbon"
    assert not bad.ok
    sent = fake_llm.requests[1]["messages"]
    # Sent back as "{}": strict servers parse the arguments in history.
    assert sent[-2]["tool_calls"][0]["function"]["arguments"] == "{}"
    error = envelope(sent[-1])
    assert error["success"] is False
    assert error["received"] == "{city: Lisbon"
    assert_consistent(result.messages)


@pytest.mark.parametrize("stream", [True, False])
async def test_arguments_as_object(
    fake_llm: FakeLLM, provider: OpenAICompatibleProvider, stream: bool
) -> None:
    """Servers sending the arguments as an object (Ollama) work the same."""
    fake_llm.script(
        [
            Reply.tool_calls([("weather", {"city": "Porto"})], as_object=True),
            Reply.text("Sunny."),
        ]
    )
    tools = Dispatcher(weather=weather)

    result = await AgenticLoop(provider, tools).run(
        "weather", [], tools.specs, on_event=Events() if stream else None
    )

    assert tools.calls == [("weather", {"city": "Porto"})]
    assert result.tool_calls[0].ok
    sent = fake_llm.requests[1]["messages"][-2]["tool_calls"][0]["function"]
    assert json.loads(sent["arguments"]) == {"city": "Porto"}


async def test_arguments_json_string_in_a_string(
    fake_llm: FakeLLM, provider: OpenAICompatibleProvider
) -> None:
    """Arguments JSON-encoded twice are unwrapped."""
    fake_llm.script(
        [
            Reply.tool_calls([("weather", json.dumps(json.dumps({"city": "Faro"})))]),
            Reply.text("Sunny."),
        ]
    )
    tools = Dispatcher(weather=weather)

    await AgenticLoop(provider, tools).run("weather", [], tools.specs)

    assert tools.calls == [("weather", {"city": "Faro"})]


async def test_unknown_tool(
    fake_llm: FakeLLM, provider: OpenAICompatibleProvider
) -> None:
    """A tool not offered is not dispatched; the envelope lists the valid tools."""
    fake_llm.script(
        [Reply.tool_calls([("get_wether", {"city": "Lisbon"})]), Reply.text("Sorry.")]
    )
    tools = Dispatcher(weather=weather, time=weather)

    result = await AgenticLoop(provider, tools).run("weather", [], tools.specs)

    assert tools.calls == []
    error = envelope(fake_llm.requests[1]["messages"][-1])
    assert error["success"] is False
    assert "get_wether" in error["error"]
    assert error["valid_tools"] == ["time", "weather"]
    assert result.text == "Sorry."


async def test_dispatcher_unknown_tool(
    fake_llm: FakeLLM, provider: OpenAICompatibleProvider
) -> None:
    """UnknownToolError from the dispatcher gives the same envelope."""

    async def gone() -> None:
        raise UnknownToolError("gone")

    fake_llm.script([Reply.tool_calls([("gone", {})]), Reply.text("Sorry.")])
    tools = Dispatcher(gone=gone)

    await AgenticLoop(provider, tools).run("go", [], tools.specs)

    error = envelope(fake_llm.requests[1]["messages"][-1])
    assert error["valid_tools"] == ["gone"]


async def test_tool_raises(
    fake_llm: FakeLLM, provider: OpenAICompatibleProvider
) -> None:
    """Any exception of a tool becomes an envelope; the other tools are unaffected."""

    async def broken() -> None:
        raise RuntimeError("the light is on fire")

    fake_llm.script(
        [
            Reply.tool_calls([("broken", {}), ("weather", {"city": "Braga"})]),
            Reply.text("One failed."),
        ]
    )
    tools = Dispatcher(broken=broken, weather=weather)

    result = await AgenticLoop(provider, tools).run("go", [], tools.specs)

    broken_result, weather_result = fake_llm.requests[1]["messages"][-2:]
    assert envelope(broken_result) == {
        "success": False,
        "error": "RuntimeError: the light is on fire",
    }
    assert envelope(weather_result)["success"] is True
    assert [r.ok for r in result.tool_calls] == [False, True]
    assert result.text == "One failed."


async def test_tool_timeout(
    fake_llm: FakeLLM, provider: OpenAICompatibleProvider
) -> None:
    """A tool running past tool_timeout is cancelled and reported as timed out."""
    cancelled = asyncio.Event()

    async def stuck() -> None:
        try:
            await asyncio.Event().wait()
        finally:
            cancelled.set()

    fake_llm.script([Reply.tool_calls([("stuck", {})]), Reply.text("It timed out.")])
    tools = Dispatcher(stuck=stuck)
    loop = AgenticLoop(provider, tools, LoopLimits(tool_timeout=0.05))

    result = await loop.run("go", [], tools.specs)

    assert cancelled.is_set()
    error = envelope(fake_llm.requests[1]["messages"][-1])
    assert error == {
        "success": False,
        "error": "The tool did not finish within 0.05 seconds.",
    }
    assert result.stop_reason is StopReason.FINAL


async def test_large_result_truncated(
    fake_llm: FakeLLM, provider: OpenAICompatibleProvider
) -> None:
    """A result over max_tool_result_chars is cut with a marker the model can read."""

    async def dump() -> str:
        return "x" * 150

    fake_llm.script([Reply.tool_calls([("dump", {})]), Reply.text("Long.")])
    tools = Dispatcher(dump=dump)
    loop = AgenticLoop(provider, tools, LoopLimits(max_tool_result_chars=100))

    await loop.run("go", [], tools.specs)

    result = envelope(fake_llm.requests[1]["messages"][-1])
    assert result["success"] is True
    assert result["truncated"] is True
    assert result["result"] == "x" * 100 + "…[truncated 50 chars]"


@pytest.mark.parametrize(
    ("text", "expected", "reason"),
    [
        ("The answer is forty-", "The answer is forty-", StopReason.FINAL),
        ("", "Sorry, my answer was cut off.", StopReason.CUT_OFF),
    ],
)
async def test_finish_reason_length(
    fake_llm: FakeLLM,
    provider: OpenAICompatibleProvider,
    text: str,
    expected: str,
    reason: StopReason,
) -> None:
    """Out of tokens: the partial text is the answer; cut tool calls are not run."""
    fake_llm.script(
        [
            Reply.tool_calls(
                [("weather", {"city": "Lisbon"})], text=text, finish_reason="length"
            )
        ]
    )
    tools = Dispatcher(weather=weather)

    result = await AgenticLoop(provider, tools).run("go", [], tools.specs)

    assert result.text == expected
    assert result.stop_reason is reason
    assert result.finish_reason == "length"
    assert tools.calls == []
    assert result.messages[-1] == {"role": "assistant", "content": expected}
    assert_consistent(result.messages)


async def test_finish_reason_content_filter(
    fake_llm: FakeLLM, provider: OpenAICompatibleProvider
) -> None:
    """Filtered: a polite refusal."""
    fake_llm.script([Reply.text("", finish_reason="content_filter")])

    result = await AgenticLoop(provider, Dispatcher()).run("something bad", [], [])

    assert result.text == "I can't help with that request."
    assert result.stop_reason is StopReason.REFUSED
    assert result.finish_reason == "content_filter"


async def test_unexpected_finish_reason(
    fake_llm: FakeLLM,
    provider: OpenAICompatibleProvider,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """An unknown finish reason is logged and the text taken as the answer."""
    fake_llm.script([Reply.text("Fine.", finish_reason="eos_token")])

    result = await AgenticLoop(provider, Dispatcher()).run("hi", [], [])

    assert result.text == "Fine."
    assert result.finish_reason == "eos_token"
    assert any(
        r.levelno == logging.WARNING and "eos_token" in r.getMessage()
        for r in caplog.records
    )


async def test_streaming_deltas(
    fake_llm: FakeLLM, provider: OpenAICompatibleProvider
) -> None:
    """With a listener the answer streams: deltas come first and add up to the text."""
    fake_llm.script([Reply.text("A streamed answer, in pieces.", chunk_size=4)])
    events = Events()

    result = await AgenticLoop(provider, Dispatcher()).run(
        "hi", [], [], on_event=events
    )

    deltas = events.of(TextDelta)
    assert len(deltas) > 1
    assert "".join(d.text for d in deltas) == result.text
    assert events.kinds[-1] == "LoopFinished"
    assert events.finished.result is result
    assert fake_llm.requests[0]["stream"] is True


async def test_event_order(
    fake_llm: FakeLLM, provider: OpenAICompatibleProvider
) -> None:
    """LLMCallStarted, deltas, ToolCallsRequested, ToolCallFinished..., LoopFinished."""
    fake_llm.script(
        [
            Reply.tool_calls(
                [("weather", {"city": "A"}), ("weather", {"city": "B"})],
                text="Checking.",
            ),
            Reply.text("Both sunny."),
        ]
    )
    tools = Dispatcher(weather=weather)
    events = Events()
    sync_events: list[str] = []

    def also_sync(event: object) -> None:
        sync_events.append(type(event).__name__)

    async def both(event: Any) -> None:
        also_sync(event)
        await events(event)

    result = await AgenticLoop(provider, tools).run(
        "weather", [], tools.specs, on_event=both
    )

    # Runs of deltas collapsed to one.
    kinds = [
        kind
        for i, kind in enumerate(events.kinds)
        if kind != "TextDelta" or events.kinds[i - 1] != "TextDelta"
    ]
    assert kinds == [
        "LLMCallStarted",
        "TextDelta",
        "ToolCallsRequested",
        "ToolCallFinished",
        "ToolCallFinished",
        "LLMCallStarted",
        "TextDelta",
        "LoopFinished",
    ]
    assert [e.iteration for e in events.of(LLMCallStarted)] == [1, 2]
    (requested,) = events.of(ToolCallsRequested)
    assert [c.arguments for c in requested.calls] == [{"city": "A"}, {"city": "B"}]
    assert result.messages[1]["content"] == "Checking."
    assert sync_events == events.kinds


async def test_sync_on_event(
    fake_llm: FakeLLM, provider: OpenAICompatibleProvider
) -> None:
    """A plain function works as on_event."""
    fake_llm.script([Reply.text("hi")])
    seen: list[object] = []

    await AgenticLoop(provider, Dispatcher()).run("hi", [], [], on_event=seen.append)

    assert type(seen[-1]).__name__ == "LoopFinished"


async def test_history_not_mutated(
    fake_llm: FakeLLM, provider: OpenAICompatibleProvider
) -> None:
    """Neither the history list nor anything in it changes; its system prompt goes."""
    history: list[dict[str, Any]] = [
        {"role": "system", "content": "old prompt"},
        {"role": "user", "content": "turn on the light"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "light", "arguments": "{}"},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": '{"success": true}'},
        {"role": "assistant", "content": "Done."},
    ]
    before = copy.deepcopy(history)
    fake_llm.script(
        [Reply.tool_calls([("weather", {"city": "Lisbon"})]), Reply.text("Sunny.")]
    )
    tools = Dispatcher(weather=weather)

    result = await AgenticLoop(provider, tools, system_prompt="new prompt").run(
        "weather", history, tools.specs, on_event=Events()
    )

    assert history == before
    assert result.messages[0] == {"role": "user", "content": "weather"}
    for sent in fake_llm.requests:
        messages = sent["messages"]
        assert messages[0] == {"role": "system", "content": "new prompt"}
        assert [m["role"] for m in messages].count("system") == 1
        assert messages[2]["content"] == ""  # null content sent as ""
    assert fake_llm.requests[1]["messages"][1:5] == [
        before[1],
        {**before[2], "content": ""},
        before[3],
        before[4],
    ]


async def test_history_system_prompt_kept_without_own(
    fake_llm: FakeLLM, provider: OpenAICompatibleProvider
) -> None:
    """Without a system prompt of its own the loop sends history as it is."""
    fake_llm.script([Reply.text("ok")])
    history = [{"role": "system", "content": "from history"}]

    await AgenticLoop(provider, Dispatcher()).run("hi", history, [])

    assert fake_llm.requests[0]["messages"][0] == history[0]
