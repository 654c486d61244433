"""Make model text fit for a voice: no reasoning blocks, markdown or emoji.

Models answer in chat style (markdown lists, bold, code, emoji) and reasoning models
prefix their thoughts (`<think>…</think>`, `[THINK]…[/THINK]`…: every family's markup
`agent/reasoning_text.py` knows); small ones answer with data (JSON, YAML, a code block), which
is held back from its first characters (`data_text.py`) and never spoken. A TTS engine
reads such text literally, so the agent cleans it
before it reaches the chat log, which the Assist pipeline streams to TTS. A reply far
longer than the agent asked for (`max_tokens`; some servers ignore it) is cut at a
sentence end: a satellite must not read 10 MB aloud. A model that says a sentence
again is in a loop: it is cut there (`RepeatCut`).
"""

from collections import Counter
import re

from ..agent import CHARS_PER_TOKEN
from ..agent.reasoning_text import ReasoningFilter, without_reasoning
from ..const import LOGGER
from .data_text import DataGate, split_data

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
# A sentence ends at . ! ? … (or CJK ones), after closing quotes or brackets, before
# a space or the end of the text.
_SENTENCE_STOP = r"[.!?…。！？][\"'»”’)\]]*"
_SENTENCE_END = re.compile(_SENTENCE_STOP + r"(?=\s|$)")
# Tokens are counted for `max_tokens`, characters here: twice the usual ratio, so only
# a reply clearly past its limit is cut.
_BUDGET_MARGIN = 2
# Near the end of the budget, only whole sentences are released, so the cut falls
# between sentences (unless one sentence is longer than this).
_SENTENCE_WINDOW = 600
_BLANK_LINES = re.compile(r"\n{3,}")


def strip_reasoning(text: str) -> str:
    """Remove every family's reasoning blocks, and an unterminated one at the end.

    A closing tag without its opening one (the template opened the block in the
    prompt): all before it was reasoning.
    """
    return without_reasoning(text)


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
    text = clean_markup(split_data(strip_reasoning(text))[0])
    text = _BLANK_LINES.sub("\n\n", text)
    text = "\n".join(line.strip() for line in text.strip().splitlines())
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
    tag) and markdown's last few characters wait for the next delta, never a half tag. Data is
    held from its first characters on (`DataGate`): only the prose around it is
    spoken, and `data` tells whether there was any. A sentence said a second time
    ends the speech (`RepeatCut`). With a budget, near its end only whole sentences
    are released, and past it nothing.
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


# A model that says a sentence again has lost its way: its answer ends before it.
# Small models fall into loops ("The weather is lovely, too." forty times, up to their
# token limit). A sentence or line said before in the same answer ends what is spoken;
# short ones ("Yes.", a list's "Milk") may well come twice: they end it the third time
# (SmolLM2's "A: 2024" / "2024: 2024" fifty times). Text passes at once, unless it may
# be such a repeat: a sentence that starts like one said before waits for its end.
# Streamed, a sentence is known to end only once a space follows its stop, or its
# line ends (the space after it goes with the next one).
_REPEAT_END = re.compile(_SENTENCE_STOP + r"(?=\s)|[^\n](?=\n)")
_WHITESPACE = re.compile(r"\s+")
# Shorter sentences ("Yes.", "Turned on.") may well be said twice on purpose.
REPEAT_MIN_CHARS = 16
SHORT_REPEATS = 3
# How far back a sentence's end may start: its closing quotes and brackets.
_END_LOOKBACK = 8
# Longer, a sentence is no loop's: neither remembered nor held, only its end looked
# for (an endless one streamed in pieces must not be copied piece by piece).
_LONGEST_SENTENCE = 1000


def _key(sentence: str) -> str:
    return _WHITESPACE.sub(" ", sentence).strip().casefold()


class RepeatCut:
    """Streamed answer text, ended before a sentence said again (a short one: thrice)."""

    def __init__(self, *, log: bool = True) -> None:
        """Nothing said yet; `log`: the cut is logged (once: what is spoken)."""
        self._log = log
        self._seen: set[str] = set()
        self._short: Counter[str] = Counter()  # short sentences: how often said
        self._text = ""  # from the current sentence's start on
        self._start = 0  # where the current sentence starts in it
        self._passed = 0  # how far it has passed
        self._scanned = 0  # how far it was looked at for a sentence's end
        self._free = False  # the current sentence cannot be a repeat: it passes
        self._long = False  # nor can it when too long: it is not kept
        self._said = 0
        self.cut = False

    def feed(self, text: str) -> str:
        """Take a piece of text; return what of it can be said now."""
        if self.cut or not text:
            return ""
        start = self._start  # sentences said are dropped: the text stays short
        self._text = self._text[start:] + text
        self._passed -= start
        self._scanned -= start
        self._start = 0
        out: list[str] = []
        position = max(self._scanned - _END_LOOKBACK, 0)
        while end := _REPEAT_END.search(self._text, position):
            position = end.end()
            sentence = self._text[self._start : position]
            if not sentence.strip():  # spaces go with the next sentence
                continue
            if not self._long and self._repeated(sentence):
                return self._stop(out, sentence)
            out.append(self._text[self._passed : position])
            self._start = self._passed = position
            self._free = self._long = False
        self._scanned = len(self._text)
        if not self._free:
            key = _key(self._text[self._start :])
            # Undecided while it is blank or starts like a sentence said before.
            self._free = bool(key) and not any(s.startswith(key) for s in self._seen)
        if self._free:
            out.append(self._text[self._passed :])
            if len(self._text) - self._start > _LONGEST_SENTENCE:
                self._text, self._start, self._long = (
                    self._text[-_END_LOOKBACK:],
                    0,
                    True,
                )
            self._passed = self._scanned = len(self._text)
        return self._passing(out)

    def flush(self) -> str:
        """At the end: the last sentence, unless it is a repeat."""
        if self.cut:
            return ""
        rest, unsaid = self._text[self._start :], self._text[self._passed :]
        self._text, self._start, self._passed, self._scanned = "", 0, 0, 0
        long, self._free, self._long = self._long, False, False
        if not long and self._repeated(rest):
            return self._stop([], rest)
        return self._passing([unsaid] if rest.strip() else [])

    def _repeated(self, sentence: str) -> bool:
        """Whether the sentence was said before (a short one: twice); it is counted."""
        key = _key(sentence)
        if not key:
            return False
        if len(key) < REPEAT_MIN_CHARS:
            self._short[key] += 1
            self._seen.add(key)  # what starts like it waits for its end
            return self._short[key] >= SHORT_REPEATS
        if key in self._seen:
            return True
        self._seen.add(key)
        return False

    def _passing(self, out: list[str]) -> str:
        passing = "".join(out)
        self._said += len(passing)
        return passing

    def _stop(self, out: list[str], sentence: str) -> str:
        passing = self._passing(out)
        self.cut = True
        if self._log:
            LOGGER.warning(
                "The model said a sentence again (%r): its answer is cut there, after "
                "%d characters; the rest is not spoken",
                _key(sentence)[:80],
                self._said,
            )
        return passing


def cut_repeats(text: str, *, log: bool = False) -> str:
    """The text up to its first sentence said a second time."""
    cut = RepeatCut(log=log)
    return cut.feed(text) + cut.flush()
