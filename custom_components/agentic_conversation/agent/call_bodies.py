"""The inside of a written tool call, in each family's notation, as call objects.

Each reader takes the text between a format's markers and returns the raw calls
(`{"name": …, "arguments": …}` or a shape `text_tool_calls` reads), or None when the
text is not that notation. Readers never raise and never run anything: pythonic calls
are read with Python's parser, literals only.
"""

import ast
import contextlib
import json
import re
from typing import Any

import json_repair

# A call is short; longer text is an answer and never reaches a parser.
MAX_CALL_CHARS = 20_000
# json_repair reads in Python: only a call's size of text goes to it.
_MAX_REPAIR_CHARS = 4_000
_NAME = re.compile(r"\s*([A-Za-z_][\w.:-]{0,127})\s*")
# JSON's words as a pythonic call may write them.
_JSON_WORDS = {"true": True, "false": False, "null": None}
_PARSE_ERRORS = (ValueError, TypeError, SyntaxError, MemoryError, RecursionError)


def loads(text: str) -> Any:
    """A candidate call's JSON, as leniently as small models need.

    Strict JSON first; then Python literals (`{'name': …, 'x': True}`), read by
    `ast.literal_eval`, never run; then doubled braces (`{{"name": …}}`, copied from a
    chat template's example); then json_repair for the rest (trailing commas,
    comments, stray text after the object).
    """
    text = text.strip()
    if not text or len(text) > MAX_CALL_CHARS:
        return None
    with contextlib.suppress(ValueError, RecursionError):
        return json.loads(text)
    if text.startswith(("{", "[")):
        with contextlib.suppress(*_PARSE_ERRORS):
            return ast.literal_eval(text)
    if text.startswith("{{") and text.endswith("}}"):
        for undoubled in (text[1:-1], text.replace("{{", "{").replace("}}", "}")):
            with contextlib.suppress(ValueError, RecursionError):
                return json.loads(undoubled)
    if len(text) > _MAX_REPAIR_CHARS:
        return None
    try:
        return json_repair.loads(text)
    except Exception:  # noqa: BLE001 - a lenient parser's failure: no call
        return None


def json_calls(text: str) -> list[Any] | None:
    """One JSON value, or several one after another (MiniMax writes one per line)."""
    parsed = [loads(one) for one in json_values(text) or []]
    return None if not parsed or None in parsed else flatten(parsed)


def arguments(text: str) -> Any:
    """A call's arguments written alone: `{}` for none, None if anything else is there."""
    if not text.strip():
        return {}
    values = json_values(text)
    return loads(values[0]) if values and len(values) == 1 else None


def json_values(text: str) -> list[str] | None:
    """The JSON values (objects, lists) `text` is, one after another; else None.

    Strings in either quote and comments are skipped, so a bracket inside them does
    not count; words outside any value mean the text is not only JSON.
    """
    values: list[str] = []
    depth = 0
    start = index = 0
    while index < len(text):
        char = text[index]
        if char in "\"'" and depth:
            index = _string_end(text, index)
            continue
        if text.startswith(("//", "/*"), index) and depth:
            closing = "\n" if text[index + 1] == "/" else "*/"
            end = text.find(closing, index)
            index = len(text) if end == -1 else end + len(closing)
            continue
        if char in "{[":
            start = index if depth == 0 else start
            depth += 1
        elif char in "}]" and depth:
            depth -= 1
            if depth == 0:
                values.append(text[start : index + 1])
        elif depth == 0 and not (char.isspace() or char in ",;"):
            return None
        index += 1
    if depth:
        values.append(text[start:])  # the model stopped before closing it
    return values or None


def _string_end(text: str, index: int) -> int:
    """The index after the string that starts at `index` (or the text's end)."""
    quote = text[index]
    index += 1
    while index < len(text):
        if text[index] == "\\":
            index += 2
        elif text[index] == quote:
            return index + 1
        else:
            index += 1
    return index


def flatten(raws: list[Any]) -> list[Any]:
    """Calls given as lists or one by one, as one list."""
    calls: list[Any] = []
    for raw in raws:
        calls.extend(raw if isinstance(raw, list) else [raw])
    return calls


