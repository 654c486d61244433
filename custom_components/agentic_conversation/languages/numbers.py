"""Number words, 0 to 99, in a language, from unicode-rbnf (Home Assistant's own).

A spoken PIN comes as digits ("4 7 1 1"), digit words ("four seven one one") or pairs
("forty-seven eleven"). unicode-rbnf reads CLDR files, so the words are built in the
executor before the answer comes (`async_load`) and only read from the cache after.
"""

from collections.abc import Mapping

from unicode_rbnf import RbnfEngine

from homeassistant.core import HomeAssistant

from . import ANSWER_WORDS, base_language, normalize

# CLDR has Norwegian Bokmål's rules under "no".
_RBNF_LANGUAGE = {"nb": "no"}
_LOADED: dict[str, Mapping[str, str]] = {}


def _build(language: str) -> Mapping[str, str]:
    """Every spelling of 0..99 in the language (all genders and cases) to its digits."""
    words: dict[str, str] = {}
    engine = RbnfEngine.for_language(_RBNF_LANGUAGE.get(language, language))
    for number in range(100):
        for text in engine.format_number(number).text_by_ruleset.values():
            words.setdefault(normalize(text), str(number))
    if extra := ANSWER_WORDS.get(language):
        words.update(extra.numbers)
    return words


async def async_load(hass: HomeAssistant, tag: str) -> None:
    """Build a language's number words (file reads: in the executor), once."""
    language = base_language(tag)
    if language in ANSWER_WORDS and language not in _LOADED:
        _LOADED[language] = await hass.async_add_executor_job(_build, language)


def number_words(tag: str) -> Mapping[str, str]:
    """A loaded language's number words; none if `async_load` has not run for it."""
    return _LOADED.get(base_language(tag), {})
