"""The OpenAI-compatible provider against the fake server, through the real SDK.

What goes on the wire, how streamed and whole answers are put together, and how every
kind of failure is classified.
"""

import asyncio
import copy
import json
from typing import Any

import httpx
import openai
import pytest

from custom_components.agentic_conversation.agent import (
    LLMAuthError,
    LLMBadRequestError,
    LLMBadResponseError,
    LLMConnectionError,
    LLMError,
    LLMForbiddenError,
    LLMRateLimitError,
    LLMServerError,
    LLMStreamBrokenError,
    LLMTimeoutError,
    OpenAICompatibleProvider,
    ToolCall,
)
from tests.fake_llm import MODEL, FakeLLM, Reply, closed_port_url

from .common import spec

TOOLS = [spec("weather"), spec("time")]


class Deltas:
    """An on_delta callback collecting the pieces."""

    def __init__(self) -> None:
        """Start empty."""
        self.pieces: list[str] = []

    async def __call__(self, text: str) -> None:
        """Collect one piece."""
        self.pieces.append(text)


async def test_request_without_tools(
    fake_llm: FakeLLM, provider: OpenAICompatibleProvider
) -> None:
    """No tools: neither tools nor tool_choice; unset options are not sent."""
    fake_llm.script([Reply.text("hi")])

    response = await provider.complete([{"role": "user", "content": "hi"}], [])

    assert response.text == "hi"
    assert response.tool_calls == []
    assert response.finish_reason == "stop"
    (sent,) = fake_llm.requests
    assert sent == {"model": MODEL, "messages": [{"role": "user", "content": "hi"}]}
    assert fake_llm.headers[0]["Authorization"] == "Bearer sk-no-key-required"


async def test_request_with_tools_and_options(fake_llm: FakeLLM) -> None:
    """Tools go with tool_choice "auto" unless told; options when set; the key."""
    provider = OpenAICompatibleProvider(
        base_url=fake_llm.base_url,
        api_key="sk-real",
        model="other-model",
        temperature=0.2,
        max_tokens=50,
    )
    fake_llm.script([Reply.text("a"), Reply.text("b")])
    try:
        await provider.complete([{"role": "user", "content": "hi"}], TOOLS)
        await provider.complete(
            [{"role": "user", "content": "hi"}], TOOLS, tool_choice="none"
        )
    finally:
        await provider.close()

    auto, none = fake_llm.requests
    assert auto["tool_choice"] == "auto"
    assert none["tool_choice"] == "none"
    assert auto["tools"] == [t.to_openai() for t in TOOLS]
    assert auto["model"] == "other-model"
    assert auto["temperature"] == 0.2
    assert auto["max_tokens"] == 50
    assert fake_llm.headers[0]["Authorization"] == "Bearer sk-real"


async def test_null_content_sent_as_empty(
    fake_llm: FakeLLM, provider: OpenAICompatibleProvider
) -> None:
    """An assistant tool-call message with null content goes out with "", on a copy."""
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "hi"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "a",
                    "type": "function",
                    "function": {"name": "t", "arguments": "{}"},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "a", "content": "{}"},
        {"role": "assistant", "content": None},
    ]
    before = copy.deepcopy(messages)
    fake_llm.script([Reply.text("ok")])

    await provider.complete(messages, TOOLS)

    assert messages == before
    sent = fake_llm.requests[0]["messages"]
    assert sent[1]["content"] == ""
    assert sent[3]["content"] is None  # only tool-call messages are changed


@pytest.mark.parametrize("chunk_size", [1, 2, 50])
async def test_streamed_tool_calls_assembled(
    fake_llm: FakeLLM, provider: OpenAICompatibleProvider, chunk_size: int
) -> None:
    """Several calls with arguments split over many chunks come out whole, in order."""
    fake_llm.script(
        [
            Reply.tool_calls(
                [
                    ("weather", {"city": "Lisbon", "days": [1, 2]}, "id_a"),
                    ("time", {"zone": "Europe/Lisbon"}, "id_b"),
                    ("time", {}, "id_c"),
                ],
                text="Let me check.",
                chunk_size=chunk_size,
            )
        ]
    )
    deltas = Deltas()

    response = await provider.complete(
        [{"role": "user", "content": "hi"}], TOOLS, on_delta=deltas
    )

    assert fake_llm.requests[0]["stream"] is True
    assert response.text == "Let me check."
    assert "".join(deltas.pieces) == "Let me check."
    assert response.finish_reason == "tool_calls"
    assert response.tool_calls == [
        ToolCall("id_a", "weather", {"city": "Lisbon", "days": [1, 2]}),
        ToolCall("id_b", "time", {"zone": "Europe/Lisbon"}),
        ToolCall("id_c", "time", {}),
    ]


