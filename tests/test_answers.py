"""What an answer to "Shall I…?" means, word by word, in every language we speak.

The natural forms are in tests/natural_answers.py (most are in no list as a whole); the
words themselves in languages/<language>.json.
"""

import pytest

from homeassistant.core import HomeAssistant

from custom_components.agentic_conversation.languages import (
    ANSWER_WORDS,
    LANGUAGES,
    AnswerWords,
)
from custom_components.agentic_conversation.languages.numbers import async_load
from custom_components.agentic_conversation.safety.answers import (
    Answer,
    HeldWords,
    classify,
)
from tests.natural_answers import NATURAL

# What test_confirmation's home asks about: "Shall I unlock Front door?"
UNLOCK = HeldWords(frozenset({"unlock"}), ("Front door",))
ENGLISH = ANSWER_WORDS["en"]
# Yes-idioms that hold a word that alone denies; each a yes only as a whole.
IDIOMS = {
    "de": {"na klar", "na gut", "na logo", "na sicher"},  # "na" is an Austrian no
    "fr": {"pas de souci"},
    "es": {"como no"},
    "it": {"perche no"},
    "pl": {"no jasne", "no dobra", "no dobrze", "no pewnie", "no oczywiscie", "no tak", "no dawaj", "no to dawaj", "no prosze", "no to", "no ba", "no pewnie ze tak"},  # Polish "no" is "well"
    "cs": {"no jo", "no jasne", "no tak jo", "no dobre", "zrus alarm", "no samozrejme", "no bodejt"},  # Czech "no" is "yeah"
}  # fmt: skip


def _cases(field: str) -> list[tuple[str, str]]:
    return [
        (language, text)
        for language, natural in NATURAL.items()
        for text in getattr(natural, field)
    ]


def _positive(words: AnswerWords) -> frozenset[str]:
    restated = {phrase for verbs in words.restate.values() for phrase in verbs}
    return words.affirm | words.consent | words.objects | restated


def _tokens(phrases: frozenset[str]) -> set[str]:
    return {token for phrase in phrases for token in phrase.split()}


def test_every_language_has_its_natural_answers() -> None:
    """At least five yes and five no forms, and what is neither, for each language."""
    assert set(NATURAL) == set(LANGUAGES)
    for natural in NATURAL.values():
        assert len(natural.yes) >= 5
        assert len(natural.no) >= 5
        assert len(natural.other) >= 3


@pytest.mark.parametrize(("language", "text"), _cases("yes"))
def test_natural_yes(language: str, text: str) -> None:
    """Said as people say it at the door: a yes."""
    assert classify(text, language, UNLOCK) is Answer.YES


@pytest.mark.parametrize(("language", "text"), _cases("no"))
def test_natural_no(language: str, text: str) -> None:
    """Any word that denies makes it a no, whatever else is said with it."""
    assert classify(text, language, UNLOCK) is Answer.NO


@pytest.mark.parametrize(("language", "text"), _cases("other"))
def test_neither_yes_nor_no(language: str, text: str) -> None:
    """A maybe, another action, a number, more than an answer: a new request."""
    assert classify(text, language, UNLOCK) is Answer.OTHER


@pytest.mark.parametrize("language", LANGUAGES)
def test_restating_the_held_action_is_a_yes(language: str) -> None:
    """A yes that says "unlock it", in each language: only for the unlock asked."""
    restating = NATURAL[language].restating
    assert classify(restating, language, UNLOCK) is Answer.YES
    # The same words about something that was not asked are not an answer.
    assert classify(restating, language) is not Answer.YES
    assert (
        classify(restating, language, HeldWords(frozenset({"turn_on"}), ("Porch",)))
        is not Answer.YES
    )


@pytest.mark.parametrize("language", LANGUAGES)
def test_yes_and_also_is_a_new_request(language: str) -> None:
    """A yes with "and also open the garage" is not a yes to the unlock."""
    assert classify(NATURAL[language].also, language, UNLOCK) is Answer.OTHER


