"""Retrying a failed LLM call once: when it helps, when it must not, and how long."""

from collections.abc import AsyncIterator
from typing import Any

import pytest

from custom_components.agentic_conversation.agent import (
    LLMBadRequestError,
    LLMConnectionError,
    LLMRateLimitError,
    LLMResponse,
    LLMServerError,
    LLMStreamBrokenError,
    OpenAICompatibleProvider,
    RetryingProvider,
    ToolCall,
)
from tests.fake_llm import MODEL, FakeLLM, Reply, closed_port_url

HI = [{"role": "user", "content": "hi"}]


class FakeTime:
    """A clock that moves only when slept on: no real waiting."""

    def __init__(self) -> None:
        """Start at 0."""
        self.now = 0.0
        self.slept: list[float] = []

    def clock(self) -> float:
        """The current fake time."""
        return self.now

    async def sleep(self, seconds: float) -> None:
        """Record the wait and move the clock."""
        self.slept.append(seconds)
        self.now += seconds


class Deltas:
    """Collects streamed text."""

    def __init__(self) -> None:
        """Start empty."""
        self.text = ""

    def __call__(self, piece: str) -> None:
        """Collect one piece."""
        self.text += piece


@pytest.fixture
def fake_time() -> FakeTime:
    """Injected sleep and clock."""
    return FakeTime()


@pytest.fixture
def retrying(
    provider: OpenAICompatibleProvider, fake_time: FakeTime
) -> RetryingProvider:
    """The real provider on the fake server, retried with the fake clock."""
    return RetryingProvider(provider, sleep=fake_time.sleep, clock=fake_time.clock)


async def test_server_error_then_answer(
    fake_llm: FakeLLM, retrying: RetryingProvider, fake_time: FakeTime
) -> None:
    """A 500, then success: the answer arrives after one jittered retry."""
    fake_llm.script([Reply.error(500), Reply.text("Hello there.")])
    deltas = Deltas()

    response = await retrying.complete(HI, [], on_delta=deltas, timeout=30)

    assert response.text == deltas.text == "Hello there."
    assert len(fake_llm.requests) == 2
    (delay,) = fake_time.slept
    assert 0.25 <= delay <= 0.75


async def test_rate_limit_honours_retry_after(
    fake_llm: FakeLLM, retrying: RetryingProvider, fake_time: FakeTime
) -> None:
    """429 with Retry-After: 1 waits exactly that long, then answers."""
    fake_llm.script([Reply.error(429, retry_after="1"), Reply.text("ok")])

    response = await retrying.complete(HI, [], timeout=30)

    assert response.text == "ok"
    assert fake_time.slept == [1.0]
    assert len(fake_llm.requests) == 2


async def test_long_retry_after_is_not_waited_for(
    fake_llm: FakeLLM, retrying: RetryingProvider, fake_time: FakeTime
) -> None:
    """A server asking for 30 s is not retried: the turn would hang that long."""
    fake_llm.script([Reply.error(429, retry_after="30"), Reply.text("late")])

    with pytest.raises(LLMRateLimitError):
        await retrying.complete(HI, [], timeout=60)

    assert fake_time.slept == []
    assert len(fake_llm.requests) == 1


async def test_no_retry_once_text_streamed(
    fake_llm: FakeLLM, retrying: RetryingProvider, fake_time: FakeTime
) -> None:
    """The connection drops after text was spoken: no retry (it would repeat)."""
    fake_llm.script([Reply.truncated("Hello wor"), Reply.text("Hello world.")])
    deltas = Deltas()

    with pytest.raises(LLMStreamBrokenError):
        await retrying.complete(HI, [], on_delta=deltas, timeout=30)

    assert deltas.text == "Hello wor"
    assert len(fake_llm.requests) == 1
    assert fake_time.slept == []


async def test_no_retry_without_time_left(
    fake_llm: FakeLLM, retrying: RetryingProvider, fake_time: FakeTime
) -> None:
    """With about a second of the turn left, the error is reported at once."""
    fake_llm.script([Reply.error(503), Reply.text("late")])

    with pytest.raises(LLMServerError):
        await retrying.complete(HI, [], timeout=1.2)

    assert fake_time.slept == []
    assert len(fake_llm.requests) == 1


async def test_bad_request_is_not_retried(
    fake_llm: FakeLLM, retrying: RetryingProvider, fake_time: FakeTime
) -> None:
    """400: asking again would get the same answer."""
    fake_llm.script([Reply.error(400), Reply.text("never")])

    with pytest.raises(LLMBadRequestError):
        await retrying.complete(HI, [], timeout=30)

    assert len(fake_llm.requests) == 1


@pytest.fixture
async def refused(socket_enabled: None) -> AsyncIterator[OpenAICompatibleProvider]:
    """A provider whose server refuses connections."""
    provider = OpenAICompatibleProvider(
        base_url=closed_port_url(), api_key=None, model=MODEL
    )
    yield provider
    await provider.close()


async def test_refused_connection_retried_once(
    refused: OpenAICompatibleProvider, fake_time: FakeTime
) -> None:
    """Connection refused: one retry, then the error (no time limit given)."""
    retrying = RetryingProvider(refused, sleep=fake_time.sleep, clock=fake_time.clock)

    with pytest.raises(LLMConnectionError):
        await retrying.complete(HI, [])

    assert len(fake_time.slept) == 1


async def test_no_retry_once_a_tool_call_was_handed_out(fake_time: FakeTime) -> None:
    """A tool call went out (it may run already), then the server failed: no retry.

    Asking again could do it twice, so the error is reported instead.
    """
    asked: list[int] = []

    class HandsOutThenFails:
        async def complete(
            self, messages: Any, tools: Any, **kwargs: Any
        ) -> LLMResponse:
            asked.append(1)
            if kwargs["on_tool_call"] is not None:
                kwargs["on_tool_call"](ToolCall("c1", "turn_on", {"name": "porch"}))
            raise LLMServerError("HTTP 502", status_code=502)

    retrying = RetryingProvider(
        HandsOutThenFails(), sleep=fake_time.sleep, clock=fake_time.clock
    )
    handed_out: list[str] = []

    with pytest.raises(LLMServerError):
        await retrying.complete(
            HI, [], on_delta=Deltas(), on_tool_call=lambda c: handed_out.append(c.id)
        )

    assert handed_out == ["c1"]
    assert asked == [1]
    assert fake_time.slept == []
