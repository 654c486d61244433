"""An `LLMProvider` that reports each answer's token usage."""

from collections.abc import Mapping, Sequence
from typing import Any

from .messages import Message
from .provider import DeltaCallback, LLMProvider, LLMResponse, ToolCallCallback
from .tool_calls import ToolSpec
from .usage import UsageCallback


class MeteredProvider:
    """Any `LLMProvider`; `on_usage` hears the usage of every answer it gives."""

    def __init__(self, provider: LLMProvider, on_usage: UsageCallback) -> None:
        """Wrap a provider."""
        self._provider = provider
        self._on_usage = on_usage

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
        """Ask the provider; report the answer's usage; see `LLMProvider.complete`."""
        response = await self._provider.complete(
            messages,
            tools,
            tool_choice=tool_choice,
            on_delta=on_delta,
            on_tool_call=on_tool_call,
            timeout=timeout,
            response_format=response_format,
        )
        if response.usage is not None:
            self._on_usage(response.usage)
        return response
