"""The languages we speak: their tags, and the words their speakers answer with.

Each `<language>.json` here holds the whole utterances that mean yes or no in that
language, and any number words unicode-rbnf does not produce (English "oh" for zero).
"""

from collections.abc import Mapping
from dataclasses import dataclass
import json
from pathlib import Path
import re
import unicodedata

# Every language with answer words here and translations/<language>.json.
LANGUAGES = (
    "en", "de", "nl", "fr", "es", "it", "pl", "pt",
    "sv", "da", "nb", "fi", "cs", "ru", "uk", "ca",
)  # fmt: skip
# Tags that name one of ours another way: Norwegian is "no" as often as "nb".
_ALIASES = {"no": "nb"}
_NOT_WORD = re.compile(r"[^\w\s']+")


def base_language(tag: str) -> str:
    """The language of a tag: de-CH, pt_BR, es-419 speak de, pt, es."""
    base = tag.replace("_", "-").split("-")[0].lower()
    return _ALIASES.get(base, base)


def normalize(text: str) -> str:
    """Lower-case words without punctuation or accents, one space apart.

    Accents go because speech-to-text writes "si" as often as "sí".
    """
    text = unicodedata.normalize("NFKD", text.lower().replace("’", "'"))
    text = "".join(char for char in text if not unicodedata.combining(char))
    return " ".join(_NOT_WORD.sub(" ", text).split())


@dataclass(frozen=True, slots=True)
class AnswerWords:
    """What a language's speakers say to "Shall I…?", normalized."""

    yes: frozenset[str]
    no: frozenset[str]
    # number words beyond unicode-rbnf's, to their digits
    numbers: Mapping[str, str]


def _load(language: str) -> AnswerWords:
    # Read once, at import (HA imports integrations in its executor).
    data = json.loads(
        (Path(__file__).parent / f"{language}.json").read_text(encoding="utf-8")
    )
    return AnswerWords(
        yes=frozenset(normalize(phrase) for phrase in data["yes"]),
        no=frozenset(normalize(phrase) for phrase in data["no"]),
        numbers={normalize(word): digits for word, digits in data["numbers"].items()},
    )


ANSWER_WORDS: Mapping[str, AnswerWords] = {
    language: _load(language) for language in LANGUAGES
}


def understood(tag: str) -> bool:
    """Whether we can judge a yes, a no and a PIN said in this language."""
    return base_language(tag) in ANSWER_WORDS
