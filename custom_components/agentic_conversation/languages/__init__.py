"""The languages we speak: their tags, and the words their speakers answer with.

Each `<language>.json` here holds what its speakers say to "Shall I…?", as words and
phrases (an answer is judged word by word, see safety/answers.py):

- `affirm`: says yes by itself ("yes", "yeah", "sure", "please", "go ahead", "do it"),
  and is not what people decline with.
- `consent`: only adds to a yes ("just", "right away", "now", "thanks"), or can mean
  yes as well as no ("fine", "passt schon", "spoko"): alone, the user is asked again.
- `deny`: says no or cancels; any of these makes the answer a no ("no", "don't",
  "cancel", and the language's negation words, "not", "nicht", "pas"…), and so do
  polite declines without a no ("all good", "it's fine", "schon gut", "да ладно")
  and a sarcastic yes ("yeah right").
- `restate`: per kind of held action (risk.RiskKind values), the verb forms that
  restate it ("unlock", "unlock it"): "yes, unlock it" is a yes to an unlock only.
- `objects`: pronouns and articles that come with a restated action or a name ("it",
  "the", "them").
- `all`: "all", "everything": with a restated action an object ("unlock them all"),
  beside a mere yes word what a decline says ("all good", "tutto bene").
- `numbers`: number words unicode-rbnf does not produce (English "oh" for zero).

Regional words are in their base language's file (a tag's base language decides):
Brazilian Portuguese in pt, Latin American Spanish in es, Canadian, Belgian and Swiss
French in fr, Austrian and Swiss German in de, American, British and Australian
English in en, Bokmål for "nb" and "no". Phrases are written as people say them;
they are normalized (lower case, no accents or punctuation) when read. The rule that
decides which list a phrase goes in is in README.md here: what can mean no is never
a yes.
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

    affirm: frozenset[str]
    consent: frozenset[str]
    deny: frozenset[str]
    # per kind of held action, the words that restate it
    restate: Mapping[str, frozenset[str]]
    objects: frozenset[str]
    # "all", "everything": objects only beside a restated action
    all: frozenset[str]
    # number words beyond unicode-rbnf's, to their digits
    numbers: Mapping[str, str]


def _phrases(items: list[str]) -> frozenset[str]:
    return frozenset(filter(None, (normalize(item) for item in items)))


def _load(language: str) -> AnswerWords:
    # Read once, at import (HA imports integrations in its executor).
    data = json.loads(
        (Path(__file__).parent / f"{language}.json").read_text(encoding="utf-8")
    )
    return AnswerWords(
        affirm=_phrases(data["affirm"]),
        consent=_phrases(data["consent"]),
        deny=_phrases(data["deny"]),
        restate={kind: _phrases(verbs) for kind, verbs in data["restate"].items()},
        objects=_phrases(data["objects"]),
        all=_phrases(data["all"]),
        numbers={normalize(word): digits for word, digits in data["numbers"].items()},
    )


ANSWER_WORDS: Mapping[str, AnswerWords] = {
    language: _load(language) for language in LANGUAGES
}


def understood(tag: str) -> bool:
    """Whether we can judge a yes, a no and a PIN said in this language."""
    return base_language(tag) in ANSWER_WORDS
