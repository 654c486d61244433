"""Events a turn emits while it runs, for streaming to a UI or chat log.

Order: LLMCallStarted, TextDelta*, then either ToolCallsRequested and one
ToolCallFinished per call (completion order) and the next LLMCallStarted, or the end;
LoopFinished is always last, whatever the stop reason. Tools may start before
ToolCallsRequested (as soon as their call has streamed in); their events never do.
"""

from dataclasses import dataclass

from .provider import ToolCall
from .result import LoopResult
from .tool_calls import ToolCallRecord


@dataclass(frozen=True, slots=True)
class LLMCallStarted:
    """An LLM call, hence a new assistant message, begins (iteration counts from 1)."""

    iteration: int


@dataclass(frozen=True, slots=True)
class TextDelta:
    """Assistant text as it streams in."""

    text: str


@dataclass(frozen=True, slots=True)
class ToolCallsRequested:
    """The LLM's tool calls for this iteration, before any result is reported."""

    iteration: int
    calls: list[ToolCall]


@dataclass(frozen=True, slots=True)
class ToolCallFinished:
    """One tool call finished (also when cut short by cancellation or the deadline)."""

    record: ToolCallRecord


@dataclass(frozen=True, slots=True)
class LoopFinished:
    """The turn is over; always the last event."""

    result: LoopResult


type LoopEvent = (
    LLMCallStarted | TextDelta | ToolCallsRequested | ToolCallFinished | LoopFinished
)
