"""A model in a loop: its answer ends where it goes round.

Small models fall into loops up to their token limit; a satellite would read them for
minutes. A sentence said again ends the answer before it; words that go round within
a sentence are said once. What was said before stays: heard, shown and kept.
"""

from collections import Counter
import re
import string

from ..const import LOGGER

# A sentence ends at . ! ? … (or CJK ones), after closing quotes or brackets.
SENTENCE_STOP = r"[.!?…。！？][\"'»”’)\]]*"
_CUT = (
    "The model said %s (%r): its answer is cut there, after %d characters; the rest "
    "is not spoken"
)

# A model that says a sentence again has lost its way: its answer ends before it.
# Small models loop ("The weather is lovely, too." forty times, up to their token
# limit). A sentence or line said before ends what is spoken; a short one ("Yes.", a
# list's "Milk") the third time (SmolLM2's "2024: 2024" fifty times). Text passes at
# once, but a sentence that starts like one said before waits for its end, known once
# a space follows its stop or its line ends (the space goes with the next sentence).
_REPEAT_END = re.compile(SENTENCE_STOP + r"(?=\s)|[^\n](?=\n)")
_WHITESPACE = re.compile(r"\s+")
REPEAT_MIN_CHARS = 16
SHORT_REPEATS = 3
# How far back a sentence's end may start: its closing quotes and brackets.
_END_LOOKBACK = 8
# Longer, a sentence is no loop's: neither remembered nor held, only its end looked
# for (an endless one streamed in pieces must not be copied piece by piece).
_LONGEST_SENTENCE = 1000
# A loop within a sentence ("French French French …", "the lights, the lights, …"):
# the same one to eight words again and again, six words' worth and at least three
# times (per size: the words in a row that repeat the `size` before them). Words that
# repeat the few before them wait ("very, very" passes with the next word), so a loop
# is said once; a word still coming waits for its end.
_LOOP_UNIT = 8
_LOOP_RUNS = [0] + [n * (max(3, -(-6 // n)) - 1) for n in range(1, _LOOP_UNIT + 1)]
_WORD = re.compile(r"\S+")
_WORD_END = ".!?…,;:。！？、"  # a word that ends so is whole
_NOT_WORD = string.punctuation + "¡¿«»‹›“”„‘’‚…–—"
# Longer, it is no loop's word (text without spaces, a link): it ends any round.
_LONGEST_WORD = 64


def _key(sentence: str) -> str:
    return _WHITESPACE.sub(" ", sentence).strip().casefold()


class _WordLoop:
    """Text that passes unless its words go round (then `words` says which)."""

    def __init__(self) -> None:
        self._keys: list[str] = []
        self._ends: list[int] = []  # where each word ends in the text fed
        self._runs = [0] * (_LOOP_UNIT + 1)  # per size: the words repeating, at the end
        self._text = ""  # held: from `_at` on
        self._at = self._read = 0  # `_read`: where the last word read ends
        self._begun = ""  # a word passed before its end: it repeats none before it
        self.words = ""  # what went round, once

    def feed(self, text: str, *, final: bool = False) -> str:
        """What of the text may pass now (at the end, or at a loop, all it will)."""
        if self._begun and (final or text[:1].isspace()):
            self._word(self._begun, self._at)
            self._begun = ""
        self._text += text
        end, tail = -1, None
        for match in _WORD.finditer(self._text, max(self._read - self._at, 0)):
            whole = final or match.group()[-1] in _WORD_END
            if match.end() == len(self._text) and not whole:
                tail = match
                break
            word, self._begun = self._begun + match.group(), ""
            self._read = self._at + match.end()
            if (end := self._word(word, self._read)) >= 0:
                break
        if end < 0:
            held = max(self._runs)
            end = self._ends[-held - 1] if held else self._read
            if final or (tail and not held and self._new(tail)):
                end = self._at + len(self._text)
        cut = max(end - self._at, 0)
        said, self._text = self._text[:cut], self._text[cut:]
        self._at += cut
        return said

    def _new(self, tail: re.Match[str]) -> bool:
        """Whether a word still coming repeats none before it: then it passes."""
        begun = (self._begun if tail.start() == 0 else "") + tail.group()
        key = begun.strip(_NOT_WORD).casefold()
        if any(word.startswith(key) for word in self._keys[-_LOOP_UNIT:]):
            return False
        self._begun = begun if len(begun) <= _LONGEST_WORD else ""
        return True

    def _word(self, word: str, end: int) -> int:
        """Read a word ending at `end`; where the text ends if it makes a loop, or -1."""
        if not (key := word.strip(_NOT_WORD).casefold()):
            return -1
        keys, runs = self._keys, self._runs
        if len(key) > _LONGEST_WORD:
            runs[:] = [0] * len(runs)
            return -1
        if len(keys) > 128:
            del keys[:-32], self._ends[:-32]
        keys.append(key)
        self._ends.append(end)
        if key not in keys[-_LOOP_UNIT - 1 : -1] and not any(runs):
            return -1  # the common case, quickly
        for size in range(1, _LOOP_UNIT + 1):
            again = len(keys) > size and key == keys[-1 - size]
            runs[size] = runs[size] + 1 if again else 0
            if runs[size] >= _LOOP_RUNS[size]:  # said once, up to its last round
                self.words = " ".join(keys[-size:])
                return self._ends[-runs[size] - 1]
        return -1


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
        self._loop = _WordLoop()
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
        return self._passing([unsaid] if rest.strip() else [], final=True)

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

    def _passing(self, out: list[str], *, final: bool = False) -> str:
        passing = self._loop.feed("".join(out), final=final)
        self._said += len(passing)
        if self._loop.words:
            self._cut_at("the same words again and again", self._loop.words)
        return passing

    def _stop(self, out: list[str], sentence: str) -> str:
        passing = self._passing(out, final=True)
        if not self.cut:
            self._cut_at("a sentence again", _key(sentence))
        return passing

    def _cut_at(self, what: str, words: str) -> None:
        self.cut = True
        if self._log:
            LOGGER.warning(_CUT, what, words[:80], self._said)


def cut_repeats(text: str, *, log: bool = False) -> str:
    """The text up to its first sentence said a second time."""
    cut = RepeatCut(log=log)
    return cut.feed(text) + cut.flush()
