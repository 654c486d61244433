"""Tool calls written as text, in each model family's notation: found and read.

`read_calls` takes an answer (reasoning already left out) and returns the raw call
objects it IS, with the words said before them, or None when it is an answer. An
envelope (a family's markup around calls) may follow words but must end the answer;
bare calls (JSON, pythonic, fenced) must be the whole answer. Every step moves
forward through the text: linear in it, and nothing here raises.
"""

from collections.abc import Callable
from dataclasses import dataclass
import re
from typing import Any

from .call_bodies import (
    arguments as read_arguments,
    glm_call,
    json_calls,
    name_then,
    pythonic,
    tagged,
    tool_name,
    value,
    xml_function,
)
from .reasoning_text import tag_pattern

# A pythonic call's start: `name(` or `[name(` (dotted names: `functions.f(`).
PYTHONIC_START = re.compile(r"\[?\s*[A-Za-z_][\w.]{0,127}\(")
# An answer that is bare JSON starts so (`[` then `{`: a list of calls).
JSON_START = re.compile(r"\{|\[\s*\{")
_FENCE = re.compile(r"```[A-Za-z_]*[ \t]*")
# Empty fences a small model repeats after its call until its token limit ("```" on
# each line, Qwen2.5-Coder-1.5B): they say nothing. Matched on the reversed text.
_TRAILING_FENCES = re.compile(r"(?:\s*```)+\s*")
# Tokens a server may leave around an answer: end of turn, start of the response.
_EDGE_TOKENS = (
    "<|im_start|>assistant",  # ChatML
    "<|start|>assistant",  # gpt-oss
    "<|channel|>final<|message|>",
    "<|START_RESPONSE|>",  # Command
    "<|END_RESPONSE|>",
    "<|END_OF_TURN_TOKEN|>",
    "<|eot_id|>",  # Llama 3
    "<|eom_id|>",
    "<|im_end|>",  # ChatML: Qwen, Hermes, LFM2, Kimi
    "<|end|>",  # Phi
    "<|endoftext|>",
    "<|end_of_text|>",  # Granite
    "<|return|>",  # gpt-oss
    "<|call|>",
    "<|user|>",  # GLM
    "<|observation|>",
    "<｜end▁of▁sentence｜>",  # DeepSeek
    "<end_of_turn>",  # Gemma
    "<eos>",
    "</s>",  # Mistral, Llama 2
    "[/TOOL_CALLS]",
)
_LEADING_EDGE = re.compile(r"(?:\s|" + "|".join(map(re.escape, _EDGE_TOKENS)) + ")*")
# Read backwards, so finding the tokens at the end stays linear.
_TRAILING_EDGE = re.compile(
    r"(?:\s|" + "|".join(re.escape(token[::-1]) for token in _EDGE_TOKENS) + ")*"
)
type _Reader = Callable[[str, int], list[Any] | None]

# How deep envelopes may sit inside each other (`<tools><tool_call>…`).
_MAX_DEPTH = 2
# Envelopes tried after words before giving up: an answer, not a call.
_MAX_ATTEMPTS = 3


@dataclass(frozen=True, slots=True)
class _Envelope:
    """A family's markup around calls: its opening, closing and how to read inside."""

    opening: str
    # None: the body runs to the same opening again, or to the end.
    closing: str | None
    read: _Reader


def read_calls(answer: str) -> tuple[list[Any], str] | None:
    """The raw calls `answer` is, and the words before them; None: an answer."""
    answer = edge_trimmed(answer)
    return _read(answer, 0, words_first=True) if answer else None


def edge_trimmed(text: str) -> str:
    """The text without space and end-of-turn tokens at its edges."""
    start = _LEADING_EDGE.match(text)
    begin = start.end() if start else 0
    tail = _TRAILING_EDGE.match(text[::-1])
    end = len(text) - (tail.end() if tail else 0)
    return text[begin:end] if begin < end else ""


def _read(text: str, depth: int, *, words_first: bool) -> tuple[list[Any], str] | None:
    """The calls `text` is, and the words before them (only where allowed)."""
    if depth > _MAX_DEPTH:
        return None
    for attempt, opening in enumerate(_OPENING.finditer(text)):
        if attempt == _MAX_ATTEMPTS or (
            not words_first and text[: opening.start()].strip()
        ):
            break
        if (raws := _envelopes(text, opening.start(), depth)) is not None:
            return raws, text[: opening.start()]
    raws = _bare(text)
    return None if raws is None else (raws, "")


