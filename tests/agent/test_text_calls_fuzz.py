"""The text-call reader and the held-text reader on any text: no crash, linear work.

Property-based (hypothesis): random text, and near-calls built from the families'
markup, cut and spliced at random. Whatever comes, `recover_tool_calls` answers (calls
or None) and `HeldText` gives back every character it took, in order. The work for an
answer grows with its length, not its square: counted, never timed.
"""

import re

from hypothesis import HealthCheck, assume, given, settings, strategies as st
import pytest

from custom_components.agentic_conversation.agent import held_text as held_module
from custom_components.agentic_conversation.agent.held_text import HeldText
from custom_components.agentic_conversation.agent.reasoning_text import (
    without_reasoning,
)
from custom_components.agentic_conversation.agent.text_tool_calls import (
    recover_tool_calls,
)
from custom_components.agentic_conversation.agent.written_calls import (
    OPENINGS,
    edge_trimmed,
)
from tests.written_forms import FAMILY_CALLS, written

OFFERED = ["assist__HassTurnOn", "get_weather"]
_PIECES = [
    *OPENINGS,
    "<think>",
    "</think>",
    "[THINK]",
    "[/THINK]",
    "</tool_call>",
    "```",
    "```json\n",
    "{",
    "}",
    "[",
    "]",
    "(",
    ")",
    '"',
    "'",
    ":",
    ",",
    "\\",
    "\n",
    " ",
    "name",
    "arguments",
    "HassTurnOn",
    "assist__HassTurnOn",
    "a.",
    "=",
    "<|eot_id|>",
    "\ud800",
    "{{",
    "}}",
    "//",
    "/*",
]
NEAR_CALLS = st.lists(
    st.one_of(
        st.sampled_from(_PIECES),
        st.sampled_from([written(form, "assist__HassTurnOn") for form in FAMILY_CALLS]),
        st.text(max_size=8),
    ),
    max_size=40,
).map("".join)
ANY_TEXT = st.one_of(st.text(max_size=400), NEAR_CALLS)
FUZZ = settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def _chunks(text: str, sizes: list[int]) -> list[str]:
    """`text` cut in pieces of the given sizes (the last takes the rest)."""
    pieces, position = [], 0
    for size in sizes:
        pieces.append(text[position : position + size])
        position += size
    pieces.append(text[position:])
    return pieces


@FUZZ
@given(ANY_TEXT)
def test_any_text_is_read_without_a_crash(text: str) -> None:
    """Calls or None, never an exception; a call's name is one offered or plausible."""
    found = recover_tool_calls(text, OFFERED)
    if found is not None:
        assert found.calls
        for call in found.calls:
            assert isinstance(call.arguments, dict)
            assert call.name in OFFERED or re.fullmatch(r"[\w.:-]{1,64}", call.name)


@FUZZ
@given(ANY_TEXT, st.lists(st.integers(min_value=0, max_value=12), max_size=60))
def test_held_text_gives_back_every_character_in_order(
    text: str, sizes: list[int]
) -> None:
    """What is said now plus what is released at the end is the answer, unchanged."""
    held = HeldText()
    said = "".join(held.feed(piece) for piece in _chunks(text, sizes))
    assert said + held.release() == text


@FUZZ
@given(st.sampled_from(list(FAMILY_CALLS)), st.text(max_size=30))
def test_a_family_call_with_words_after_it_is_no_call(form: str, words: str) -> None:
    """Any words after the call (not only space or an end token) make it an answer."""
    # Words (a letter or a digit), not space, end tokens, reasoning or another call;
    # a separator alone (`;` between Llama 3's calls) is no word.
    assume(any(char.isalnum() for char in edge_trimmed(without_reasoning(words))))
    assume(not any(opening in words for opening in OPENINGS))
    answer = f"{written(form, 'assist__HassTurnOn')} {words}"
    assert recover_tool_calls(answer, OFFERED) is None


@pytest.mark.parametrize(
    "text",
    [
        "a." * 1_000 + "a()",  # a 2,000-character dotted name (RecursionError before)
        "[" + "a." * 1_000 + "a()]",
        "<|python_tag|>" + "a." * 1_000 + "a()",
        "x" * 10_000_000,  # 10 MB
        " " * 1_000_000 + "{",
        "<think>" * 50_000,
        "<tool_call>" * 20_000,
        '{"a": ' * 5_000,
        "[" * 5_000 + "]" * 5_000,
        '{"name": "HassTurnOn", "arguments": {"name": "\ud800"}}',
    ],
    ids=[
        "dotted",
        "dotted list",
        "dotted after tag",
        "10 MB",
        "1 MB of space",
        "openings of reasoning",
        "openings of calls",
        "nested objects",
        "nested lists",
        "lone surrogate",
    ],
)
def test_strange_text_never_raises(text: str) -> None:
    """Each reader answers on text built to break parsers (deep, long, broken)."""
    found = recover_tool_calls(text, OFFERED)
    held = HeldText()
    said = held.feed(text)
    assert said + held.release() == text
    if found is not None:  # only the surrogate's call: made safe to send on
        ((call),) = found.calls
        assert call.arguments == {"name": "\ufffd"}


class _CountingPattern:
    """A compiled pattern that counts the characters its searches start from."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern = pattern
        self.scanned = 0

    def search(self, text: str, position: int = 0) -> re.Match[str] | None:
        self.scanned += len(text) - position
        return self.pattern.search(text, position)


@pytest.mark.parametrize("piece", ["a", "<", " ", "x<", "{", "<think>x"], ids=repr)
def test_held_text_work_grows_linearly(
    piece: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """10x the pieces, about 10x the characters looked at (not 100x).

    One unbroken token in one-character pieces took quadratic time before.
    """
    scanned, looked_at = [], []
    for count in (5_000, 50_000):
        counting = _CountingPattern(held_module._TAG)  # noqa: SLF001
        monkeypatch.setattr(held_module, "_TAG", counting)
        held = HeldText()
        said, kept = [], 0
        for _ in range(count):
            # What each piece is read with: the piece and what was kept back.
            kept += len(held._kept) + len(piece)  # noqa: SLF001
            said.append(held.feed(piece))
        assert "".join(said) + held.release() == piece * count
        scanned.append(counting.scanned)
        looked_at.append(kept)
    assert scanned[1] <= 20 * max(scanned[0], 1)
    assert looked_at[1] <= 20 * looked_at[0]
