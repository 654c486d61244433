"""The user's answer to "Shall I…?": yes, no, a spoken PIN, or something else.

Decided by our code on the user's own words, never by the model, word by word with
the language's answer words (languages/<language>.json), read in as few phrases as
the words allow (an idiom counts as a whole):

- any word we do not know (another device, another action, a number that is not
  asked for) makes it something else: "yes, and also open the garage" is a new
  request, not a confirmation;
- otherwise any word that denies makes it a no ("okay, no", "don't unlock it"), and
  so does a polite decline ("all good, thanks", "danke, schon gut", "да ладно");
- otherwise it is a yes if it affirms ("yeah, go ahead", "sure, right away") or
  restates the held action ("yes, unlock it", "unlock the front door"); consent words
  alone ("right away", "thanks", "fine"), names alone ("the front door") and "all"
  beside a mere yes word ("all fine") are not: what can mean no is never a yes
  (languages/README.md).

Beside a PIN any no wins: a word that denies anywhere, among words we do not know
too ("4711, actually no, don't"), makes it a no.

An elided word is read as its two parts when it is not a word of ours itself (French
"n'ouvre" is "n'" and "ouvre").

English words are understood in every language, since people say "okay" everywhere;
the language's own words come first, so a native phrase keeps its meaning ("no jo"
is a Czech yes, while a lone "no" stays a no).
"""

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import Enum, StrEnum, auto
from functools import cache, lru_cache
import hmac

from ..languages import ANSWER_WORDS, AnswerWords, base_language, normalize
from ..languages.numbers import number_words

# Longer than this, it is not an answer but a request (never a yes, nor a PIN).
_MOST_WORDS = 40
# Beside a PIN, words read for a no; an utterance longer than this is one.
_MOST_DENY_READ = 10_000


class Answer(StrEnum):
    """What the user's words mean for a held action."""

    YES = "yes"
    NO = "no"
    OTHER = "other"


@dataclass(frozen=True, slots=True)
class HeldWords:
    """What the user was asked about; restating it is consent.

    The kinds of action are risk.RiskKind values; the names, what they act on.
    """

    kinds: frozenset[str] = frozenset()
    names: tuple[str, ...] = ()


class _Role(Enum):
    AFFIRM = auto()
    CONSENT = auto()
    ALL = auto()  # "all", "everything": "all good" says nothing needs doing
    DENY = auto()
    VERB = auto()  # restates a held action
    OBJECT = auto()  # "it", "the", a held name
    NUMBER = auto()


type _Table = Mapping[tuple[str, ...], _Role]


def classify(
    text: str,
    language: str,
    held: HeldWords | None = None,
    *,
    numbers: bool = False,
) -> Answer:
    """Yes, no or anything else, for a whole utterance in a language.

    With `numbers`, digits and number words are left out (the PIN is judged apart).
    """
    table, known = _lexicon(base_language(language), held or HeldWords())
    words = _words(text, known)
    if numbers and _denies(words, table, _number_table(language)):
        # Beside a PIN, any no wins, wherever it is and whatever else is said.
        return Answer.NO
    if len(words) > _MOST_WORDS:
        return Answer.OTHER
    roles = _roles(words, table, language if numbers else None)
    if roles is None:
        return Answer.OTHER
    if _Role.DENY in roles:
        return Answer.NO
    if _Role.VERB in roles or (_Role.AFFIRM in roles and _Role.ALL not in roles):
        return Answer.YES
    return Answer.OTHER


def _denies(
    said: list[str], table: _Table, spoken: Mapping[tuple[str, ...], str]
) -> bool:
    """Whether a word that denies is said anywhere, among words we do not know too.

    Read left to right, the longest phrase we know first, so an idiom keeps its
    meaning ("no jo" is a Czech yes). Past `_MOST_DENY_READ` words nothing is an
    answer: it counts as a no.
    """
    if len(said) > _MOST_DENY_READ:
        return True
    longest = max(map(len, [*table, *spoken]), default=1)
    start = 0
    while start < len(said):
        for end in range(min(len(said), start + longest), start, -1):
            if (role := _role(tuple(said[start:end]), table, spoken)) is not None:
                if role is _Role.DENY:
                    return True
                start = end
                break
        else:
            start += 1
    return False


def _words(text: str, known: frozenset[str]) -> list[str]:
    """The words said; an elided one we do not know is read as its two parts."""
    words: list[str] = []
    for word in normalize(text).split():
        head, apostrophe, rest = word.partition("'")
        if word in known or not apostrophe or not head or not rest:
            words.append(word)
        else:
            words += [head + apostrophe, rest]
    return words


