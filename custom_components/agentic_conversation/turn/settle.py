"""The turn after "Shall I…?": the user's own words decide, not the model.

A yes (or the PIN) runs exactly the held calls, through a gate that lets only their
effects through, and says what was done; a no is acknowledged; anything else drops
them, is noted as unclear (the next question about them says how to answer) and is
handled as a new request.
"""

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from enum import Enum, auto

from homeassistant.components import conversation
from homeassistant.core import HomeAssistant
from homeassistant.helpers import llm
from homeassistant.util.ulid import ulid_now

from ..agent import ToolCall
from ..agent.tool_calls import ToolCallRecord, execute_tool_call
from ..ending import Done, Ending, Fallback, HeldFailed, Outcome, Phrase, Problem, Said
from ..safety.answers import (
    Answer,
    HeldWords,
    classify,
    is_request,
    pin_matches,
    spoken_digits,
)
from ..safety.confirmation import (
    Asker,
    HeldAction,
    Outcome as Confirmation,
    Pending,
    async_note_unclear,
    async_take,
    fire_events,
)
from ..tool_dispatch import ChatLogToolDispatcher
from ..tool_options import effects_of
from ..verify.done_actions import Action, actions_done
from ..verify.failed_actions import Failure, unmatched_name
from ..verify.watch import EffectWatch
from .ask import asks
from .context import TurnContext
from .reply import Delta
from .tool_log import tool_result_delta

# A confirmed action gets this long, like any tool call.
_RESULT_CHARS = 8000


class Verdict(Enum):
    """What the user's words do to the held actions."""

    RUN = auto()
    DECLINE = auto()
    DROP = auto()


@dataclass(frozen=True, slots=True)
class Judgement:
    """The verdict, and the reply for a decline (a translation key)."""

    verdict: Verdict
    reply: str = ""


@dataclass(frozen=True, slots=True)
class Held:
    """Actions held last turn, and what the user's words now do to them."""

    pending: Pending
    judgement: Judgement

    @property
    def approved(self) -> Sequence[HeldAction]:
        """The actions the user's words let through this turn's gate."""
        if self.judgement.verdict is Verdict.RUN:
            return self.pending.actions
        return ()


def take_held(turn: TurnContext, pin: str | None) -> Held | None:
    """The actions this conversation holds for the agent, judged by our code alone."""
    # Only the asker's words settle it: the same device and user as the question.
    pending = async_take(
        turn.hass,
        turn.chat_log.conversation_id,
        turn.agent_id,
        Asker.of(turn.user_input),
    )
    if pending is None:
        return None
    text, language = turn.user_input.text, turn.user_input.language
    # What was asked about: restating it ("yes, unlock it") is a yes to it; what
    # the calls do besides is not ("open the shutter" is no yes to the garage).
    asked = [ask for ask in asks(turn.hass, pending.actions) if ask.risky]
    held = HeldWords(
        frozenset(ask.kind for ask in asked),
        tuple(name for ask in asked for name in ask.names),
    )
    return Held(pending, judge(pending, text, language, pin, held))


def judge(
    pending: Pending,
    text: str,
    language: str,
    pin: str | None,
    held: HeldWords | None = None,
) -> Judgement:
    """Decide, by our code alone, what the user's next utterance means."""
    if pending.expired:
        if classify(text, language, held) is Answer.YES or spoken_digits(
            text, language
        ):
            return Judgement(Verdict.DECLINE, "confirmation_expired")
        return Judgement(Verdict.DROP)
    if pending.needs_pin and pin:
        # The PIN is what counts; the words around it may still say no.
        answer = classify(text, language, held, numbers=True)
        if answer is Answer.NO:
            return Judgement(Verdict.DECLINE, "confirmation_declined")
        if pin_matches(text, pin, language):
            return Judgement(Verdict.RUN)
        if spoken_digits(text, language) and not is_request(text):
            # Digits in a request ("… at 7 tomorrow") are no PIN, right or wrong.
            return Judgement(Verdict.DECLINE, "confirmation_wrong_pin")
        if answer is Answer.YES:
            return Judgement(Verdict.DECLINE, "confirmation_needs_pin")
        return Judgement(Verdict.DROP)
    answer = classify(text, language, held)
    if answer is Answer.YES:
        return Judgement(Verdict.RUN)
    if answer is Answer.NO:
        return Judgement(Verdict.DECLINE, "confirmation_declined")
    return Judgement(Verdict.DROP)


