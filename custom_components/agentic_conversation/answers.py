"""The user's answer to "Shall I…?": yes, no, a spoken PIN, or something else.

Decided by our code on the user's own words, never by the model. Only a whole
utterance that is a yes-phrase counts as yes, so "yes, and also open the garage" is a
new request, not a confirmation.
"""

from enum import StrEnum
import hmac
import re
import unicodedata

_YES = {
    "en": "yes|yes please|yeah|yep|yup|sure|ok|okay|do it|go ahead|please do|yes do it|confirm|confirmed|affirmative",
    "de": "ja|ja bitte|jawohl|jo|klar|okay|ok|mach das|mach es|mach|mach das bitte|tu es|bitte|genau|bestätigt|bestätigen|ja mach das",
    "nl": "ja|ja graag|ja hoor|jawel|graag|prima|oké|ok|okay|doe het|doe maar|doe dat|bevestig|bevestigd|ja doe maar",
}
_NO = {
    "en": "no|no thanks|no thank you|nope|cancel|stop|don't|do not|never mind|no don't|don't do it",
    "de": "nein|nein danke|nee|abbrechen|stopp|stop|nicht|lieber nicht|auf keinen fall|nicht machen",
    "nl": "nee|nee dank je|nee bedankt|annuleer|annuleren|stop|niet|liever niet|niet doen|laat maar",
}
_DIGIT_WORDS = {
    # en
    "zero": "0", "oh": "0", "one": "1", "two": "2", "three": "3", "four": "4",
    "five": "5", "six": "6", "seven": "7", "eight": "8", "nine": "9",
    # de
    "null": "0", "eins": "1", "ein": "1", "zwei": "2", "zwo": "2", "drei": "3",
    "vier": "4", "fünf": "5", "sechs": "6", "sieben": "7", "acht": "8", "neun": "9",
    # nl
    "nul": "0", "een": "1", "één": "1", "twee": "2", "drie": "3", "vijf": "5",
    "zes": "6", "zeven": "7", "negen": "9",
}  # fmt: skip
_NOT_WORD = re.compile(r"[^\w\s']+")


class Answer(StrEnum):
    """What the user's words mean for a held action."""

    YES = "yes"
    NO = "no"
    OTHER = "other"


def _normalize(text: str) -> str:
    text = unicodedata.normalize("NFC", text).lower().replace("’", "'")
    return " ".join(_NOT_WORD.sub(" ", text).split())


def _phrases(table: dict[str, str], language: str) -> set[str]:
    base = language.replace("_", "-").split("-")[0].lower()
    # English words are understood in every language: people say "okay" everywhere.
    return {*table["en"].split("|"), *table.get(base, "").split("|")}


def classify(text: str, language: str) -> Answer:
    """Yes, no or anything else, for a whole utterance in a language."""
    said = _normalize(text)
    if said in _phrases(_YES, language):
        return Answer.YES
    if said in _phrases(_NO, language):
        return Answer.NO
    return Answer.OTHER


def spoken_digits(text: str) -> str:
    """The digits in an utterance, spoken as digits or number words ("1 2 three 4")."""
    digits = []
    for word in _normalize(text).split():
        if word.isdigit():
            digits.append(word)
        elif word in _DIGIT_WORDS:
            digits.append(_DIGIT_WORDS[word])
    return "".join(digits)


def pin_matches(text: str, pin: str) -> bool:
    """Whether the utterance says exactly the PIN (compared in constant time)."""
    return hmac.compare_digest(spoken_digits(text).encode(), pin.encode())
