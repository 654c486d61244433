"""Make model text fit for a voice: no reasoning, markdown, emoji, data or loops.

Models answer in chat style (markdown, emoji), reasoning models prefix their thoughts
(every family's markup `agent/reasoning_text.py` knows), small ones answer with data
(held back from its first characters: `data_text.py`). A TTS engine reads such text
literally, so it is cleaned before it reaches the chat log, which the Assist pipeline
streams to TTS. A reply far longer than `max_tokens` asked for is cut at a sentence end
(a satellite must not read 10 MB aloud), and a loop where it goes round (`loops.py`).
"""

import re

from ..agent import CHARS_PER_TOKEN
from ..agent.reasoning_text import ReasoningFilter, without_reasoning
from ..const import LOGGER
from .data_text import DataGate, split_data
from .loops import SENTENCE_STOP, RepeatCut, cut_repeats

_CODE_FENCE = re.compile(r"```[^\n]*\n?")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_HEADING = re.compile(r"^[ \t]{0,3}#{1,6}[ \t]+", re.MULTILINE)
_BULLET = re.compile(r"^[ \t]*(?:[-*+•][ \t]+|\d+[.)][ \t]+)", re.MULTILINE)
_QUOTE = re.compile(r"^[ \t]*>[ \t]?", re.MULTILINE)
_RULE = re.compile(r"^[ \t]*(?:[-*_][ \t]*){3,}$", re.MULTILINE)
_TABLE_SEPARATOR = re.compile(r"^[ \t]*\|?[ \t:|-]+\|[ \t:|-]*(?:\n|$)", re.MULTILINE)
_EMPHASIS = re.compile(r"(\*{1,3}|_{2,3}|~~|`)")
_EDGE_PIPE = re.compile(r"^[ \t]*\||\|[ \t]*$", re.MULTILINE)
_PIPE = re.compile(r"[ \t]*\|[ \t]*")
# Pictographs, dingbats, flags, variation selectors and joiners: spoken as their names.
_EMOJI = re.compile(
    "["
    "\U0001f000-\U0001faff"
    "\U00002600-\U000027bf"
    "\U0001f1e6-\U0001f1ff"
    "\U00002b00-\U00002bff"
    "\ufe0f\u200d\u20e3"
    "]+"
)
_SPACES = re.compile(r"[ \t]{2,}")
# A sentence ends at a stop (`SENTENCE_STOP`) before a space or the end of the text.
_SENTENCE_END = re.compile(SENTENCE_STOP + r"(?=\s|$)")
# Tokens are counted for `max_tokens`, characters here: twice the usual ratio, so only
# a reply clearly past its limit is cut.
_BUDGET_MARGIN = 2
# Near the end of the budget, only whole sentences are released, so the cut falls
# between sentences (unless one sentence is longer than this).
_SENTENCE_WINDOW = 600
_BLANK_LINES = re.compile(r"\n{3,}")


def clean_markup(text: str) -> str:
    """Remove markdown syntax and emoji, keeping the words."""
    text = _CODE_FENCE.sub("", text)
    text = _LINK.sub(r"\1", text)
    text = _TABLE_SEPARATOR.sub("", text)
    text = _RULE.sub("", text)
    text = _HEADING.sub("", text)
    text = _QUOTE.sub("", text)
    text = _BULLET.sub("", text)
    text = _EMPHASIS.sub("", text)
    text = _EDGE_PIPE.sub("", text)
    text = _PIPE.sub(", ", text)
    text = _EMOJI.sub("", text)
    return _SPACES.sub(" ", text)


def speech_budget(max_tokens: int) -> int | None:
    """How many characters a reply of at most `max_tokens` tokens may have (None: any)."""
    return max_tokens * CHARS_PER_TOKEN * _BUDGET_MARGIN if max_tokens > 0 else None


def clean_for_speech(text: str, budget: int | None = None) -> str:
    """The whole cleaning for a finished answer: reasoning, data, markup, spacing, length.

    With a budget it is the answer to be spoken: a cut is logged.
    """
    text = clean_markup(split_data(without_reasoning(text))[0])
    text = _BLANK_LINES.sub("\n\n", text)
    text = "\n".join(line.strip() for line in text.strip().splitlines())
    # Past the budget nothing is said: no loop is looked for there.
    text = text if budget is None else text[: 2 * budget]
    text = cut_repeats(text, log=budget is not None).rstrip()
    if budget is not None and len(text) > budget:
        text = _cut(text, budget)
    return text