def _envelopes(text: str, position: int, depth: int) -> list[Any] | None:
    """The calls of envelopes from `position` to the end, nothing else between."""
    raws: list[Any] = []
    while True:
        while position < len(text) and text[position].isspace():
            position += 1
        if position == len(text):
            return raws or None
        if (opening := _OPENING.match(text, position)) is None:
            return None  # words after a call: it was shown, not made
        envelope = _ENVELOPES[opening.group()]
        start = opening.end()
        if envelope.closing is None:
            end = text.find(envelope.opening, start)
            end = after = len(text) if end == -1 else end
        elif (end := text.find(envelope.closing, start)) == -1:
            end = after = len(text)  # unterminated: the model stopped there
        else:
            after = end + len(envelope.closing)
        if (read := envelope.read(text[start:end], depth)) is None:
            return None
        raws.extend(read)
        position = after


def _bare(text: str) -> list[Any] | None:
    """The calls of an answer that is nothing but them (bare or fenced)."""
    if text.startswith("```"):
        bodies = _fenced(text)
    else:
        tail = _TRAILING_FENCES.match(text[::-1])
        bodies = [text[: len(text) - tail.end()] if tail else text]
    raws: list[Any] = []
    for body in bodies or []:
        body = edge_trimmed(body)
        if not body and len(bodies or []) > 1:
            continue  # an empty fenced block among the calls' blocks
        if PYTHONIC_START.match(body):
            read = pythonic(body)
        elif JSON_START.match(body):
            # Words after the object (a made-up result, "is the call I would
            # make") make it an answer: only JSON is a call.
            read = json_calls(body)
        else:
            return None
        if not read:
            return None
        raws.extend(read)
    return raws or None


def _fenced(text: str) -> list[str] | None:
    """The bodies of fenced blocks when the text is nothing else."""
    bodies: list[str] = []
    position = 0
    while position < len(text):
        if not (fence := _FENCE.match(text, position)):
            return None  # words around a fence: an example, not a call
        end = text.find("```", fence.end())
        end = len(text) if end == -1 else end
        bodies.append(text[fence.end() : end])
        position = end + 3
        while position < len(text) and text[position].isspace():
            position += 1
    return bodies


def _calls_or_pythonic(body: str, _depth: int = 0) -> list[Any] | None:
    body = body.strip()
    return pythonic(body) if PYTHONIC_START.match(body) else json_calls(body)


def _inner(body: str, depth: int) -> list[Any] | None:
    """Envelopes (or bare calls) inside an outer envelope."""
    found = _read(edge_trimmed(body), depth + 1, words_first=False)
    return None if found is None else found[0]


def _hermes(body: str, depth: int) -> list[Any] | None:
    """Hermes/Qwen JSON, Granite's list, Qwen3-Coder's XML or GLM-4.5's keys."""
    body = body.strip()
    if body.startswith(("{", "[")):
        return json_calls(body)
    if body.startswith("<function="):
        return xml_function(body)
    if PYTHONIC_START.match(body):
        return pythonic(body)
    return glm_call(body)


def _mistral(body: str, _depth: int) -> list[Any] | None:
    """`[TOOL_CALLS][{…}]`, or the newer `name[ARGS]{…}` (`name[CALL_ID]id[ARGS]{…}`)."""
    body = body.strip()
    if body.startswith(("[", "{")):
        return _calls_or_pythonic(body)
    head, separator, arguments = body.partition("[ARGS]")
    name = tool_name(head.partition("[CALL_ID]")[0])
    return _call(name, arguments) if separator else None


def _named_json(separator: str) -> _Reader:
    """A name, `separator`, `{…}`: functionary's `>>>name` line and `<function=name>{…}`."""

    def read(body: str, _depth: int) -> list[Any] | None:
        if (split := name_then(body.lstrip(), separator)) is None or split[0] == "all":
            return None  # functionary's `>>>all` is text for the user
        name, rest = split
        rest = rest.strip()
        if rest.startswith("<parameter="):  # Qwen3-Coder without its <tool_call>
            if not (pairs := tagged(rest, "<parameter=", "</parameter>")):
                return None
            return [{"name": name, "arguments": _pairs(pairs)}]
        return _call(name, rest)

    return read


def _deepseek(body: str, _depth: int) -> list[Any] | None:
    """DeepSeek: `function<｜tool▁sep｜>name` then fenced `{…}` (V3), `name<｜tool▁sep｜>{…}`."""
    if (split := name_then(body, "<｜tool▁sep｜>")) is None:
        return None
    name, rest = split
    if name == "function":  # V3/R1: the name on the line after
        if (split := name_then(rest, "\n")) is None:
            return None
        name, rest = split
    rest = rest.strip()
    if rest.startswith("```"):
        rest = rest[3:].removeprefix("json").removesuffix("```")
    return _call(name, rest)


def _kimi(body: str, _depth: int) -> list[Any] | None:
    """Kimi K2: `functions.name:0<|tool_call_argument_begin|>{…}`."""
    if (split := name_then(body, "<|tool_call_argument_begin|>")) is None:
        return None
    name, arguments = split
    return _call(re.sub(r":\d+$", "", name), arguments)


