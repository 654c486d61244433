"""An `LLMProvider` for any server speaking OpenAI's Chat Completions API.

OpenAI itself, Ollama, llama.cpp / llama-cpp-python, vLLM, LM Studio, LocalAI, ...
"""

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
import contextlib
import inspect
import logging
from typing import Any, cast

import httpx
import httpx2
import openai

from .context_size import async_context_size
from .credentials import Redactor, split_credentials
from .errors import LLMConnectionError, LLMError, LLMFirstTokenTimeoutError
from .held_text import HeldText
from .messages import Message
from .openai_errors import SDK_ERRORS, classify, stream_broken
from .openai_response import StreamAssembler, parse_completion, with_usage
from .provider import AnswerHeard, DeltaCallback, LLMResponse, ToolCallCallback
from .text_tool_calls import recover_tool_calls
from .tool_calls import ToolSpec
from .usage import StreamUsage

_LOGGER = logging.getLogger(__name__)

# Sent by the provider itself (or its options): extras never replace them.
RESERVED_FIELDS = frozenset(
    {
        "model",
        "messages",
        "tools",
        "tool_choice",
        "stream",
        "stream_options",
        "n",
        "temperature",
        "max_tokens",
        "max_completion_tokens",
        "response_format",
    }
)

# Local servers need no key, but the SDK insists on one (and would otherwise read
# OPENAI_API_KEY from the environment and send it to whatever server is configured).
NO_API_KEY = "sk-no-key-required"
# The SDK retries twice by default, with backoff and honouring Retry-After up to a
# minute, silently spending the turn's deadline. The loop bounds the turn and reports
# errors at once instead.
DEFAULT_MAX_RETRIES = 0


