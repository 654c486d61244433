"""A pass-through proxy in front of a real LLM server that keeps what went by.

bench/real_model.py puts it between the agents and llama-server to read, after a
command, what the model was sent and what it answered (streamed or not), and to time
each call.
"""

from __future__ import annotations

import json
import time
from typing import Any, Self

from aiohttp import ClientSession, ClientTimeout, web


class RecordingProxy:
    """Forwards /v1/* to `upstream`; `calls` holds each chat completion's record."""

    def __init__(self, upstream: str) -> None:
        """A proxy for `upstream` (its /v1 URL); started by `async with`."""
        # Requests keep their path (/v1/...): the server's root is forwarded to.
        self.upstream = upstream.rstrip("/").removesuffix("/v1")
        self.calls: list[dict[str, Any]] = []
        self._runner: web.AppRunner | None = None
        self._session: ClientSession | None = None
        self.base_url = ""

    async def __aenter__(self) -> Self:
        """Listen on a free loopback port; `base_url` is its /v1."""
        self._session = ClientSession(timeout=ClientTimeout(total=900))
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", "/{tail:.*}", self._forward)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]  # noqa: SLF001
        self.base_url = f"http://127.0.0.1:{port}/v1"
        return self

    async def __aexit__(self, *exc: object) -> None:
        """Stop listening."""
        if self._runner is not None:
            await self._runner.cleanup()
        if self._session is not None:
            await self._session.close()

    async def _forward(self, request: web.Request) -> web.StreamResponse:
        assert self._session is not None
        body = await request.read()
        started = time.perf_counter()
        headers = {
            "Content-Type": request.headers.get("Content-Type", "application/json")
        }
        async with self._session.request(
            request.method, self.upstream + request.path_qs, data=body, headers=headers
        ) as upstream:
            response = web.StreamResponse(status=upstream.status)
            response.content_type = upstream.content_type
            await response.prepare(request)
            received = bytearray()
            async for chunk in upstream.content.iter_any():
                received.extend(chunk)
                await response.write(chunk)
            await response.write_eof()
        if request.path.endswith("/chat/completions"):
            self.calls.append(
                {
                    "seconds": round(time.perf_counter() - started, 2),
                    "request": _json(body),
                    "answer": _answer(bytes(received)),
                }
            )
        return response


def _json(body: bytes) -> Any:
    try:
        return json.loads(body)
    except ValueError:
        return None


def _answer(raw: bytes) -> dict[str, Any]:
    """The text, tool calls and timings of a response, streamed or not."""
    text = raw.decode("utf-8", "replace")
    if not text.lstrip().startswith("data:"):
        data = _json(raw) or {}
        message = (data.get("choices") or [{}])[0].get("message") or {}
        return {
            "text": message.get("content") or "",
            "tool_calls": [
                (c["function"]["name"], c["function"]["arguments"])
                for c in message.get("tool_calls") or []
            ],
            "timings": data.get("timings"),
        }
    content: list[str] = []
    calls: dict[int, list[str]] = {}
    timings = None
    for line in text.splitlines():
        if not line.startswith("data:") or line.strip() == "data: [DONE]":
            continue
        event = _json(line[5:].encode()) or {}
        timings = event.get("timings") or timings
        for choice in event.get("choices") or []:
            delta = choice.get("delta") or {}
            content.append(delta.get("content") or "")
            for call in delta.get("tool_calls") or []:
                slot = calls.setdefault(call.get("index", 0), ["", ""])
                function = call.get("function") or {}
                slot[0] += function.get("name") or ""
                slot[1] += function.get("arguments") or ""
    return {
        "text": "".join(content),
        "tool_calls": [tuple(call) for call in calls.values()],
        "timings": timings,
    }
