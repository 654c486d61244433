"""An `LLMProvider` that retries a failed call once, while that is safe and in time.

Only failures a second try may cure are retried (429, 5xx, connection errors), and only
while no text of the call has been streamed: the user would hear it twice.
"""

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import replace
import inspect
import logging
import random

from .errors import LLMConnectionError, LLMError, LLMRateLimitError, LLMServerError
from .provider import (
    Call,
    DeltaCallback,
    LLMProvider,
    LLMResponse,
    ToolCall,
    ToolCallCallback,
    WrappedProvider,
)

_LOGGER = logging.getLogger(__name__)

RETRYABLE: tuple[type[LLMError], ...] = (
    LLMRateLimitError,
    LLMServerError,
    LLMConnectionError,
)
RETRY_BASE_DELAY = 0.5
"""Seconds before the retry, jittered by ±50% so agents do not retry in step."""
RETRY_MAX_DELAY = 5.0
"""A longer wait (a server's Retry-After) is not worth it: the call fails instead."""
MIN_ATTEMPT_TIME = 1.0
"""The retry needs at least this much of the turn left after the wait."""

type Sleep = Callable[[float], Awaitable[None]]
type Clock = Callable[[], float]


class StreamWatch:
    """Wraps the streaming callbacks to tell whether any text or tool call went out.

    Either means the caller already acted on this answer (spoke it, started a tool):
    asking again, or another model, would say or do it twice.
    """

    def __init__(
        self,
        on_delta: DeltaCallback | None,
        on_tool_call: ToolCallCallback | None = None,
    ) -> None:
        """Watch the given callbacks (None: nothing is streamed)."""
        self._on_delta = on_delta
        self._on_tool_call = on_tool_call
        self.streamed = False

    @property
    def callback(self) -> DeltaCallback | None:
        """The text callback to give the provider."""
        return None if self._on_delta is None else self._forward

    @property
    def tool_callback(self) -> ToolCallCallback | None:
        """The tool-call callback to give the provider."""
        return None if self._on_tool_call is None else self._forward_call

    def call(self, call: Call) -> Call:
        """The call with its callbacks watched."""
        return replace(call, on_delta=self.callback, on_tool_call=self.tool_callback)

    def _forward_call(self, call: ToolCall) -> None:
        assert self._on_tool_call is not None
        self.streamed = True
        self._on_tool_call(call)

    async def _forward(self, text: str) -> None:
        assert self._on_delta is not None
        if text:
            self.streamed = True
        result = self._on_delta(text)
        if inspect.isawaitable(result):
            await result


class RetryingProvider(WrappedProvider):
    """Any `LLMProvider`, its failed calls retried once (jittered, Retry-After honoured).

    The retry waits `RETRY_BASE_DELAY` ±50%, or the server's Retry-After; it is skipped
    when that wait exceeds `max_delay` or would leave the turn less than
    `MIN_ATTEMPT_TIME`.
    """

    def __init__(
        self,
        provider: LLMProvider,
        *,
        base_delay: float | None = None,
        max_delay: float = RETRY_MAX_DELAY,
        sleep: Sleep = asyncio.sleep,
        clock: Clock | None = None,
    ) -> None:
        """Wrap a provider; sleep and clock are injectable for tests."""
        self._provider = provider
        self._base_delay = RETRY_BASE_DELAY if base_delay is None else base_delay
        self._max_delay = max_delay
        self._sleep = sleep
        self._clock = clock

    async def async_call(self, call: Call) -> LLMResponse:
        """Run the call; once more after a retryable failure."""
        clock = self._clock or asyncio.get_running_loop().time
        started = clock()
        watch = StreamWatch(call.on_delta, call.on_tool_call)
        try:
            return await watch.call(call).ask(self._provider)
        except RETRYABLE as err:
            if watch.streamed:
                raise
            delay = self._delay(err)
            left = None if call.timeout is None else call.timeout - (clock() - started)
            if delay is None or (left is not None and left - delay < MIN_ATTEMPT_TIME):
                raise
            _LOGGER.info("LLM call failed (%s); retrying in %.2f s", err, delay)
            await self._sleep(delay)
        return await replace(call, timeout=None if left is None else left - delay).ask(
            self._provider
        )

    def _delay(self, err: LLMError) -> float | None:
        """Seconds to wait before the retry; None: not worth retrying."""
        if err.retry_after is not None:
            wait = max(err.retry_after, 0.0)
        else:
            wait = self._base_delay * random.uniform(0.5, 1.5)  # noqa: S311 - jitter
        return wait if wait <= self._max_delay else None
