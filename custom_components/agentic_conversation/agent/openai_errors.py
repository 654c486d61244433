"""Classification of openai SDK and HTTP transport errors into `LLMError`s."""

from email.utils import parsedate_to_datetime
import time
from typing import Any

import httpx
import httpx2
import openai

from .errors import (
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
)

# What the SDK and its transport raise. The SDK uses httpx2 but accepts a legacy httpx
# client (HA passes one), and errors while a stream is read come unwrapped from either.
SDK_ERRORS: tuple[type[Exception], ...] = (
    openai.OpenAIError,
    httpx.HTTPError,
    httpx.StreamError,
    httpx2.HTTPError,
    httpx2.StreamError,
    OSError,
    ValueError,  # invalid JSON in a response or an SSE event
)
_TIMEOUTS = (
    openai.APITimeoutError,
    httpx.TimeoutException,
    httpx2.TimeoutException,
    TimeoutError,
)
_TRANSPORT = (
    openai.APIConnectionError,
    httpx.TransportError,
    httpx.StreamError,
    httpx2.TransportError,
    httpx2.StreamError,
    OSError,
)


def classify(err: Exception) -> LLMError:
    """The `LLMError` for an exception from the SDK or its transport."""
    if isinstance(err, LLMError):
        return err
    if isinstance(err, _TIMEOUTS):
        return LLMTimeoutError("the LLM server did not answer in time")
    if isinstance(err, _TRANSPORT):
        return LLMConnectionError(_transport_message(err))
    if isinstance(err, openai.APIStatusError):
        return from_status(
            err.status_code,
            _body_message(err.body) or err.message,
            retry_after(err.response.headers),
        )
    if isinstance(err, openai.APIResponseValidationError):
        return LLMBadResponseError(
            f"unexpected response: {err.message}", status_code=err.status_code
        )
    if isinstance(err, openai.APIError):
        return _from_stream_error(err)
    if isinstance(err, ValueError):
        return LLMBadResponseError(f"unparsable response: {err}")
    return LLMError(f"{type(err).__name__}: {err}")


def from_status(
    status: int, message: str, retry_after_s: float | None = None
) -> LLMError:
    """The `LLMError` for an HTTP error status."""
    text = f"HTTP {status}: {message}"
    if status == 401:
        return LLMAuthError(text, status_code=status)
    if status == 403:
        return LLMForbiddenError(text, status_code=status)
    if status == 429:
        return LLMRateLimitError(text, status_code=status, retry_after=retry_after_s)
    if status == 408:
        return LLMTimeoutError(text, status_code=status)
    if status >= 500:
        return LLMServerError(text, status_code=status)
    if status >= 400:
        return LLMBadRequestError(text, status_code=status)
    return LLMBadResponseError(text, status_code=status)


def retry_after(headers: Any) -> float | None:
    """Seconds to wait from `retry-after-ms` or `retry-after` (seconds or a date)."""
    if (value := headers.get("retry-after-ms")) is not None:
        try:
            return float(value) / 1000
        except ValueError:
            pass
    if (value := headers.get("retry-after")) is None:
        return None
    try:
        return float(value)
    except ValueError:
        pass
    try:
        return max(parsedate_to_datetime(value).timestamp() - time.time(), 0.0)
    except TypeError, ValueError:
        return None


# Figures llama-server puts beside its message (a context too small for the request).
_BODY_FIGURES = ("n_prompt_tokens", "n_ctx")


def _body_message(body: object) -> str | None:
    if isinstance(body, dict):
        message = body.get("message") or body.get("error")
        if isinstance(message, str):
            figures = ", ".join(
                f"{key}={body[key]}" for key in _BODY_FIGURES if key in body
            )
            return f"{message} ({figures})" if figures else message
        if isinstance(message, dict):
            return _body_message(message)
    if isinstance(body, str) and body:
        return body
    return None


def _transport_message(err: Exception) -> str:
    """Name the underlying cause: the SDK's own message is a bare "Connection error."."""
    cause = err.__cause__ if isinstance(err, openai.APIConnectionError) else err
    if cause is None:
        return "cannot reach the LLM server"
    detail = str(cause) or type(cause).__name__
    if isinstance(err, openai.APIConnectionError):
        return f"cannot reach the LLM server: {detail}"
    return f"the connection to the LLM server broke: {detail}"


def stream_broken(err: Exception) -> tuple[LLMStreamBrokenError, BaseException]:
    """A stream that was answering and lost its connection, and the transport's error.

    openai >= 3.2x wraps the transport's error in `APIConnectionError` (whose own
    message would say the server cannot be reached); older versions raise it as is.
    """
    cause: BaseException = err
    if isinstance(err, openai.APIConnectionError) and err.__cause__ is not None:
        cause = err.__cause__
    detail = str(cause) or type(cause).__name__
    return LLMStreamBrokenError(
        f"the connection to the LLM server broke: {detail}"
    ), cause


def _from_stream_error(err: openai.APIError) -> LLMError:
    """An error the server reported inside a stream (no HTTP status to go by)."""
    label = " ".join(str(v) for v in (err.code, err.type) if v).lower()
    message = f"error in stream: {err.message}"
    if "rate" in label or "quota" in label:
        return LLMRateLimitError(message)
    if "permission" in label:
        return LLMForbiddenError(message)
    if "auth" in label:
        return LLMAuthError(message)
    if "invalid" in label or "context" in label or "not_found" in label:
        return LLMBadRequestError(message)
    return LLMServerError(message)