class OpenAICompatibleProvider:
    """Chat completions over `openai.AsyncOpenAI`, streamed or not.

    Building an `AsyncOpenAI` does blocking work (SSL context, platform detection);
    `async_prepare` does it in the executor, and `complete` calls it if needed.
    """

    def __init__(
        self,
        *,
        base_url: str,
        api_key: str | None,
        model: str,
        temperature: float | None = None,
        max_tokens: int | None = None,
        timeout: float = 30.0,
        stream: bool = True,
        # HA's shared client: httpx's up to HA 2026.10, httpx2's since 2026.11.
        http_client: httpx.AsyncClient | httpx2.AsyncClient | None = None,
        client: openai.AsyncOpenAI | None = None,
        max_retries: int = DEFAULT_MAX_RETRIES,
        first_token_timeout: float | None = None,
        extra_body: Mapping[str, Any] | None = None,
        extra_headers: Mapping[str, str] | None = None,
    ) -> None:
        """Initialise; no I/O happens here.

        Args:
            base_url: The API root, e.g. "http://localhost:11434/v1".
            api_key: The key; None for servers that need none.
            model: The model name.
            temperature: Sent only if set.
            max_tokens: Sent only if set, as an int (servers reject 1024.0).
            timeout: Seconds for connecting and for each read of a response.
            stream: Stream answers when the caller wants text deltas.
            http_client: An httpx client to share (HA's); not closed by `close`.
            client: A ready `AsyncOpenAI` to use instead of building one (base_url,
                api_key and http_client are then ignored); not closed by `close`.
            max_retries: SDK retries of a failed request.
            first_token_timeout: Seconds until the first streamed chunk (any, tool
                calls too) or the whole non-streamed answer; None: no such limit.
            extra_body: Fields some servers need (`chat_template_kwargs`); never
                replacing a field the request sets.
            extra_headers: Headers to send with each request.
        """
        self._base_url = base_url
        self._api_key = api_key or NO_API_KEY
        # A server's error may echo the key or the URL's password: never passed on.
        self._redact = Redactor.for_connection(base_url, api_key)
        self._model = model
        self._temperature = temperature
        # Options saved from a UI number field may still be floats.
        self._max_tokens = None if max_tokens is None else int(max_tokens)
        self._timeout = timeout
        self._stream = stream
        self._http_client = http_client
        self._given_client = client
        self._max_retries = max_retries
        self._first_token_timeout = first_token_timeout
        self._extra_body = dict(extra_body or {})
        self._extra_headers = dict(extra_headers or {})
        self._client: openai.AsyncOpenAI | None = None
        self._stream_usage = StreamUsage(model)
        self._prepare_lock = asyncio.Lock()

    @property
    def model(self) -> str:
        """The model name."""
        return self._model

    @property
    def client(self) -> openai.AsyncOpenAI:
        """The prepared client, to share with other providers (after async_prepare)."""
        if self._client is None:
            raise RuntimeError("async_prepare() has not run")
        return self._client

    async def async_prepare(self) -> None:
        """Build the client in the executor, once; later calls return at once."""
        if self._client is not None:
            return
        async with self._prepare_lock:
            if self._client is None:
                loop = asyncio.get_running_loop()
                self._client = await loop.run_in_executor(None, self._build_client)

    def _build_client(self) -> openai.AsyncOpenAI:
        """Blocking: build (or re-configure) the client and warm its platform headers."""
        if self._given_client is not None:
            client = self._given_client.with_options(max_retries=self._max_retries)
        else:
            # URL credentials go as a header: the HTTP client logs request URLs.
            base_url, headers = split_credentials(self._base_url)
            client = openai.AsyncOpenAI(
                base_url=base_url,
                api_key=self._api_key,
                default_headers=headers or None,
                max_retries=self._max_retries,
                timeout=self._timeout,
                # The SDK accepts a legacy httpx client but is typed for httpx2's.
                http_client=cast("Any", self._http_client),
            )
        # As HA core does: platform detection reads files, do it here once. The
        # resources are imported lazily on first use: import them here too.
        client.platform_headers()
        _ = client.chat.completions, client.models
        return client

    def _classify(self, err: Exception) -> LLMError:
        """The `LLMError` for an SDK error, without this connection's secrets."""
        return self._scrubbed(classify(err))

    def _scrubbed[E: LLMError](self, error: E) -> E:
        """The error with its message redacted (it is logged, traced and shown)."""
        error.args = (self._redact(str(error)), *error.args[1:])
        return error

    async def close(self) -> None:
        """Close the client, unless its connections belong to someone else."""
        client, self._client = self._client, None
        if client is not None and self._given_client is None and not self._http_client:
            await client.close()

    async def async_list_models(self) -> list[str]:
        """The ids of the models the server offers (`GET /models`).

        Raises:
            LLMError: The server could not be asked, or refused.
        """
        await self.async_prepare()
        assert self._client is not None
        try:
            page = await self._client.models.list(timeout=self._timeout)
        except SDK_ERRORS as err:
            raise self._classify(err) from err
        # Some servers list entries without an id; they cannot be chosen anyway.
        ids = (getattr(model, "id", None) for model in page.data)
        return [model_id for model_id in ids if isinstance(model_id, str) and model_id]

    async def async_context_size(self) -> int | None:
        """The context size the server runs the model with, if it tells (else None)."""
        await self.async_prepare()
        client = self._client
        assert client is not None

        async def fetch(url: str, body: dict[str, Any] | None) -> Any:
            if body is None:
                return await client.get(url, cast_to=object)
            return await client.post(url, cast_to=object, body=body)

        return await async_context_size(fetch, str(client.base_url), self._model)

    async def complete(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec],
        *,
        tool_choice: str | None = None,
        on_delta: DeltaCallback | None = None,
        on_tool_call: ToolCallCallback | None = None,
        timeout: float | None = None,  # noqa: ASYNC109 - a bound passed to the SDK
        response_format: Mapping[str, Any] | None = None,
    ) -> LLMResponse:
        """Run one chat completion (`LLMProvider.complete`); raises `LLMError` only.

        The SDK's and the transport's errors are classified: none escapes.
        """
        await self.async_prepare()
        assert self._client is not None
        request_timeout = (
            self._timeout if timeout is None else min(timeout, self._timeout)
        )
        # The SDK walks every message and tool definition against its TypedDicts
        # (about 0.6 ms a request, on a par with everything else it does); ours are
        # plain JSON already, so they go in as the body itself, sent unchanged.
        # The agent's own fields win over any extra of the same name.
        body: dict[str, Any] = {
            **self._extra_body,
            "messages": wire_messages(messages),
        }
        request: dict[str, Any] = {
            "model": self._model,
            "messages": [],
            "extra_body": body,
            "timeout": request_timeout,
        }
        for field in RESERVED_FIELDS:
            if field != "messages":
                body.pop(field, None)
        if response_format is not None:
            body["response_format"] = dict(response_format)
        if self._extra_headers:
            request["extra_headers"] = self._extra_headers
        if tools:
            body["tools"] = [tool.to_openai() for tool in tools]
            # llama-cpp-python ignores tools unless tool_choice is given.
            request["tool_choice"] = tool_choice or "auto"
        if self._temperature is not None:
            request["temperature"] = self._temperature
        if self._max_tokens is not None:
            request["max_tokens"] = self._max_tokens
        streamed = on_delta is not None and self._stream
        _LOGGER.debug(
            "Chat completion with %s: %d messages, %d tools, tool_choice %s, stream %s",
            self._model,
            len(messages),
            len(tools),
            request.get("tool_choice"),
            streamed,
        )
        # A server that says nothing for this long is taken as down (the caller may
        # try another model); the timer stops at the first chunk.
        timer = asyncio.timeout(self._first_token_timeout)
        try:
            async with timer:
                if on_delta is not None and streamed:
                    response = await self._complete_streamed(
                        request, on_delta, on_tool_call, timer, tools
                    )
                    return with_usage(response, messages)
                try:
                    completion = await self._client.chat.completions.create(**request)
                    response = parse_completion(completion)
                except SDK_ERRORS as err:
                    raise self._classify(err) from err
                response = with_text_calls(response, tools) or response
        except TimeoutError as err:
            if not timer.expired():
                raise
            raise LLMFirstTokenTimeoutError(
                f"no answer within {self._first_token_timeout:g} s"
            ) from err
        if on_delta is not None and response.text:
            with contextlib.suppress(AnswerHeard):  # it came whole: nothing to stop
                await _call(on_delta, response.text)
        return with_usage(response, messages)

    async def _complete_streamed(
        self,
        request: dict[str, Any],
        on_delta: DeltaCallback,
        on_tool_call: ToolCallCallback | None,
        timer: asyncio.Timeout,
        tools: Sequence[ToolSpec],
    ) -> LLMResponse:
        assert self._client is not None
        stream = await self._stream_usage.open(
            self._client.chat.completions.create, request, self._classify
        )
        assembler = StreamAssembler(on_tool_call)
        # A call written as text must not be spoken before it is recognised.
        held = HeldText() if tools else None
        started = False
        passed: list[str] = []  # the text its listener took: the answer, if it ends it
        try:
            while True:
                # Only the SDK's errors are classified; the callback's propagate.
                try:
                    chunk = await anext(stream)
                except StopAsyncIteration:
                    break
                except SDK_ERRORS as err:
                    error = self._classify(err)
                    if started and type(error) is LLMConnectionError:
                        # Reached, then lost mid-answer: not "unreachable". The
                        # words said so far are said whole before the failure.
                        if held is not None and (rest := held.words_left()):
                            await _call(on_delta, rest)
                        broken, cause = stream_broken(err)
                        raise self._scrubbed(broken) from cause
                    raise error from err
                if not started:
                    timer.reschedule(None)
                started = True
                if (delta := assembler.add(chunk)) and held is not None:
                    delta = held.feed(delta)
                if delta:
                    await _call(on_delta, delta)
                    passed.append(delta)
        except AnswerHeard:
            # Closing the stream stops the model: a loop would go on to max_tokens.
            _LOGGER.debug("The answer was heard enough: its stream is closed")
            return assembler.ended_early("".join(passed))
        finally:
            # Release the connection; failing to close a broken one is no news.
            with contextlib.suppress(*SDK_ERRORS):
                await stream.close()
        response = assembler.response()
        if held is None:
            return response
        if recovered := with_text_calls(response, tools):
            return recovered
        if rest := held.release():
            with contextlib.suppress(AnswerHeard):  # it came whole: nothing to stop
                await _call(on_delta, rest)
        return response


