"""An `LLMProvider` that reports each answer's token usage."""

from .provider import Call, LLMProvider, LLMResponse, WrappedProvider
from .usage import UsageCallback


class MeteredProvider(WrappedProvider):
    """Any `LLMProvider`; `on_usage` hears the usage of every answer it gives."""

    def __init__(self, provider: LLMProvider, on_usage: UsageCallback) -> None:
        """Wrap a provider."""
        self._provider = provider
        self._on_usage = on_usage

    async def async_call(self, call: Call) -> LLMResponse:
        """Ask the provider; report the answer's usage."""
        response = await call.ask(self._provider)
        if response.usage is not None:
            self._on_usage(response.usage)
        return response
