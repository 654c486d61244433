"""The user's answer to "Shall I…?": yes, no, a spoken PIN, or something else.

Decided by our code on the user's own words, never by the model. Only a whole
utterance that is a yes-phrase counts as yes, so "yes, and also open the garage" is a
new request, not a confirmation. The words are per language (languages/<language>.json);
English ones are understood in every language, since people say "okay" everywhere.
"""

from enum import StrEnum
import hmac

from ..languages import ANSWER_WORDS, base_language, normalize
from ..languages.numbers import number_words


class Answer(StrEnum):
    """What the user's words mean for a held action."""

    YES = "yes"
    NO = "no"
    OTHER = "other"


def classify(text: str, language: str) -> Answer:
    """Yes, no or anything else, for a whole utterance in a language."""
    said = normalize(text)
    english = ANSWER_WORDS["en"]
    words = ANSWER_WORDS.get(base_language(language), english)
    if said in words.yes or said in english.yes:
        return Answer.YES
    if said in words.no or said in english.no:
        return Answer.NO
    return Answer.OTHER


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
            if phrase.isascii() and phrase.isdigit():
                digits.append(phrase)
                break
            if phrase in numbers:
                digits.append(numbers[phrase])
                break
        else:
            end = start + 1
        start = end
    return "".join(digits)


def pin_matches(text: str, pin: str, language: str) -> bool:
    """Whether the utterance says exactly the PIN (compared in constant time)."""
    return hmac.compare_digest(spoken_digits(text, language).encode(), pin.encode())
