"""Tool calls a model wrote as text, recovered; and the stream held back meanwhile.

A server whose tool parser is not set up (vLLM without `--tool-call-parser`,
llama-server without `--jinja`, a chat template without tools) passes the model's
call through as text. Two kinds count as calls:

- an envelope: Hermes/Qwen `<tool_call>{…}</tool_call>`, Mistral `[TOOL_CALLS][…]`,
  Llama 3 `<|python_tag|>{…}` — special markup no answer contains;
- an answer that is nothing but the call(s): JSON (also as Python literals or with
  the slips small models make: trailing commas, single quotes, comments, `null`
  arguments), pythonic calls (`[f(a="x", b=1)]`, literals only, read with `ast`,
  never run) or one of those in a fenced block.

A call naming a tool we do not offer is still a call: the loop answers it with the
unknown-tool error so the model can try again, and it is never spoken. Text around a
fenced example is an answer, not a call: nothing of it runs.
"""

import ast
from collections.abc import Collection
from dataclasses import dataclass
import json
import re
from typing import Any
import uuid

import json_repair

from .provider import ToolCall

# Text that starts a written call anywhere in an answer.
_MARKERS = ("<tool_call>", "[TOOL_CALLS]", "<|python_tag|>", "```")
# Only at the very start of an answer: bare JSON.
_LEADING = ("{", "[{")
_THINK = re.compile(r"<think>.*?(?:</think>|$)", re.DOTALL)
_HERMES = re.compile(r"<tool_call>(.*?)(?:</tool_call>|$)", re.DOTALL)
_FENCE = re.compile(r"```[a-zA-Z]*[ \t]*\n?(.*?)(?:```|$)", re.DOTALL)
_MISTRAL_ARGS = re.compile(r"([A-Za-z0-9_.-]+)\[ARGS\]")
# End-of-turn tokens some servers leave after a call.
_END_TOKENS = re.compile(r"(?:\s*(?:<\|[a-z_]+\|>|</s>|<end_of_turn>))+\s*$")
# A pythonic call's start: `name(` or `[name(` (dotted names: `functions.f(`).
_PYTHONIC_START = re.compile(r"\[?\s*[A-Za-z_][\w.]*\(")
_PYTHONIC_NAME = re.compile(r"\[?\s*[A-Za-z_][\w.]*")
# What a tool's name may look like to be taken as one (an unknown one included).
_CALL_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.:-]{0,63}")
_NAME_KEYS = ("name", "tool_name", "function_name")
_ARGUMENT_KEYS = ("arguments", "parameters", "args", "tool_args", "input")
# Keys a call object has besides its name and arguments; any other makes an object
# naming an unknown tool data (or a tool's schema), not a call.
_CALL_KEYS = frozenset({*_NAME_KEYS, *_ARGUMENT_KEYS, "type", "id"})
# JSON's words as a pythonic call may write them.
_JSON_WORDS = {"true": True, "false": False, "null": None}
# A call is short: longer text is an answer (and never reaches a parser).
_MAX_CALL_CHARS = 20_000


@dataclass(frozen=True, slots=True)
class TextCalls:
    """Calls found in an answer's text, and the text without them."""

    calls: list[ToolCall]
    text: str


def recover_tool_calls(text: str, offered: Collection[str]) -> TextCalls | None:
    """The calls written in `text`, if it holds any (all of them well-formed).

    A call's name is the offered tool it means (itself, or the one offered tool it
    ends when namespaced); any other name is kept as written, for the loop to answer
    as an unknown tool.
    """
    if not offered or not text.strip() or len(text) > _MAX_CALL_CHARS:
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
        raws = [_loads(match.group(1)) for match in matches]
        return _flatten(raws), [match.group(0) for match in matches]
    for marker in ("[TOOL_CALLS]", "<|python_tag|>"):
        if (start := text.find(marker)) != -1:
            return _after_marker(text[start:], marker)
    return _whole_answer(text)


def _whole_answer(text: str) -> tuple[list[Any], list[str]] | None:
    """The calls of an answer that is nothing but them (bare or fenced)."""
    answer = _THINK.sub("", text).strip()
    bare = _END_TOKENS.sub("", answer).strip()
    if not bare:
        return None
    fences = list(_FENCE.finditer(bare))
    if fences and not _FENCE.sub("", bare).strip():
        bodies = [match.group(1) for match in fences]
    elif fences:
        return None  # a call shown in an explanation is an example, not a call
    else:
        bodies = [bare]
    raws: list[Any] = []
    for body in bodies:
        body = _END_TOKENS.sub("", body).strip()
        if _PYTHONIC_START.match(body):
            raw: Any = _pythonic(body)
        elif body.startswith(_LEADING):
            # Stray words after the object (often a made-up result) are dropped.
            raw = _loads(body)
        else:
            return None
        if raw is None or raw == []:
            return None
        raws.append(raw)
    return _flatten(raws), [answer]


