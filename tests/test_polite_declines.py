"""No is no: a polite decline, a sarcastic yes, a change of mind after the PIN.

Asked "Shall I unlock Front door?", people decline without a "no": "all good,
thanks", "danke, schon gut", "да ладно". Each language's declines here are written
as its speakers say them (most are in no word list as a whole: the generalisation is
the point). Each is heard end to end, through `async_converse` and a satellite's
pipeline, and each leaves the door locked: a clear decline hears "Okay, I won't.", one
that can mean both is a new request for the model (never a yes).
"""

from typing import Any

import pytest

from homeassistant.core import HomeAssistant

from custom_components.agentic_conversation.languages import (
    ANSWER_WORDS,
    LANGUAGES,
    normalize,
)
from custom_components.agentic_conversation.languages.numbers import async_load
from custom_components.agentic_conversation.safety.answers import (
    Answer,
    HeldWords,
    classify,
)
from tests.assist_pipeline import Door
from tests.fake_llm import FakeLLM, Reply
from tests.helpers import said, state_of as _state
from tests.test_confirmation import LOCK, _unlock_call
from tests.test_languages import PIN, _agents, _strings, _User, home

__all__ = ["home"]

UNLOCK = HeldWords(frozenset({"unlock"}), ("Front door",))
NO, OTHER = Answer.NO, Answer.OTHER
# What the model says to an answer that was neither yes nor no (a new request).
MODELS_REPLY = "Alright, I'll leave it."

# How people decline "Shall I unlock Front door?" without saying yes, per language;
# NO: declined at once; OTHER: it can mean both, so it is no answer (never a yes).
DECLINES: dict[str, list[tuple[str, Answer]]] = {
    "en": [("All good, thanks.", NO), ("Nah, I'm good.", NO), ("It's fine, thanks.", NO), ("Yeah, right.", NO), ("Thanks, that's okay.", NO), ("I'm all set, cheers.", NO), ("Cool, thanks.", OTHER), ("Fine, thanks.", OTHER), ("Oh, all good.", OTHER)],
    "de": [("Danke, schon gut.", NO), ("Alles gut, danke!", NO), ("Nee danke, passt so.", NO), ("Gut so, danke.", NO), ("Passt schon, danke.", OTHER), ("Ach, lass mal.", OTHER)],
    "nl": [("Hoeft niet, dank je.", NO), ("Is al goed, dank je.", NO), ("Alles goed hoor.", NO), ("Het is goed, dank je.", OTHER)],
    "fr": [("Non, c'est bon.", NO), ("Tout va bien, merci.", NO), ("Laisse, ça ira.", NO), ("Ça va, merci.", NO)],
    "es": [("No hace falta, gracias.", NO), ("Déjalo, gracias.", NO), ("Qué va, déjalo.", NO), ("Está bien, gracias.", OTHER), ("Tranquilo, está bien así.", OTHER)],
    "it": [("Tutto a posto, grazie.", NO), ("Figurati, non serve.", NO), ("Va bene così, grazie.", NO), ("Tranquillo, tutto bene.", NO), ("Bene, grazie.", OTHER)],
    "pl": [("Dzięki, spoko.", NO), ("Nie trzeba, dzięki.", NO), ("Już dobrze, dzięki.", NO), ("Luz, dzięki.", OTHER)],
    "pt": [("Tá tudo bem, obrigado.", NO), ("Não precisa, valeu.", NO), ("Relaxa, tá tudo certo.", NO), ("Valeu, tô de boa.", NO), ("Tudo bem, obrigada.", OTHER)],
    "sv": [("Tack, det behövs inte.", NO), ("Nej, det är bra så.", NO), ("Allt bra, tack.", NO), ("Lugnt, tack ändå.", NO), ("Det går bra, tack.", OTHER)],
    "da": [("Nej tak, det er fint.", NO), ("Alt er fint, tak.", NO), ("Slap af, det er i orden.", NO), ("Ellers tak.", NO)],
    "nb": [("Det går fint, takk.", NO), ("Nei takk, det er greit.", NO), ("Alt er bra, takk.", NO), ("Ellers takk.", NO)],
    "fi": [("Ei tarvitse, kiitos.", NO), ("Kaikki hyvin, kiitos.", NO), ("Antaa olla vaan.", NO), ("Hyvä, kiitos.", OTHER)],
    "cs": [("Nemusíš, díky.", NO), ("Díky, to je dobrý.", NO), ("Díky, netřeba.", NO), ("Všechno je v pohodě.", OTHER)],
    "ru": [("Да ладно.", NO), ("Всё нормально, спасибо.", NO), ("Да ну, оставь.", NO), ("Не, обойдусь.", NO), ("Ага, щас.", NO)],
    "uk": [("Все добре, дякую.", NO), ("Дякую, не треба.", NO), ("Та ні, залиш.", NO), ("Облиш, обійдуся.", NO), ("Та ладно.", NO)],
    "ca": [("Tranquil, està bé així.", NO), ("No cal, gràcies.", NO), ("Deixa-ho, gràcies.", NO), ("Ja està, gràcies.", NO), ("Està bé, gràcies.", OTHER)],
}  # fmt: skip

