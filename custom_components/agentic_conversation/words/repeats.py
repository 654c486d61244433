"""A model that says a sentence again has lost its way: its answer ends before it.

Small models fall into loops ("The weather is lovely, too." forty times, up to their
token limit), and a satellite would read them for minutes. A sentence or line said
before in the same answer ends what is spoken; the words before it stand. Short ones
("Yes.", "OK.", a list's "Milk") may well come twice: they end it the third time
(SmolLM2's "A: 2024" / "2024: 2024" fifty times). Text passes at once, unless it may
be such a repeat: a sentence that starts like one said before waits for its end.
"""

from collections import Counter
import re

from ..const import LOGGER

# A sentence ends at . ! ? … (or CJK ones, after closing quotes or brackets) before a
# space, or where its line ends (the space after it goes with the next one).
_END = re.compile(r"[.!?…。！？][\"'»”’)\]]*(?=\s)|[^\n](?=\n)")
_SPACES = re.compile(r"\s+")
# Shorter sentences ("Yes.", "Turned on.") may well be said twice on purpose.
MIN_CHARS = 16
SHORT_TIMES = 3
# How far back a sentence's end may start: its closing quotes and brackets.
_END_LOOKBACK = 8


def _key(sentence: str) -> str:
    return _SPACES.sub(" ", sentence).strip().casefold()


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
        while end := _END.search(self._text, position):
            position = end.end()
            sentence = self._text[self._start : position]
            if not sentence.strip():  # spaces go with the next sentence
                continue
            if self._repeated(sentence):
                return self._stop(out, sentence)
            out.append(self._text[self._passed : position])
            self._start = self._passed = position
            self._free = False
        self._scanned = len(self._text)
        if not self._free:
            key = _key(self._text[self._start :])
            # Undecided while it is blank or starts like a sentence said before.
            self._free = bool(key) and not any(s.startswith(key) for s in self._seen)
        if self._free:
            out.append(self._text[self._passed :])
            self._passed = len(self._text)
        return self._passing(out)

    def flush(self) -> str:
        """At the end: the last sentence, unless it is a repeat."""
        if self.cut:
            return ""
        rest, unsaid = self._text[self._start :], self._text[self._passed :]
        self._text, self._start, self._passed, self._scanned = "", 0, 0, 0
        self._free = False
        if self._repeated(rest):
            return self._stop([], rest)
        return self._passing([unsaid] if rest.strip() else [])

    def _repeated(self, sentence: str) -> bool:
        """Whether the sentence was said before (a short one: twice); it is counted."""
        key = _key(sentence)
        if not key:
            return False
        if len(key) < MIN_CHARS:
            self._short[key] += 1
            self._seen.add(key)  # what starts like it waits for its end
            return self._short[key] >= SHORT_TIMES
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