@pytest.mark.parametrize(
    ("language", "text", "held", "meaning"),
    [
        ("en", "yes, open the garage", HeldWords(frozenset({"open"}), ("Garage door",)), Answer.YES),
        ("en", "yes, open the garage", UNLOCK, Answer.OTHER),  # not what was asked
        ("en", "yes, lock it", UNLOCK, Answer.OTHER),  # the opposite
        ("en", "yes, turn it off", HeldWords(frozenset({"turn_on"}), ("Heater",)), Answer.OTHER),
        ("en", "turn on the heater", HeldWords(frozenset({"turn_on"}), ("Heater",)), Answer.YES),
        ("en", "the heater", HeldWords(frozenset({"turn_on"}), ("Heater",)), Answer.OTHER),
        ("de", "ja, öffne das Garagentor", HeldWords(frozenset({"open"}), ("Garagentor",)), Answer.YES),
        ("de", "ja, schließ sie ab", UNLOCK, Answer.OTHER),
        ("fr", "oui, ouvre le garage", HeldWords(frozenset({"open"}), ("Garage",)), Answer.YES),
        ("fr", "oui, allume-le", HeldWords(frozenset({"turn_off"}), ("Chauffage",)), Answer.OTHER),
        ("es", "sí, enciéndela", HeldWords(frozenset({"turn_on"}), ("Estufa",)), Answer.YES),
        ("ru", "да, включи", HeldWords(frozenset({"turn_on"}), ("Обогреватель",)), Answer.YES),
        ("ru", "да, выключи", HeldWords(frozenset({"turn_on"}), ("Обогреватель",)), Answer.OTHER),
        ("sv", "ja, lås den", UNLOCK, Answer.OTHER),  # "lås" alone locks
        ("en", "yes, run Welcome Home", HeldWords(frozenset({"run"}), ("Welcome Home",)), Answer.YES),
        ("en", "yes, run Goodbye", HeldWords(frozenset({"run"}), ("Welcome Home",)), Answer.OTHER),
    ],
)  # fmt: skip
def test_which_action_is_restated(
    language: str, text: str, held: HeldWords, meaning: Answer
) -> None:
    """Only the held action's own verb and names restate it."""
    assert classify(text, language, held) is meaning


@pytest.mark.parametrize(
    ("tag", "text", "meaning"),
    [
        ("pt-BR", "Beleza, pode mandar.", Answer.YES),
        ("pt-BR", "Não, deixa pra lá.", Answer.NO),
        ("pt-PT", "Sim, força.", Answer.YES),
        ("es-MX", "Órale, sí.", Answer.YES),
        ("es-AR", "Dale, abrila.", Answer.YES),
        ("es-MX", "Nel.", Answer.NO),
        ("fr-CA", "Oui, tiguidou.", Answer.YES),
        ("fr-BE", "D'accord, allez-y.", Answer.YES),
        ("fr-CH", "Ça joue.", Answer.YES),
        ("de-AT", "Freilich, passt eh.", Answer.YES),
        ("de-AT", "Na, danke.", Answer.NO),
        ("de-CH", "Jo, gärn.", Answer.YES),
        ("de-CH", "Nei, lieber nöd.", Answer.NO),
        ("en-US", "Sure thing.", Answer.YES),
        ("en-GB", "Yes please, cheers.", Answer.YES),
        ("en-AU", "Yeah mate, go for it.", Answer.YES),
        ("en-AU", "Yeah nah.", Answer.NO),
        ("nb-NO", "Ja takk, kjør på.", Answer.YES),
        ("no", "Nei takk.", Answer.NO),
        ("nl-BE", "Allee, doe maar.", Answer.YES),
        ("nl-BE", "Neen.", Answer.NO),
    ],
)
def test_regional_words(tag: str, text: str, meaning: Answer) -> None:
    """A regional variant's words are in its base language's list."""
    assert classify(text, tag, UNLOCK) is meaning


