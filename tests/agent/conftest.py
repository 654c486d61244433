"""Fixtures for the agent core tests: a provider on the fake LLM server."""

from collections.abc import AsyncIterator

import pytest

from custom_components.agentic_conversation.agent import OpenAICompatibleProvider
from tests.fake_llm import MODEL, FakeLLM


@pytest.fixture
async def provider(fake_llm: FakeLLM) -> AsyncIterator[OpenAICompatibleProvider]:
    """The real OpenAI-compatible provider, talking to the fake server."""
    llm = OpenAICompatibleProvider(
        base_url=fake_llm.base_url, api_key=None, model=MODEL
    )
    await llm.async_prepare()
    yield llm
    await llm.close()