@pytest.mark.parametrize("stream", [True, False])
@pytest.mark.parametrize(
    ("arguments", "as_object", "expected"),
    [
        ({"city": "Lisbon"}, False, {"city": "Lisbon"}),
        ({"city": "Lisbon"}, True, {"city": "Lisbon"}),
        (json.dumps(json.dumps({"city": "Lisbon"})), False, {"city": "Lisbon"}),
        ("", False, {}),
        ("not json", False, "not json"),
        ("[1, 2]", False, "[1, 2]"),
        (json.dumps("just a string"), False, json.dumps("just a string")),
    ],
    ids=["string", "object", "string_in_string", "empty", "not_json", "list", "str"],
)
async def test_arguments_normalised(
    fake_llm: FakeLLM,
    provider: OpenAICompatibleProvider,
    *,
    stream: bool,
    arguments: Any,
    as_object: bool,
    expected: Any,
) -> None:
    """Arguments become a dict, whatever the server's habit; non-objects stay raw."""
    fake_llm.script([Reply.tool_calls([("weather", arguments)], as_object=as_object)])

    response = await provider.complete(
        [{"role": "user", "content": "hi"}],
        TOOLS,
        on_delta=Deltas() if stream else None,
    )

    assert response.tool_calls[0].arguments == expected


async def test_not_streaming_calls_on_delta_once(fake_llm: FakeLLM) -> None:
    """With streaming off, on_delta gets the whole text in one call."""
    provider = OpenAICompatibleProvider(
        base_url=fake_llm.base_url, api_key=None, model=MODEL, stream=False
    )
    fake_llm.script([Reply.text("All at once.")])
    deltas = Deltas()
    try:
        response = await provider.complete(
            [{"role": "user", "content": "hi"}], [], on_delta=deltas
        )
    finally:
        await provider.close()

    assert deltas.pieces == ["All at once."]
    assert response.text == "All at once."
    assert not fake_llm.requests[0].get("stream")


async def test_sync_on_delta(
    fake_llm: FakeLLM, provider: OpenAICompatibleProvider
) -> None:
    """on_delta may be a plain function."""
    fake_llm.script([Reply.text("abcdef", chunk_size=2)])
    pieces: list[str] = []

    await provider.complete(
        [{"role": "user", "content": "hi"}], [], on_delta=pieces.append
    )

    assert pieces == ["ab", "cd", "ef"]


