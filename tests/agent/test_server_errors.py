"""Servers' own set-up errors, through the real provider, read as the fix they need."""

import pytest

from custom_components.agentic_conversation.agent import (
    LLMError,
    OpenAICompatibleProvider,
)
from custom_components.agentic_conversation.agent.server_errors import server_problem
from tests.fake_llm import FakeLLM, Reply
from tests.server_replies import SETUP_ERRORS, setup_reply

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
