"""Per-agent request extras some servers need: body fields and headers, as JSON.

E.g. `{"chat_template_kwargs": {"enable_thinking": false}}` for Qwen3 on vLLM or
llama.cpp, `{"keep_alive": "30m"}` for Ollama, a header a proxy wants. They never
replace what the agent itself must send.
"""

import json
from typing import Any

from ..agent.openai_provider import RESERVED_FIELDS

# Headers the client sets itself (the key goes in Authorization).
RESERVED_HEADERS = frozenset(
    {"authorization", "content-type", "content-length", "host", "accept"}
)


class ExtrasError(ValueError):
    """The text is not acceptable extras; `key` is the form's error key."""

    def __init__(self, key: str) -> None:
        """Name the problem by the form's error key."""
        super().__init__(key)
        self.key = key


def parse_body_extras(text: str | None) -> dict[str, Any]:
    """Extra body fields from their JSON text ("" or None: none)."""
    extras = _object(text)
    # Fields the agent sends itself (or sets from its options) are refused.
    if RESERVED_FIELDS & extras.keys():
        raise ExtrasError("extra_body_reserved")
    return extras


def parse_header_extras(text: str | None) -> dict[str, str]:
    """Extra headers from their JSON text ("" or None: none)."""
    extras = _object(text)
    if not all(isinstance(value, str) for value in extras.values()):
        raise ExtrasError("extra_headers_not_text")
    if RESERVED_HEADERS & {name.lower() for name in extras}:
        raise ExtrasError("extra_headers_reserved")
    return extras


def _object(text: str | None) -> dict[str, Any]:
    if text is None or not text.strip():
        return {}
    try:
        value = json.loads(text)
    except ValueError:
        raise ExtrasError("extra_not_json_object") from None
    if not isinstance(value, dict):
        raise ExtrasError("extra_not_json_object")
    return value
