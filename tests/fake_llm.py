"""A scripted OpenAI-compatible chat-completions server on loopback, for tests.

It replays scripted replies in order, one per `POST /v1/chat/completions`, streamed
(SSE) or not as the client asks (or as the reply forces), and records every request
body so tests can assert what the LLM was sent:

    async with FakeLLM() as server:
        server.script([Reply.tool_calls([("get_weather", {"city": "Lisbon"})]),
                       Reply.text("Sunny.")])
        ...  # point an OpenAI client at server.base_url
        assert server.requests[1]["messages"][-1]["role"] == "tool"

Tests using it must request pytest-socket's `socket_enabled` fixture.
"""

from __future__ import annotations

import argparse
import asyncio
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
import contextlib
from dataclasses import dataclass, field, replace
import json
import socket
import time
from typing import Any, Self, cast

from aiohttp import web

# A scripted tool call: (name, arguments) or (name, arguments, id). Dict arguments are
# sent as a JSON string (or as an object with `as_object`); str arguments verbatim.
type FakeToolCall = (
    tuple[str, dict[str, Any] | str] | tuple[str, dict[str, Any] | str, str]
)

MODEL = "fake-model"
# The integration's endpoint probe (agent/probe.py) asks for this tool / this answer.
PROBE_TOOL_NAME = "agentic_probe"
PROBE_STREAM_PROMPT = "Reply with the single word: ok"
# The user message of its prompt cache warm-up (prompt_warmup.py).
WARM_TEXT = "(prompt cache warm-up)"


