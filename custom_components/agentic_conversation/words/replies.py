"""Short spoken replies for every way a turn can end other than with an answer.

The words live in translations/<language>.json under `exceptions.<key>.message`, so the
user hears them in their language (English where a translation is missing).
"""

from collections.abc import Sequence

from homeassistant.core import HomeAssistant
from homeassistant.helpers.translation import async_get_translations

from ..const import DOMAIN
from ..ending import Ask, Problem
from ..languages import base_language
from ..languages.numbers import async_load as async_load_number_words
from ..verify.done_actions import Action
from ..verify.failed_actions import Failure

# How each kind of risky action (risk.RiskKind) is asked about, and told of as what
# a script, scene, automation or button does.
_ACTION_KEYS = {
    "unlock": ("action_unlock", "does_unlock"),
    "open": ("action_open", "does_open"),
    "disarm": ("action_disarm", "does_disarm"),
    "turn_on": ("action_turn_on", "does_turn_on"),
    "turn_off": ("action_turn_off", "does_turn_off"),
    "close": ("action_close", "does_other"),  # what a held call does besides
    "lock": ("action_lock", "does_other"),
    "other": ("action_other", "does_other"),
    "run": ("action_run", "does_other"),
    "activate": ("action_activate", "does_other"),
    "press": ("action_press", "does_other"),
}

# What was done, told by its verb (verify/expected.py `Verb`, or a risk kind for what a
# script, scene or button did); spelled out: tests/test_packaging.py finds every key.
_DONE_KEYS = {
    "turn_on": "done_turn_on",
    "turn_off": "done_turn_off",
    "unlock": "done_unlock",
    "lock": "done_lock",
    "open": "done_open",
    "close": "done_close",
    "disarm": "done_disarm",
    "arm": "done_arm",
    "run": "done_run",
    "activate": "done_activate",
    "press": "done_press",
    "other": "done_other",
}

# Used only if the translation files cannot be read at all.
_LAST_RESORT = "Sorry, something went wrong. Please try again."


async def async_render(
    hass: HomeAssistant, language: str, problem: Problem, done: Sequence[Action] = ()
) -> str:
    """The words to speak for a problem, after what was done, in the user's language."""
    strings = await async_strings(hass, language)
    said = strings.get(problem.value) or _LAST_RESORT
    if not done:
        return said
    template = strings.get("partial_success") or "{done}. But {problem}"
    return template.format(done=told_done(done, strings), problem=lower_first(said))


async def async_render_failed(
    hass: HomeAssistant,
    language: str,
    failures: Sequence[Failure],
    done: Sequence[Action],
    question: str = "",
) -> str:
    """What failed, and why in a few words, after what was done (if anything).

    Said instead of the model's answer, which may claim what did not happen; the
    model's closing `question` to the user follows it.
    """
    strings = await async_strings(hass, language)
    names = [failure.unmatched for failure in failures if failure.unmatched]
    sentences = [
        (strings.get("action_not_found") or "I couldn't find “{name}”.").format(
            name=name
        )
        for name in dict.fromkeys(names)
    ]
    if any(failure.unknown_tool and not failure.unmatched for failure in failures):
        sentences.append(strings.get("action_unknown") or _LAST_RESORT)
    if any(not failure.unknown_tool and not failure.unmatched for failure in failures):
        sentences.append(strings.get("action_failed") or _LAST_RESORT)
    problem = " ".join(sentences)
    if done:
        template = strings.get("partial_success") or "{done}. But {problem}"
        problem = template.format(
            done=told_done(done, strings), problem=lower_first(problem)
        )
    return f"{problem} {question}" if question else problem