def _after_marker(text: str, marker: str) -> tuple[list[Any], list[str]] | None:
    body = _END_TOKENS.sub("", text[len(marker) :]).strip()
    if marker == "[TOOL_CALLS]" and (named := _MISTRAL_ARGS.match(body)):
        # Mistral's newer form: [TOOL_CALLS]name[ARGS]{…}
        arguments = _loads(body[named.end() :])
        return [{"name": named.group(1), "arguments": arguments}], [text]
    if _PYTHONIC_START.match(body):
        return _flatten([_pythonic(body)]), [text]
    if marker == "<|python_tag|>" and ";" in body and not body.startswith("["):
        # Llama 3 may separate several calls with ";".
        return _flatten([_loads(part) for part in body.split(";") if part.strip()]), [
            text
        ]
    return _flatten([_loads(body)]), [text]


def _loads(text: str) -> Any:
    """A candidate call's JSON, as leniently as small models need.

    Strict JSON first; then Python literals (`{'name': …, 'x': True}`), read by
    `ast.literal_eval`, never run; then json_repair for the rest (trailing commas,
    comments, a trailing end-of-turn token or stray text after the object).
    """
    text = _END_TOKENS.sub("", text.strip())
    if not text or len(text) > _MAX_CALL_CHARS:
        return None
    try:
        return json.loads(text)
    except ValueError, RecursionError:
        pass
    if text.startswith(("{", "[")):
        try:
            return ast.literal_eval(text)
        except ValueError, TypeError, SyntaxError, MemoryError, RecursionError:
            pass
    try:
        return json_repair.loads(text)
    except Exception:  # noqa: BLE001 - a lenient parser's failure: no call
        return None


def _pythonic(text: str) -> list[Any] | None:
    """Pythonic calls (`[f(a="x"), g()]` or `f(a="x")`): keyword literals only."""
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError, ValueError, MemoryError, RecursionError:
        return None
    body = tree.body
    nodes = body.elts if isinstance(body, ast.List | ast.Tuple) else [body]
    calls: list[Any] = []
    for node in nodes:
        if not isinstance(node, ast.Call) or node.args:
            return None  # positional arguments: which parameter is unknown
        name = _dotted(node.func)
        arguments: dict[str, Any] = {}
        for keyword in node.keywords:
            if name is None or keyword.arg is None:
                return None
            try:
                arguments[keyword.arg] = ast.literal_eval(_json_words(keyword.value))
            except ValueError, TypeError, SyntaxError, MemoryError, RecursionError:
                return None  # a variable, an expression, a call: not a literal
        calls.append({"name": name, "arguments": arguments})
    return calls or None


def _dotted(node: ast.expr) -> str | None:
    """`f` or `functions.f` as a name; anything else is no tool name."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and (base := _dotted(node.value)):
        return f"{base}.{node.attr}"
    return None


def _json_words(node: ast.expr) -> ast.expr:
    """The value with JSON's `true`, `false` and `null` as Python's constants."""
    for child in ast.walk(node):
        for field, value in ast.iter_fields(child):
            if isinstance(value, ast.Name) and value.id in _JSON_WORDS:
                setattr(child, field, ast.Constant(_JSON_WORDS[value.id]))
            elif isinstance(value, list):
                value[:] = [
                    ast.Constant(_JSON_WORDS[item.id])
                    if isinstance(item, ast.Name) and item.id in _JSON_WORDS
                    else item
                    for item in value
                ]
    if isinstance(node, ast.Name) and node.id in _JSON_WORDS:
        return ast.Constant(_JSON_WORDS[node.id])
    return node


def _flatten(raws: list[Any]) -> list[Any]:
    calls: list[Any] = []
    for raw in raws:
        calls.extend(raw if isinstance(raw, list) else [raw])
    return calls


def _tool_call(raw: Any, offered: Collection[str]) -> ToolCall | None:
    """A call object in any of the common shapes, if it is one."""
    if not isinstance(raw, dict):
        return None
    if isinstance(function := raw.get("function"), dict):
        raw = function  # {"type": "function", "function": {"name", "arguments"}}
    name = next((raw[key] for key in _NAME_KEYS if isinstance(raw.get(key), str)), None)
    if name is None:
        return None
    tool = _offered_name(name, offered)
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
        arguments = _loads(arguments) if arguments.strip() else None
    if arguments is None:
        arguments = {}  # `"arguments": null` or none: a tool without parameters
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
    marker on, or a leading `{` or pythonic call (`[f(`, `f(`), the rest waits for the end of the answer, when the
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
            if (start := _call_start(lead)) is not False:
                self._holding = start is True
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


def _call_start(lead: str) -> bool | None:
    """Whether an answer starting so is a call's start: yes, no, or not known yet."""
    if not lead:
        return False
    if lead.startswith((*_LEADING, *_MARKERS)) or _PYTHONIC_START.match(lead):
        return True
    if any(m.startswith(lead) for m in (*_MARKERS, *_LEADING)):
        return None
    if (name := _PYTHONIC_NAME.match(lead)) and name.end() == len(lead):
        return None  # a word so far: `[f(` or `f(` may follow
    return False


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
