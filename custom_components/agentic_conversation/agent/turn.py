"""The state of one agentic turn: messages so far, tool-call slots, bookkeeping."""

from collections import Counter
from collections.abc import Callable, Sequence
import time
from typing import Any

from .context_budget import ContextFitter, budget_chars
from .errors import LLMError
from .events import ToolCallFinished, ToolCallsRequested
from .limits import LoopLimits
from .messages import (
    Message,
    UserContent,
    assistant_message,
    tool_message,
    user_message,
    with_system_prompt,
)
from .provider import ToolCall
from .result import LoopResult, StopReason
from .tool_calls import ToolCallRecord, ToolSpec, cancelled_record

# The third identical call in a turn ends the tool phase.
REPEAT_LIMIT = 3
REPEATED_NOTE = (
    "This exact call was already made in this request; this is its earlier result. "
    "It was not run again."
)
REPEATED_AGAIN_NOTE = (
    "This exact call was already made twice in this request; this is its earlier "
    "result. Stop calling it and answer the user."
)


class Turn:
    """The mutable state of one turn of the loop."""

    def __init__(
        self,
        history: Sequence[Message],
        system_prompt: str | None,
        user_text: UserContent,
        tools: Sequence[ToolSpec],
        limits: LoopLimits = LoopLimits(),
    ) -> None:
        """Start a turn after the history, under the limits' context window."""
        self.prefix = with_system_prompt(history, system_prompt)
        self.fitter = (
            None
            if limits.context_tokens is None
            else ContextFitter(
                self.prefix,
                tools,
                budget_chars(limits.context_tokens, limits.answer_tokens),
            )
        )
        self.messages: list[Message] = [user_message(user_text)]
        self.tools = tools
        self.offered = frozenset(tool.name for tool in tools)
        self.records: list[ToolCallRecord] = []
        self.iterations = 0
        self.text = ""
        self.stop_reason = StopReason.FINAL
        self.error: LLMError | None = None
        self.finish_reason: str | None = None
        self.summarized = False
        # Identical-call bookkeeping: how often requested, and the first record.
        self.requests: Counter[tuple[str, str]] = Counter()
        self.answered: dict[tuple[str, str], ToolCallRecord] = {}
        self.repeat_limit_hit = False
        # The tool calls of the last assistant message, while their results are open.
        self.open_calls: list[ToolCall] = []
        self.slots: list[ToolCallRecord | None] = []
        self.reported: list[bool] = []
        self.announced = False
        # Asked with the LLM call's number as its text streams: True ends it there.
        self.heard: Callable[[int], bool] | None = None
        # The pictures shown this turn: each kept message's id, and what is sent.
        self._shown: dict[int, Message] = {}

    def outgoing(self, extra: Sequence[Message] = ()) -> list[Message]:
        """The messages to send to the LLM now, fitted to the context window.

        Raises:
            ContextTooSmallError: Not even this turn's messages fit.
        """
        if self.fitter is None:
            messages = [*self.prefix, *self.messages, *extra]
        else:  # fitted by the labels: what an image costs is the server's own count
            messages = self.fitter.fit([*self.messages, *extra])
        return [self._shown.get(id(message), message) for message in messages]

    def show(self, snapshots: Sequence[tuple[str, dict[str, Any]]]) -> None:
        """Put pictures before the model, with the user's words, for this turn only.

        The turn's messages (and so whatever keeps them) hold only their labels
        ("[image from Front door camera, 14:02]"); `outgoing` sends the images.
        """
        if not snapshots:
            return
        labels = " ".join(label for label, _ in snapshots)
        question = self.messages[0].get("content")
        text = (
            f"{labels} The user said: {question}"
            if isinstance(question, str)
            else labels
        )
        kept = user_message(labels)
        self.messages.append(kept)
        self._shown[id(kept)] = user_message(
            [{"type": "text", "text": text}, *(part for _, part in snapshots)]
        )

    def open_tool_phase(self, text: str, calls: list[ToolCall]) -> None:
        """Append the assistant tool-call message; results are filled in as they come."""
        self.messages.append(
            assistant_message(text, [(c.id, c.name, c.arguments) for c in calls])
        )
        self.open_calls = calls
        self.slots = [None] * len(calls)
        self.reported = [False] * len(calls)
        self.announced = False

    def announce(self) -> ToolCallsRequested:
        """The event for the open calls, noted as sent."""
        self.announced = True
        return ToolCallsRequested(self.iterations, list(self.open_calls))

    def repeat_note(self, key: tuple[str, str]) -> str:
        """The note on a result given again instead of running the call again."""
        if self.requests[key] >= REPEAT_LIMIT:
            return REPEATED_AGAIN_NOTE
        return REPEATED_NOTE

    def report(self, index: int) -> ToolCallFinished:
        """The event for a settled call, noted as sent."""
        record = self.slots[index]
        assert record is not None
        self.reported[index] = True
        return ToolCallFinished(record)

    def close_tool_phase(
        self, error: str
    ) -> list[ToolCallsRequested | ToolCallFinished]:
        """Append one tool message per open call, in request order.

        Calls without a result get an error record saying `error`. Returns the events
        not sent yet (the request, if it was not), so that each call gets exactly one.
        """
        now = time.monotonic()
        unreported: list[ToolCallsRequested | ToolCallFinished] = []
        if self.open_calls and not self.announced:
            unreported.append(self.announce())
        for index, call in enumerate(self.open_calls):
            if self.slots[index] is None:
                self.slots[index] = cancelled_record(call, error, now)
            if not self.reported[index]:
                unreported.append(self.report(index))
            record = self.slots[index]
            assert record is not None
            self.records.append(record)
            self.messages.append(tool_message(call.id, record.result))
        self.open_calls = []
        self.slots = []
        self.reported = []
        return unreported

    def finish(
        self, text: str, stop_reason: StopReason, *, summarized: bool = False
    ) -> None:
        """End with a final assistant message (the LLM's, or our summary)."""
        self.text = text
        self.stop_reason = stop_reason
        self.summarized = summarized
        self.messages.append(assistant_message(text))

    def fail(self, stop_reason: StopReason, error: LLMError | None) -> None:
        """End without an answer."""
        self.stop_reason = stop_reason
        self.error = error

    def result(self) -> LoopResult:
        """The outcome so far."""
        return LoopResult(
            text=self.text,
            messages=list(self.messages),
            iterations=self.iterations,
            tool_calls=list(self.records),
            stop_reason=self.stop_reason,
            error=self.error,
            finish_reason=self.finish_reason,
            summarized=self.summarized,
        )