def _harmony(body: str, _depth: int) -> list[Any] | None:
    """gpt-oss: `functions.name <|constrain|>json<|message|>{…}` (after `to=`)."""
    head, _, arguments = body.partition("<|message|>")
    name = head.split("<|constrain|>", 1)[0].split(" ", 1)[0]
    return _call(name, arguments) if arguments.strip() else None


def _minimax(body: str, _depth: int) -> list[Any] | None:
    """MiniMax M2: `<invoke name="x"><parameter name="k">v</parameter></invoke>`."""
    calls: list[Any] = []
    for name, inside in tagged(body, "<invoke name=", "</invoke>") or []:
        pairs = tagged(inside, "<parameter name=", "</parameter>")
        if pairs is None:
            return None
        calls.append({"name": name.strip("\"' "), "arguments": _pairs(pairs)})
    return calls or None


def _function_gemma(body: str, _depth: int) -> list[Any] | None:
    """FunctionGemma: `call:name{key:<escape>text<escape>,n:1}`."""
    body = body.strip().removeprefix("call:")
    if (split := name_then(body, "{")) is None:
        return None
    return _call(split[0], "{" + split[1].replace("<escape>", '"'))


def _apertus(body: str, _depth: int) -> list[Any] | None:
    """Apertus: `[{"name": {arguments}}]`."""
    calls = json_calls(body) or []
    shaped = [
        {"name": name, "arguments": arguments}
        for call in calls
        if isinstance(call, dict) and len(call) == 1
        for name, arguments in call.items()
    ]
    return shaped if shaped and len(shaped) == len(calls) else None


def _command_r(body: str, _depth: int) -> list[Any] | None:
    """Command R+: `Action: ```json [{"tool_name": …, "parameters": …}] ``` `."""
    bodies = _fenced(body.strip())
    return json_calls(bodies[0]) if bodies and len(bodies) == 1 else None


def _call(name: str | None, arguments: str) -> list[Any] | None:
    """One call of `name` with arguments written as JSON, nothing else with them."""
    if name is None or (read := read_arguments(arguments)) is None:
        return None
    return [{"name": name, "arguments": read}]


def _pairs(pairs: list[tuple[str, str]]) -> dict[str, Any]:
    return {key.strip("\"' "): value(text) for key, text in pairs}


_ENVELOPES = {
    envelope.opening: envelope
    for envelope in (
        _Envelope("<tool_call>", "</tool_call>", _hermes),  # Hermes, Qwen, GLM, Granite
        _Envelope("<tools>", "</tools>", _inner),  # a small model's slip
        _Envelope(
            "<tool_calls>", "</tool_calls>", _calls_or_pythonic
        ),  # MiniMax, Jamba
        _Envelope("[TOOL_CALLS]", None, _mistral),  # Mistral
        _Envelope("<|python_tag|>", None, _calls_or_pythonic),  # Llama 3.x
        _Envelope("<|python_start|>", "<|python_end|>", _calls_or_pythonic),  # Llama 4
        _Envelope(
            "<|tool_call|>", "<|/tool_call|>", _calls_or_pythonic
        ),  # Granite, Phi-4
        _Envelope("functools", None, _calls_or_pythonic),  # Phi-4-mini
        _Envelope("<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>", _inner),  # DeepSeek
        _Envelope("<｜tool▁call▁begin｜>", "<｜tool▁call▁end｜>", _deepseek),
        _Envelope("<|tool_calls_section_begin|>", "<|tool_calls_section_end|>", _inner),
        _Envelope("<|tool_call_begin|>", "<|tool_call_end|>", _kimi),  # Kimi K2
        _Envelope("<|action_start|><|plugin|>", "<|action_end|>", _calls_or_pythonic),
        _Envelope(
            "<|START_ACTION|>", "<|END_ACTION|>", _calls_or_pythonic
        ),  # Command R7B
        _Envelope("Action:", None, _command_r),  # Command R+
        _Envelope("<function=", "</function>", _named_json(">")),  # functionary, Llama
        _Envelope(">>>", None, _named_json("\n")),  # functionary v3.2
        _Envelope("<TOOLCALL>", "</TOOLCALL>", _calls_or_pythonic),  # Nemotron
        _Envelope(
            "<|tool_call_start|>", "<|tool_call_end|>", _calls_or_pythonic
        ),  # LFM2
        _Envelope("<start_function_call>", "<end_function_call>", _function_gemma),
        _Envelope(
            "<seed:tool_call>", "</seed:tool_call>", lambda b, _d: xml_function(b)
        ),
        _Envelope("<minimax:tool_call>", "</minimax:tool_call>", _minimax),
        _Envelope("<|tools_prefix|>", "<|tools_suffix|>", _apertus),  # Apertus
        _Envelope("<|channel|>commentary to=", "<|call|>", _harmony),  # gpt-oss
    )
}
OPENINGS = frozenset(_ENVELOPES)
_OPENING = tag_pattern(OPENINGS)
