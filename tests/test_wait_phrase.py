"""The "One moment." phrase in the delta stream: when, where, and only once.

Delays are tiny and real; a slow round is one whose source waits for the phrase (or
sleeps far past the delay), so the assertions are about order, never duration.
"""

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from custom_components.agentic_conversation.words.wait_phrase import say_while_waiting

PHRASE: dict[str, Any] = {"content": "One moment."}
CALLS: dict[str, Any] = {"tool_calls": ["a call"]}
RESULT: dict[str, Any] = {"role": "tool_result", "tool_call_id": "a"}


async def _collect(
    source: AsyncIterator[dict[str, Any]],
    out: list[dict[str, Any]],
    said: asyncio.Event | None = None,
) -> None:
    async for delta in say_while_waiting(source, 0.01, PHRASE):
        out.append(delta)
        if delta is PHRASE and said is not None:
            said.set()


async def test_a_slow_round_with_nothing_said_gets_the_phrase_once() -> None:
    """Phrase, then the held call and result; a second slow round gets nothing."""
    out: list[dict[str, Any]] = []
    said = asyncio.Event()

    async def source() -> AsyncIterator[dict[str, Any]]:
        yield {"role": "assistant"}
        yield CALLS
        await said.wait()  # the tools run until the phrase was said
        yield RESULT
        yield {"role": "assistant"}
        yield CALLS
        await asyncio.sleep(0.1)  # ten times the delay: said already, so nothing
        yield RESULT
        yield {"role": "assistant"}
        yield {"content": "Done."}

    await _collect(source(), out, said)

    assert out == [
        {"role": "assistant"},
        PHRASE,
        CALLS,
        RESULT,
        {"role": "assistant"},
        CALLS,
        RESULT,
        {"role": "assistant"},
        {"content": "Done."},
    ]


async def test_nothing_added_after_words_or_for_quick_tools() -> None:
    """Text came first, or the round ended in time: the deltas pass unchanged."""
    said_first: list[dict[str, Any]] = [
        {"role": "assistant"},
        {"content": "Sure."},
        CALLS,
        RESULT,
        {"role": "assistant"},
    ]
    quick: list[dict[str, Any]] = [
        {"role": "assistant"},
        CALLS,
        RESULT,
        {"role": "assistant"},
        CALLS,
    ]

    for deltas, pause in ((said_first, 0.1), (quick, 0.0)):
        out: list[dict[str, Any]] = []

        async def source(
            deltas: list[dict[str, Any]] = deltas, pause: float = pause
        ) -> AsyncIterator[dict[str, Any]]:
            for delta in deltas:
                yield delta
                if delta is CALLS:
                    await asyncio.sleep(pause)

        await _collect(source(), out)
        assert out == deltas


async def test_closing_early_stops_the_source() -> None:
    """The consumer goes away while a round is held: the source is closed too."""
    closed = asyncio.Event()

    async def source() -> AsyncIterator[dict[str, Any]]:
        try:
            yield CALLS
            await asyncio.Event().wait()
            yield RESULT
        finally:
            closed.set()

    stream = say_while_waiting(source(), 0.01, PHRASE)
    assert await anext(stream) == PHRASE
    await stream.aclose()

    assert closed.is_set()
