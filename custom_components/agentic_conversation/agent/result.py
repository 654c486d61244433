"""The outcome of one agentic turn."""

from dataclasses import dataclass, field
from enum import StrEnum

from .errors import LLMError
from .messages import Message
from .tool_calls import ToolCallRecord


class StopReason(StrEnum):
    """Why a turn ended."""

    FINAL = "final"
    """The LLM gave its answer."""
    ITERATION_CAP = "iteration_cap"
    """Too many tool rounds (or the same call repeated); answered without tools."""
    DEADLINE = "deadline"
    """The turn's time limit ran out."""
    CANCELLED = "cancelled"
    """The task running the turn was cancelled."""
    LLM_ERROR = "llm_error"
    """The LLM failed; `LoopResult.error` says how."""
    REFUSED = "refused"
    """The server's content filter stopped the answer; `text` is our refusal."""
    CUT_OFF = "cut_off"
    """The answer ran out of tokens before any text; `text` says so."""
    CONFIRMATION = "confirmation"
    """A tool call was held for the user's confirmation; the turn asks, not answers."""


@dataclass(slots=True)
class LoopResult:
    """The outcome of one turn.

    Attributes:
        text: The final answer; after the iteration cap possibly a summary of what was
            and was not done; our own English words for REFUSED and CUT_OFF; "" for
            deadline, cancellation, confirmation and LLM errors.
        messages: What this turn adds to history: the user message, the assistant
            tool-call messages each followed by one tool message per call, and the final
            assistant message if there is one.
        iterations: LLM calls made in the turn (the final-answer call included).
        tool_calls: Records of all tool calls, in request order.
        stop_reason: Why the turn ended.
        error: The LLM error, for LLM_ERROR and DEADLINE (and a failed final-answer
            call after the iteration cap).
        finish_reason: The finish reason of the last LLM response.
        summarized: `text` is the loop's own English summary (after the iteration
            cap, when the LLM gave no final answer), not the LLM's words.
    """

    text: str
    messages: list[Message]
    iterations: int
    tool_calls: list[ToolCallRecord] = field(default_factory=list)
    stop_reason: StopReason = StopReason.FINAL
    error: LLMError | None = None
    finish_reason: str | None = None
    summarized: bool = False
