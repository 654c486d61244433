"""Token usage of an LLM call: the server's figures, else an estimate marked so."""

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
import logging
from typing import Any, Final

from .messages import Message
from .openai_errors import SDK_ERRORS

_LOGGER = logging.getLogger(__name__)

# About four characters a token, as the context budget counts (context_budget.py).
_CHARS_PER_TOKEN = 4
# What a streamed request adds to get its usage in the last chunk.
INCLUDE_USAGE: Final[dict[str, Any]] = {"stream_options": {"include_usage": True}}


@dataclass(frozen=True, slots=True)
class Usage:
    """The tokens of one LLM call.

    Attributes:
        input_tokens: The prompt's tokens.
        output_tokens: The answer's tokens.
        estimated: The server did not say: counted from characters.
    """

    input_tokens: int
    output_tokens: int
    estimated: bool = False


type UsageCallback = Callable[[Usage], None]


def usage_of(raw: Any) -> Usage | None:
    """The usage a server reported (a completion's or a last chunk's `usage`)."""
    usage = getattr(raw, "usage", None)
    if usage is None and isinstance(raw, dict):
        usage = raw.get("usage")
    if usage is None:
        return None
    if isinstance(usage, dict):
        prompt, completion = usage.get("prompt_tokens"), usage.get("completion_tokens")
    else:
        prompt = getattr(usage, "prompt_tokens", None)
        completion = getattr(usage, "completion_tokens", None)
    if not isinstance(prompt, int) or not isinstance(completion, int):
        return None
    return Usage(max(prompt, 0), max(completion, 0))


def estimate(messages: Sequence[Message], answer: str) -> Usage:
    """Tokens counted from the text sent and received (images are not counted)."""
    sent = sum(len(_text_of(message.get("content"))) for message in messages)
    return Usage(
        -(-sent // _CHARS_PER_TOKEN),
        -(-len(answer) // _CHARS_PER_TOKEN),
        estimated=True,
    )


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            str(part.get("text") or "") for part in content if isinstance(part, dict)
        )
    return ""


def rejects_stream_options(error: Exception) -> bool:
    """Whether a server refused the request for its `stream_options` (some do)."""
    return getattr(error, "status_code", None) == 400 and "stream_options" in str(error)


class StreamUsage:
    """Streams ask for their usage (in the last chunk) until the server refuses."""

    def __init__(self, model: str) -> None:
        """Ask, at first."""
        self._model = model
        self._ask = True

    async def open(
        self,
        create: Callable[..., Awaitable[Any]],
        request: dict[str, Any],
        classify: Callable[[Exception], Exception],
    ) -> Any:
        """The stream; again without `stream_options` if the server refuses them.

        Raises:
            The SDK's error, classified.
        """
        try:
            return await create(**request, stream=True, **self._option())
        except SDK_ERRORS as err:
            error = classify(err)
            if not (self._ask and rejects_stream_options(error)):
                raise error from err
        _LOGGER.info("%s refuses stream_options: usage is estimated", self._model)
        self._ask = False
        try:
            return await create(**request, stream=True)
        except SDK_ERRORS as err:
            raise classify(err) from err

    def _option(self) -> dict[str, Any]:
        return INCLUDE_USAGE if self._ask else {}
