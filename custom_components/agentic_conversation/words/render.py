"""An ending put into words: the one place that turns what happened into speech.

The reply stage calls `async_words` with a route's `Said`; everything the user hears
after a turn (but for the model's streamed text and Home Assistant's own words, each
checked here against what the house shows) is rendered from it.
"""

from dataclasses import dataclass
import re

from homeassistant.core import HomeAssistant

from ..ending import (
    Done,
    Dropped,
    Fallback,
    HeldFailed,
    HomeSaid,
    ModelAnswer,
    NotAsked,
    Outcome,
    Phrase,
    Problem,
    Question,
    Said,
    Words,
)
from ..verify.done_actions import Action
from ..verify.outcome import all_done
from .data_words import async_data_words
from .effects import async_effect_actions, async_render_outcome, async_told_actions
from .replies import (
    async_phrase,
    async_render,
    async_render_after_done,
    async_render_done,
    async_render_question,
)
from .speech import clean_for_speech

# The model's last sentence, if a question, follows what failed ("Did you mean …?").
_SENTENCES = re.compile(r"(?<=[.!?…。！？])\s+")
_MAX_QUESTION_CHARS = 200


@dataclass(frozen=True, slots=True)
class Spoken:
    """The words, and the problem they tell if no answer came."""

    text: str
    problem: Problem | None = None
    streamed: bool = False
    """The words are the model's, in the chat log already."""


async def async_words(hass: HomeAssistant, language: str, said: Said) -> Spoken:
    """What the user hears for `said`, in their language."""
    match said:
        case Words(text=text):
            return Spoken(text)
        case Phrase(key=key):
            return Spoken(await async_phrase(hass, language, key))
        case Fallback(problem=problem, done=done):
            told = await _async_done(hass, language, done)
            return Spoken(await async_render(hass, language, problem, told), problem)
        case Outcome(done=done, failures=failures, answer=answer):
            told = await _async_done(hass, language, done)
            question = closing_question(clean_for_speech(answer)) if answer else ""
            return Spoken(
                await async_render_outcome(hass, language, told, failures, question)
            )
        case HeldFailed(done=actions):
            failed = await async_phrase(hass, language, "confirmation_failed")
            if not actions:
                return Spoken(failed)
            before = await async_render_done(hass, language, actions)
            return Spoken(f"{before} {failed}")
        case Question():
            return Spoken(
                await async_render_question(
                    hass,
                    language,
                    said.asks,
                    await _async_done(hass, language, said.done),
                    needs_pin=said.needs_pin,
                    how_to_answer=said.how_to_answer,
                )
            )
        case Dropped(done=done):
            told = await _async_done(hass, language, done)
            return Spoken(
                await async_render_after_done(
                    hass, language, "confirmation_dropped", told
                )
            )
        case NotAsked(done=done):
            told = await _async_done(hass, language, done)
            return Spoken(
                await async_render_after_done(
                    hass, language, "confirmation_language_missing", told
                )
            )
        case HomeSaid():
            return Spoken(await _async_home_said(hass, language, said))
        case ModelAnswer():
            return await _async_answer(hass, language, said)


async def _async_done(hass: HomeAssistant, language: str, done: Done) -> list[Action]:
    """What was done, as actions to tell: the house's effects, then the rest."""
    told: list[Action] = []
    if done.effects or done.records:
        told = await async_told_actions(
            hass, language, done.effects, done.records, done.read_only
        )
    return [*told, *done.actions]


async def _async_home_said(hass: HomeAssistant, language: str, said: HomeSaid) -> str:
    """HA's own words when the house shows them true, else what it shows."""
    speech = said.speech
    if not said.fits or not all_done(said.effects):
        speech = await async_render_done(
            hass, language, await async_effect_actions(hass, language, said.effects)
        )
    if question := closing_question(clean_for_speech(said.answer)):
        # HA's words end without a stop ("… in the Garage area"): one before it.
        speech = speech.rstrip()
        if not speech.endswith((".", "!", "?", "。", "！", "？")):
            speech += "."
        speech = f"{speech} {question}"
    if not said.preface:
        return speech
    template = await async_phrase(hass, language, said.preface)
    return template.replace("{speech}", speech)


async def _async_answer(
    hass: HomeAssistant, language: str, said: ModelAnswer
) -> Spoken:
    """The model's answer: its words, data told in words, or the fallback."""
    streamed = said.streamed.strip()
    # A streamed answer was cut (and logged) as it streamed.
    answer = clean_for_speech(said.result.text, None if streamed else said.budget)
    # Issue 40: an answer that was only data (JSON, YAML, code), or words that only
    # lead to it ("Here it is:"), is said in words after them.
    if words := await async_data_words(
        hass,
        language,
        said.result,
        answer,
        lambda: _async_done(hass, language, said.fallback.done),
        read_only=said.read_only,
    ):
        return Spoken(words)
    if answer:
        return Spoken(streamed or answer, streamed=bool(streamed))
    return await async_words(hass, language, said.fallback)


def closing_question(answer: str) -> str:
    """The answer's last sentence if it asks the user something ("" if not).

    After a failure the model's claims are not said, but its question is ("Did you
    mean Porch light?"): a question claims nothing.
    """
    last = _SENTENCES.split(answer.strip())[-1].strip()
    if last.endswith(("?", "？")) and len(last) <= _MAX_QUESTION_CHARS:
        return last
    return ""
