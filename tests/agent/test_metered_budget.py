"""The budget check before each call, free of Home Assistant: estimate, then ask or not."""

import json

import pytest

from custom_components.agentic_conversation.agent import (
    LLMBudgetError,
    LLMResponse,
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


async def test_a_call_the_budget_refuses_is_not_made() -> None:
    """Refused: LLMBudgetError, the provider never asked, no usage reported."""
    inner = ScriptedProvider(LLMResponse("Done.", [], "stop", usage=Usage(10, 2)))
    heard: list[Usage] = []
    asked: list[Usage] = []

    def refuse(usage: Usage) -> bool:
        asked.append(usage)
        return False

    provider = MeteredProvider(inner, heard.append, budget=refuse, answer_tokens=256)

    with pytest.raises(LLMBudgetError):
        await provider.complete(MESSAGES, [])

    assert asked == [estimated_usage(MESSAGES, [], 256)]
    assert inner.steps  # still scripted: not called
    assert heard == []


async def test_a_call_the_budget_allows_is_made_and_counted() -> None:
    """Allowed: the answer, and its real usage to the meter."""
    inner = ScriptedProvider(LLMResponse("Done.", [], "stop", usage=Usage(10, 2)))
    heard: list[Usage] = []
    provider = MeteredProvider(
        inner, heard.append, budget=lambda usage: True, answer_tokens=256
    )

    response = await provider.complete(MESSAGES, [])

    assert response.text == "Done."
    assert heard == [Usage(10, 2)]