def pythonic(text: str) -> list[Any] | None:
    """Pythonic calls (`[f(a="x"), g()]`, `f(a="x")`, `print(f(…))`): literals only."""
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except _PARSE_ERRORS:
        return None
    body = tree.body
    nodes = body.elts if isinstance(body, ast.List | ast.Tuple) else [body]
    calls: list[Any] = []
    for node in nodes:
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "print"
            and len(node.args) == 1
            and not node.keywords
        ):
            node = node.args[0]  # Gemma's ```tool_code print(f(…))```
        if not isinstance(node, ast.Call) or node.args:
            return None  # positional arguments: which parameter is unknown
        name = _dotted(node.func)
        arguments: dict[str, Any] = {}
        for keyword in node.keywords:
            if name is None or keyword.arg is None:
                return None
            try:
                arguments[keyword.arg] = ast.literal_eval(_json_words(keyword.value))
            except _PARSE_ERRORS:
                return None  # a variable, an expression, a call: not a literal
        calls.append({"name": name, "arguments": arguments})
    return calls or None


def _dotted(node: ast.expr) -> str | None:
    """`f` or `functions.f` as a name (read without recursion); else None."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return ".".join([node.id, *reversed(parts)])


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


def value(text: str) -> Any:
    """A parameter written as text: JSON where it is (numbers, true), else the text."""
    stripped = text.strip()
    if stripped[:1] in ("{", "[", '"') or stripped in _JSON_WORDS:
        parsed = loads(stripped)
        return stripped if parsed is None else parsed
    with contextlib.suppress(ValueError):
        return float(stripped) if "." in stripped else int(stripped)
    return stripped


def tagged(text: str, opening: str, closing: str) -> list[tuple[str, str]] | None:
    """`<opening>KEY>VALUE<closing>` pairs in order; None if the text is anything else.

    E.g. `<parameter=k>v</parameter>`: the key is up to the first `>`.
    """
    pairs: list[tuple[str, str]] = []
    position = 0
    while (start := text.find(opening, position)) != -1:
        if text[position:start].strip():
            return None
        key_end = text.find(">", start)
        end = text.find(closing, key_end)
        if key_end == -1 or end == -1:
            return None
        pairs.append((text[start + len(opening) : key_end], text[key_end + 1 : end]))
        position = end + len(closing)
    return pairs if not text[position:].strip() else None


def tool_name(text: str) -> str | None:
    """The text as a tool's name (space around it aside), if it can be one."""
    return named.group(1) if (named := _NAME.fullmatch(text)) else None


def name_then(text: str, separator: str) -> tuple[str, str] | None:
    """A tool name, `separator`, then the rest (`name[ARGS]{…}`, a name on its line)."""
    split = text.find(separator)
    if split == -1 or not (name := _NAME.fullmatch(text[:split])):
        return None
    return name.group(1), text[split + len(separator) :]


def xml_function(body: str) -> list[Any] | None:
    """Qwen3-Coder / Seed-OSS: `<function=name><parameter=k>v</parameter></function>`."""
    calls: list[Any] = []
    for name, inside in tagged(body, "<function=", "</function>") or []:
        parameters = tagged(inside, "<parameter=", "</parameter>")
        if parameters is None or not _NAME.fullmatch(name):
            return None
        calls.append(
            {
                "name": name.strip(),
                "arguments": {k.strip(): value(v) for k, v in parameters},
            }
        )
    return calls or None


def glm_call(body: str) -> list[Any] | None:
    """GLM-4.5/4.6: `name` then `<arg_key>k</arg_key><arg_value>v</arg_value>` pairs."""
    start = body.find("<arg_key>")
    name = body if start == -1 else body[:start]
    if not (named := _NAME.fullmatch(name)):
        return None
    rest = "" if start == -1 else body[start:]
    arguments: dict[str, Any] = {}
    position = 0
    while (key_start := rest.find("<arg_key>", position)) != -1:
        key_end = rest.find("</arg_key>", key_start)
        value_start = rest.find("<arg_value>", key_end)
        value_end = rest.find("</arg_value>", value_start)
        if min(key_end, value_start, value_end) == -1:
            return None
        key = rest[key_start + len("<arg_key>") : key_end]
        arguments[key.strip()] = value(
            rest[value_start + len("<arg_value>") : value_end]
        )
        position = value_end + len("</arg_value>")
    return [{"name": named.group(1), "arguments": arguments}]
