"""RESPONSE_COMPOSITION: the words a turn ends with, when the model's are not enough."""

from collections import Counter
from collections.abc import Iterable, Sequence
import logging

from .provider import LLMResponse
from .result import StopReason
from .tool_calls import ToolCallRecord

_LOGGER = logging.getLogger(__name__)

FINAL_ANSWER_INSTRUCTION = (
    "You have used all the tool calls allowed for this request. Do not call any more "
    "tools. Answer the user now, using only what you have learned so far, and say "
    "briefly what you could not do."
)
# English, for history and HA-free callers; the HA layer speaks translated words for
# the REFUSED and CUT_OFF stop reasons.
REFUSAL_TEXT = "I can't help with that request."
CUT_OFF_TEXT = "Sorry, my answer was cut off."


def compose(response: LLMResponse, reason: StopReason) -> tuple[str, StopReason]:
    """The final answer of a response and why the turn ends, by its finish reason.

    A filtered answer and an answer cut off before any text get their own stop
    reasons, so the caller can say them in the user's language.
    """
    if response.finish_reason == "content_filter":
        return REFUSAL_TEXT, StopReason.REFUSED
    if response.finish_reason == "length":
        if response.tool_calls:
            _LOGGER.warning(
                "The LLM ran out of tokens while calling tools; running none not yet started"
            )
        if not response.text:
            return CUT_OFF_TEXT, StopReason.CUT_OFF
    return response.text, reason


def summarize(records: Sequence[ToolCallRecord]) -> str:
    """A short English account of what a turn did and did not do, for the cap."""
    done = _names(r for r in records if r.ok and not r.repeated)
    failed = _names(r for r in records if not r.ok and not r.repeated)
    parts = ["I couldn't finish this request within the steps allowed."]
    if done:
        parts.append(f"Done: {done}.")
    if failed:
        parts.append(f"Not done: {failed}.")
    if not done and not failed:
        parts.append("Nothing was done.")
    return " ".join(parts)


def _names(records: Iterable[ToolCallRecord]) -> str:
    counts = Counter(record.name for record in records)
    return ", ".join(
        name if count == 1 else f"{name} ({count} times)"
        for name, count in counts.items()
    )
