"""The real llama.cpp server tells what the agent reads from it.

Its `/props` gives the context size requests are fitted to, and a request longer than
that context is refused with the error read as "raise the context" (with the figures).
(This build turns `--jinja` on by default, so its old "tools param requires --jinja"
refusal is tested on the recorded message only: tests/server_replies.py.)
"""

from collections.abc import AsyncIterator, Iterator
import time

import httpx
import pytest

from custom_components.agentic_conversation.agent import (
    LLMError,
    OpenAICompatibleProvider,
    ToolSpec,
)
from custom_components.agentic_conversation.agent.server_errors import server_problem
from devtools.llama import ALIAS, start_llama_server
from tests.e2e import LLAMA_GROUP, ensure_llama_or_skip
from tests.e2e.story import free_port

pytestmark = [pytest.mark.e2e, LLAMA_GROUP]

TOOL = ToolSpec("get_time", "The time.", {"type": "object", "properties": {}})


@pytest.fixture(scope="module")
def built() -> None:
    """The built-in llama-server, or a skip that says why."""
    ensure_llama_or_skip()


@pytest.fixture(params=[8192, 256], ids=["8192", "256"])
def server(
    built: None, socket_enabled: None, request: pytest.FixtureRequest
) -> Iterator[str]:
    """A running llama-server with that context size; its base URL."""
    port = free_port()
    process = start_llama_server(port, ctx_size=int(request.param))
    try:
        url = f"http://127.0.0.1:{port}"
        for _ in range(600):
            try:
                if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if process.poll() is not None:
                pytest.fail("llama-server exited at start")
            time.sleep(0.1)
        yield f"{url}/v1"
    finally:
        process.terminate()
        process.wait(timeout=30)


@pytest.fixture
async def provider(server: str) -> AsyncIterator[OpenAICompatibleProvider]:
    """Our provider on the real server."""
    llm = OpenAICompatibleProvider(
        base_url=server, api_key=None, model=ALIAS, max_tokens=16, temperature=0
    )
    await llm.async_prepare()
    yield llm
    await llm.close()


async def test_the_context_size_is_read_and_a_long_request_names_the_fix(
    provider: OpenAICompatibleProvider, request: pytest.FixtureRequest
) -> None:
    """n_ctx from /props; a request past it: "raise the context", with the figures."""
    size = int(request.node.callspec.params["server"])
    assert await provider.async_context_size() == size

    if size > 1000:
        return
    long = [{"role": "user", "content": "Tell me about the weather. " * 120}]
    with pytest.raises(LLMError) as raised:
        await provider.complete(long, [TOOL])
    problem = server_problem(raised.value)
    assert problem is not None
    assert problem.fix == "context_size"
    assert problem.numbers["context"] == size
    assert problem.numbers["needed"] > size
