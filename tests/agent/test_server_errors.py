"""Servers' own set-up errors, through the real provider, read as the fix they need."""

import pytest

from custom_components.agentic_conversation.agent import (
    LLMError,
    OpenAICompatibleProvider,
)
from custom_components.agentic_conversation.agent.server_errors import server_problem
from tests.fake_llm import MODEL, FakeLLM, Reply
from tests.server_replies import (
    LLAMA_CPP_PROPS,
    OLLAMA_SHOW,
    SETUP_ERRORS,
    setup_reply,
    vllm_models,
)

from .common import spec


@pytest.mark.parametrize("name", SETUP_ERRORS)
async def test_each_setup_error_names_its_fix(
    fake_llm: FakeLLM, provider: OpenAICompatibleProvider, name: str
) -> None:
    """The error the provider raises for the server's answer names the right fix."""
    _, _, fix, figures = SETUP_ERRORS[name]
    fake_llm.script([setup_reply(name)])

    with pytest.raises(LLMError) as raised:
        await provider.complete([{"role": "user", "content": "hi"}], [spec("t")])

    problem = server_problem(raised.value)
    assert problem is not None
    assert problem.fix == fix
    expected = {k: int(v) for k, v in figures.items() if k in ("needed", "context")}
    assert problem.numbers == expected


@pytest.mark.parametrize(
    "reply",
    [
        Reply.error(500),
        Reply.error(400, "Invalid 'messages[1].content': string too long"),
        Reply.error(404, "Not Found"),
        Reply.error(401, "Incorrect API key provided"),
    ],
)
async def test_other_errors_name_no_fix(
    fake_llm: FakeLLM, provider: OpenAICompatibleProvider, reply: Reply
) -> None:
    """A plain server error is not mistaken for a set-up fault."""
    fake_llm.script([reply])

    with pytest.raises(LLMError) as raised:
        await provider.complete([{"role": "user", "content": "hi"}], [])

    assert server_problem(raised.value) is None


async def test_context_size_from_llama_cpp_props(
    fake_llm: FakeLLM, provider: OpenAICompatibleProvider
) -> None:
    """llama-server tells its slots' n_ctx at /props."""
    fake_llm.props_body = LLAMA_CPP_PROPS
    assert await provider.async_context_size() == 4096


async def test_context_size_from_ollama_show(
    fake_llm: FakeLLM, provider: OpenAICompatibleProvider
) -> None:
    """Ollama: the model's num_ctx; without one, its default 4096 (below the trained)."""
    fake_llm.show_body = OLLAMA_SHOW
    assert await provider.async_context_size() == 8192

    fake_llm.show_body = {**OLLAMA_SHOW, "parameters": 'stop "<|im_end|>"'}
    assert await provider.async_context_size() == 4096


async def test_context_size_from_vllm_models(
    fake_llm: FakeLLM, provider: OpenAICompatibleProvider
) -> None:
    """The vLLM model list carries max_model_len."""
    fake_llm.models_body = vllm_models(MODEL, 32768)
    assert await provider.async_context_size() == 32768


async def test_a_server_that_does_not_tell_gives_none(
    fake_llm: FakeLLM, provider: OpenAICompatibleProvider
) -> None:
    """OpenAI-style servers: no figure anywhere (404s), no guess."""
    assert await provider.async_context_size() is None