async def async_settle(
    hass: HomeAssistant,
    held: Held,
    chat_log: conversation.ChatLog,
    *,
    agent_id: str,
    tool_timeout: float,
) -> Ending | None:
    """Act on the judgement; None when the utterance is a new request to handle."""
    pending, judgement = held.pending, held.judgement
    conversation_id = chat_log.conversation_id
    if not pending.expired and judgement.verdict is not Verdict.RUN:
        fire_events(hass, conversation_id, pending, Confirmation.REFUSED)
    if judgement.verdict is Verdict.DROP:
        if not pending.expired:
            async_note_unclear(hass, conversation_id, pending)
        return None
    if judgement.verdict is Verdict.DECLINE:
        return Ending(Phrase(judgement.reply))
    fire_events(hass, conversation_id, pending, Confirmation.CONFIRMED)
    return Ending(
        await _async_run_held(
            hass,
            pending,
            chat_log,
            agent_id=agent_id,
            tool_timeout=tool_timeout,
        )
    )


async def _async_run_held(
    hass: HomeAssistant,
    pending: Pending,
    chat_log: conversation.ChatLog,
    *,
    agent_id: str,
    tool_timeout: float,
) -> Said:
    """Run exactly the held calls, into the chat log; what they did."""
    api = chat_log.llm_api
    watch = effects_of(api.llm_context) if api else None
    # Set by the stream once the calls have run; never a "done" by default.
    said: Said | None = None
    calls = [
        ToolCall(id=ulid_now(), name=action.tool_name, arguments=action.arguments)
        for action in pending.actions
    ]

    async def _deltas() -> AsyncIterator[Delta]:
        yield {
            "role": "assistant",
            "tool_calls": [
                llm.ToolInput(
                    id=call.id,
                    tool_name=action.tool_name,
                    tool_args=action.arguments,
                    external=True,
                )
                for call, action in zip(calls, pending.actions, strict=True)
            ],
        }
        records: list[ToolCallRecord] = []
        told_by_result: list[ToolCallRecord] = []
        for call in calls:
            noted = watch.noted if watch is not None else 0
            record = await execute_tool_call(
                call,
                ChatLogToolDispatcher(api) if api else _no_api,
                {tool.name for tool in api.tools} if api else set(),
                tool_timeout=tool_timeout,
                max_result_chars=_RESULT_CHARS,
            )
            records.append(record)
            if watch is None or watch.noted == noted:
                told_by_result.append(record)
            yield tool_result_delta(record)
        failures = [Failure(unmatched_name(r)) for r in told_by_result if not r.ok]
        nonlocal said
        said = await _async_told(hass, pending, records, watch, failures=failures)

    async for _content in chat_log.async_add_delta_content_stream(agent_id, _deltas()):
        pass
    if said is None:  # the chat log stopped reading before the calls were told
        return Fallback(Problem.UNEXPECTED)
    return said


async def _async_told(
    hass: HomeAssistant,
    pending: Pending,
    records: Sequence[ToolCallRecord],
    watch: EffectWatch | None,
    *,
    failures: Sequence[Failure],
) -> Said:
    """What the confirmed actions did, as the house shows it (waited for, bounded).

    `failures`: the calls that failed with no entity to show it on.
    """
    if effects := (await watch.async_wait() if watch is not None else []):
        return Outcome(Done(tuple(effects), tuple(records)), tuple(failures))
    if failures:
        return HeldFailed(actions_done(records))
    # Nothing to watch: told with the verbs of the question.
    return Outcome(
        Done(
            actions=tuple(
                Action(str(ask.kind), tuple(ask.names))
                for ask in asks(hass, pending.actions)
            )
        )
    )


async def _no_api(name: str, arguments: dict[str, object]) -> None:
    """Without tools (the agent's APIs were removed meanwhile) nothing can run."""
    raise RuntimeError("The agent has no tools any more")
