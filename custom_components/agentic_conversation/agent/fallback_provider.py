"""An `LLMProvider` that turns to a fallback model when the primary fails to start.

The fallback is asked only when the primary failed before any text was streamed (the
user has heard nothing yet) in a way that says it is unavailable, and the turn has
time left. A primary that failed `BREAKER_THRESHOLD` times in a row is skipped until
its breaker is closed.
"""

import asyncio
from collections.abc import Callable
from dataclasses import replace
import logging

from .errors import (
    LLMAuthError,
    LLMBadRequestError,
    LLMBudgetError,
    LLMConnectionError,
    LLMError,
    LLMFirstTokenTimeoutError,
    LLMForbiddenError,
    LLMRateLimitError,
    LLMServerError,
    LLMTimeoutError,
)
from .provider import Call, LLMProvider, LLMResponse, WrappedProvider
from .resilient_provider import MIN_ATTEMPT_TIME, Clock, StreamWatch
from .route import Route, RouteState

_LOGGER = logging.getLogger(__name__)

# Failures that say the primary is unavailable rather than that the request is wrong.
UNAVAILABLE: tuple[type[LLMError], ...] = (
    LLMConnectionError,
    LLMServerError,
    LLMRateLimitError,
    LLMAuthError,
    LLMForbiddenError,
    LLMTimeoutError,
)


def is_unavailable(error: LLMError) -> bool:
    """Whether an error of the primary is a reason to use the fallback."""
    # 404: the model is gone from the server (deleted, renamed).
    return isinstance(error, UNAVAILABLE) or (
        isinstance(error, LLMBadRequestError) and error.status_code == 404
    )


class FallbackProvider(WrappedProvider):
    """A primary `LLMProvider`, a fallback used when it fails to start, and the route.

    Every call reports to `state` who answered; without a fallback, a failing primary
    reports `down` (and its breaker still skips it, failing fast).
    """

    def __init__(
        self,
        primary: LLMProvider,
        fallback: LLMProvider | None,
        state: RouteState,
        *,
        on_primary_error: Callable[[LLMError], None] | None = None,
        on_primary_outcome: Callable[[LLMError | None], None] | None = None,
        clock: Clock | None = None,
    ) -> None:
        """Wrap the primary and the optional fallback; report to `state`.

        `on_primary_error` hears the primary's failures that send a call to the
        fallback; `on_primary_outcome` every answer (None) or failure of the primary.
        """
        self._primary = primary
        self._fallback = fallback
        self._state = state
        self._on_primary_error = on_primary_error
        self._on_primary_outcome = on_primary_outcome
        self._clock = clock

    async def async_call(self, call: Call) -> LLMResponse:
        """Ask the primary, else the fallback."""
        timeout = call.timeout
        clock = self._clock or asyncio.get_running_loop().time
        started = clock()
        state, breaker = self._state, self._state.breaker
        if breaker.is_open and (last := breaker.last_error) is not None:
            reason = breaker.skip_reason
            # A fresh error of the same kind: without a fallback, the turn says the same.
            error = type(last)(
                reason, status_code=last.status_code, retry_after=last.retry_after
            )
            failure = None  # already recorded as the last error
        else:
            watch = StreamWatch(call.on_delta, call.on_tool_call)
            try:
                response = await watch.call(call).ask(self._primary)
            except LLMBudgetError:
                raise  # not sent: neither the primary's fault nor the fallback's turn
            except LLMError as err:
                if self._on_primary_outcome is not None:
                    self._on_primary_outcome(err)
                left = None if timeout is None else timeout - (clock() - started)
                out_of_time = left is not None and left < MIN_ATTEMPT_TIME
                if (
                    watch.streamed
                    or not is_unavailable(err)
                    # The turn's deadline, not the primary's fault.
                    or (out_of_time and not isinstance(err, LLMFirstTokenTimeoutError))
                ):
                    raise
                breaker.record_failure(err)
                if self._on_primary_error is not None:
                    self._on_primary_error(err)
                error, reason, failure = err, f"primary failed: {err}", str(err)
            else:
                if self._on_primary_outcome is not None:
                    self._on_primary_outcome(None)
                breaker.record_success()
                state.report(Route.OK)
                if response.tool_calls:
                    state.note_calls(from_text=response.calls_from_text)
                return response
        left = None if timeout is None else timeout - (clock() - started)
        return await self._fall_back(
            replace(call, timeout=left), error, reason, failure
        )

    async def _fall_back(
        self, call: Call, error: LLMError, reason: str, failure: str | None
    ) -> LLMResponse:
        """Ask the fallback model in the time left (the call's); report the route."""
        state = self._state
        left = call.timeout
        if self._fallback is None or (left is not None and left < MIN_ATTEMPT_TIME):
            state.report(Route.DOWN, reason=reason, error=failure)
            raise error
        _LOGGER.info("Asking the fallback model (%s)", reason)
        try:
            response = await call.ask(self._fallback)
        except LLMBudgetError:
            raise  # not sent: the budget is spent, the model is not down
        except LLMError as err:
            _LOGGER.warning("The fallback model failed too: %s", err)
            state.report(Route.DOWN, reason=reason, error=f"fallback failed: {err}")
            raise
        state.report(Route.FALLBACK, reason=reason, error=failure)
        if response.tool_calls:
            state.note_calls(from_text=response.calls_from_text)
        return response
