"""An `LLMProvider` that reports each answer's token usage, within a spending budget."""

from collections.abc import Sequence
from typing import Protocol

from .context_budget import CHARS_PER_TOKEN, message_size, tools_size
from .errors import LLMBudgetError, LLMError
from .messages import Message
from .provider import Call, LLMProvider, LLMResponse, WrappedProvider
from .tool_calls import ToolSpec
from .usage import Usage, UsageCallback

NOTHING = Usage(0, 0)
"""What a request the server turned away spent."""


class Hold(Protocol):
    """What one request may spend, held from the budget until it is settled."""

    def settle(self, usage: Usage | None) -> None:
        """The request is over: it spent `usage` (None: the estimate held)."""


class Spending(Protocol):
    """A budget, as each request sees it: hold its estimate first, or refuse it."""

    def reserve(self, estimate: Usage) -> Hold | None:
        """Hold what a request of this estimated usage may spend; None: refused."""


def estimated_usage(
    messages: Sequence[Message], tools: Sequence[ToolSpec], answer_tokens: int
) -> Usage:
    """A request's usage before it is sent: its size as the context budget counts it.

    The answer is counted at its cap (`max_tokens`): it cannot be longer.
    """
    chars = sum(message_size(message) for message in messages) + tools_size(tools)
    return Usage(-(-chars // CHARS_PER_TOKEN), answer_tokens, estimated=True)


def _turned_away(error: LLMError) -> bool:
    """The server answered with a refusal (4xx: rate limit, key, bad request).

    It did no work; any other failure (a server error, a broken connection, a
    timeout) may have been billed.
    """
    status = error.status_code
    return status is not None and 400 <= status < 500


class MeteredProvider(WrappedProvider):
    """Any `LLMProvider` making one request a call; `on_usage` hears its usage.

    With a `budget`, each request first holds its estimated usage: one the budget
    refuses is not sent (`LLMBudgetError`). Requests at the same time hold their
    estimates together, so they cannot pass the budget together; each is settled at
    the usage reported (the estimate stands when it failed without one).
    """

    def __init__(
        self,
        provider: LLMProvider,
        on_usage: UsageCallback,
        *,
        budget: Spending | None = None,
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
        if self._budget is None:
            return self._heard(await call.ask(self._provider))
        estimate = estimated_usage(call.messages, call.tools, self._answer_tokens)
        if (hold := self._budget.reserve(estimate)) is None:
            raise LLMBudgetError(
                f"the spending budget does not allow a request of about"
                f" {estimate.input_tokens} + {estimate.output_tokens} tokens"
            )
        spent: Usage | None = None
        try:
            response = self._heard(await call.ask(self._provider))
            spent = response.usage
        except LLMError as err:
            if _turned_away(err):
                spent = NOTHING
            raise
        finally:
            # Also when the turn is cancelled: the request was sent.
            hold.settle(spent)
        return response

    def _heard(self, response: LLMResponse) -> LLMResponse:
        if response.usage is not None:
            self._on_usage(response.usage)
        return response
