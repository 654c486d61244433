"""Each family's written call through the real provider, streamed and whole.

The call is recovered with its arguments and no piece of it reaches the speaker; the
same call with words after it, or inside a reasoning block, is the answer: said whole,
in order, no call made up.
"""

from collections.abc import AsyncIterator

import pytest

from custom_components.agentic_conversation.agent import OpenAICompatibleProvider
from tests.fake_llm import MODEL, FakeLLM, Reply
from tests.written_forms import FAMILY_CALLS, IN_PROSE, IN_REASONING, written

from .common import spec

TOOLS = [spec("assist__HassTurnOn"), spec("get_weather")]


@pytest.fixture(params=[True, False], ids=["streamed", "whole"])
async def provider(
    fake_llm: FakeLLM, request: pytest.FixtureRequest
) -> AsyncIterator[OpenAICompatibleProvider]:
    """The real provider, streaming or not."""
    llm = OpenAICompatibleProvider(
        base_url=fake_llm.base_url, api_key=None, model=MODEL, stream=request.param
    )
    await llm.async_prepare()
    yield llm
    await llm.close()


@pytest.mark.parametrize("form", FAMILY_CALLS)
async def test_a_family_s_call_is_recovered_and_not_said(
    fake_llm: FakeLLM, provider: OpenAICompatibleProvider, form: str
) -> None:
    """The offered tool (by its short name) with its arguments; nothing said."""
    fake_llm.script([Reply.text(written(form, "HassTurnOn"), chunk_size=5)])
    said: list[str] = []

    response = await provider.complete(
        [{"role": "user", "content": "turn on the porch light"}],
        TOOLS,
        on_delta=said.append,
    )

    assert [(c.name, c.arguments) for c in response.tool_calls] == [
        ("assist__HassTurnOn", {"name": "Porch light"})
    ]
    assert response.calls_from_text
    assert said == []
    assert response.text == ""


@pytest.mark.parametrize("around", ["prose", "reasoning"])
@pytest.mark.parametrize("form", FAMILY_CALLS)
async def test_a_family_s_call_in_prose_or_reasoning_is_the_answer(
    fake_llm: FakeLLM, provider: OpenAICompatibleProvider, form: str, around: str
) -> None:
    """Words after the call, or the call while thinking: said whole, no call."""
    template = IN_PROSE if around == "prose" else IN_REASONING
    answer = template.format(call=written(form, "assist__HassTurnOn"))
    fake_llm.script([Reply.text(answer, chunk_size=5)])
    said: list[str] = []

    response = await provider.complete(
        [{"role": "user", "content": "how would you do it?"}],
        TOOLS,
        on_delta=said.append,
    )

    assert response.tool_calls == []
    assert not response.calls_from_text
    assert response.text == answer
    assert "".join(said) == answer