# "<PIN>, then a change of mind": any no around the PIN declines.
CHANGE_OF_MIND = {
    "en": [f"{PIN}, actually no, don't.", f"Um, {PIN}... wait, no, leave it.", f"No wait. Okay, {PIN}."],
    "de": [f"{PIN}, ach nein, doch nicht.", f"{PIN}... äh, lieber nicht."],
    "fr": [f"{PIN}, euh non, en fait laisse tomber.", f"{PIN}, finalement non."],
    "ru": [f"{PIN}, хотя нет, не надо.", f"{PIN}, а впрочем, отмена."],
    "pl": [f"{PIN}, a jednak nie.", f"{PIN}, chwila, zostaw to."],
}  # fmt: skip

# Restating the held action in the forms people use: Slavic imperatives in both
# aspects, "of course" idioms, each beside words of another list (in none as a whole).
RESTATING = {
    "ru": ["Ну открывай уже.", "Само собой, отпирай её.", "Ещё бы, открывай."],
    "uk": ["Та відмикай вже.", "Ще б пак, відчиняй.", "Само собою, відкривай її."],
    "pl": ["No to otwieraj.", "A jakże, odblokowuj.", "Ma się rozumieć, otwieraj je."],
    "cs": ["Tak otvírej.", "To se ví, odemykej.", "Pochopitelně, otevírej hned."],
}  # fmt: skip


def _cases() -> list[tuple[str, str, Answer]]:
    return [
        (language, text, meaning)
        for language, declines in DECLINES.items()
        for text, meaning in declines
    ]


def test_every_language_declines_in_its_own_words() -> None:
    """At least three declines per language, most of them in no list as a whole."""
    assert set(DECLINES) == set(LANGUAGES)
    for language, declines in DECLINES.items():
        assert len(declines) >= 3, language
        words = ANSWER_WORDS[language]
        listed = words.affirm | words.consent | words.deny
        unlisted = [text for text, _ in declines if normalize(text) not in listed]
        assert len(unlisted) >= 2, language


@pytest.mark.parametrize(("language", "text", "meaning"), _cases())
def test_a_polite_decline_is_never_a_yes(
    language: str, text: str, meaning: Answer
) -> None:
    """A no, or no answer at all: whatever else it may mean, never a yes."""
    assert classify(text, language, UNLOCK) is meaning


@pytest.mark.parametrize("language", LANGUAGES)
def test_all_beside_a_yes_word_is_no_yes(language: str) -> None:
    """Each "all" word: with a mere yes word it is no yes; with the action, it is.

    ("all right", "alles klar" are yes idioms of their own.)
    """
    words = ANSWER_WORDS[language]
    verb = min(sorted(words.restate["unlock"]), key=len)
    for everything in words.all:
        idioms = [
            phrase
            for phrase in words.affirm | ANSWER_WORDS["en"].affirm
            if phrase.split()[0] == everything
        ]
        for yes in sorted(words.affirm):
            if any(f"{everything} {yes}".startswith(idiom) for idiom in idioms):
                continue
            assert classify(f"{everything} {yes}", language, UNLOCK) is not (
                Answer.YES
            ), (everything, yes)
        assert classify(f"{verb} {everything}", language, UNLOCK) is Answer.YES


@pytest.mark.parametrize("language", sorted(RESTATING))
def test_restating_in_both_aspects_and_of_course(language: str) -> None:
    """Perfective and imperfective, beside an "of course": a yes to the unlock only."""
    for text in RESTATING[language]:
        assert classify(text, language, UNLOCK) is Answer.YES, text
        turn_on = HeldWords(frozenset({"turn_on"}), ("Porch light",))
        assert classify(text, language, turn_on) is not Answer.YES, text


