"""The fallback model and the breaker, against two fake servers."""

from collections.abc import AsyncIterator

import pytest

from custom_components.agentic_conversation.agent import (
    FallbackProvider,
    LLMBadRequestError,
    LLMError,
    LLMFirstTokenTimeoutError,
    LLMServerError,
    LLMStreamBrokenError,
    LLMTimeoutError,
    OpenAICompatibleProvider,
    Route,
    RouteState,
)
from tests.fake_llm import MODEL, FakeLLM, Reply, closed_port_url

HI = [{"role": "user", "content": "hi"}]
OTHER_MODEL = "model-b"


class Deltas:
    """Collects streamed text."""

    def __init__(self) -> None:
        """Start empty."""
        self.text = ""

    def __call__(self, piece: str) -> None:
        """Collect one piece."""
        self.text += piece


@pytest.fixture
async def other_llm(socket_enabled: None) -> AsyncIterator[FakeLLM]:
    """The fallback model's server."""
    async with FakeLLM(model_ids=(OTHER_MODEL,)) as server:
        yield server


@pytest.fixture
async def fallback(other_llm: FakeLLM) -> AsyncIterator[OpenAICompatibleProvider]:
    """The fallback model's provider."""
    provider = OpenAICompatibleProvider(
        base_url=other_llm.base_url, api_key=None, model=OTHER_MODEL
    )
    yield provider
    await provider.close()


def _primary(
    base_url: str, first_token_timeout: float | None = None
) -> OpenAICompatibleProvider:
    return OpenAICompatibleProvider(
        base_url=base_url,
        api_key=None,
        model=MODEL,
        first_token_timeout=first_token_timeout,
    )


@pytest.mark.parametrize(
    "failure",
    [
        Reply.error(500),
        Reply.error(429),
        Reply.error(401),
        Reply.error(403),
        Reply.error(404, "model not found"),
        Reply.hang(),
    ],
    ids=["500", "429", "401", "403", "404", "hang"],
)
async def test_fallback_answers_when_primary_fails(
    fake_llm: FakeLLM,
    other_llm: FakeLLM,
    fallback: OpenAICompatibleProvider,
    failure: Reply,
) -> None:
    """The primary fails before its first token: the fallback model's text is heard."""
    fake_llm.script([failure])
    other_llm.script([Reply.text("From the fallback.")])
    state = RouteState()
    errors: list[LLMError] = []
    provider = FallbackProvider(
        _primary(fake_llm.base_url, first_token_timeout=0.2),
        fallback,
        state,
        on_primary_error=errors.append,
    )
    deltas = Deltas()

    response = await provider.complete(HI, [], on_delta=deltas, timeout=30)

    assert response.text == deltas.text == "From the fallback."
    assert [r["model"] for r in other_llm.requests] == [OTHER_MODEL]
    assert state.route is Route.FALLBACK
    assert state.reason is not None
    assert state.reason.startswith("primary failed: ")
    assert state.last_error == str(errors[0])
    if failure.kind == "hang":
        assert isinstance(errors[0], LLMFirstTokenTimeoutError)


async def test_fallback_answers_when_primary_unreachable(
    socket_enabled: None, other_llm: FakeLLM, fallback: OpenAICompatibleProvider
) -> None:
    """Connection refused: the fallback answers."""
    other_llm.script([Reply.text("Here.")])
    state = RouteState()
    provider = FallbackProvider(_primary(closed_port_url()), fallback, state)

    response = await provider.complete(HI, [], timeout=30)

    assert response.text == "Here."
    assert state.route is Route.FALLBACK
    assert "cannot reach" in (state.last_error or "")


async def test_no_fallback_once_text_streamed(
    fake_llm: FakeLLM, other_llm: FakeLLM, fallback: OpenAICompatibleProvider
) -> None:
    """Text was heard: the fallback would start over, so the error stands."""
    fake_llm.script([Reply.truncated("Hello wor")])
    state = RouteState()
    provider = FallbackProvider(_primary(fake_llm.base_url), fallback, state)

    with pytest.raises(LLMStreamBrokenError):
        await provider.complete(HI, [], on_delta=Deltas(), timeout=30)

    assert other_llm.requests == []
    assert state.breaker.failures == 0


async def test_no_fallback_for_a_bad_request(
    fake_llm: FakeLLM, other_llm: FakeLLM, fallback: OpenAICompatibleProvider
) -> None:
    """400: the request is wrong, not the primary down."""
    fake_llm.script([Reply.error(400)])
    provider = FallbackProvider(_primary(fake_llm.base_url), fallback, RouteState())

    with pytest.raises(LLMBadRequestError):
        await provider.complete(HI, [], timeout=30)

    assert other_llm.requests == []