def _chunk(delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
    return {
        "id": "x",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": MODEL,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
    }


async def test_stream_quirks(
    fake_llm: FakeLLM, provider: OpenAICompatibleProvider
) -> None:
    """Interleaved calls, missing index and id, a resent name, a usage-only chunk."""
    events = [
        _chunk({"role": "assistant", "content": None}),
        _chunk({"content": [{"type": "text", "text": "Hi"}]}),
        _chunk({"tool_calls": [{"index": 0, "id": "a", "function": {"name": "wea"}}]}),
        _chunk({"tool_calls": [{"index": 1, "id": "b", "function": {"name": "time"}}]}),
        _chunk({"tool_calls": [{"index": 0, "function": {"name": "ther"}}]}),
        _chunk(
            {
                "tool_calls": [
                    {"index": 1, "function": {"name": "time", "arguments": "{}"}}
                ]
            }
        ),
        _chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"city":'}}]}),
        _chunk({"tool_calls": [{"index": 0, "function": {"arguments": ' "Lisbon"}'}}]}),
        # No index: a new id is a new call, no id continues the last one.
        _chunk(
            {
                "tool_calls": [
                    {"id": "c", "function": {"name": "time", "arguments": "{"}}
                ]
            }
        ),
        _chunk({"tool_calls": [{"function": {"arguments": "}"}}]}),
        # Same id twice, and no id at all: ids are made up.
        _chunk({"tool_calls": [{"index": 5, "id": "a", "function": {"name": "time"}}]}),
        _chunk({"tool_calls": [{"index": 6, "type": "function"}]}),
        _chunk({}, "tool_calls"),
        {"id": "x", "object": "chat.completion.chunk", "choices": [], "usage": {}},
    ]
    fake_llm.script([Reply.sse(events)])
    deltas = Deltas()

    response = await provider.complete(
        [{"role": "user", "content": "hi"}], TOOLS, on_delta=deltas
    )

    assert response.text == "Hi"
    assert deltas.pieces == ["Hi"]
    calls = response.tool_calls
    assert [(c.name, c.arguments) for c in calls] == [
        ("weather", {"city": "Lisbon"}),
        ("time", {}),
        ("time", {}),
        ("time", {}),
        ("", {}),
    ]
    assert [c.id for c in calls[:3]] == ["a", "b", "c"]
    assert calls[3].id.startswith("call_") and calls[4].id.startswith("call_")
    assert len({c.id for c in calls}) == 5


async def test_completion_quirks(
    fake_llm: FakeLLM, provider: OpenAICompatibleProvider
) -> None:
    """A whole answer with content parts, a refusal, missing and duplicate ids."""
    fake_llm.script(
        [
            Reply.raw(
                {
                    "choices": [
                        {
                            "index": 0,
                            "finish_reason": "tool_calls",
                            "message": {
                                "role": "assistant",
                                "content": [{"type": "text", "text": "Part"}, "s"],
                                "tool_calls": [
                                    {"type": "function", "function": {"name": "time"}},
                                    {
                                        "id": "d",
                                        "function": {"name": "t", "arguments": "{}"},
                                    },
                                    {
                                        "id": "d",
                                        "function": {"name": "t", "arguments": "{}"},
                                    },
                                ],
                            },
                        }
                    ]
                }
            ),
            Reply.raw(
                {
                    "choices": [
                        {
                            "index": 0,
                            "finish_reason": "stop",
                            "message": {"content": None, "refusal": "No."},
                        }
                    ]
                }
            ),
        ]
    )

    first = await provider.complete([{"role": "user", "content": "hi"}], TOOLS)
    second = await provider.complete([{"role": "user", "content": "hi"}], TOOLS)

    assert first.text == "Parts"
    assert [c.arguments for c in first.tool_calls] == [{}, {}, {}]
    assert len({c.id for c in first.tool_calls}) == 3
    assert first.tool_calls[1].id == "d"
    assert second.text == "No."


async def test_max_tokens_is_sent_as_an_int(fake_llm: FakeLLM) -> None:
    """A float from a UI number field goes on the wire as 1024, not 1024.0."""
    from_the_ui: Any = 1024.0
    provider = OpenAICompatibleProvider(
        base_url=fake_llm.base_url, api_key=None, model=MODEL, max_tokens=from_the_ui
    )
    fake_llm.script([Reply.text("a")])
    try:
        await provider.complete([{"role": "user", "content": "hi"}], [])
    finally:
        await provider.close()

    sent = fake_llm.requests[0]["max_tokens"]
    assert sent == 1024
    assert type(sent) is int


@pytest.mark.parametrize(
    ("status", "error_class"),
    [
        (400, LLMBadRequestError),
        (401, LLMAuthError),
        (403, LLMForbiddenError),
        (404, LLMBadRequestError),
        (408, LLMTimeoutError),
        (409, LLMBadRequestError),
        (422, LLMBadRequestError),
        (429, LLMRateLimitError),
        (500, LLMServerError),
        (503, LLMServerError),
        (418, LLMBadRequestError),
    ],
)
@pytest.mark.parametrize("stream", [True, False])
async def test_http_errors_classified(
    fake_llm: FakeLLM,
    provider: OpenAICompatibleProvider,
    status: int,
    error_class: type[LLMError],
    stream: bool,
) -> None:
    """Each HTTP error status maps to its LLMError, with the server's message."""
    fake_llm.script([Reply.error(status, "the reason")])

    with pytest.raises(error_class) as caught:
        await provider.complete(
            [{"role": "user", "content": "hi"}],
            [],
            on_delta=Deltas() if stream else None,
        )

    assert type(caught.value) is error_class
    assert caught.value.status_code == status
    assert str(caught.value) == f"HTTP {status}: the reason"
    assert isinstance(caught.value.__cause__, openai.APIStatusError)


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"retry-after": "12"}, 12.0),
        ({"retry-after-ms": "1500"}, 1.5),
        ({"retry-after-ms": "soon", "retry-after": "3"}, 3.0),
        ({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}, 0.0),
        ({"retry-after": "whenever"}, None),
    ],
)
async def test_retry_after(
    fake_llm: FakeLLM,
    provider: OpenAICompatibleProvider,
    headers: dict[str, str],
    expected: float | None,
) -> None:
    """retry_after from retry-after-ms or retry-after (seconds, or a past date)."""
    fake_llm.script([Reply.error(429, headers=headers)])

    with pytest.raises(LLMRateLimitError) as caught:
        await provider.complete([{"role": "user", "content": "hi"}], [])

    assert caught.value.retry_after == expected
    assert caught.value.kind == "rate_limit"