def _cut(
    text: str, budget: int, *, before: int = 0, sentences_only: bool = False
) -> str:
    """The text cut at its last sentence end within the budget (else a space); logged.

    `before`: characters already spoken; the budget is what is left after them.
    """
    room = text[:budget]
    ends = [match.end() for match in _SENTENCE_END.finditer(room)]
    if ends:
        end = ends[-1]
    else:
        end = 0 if sentences_only else (room.rfind(" ") + 1 or budget)
    LOGGER.warning(
        "The reply is longer than the agent asked for (%d characters allowed for "
        "its max_tokens): cut after %d characters, the rest is not spoken",
        before + budget,
        before + len(text[:end].rstrip()),
    )
    return text[:end].rstrip()


class SpeechStreamCleaner:
    """Cleans streamed text delta by delta, holding back what may still change.

    A reasoning tag or a markdown token can be split across deltas: reasoning is
    dropped as it comes (`ReasoningFilter`, which keeps back only what may begin a
    tag) and markdown's last few characters wait for the next delta, never a half
    tag. Data is held from its first characters on (`DataGate`): only the prose
    around it is spoken, and `data` tells whether there was any. A loop ends the
    speech (`RepeatCut`: a sentence said again, words that go round). With a budget,
    near its end only whole sentences are released, and past it nothing.
    """

    def __init__(
        self, budget: int | None = None, *, reasoning_opened: bool = False
    ) -> None:
        """Start with nothing pending; `budget`: the characters that may be spoken.

        `reasoning_opened`: the model's template opens reasoning in the prompt.
        """
        self._budget = budget
        self._spoken = 0
        self._unsaid = ""  # the unfinished sentence near the end of the budget
        self._cut = False
        self._pending = ""
        self._reasoning = ReasoningFilter(opened=reasoning_opened)
        self._released_any = False
        self._at_line_start = True
        # Trailing whitespace is held back until more words follow, so the spoken
        # text never ends in a space or newline left by a removed emoji or token.
        self._held_space = ""
        self._gate = DataGate()
        self._repeats = RepeatCut()

    @property
    def started_inside_reasoning(self) -> bool:
        """Whether the text so far started inside a reasoning block (`…</think>`)."""
        return self._reasoning.started_inside

    @property
    def ended(self) -> bool:
        """Whether nothing more will be spoken: a sentence said again, or the budget."""
        return self._cut or self._repeats.cut

    @property
    def data(self) -> bool:
        """Whether data was held back (and not spoken) so far."""
        return bool(self._gate.blocks)

    def feed(self, delta: str) -> str:
        """Take a delta; return the cleaned text that is safe to speak now."""
        pending = self._pending + self._reasoning.feed(delta)
        # release up to the last newline; keep a tail that may be half a token
        cut = max(pending.rfind("\n") + 1, len(pending) - 3)  # tokens are ≤ 3 chars
        self._pending = pending[cut:]
        spoken = self._gate.feed(pending[:cut])
        # Past the budget nothing is said: the rest is not looked at for repeats.
        said = "" if self._cut else self._repeats.feed(self._release(spoken))
        return self._within_budget(said, final=False)

    def flush(self) -> str:
        """Return what is left at the end of the stream."""
        text = self._pending + self._reasoning.flush()
        self._pending = ""
        text = self._gate.feed(text) + self._gate.flush()
        said = self._repeats.feed(self._release(text)) + self._repeats.flush()
        released = self._within_budget(said, final=True)
        self._held_space = ""
        return released

    def _within_budget(self, text: str, *, final: bool) -> str:
        """What of the cleaned text may be spoken; past the budget, the stream is cut."""
        if self._budget is None:
            return text
        if self._cut:
            return ""
        text, self._unsaid = self._unsaid + text, ""
        left = self._budget - self._spoken
        if len(text) > left:
            self._cut = True
            # After words were spoken, a half sentence is worse than none.
            text = _cut(
                text,
                max(left, 0),
                before=self._spoken,
                sentences_only=self._spoken > 0,
            )
        elif not final and len(text) > left - _SENTENCE_WINDOW:
            ends = [match.end() for match in _SENTENCE_END.finditer(text)]
            end = ends[-1] if ends else 0
            text, self._unsaid = text[:end], text[end:]
        self._spoken += len(text)
        return text

    def _release(self, raw: str) -> str:
        if not raw:
            return ""
        # Line-anchored rules (bullets, headings) must not fire mid-line: a guard
        # character stops `^` from matching at the start of a mid-line chunk.
        guard = "" if self._at_line_start else "\x00"
        text = clean_markup(guard + raw).removeprefix("\x00")
        self._at_line_start = raw.endswith("\n")
        if not self._released_any:
            # leading blank lines (e.g. after a reasoning block) are not spoken
            text = text.lstrip()
            self._released_any = bool(text)
        words = text.rstrip()
        if not words:
            self._held_space += text
            return ""
        released, self._held_space = self._held_space, text[len(words) :]
        if released.endswith((" ", "\t")):
            # the space before a removed block and the one after it are one space
            words = words.lstrip(" \t")
        return released + words