def with_text_calls(
    response: LLMResponse, tools: Sequence[ToolSpec]
) -> LLMResponse | None:
    """The response with the tool calls its text holds, if it has no real ones."""
    if response.tool_calls or not tools:
        return None
    found = recover_tool_calls(response.text, [tool.name for tool in tools])
    if found is None:
        return None
    _LOGGER.warning(
        "The model wrote %d tool call(s) as text (%s): taken as calls; set up the"
        " server's tool-call parser so it sends them as calls",
        len(found.calls),
        ", ".join(call.name for call in found.calls),
    )
    return LLMResponse(
        text=found.text,
        tool_calls=found.calls,
        finish_reason=response.finish_reason,
        calls_from_text=True,
        usage=response.usage,
    )


def wire_messages(messages: Sequence[Message]) -> list[Message]:
    """Messages as strict servers accept them; changed ones are copies, not edits.

    An assistant message with tool calls gets content "" instead of null
    (llama-cpp-python rejects null).
    """
    wire: list[Message] = []
    for message in messages:
        if (
            message.get("role") == "assistant"
            and message.get("tool_calls")
            and message.get("content") is None
        ):
            message = {**message, "content": ""}
        wire.append(message)
    return wire


async def _call(callback: Callable[[str], Awaitable[None] | None], text: str) -> None:
    result = callback(text)
    if inspect.isawaitable(result):
        await result
