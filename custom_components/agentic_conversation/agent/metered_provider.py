"""An `LLMProvider` that reports each answer's token usage, within a spending budget."""

from collections.abc import Callable, Sequence

from .context_budget import CHARS_PER_TOKEN, message_size, tools_size
from .errors import LLMBudgetError
from .messages import Message
from .provider import Call, LLMProvider, LLMResponse, WrappedProvider
from .tool_calls import ToolSpec
from .usage import Usage, UsageCallback

type BudgetCheck = Callable[[Usage], bool]
"""Whether a call of this (estimated) usage may be made."""


def estimated_usage(
    messages: Sequence[Message], tools: Sequence[ToolSpec], answer_tokens: int
) -> Usage:
    """A request's usage before it is sent: its size as the context budget counts it.

    The answer is counted at its cap (`max_tokens`): it cannot be longer.
    """
    chars = sum(message_size(message) for message in messages) + tools_size(tools)
    return Usage(-(-chars // CHARS_PER_TOKEN), answer_tokens, estimated=True)


class MeteredProvider(WrappedProvider):
    """Any `LLMProvider`; `on_usage` hears the usage of every answer it gives.

    With a `budget`, each call is first checked at its estimated usage: a call the
    budget does not allow is not made (`LLMBudgetError`).
    """

    def __init__(
        self,
        provider: LLMProvider,
        on_usage: UsageCallback,
        *,
        budget: BudgetCheck | None = None,
        answer_tokens: int = 0,
    ) -> None:
        """Wrap a provider; `answer_tokens` is its answers' cap, for the estimate."""
        self._provider = provider
        self._on_usage = on_usage
        self._budget = budget
        self._answer_tokens = answer_tokens

    async def async_call(self, call: Call) -> LLMResponse:
        """Ask the provider; report the answer's usage.

        Raises:
            LLMBudgetError: The budget does not allow the call; nothing was sent.
        """
        if self._budget is not None:
            estimate = estimated_usage(call.messages, call.tools, self._answer_tokens)
            if not self._budget(estimate):
                raise LLMBudgetError(
                    f"the spending budget does not allow a request of about"
                    f" {estimate.input_tokens} + {estimate.output_tokens} tokens"
                )
        response = await call.ask(self._provider)
        if response.usage is not None:
            self._on_usage(response.usage)
        return response
