"""Short spoken replies for every way a turn can end other than with an answer.

The words live in translations/<language>.json under `exceptions.<key>.message`, so the
user hears them in their language (English where a translation is missing).
"""

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

from homeassistant.core import HomeAssistant
from homeassistant.helpers.translation import async_get_translations

from .agent import (
    LLMAuthError,
    LLMBadRequestError,
    LLMBadResponseError,
    LLMBudgetError,
    LLMConnectionError,
    LLMError,
    LLMForbiddenError,
    LLMRateLimitError,
    LLMServerError,
    LLMStreamBrokenError,
    LLMTimeoutError,
    LoopResult,
    StopReason,
)
from .agent.server_errors import SetupFault, server_problem
from .const import DOMAIN
from .done_actions import Action, actions_done
from .failed_actions import Failure
from .languages import base_language
from .languages.numbers import async_load as async_load_number_words
from .safety.confirmation import Ask


class Problem(StrEnum):
    """Why there is no answer; each is a translation key."""

    LLM_AUTH = "llm_auth"
    LLM_FORBIDDEN = "llm_forbidden"
    LLM_RATE_LIMITED = "llm_rate_limited"
    LLM_TIMEOUT = "llm_timeout"
    LLM_UNREACHABLE = "llm_unreachable"
    LLM_STREAM_BROKEN = "llm_stream_broken"
    LLM_SERVER_ERROR = "llm_server_error"
    LLM_BAD_REQUEST = "llm_bad_request"
    LLM_BAD_RESPONSE = "llm_bad_response"
    ITERATION_CAP = "iteration_cap"
    REFUSED = "refused"
    CUT_OFF = "cut_off"
    CONTEXT_TOO_SMALL = "context_too_small"
    EMPTY_ANSWER = "empty_answer"
    UNEXPECTED = "unexpected"
    CONVERSATION_BUSY = "conversation_busy"
    LLM_API_UNAUTHORIZED = "llm_api_unauthorized"
    SERVER_NO_TOOLS = "server_no_tools"
    SERVER_CONTEXT = "server_context"
    SERVER_MODEL_MISSING = "server_model_missing"
    BUDGET_SPENT = "budget_spent"


# A server that is up but set up wrongly: the true cause, not "not available".
_FAULT_PROBLEMS = {
    SetupFault.NO_TOOLS: Problem.SERVER_NO_TOOLS,
    SetupFault.CONTEXT: Problem.SERVER_CONTEXT,
    SetupFault.MODEL_MISSING: Problem.SERVER_MODEL_MISSING,
}
# The same, before Home Assistant's own agent's answer.
_LOCAL_PREFACES = {
    SetupFault.NO_TOOLS: "server_no_tools_local",
    SetupFault.CONTEXT: "server_context_local",
    SetupFault.MODEL_MISSING: "server_model_missing_local",
}


_ERROR_PROBLEMS: tuple[tuple[type[LLMError], Problem], ...] = (
    (LLMAuthError, Problem.LLM_AUTH),
    (LLMForbiddenError, Problem.LLM_FORBIDDEN),
    (LLMRateLimitError, Problem.LLM_RATE_LIMITED),
    (LLMTimeoutError, Problem.LLM_TIMEOUT),
    # Before its base class: reached, then lost mid-answer.
    (LLMStreamBrokenError, Problem.LLM_STREAM_BROKEN),
    (LLMConnectionError, Problem.LLM_UNREACHABLE),
    (LLMServerError, Problem.LLM_SERVER_ERROR),
    (LLMBadRequestError, Problem.LLM_BAD_REQUEST),
    (LLMBadResponseError, Problem.LLM_BAD_RESPONSE),
    (LLMBudgetError, Problem.BUDGET_SPENT),
)

