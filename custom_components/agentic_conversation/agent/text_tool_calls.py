"""Tool calls a model wrote as text, recovered.

A server whose tool parser is not set up (vLLM without `--tool-call-parser`,
llama-server without `--jinja`, a chat template without tools) passes the model's
call through as text, in its family's notation. The text is a call only when it IS
the call:

- outside reasoning blocks (a call written while thinking is a thought);
- an envelope (`<tool_call>…</tool_call>`, `[TOOL_CALLS]…`, `<|python_tag|>…` and the
  other families' markup below) with nothing after it but more envelopes and an
  end-of-turn token; words before it are what the model said first;
- or an answer that is nothing but the call(s): JSON (also as Python literals or with
  the slips small models make), pythonic calls (`[f(a="x")]`, literals only, read with
  `ast`, never run), or one of those in fenced blocks.

A call shown or discussed in prose ("… is the call I would make") is an answer. A
call naming a tool we do not offer is still a call: the loop answers it with the
unknown-tool error so the model can try again, and it is never spoken.
"""

from collections.abc import Collection
from dataclasses import dataclass
import re
from typing import Any
import uuid

from .call_bodies import MAX_CALL_CHARS, loads
from .provider import ToolCall
from .reasoning_text import without_reasoning
from .safe_text import safe_data, safe_text
from .tool_call_repair import match_tool_name
from .written_calls import read_calls

# What a tool's name may look like to be taken as one (an unknown one included).
_CALL_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.:-]{0,63}")
_NAME_KEYS = ("name", "tool_name", "function_name")
_ARGUMENT_KEYS = ("arguments", "parameters", "args", "tool_args", "input")
# Keys a call object has besides its name and arguments; any other makes an object
# naming an unknown tool data (or a tool's schema), not a call.
_CALL_KEYS = frozenset(
    {*_NAME_KEYS, *_ARGUMENT_KEYS, "type", "id", "tool_call_id", "call_id"}
)


@dataclass(frozen=True, slots=True)
class TextCalls:
    """Calls found in an answer's text, and the words said before them."""

    calls: list[ToolCall]
    text: str


def recover_tool_calls(text: str, offered: Collection[str]) -> TextCalls | None:
    """The calls written in `text`, if it is a call (all of them well-formed).

    A call's name is the offered tool it means (itself, or the one offered tool it
    names once case, namespace and prefix are set aside); any other name is kept as
    written, for the loop to answer as an unknown tool.
    """
    if not offered:
        return None
    answer = without_reasoning(text)
    if len(answer) > MAX_CALL_CHARS:
        return None
    if (found := read_calls(answer)) is None:
        return None
    raws, words = found
    calls = [_tool_call(raw, offered) for raw in raws]
    if not calls or any(call is None for call in calls):
        return None
    return TextCalls([call for call in calls if call is not None], words.strip())


def _tool_call(raw: Any, offered: Collection[str]) -> ToolCall | None:
    """A call object in any of the common shapes, if it is one."""
    if not isinstance(raw, dict):
        return None
    if isinstance(function := raw.get("function"), dict):
        raw = function  # {"type": "function", "function": {"name", "arguments"}}
    name = next((raw[key] for key in _NAME_KEYS if isinstance(raw.get(key), str)), None)
    if name is None:
        return None
    tool = match_tool_name(name, offered).name
    if tool is None:
        # Not a tool we offer: a call only if it looks like one, so the model is
        # told the tools there are; JSON data with a "name" stays the answer.
        if not _CALL_NAME.fullmatch(name.strip()) or not set(raw) <= _CALL_KEYS:
            return None
        if not any(key in raw for key in _ARGUMENT_KEYS):
            return None
        tool = name.strip()
    arguments: Any = next((raw[key] for key in _ARGUMENT_KEYS if key in raw), None)
    if isinstance(arguments, str):
        arguments = loads(arguments) if arguments.strip() else None
    if arguments is None:
        arguments = {}  # `"arguments": null` or none: a tool without parameters
    if not isinstance(arguments, dict):
        return None
    return ToolCall(
        id=f"call_{uuid.uuid4().hex[:24]}",
        name=safe_text(tool),
        arguments=safe_data(arguments),
    )