async def test_connection_refused(socket_enabled: None) -> None:
    """Nobody listening: LLMConnectionError naming the cause."""
    provider = OpenAICompatibleProvider(
        base_url=closed_port_url(), api_key=None, model=MODEL
    )
    try:
        with pytest.raises(LLMConnectionError, match="cannot reach the LLM server"):
            await provider.complete([{"role": "user", "content": "hi"}], [])
    finally:
        await provider.close()


@pytest.mark.parametrize("stream", [True, False])
async def test_timeout(fake_llm: FakeLLM, stream: bool) -> None:
    """A server that does not answer: LLMTimeoutError after the smaller timeout."""
    provider = OpenAICompatibleProvider(
        base_url=fake_llm.base_url, api_key=None, model=MODEL, timeout=30
    )
    fake_llm.script([Reply.hang()])
    try:
        with pytest.raises(LLMTimeoutError):
            await provider.complete(
                [{"role": "user", "content": "hi"}],
                [],
                on_delta=Deltas() if stream else None,
                timeout=0.1,
            )
    finally:
        await provider.close()


@pytest.mark.parametrize(
    ("reply", "error_class", "match"),
    [
        # Told apart from an unreachable server, on every openai SDK version.
        (
            Reply.truncated(cut="connection"),
            LLMStreamBrokenError,
            "^the connection to the LLM server broke: ",
        ),
        (Reply.truncated(cut="clean"), LLMBadResponseError, "ended before"),
        (Reply.sse(["{not json"]), LLMBadResponseError, "unparsable"),
        (
            Reply.sse(
                [
                    {
                        "error": {
                            "message": "context too long",
                            "type": "invalid_request_error",
                        }
                    }
                ]
            ),
            LLMBadRequestError,
            "context too long",
        ),
        (
            Reply.sse(
                [{"error": {"message": "slow down", "code": "rate_limit_exceeded"}}]
            ),
            LLMRateLimitError,
            "slow down",
        ),
        (
            Reply.sse(
                [{"error": {"message": "who are you", "type": "authentication"}}]
            ),
            LLMAuthError,
            "who are you",
        ),
        (
            Reply.sse(
                [{"error": {"message": "not for you", "type": "permission_denied"}}]
            ),
            LLMForbiddenError,
            "not for you",
        ),
        (Reply.sse([{"error": {"message": "oops"}}]), LLMServerError, "oops"),
        (Reply.sse([], done=True), LLMBadResponseError, "ended before"),
    ],
    ids=[
        "cut",
        "clean_end",
        "bad_json",
        "error_invalid",
        "error_rate",
        "error_auth",
        "error_forbidden",
        "error_other",
        "empty",
    ],
)
async def test_stream_failures(
    fake_llm: FakeLLM,
    provider: OpenAICompatibleProvider,
    reply: Reply,
    error_class: type[LLMError],
    match: str,
) -> None:
    """Streams that break, end early, carry garbage or an error event."""
    fake_llm.script([reply])

    with pytest.raises(error_class, match=match):
        await provider.complete(
            [{"role": "user", "content": "hi"}], [], on_delta=Deltas()
        )


@pytest.mark.parametrize(
    ("reply", "match"),
    [
        (Reply.raw({"choices": []}), "no choices"),
        (Reply.raw({"object": "chat.completion"}), "no choices"),
        (Reply.raw({"choices": [{"index": 0}]}), "no message"),
        (Reply.raw("{not json"), "unparsable"),
        (Reply.raw("<html>oops</html>", content_type="text/html"), "no choices"),
    ],
    ids=["empty_choices", "no_choices", "no_message", "bad_json", "html"],
)
async def test_bad_completions(
    fake_llm: FakeLLM, provider: OpenAICompatibleProvider, reply: Reply, match: str
) -> None:
    """Whole answers that cannot be used: LLMBadResponseError."""
    fake_llm.script([reply])

    with pytest.raises(LLMBadResponseError, match=match):
        await provider.complete([{"role": "user", "content": "hi"}], [])


async def test_on_delta_errors_propagate(
    fake_llm: FakeLLM, provider: OpenAICompatibleProvider
) -> None:
    """A failing delta callback is not mistaken for an LLM error."""
    fake_llm.script([Reply.text("hello")])

    def broken(text: str) -> None:
        raise ValueError("callback bug")

    with pytest.raises(ValueError, match="callback bug"):
        await provider.complete(
            [{"role": "user", "content": "hi"}], [], on_delta=broken
        )


