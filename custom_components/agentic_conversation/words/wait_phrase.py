"""A short phrase ("One moment.") when tools run long and nothing was said yet.

A voice satellite is silent while tools run. With the option on, once the tools of a
round have run for the agent's delay and the turn has said nothing, the phrase goes
into the chat log's delta stream (so a streaming TTS speaks it), once per turn.

The Assist pipeline starts streaming to TTS on text followed by a tool call, not on a
few words alone; so the round's tool calls (and any results) are held back while the
phrase may still come, and follow it.
"""

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator, Mapping


async def say_while_waiting[D: Mapping[str, object]](
    deltas: AsyncIterator[D], delay: float, phrase: D
) -> AsyncGenerator[D]:
    """The deltas, with `phrase` put in when a tool round outlasts `delay` seconds."""
    loop = asyncio.get_running_loop()
    said = False
    held: list[D] = []
    deadline = 0.0
    step: asyncio.Future[D] | None = None
    try:
        while True:
            if held:
                if step is None:
                    step = asyncio.ensure_future(_next(deltas))
                done, _ = await asyncio.wait(
                    (step,), timeout=max(deadline - loop.time(), 0.0)
                )
                if not done:  # the tools are still running
                    said = True
                    yield phrase
                    for delta in held:
                        yield delta
                    held = []
                    continue
            try:
                delta = await step if step is not None else await anext(deltas)
            except StopAsyncIteration:
                break
            finally:
                step = None
            if held and "role" in delta and delta["role"] != "tool_result":
                for kept in held:  # the tools are done: the next answer starts
                    yield kept
                held = []
            if held:
                held.append(delta)
                continue
            if delta.get("content"):
                said = True
            elif delta.get("tool_calls") and not said:
                held = [delta]
                deadline = loop.time() + delay
                continue
            yield delta
        for kept in held:
            yield kept
    finally:
        if step is not None:
            step.cancel()
            await asyncio.gather(step, return_exceptions=True)


async def _next[D](deltas: AsyncIterator[D]) -> D:
    return await anext(deltas)
