"""Benchmark: what the agentic loop itself costs, apart from the LLM and the tools.

1. Loop overhead per iteration: an in-process provider answering at once (always one
   tool call, then the final answer) and 10 tools offered that return at once. The
   figure is the time per LLM call of the loop's own work: building the messages,
   events, dispatching and wrapping the tool result.
2. The tool phase of 3 concurrent tools sleeping 200 ms each, as a ratio to 200 ms
   (1.00 would be perfect concurrency; 3.00 sequential execution).
3. Fitting requests into the context window: time per turn (a tool call, then the
   answer) with a 50-exchange history, without a window, with one it all fits in, and
   with a small one (history results shortened, old exchanges dropped).

Run: scripts/run python bench/loop_overhead.py [--turns N]
"""

import argparse
import asyncio
from collections.abc import Mapping, Sequence
from pathlib import Path
import platform
import statistics
import sys
import time
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from custom_components.agentic_conversation.agent import (  # noqa: E402
    AgenticLoop,
    DeltaCallback,
    LLMResponse,
    LoopEvent,
    LoopLimits,
    Message,
    ToolCall,
    ToolCallCallback,
    ToolSpec,
)

TOOLS = [
    ToolSpec(
        f"tool_{i}",
        f"Tool number {i}.",
        {"type": "object", "properties": {"n": {"type": "integer"}}},
    )
    for i in range(10)
]


class ZeroLatencyProvider:
    """An LLMProvider answering at once: `calls_per_turn` tool calls, then text."""

    def __init__(self, iterations_with_tools: int, calls_per_iteration: int) -> None:
        """Initialise with the shape of each turn."""
        self._with_tools = iterations_with_tools
        self._calls = calls_per_iteration
        self._count = 0

    async def complete(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec],
        *,
        tool_choice: str | None = None,
        on_delta: DeltaCallback | None = None,
        on_tool_call: ToolCallCallback | None = None,
        timeout: float | None = None,  # noqa: ASYNC109 - the protocol's
        response_format: Mapping[str, Any] | None = None,
    ) -> LLMResponse:
        """The next scripted answer; a new turn starts after each text answer."""
        self._count += 1
        if self._count > self._with_tools:
            self._count = 0
            if on_delta is not None:
                await _maybe_await(on_delta("Done."))
            return LLMResponse("Done.", [], "stop")
        calls = [
            ToolCall(
                f"call_{self._count}_{i}",
                TOOLS[(self._count + i) % len(TOOLS)].name,
                {"n": self._count * 100 + i},  # distinct: no repeated-call shortcut
            )
            for i in range(self._calls)
        ]
        return LLMResponse("", calls, "tool_calls")


async def _maybe_await(value: Any) -> None:
    if asyncio.iscoroutine(value):
        await value


async def instant_tool(name: str, arguments: dict[str, Any]) -> Any:
    """A tool returning at once."""
    return {"tool": name, "n": arguments["n"], "state": "on"}


async def slow_tool(name: str, arguments: dict[str, Any]) -> Any:
    """A tool taking 200 ms."""
    await asyncio.sleep(0.2)
    return {"tool": name, "done": True}


async def overhead(
    turns: int, *, calls_per_iteration: int, with_events: bool
) -> tuple[float, float]:
    """Median and 90th percentile µs per iteration over many 5-iteration turns."""
    provider = ZeroLatencyProvider(4, calls_per_iteration)
    loop = AgenticLoop(provider, instant_tool, system_prompt="You are a benchmark.")
    history: list[Message] = [
        {"role": "user", "content": f"question {i}"} for i in range(10)
    ]
    events: list[LoopEvent] = []
    on_event = events.append if with_events else None
    per_iteration: list[float] = []
    for _ in range(turns // 10):  # warm-up
        await loop.run("hi", history, TOOLS, on_event=on_event)
    for _ in range(turns):
        events.clear()
        start = time.perf_counter()
        result = await loop.run("hi", history, TOOLS, on_event=on_event)
        elapsed = time.perf_counter() - start
        per_iteration.append(elapsed / result.iterations * 1e6)
    deciles = statistics.quantiles(per_iteration, n=10)
    return statistics.median(per_iteration), deciles[8]


async def tool_phase(rounds: int) -> list[float]:
    """Tool phase duration of 3 × 200 ms tools, as ratios to 200 ms."""
    loop = AgenticLoop(ZeroLatencyProvider(1, 3), slow_tool, LoopLimits())
    ratios = []
    for _ in range(rounds):
        result = await loop.run("go", [], TOOLS)
        records = result.tool_calls
        phase = max(r.finished_at for r in records) - min(r.started_at for r in records)
        ratios.append(phase / 0.2)
    return ratios


def long_history(exchanges: int) -> list[Message]:
    """Earlier exchanges: question, tool call, a 600-character result, answer."""
    history: list[Message] = []
    for n in range(exchanges):
        history += [
            {"role": "user", "content": f"question {n}: is the porch light on?"},
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {
                        "id": f"h{n}",
                        "type": "function",
                        "function": {"name": "tool_1", "arguments": '{"n": 1}'},
                    }
                ],
            },
            {
                "role": "tool",
                "tool_call_id": f"h{n}",
                "content": f'{{"success": true, "result": "{"state " * 100}"}}',
            },
            {"role": "assistant", "content": f"Answer {n}: yes, it is on."},
        ]
    return history


async def fitting(turns: int, context_tokens: int | None) -> tuple[float, float]:
    """Median and 90th percentile µs per turn of 2 LLM calls, 50-exchange history."""
    limits = LoopLimits(context_tokens=context_tokens, answer_tokens=1024)
    loop = AgenticLoop(
        ZeroLatencyProvider(1, 1), instant_tool, limits, system_prompt="You are a bot."
    )
    history = long_history(50)
    per_turn: list[float] = []
    for _ in range(turns // 10):  # warm-up
        await loop.run("turn it off", history, TOOLS)
    for _ in range(turns):
        start = time.perf_counter()
        await loop.run("turn it off", history, TOOLS)
        per_turn.append((time.perf_counter() - start) * 1e6)
    return statistics.median(per_turn), statistics.quantiles(per_turn, n=10)[8]


async def main(turns: int) -> None:
    """Run and print the figures."""
    print(
        f"Python {platform.python_version()} on {platform.system()}"
        f" {platform.machine()}, {turns} turns of 5 LLM calls (4 with tools)"
    )
    for calls, with_events in ((1, False), (1, True), (3, True)):
        median, p90 = await overhead(
            turns, calls_per_iteration=calls, with_events=with_events
        )
        print(
            f"loop overhead, {calls} tool call(s)/iteration,"
            f" events {'on ' if with_events else 'off'}:"
            f" median {median:7.1f} µs/iteration, p90 {p90:7.1f} µs"
        )
    ratios = await tool_phase(5)
    print(
        "tool phase, 3 concurrent tools of 200 ms: "
        f"median {statistics.median(ratios):.3f} × 200 ms"
        f" (min {min(ratios):.3f}, max {max(ratios):.3f})"
    )
    for label, window in (
        ("no window", None),
        ("128000-token window, all fits", 128_000),
        ("4096-token window, trimmed", 4096),
    ):
        median, p90 = await fitting(turns // 4, window)
        print(
            f"turn with a 50-exchange history, {label}:"
            f" median {median:7.1f} µs/turn, p90 {p90:7.1f} µs"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=2000)
    asyncio.run(main(parser.parse_args().turns))
