"""Tools start while the model still streams: as soon as a call is complete.

The fake server holds back the rest of its answer until a tool has started; the tests
assert that order (`fake_llm.holds`), never how long anything took.
"""

import asyncio
from types import SimpleNamespace as NS
from typing import Any

import pytest

from custom_components.agentic_conversation.agent import (
    AgenticLoop,
    LLMBadResponseError,
    LLMTimeoutError,
    LoopLimits,
    OpenAICompatibleProvider,
    StopReason,
    ToolCall,
    ToolCallFinished,
    ToolCallsRequested,
    ToolHeldError,
)
from custom_components.agentic_conversation.agent.openai_response import StreamAssembler
from tests.fake_llm import FakeLLM, Reply, arguments_of, stream_end

from .common import Dispatcher, Events, assert_consistent, envelope


class Lights:
    """A tool recording the order of starts; `started` is set by the first."""

    def __init__(self, *, hang: bool = False) -> None:
        """Answer at once, or never (until cancelled)."""
        self.started = asyncio.Event()
        self.order: list[str] = []
        self.hang = hang
        self.cancelled = False

    async def __call__(self, room: str) -> dict[str, Any]:
        """Switch a room's lights on."""
        self.order.append(room)
        self.started.set()
        if self.hang:
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                self.cancelled = True
                raise
        return {"room": room, "on": True}


