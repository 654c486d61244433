"""Chat-completions responses, whole or streamed, to `LLMResponse`.

Read defensively with getattr: the SDK does not validate responses, and
OpenAI-compatible servers differ (arguments as objects, missing ids or indexes).
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
import json
import logging
from typing import Any
import uuid

from .errors import LLMBadResponseError
from .messages import Message, parse_arguments
from .provider import LLMResponse, ToolCall
from .safe_text import safe_text
from .usage import Usage, estimate, usage_of

_LOGGER = logging.getLogger(__name__)


def _new_call_id() -> str:
    return f"call_{uuid.uuid4().hex[:24]}"


def _content_text(content: Any) -> str:
    """Message content as text: a string, or a list of text parts."""
    if isinstance(content, str):
        return safe_text(content)
    if isinstance(content, list):
        return safe_text(
            "".join(
                part.get("text") or "" if isinstance(part, dict) else str(part)
                for part in content
            )
        )
    return ""


def parse_completion(completion: Any) -> LLMResponse:
    """The `LLMResponse` of a non-streamed completion."""
    choices = getattr(completion, "choices", None)
    if not isinstance(choices, list) or not choices:
        raise LLMBadResponseError("the response has no choices")
    message = getattr(choices[0], "message", None)
    if message is None:
        raise LLMBadResponseError("the response has no message")
    text = _content_text(getattr(message, "content", None))
    if not text and isinstance(refusal := getattr(message, "refusal", None), str):
        text = safe_text(refusal)
    calls: list[ToolCall] = []
    seen: set[str] = set()
    for raw in getattr(message, "tool_calls", None) or []:
        function = getattr(raw, "function", None)
        call_id = getattr(raw, "id", None)
        if not isinstance(call_id, str) or not call_id or call_id in seen:
            call_id = _new_call_id()
        seen.add(call_id)
        calls.append(
            ToolCall(
                id=call_id,
                name=str(getattr(function, "name", None) or ""),
                arguments=parse_arguments(getattr(function, "arguments", None)),
            )
        )
    return LLMResponse(
        text=text,
        tool_calls=calls,
        finish_reason=getattr(choices[0], "finish_reason", None),
        usage=usage_of(completion),
    )


@dataclass(slots=True)
class _PartialCall:
    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)
    arguments_object: Any = None

    def raw_arguments(self) -> Any:
        return (
            self.arguments_object
            if self.arguments_object is not None
            else "".join(self.arguments)
        )

    def complete(self) -> bool:
        """Named, with arguments that more fragments could only spoil."""
        if not self.name:
            return False
        if self.arguments_object is not None:
            return True
        text = "".join(self.arguments)
        if not text.strip():
            return False  # arguments may still come (interleaved calls)
        try:
            json.loads(text)
        except ValueError:
            return False
        return True


class StreamAssembler:
    """Puts a streamed completion together, chunk by chunk.

    Tool calls arrive in fragments keyed by `index`: the first usually carries id and
    name, the arguments string is split over many chunks, and several calls can be
    interleaved. With `on_call`, a call is handed over as soon as it is complete: the
    stream has moved on (another call's fragment, text, the finish chunk) and its
    arguments are whole JSON. The response then holds that same `ToolCall`.
    """

    def __init__(self, on_call: Callable[[ToolCall], None] | None = None) -> None:
        """Start empty."""
        self._text: list[str] = []
        self._calls: dict[int, _PartialCall] = {}
        self._finish_reason: str | None = None
        self._on_call = on_call
        self._done: dict[int, ToolCall] = {}
        self._ids: set[str] = set()
        self._current: int | None = None
        self._usage: Usage | None = None

    def add(self, chunk: Any) -> str:
        """Take one chunk; return its text delta ("" if none)."""
        if (usage := usage_of(chunk)) is not None:
            self._usage = usage  # the last chunk's, with include_usage
        choices = getattr(chunk, "choices", None)
        if not isinstance(choices, list) or not choices:
            return ""  # e.g. the usage chunk at the end
        choice = choices[0]
        if (finish_reason := getattr(choice, "finish_reason", None)) is not None:
            self._finish_reason = str(finish_reason)
        delta = getattr(choice, "delta", None)
        current: int | None = None
        text = ""
        if delta is not None:
            for fragment in getattr(delta, "tool_calls", None) or []:
                current = self._add_tool_call(fragment)
            text = _content_text(getattr(delta, "content", None))
            if text:
                self._text.append(text)
        if self._on_call is not None and current != self._current:
            self._hand_over(current)
        self._current = current
        return text

    def _hand_over(self, current: int | None) -> None:
        """Hand over the complete calls the stream has moved on from."""
        assert self._on_call is not None
        for index, partial in self._calls.items():
            if index != current and index not in self._done and partial.complete():
                self._on_call(self._finalize(index))

    def _finalize(self, index: int) -> ToolCall:
        partial = self._calls[index]
        call_id = partial.id
        if not call_id or call_id in self._ids:
            call_id = _new_call_id()
        self._ids.add(call_id)
        call = ToolCall(
            id=call_id,
            name=partial.name,
            arguments=parse_arguments(partial.raw_arguments()),
        )
        self._done[index] = call
        return call

    def _add_tool_call(self, fragment: Any) -> int:
        index = getattr(fragment, "index", None)
        call_id = getattr(fragment, "id", None)
        if not isinstance(index, int):
            # No index (seen from some servers): a new id starts a new call, anything
            # else continues the last one.
            known = {c.id for c in self._calls.values()}
            if call_id and call_id not in known or not self._calls:
                index = max(self._calls, default=-1) + 1
            else:
                index = max(self._calls)
        call = self._calls.setdefault(index, _PartialCall())
        if isinstance(call_id, str) and call_id and not call.id:
            call.id = call_id
        function = getattr(fragment, "function", None)
        if function is None:
            return index
        arguments = getattr(function, "arguments", None)
        if index in self._done:
            # Handed over already (it may be running): what ran is what counts.
            if arguments and (not isinstance(arguments, str) or arguments.strip()):
                _LOGGER.warning(
                    "More arguments for tool call %s after it was complete; ignored",
                    self._done[index].name,
                )
            return index
        name = getattr(function, "name", None)
        if isinstance(name, str) and name and not call.name.endswith(name):
            # Normally sent once; some servers resend it whole, or split it.
            call.name += name
        if isinstance(arguments, str):
            call.arguments.append(arguments)
        elif arguments is not None:
            call.arguments_object = arguments  # Ollama: the object, whole
        return index

    def response(self) -> LLMResponse:
        """The complete response.

        Raises:
            LLMBadResponseError: The stream ended without a finish reason, so the answer
                may be cut off (servers send one in the last chunk).
        """
        if self._finish_reason is None:
            raise LLMBadResponseError("the stream ended before the answer was complete")
        calls = [
            self._done[index] if index in self._done else self._finalize(index)
            for index in sorted(self._calls)
        ]
        return LLMResponse(
            text="".join(self._text),
            tool_calls=calls,
            finish_reason=self._finish_reason,
            usage=self._usage,
        )

    def ended_early(self, text: str) -> LLMResponse:
        """The answer ended by its listener: the text it took, no calls."""
        return LLMResponse(
            text=text,
            tool_calls=[],
            finish_reason="stop",
            usage=self._usage,
        )


def with_usage(response: LLMResponse, messages: Sequence[Message]) -> LLMResponse:
    """The response with its usage: the server's, else estimated."""
    if response.usage is not None:
        return response
    answer = response.text + "".join(str(c.arguments) for c in response.tool_calls)
    return replace(response, usage=estimate(messages, answer))
