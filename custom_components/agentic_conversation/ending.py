"""How a turn ended, as data: what was done, what failed and why, what is asked.

Routes and stages decide; they return an `Ending` and never render words. The reply
stage (`turn/reply.py`) alone puts it into the user's language with `words/`, so what
is said can be compared with what the house did in one place.
"""

from dataclasses import dataclass
from enum import StrEnum
from typing import NamedTuple

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
    ToolCallRecord,
)
from .agent.server_errors import SetupFault, server_problem
from .verify.done_actions import Action
from .verify.failed_actions import Failure
from .verify.outcome import EntityEffect


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
    LLM_API_UNAVAILABLE = "llm_api_unavailable"
    PROMPT_TEMPLATE = "prompt_template"
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
_STOP_PROBLEMS = {
    StopReason.ITERATION_CAP: Problem.ITERATION_CAP,
    StopReason.REFUSED: Problem.REFUSED,
    StopReason.CUT_OFF: Problem.CUT_OFF,
    StopReason.CONTEXT_TOO_SMALL: Problem.CONTEXT_TOO_SMALL,
    StopReason.DEADLINE: Problem.LLM_TIMEOUT,
}


@dataclass(frozen=True, slots=True)
class Done:
    """What a turn did before its words.

    `effects`: what the house showed of the turn's actions (told by their states),
    with `records` whose tools answered in their own words (a list item added);
    `actions`: told as they are (HA's own words, the verbs of a question).
    """

    effects: tuple[EntityEffect, ...] = ()
    records: tuple[ToolCallRecord, ...] = ()
    read_only: frozenset[str] = frozenset()
    actions: tuple[Action, ...] = ()


@dataclass(frozen=True, slots=True)
class Fallback:
    """No answer: why, after what was done."""

    problem: Problem
    done: Done = Done()


@dataclass(frozen=True, slots=True)
class Words:
    """Words chosen already: Home Assistant's own agent's, or the model's streamed."""

    text: str


@dataclass(frozen=True, slots=True)
class Phrase:
    """One of our short fixed replies, by its key (`confirmation_declined`)."""

    key: str


@dataclass(frozen=True, slots=True)
class Outcome:
    """What was done and what failed (keyed by what it targeted).

    The model's closing question, if `answer` ends on one, follows.
    """

    done: Done
    failures: tuple[Failure, ...] = ()
    answer: str = ""


@dataclass(frozen=True, slots=True)
class HeldFailed:
    """Confirmed actions that failed with no entity to show it: after what was done."""

    done: tuple[Action, ...]


class Ask(NamedTuple):
    """One kind of action, the names it acts on, and what runnables set off."""

    kind: str
    names: list[str]
    # (runnable's name, [(kind, names)]) for each script, scene… among the names.
    does: list[tuple[str, list[tuple[str, list[str]]]]]
    risky: bool = True
    """False: what a held call does besides (a "no" leaves it undone too)."""


@dataclass(frozen=True, slots=True)
class Question:
    """Held actions asked about, after what was done."""

    asks: tuple[Ask, ...]
    done: Done
    needs_pin: bool
    how_to_answer: bool = False


@dataclass(frozen=True, slots=True)
class Dropped:
    """Held actions dropped after answers that were neither yes nor no."""

    done: Done


@dataclass(frozen=True, slots=True)
class NotAsked:
    """Risky actions not asked about: no yes/no words for the user's language."""

    done: Done


@dataclass(frozen=True, slots=True)
class HomeSaid:
    """Home Assistant's own agent's words, said only if the house shows them true.

    After `preface` (a phrase key with `{speech}`) when no model answered; `fits`:
    False when the words say more than ran (told by the house's effects instead);
    `answer`: the model's, not said (it read and did nothing), but its closing
    question follows.
    """

    speech: str
    effects: tuple[EntityEffect, ...]
    preface: str = ""
    fits: bool = True
    answer: str = ""


@dataclass(frozen=True, slots=True)
class ModelAnswer:
    """The model's final answer; `streamed`: what of it is in the chat log already.

    Said if it is words; an answer that is data is told in words; an empty one is
    the `fallback`.
    """

    result: LoopResult
    streamed: str
    fallback: Fallback
    """Said if there is no answer; its `done` is what the turn did."""
    read_only: frozenset[str] = frozenset()
    budget: int | None = None


type Said = (
    Words
    | Phrase
    | Fallback
    | Outcome
    | HeldFailed
    | Question
    | Dropped
    | NotAsked
    | HomeSaid
    | ModelAnswer
)


@dataclass(frozen=True, slots=True)
class Ending:
    """A route's end: what is to be said; `asked`: a satellite listens for the answer."""

    said: Said
    asked: bool = False


def problem_for_error(error: LLMError | None) -> Problem:
    """The spoken problem for a provider error."""
    if error is not None and (fault := server_problem(error)) is not None:
        return _FAULT_PROBLEMS[fault.fault]
    for error_type, problem in _ERROR_PROBLEMS:
        if isinstance(error, error_type):
            return problem
    return Problem.LLM_BAD_RESPONSE if error is not None else Problem.UNEXPECTED


def problem_for_result(result: LoopResult) -> Problem:
    """Why a loop result has no answer to speak."""
    if result.stop_reason is StopReason.LLM_ERROR:
        return problem_for_error(result.error)
    return _STOP_PROBLEMS.get(result.stop_reason, Problem.EMPTY_ANSWER)


def local_preface_key(error: BaseException | None) -> str:
    """The phrase that introduces HA's own agent's answer after this error."""
    if isinstance(error, LLMError) and (fault := server_problem(error)) is not None:
        return _LOCAL_PREFACES[fault.fault]
    if isinstance(error, LLMBudgetError):
        return "budget_spent_local"
    return "local_fallback"