async def test_deadline_is_not_the_primary_failing(
    fake_llm: FakeLLM, other_llm: FakeLLM, fallback: OpenAICompatibleProvider
) -> None:
    """The turn's time runs out on the primary: no fallback, no breaker count."""
    fake_llm.script([Reply.hang()])
    state = RouteState()
    provider = FallbackProvider(_primary(fake_llm.base_url), fallback, state)

    with pytest.raises(LLMTimeoutError):
        await provider.complete(HI, [], timeout=0.2)

    assert other_llm.requests == []
    assert state.breaker.failures == 0


async def test_breaker_skips_primary_then_returns(
    fake_llm: FakeLLM, other_llm: FakeLLM, fallback: OpenAICompatibleProvider
) -> None:
    """Three failures in a row: the primary is skipped until the breaker closes."""
    fake_llm.script([Reply.error(500)] * 3)
    other_llm.script([Reply.text(f"Fallback {n}.") for n in range(4)])
    state = RouteState()
    opened: list[bool] = []
    state.breaker.on_open = lambda: opened.append(True)
    provider = FallbackProvider(_primary(fake_llm.base_url), fallback, state)

    for _ in range(3):
        await provider.complete(HI, [], timeout=30)
    assert opened == [True]
    response = await provider.complete(HI, [], timeout=30)

    assert response.text == "Fallback 3."
    assert len(fake_llm.requests) == 3  # the fourth never reached the primary
    assert state.route is Route.FALLBACK
    assert state.reason is not None
    assert state.reason.startswith("primary skipped after 3 failures")

    state.breaker.close()
    fake_llm.script([Reply.text("Primary again.")])
    response = await provider.complete(HI, [], timeout=30)

    assert response.text == "Primary again."
    assert state.route is Route.OK
    assert state.reason is None
    assert state.last_error is not None  # kept after recovery


async def test_without_fallback_route_is_down(fake_llm: FakeLLM) -> None:
    """No fallback: the error stands, the route is down; the open breaker fails fast."""
    fake_llm.script([Reply.error(502)] * 3)
    state = RouteState()
    provider = FallbackProvider(_primary(fake_llm.base_url), None, state)

    for _ in range(3):
        with pytest.raises(LLMServerError):
            await provider.complete(HI, [], timeout=30)
    assert state.route is Route.DOWN
    with pytest.raises(LLMServerError, match="primary skipped"):
        await provider.complete(HI, [], timeout=30)

    assert len(fake_llm.requests) == 3


async def test_fallback_failing_too_is_down(
    fake_llm: FakeLLM, other_llm: FakeLLM, fallback: OpenAICompatibleProvider
) -> None:
    """Both fail: the fallback's error is raised, the route is down."""
    fake_llm.script([Reply.error(500)])
    other_llm.script([Reply.error(503)])
    state = RouteState()
    provider = FallbackProvider(_primary(fake_llm.base_url), fallback, state)

    with pytest.raises(LLMServerError, match="503"):
        await provider.complete(HI, [], timeout=30)

    assert state.route is Route.DOWN
    assert (state.last_error or "").startswith("fallback failed: HTTP 503")


def _tool_call_chunk() -> dict[str, object]:
    call = {
        "index": 0,
        "id": "call_1",
        "type": "function",
        "function": {"name": "weather", "arguments": "{}"},
    }
    return {
        "id": "c",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": MODEL,
        "choices": [{"index": 0, "delta": {"tool_calls": [call]}}],
    }


async def test_first_token_timeout_stops_at_a_tool_call_chunk(
    fake_llm: FakeLLM,
) -> None:
    """A tool-call chunk is a first token: a slow rest of the stream is fine."""
    finish = {
        "id": "c",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": MODEL,
        "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}],
    }
    fake_llm.script([Reply.sse([_tool_call_chunk(), finish], pause=0.3)])
    provider = _primary(fake_llm.base_url, first_token_timeout=0.1)

    response = await provider.complete(HI, [], on_delta=Deltas(), timeout=30)

    assert [call.name for call in response.tool_calls] == ["weather"]


async def test_first_token_timeout_without_streaming(fake_llm: FakeLLM) -> None:
    """Not streamed: the whole answer must come within the first-token timeout."""
    fake_llm.script([Reply.hang()])
    provider = _primary(fake_llm.base_url, first_token_timeout=0.1)

    with pytest.raises(LLMFirstTokenTimeoutError, match=r"within 0.1 s"):
        await provider.complete(HI, [], timeout=30)