@pytest.mark.parametrize("language", LANGUAGES)
async def test_polite_declines_leave_the_door_locked(
    home: HomeAssistant, fake_llm: FakeLLM, language: str
) -> None:
    """Each decline, asked anew: the exact words heard, the door still locked."""
    hass = home
    yes_agent, _ = await _agents(hass, fake_llm)
    words = _strings(language)
    question = words["confirm_question"].format(
        actions=words["action_unlock"].format(names="Front door")
    )
    user = _User(hass, language)
    for text, meaning in DECLINES[language]:
        fake_llm.script([await _unlock_call(hass)])
        assert await user.says(yes_agent, "…", new=True) == question
        if meaning is NO:
            assert await user.says(yes_agent, text) == words["confirmation_declined"]
        else:
            # No answer: a new request for the model, which gets the words as said.
            fake_llm.script([Reply.text(MODELS_REPLY)])
            assert await user.says(yes_agent, text) == MODELS_REPLY
            assert fake_llm.requests[-1]["messages"][-1] == {
                "role": "user",
                "content": text,
            }
        assert _state(hass, LOCK) == "locked", text


@pytest.mark.parametrize("door", ["pipeline"], indirect=True)
async def test_declines_said_to_a_satellite(
    home: HomeAssistant,
    fake_llm: FakeLLM,
    door: Door,
) -> None:
    """Through a pipeline: what the satellite speaks, and the lock, after each."""
    hass = home
    yes_agent, _ = await _agents(hass, fake_llm)
    ask = await door.open(hass, yes_agent)
    for text, meaning in DECLINES["en"][:6]:
        assert meaning is NO
        fake_llm.script([await _unlock_call(hass)])
        asked: dict[str, Any] = await ask("unlock the front door", None)
        assert said(asked) == "Shall I unlock Front door?"
        declined = await ask(text, asked["conversation_id"])
        assert said(declined) == "Okay, I won't."
        assert _state(hass, LOCK) == "locked", text
    # Said once each: the same words again come from the TTS's own cache.
    assert door.said == ["Shall I unlock Front door?", "Okay, I won't."]


@pytest.mark.parametrize("language", sorted(CHANGE_OF_MIND))
async def test_the_pin_then_a_change_of_mind(
    home: HomeAssistant, fake_llm: FakeLLM, language: str
) -> None:
    """The right PIN with a no anywhere around it declines; the PIN alone unlocks."""
    hass = home
    await async_load(hass, language)
    _, pin_agent = await _agents(hass, fake_llm)
    words = _strings(language)
    question = words["confirm_question"].format(
        actions=words["action_unlock"].format(names="Front door")
    )
    with_pin = f"{question} {words['confirm_pin_prompt']}"
    user = _User(hass, language)
    for text in CHANGE_OF_MIND[language]:
        fake_llm.script([await _unlock_call(hass)])
        assert await user.says(pin_agent, "…", new=True) == with_pin
        assert await user.says(pin_agent, text) == words["confirmation_declined"]
        assert _state(hass, LOCK) == "locked", text
    fake_llm.script([await _unlock_call(hass)])
    assert await user.says(pin_agent, "…", new=True) == with_pin
    unlocked = f"{words['done_unlock'].format(names='Front door')}."
    assert await user.says(pin_agent, PIN) == unlocked
    assert _state(hass, LOCK) == "unlocked"


async def test_a_long_answer_with_the_pin_is_read(
    home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """Over 40 words: a no deep inside declines; without one, it is a new request."""
    hass = home
    await async_load(hass, "en")
    _, pin_agent = await _agents(hass, fake_llm)
    words = _strings("en")
    rambling = " ".join(["well"] * 45)
    user = _User(hass, "en")

    fake_llm.script([await _unlock_call(hass)])
    await user.says(pin_agent, "…", new=True)
    said_no = f"{PIN} {rambling} and then again no, don't"
    assert await user.says(pin_agent, said_no) == words["confirmation_declined"]
    assert _state(hass, LOCK) == "locked"

    # Without a no it is a new request for the model, neither the PIN nor a wrong one.
    model_says = "Sorry, I did not follow that."
    fake_llm.script([await _unlock_call(hass), Reply.text(model_says)])
    await user.says(pin_agent, "…", new=True)
    assert await user.says(pin_agent, f"{PIN} {rambling}") == model_says
    assert _state(hass, LOCK) == "locked"
    assert fake_llm.requests[-1]["messages"][-1]["content"] == f"{PIN} {rambling}"
