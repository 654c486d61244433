"""Every language's questions, with every kind of action: grammatical, whole sentences.

Rendered by the code that speaks them (replies.py), for each kind of risky action and
names that start with a vowel, an h and a consonant; checked for the forms a native
speaker would hear as wrong (French "que je ouvre" instead of "que j'ouvre").
"""

import re

import pytest

from homeassistant.core import HomeAssistant

from custom_components.agentic_conversation.ending import Ask
from custom_components.agentic_conversation.languages import LANGUAGES
from custom_components.agentic_conversation.safety.risk import RiskKind
from custom_components.agentic_conversation.words.replies import (
    async_render_after_done,
    async_render_question,
)

NAMES = ("Entrée", "Hall", "Front door", "Garage")
# What a native speaker hears as wrong, per language (lower case).
BAD_FORMS: dict[str, list[str]] = {
    "fr": [r"\bje [aeiouyéèêàâîôûh]", r"\bque [aeiouyéèê]", r"\bde [aeiouyéè]", r"\bce [aeiouyé]", r"\bne [aeiouyé]", r"\bsi il"],
    "it": [r"\b(lo|la) [aeiou]", r"\bche io\b"],
    "es": [r"\bde el\b", r"\ba el\b"],
    "pt": [r"\b(de|em|a) (o|os)\b"],
    "ca": [r"\b(de|el|la) [aeiouh]"],
    "en": [r"\ba [aeiou]"],
}  # fmt: skip
# Everywhere: nothing left to fill in, no gap or stray space.
GENERIC = [r"[{}]", r"\s{2}", r"\s[,.]", r",,", r"\.\.", r"<"]


def _check(language: str, said: str) -> None:
    for pattern in GENERIC + BAD_FORMS.get(language, []):
        assert not re.search(pattern, said.lower()), (pattern, said)
    assert said[0].isupper() or not said[0].isalpha(), said


@pytest.mark.parametrize("language", LANGUAGES)
async def test_every_question_reads_right(
    ha_core: HomeAssistant, language: str
) -> None:
    """The question, the re-ask with how to answer and its PIN form, for each kind."""
    hass = ha_core
    # The risky kinds, and those only what a held call does besides is asked with.
    for kind in (*(k.value for k in RiskKind), "close", "lock"):
        for name in NAMES:
            asks = [Ask(kind, [name], [])]
            question = await async_render_question(
                hass, language, asks, [], needs_pin=False
            )
            reask = await async_render_question(
                hass, language, asks, [], needs_pin=False, how_to_answer=True
            )
            reask_pin = await async_render_question(
                hass, language, asks, [], needs_pin=True, how_to_answer=True
            )
            for said in (question, reask, reask_pin):
                assert name in said, said
                _check(language, said)
            assert question.rstrip().endswith("?"), question
            assert reask != question
    # two kinds at once, and what a script sets off
    asks = [
        Ask("unlock", ["Entrée"], []),
        Ask("open", ["Hall", "Garage"], []),
        Ask("run", ["Arrivée"], [("Arrivée", [("open", ["Entrée"])])]),
        Ask("close", ["Hall"], [], risky=False),
    ]
    said = await async_render_question(hass, language, asks, [], needs_pin=False)
    _check(language, said)
    _check(
        language,
        await async_render_after_done(hass, language, "confirmation_dropped", []),
    )


async def test_french_elides(ha_core: HomeAssistant) -> None:
    """The exact French words: "j'ouvre", "je déverrouille", and the re-ask's."""
    hass = ha_core

    async def said(kind: str, how: bool = False) -> str:
        return await async_render_question(
            hass, "fr", [Ask(kind, ["Garage"], [])], [], needs_pin=False,
            how_to_answer=how,
        )  # fmt: skip

    assert await said("open") == "Voulez-vous que j'ouvre Garage ?"
    assert await said("unlock") == "Voulez-vous que je déverrouille Garage ?"
    assert await said("turn_on") == "Voulez-vous que j'allume Garage ?"
    assert await said("press") == "Voulez-vous que j'appuie sur Garage ?"
    assert await said("open", how=True) == "Dites oui pour que j'ouvre Garage, ou non."