@dataclass(frozen=True, slots=True)
class Reply:
    """One scripted answer of the fake server; build it with the class methods."""

    kind: str
    content: str = ""
    calls: tuple[FakeToolCall, ...] = ()
    finish_reason: str | None = "stop"
    stream: bool | None = None
    as_object: bool = False
    chunk_size: int = 3
    status: int = 200
    body: Any = None
    headers: Mapping[str, str] = field(default_factory=dict)
    events: tuple[Any, ...] = ()
    done: bool = True
    cut: str = "connection"
    pause: float = 0.0
    hold: Callable[[Any], bool] | None = None
    until: asyncio.Event | None = None
    pace: float = 0.0
    usage: tuple[int, int] = (1, 1)
    """(prompt, completion) tokens reported: in the completion, or in a last chunk
    when the request asks for it (`stream_options.include_usage`)."""

    def with_usage(self, prompt_tokens: int, completion_tokens: int) -> Reply:
        """This reply, reporting this usage."""
        return replace(self, usage=(prompt_tokens, completion_tokens))

    def held(self, before: Callable[[Any], bool], until: asyncio.Event) -> Reply:
        """This reply, streamed up to the first event `before` accepts, which waits.

        The rest follows once `until` is set (or after 10 s, noted in `holds`): a test
        learns what the client did while the answer was still coming.
        """
        return replace(self, hold=before, until=until)

    def paced(self, seconds: float) -> Reply:
        """This reply, streamed with a pause after each chunk, as a model writes."""
        return replace(self, pace=seconds)

    @classmethod
    def text(
        cls,
        text: str,
        *,
        finish_reason: str | None = "stop",
        stream: bool | None = None,
        chunk_size: int = 3,
    ) -> Reply:
        """A plain assistant answer; streamed in pieces of chunk_size characters."""
        return cls(
            "completion",
            content=text,
            finish_reason=finish_reason,
            stream=stream,
            chunk_size=chunk_size,
        )

    @classmethod
    def tool_calls(
        cls,
        calls: Sequence[FakeToolCall],
        *,
        text: str = "",
        as_object: bool = False,
        finish_reason: str | None = "tool_calls",
        stream: bool | None = None,
        chunk_size: int = 3,
    ) -> Reply:
        """An answer calling tools; streamed arguments are split into small pieces."""
        return cls(
            "completion",
            content=text,
            calls=tuple(calls),
            as_object=as_object,
            finish_reason=finish_reason,
            stream=stream,
            chunk_size=chunk_size,
        )

    @classmethod
    def error(
        cls,
        status: int,
        message: str | None = None,
        *,
        retry_after: str | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> Reply:
        """An HTTP error with an OpenAI-style error body."""
        all_headers = dict(headers or {})
        if retry_after is not None:
            all_headers["retry-after"] = retry_after
        return cls(
            "error",
            status=status,
            body={
                "error": {
                    "message": message or f"fake error {status}",
                    "type": "fake_error",
                    "param": None,
                    "code": str(status),
                }
            },
            headers=all_headers,
        )

    @classmethod
    def hang(cls) -> Reply:
        """Never answer (until the client gives up or the server closes)."""
        return cls("hang")

    @classmethod
    def truncated(cls, text: str = "Partial answ", *, cut: str = "connection") -> Reply:
        """A stream that stops early, without a finish reason nor [DONE].

        Args:
            text: The text streamed before the end.
            cut: "connection" drops the connection mid-body; "clean" ends the HTTP
                body properly, just too early.
        """
        return cls("truncated", content=text, cut=cut)

    @classmethod
    def raw(
        cls,
        body: str | dict[str, Any],
        *,
        status: int = 200,
        content_type: str = "application/json",
    ) -> Reply:
        """A non-streamed answer with exactly this body."""
        return cls(
            "raw",
            status=status,
            body=body,
            headers={"Content-Type": content_type},
        )

    @classmethod
    def sse(
        cls,
        events: Sequence[dict[str, Any] | str],
        *,
        done: bool = True,
        pause: float = 0.0,
    ) -> Reply:
        """A stream of exactly these events (dicts as JSON), then [DONE] if done.

        A pause (seconds) is made after the first event, as a slow model's would be.
        """
        return cls("sse", events=tuple(events), done=done, pause=pause)


def closed_port_url() -> str:
    """A base URL on which nothing listens: connecting is refused."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def _call_id(call: FakeToolCall, index: int) -> str:
    return call[2] if len(call) == 3 else f"call_{index}"


def _arguments(call: FakeToolCall, as_object: bool) -> Any:
    arguments = call[1]
    if isinstance(arguments, str) or as_object:
        return arguments
    return json.dumps(arguments)


class FakeLLM:
    """The fake server. Use as `async with FakeLLM() as server`, or start()/close().

    Attributes:
        requests: The JSON body of every chat-completion request, in order.
        headers: The headers of those requests.
        model_ids: What `GET /v1/models` lists.
        api_key: If set, `GET /v1/models` answers 401 unless sent this bearer key.
        models_status: If set, `GET /v1/models` answers with this HTTP error status.
        models_body: If set, `GET /v1/models` answers 200 with this JSON instead.
        stream_started_at: time.perf_counter() when each streamed reply's first
            chunk was about to be sent (for latency benchmarks).
        holds: For each held reply, whether it went on because `until` was set
            (False: it gave up waiting).
        left: Streamed replies the client closed before their end, each with the
            chunks it had been sent.
        probe_requests: The integration's capability probes (not in `requests`).
        probe_tool_reply: How the server answers the tool probe: by default with a
            tool call (tools honoured); e.g. `Reply.text("hi")` plays a server that
            ignores tools.
        probe_stream_reply: How it answers the streaming probe ("ok").
        warm_requests: The integration's prompt cache warm-ups (not in `requests`),
            answered with one word.
        props_body: If set, `GET /props` answers with it (llama.cpp's server).
        show_body: If set, `POST /api/show` answers with it (Ollama).
    """

    def __init__(self, *, model_ids: Sequence[str] = (MODEL,)) -> None:
        """Initialise; nothing listens until start()."""
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.model_ids = list(model_ids)
        self.api_key: str | None = None
        self.models_status: int | None = None
        self.models_body: Any = None
        self.stream_started_at: list[float] = []
        self.probe_requests: list[dict[str, Any]] = []
        self.warm_requests: list[dict[str, Any]] = []
        self.holds: list[bool] = []
        self.left: list[int] = []
        self.probe_tool_reply = Reply.tool_calls([(PROBE_TOOL_NAME, {})])
        self.probe_stream_reply = Reply.text("ok")
        self.props_body: Any = None
        self.show_body: Any = None
        self._script: deque[Reply] = deque()
        self._closing = asyncio.Event()
        self._received = asyncio.Event()
        self._gone = asyncio.Event()
        self._runner: web.AppRunner | None = None
        self._port = 0

    @property
    def base_url(self) -> str:
        """The API root, "http://127.0.0.1:PORT/v1"."""
        return f"http://127.0.0.1:{self._port}/v1"

    @property
    def unused(self) -> int:
        """How many scripted replies were not asked for."""
        return len(self._script)

    def script(self, replies: Iterable[Reply]) -> None:
        """Queue replies, served one per chat-completion request."""
        self._script.extend(replies)

    async def wait_for_requests(self, count: int) -> None:
        """Wait until `count` chat-completion requests have arrived."""
        while len(self.requests) < count:
            self._received.clear()
            await self._received.wait()

    async def wait_for_left(self) -> list[int]:
        """Wait until the client has closed a stream before its end; `left`."""
        await self._gone.wait()
        return self.left

    async def start(self) -> None:
        """Listen on a free loopback port."""
        await self.start_on(0)

    async def start_on(self, port: int) -> None:
        """Listen on this loopback port (0: a free one)."""
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self._chat_completions)
        app.router.add_get("/v1/models", self._models)
        app.router.add_get("/props", self._props)
        app.router.add_post("/api/show", self._show)
        # For tests that run the server in another process (python -m tests.fake_llm).
        app.router.add_post("/control/script", self._control_script)
        app.router.add_get("/control/requests", self._control_requests)
        # handler_cancellation: a hanging handler ends when the client hangs up.
        self._runner = web.AppRunner(
            app, handler_cancellation=True, access_log=None, shutdown_timeout=0.5
        )
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", port)
        await site.start()
        self._port = self._runner.addresses[0][1]

    async def close(self) -> None:
        """Stop listening; hanging replies end."""
        self._closing.set()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> Self:
        """Start."""
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        """Close."""
        await self.close()

    async def _control_script(self, request: web.Request) -> web.Response:
        self.script(reply_from_json(spec) for spec in await request.json())
        return web.json_response({"queued": len(self._script)})

    async def _control_requests(self, request: web.Request) -> web.Response:
        return web.json_response(self.requests)

    async def _models(self, request: web.Request) -> web.Response:
        if self.api_key is not None and (
            request.headers.get("Authorization") != f"Bearer {self.api_key}"
        ):
            return _error_response(401)
        if self.models_status is not None:
            return _error_response(self.models_status)
        if self.models_body is not None:
            return web.json_response(self.models_body)
        return web.json_response(
            {
                "object": "list",
                "data": [
                    {"id": model, "object": "model", "created": 0, "owned_by": "fake"}
                    for model in self.model_ids
                ],
            }
        )

    async def _props(self, request: web.Request) -> web.Response:
        if self.props_body is None:
            return web.Response(status=404, text="Not Found")
        return web.json_response(self.props_body)

    async def _show(self, request: web.Request) -> web.Response:
        if self.show_body is None:
            return web.Response(status=404, text="404 page not found")
        return web.json_response(self.show_body)

    async def _chat_completions(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        if _is_probe(body):
            # The integration's start-up probe: answered like a server that honours
            # tools and streams (or as set), outside the script and the record.
            self.probe_requests.append(body)
            if body.get("tools"):
                reply = self.probe_tool_reply
            else:
                reply = self.probe_stream_reply
            return await self._serve(request, body, reply)
        if _is_warm_up(body):
            self.warm_requests.append(body)
            return await self._serve(request, body, Reply.text("ok"))
        self.requests.append(body)
        self.headers.append(dict(request.headers))
        self._received.set()
        if not self._script:
            return web.json_response(
                {"error": {"message": "fake_llm: the script is exhausted"}}, status=500
            )
        return await self._serve(request, body, self._script.popleft())

    async def _serve(
        self, request: web.Request, body: dict[str, Any], reply: Reply
    ) -> web.StreamResponse:
        if reply.kind == "error":
            return web.json_response(
                reply.body, status=reply.status, headers=reply.headers
            )
        if reply.kind == "hang":
            await self._closing.wait()
            return web.json_response({"error": {"message": "closing"}}, status=503)
        if reply.kind == "raw":
            text = reply.body if isinstance(reply.body, str) else json.dumps(reply.body)
            return web.Response(text=text, status=reply.status, headers=reply.headers)
        if reply.kind == "sse":
            return await self._stream(
                request, reply.events, done=reply.done, reply=reply
            )
        if reply.kind == "truncated":
            return await self._truncated(request, reply)
        stream = reply.stream if reply.stream is not None else bool(body.get("stream"))
        if stream:
            chunks = _chunks(reply)
            if (body.get("stream_options") or {}).get("include_usage"):
                chunks.append({**_chunk({}), "choices": [], "usage": _usage(reply)})
            return await self._stream(request, chunks, done=True, reply=reply)
        return web.json_response(_completion(reply))

    async def _stream(
        self,
        request: web.Request,
        events: Iterable[Any],
        *,
        done: bool,
        reply: Reply | None = None,
    ) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        self.stream_started_at.append(time.perf_counter())
        hold = reply.hold if reply is not None else None
        events = list(events)
        first = events[0] if events else None
        for sent, event in enumerate([*events, *(["[DONE]"] if done else [])]):
            if hold is not None and hold(event):
                hold = None
                assert reply is not None and reply.until is not None
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(10):
                        await reply.until.wait()
                self.holds.append(reply.until.is_set())
            data = event if isinstance(event, str) else json.dumps(event)
            try:
                await response.write(f"data: {data}\n\n".encode())
                if reply is not None and reply.pace:
                    await asyncio.sleep(reply.pace)
            except asyncio.CancelledError:  # the client hung up (handler_cancellation)
                self.left.append(sent)
                self._gone.set()
                raise
            if reply is not None and reply.pause and event is first:
                await asyncio.sleep(reply.pause)
        await response.write_eof()
        return response

    async def _truncated(
        self, request: web.Request, reply: Reply
    ) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        partial = Reply.text(reply.content, finish_reason=None)
        for chunk in list(_chunks(partial))[:-1]:  # all but the finishing chunk
            await response.write(f"data: {json.dumps(chunk)}\n\n".encode())
        if reply.cut == "clean":
            await response.write_eof()
        else:
            # Drop the connection in the middle of the chunked body.
            assert request.transport is not None
            request.transport.close()
        return response


def arguments_of(index: int) -> Callable[[Any], bool]:
    """Accepts a chunk with arguments of tool call `index` (for `Reply.held`)."""

    def accepts(event: Any) -> bool:
        if not isinstance(event, dict) or not event["choices"]:
            return False
        calls = event["choices"][0]["delta"].get("tool_calls") or []
        return any(c.get("index") == index and "id" not in c for c in calls)

    return accepts


def text_chunk(event: Any) -> bool:
    """Accepts a chunk with text (for `Reply.held`)."""
    return (
        isinstance(event, dict)
        and bool(event["choices"])
        and bool(event["choices"][0]["delta"].get("content"))
    )


def stream_end(event: Any) -> bool:
    """Accepts the `[DONE]` that ends a stream (for `Reply.held`)."""
    return isinstance(event, str) and event == "[DONE]"


def _chunk(delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": MODEL,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
    }


def _pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def _chunks(reply: Reply) -> list[dict[str, Any]]:
    """The stream of a completion, split as OpenAI does."""
    chunks = [_chunk({"role": "assistant", "content": ""})]
    chunks += [
        _chunk({"content": piece}) for piece in _pieces(reply.content, reply.chunk_size)
    ]
    for index, call in enumerate(reply.calls):
        arguments = _arguments(call, reply.as_object)
        function: dict[str, Any] = {"name": call[0], "arguments": ""}
        head = {
            "index": index,
            "id": _call_id(call, index),
            "type": "function",
            "function": function,
        }
        if not isinstance(arguments, str):
            function["arguments"] = arguments
            chunks.append(_chunk({"tool_calls": [head]}))
            continue
        chunks.append(_chunk({"tool_calls": [head]}))
        chunks += [
            _chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
            for piece in _pieces(arguments, reply.chunk_size)
        ]
    chunks.append(_chunk({}, reply.finish_reason))
    return chunks


def _completion(reply: Reply) -> dict[str, Any]:
    """A non-streamed completion."""
    message: dict[str, Any] = {"role": "assistant", "content": reply.content or None}
    if reply.calls:
        message["tool_calls"] = [
            {
                "id": _call_id(call, index),
                "type": "function",
                "function": {
                    "name": call[0],
                    "arguments": _arguments(call, reply.as_object),
                },
            }
            for index, call in enumerate(reply.calls)
        ]
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 0,
        "model": MODEL,
        "choices": [
            {"index": 0, "message": message, "finish_reason": reply.finish_reason}
        ],
        "usage": _usage(reply),
    }


def _usage(reply: Reply) -> dict[str, int]:
    prompt, completion = reply.usage
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }


def _error_response(status: int) -> web.Response:
    """An error in the shape OpenAI sends."""
    return web.json_response(
        {"error": {"message": f"fake error {status}", "type": "error", "code": None}},
        status=status,
    )


def _is_probe(body: Mapping[str, Any]) -> bool:
    tools = body.get("tools") or []
    if any(t.get("function", {}).get("name") == PROBE_TOOL_NAME for t in tools):
        return True
    messages = body.get("messages") or []
    return len(messages) == 1 and messages[0].get("content") == PROBE_STREAM_PROMPT


def _is_warm_up(body: Mapping[str, Any]) -> bool:
    messages = body.get("messages") or []
    return bool(messages) and messages[-1].get("content") == WARM_TEXT


def reply_from_json(spec: Mapping[str, Any]) -> Reply:
    """A reply described in JSON, e.g. {"kind": "text", "text": "Hi."}.

    Kinds: text (text, usage: [prompt, completion]?), tool_calls (calls: [[name, arguments, id?]…], text),
    error (status), hang, truncated (text).
    """
    kind = spec["kind"]
    if kind == "text":
        reply = Reply.text(spec["text"])
        if "usage" in spec:
            reply = reply.with_usage(*spec["usage"])
        return reply
    if kind == "tool_calls":
        calls = [cast("FakeToolCall", tuple(call)) for call in spec["calls"]]
        return Reply.tool_calls(calls, text=spec.get("text", ""))
    if kind == "error":
        return Reply.error(int(spec["status"]))
    if kind == "hang":
        return Reply.hang()
    if kind == "truncated":
        return Reply.truncated(spec.get("text", "Partial answ"))
    raise ValueError(f"unknown reply kind {kind!r}")


async def _serve(port: int, model: str) -> None:
    server = FakeLLM(model_ids=(model,))
    await server.start_on(port)
    print(f"fake LLM listening on {server.base_url}", flush=True)  # noqa: T201
    try:
        await asyncio.Event().wait()
    finally:
        await server.close()


def main() -> None:
    """Serve on a given port until killed: `python -m tests.fake_llm --port 8099`."""
    parser = argparse.ArgumentParser(description="Scripted OpenAI-compatible server")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--model", default=MODEL)
    args = parser.parse_args()
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_serve(args.port, args.model))


if __name__ == "__main__":
    main()
