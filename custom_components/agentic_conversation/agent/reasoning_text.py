"""Reasoning blocks in a model's text: where they are, and the answer without them.

Reasoning models write their thoughts before the answer, each family in its own
markup. Nothing inside a block is the answer: a tool call written there is a thought,
not a call. Some chat templates open the block in the prompt, so the model's text
starts inside it and only its end shows (`…</think>answer`).
"""

import re

# Opening tag → closing tag, per family.
PAIRS = {
    "<think>": "</think>",  # DeepSeek R1, Qwen3, QwQ, Kimi K2.5, GLM-4.5, Phi-4 reasoning
    "<thinking>": "</thinking>",  # fine-tunes in Claude's style
    "<reasoning>": "</reasoning>",
    "[THINK]": "[/THINK]",  # Magistral
    "<seed:think>": "</seed:think>",  # Seed-OSS
    "<|START_THINKING|>": "<|END_THINKING|>",  # Command A reasoning
    "◁think▷": "◁/think▷",  # Kimi VL
    "<|begin_of_thought|>": "<|end_of_thought|>",  # Sky-T1, OpenThoughts
    "<|channel|>analysis<|message|>": "<|end|>",  # gpt-oss (harmony)
}
# A closing tag seen without its opening one: the template opened the block, so all
# before it was reasoning. (`<|end|>` ends ordinary Phi turns too: not one of these.)
STRAY_CLOSES = frozenset(close for close in PAIRS.values() if close != "<|end|>")
TAGS = frozenset({*PAIRS, *STRAY_CLOSES})


def tag_pattern(tags: frozenset[str] | set[str]) -> re.Pattern[str]:
    """One regex finding any of `tags`, the longest where several start alike."""
    return re.compile("|".join(re.escape(tag) for tag in sorted(tags, key=len)[::-1]))


_TAG = tag_pattern(TAGS | {"<|end|>"})


def without_reasoning(text: str) -> str:
    """The text outside reasoning blocks (an unterminated one runs to the end)."""
    kept: list[str] = []
    position = 0
    close: str | None = None
    for match in _TAG.finditer(text):
        tag = match.group()
        if close is None:
            if tag in PAIRS:
                kept.append(text[position : match.start()])
                close, position = PAIRS[tag], match.end()
            elif tag in STRAY_CLOSES:
                kept.clear()
                position = match.end()
        elif tag == close:
            close, position = None, match.end()
    if close is None:
        kept.append(text[position:])
    return "".join(kept)


_TAG_STARTS = frozenset(
    tag[:size] for tag in TAGS | {"<|end|>"} for size in range(1, len(tag))
)
_LONGEST_TAG = max(map(len, TAGS | {"<|end|>"}))


class ReasoningFilter:
    """`without_reasoning` for streamed text: each piece's answer text, as it comes.

    Only the few characters at a piece's end that may begin a tag wait for the next
    one, so a tag cut anywhere is still found and ordinary text passes at once. A
    closing tag without its opening one drops what had not passed yet (all of it when
    it comes first: the block was opened in the prompt).

    `opened`: this model's template opens the block in the prompt (seen before), so
    its text waits until the block's end shows; one that never shows was no reasoning
    (all of it is said at the end).
    """

    def __init__(self, *, opened: bool = False) -> None:
        """Nothing seen yet."""
        self._kept = ""  # the end of the last piece: may begin a tag
        self._close: str | None = None  # inside a block: the tag ending it
        # Opened in the prompt: the text so far, until a closing tag shows.
        self._unsure: list[str] | None = [] if opened else None
        self._first_tag: str | None = None

    @property
    def started_inside(self) -> bool:
        """Whether the text so far started inside a block (its first tag a close)."""
        return self._first_tag in STRAY_CLOSES

    def feed(self, delta: str) -> str:
        """Take a piece of streamed text; return its answer text that can pass now."""
        text, self._kept = self._kept + delta, ""
        passed: list[str] = []
        position = 0
        for match in _TAG.finditer(text):
            tag = match.group()
            if self._first_tag is None:
                self._first_tag = tag
            if self._unsure is not None:
                if tag in STRAY_CLOSES:  # all before it was reasoning
                    self._unsure, position = None, match.end()
                elif tag in PAIRS:  # the model opened it itself: no block before
                    passed.extend([*self._unsure, text[position : match.start()]])
                    self._unsure = None
                    self._close, position = PAIRS[tag], match.end()
            elif self._close is None:
                if tag in PAIRS:
                    passed.append(text[position : match.start()])
                    self._close, position = PAIRS[tag], match.end()
                elif tag in STRAY_CLOSES:
                    passed.clear()
                    position = match.end()
            elif tag == self._close:
                self._close, position = None, match.end()
        keep = _tag_start_at_end(text, position)
        if self._unsure is not None:
            self._unsure.append(text[position : len(text) - keep])
        elif self._close is None:
            passed.append(text[position : len(text) - keep])
        self._kept = text[len(text) - keep :]
        return "".join(passed)

    def flush(self) -> str:
        """At the end: the answer text still kept back (an open block is dropped)."""
        kept, self._kept = self._kept, ""
        if self._unsure is not None:  # no block showed its end: all was the answer
            unsure, self._unsure = self._unsure, None
            return "".join(unsure) + kept
        return "" if self._close is not None else kept


def opened_in_prompt(text: str) -> bool:
    """Whether the text starts inside a reasoning block: a closing tag comes first."""
    first = _TAG.search(text)
    return first is not None and first.group() in STRAY_CLOSES


def _tag_start_at_end(text: str, position: int) -> int:
    """How many characters at the end of `text` (from `position`) may begin a tag."""
    for size in range(min(len(text) - position, _LONGEST_TAG - 1), 0, -1):
        if text[-size:] in _TAG_STARTS:
            return size
    return 0
