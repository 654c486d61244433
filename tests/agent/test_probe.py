"""The endpoint probe: does the server honour tools and streaming?"""

import pytest

from custom_components.agentic_conversation.agent import (
    OpenAICompatibleProvider,
    probe_endpoint,
)
from tests.fake_llm import MODEL, FakeLLM, Reply, closed_port_url


async def test_a_server_that_calls_the_tool_supports_tools(
    fake_llm: FakeLLM, provider: OpenAICompatibleProvider
) -> None:
    """Forced to call the probe tool, it does: tools and streaming both work."""
    found = await probe_endpoint(provider)

    assert found.tools is True
    assert found.streaming is True
    tool_probe, stream_probe = fake_llm.probe_requests
    assert tool_probe["tool_choice"] == "required"
    assert stream_probe["stream"] is True
    assert fake_llm.requests == []  # probes are not part of any conversation


async def test_a_server_that_answers_in_text_ignores_tools(
    fake_llm: FakeLLM, provider: OpenAICompatibleProvider
) -> None:
    """Like llama-server with a template without tools: text instead of a call."""
    fake_llm.probe_tool_reply = Reply.text("Sure, here is the answer.")

    found = await probe_endpoint(provider, streaming=False)

    assert found.tools is False
    assert found.streaming is None
    assert "answered with text" in found.detail


async def test_required_refused_then_auto_tried(
    fake_llm: FakeLLM, provider: OpenAICompatibleProvider
) -> None:
    """A 400 for tool_choice "required": "auto" is tried; refused again, no tools."""
    fake_llm.probe_tool_reply = Reply.error(400, "tool_choice not supported")

    found = await probe_endpoint(provider, streaming=False)

    assert found.tools is False
    assert [r["tool_choice"] for r in fake_llm.probe_requests] == ["required", "auto"]


@pytest.mark.usefixtures("socket_enabled")
async def test_an_unreachable_server_is_unknown_not_unsupported() -> None:
    """No answer at all says nothing about tools: None, and no exception."""
    provider = OpenAICompatibleProvider(
        base_url=closed_port_url(), api_key=None, model=MODEL, timeout=2
    )

    found = await probe_endpoint(provider, limit=2)

    assert found.tools is None
    assert found.streaming is None
    await provider.close()


async def test_a_reasoning_block_opened_in_the_prompt_is_seen(
    fake_llm: FakeLLM, provider: OpenAICompatibleProvider
) -> None:
    """The probe's answer shows the block's end first; an ordinary one does not."""
    found = await probe_endpoint(provider)
    assert found.reasoning_opened is False

    fake_llm.probe_stream_reply = Reply.text("Say ok.</think>\n\nok")
    found = await probe_endpoint(provider)
    assert found.reasoning_opened is True

    # A block the model opens itself is seen whole: nothing waits for it.
    fake_llm.probe_stream_reply = Reply.text("<think>Say ok.</think>ok")
    found = await probe_endpoint(provider)
    assert found.reasoning_opened is False
