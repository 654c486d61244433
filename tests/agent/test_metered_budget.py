"""The budget check before each call, free of Home Assistant: estimate, then ask or not."""

import asyncio
import json
from typing import Any

import pytest

from custom_components.agentic_conversation.agent import (
    LLMBadRequestError,
    LLMBudgetError,
    LLMConnectionError,
    LLMRateLimitError,
    LLMResponse,
    LLMServerError,
    LLMTimeoutError,
    MeteredProvider,
    Usage,
)
from custom_components.agentic_conversation.agent.metered_provider import (
    estimated_usage,
)

from .common import spec
from .test_loop_inprocess import ScriptedProvider

MESSAGES = [
    {"role": "system", "content": "You are a helpful assistant."},
    {"role": "user", "content": "Turn on the kitchen light, please."},
]


def test_estimate_is_the_request_as_the_context_counts_it_and_the_answer_cap() -> None:
    """Messages and tools as JSON at four characters a token (rounded up)."""
    tools = [spec("weather")]
    chars = sum(len(json.dumps(m)) + 2 for m in MESSAGES) + len(
        json.dumps([t.to_openai() for t in tools])
    )

    usage = estimated_usage(MESSAGES, tools, 1024)

    assert usage == Usage(-(-chars // 4), 1024, estimated=True)


class Held:
    """What one request holds from a `Ledger`."""

    def __init__(self, ledger: Ledger, amount: int) -> None:
        """Hold `amount` tokens of the ledger."""
        self.ledger = ledger
        self.amount = amount

    def settle(self, usage: Usage | None) -> None:
        """Spent `usage` (None: the estimate held)."""
        self.ledger.held -= self.amount
        self.ledger.spent += (
            self.amount if usage is None else usage.input_tokens + usage.output_tokens
        )


class Ledger:
    """A budget in tokens: what requests hold while they run, and what they spent."""

    def __init__(self, limit: int) -> None:
        """Nothing spent or held yet."""
        self.limit = limit
        self.spent = 0
        self.held = 0
        self.asked: list[Usage] = []

    def reserve(self, estimate: Usage) -> Held | None:
        """Hold the estimate if it fits beside what is spent and held."""
        self.asked.append(estimate)
        amount = estimate.input_tokens + estimate.output_tokens
        if self.spent + self.held + amount > self.limit:
            return None
        self.held += amount
        return Held(self, amount)


ESTIMATE = estimated_usage(MESSAGES, [], 256)
SIZE = ESTIMATE.input_tokens + ESTIMATE.output_tokens


async def test_a_call_the_budget_refuses_is_not_made() -> None:
    """Refused: LLMBudgetError, the provider never asked, no usage reported."""
    inner = ScriptedProvider(LLMResponse("Done.", [], "stop", usage=Usage(10, 2)))
    heard: list[Usage] = []
    ledger = Ledger(SIZE - 1)
    provider = MeteredProvider(inner, heard.append, budget=ledger, answer_tokens=256)

    with pytest.raises(LLMBudgetError):
        await provider.complete(MESSAGES, [])

    assert ledger.asked == [ESTIMATE]
    assert inner.steps  # still scripted: not called
    assert heard == []
    assert (ledger.spent, ledger.held) == (0, 0)


async def test_a_call_the_budget_allows_is_made_and_counted() -> None:
    """Allowed: the answer, and its real usage to the meter and the budget."""
    inner = ScriptedProvider(LLMResponse("Done.", [], "stop", usage=Usage(10, 2)))
    heard: list[Usage] = []
    ledger = Ledger(SIZE)
    provider = MeteredProvider(inner, heard.append, budget=ledger, answer_tokens=256)

    response = await provider.complete(MESSAGES, [])

    assert response.text == "Done."
    assert heard == [Usage(10, 2)]
    assert (ledger.spent, ledger.held) == (12, 0)


@pytest.mark.parametrize(
    ("error", "spent"),
    [
        (LLMServerError("HTTP 500", status_code=500), SIZE),
        (LLMConnectionError("connection reset"), SIZE),
        (LLMTimeoutError("no answer in time"), SIZE),
        (asyncio.CancelledError(), SIZE),
        (LLMRateLimitError("HTTP 429", status_code=429), 0),
        (LLMBadRequestError("HTTP 400", status_code=400), 0),
    ],
    ids=["500", "connection", "timeout", "cancelled", "429", "400"],
)
async def test_a_failed_request_keeps_its_estimate_unless_turned_away(
    error: BaseException, spent: int
) -> None:
    """No usage came back: it may have been billed, unless the server said no (4xx)."""
    ledger = Ledger(10 * SIZE)
    heard: list[Usage] = []
    provider = MeteredProvider(
        ScriptedProvider(error), heard.append, budget=ledger, answer_tokens=256
    )

    with pytest.raises(type(error)):
        await provider.complete(MESSAGES, [])

    assert (ledger.spent, ledger.held) == (spent, 0)
    assert heard == []


async def test_requests_at_the_same_time_hold_their_estimates() -> None:
    """Room for two: the third request at the same time is refused, not sent."""
    ledger = Ledger(2 * SIZE + SIZE // 2)
    gate = asyncio.Event()
    sent: list[int] = []

    class Slow(ScriptedProvider):
        async def complete(self, *args: Any, **kwargs: Any) -> LLMResponse:
            sent.append(1)
            await gate.wait()
            return LLMResponse("Done.", [], "stop", usage=Usage(SIZE, 0))

    provider = MeteredProvider(
        Slow(), lambda usage: None, budget=ledger, answer_tokens=256
    )
    calls = [asyncio.create_task(provider.complete(MESSAGES, [])) for _ in range(3)]
    await asyncio.sleep(0)
    gate.set()
    results = await asyncio.gather(*calls, return_exceptions=True)

    assert [type(r).__name__ for r in results] == [
        "LLMResponse",
        "LLMResponse",
        "LLMBudgetError",
    ]
    assert len(sent) == 2
    assert (ledger.spent, ledger.held) == (2 * SIZE, 0)