async def test_list_models(
    fake_llm: FakeLLM, provider: OpenAICompatibleProvider
) -> None:
    """GET /models lists the model ids; errors are classified."""
    assert await provider.async_list_models() == [MODEL]

    unreachable = OpenAICompatibleProvider(
        base_url=closed_port_url(), api_key=None, model=MODEL
    )
    try:
        with pytest.raises(LLMConnectionError):
            await unreachable.async_list_models()
    finally:
        await unreachable.close()


async def test_prepare_once(fake_llm: FakeLLM) -> None:
    """Concurrent and repeated prepares build one client; complete prepares lazily."""
    provider = OpenAICompatibleProvider(
        base_url=fake_llm.base_url, api_key=None, model=MODEL
    )
    assert provider.model == MODEL
    fake_llm.script([Reply.text("hi")])
    try:
        await asyncio.gather(provider.async_prepare(), provider.async_prepare())
        await provider.complete([{"role": "user", "content": "hi"}], [])
        client = provider._client
        await asyncio.gather(provider.async_prepare(), provider.async_prepare())
        assert provider._client is client
    finally:
        await provider.close()
        await provider.close()  # twice is fine


async def test_given_client_used_and_kept_open(fake_llm: FakeLLM) -> None:
    """A client from the caller is used (without SDK retries) and not closed."""
    loop = asyncio.get_running_loop()
    client = await loop.run_in_executor(
        None,
        lambda: openai.AsyncOpenAI(base_url=fake_llm.base_url, api_key="sk-given"),
    )
    provider = OpenAICompatibleProvider(
        base_url="http://ignored.invalid/v1", api_key=None, model=MODEL, client=client
    )
    fake_llm.script([Reply.error(500)])
    try:
        with pytest.raises(LLMServerError):
            await provider.complete([{"role": "user", "content": "hi"}], [])
        assert len(fake_llm.requests) == 1  # max_retries=0 applied
        await provider.close()
        assert not client.is_closed()
        models = await client.models.list()  # still usable
        assert [m.id for m in models.data] == [MODEL]
        assert fake_llm.headers[0]["Authorization"] == "Bearer sk-given"
    finally:
        await client.close()


async def test_legacy_httpx_client(fake_llm: FakeLLM) -> None:
    """HA's httpx (not httpx2) client works, its stream errors are classified too."""
    http_client = httpx.AsyncClient()
    provider = OpenAICompatibleProvider(
        base_url=fake_llm.base_url, api_key=None, model=MODEL, http_client=http_client
    )
    fake_llm.script(
        [
            Reply.tool_calls([("weather", {"city": "Lisbon"})], text="Checking"),
            Reply.truncated(cut="connection"),
            Reply.hang(),
        ]
    )
    messages = [{"role": "user", "content": "hi"}]
    try:
        response = await provider.complete(messages, TOOLS, on_delta=Deltas())
        assert response.tool_calls[0].arguments == {"city": "Lisbon"}
        with pytest.raises(LLMStreamBrokenError) as caught:
            await provider.complete(messages, TOOLS, on_delta=Deltas())
        assert isinstance(caught.value.__cause__, httpx.RemoteProtocolError)
        with pytest.raises(LLMTimeoutError):
            await provider.complete(messages, TOOLS, on_delta=Deltas(), timeout=0.1)
        await provider.close()
        assert not http_client.is_closed
    finally:
        await http_client.aclose()


@pytest.mark.parametrize("stream", [True, False], ids=["streamed", "whole"])
async def test_url_credentials_as_basic_header_and_echoed_secrets_scrubbed(
    fake_llm: FakeLLM, stream: bool
) -> None:
    """User info goes as a Basic header; echoed secrets never leave the provider."""
    base_url = fake_llm.base_url.replace("http://", "http://bob:s%3Acret@", 1)
    provider = OpenAICompatibleProvider(
        base_url=base_url, api_key="sk-abc123", model=MODEL, stream=stream
    )
    echo = "key sk-abc123, password s:cret (s%3Acret), header Basic Ym9iOnM6Y3JldA=="
    fake_llm.script([Reply.error(400, echo)])

    with pytest.raises(LLMBadRequestError) as caught:
        await provider.complete(
            [{"role": "user", "content": "hi"}], [], on_delta=Deltas()
        )

    assert str(caught.value) == (
        "HTTP 400: key ***, password *** (***), header Basic ***"
    )
    assert fake_llm.headers[-1]["Authorization"] == "Basic Ym9iOnM6Y3JldA=="
    assert provider.client.base_url == f"{fake_llm.base_url}/"
    await provider.close()