async def async_render_question(
    hass: HomeAssistant,
    language: str,
    asks: Sequence[Ask],
    done: Sequence[Action],
    *,
    needs_pin: bool,
    how_to_answer: bool = False,
) -> str:
    """The question about held actions, after what was already done, in words.

    Each script, scene, automation or button asked about is followed by what it does
    ("Shall I run Welcome Home? It unlocks Front door."). Asked again after an answer
    that was neither yes nor no, it says how to answer ("Say yes to unlock Front
    door, or no.").
    """
    # The answer is judged with the language's number words: ready them now.
    await async_load_number_words(hass, language)
    strings = await async_strings(hass, language)
    joiner = f" {strings.get('names_joiner') or 'and'} "

    def told(pairs: Sequence[tuple[str, Sequence[str]]], which: int) -> str:
        return joiner.join(
            (
                strings.get(_ACTION_KEYS.get(kind, _ACTION_KEYS["other"])[which])
                or "{names}"
            ).format(names=joined(names, strings))
            for kind, names in pairs
        )

    # What a call does besides its risky part joins the same verb ("open Garage door
    # and Kitchen shutter").
    by_kind: dict[str, list[str]] = {}
    for ask in asks:
        names = by_kind.setdefault(ask.kind, [])
        names.extend(name for name in ask.names if name not in names)
    actions = told(list(by_kind.items()), 0)
    if how_to_answer:
        key = "confirm_reask_pin" if needs_pin else "confirm_reask"
        parts = [(strings.get(key) or "{actions}?").format(actions=actions)]
        if done:
            parts.insert(0, f"{told_done(done, strings)}.")
        return " ".join(parts)
    parts = [(strings.get("confirm_question") or "{actions}?").format(actions=actions)]
    does = [item for ask in asks for item in ask.does]
    for name, effects in does:
        key = "effect_it" if len(does) == 1 else "effect_named"
        template = strings.get(key) or "{name}: {effects}."
        parts.append(template.format(name=name, effects=told(effects, 1)))
    if done:
        parts.insert(0, f"{told_done(done, strings)}.")
    if needs_pin:
        parts.append(strings.get("confirm_pin_prompt") or "")
    return " ".join(part for part in parts if part)


async def async_render_after_done(
    hass: HomeAssistant, language: str, key: str, done: Sequence[Action]
) -> str:
    """One of our phrases (`key`), after what was done.

    Held actions dropped after two unclear answers (`confirmation_dropped`), or not
    asked about in a language with no answer words (`confirmation_language_missing`).
    """
    strings = await async_strings(hass, language)
    said = strings.get(key) or _LAST_RESORT
    return f"{told_done(done, strings)}. {said}" if done else said


async def async_render_done(
    hass: HomeAssistant, language: str, done: Sequence[Action]
) -> str:
    """What a confirmed action did, in words (a plain "done" if nothing is named)."""
    strings = await async_strings(hass, language)
    if not done:
        return strings.get("confirmed_done") or "Done."
    return f"{told_done(done, strings)}."


async def async_phrase(hass: HomeAssistant, language: str, key: str) -> str:
    """One of the short fixed replies (e.g. `confirmation_declined`)."""
    strings = await async_strings(hass, language)
    return strings.get(key) or _LAST_RESORT


def told_done(done: Sequence[Action], strings: dict[str, str]) -> str:
    """Actions in words, joined."""
    return "; ".join(_told(action, strings) for action in done)


def _told(action: Action, strings: dict[str, str]) -> str:
    """One action in words."""
    if action.kind == "speech":
        return action.speech
    template = strings.get(_DONE_KEYS.get(action.kind, "done_other")) or "{names}"
    return template.format(names=joined(action.names, strings))


def joined(names: Sequence[str], strings: dict[str, str]) -> str:
    """Names as a list is said: "A, B and C"."""
    joiner = f" {strings.get('names_joiner') or 'and'} "
    if len(names) <= 2:
        return joiner.join(names)
    return f"{', '.join(names[:-1])}{joiner}{names[-1]}"


async def async_strings(hass: HomeAssistant, language: str) -> dict[str, str]:
    """The spoken strings for a language, by key (English fills any gap)."""
    prefix = f"component.{DOMAIN}.exceptions."
    suffix = ".message"
    base = base_language(language) or "en"
    # English fills any key (and any language) we have no words for.
    translations = await async_get_translations(hass, base, "exceptions", {DOMAIN})
    return {
        key[len(prefix) : -len(suffix)]: value
        for key, value in translations.items()
        if key.startswith(prefix) and key.endswith(suffix)
    }


def lower_first(text: str) -> str:
    """Lower-case a sentence's first letter so it can follow "but".

    The problem sentences start with a pronoun, an article or a verb in every
    language we ship, so this is safe; English "I" stays upper-case.
    """
    if (
        len(text) > 1
        and text[0].isupper()
        and not text[1].isupper()
        and text[:2] != "I "
    ):
        return text[0].lower() + text[1:]
    return text