@pytest.mark.parametrize("language", LANGUAGES)
def test_english_never_turns_a_native_no_into_yes(language: str) -> None:
    """English is understood everywhere, but none of its yes words is a native no.

    Every native no stays a no beside any English yes word, before or after it.
    """
    words = ANSWER_WORDS[language]
    native_no = {phrase for phrase in words.deny if " " not in phrase}
    assert _tokens(_positive(ENGLISH)) & native_no == set()
    english_yes = sorted(phrase for phrase in ENGLISH.affirm if " " not in phrase)
    for deny in sorted(words.deny):
        for yes in english_yes:
            assert classify(f"{yes} {deny}", language, UNLOCK) is Answer.NO, (yes, deny)
            assert classify(f"{deny} {yes}", language, UNLOCK) is Answer.NO, (deny, yes)


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_yes_word_never_hides_a_no(language: str) -> None:
    """No yes phrase holds a word that denies, except the idioms listed above."""
    words = ANSWER_WORDS[language]
    denying = {p for p in words.deny | ENGLISH.deny if " " not in p}
    hiding = {phrase for phrase in _positive(words) if set(phrase.split()) & denying}
    assert hiding == IDIOMS.get(language, set())
    for idiom in hiding & words.affirm:
        assert classify(idiom, language) is Answer.YES, idiom
        assert classify(f"{idiom} no", language) is Answer.NO, idiom


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_word_in_the_lists(language: str) -> None:
    """Each word means what its list says, alone and beside a plain yes."""
    words = ANSWER_WORDS[language]
    # "ok", said everywhere: a language's shortest yes may make a decline with the
    # next word ("ya está bien", "ja està bé": "that's fine already").
    yes = "ok"
    for phrase in words.affirm:
        assert classify(phrase, language) is Answer.YES, phrase
    for phrase in words.deny:
        assert classify(phrase, language) is Answer.NO, phrase
        assert classify(f"{yes} {phrase}", language) is Answer.NO, phrase
    for phrase in words.consent:
        assert classify(f"{yes} {phrase}", language) is Answer.YES, phrase
        # alone, "now" or "thanks" is not a yes
        assert classify(phrase, language) is Answer.OTHER, phrase
    for kind, verbs in words.restate.items():
        held = HeldWords(frozenset({kind}), ("Thing",))
        for verb in verbs:
            assert classify(f"{yes} {verb}", language, held) is Answer.YES, verb
            assert classify(f"{yes} {verb} thing", language, held) is Answer.YES
    assert words.affirm & words.consent == set()
    assert (words.affirm | words.consent) & words.deny == set()


async def test_numbers_inside_an_answer(hass: HomeAssistant) -> None:
    """A number is another word, unless the PIN is judged apart."""
    await async_load(hass, "en")
    assert classify("yes, 4711", "en", UNLOCK) is Answer.OTHER
    assert classify("yes, 4711", "en", UNLOCK, numbers=True) is Answer.YES
    assert classify("yeah, four seven one one", "en", numbers=True) is Answer.YES
    assert classify("no, 4711", "en", UNLOCK, numbers=True) is Answer.NO
    assert classify("4711", "en", UNLOCK, numbers=True) is Answer.OTHER


@pytest.mark.parametrize(
    ("text", "meaning"),
    [
        ("yes " * 41, Answer.OTHER),  # longer than an answer
        ("yes " * 40, Answer.YES),
        ("yes \ud800", Answer.YES),  # a lone surrogate is no word
        ("", Answer.OTHER),
        ("   ", Answer.OTHER),
        ("'", Answer.OTHER),
        ("yes'", Answer.OTHER),
        ("\u202eyes", Answer.YES),  # a direction mark is no word either
        ("yes\x00no", Answer.NO),
        ("x" * 10_000_000, Answer.OTHER),
    ],
)
def test_strange_input(text: str, meaning: Answer) -> None:
    """Whatever comes in, it is judged without error; only plain words say yes."""
    assert classify(text, "en", UNLOCK) is meaning