def _sse(*deltas: dict[str, Any], finish: str | None = "tool_calls") -> list[Any]:
    chunks = [{"choices": [{"index": 0, "delta": d}]} for d in deltas]
    chunks.append({"choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
    return chunks


def _head(index: int, call_id: str, name: str, arguments: str) -> dict[str, Any]:
    return {
        "tool_calls": [
            {
                "index": index,
                "id": call_id,
                "type": "function",
                "function": {"name": name, "arguments": arguments},
            }
        ]
    }


async def test_a_complete_call_runs_while_the_next_streams(
    fake_llm: FakeLLM, provider: OpenAICompatibleProvider
) -> None:
    """Call 0 starts before call 1's arguments are sent; results in request order."""
    lights = Lights()
    fake_llm.script(
        [
            Reply.tool_calls(
                [
                    ("lights", {"room": "kitchen"}, "c0"),
                    ("lights", {"room": "hall"}, "c1"),
                ]
            ).held(arguments_of(1), lights.started),
            Reply.text("Both are on."),
        ]
    )
    tools = Dispatcher(lights=lights)
    events = Events()

    result = await AgenticLoop(provider, tools).run(
        "lights on", [], tools.specs, on_event=events
    )

    assert fake_llm.holds == [True]
    assert lights.order == ["kitchen", "hall"]
    assert result.text == "Both are on."
    sent = fake_llm.requests[1]["messages"]
    assert [m.get("tool_call_id") for m in sent[-2:]] == ["c0", "c1"]
    assert_consistent(result.messages)
    # The request is announced before any result, whenever the tools started.
    assert events.kinds[:4] == [
        "LLMCallStarted",
        "ToolCallsRequested",
        "ToolCallFinished",
        "ToolCallFinished",
    ]


async def test_a_call_followed_by_text_runs_before_the_text_ends(
    fake_llm: FakeLLM, provider: OpenAICompatibleProvider
) -> None:
    """Whole JSON arguments, then a chunk of text: the call runs at once."""
    lights = Lights()
    fake_llm.script(
        [
            Reply.sse(
                _sse(
                    _head(0, "c0", "lights", '{"room": "kitchen"}'),
                    {"content": "Turning it on."},
                )
            ).held(stream_end, lights.started),
            Reply.text("Done."),
        ]
    )
    tools = Dispatcher(lights=lights)

    result = await AgenticLoop(provider, tools).run(
        "kitchen", [], tools.specs, on_event=Events()
    )

    assert fake_llm.holds == [True]
    assert result.messages[1]["content"] == "Turning it on."
    assert envelope(result.messages[2])["result"] == {"room": "kitchen", "on": True}


async def test_the_stream_breaks_after_a_call_started(
    fake_llm: FakeLLM, provider: OpenAICompatibleProvider
) -> None:
    """The started call finishes and is told; the cut-off one never runs."""
    lights = Lights()
    fake_llm.script(
        [
            Reply.sse(
                [
                    {"choices": [{"index": 0, "delta": d}]}
                    for d in (
                        _head(0, "c0", "lights", '{"room": "kitchen"}'),
                        _head(1, "c1", "lights", '{"room": "ha'),
                    )
                ],
                done=False,
            )
        ]
    )
    tools = Dispatcher(lights=lights)
    events = Events()

    result = await AgenticLoop(provider, tools).run(
        "lights", [], tools.specs, on_event=events
    )

    assert result.stop_reason is StopReason.LLM_ERROR
    assert isinstance(result.error, LLMBadResponseError)
    assert lights.order == ["kitchen"]
    assert [(r.call_id, r.ok) for r in result.tool_calls] == [("c0", True)]
    assert_consistent(result.messages)
    assert [type(e).__name__ for e in events.items[1:3]] == [
        "ToolCallsRequested",
        "ToolCallFinished",
    ]


async def test_cancelled_while_a_started_tool_runs_and_the_model_streams(
    fake_llm: FakeLLM, provider: OpenAICompatibleProvider
) -> None:
    """The running tool is cancelled; its call is announced and told as cancelled."""
    lights = Lights(hang=True)
    release = asyncio.Event()
    fake_llm.script(
        [
            Reply.tool_calls(
                [
                    ("lights", {"room": "kitchen"}, "c0"),
                    ("lights", {"room": "hall"}, "c1"),
                ]
            ).held(arguments_of(1), release)
        ]
    )
    tools = Dispatcher(lights=lights)
    events = Events()
    task = asyncio.create_task(
        AgenticLoop(provider, tools).run("lights", [], tools.specs, on_event=events)
    )
    await lights.started.wait()

    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    release.set()

    assert lights.cancelled
    result = events.finished.result
    assert result.stop_reason is StopReason.CANCELLED
    assert_consistent(result.messages)
    (requested,) = events.of(ToolCallsRequested)
    assert [call.id for call in requested.calls] == ["c0"]
    (finished,) = events.of(ToolCallFinished)
    assert finished.record.error == "cancelled"


async def test_the_deadline_while_a_started_tool_runs_and_the_model_streams(
    fake_llm: FakeLLM, provider: OpenAICompatibleProvider
) -> None:
    """Out of time mid-stream: the started call is told it ran out of time."""
    lights = Lights(hang=True)
    release = asyncio.Event()
    fake_llm.script(
        [
            Reply.tool_calls(
                [
                    ("lights", {"room": "kitchen"}, "c0"),
                    ("lights", {"room": "hall"}, "c1"),
                ]
            ).held(arguments_of(1), release)
        ]
    )
    tools = Dispatcher(lights=lights)
    loop = AgenticLoop(provider, tools, LoopLimits(turn_timeout=0.3, tool_timeout=5))

    result = await loop.run("lights", [], tools.specs, on_event=Events())
    release.set()

    assert result.stop_reason is StopReason.DEADLINE
    assert isinstance(result.error, LLMTimeoutError)
    assert lights.cancelled
    assert_consistent(result.messages)
    assert "ran out of time" in envelope(result.messages[-1])["error"]


async def test_an_identical_call_in_the_same_stream_is_not_run_twice(
    fake_llm: FakeLLM, provider: OpenAICompatibleProvider
) -> None:
    """The first runs early; its twin, complete later, shares its result."""
    lights = Lights()
    fake_llm.script(
        [
            Reply.tool_calls(
                [
                    ("lights", {"room": "kitchen"}, "c0"),
                    ("lights", {"room": "kitchen"}, "c1"),
                ]
            ).held(arguments_of(1), lights.started),
            Reply.text("On."),
        ]
    )
    tools = Dispatcher(lights=lights)

    result = await AgenticLoop(provider, tools).run(
        "kitchen", [], tools.specs, on_event=Events()
    )

    assert fake_llm.holds == [True]
    assert lights.order == ["kitchen"]
    assert [r.repeated for r in result.tool_calls] == [False, True]
    assert "note" in envelope(result.messages[3])


async def test_a_held_call_started_early_still_stops_for_confirmation(
    fake_llm: FakeLLM, provider: OpenAICompatibleProvider
) -> None:
    """The held call ran early; the other still runs; the turn stops to ask."""
    started = asyncio.Event()

    async def unlock() -> None:
        started.set()
        raise ToolHeldError("Needs the user's yes.")

    lights = Lights()
    fake_llm.script(
        [
            Reply.tool_calls(
                [("unlock", {}, "c0"), ("lights", {"room": "hall"}, "c1")]
            ).held(arguments_of(1), started)
        ]
    )
    tools = Dispatcher(unlock=unlock, lights=lights)

    result = await AgenticLoop(provider, tools).run(
        "unlock", [], tools.specs, on_event=Events()
    )

    assert fake_llm.holds == [True]
    assert result.stop_reason is StopReason.CONFIRMATION
    assert [(r.name, r.held, r.ok) for r in result.tool_calls] == [
        ("unlock", True, False),
        ("lights", False, True),
    ]
    assert len(fake_llm.requests) == 1


async def test_cut_off_after_a_complete_call_keeps_what_ran(
    fake_llm: FakeLLM, provider: OpenAICompatibleProvider
) -> None:
    """Finish reason `length`: the complete call ran and is kept, the cut one not."""
    lights = Lights()
    fake_llm.script(
        [
            Reply.sse(
                _sse(
                    _head(0, "c0", "lights", '{"room": "kitchen"}'),
                    _head(1, "c1", "lights", '{"room": "ha'),
                    finish="length",
                )
            )
        ]
    )
    tools = Dispatcher(lights=lights)

    result = await AgenticLoop(provider, tools).run(
        "lights", [], tools.specs, on_event=Events()
    )

    assert result.stop_reason is StopReason.CUT_OFF
    assert lights.order == ["kitchen"]
    assert [r.call_id for r in result.tool_calls] == ["c0"]
    assert_consistent(result.messages)


def _chunk(*fragments: dict[str, Any], text: str = "", finish: str | None = None) -> NS:
    calls = [
        NS(
            index=f.get("index"),
            id=f.get("id"),
            function=NS(name=f.get("name"), arguments=f.get("arguments")),
        )
        for f in fragments
    ]
    return NS(
        choices=[
            NS(finish_reason=finish, delta=NS(tool_calls=calls, content=text or None))
        ]
    )


def test_assembler_hands_over_calls_once_complete() -> None:
    """Handed over when the stream moves on with whole JSON; the response agrees."""
    handed: list[tuple[int, ToolCall]] = []
    chunks = [
        _chunk({"index": 0, "id": "a", "name": "x", "arguments": '{"n": '}),
        _chunk({"index": 0, "arguments": "1}"}),
        _chunk({"index": 1, "id": "a", "name": "y", "arguments": ""}),  # same id
        _chunk({"index": 1, "arguments": "{}"}),
        _chunk({"index": 2, "id": "c", "name": "z", "arguments": "not json"}),
        _chunk(text="Hm."),
        _chunk(finish="tool_calls"),
    ]
    at = [0]
    assembler = StreamAssembler(lambda call: handed.append((at[0], call)))
    for at[0], chunk in enumerate(chunks):
        assembler.add(chunk)

    response = assembler.response()
    assert [(step, call.name) for step, call in handed] == [(2, "x"), (4, "y")]
    assert response.tool_calls[:2] == [call for _, call in handed]
    assert response.tool_calls[1].id not in {"a", ""}  # a duplicate id is replaced
    assert response.tool_calls[2] == ToolCall("c", "z", "not json")


def test_assembler_waits_for_interleaved_arguments(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Heads first, arguments later: nothing is handed over before it is whole."""
    handed: list[str] = []
    assembler = StreamAssembler(lambda call: handed.append(call.id))
    assembler.add(_chunk({"index": 0, "id": "a", "name": "x", "arguments": ""}))
    assembler.add(_chunk({"index": 1, "id": "b", "name": "y", "arguments": ""}))
    assert handed == []
    assembler.add(_chunk({"index": 0, "arguments": "{}"}))
    assembler.add(_chunk({"index": 1, "arguments": '{"k": 1}'}))
    assert handed == ["a"]
    # A late fragment for a call handed over is ignored: what ran is what counts.
    assembler.add(_chunk({"index": 0, "arguments": '"more"'}))
    assert handed == ["a", "b"]
    assembler.add(_chunk(finish="tool_calls"))

    response = assembler.response()
    assert response.tool_calls == [ToolCall("a", "x", {}), ToolCall("b", "y", {"k": 1})]
    assert "after it was complete" in caplog.text
