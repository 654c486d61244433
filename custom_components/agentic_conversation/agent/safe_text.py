"""Text that can always be encoded: where text enters, lone surrogates become U+FFFD.

Python strings may hold code points UTF-8 cannot encode (lone surrogates such as
U+D800, sent by some STT engines, broken clients and servers' JSON escapes). One of
them makes every later JSON write or HTTP request that carries it fail, so text is
made safe once, where it enters: user text, model text, tool results, facts.
"""

from typing import Any


def safe_text(text: str) -> str:
    """The text, with a surrogate pair joined and any lone surrogate replaced by U+FFFD."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        # UTF-16 round trip: a high+low pair becomes its character, a lone half U+FFFD.
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text


def safe_data(value: Any) -> Any:
    """JSON-like data with every string in it (keys too) made safe."""
    if isinstance(value, str):
        return safe_text(value)
    if isinstance(value, dict):
        return {safe_data(key): safe_data(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [safe_data(item) for item in value]
    return value
