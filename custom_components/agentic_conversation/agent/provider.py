"""What the loop needs from an LLM: one chat completion, optionally streamed."""

from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from .messages import Message
from .tool_calls import ToolSpec
from .usage import Usage

type DeltaCallback = Callable[[str], Awaitable[None] | None]


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A tool call requested by the LLM.

    Attributes:
        id: The call id; the tool result message carries it back.
        name: The tool's name.
        arguments: The parsed arguments, or the raw text if it was not a JSON object.
    """

    id: str
    name: str
    arguments: dict[str, Any] | str


@dataclass(frozen=True, slots=True)
class LLMResponse:
    """One complete LLM answer.

    Attributes:
        text: The assistant text ("" if none).
        tool_calls: The requested tool calls, in the order the LLM gave them.
        finish_reason: As the server reported it ("stop", "tool_calls", "length", ...).
        calls_from_text: The tool calls were written as text and recovered from it
            (the server's tool parser is not set up).
        usage: The call's tokens (estimated if the server did not say).
    """

    text: str
    tool_calls: list[ToolCall]
    finish_reason: str | None
    calls_from_text: bool = False
    usage: Usage | None = None


class AnswerHeard(Exception):
    """Raised by an `on_delta` callback: the listener has heard enough of this answer.

    The provider ends the answer there (its stream closed: the model stops writing)
    and returns the text the listener took; a call not yet whole is dropped.
    """


# Takes a complete tool call while the answer still streams; must not block.
type ToolCallCallback = Callable[[ToolCall], None]


class LLMProvider(Protocol):
    """An LLM speaking the chat-completions protocol.

    Implementations raise only `LLMError` subclasses for failures of the LLM.
    """

    async def complete(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec],
        *,
        tool_choice: str | None = None,
        on_delta: DeltaCallback | None = None,
        on_tool_call: ToolCallCallback | None = None,
        timeout: float | None = None,  # noqa: ASYNC109 - a bound passed to the SDK
        response_format: Mapping[str, Any] | None = None,
    ) -> LLMResponse:
        """Run one chat completion.

        Args:
            messages: The whole conversation to send, system prompt first.
            tools: The tools offered; none means neither tools nor tool_choice is sent.
            tool_choice: "auto" when None and tools are offered; "none" forbids calls.
            on_delta: If given, called with each piece of text as it streams in; it
                may raise `AnswerHeard` to end the answer there.
            on_tool_call: If given, may be called once per tool call as soon as it is
                complete, before the response is; the response holds the same call.
            timeout: Upper bound in seconds for this call, on top of the provider's own.
            response_format: The answer's format (e.g. a JSON schema), sent as is.
        """
        ...


@dataclass(frozen=True, slots=True)
class Call:
    """One `complete` call's arguments, as a wrapper passes them on (as is, or replaced).

    A new parameter of `LLMProvider.complete` is added here and in
    `WrappedProvider.complete`; every wrapper passes it on unchanged.
    """

    messages: Sequence[Message]
    tools: Sequence[ToolSpec]
    tool_choice: str | None = None
    on_delta: DeltaCallback | None = None
    on_tool_call: ToolCallCallback | None = None
    timeout: float | None = None
    response_format: Mapping[str, Any] | None = None

    async def ask(self, provider: LLMProvider) -> LLMResponse:
        """Make this call of a provider."""
        return await provider.complete(
            self.messages,
            self.tools,
            tool_choice=self.tool_choice,
            on_delta=self.on_delta,
            on_tool_call=self.on_tool_call,
            timeout=self.timeout,
            response_format=self.response_format,
        )


class WrappedProvider(ABC):
    """An `LLMProvider` around other providers: it handles each call as a `Call`."""

    async def complete(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec],
        *,
        tool_choice: str | None = None,
        on_delta: DeltaCallback | None = None,
        on_tool_call: ToolCallCallback | None = None,
        timeout: float | None = None,  # noqa: ASYNC109 - a bound passed on
        response_format: Mapping[str, Any] | None = None,
    ) -> LLMResponse:
        """See `LLMProvider.complete`."""
        return await self.async_call(
            Call(
                messages,
                tools,
                tool_choice,
                on_delta,
                on_tool_call,
                timeout,
                response_format,
            )
        )

    @abstractmethod
    async def async_call(self, call: Call) -> LLMResponse:
        """Run the call, passing it on to the wrapped providers."""
