"""Chat-completions wire-format messages and tool-call argument parsing.

Messages are plain dicts in the OpenAI chat-completions format, so history can come from
anywhere (HA's chat log, a test) and go to any OpenAI-compatible server unchanged.
"""

from collections.abc import Sequence
import json
from typing import Any

from .safe_text import safe_data, safe_text

type Message = dict[str, Any]
# What the user says: text, or content parts (text and images, OpenAI's format).
type UserContent = str | list[dict[str, Any]]


def user_message(content: UserContent) -> Message:
    """A user message."""
    return {"role": "user", "content": content}


def system_message(text: str) -> Message:
    """A system message."""
    return {"role": "system", "content": text}


def assistant_message(
    text: str, tool_calls: Sequence[tuple[str, str, dict[str, Any] | str]] = ()
) -> Message:
    """An assistant message, optionally requesting tool calls.

    Args:
        text: The visible text; "" rather than None when there are tool calls, since
            some servers (llama-cpp-python) reject a null content.
        tool_calls: (id, name, arguments) triples, arguments parsed or raw.
    """
    message: Message = {"role": "assistant", "content": text}
    if tool_calls:
        message["tool_calls"] = [
            {
                "id": call_id,
                "type": "function",
                "function": {"name": name, "arguments": arguments_to_wire(arguments)},
            }
            for call_id, name, arguments in tool_calls
        ]
    return message


def tool_message(call_id: str, content: str) -> Message:
    """The result of one tool call, matched to the call by its id."""
    return {"role": "tool", "tool_call_id": call_id, "content": content}


def arguments_to_wire(arguments: dict[str, Any] | str) -> str:
    """Tool-call arguments as the JSON string the wire format wants.

    Arguments that were not valid JSON are sent back as "{}": some servers (llama.cpp)
    parse the arguments in history and reject the whole request otherwise. The raw text
    is quoted to the model in the error result of that call instead.
    """
    if isinstance(arguments, str):
        return "{}"
    return json.dumps(arguments, ensure_ascii=False)


def parse_arguments(raw: Any) -> dict[str, Any] | str:
    """Normalise tool-call arguments as servers send them to a dict.

    Accepts a JSON object string (the standard), an object (Ollama), a JSON string
    holding a JSON object string (Ollama, some templates), and ""/None/"null" for "no
    arguments". Anything else is returned as the raw text, for an error result.
    """
    if raw is None:
        return {}
    if isinstance(raw, dict):
        return safe_data(raw)  # type: ignore[no-any-return]
    text = raw if isinstance(raw, str) else json.dumps(raw)
    if not text.strip():
        return {}
    value: Any = text
    # At most two decodings: a JSON string inside the string is unwrapped once.
    for _ in range(2):
        try:
            value = json.loads(value)
        except ValueError:
            return safe_text(text)
        if isinstance(value, dict):
            return safe_data(value)  # type: ignore[no-any-return]
        if value is None:  # "null": no arguments, as small models write it
            return {}
        if not isinstance(value, str):
            return safe_text(text)
    return safe_text(text)


def canonical_arguments(arguments: dict[str, Any] | str) -> str:
    """A stable key for "the same arguments" (sorted keys, no whitespace)."""
    if isinstance(arguments, str):
        return arguments
    return json.dumps(arguments, sort_keys=True, separators=(",", ":"), default=str)


def with_system_prompt(
    history: Sequence[Message], system_prompt: str | None
) -> list[Message]:
    """History with the system prompt first; a given prompt replaces any in history."""
    if system_prompt is None:
        return list(history)
    return [
        system_message(system_prompt),
        *(m for m in history if m.get("role") != "system"),
    ]
