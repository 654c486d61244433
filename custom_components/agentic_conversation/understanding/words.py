"""A language's words for our understanding: HA's own sentences, and ours beside them.

A language is data: `<language>.json` here holds the sentences Home Assistant's
intents data lacks (in hassil's template syntax, with HA's expansion rules of that
language), device words per domain, the names of HA's expansion rules that hold
device words, the words an object phrase may carry that name nothing (articles,
possessives; never a verb's particle such as "on", which tells a command from a
name), the endings that make a device word plural, the words that say every one of
them ("all the fans": never "which one?"), the words that name a media
player only where the home has just one ("the music"), those that name a media
player of a device class ("the TV" is the one whose class is TV), HA's rules that say
"here", and the words for out of doors: those said ("outside") and those of the
names and areas out there ("garden", "patio").
"""

from dataclasses import dataclass, field
from functools import cache
import json
import logging
from pathlib import Path
import re
from typing import Any

from hassil.expression import Sentence
from hassil.parse_expression import parse_sentence
from hassil.sample import sample_expression
from home_assistant_intents import get_intents

_LOGGER = logging.getLogger(__name__)
_HERE = Path(__file__).parent
_WORDS = re.compile(r"\w+")


@dataclass(frozen=True, slots=True)
class LanguageWords:
    """What one language's file says, with HA's data for the same language."""

    language: str
    sentences: list[dict[str, Any]]  # {"intent", "domains", "sentences"}
    device_words: dict[str, frozenset[str]]  # domain -> words (lower case)
    skip: frozenset[str]
    plural_endings: tuple[str, ...]
    ha: dict[str, Any]  # HA's intents data for the language (may be empty)
    only_one: dict[str, frozenset[str]] = field(default_factory=dict)
    """Domain -> words that name its one exposed entity, never one of several."""
    here_rules: tuple[str, ...] = ()
    """HA's expansion rules that say "here" (the satellite's area: HA's business)."""
    outside: frozenset[str] = frozenset()
    """Words that place a device out of doors ("the music outside")."""
    outdoor_places: tuple[str, ...] = ()
    """Words of a name or an area that is out of doors ("Garden", "Outdoor")."""
    every: frozenset[str] = frozenset()
    """Words that say every one of them ("all", "alle", "tous"), never one."""
    class_words: dict[str, dict[str, frozenset[str]]] = field(default_factory=dict)
    """Domain -> device class -> words that name an entity of that class."""
    all_answers: frozenset[str] = frozenset()
    """Answers to "which one?" that mean all of them ("all of them", "tous")."""
    both_answers: frozenset[str] = frozenset()
    """Answers that mean both, when there were two ("both", "les deux")."""

    def answer_key(self, text: str) -> str:
        """An answer's words without those that name nothing, for the answer lists."""
        return _answer_key(text, self.skip)


def _answer_key(text: str, skip: frozenset[str]) -> str:
    return " ".join(w for w in _WORDS.findall(text.casefold()) if w not in skip)


def supported(language: str) -> bool:
    """Whether we have words for this language (its base language)."""
    return (_HERE / f"{_base(language)}.json").is_file()


def _base(language: str) -> str:
    return language.replace("_", "-").split("-", maxsplit=1)[0].lower()


@cache
def language_words(language: str) -> LanguageWords | None:
    """A language's words (blocking: package data files); None if we have none."""
    base = _base(language)
    path = _HERE / f"{base}.json"
    if not path.is_file():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    try:
        ha = get_intents(base) or {}
    except (OSError, ValueError) as err:
        _LOGGER.debug("No Home Assistant intents for %s: %s", base, err)
        ha = {}
    skip = frozenset(str(w).casefold() for w in data.get("skip", []))
    answers = data.get("all_answers") or {}
    outside = data.get("outside") or {}
    words: dict[str, set[str]] = {}
    for domain, phrases in data.get("device_words", {}).items():
        words.setdefault(domain, set()).update(str(p).casefold() for p in phrases)
    class_words = {
        domain: {
            device_class: frozenset(str(p).casefold() for p in phrases)
            for device_class, phrases in classes.items()
        }
        for domain, classes in data.get("class_words", {}).items()
    }
    for domain, classes in class_words.items():
        for phrases in classes.values():
            words.setdefault(domain, set()).update(phrases)
    rules = ha.get("expansion_rules", {})
    for domain, names in data.get("device_rules", {}).items():
        for name in names:
            words.setdefault(domain, set()).update(_forms(rules, name, skip))
    return LanguageWords(
        language=base,
        sentences=list(data.get("sentences", [])),
        device_words={d: frozenset(w) for d, w in words.items()},
        skip=skip,
        plural_endings=tuple(data.get("plural_endings", ())),
        ha=ha,
        only_one={
            domain: frozenset(str(w).casefold() for w in phrases)
            for domain, phrases in data.get("only_one_words", {}).items()
        },
        here_rules=tuple(str(rule) for rule in data.get("here_rules", ())),
        outside=frozenset(str(w).casefold() for w in outside.get("words", ())),
        outdoor_places=tuple(str(w).casefold() for w in outside.get("places", ())),
        every=frozenset(str(w).casefold() for w in data.get("all_words", ())),
        class_words=class_words,
        all_answers=frozenset(_answer_key(a, skip) for a in answers.get("all", ())),
        both_answers=frozenset(_answer_key(a, skip) for a in answers.get("two", ())),
    )


def _forms(rules: dict[str, str], name: str, skip: frozenset[str]) -> set[str]:
    """Every word an HA expansion rule accepts, without articles (device words)."""
    if name not in rules:
        return set()
    try:
        parsed: Sentence = parse_sentence(rules[name], keep_text=True)
        expanded = {
            key: parse_sentence(value, keep_text=True) for key, value in rules.items()
        }
        samples = set(sample_expression(parsed.expression, expansion_rules=expanded))
    except (KeyError, ValueError, TypeError) as err:
        _LOGGER.debug("Expansion rule %s not read: %s", name, err)
        return set()
    found: set[str] = set()
    for sample in samples:
        kept = [w for w in sample.casefold().split() if w not in skip and len(w) > 2]
        if kept:
            found.add(" ".join(kept))
    return found


def device_words(language: str) -> dict[str, frozenset[str]]:
    """A language's device words by domain (empty when we have no file for it)."""
    words = language_words(language)
    return words.device_words if words else {}
