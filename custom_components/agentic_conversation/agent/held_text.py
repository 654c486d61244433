"""Streamed text with what may be a written tool call held back from the speaker.

Text passes through at once unless it may be a call: from an envelope's opening
(`<tool_call>`, `[TOOL_CALLS]`…) outside reasoning, or an answer that starts like a
bare call (`{`, `[{`, `f(`, a fence), the rest waits for the end of the answer, when
the caller either recovers calls from it or releases it. Reasoning streams as it
comes (a call inside it is no call). Each piece is looked at once, plus a few
characters kept back where a tag may be cut in two: linear in the answer.
"""

import re

from .reasoning_text import PAIRS, STRAY_CLOSES, tag_pattern
from .written_calls import JSON_START, OPENINGS, PYTHONIC_START

# Held from there on: a call's opening; a fence too (it is no call after words, but
# the speech cleaner drops its markup only when it comes whole).
_HOLD = OPENINGS | {"```"}
# Tags that change what the text is: what is held, reasoning's start and end.
_TAGS = _HOLD | set(PAIRS) | STRAY_CLOSES
_TAG = tag_pattern(_TAGS)
_TAG_STARTS = frozenset(tag[:size] for tag in _TAGS for size in range(1, len(tag)))
_LONGEST_TAG = max(map(len, _TAGS))
_SPACE = re.compile(r"\s*")
# A bare call's start is known within this many characters (a name, then `(`).
_LEAD_CHARS = 160
_LEAD_NAME = re.compile(r"\[?\s*[A-Za-z_][\w.]*")
_BARE_STARTS = ("{", "[", "```")


class HeldText:
    """Streamed text, with what may be a written call held back until the end."""

    def __init__(self) -> None:
        """Nothing seen yet."""
        self._kept = ""  # the end of the last piece: may begin a tag or a call
        self._held: list[str] = []
        self._holding = False
        self._closing: str | None = None  # inside reasoning: the tag ending it
        self._at_start = True  # no answer text yet (space and reasoning aside)

    def feed(self, delta: str) -> str:
        """Take a piece of streamed text; return what can be said now."""
        if self._holding:
            self._held.append(delta)
            return ""
        text, self._kept = self._kept + delta, ""
        said: list[str] = []
        position = 0
        while position < len(text) and not self._holding:
            if self._closing is not None:
                position = self._in_reasoning(text, position, said)
                continue
            if self._at_start:
                space = _SPACE.match(text, position)
                end = space.end() if space else position
                said.append(text[position:end])
                position = end
                if position == len(text):
                    break
                start = _bare_call_start(text[position : position + _LEAD_CHARS])
                if start is None:
                    self._kept = text[position:]
                    break
                if start:
                    self._hold(text[position:])
                    break
            position = self._in_answer(text, position, said)
        return "".join(said)

    def release(self) -> str:
        """At the end: what was held, to be said after all."""
        held = self._kept + "".join(self._held)
        self._kept, self._held = "", []
        return held

    def words_left(self) -> str:
        """When the stream breaks: what was kept back only as a tag's possible start.

        Plain words to be said before the failure is; never a held call, reasoning
        or an answer's undecided start.
        """
        if self._holding or self._closing is not None or self._at_start:
            return ""
        kept, self._kept = self._kept, ""
        return kept

    def _hold(self, text: str) -> None:
        self._holding = True
        self._held = [text]

    def _in_reasoning(self, text: str, position: int, said: list[str]) -> int:
        """Reasoning passes; its end is looked for, even cut between pieces."""
        assert self._closing is not None
        end = text.find(self._closing, position)
        if end == -1:
            keep = _tag_start_at_end(text, position)
            said.append(text[position : len(text) - keep])
            self._kept = text[len(text) - keep :]
            return len(text)
        end += len(self._closing)
        said.append(text[position:end])
        self._closing = None
        return end

    def _in_answer(self, text: str, position: int, said: list[str]) -> int:
        """Answer text passes up to a call's opening, which is held with the rest."""
        tag = _TAG.search(text, position)
        end = (
            len(text) - _tag_start_at_end(text, position)
            if tag is None
            else tag.start()
        )
        words = text[position:end]
        if words.strip():
            self._at_start = False
        said.append(words)
        if tag is None:
            self._kept = text[end:]
            return len(text)
        found = tag.group()
        if found in _HOLD:
            self._hold(text[tag.start() :])
            return len(text)
        said.append(found)
        if found in PAIRS:
            self._closing = PAIRS[found]
        else:  # a closing tag alone: all before it was reasoning
            self._at_start = True
        return tag.end()


def _bare_call_start(lead: str) -> bool | None:
    """Whether an answer starting so may be a bare call: yes, no, or not known yet."""
    if lead.startswith("```") or JSON_START.match(lead) or PYTHONIC_START.match(lead):
        return True
    if len(lead) >= _LEAD_CHARS:
        return False
    if any(start.startswith(lead) for start in _BARE_STARTS):
        return None  # `[` or a backtick so far
    if lead.startswith("[") and not lead[1:].strip():
        return None
    if (name := _LEAD_NAME.match(lead)) and name.end() == len(lead):
        return None  # a word so far: `(` may follow
    return False


def _tag_start_at_end(text: str, position: int) -> int:
    """How many characters at the end of `text` (from `position`) may begin a tag."""
    for size in range(min(len(text) - position, _LONGEST_TAG - 1), 0, -1):
        if text[-size:] in _TAG_STARTS:
            return size
    return 0
