"""Whether a server's model sees images, where the server tells it.

llama.cpp's llama-server lists its `modalities` (`GET /props`, `vision` true with a
multimodal projector loaded); Ollama a model's `capabilities` (`POST /api/show`,
`vision` among them). Other servers say nothing: None, and the images are sent.
"""

import logging
import re
from typing import Any

from .context_size import Fetch
from .openai_errors import SDK_ERRORS

_LOGGER = logging.getLogger(__name__)


async def async_sees_images(fetch: Fetch, base_url: str, model: str) -> bool | None:
    """Ask the server whether the model takes images; None where it does not say."""
    root = re.sub(r"/v1/?$", "", base_url.rstrip("/"))
    for name, url, body, read in (
        ("props", f"{root}/props", None, _from_props),
        ("show", f"{root}/api/show", {"model": model}, _from_show),
    ):
        try:
            answer = await fetch(url, body)
        except SDK_ERRORS as err:
            _LOGGER.debug("No modalities from %s: %s", name, err)
            continue
        if (sees := read(answer)) is not None:
            _LOGGER.debug("%s sees images (from %s): %s", model, name, sees)
            return sees
    return None


def _from_props(answer: Any) -> bool | None:
    modalities = answer.get("modalities") if isinstance(answer, dict) else None
    if isinstance(modalities, dict) and isinstance(modalities.get("vision"), bool):
        return bool(modalities["vision"])
    return None


def _from_show(answer: Any) -> bool | None:
    capabilities = answer.get("capabilities") if isinstance(answer, dict) else None
    if isinstance(capabilities, list):
        return "vision" in capabilities
    return None