def _roles(said: list[str], table: _Table, numbers_of: str | None) -> set[_Role] | None:
    """The roles of the words said, in the fewest phrases; None if one is unknown.

    Fewest phrases: an idiom counts as a whole ("no jo" is a Czech yes) and "sim,
    pode fazer" is "sim" and "pode fazer", not "sim pode" and an unknown "fazer".
    With `numbers_of` (a language), its numbers are words too.
    """
    spoken = _number_table(numbers_of) if numbers_of else {}
    longest = max(map(len, [*table, *spoken]), default=1)
    # best[i]: the fewest phrases that cover said[i:], and their roles
    best: list[tuple[int, frozenset[_Role]] | None] = [None] * len(said) + [
        (0, frozenset())
    ]
    for start in range(len(said) - 1, -1, -1):
        for end in range(min(len(said), start + longest), start, -1):
            rest = best[end]
            if rest is None or (
                (role := _role(tuple(said[start:end]), table, spoken)) is None
            ):
                continue
            current, count, roles = best[start], rest[0] + 1, rest[1] | {role}
            # Of two readings as short, the one that says no wins.
            if (
                current is None
                or count < current[0]
                or (count == current[0] and _Role.DENY in roles - current[1])
            ):
                best[start] = (count, roles)
    return set(best[0][1]) if best[0] is not None else None


def _role(
    phrase: tuple[str, ...], table: _Table, spoken: Mapping[tuple[str, ...], str]
) -> _Role | None:
    if (role := table.get(phrase)) is not None:
        return role
    if spoken and (phrase in spoken or (len(phrase) == 1 and _is_digits(phrase[0]))):
        return _Role.NUMBER
    return None


def _is_digits(word: str) -> bool:
    return word.isascii() and word.isdigit()


def _number_table(language: str) -> Mapping[tuple[str, ...], str]:
    return {
        tuple(words.split()): digits for words, digits in number_words(language).items()
    }


@lru_cache(maxsize=64)
def _lexicon(language: str, held: HeldWords) -> tuple[_Table, frozenset[str]]:
    """The phrases we know for an answer about what is held, and their words."""
    table = dict(_words_table(language, held.kinds))
    for name in held.names:
        words = tuple(normalize(name).split())
        # The whole name, and each of its words ("the door" for "Front Door").
        for phrase in (words, *((word,) for word in words)):
            table.setdefault(phrase, _Role.OBJECT)
    return table, frozenset(word for phrase in table for word in phrase)


@cache
def _words_table(language: str, kinds: frozenset[str]) -> _Table:
    """The language's answer words, then English's (the language's own come first)."""
    table: dict[tuple[str, ...], _Role] = {}
    for words in (ANSWER_WORDS.get(language), ANSWER_WORDS["en"]):
        if words is not None:
            for phrase, role in _phrases(words, kinds):
                table.setdefault(tuple(phrase.split()), role)
    return table


def _phrases(words: AnswerWords, kinds: frozenset[str]) -> Iterable[tuple[str, _Role]]:
    # A phrase in two lists by mistake counts as its safest meaning: deny first.
    yield from ((phrase, _Role.DENY) for phrase in words.deny)
    yield from ((phrase, _Role.AFFIRM) for phrase in words.affirm)
    yield from ((phrase, _Role.CONSENT) for phrase in words.consent)
    for kind in sorted(kinds):
        yield from ((phrase, _Role.VERB) for phrase in words.restate.get(kind, ()))
    yield from ((phrase, _Role.OBJECT) for phrase in words.objects)
    yield from ((phrase, _Role.ALL) for phrase in words.all)


def spoken_digits(text: str, language: str) -> str:
    """The digits in an utterance: digits, or number words of the language.

    "4 7 1 1", "four seven one one" and "forty-seven eleven" are all 4711; the
    longest run of words that is one number counts ("twenty one" is 21, not 201).
    """
    numbers = number_words(language)
    longest = max((len(words.split()) for words in numbers), default=1)
    said = normalize(text).split()
    digits: list[str] = []
    start = 0
    while start < len(said):
        for end in range(min(len(said), start + longest), start, -1):
            phrase = " ".join(said[start:end])
            if _is_digits(phrase):
                digits.append(phrase)
                break
            if phrase in numbers:
                digits.append(numbers[phrase])
                break
        else:
            end = start + 1
        start = end
    return "".join(digits)


def is_request(text: str) -> bool:
    """An utterance longer than any answer: a request, whatever digits it holds."""
    return len(normalize(text).split()) > _MOST_WORDS


def pin_matches(text: str, pin: str, language: str) -> bool:
    """Whether the utterance says exactly the PIN (compared in constant time).

    An utterance longer than an answer says no PIN: it is a request.
    """
    said = "" if is_request(text) else spoken_digits(text, language)
    return hmac.compare_digest(said.encode(), pin.encode())