# How each kind of risky action (risk.RiskKind) is asked about, and told of as what
# a script, scene, automation or button does.
_ACTION_KEYS = {
    "unlock": ("action_unlock", "does_unlock"),
    "open": ("action_open", "does_open"),
    "disarm": ("action_disarm", "does_disarm"),
    "turn_on": ("action_turn_on", "does_turn_on"),
    "turn_off": ("action_turn_off", "does_turn_off"),
    "other": ("action_other", "does_other"),
    "run": ("action_run", "does_other"),
    "activate": ("action_activate", "does_other"),
    "press": ("action_press", "does_other"),
}

# Used only if the translation files cannot be read at all.
_LAST_RESORT = "Sorry, something went wrong. Please try again."


@dataclass(frozen=True, slots=True)
class Fallback:
    """What to say instead of an answer, and why."""

    problem: Problem
    done: tuple[Action, ...] = ()


def problem_for_error(error: LLMError | None) -> Problem:
    """The spoken problem for a provider error."""
    if error is not None and (fault := server_problem(error)) is not None:
        return _FAULT_PROBLEMS[fault.fault]
    for error_type, problem in _ERROR_PROBLEMS:
        if isinstance(error, error_type):
            return problem
    return Problem.LLM_BAD_RESPONSE if error is not None else Problem.UNEXPECTED


def fallback_for(
    result: LoopResult,
    read_only: Collection[str] = (),
    intents: Mapping[str, str] | None = None,
) -> Fallback:
    """The fallback for a loop result that has no answer to speak."""
    done = actions_done(result.tool_calls, read_only, intents)
    if result.stop_reason is StopReason.ITERATION_CAP:
        return Fallback(Problem.ITERATION_CAP, done)
    if result.stop_reason is StopReason.REFUSED:
        return Fallback(Problem.REFUSED, done)
    if result.stop_reason is StopReason.CUT_OFF:
        return Fallback(Problem.CUT_OFF, done)
    if result.stop_reason is StopReason.CONTEXT_TOO_SMALL:
        return Fallback(Problem.CONTEXT_TOO_SMALL, done)
    if result.stop_reason is StopReason.DEADLINE:
        return Fallback(Problem.LLM_TIMEOUT, done)
    if result.stop_reason is StopReason.LLM_ERROR:
        return Fallback(problem_for_error(result.error), done)
    return Fallback(Problem.EMPTY_ANSWER, done)


def local_preface_key(error: BaseException | None) -> str:
    """The phrase that introduces HA's own agent's answer after this error."""
    if isinstance(error, LLMError) and (fault := server_problem(error)) is not None:
        return _LOCAL_PREFACES[fault.fault]
    if isinstance(error, LLMBudgetError):
        return "budget_spent_local"
    return "local_fallback"


async def async_render(hass: HomeAssistant, language: str, fallback: Fallback) -> str:
    """The words to speak for a fallback, in the user's language."""
    strings = await async_strings(hass, language)
    problem = strings.get(fallback.problem.value) or _LAST_RESORT
    if not fallback.done:
        return problem
    template = strings.get("partial_success") or "{done}. But {problem}"
    return template.format(
        done=told_done(fallback.done, strings), problem=lower_first(problem)
    )


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
            ).format(names=joiner.join(names))
            for kind, names in pairs
        )

    actions = told([(ask.kind, ask.names) for ask in asks], 0)
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


async def async_render_dropped(
    hass: HomeAssistant, language: str, done: Sequence[Action]
) -> str:
    """Why held actions were dropped: no yes or no came after asking twice."""
    strings = await async_strings(hass, language)
    dropped = strings.get("confirmation_dropped") or _LAST_RESORT
    return f"{told_done(done, strings)}. {dropped}" if done else dropped


async def async_render_not_asked(
    hass: HomeAssistant, language: str, done: Sequence[Action]
) -> str:
    """Why held actions were not asked about (no answer words in the language)."""
    strings = await async_strings(hass, language)
    refusal = strings.get("confirmation_language_missing") or _LAST_RESORT
    return f"{told_done(done, strings)}. {refusal}" if done else refusal


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
    template = strings.get(action.kind) or "{names}"
    joiner = f" {strings.get('names_joiner') or 'and'} "
    return template.format(names=joiner.join(action.names))


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
