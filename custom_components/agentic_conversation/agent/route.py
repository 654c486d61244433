"""Which way an agent's answers take, and the breaker that skips a failing primary."""

from collections.abc import Callable
from enum import StrEnum
import logging

from .errors import LLMError

_LOGGER = logging.getLogger(__name__)

BREAKER_THRESHOLD = 3
"""Failures of the primary in a row that open the breaker."""


class Route(StrEnum):
    """Who answered an agent's last LLM call (the route sensor's states)."""

    OK = "ok"
    """The primary model."""
    FALLBACK = "fallback"
    """The fallback model: the primary failed or its breaker is open."""
    LOCAL = "local"
    """Home Assistant's own agent (reported by the HA layer)."""
    DOWN = "down"
    """Nobody: every route failed."""


class CircuitBreaker:
    """Counts the primary's failures in a row; open, the primary is skipped.

    It opens after `threshold` failures and stays open until `close()` (the caller
    checks the primary in the background; `on_open` tells it when to start).
    """

    def __init__(self, threshold: int = BREAKER_THRESHOLD) -> None:
        """Start closed."""
        self.threshold = threshold
        self.failures = 0
        self.is_open = False
        self.last_error: LLMError | None = None
        self.on_open: Callable[[], None] | None = None
        self._tripped_because: str | None = None

    def record_failure(self, error: LLMError) -> None:
        """One more failure; opens the breaker at the threshold."""
        self.failures += 1
        self.last_error = error
        if not self.is_open and self.failures >= self.threshold:
            self.is_open = True
            _LOGGER.warning(
                "The primary model failed %d times in a row (%s); skipping it until"
                " it answers again",
                self.failures,
                error,
            )
            if self.on_open is not None:
                self.on_open()

    def trip(self, error: LLMError, because: str) -> None:
        """Open now, without counting failures (the server did not answer at start-up)."""
        self.last_error = error
        self._tripped_because = because
        if not self.is_open:
            self.is_open = True
            if self.on_open is not None:
                self.on_open()

    @property
    def skip_reason(self) -> str:
        """Why the primary is skipped while the breaker is open."""
        if self._tripped_because is not None:
            return f"primary skipped: {self._tripped_because}"
        return f"primary skipped after {self.failures} failures: {self.last_error}"

    def record_success(self) -> None:
        """The primary answered."""
        self.failures = 0
        self.is_open = False
        self._tripped_because = None

    def close(self) -> None:
        """The primary answers again: use it."""
        if self.is_open:
            _LOGGER.info("The primary model answers again; using it")
        self.record_success()


# What the Route sensor shows of the last repair (it quotes what the model sent).
_REPAIR_CHARS = 255


class RouteState:
    """An agent's route: who answered last, why the primary was skipped, the breaker.

    Attributes:
        route: Who answered the last LLM call.
        reason: Why the primary did not answer it (None when it did).
        last_error: The last failure of a route, kept after recovery.
        breaker: Skips the primary after repeated failures.
        calls_as_text: The model's last tool calls came written as text (the
            server's tool-call parser is not set up); we carried them out.
        repaired_calls: Tool calls whose name or arguments we repaired (a model
            that slips: wrong case, a prefix, wrapped arguments…), since start.
        last_repair: What was repaired last, in words.
        last_verified: What the house showed of the last turn's actions, in
            words ("2 done, 1 not done").
    """

    def __init__(self, threshold: int = BREAKER_THRESHOLD) -> None:
        """Start on the primary route."""
        self.route = Route.OK
        self.reason: str | None = None
        self.last_error: str | None = None
        self.breaker = CircuitBreaker(threshold)
        self.calls_as_text = False
        self.repaired_calls = 0
        self.last_repair: str | None = None
        self.last_verified: str | None = None
        self._listeners: list[Callable[[], None]] = []

    def add_listener(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call `listener` after every report; returns a function removing it."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    def note_calls(self, *, from_text: bool) -> None:
        """The model asked for tools: as real calls, or written as text."""
        if from_text != self.calls_as_text:
            self.calls_as_text = from_text
            for listener in list(self._listeners):
                listener()

    def note_repair(self, tool: str, repairs: tuple[str, ...]) -> None:
        """A tool call was carried out (or refused) after repairing these slips."""
        self.repaired_calls += 1
        self.last_repair = (f"{tool}: " + "; ".join(repairs))[:_REPAIR_CHARS]
        for listener in list(self._listeners):
            listener()

    def note_verified(self, summary: str) -> None:
        """What the entities' states showed of a turn's actions."""
        self.last_verified = summary
        for listener in list(self._listeners):
            listener()

    def report(
        self, route: Route, *, reason: str | None = None, error: str | None = None
    ) -> None:
        """Record who answered (or that nobody did), why, and any error."""
        self.route = route
        self.reason = reason
        if error is not None:
            self.last_error = error
        for listener in list(self._listeners):
            listener()
