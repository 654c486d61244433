"""The context size a server runs a model with, where the server tells it.

vLLM lists `max_model_len` with each model (`GET /v1/models`); llama.cpp's llama-server
reports its slots' `n_ctx` (`GET /props`); Ollama the model's `num_ctx` parameter and
its trained `context_length` (`POST /api/show`). Other servers say nothing: None.
"""

from collections.abc import Awaitable, Callable
import logging
import re
from typing import Any

from .openai_errors import SDK_ERRORS

_LOGGER = logging.getLogger(__name__)

# Ollama's context when neither the model nor the request sets num_ctx (its FAQ:
# "By default, Ollama uses a context window size of 4096 tokens"); prompts beyond it
# are cut from the start, system prompt first, so fitting to it is the safe side.
OLLAMA_DEFAULT_CONTEXT = 4096
_NUM_CTX = re.compile(r"^\s*num_ctx\s+(\d+)\s*$", re.MULTILINE)

type Fetch = Callable[[str, dict[str, Any] | None], Awaitable[Any]]


async def async_context_size(fetch: Fetch, base_url: str, model: str) -> int | None:
    """Ask the server how many tokens the model takes in; None where it does not say.

    `fetch(url, body)` GETs (body None) or POSTs JSON and returns the parsed answer.
    """
    root = re.sub(r"/v1/?$", "", base_url.rstrip("/"))
    for name, url, body, read in (
        ("models", f"{base_url.rstrip('/')}/models", None, _from_models(model)),
        ("props", f"{root}/props", None, _from_props),
        ("show", f"{root}/api/show", {"model": model}, _from_show),
    ):
        try:
            answer = await fetch(url, body)
        except SDK_ERRORS as err:
            _LOGGER.debug("No context size from %s: %s", name, err)
            continue
        if (size := read(answer)) is not None:
            _LOGGER.debug("Context size of %s from %s: %d", model, name, size)
            return size
    return None


def _positive(value: Any) -> int | None:
    return value if isinstance(value, int) and value > 0 else None


def _from_models(model: str) -> Callable[[Any], int | None]:
    def read(answer: Any) -> int | None:
        for entry in answer.get("data") or [] if isinstance(answer, dict) else []:
            if isinstance(entry, dict) and entry.get("id") == model:
                return _positive(entry.get("max_model_len"))
        return None

    return read


def _from_props(answer: Any) -> int | None:
    if not isinstance(answer, dict):
        return None
    settings = answer.get("default_generation_settings")
    if isinstance(settings, dict) and (size := _positive(settings.get("n_ctx"))):
        return size
    return _positive(answer.get("n_ctx"))


def _from_show(answer: Any) -> int | None:
    if not isinstance(answer, dict) or "model_info" not in answer:
        return None
    parameters = answer.get("parameters")
    if isinstance(parameters, str) and (found := _NUM_CTX.search(parameters)):
        return int(found[1])
    info = answer.get("model_info")
    trained = None
    if isinstance(info, dict):
        trained = next(
            (
                _positive(value)
                for key, value in info.items()
                if key.endswith(".context_length")
            ),
            None,
        )
    return min(trained or OLLAMA_DEFAULT_CONTEXT, OLLAMA_DEFAULT_CONTEXT)
