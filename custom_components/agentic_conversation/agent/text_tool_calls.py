"""Tool calls a model wrote as text, recovered; and the stream held back meanwhile.

A server whose tool parser is not set up (vLLM without `--tool-call-parser`,
llama-server without `--jinja`, a chat template without tools) passes the model's
call through as text: Hermes/Qwen `<tool_call>{…}</tool_call>`, Mistral
`[TOOL_CALLS][…]`, Llama 3 `<|python_tag|>{…}`, a fenced ```` ```json ```` block or bare
JSON. Such text is taken as calls only when every call names an offered tool and its
arguments parse; it is then never spoken. Anything else stays the answer.
"""

from collections.abc import Collection
from dataclasses import dataclass
import json
import re
from typing import Any
import uuid

from .provider import ToolCall

# Text that starts a written call anywhere in an answer.
_MARKERS = ("<tool_call>", "[TOOL_CALLS]", "<|python_tag|>", "```")
# Only at the very start of an answer: bare JSON.
_LEADING = ("{", "[{")
_THINK = re.compile(r"<think>.*?(?:</think>|$)", re.DOTALL)
_HERMES = re.compile(r"<tool_call>(.*?)(?:</tool_call>|$)", re.DOTALL)
_FENCE = re.compile(r"```[a-zA-Z]*\s*\n?(.*?)(?:```|$)", re.DOTALL)
_MISTRAL_ARGS = re.compile(r"([A-Za-z0-9_.-]+)\[ARGS\]")
_NAME_KEYS = ("name", "tool_name", "function_name")
_ARGUMENT_KEYS = ("arguments", "parameters", "args", "tool_args", "input")


@dataclass(frozen=True, slots=True)
class TextCalls:
    """Calls found in an answer's text, and the text without them."""

    calls: list[ToolCall]
    text: str


def recover_tool_calls(text: str, offered: Collection[str]) -> TextCalls | None:
    """The calls written in `text`, if it holds any and each names an offered tool."""
    if not offered or not text.strip():
        return None
    # A call written inside a reasoning block counts as well (some servers leak it).
    for candidate in (text, *_THINK.findall(text)):
        found = _find(candidate)
        if found is None:
            continue
        raw_calls, markup = found
        calls = [_tool_call(raw, offered) for raw in raw_calls]
        if not calls or any(call is None for call in calls):
            return None
        rest = text
        for piece in markup:
            rest = rest.replace(piece, "", 1)
        return TextCalls([call for call in calls if call is not None], rest.strip())
    return None


def _find(text: str) -> tuple[list[Any], list[str]] | None:
    """The raw call objects in the first format that matches, and their markup."""
    if matches := list(_HERMES.finditer(text)):
        raws = [_json(match.group(1)) for match in matches]
        return _flatten(raws), [match.group(0) for match in matches]
    for marker in ("[TOOL_CALLS]", "<|python_tag|>"):
        if (start := text.find(marker)) != -1:
            return _after_marker(text[start:], marker)
    if matches := list(_FENCE.finditer(text)):
        raws = [_json(match.group(1)) for match in matches]
        if all(raw is not None for raw in raws):
            return _flatten(raws), [match.group(0) for match in matches]
        return None
    stripped = _THINK.sub("", text).strip()
    if stripped.startswith(_LEADING):
        return _flatten([_json(stripped)]), [stripped]
    return None


def _after_marker(text: str, marker: str) -> tuple[list[Any], list[str]] | None:
    body = text[len(marker) :].strip()
    if marker == "[TOOL_CALLS]" and (named := _MISTRAL_ARGS.match(body)):
        # Mistral's newer form: [TOOL_CALLS]name[ARGS]{…}
        return [{"name": named.group(1), "arguments": _json(body[named.end() :])}], [
            text
        ]
    if marker == "<|python_tag|>" and ";" in body and not body.startswith("["):
        # Llama 3 may separate several calls with ";".
        return _flatten([_json(part) for part in body.split(";") if part.strip()]), [
            text
        ]
    return _flatten([_json(body)]), [text]


def _json(text: str) -> Any:
    """JSON, also with a trailing end-of-turn token or stray text after it."""
    text = text.strip()
    try:
        return json.loads(text)
    except ValueError:
        pass
    try:
        value, _end = json.JSONDecoder().raw_decode(text)
    except ValueError:
        return None
    return value


def _flatten(raws: list[Any]) -> list[Any]:
    calls: list[Any] = []
    for raw in raws:
        calls.extend(raw if isinstance(raw, list) else [raw])
    return calls


def _tool_call(raw: Any, offered: Collection[str]) -> ToolCall | None:
    """A call object in any of the common shapes, if it names an offered tool."""
    if not isinstance(raw, dict):
        return None
    if isinstance(function := raw.get("function"), dict):
        raw = function  # {"type": "function", "function": {"name", "arguments"}}
    name = next((raw[key] for key in _NAME_KEYS if isinstance(raw.get(key), str)), None)
    if name is None or (tool := _offered_name(name, offered)) is None:
        return None
    arguments: Any = next(
        (raw[key] for key in _ARGUMENT_KEYS if key in raw),
        {},
    )
    if isinstance(arguments, str):
        arguments = _json(arguments) if arguments.strip() else {}
    if not isinstance(arguments, dict):
        return None
    return ToolCall(id=f"call_{uuid.uuid4().hex[:24]}", name=tool, arguments=arguments)


def _offered_name(name: str, offered: Collection[str]) -> str | None:
    """The offered tool `name` means: itself, or the one tool it ends (namespaced)."""
    name = name.strip()
    if name in offered:
        return name
    matches = [tool for tool in offered if tool.rsplit("__", 1)[-1] == name]
    return matches[0] if len(matches) == 1 else None


class HeldText:
    """Streamed text with what may be a written tool call held back.

    Text passes through at once unless it is (or may become) a written call: from a
    marker on, or a leading `{`, the rest waits for the end of the answer, when the
    caller either recovers calls from it or releases it.
    """

    def __init__(self) -> None:
        """Nothing seen yet."""
        self._seen = ""
        self._held = ""
        self._holding = False
        self._at_start = True

    def feed(self, delta: str) -> str:
        """Take a piece of streamed text; return what can be said now."""
        if self._holding:
            self._held += delta
            return ""
        pending, self._held = self._held + delta, ""
        if self._at_start:
            # What would be said so far, reasoning left out.
            lead = _THINK.sub("", self._seen + pending).lstrip()
            if lead.startswith((*_LEADING, *_MARKERS)):
                self._holding = True
                self._held = pending
                return ""
            if lead and any(m.startswith(lead) for m in (*_MARKERS, *_LEADING)):
                self._held = pending
                return ""
            self._at_start = not lead
        cut = _marker_start(pending)
        if cut is not None:
            self._holding = True
            self._held = pending[cut:]
            pending = pending[:cut]
        elif keep := _partial_marker(pending):
            self._held = pending[-keep:]
            pending = pending[:-keep]
        if self._at_start:
            self._seen += pending
        return pending

    def release(self) -> str:
        """At the end: what was held, to be said after all."""
        held, self._held = self._held, ""
        return held


def _marker_start(text: str) -> int | None:
    starts = [index for marker in _MARKERS if (index := text.find(marker)) != -1]
    return min(starts) if starts else None


def _partial_marker(text: str) -> int:
    """How many characters at the end of `text` may begin a marker."""
    for size in range(min(len(text), max(map(len, _MARKERS)) - 1), 0, -1):
        tail = text[-size:]
        if any(marker.startswith(tail) for marker in _MARKERS):
            return size
    return 0
