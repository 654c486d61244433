"""The model route: HA's chat log in, our agentic loop, the chat log and its words out.

Every step of the loop is written to the chat log as it happens (assistant text, tool
calls as external calls, tool results), so Assist's debug view and traces show the whole
turn and a streaming pipeline speaks text before the model is done. Whatever happens, the
route ends on words (an answer, our question, a fallback) for the reply stage.
"""

from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from homeassistant.components import conversation
from homeassistant.core import HomeAssistant
from homeassistant.helpers import llm

from ..agent import (
    LLMAuthError,
    LLMCallStarted,
    LoopEvent,
    LoopFinished,
    LoopResult,
    Message,
    RouteState,
    StopReason,
    TextDelta,
    ToolCallFinished,
    ToolCallsRequested,
)
from ..const import (
    CONF_CONFIRM_PIN,
    CONF_HISTORY_TOKENS,
    CONF_LOCAL_FALLBACK,
    CONF_MAX_TOKENS,
    CONF_WAIT_PHRASE_AFTER,
    DEFAULT_HISTORY_TOKENS,
    DEFAULT_LOCAL_FALLBACK,
    DEFAULT_MAX_TOKENS,
    DEFAULT_WAIT_PHRASE_AFTER,
    LOGGER,
)
from ..ending import (
    Done,
    Ending,
    Fallback,
    HomeSaid,
    ModelAnswer,
    NotAsked,
    Outcome,
    Problem,
    Question,
    Said,
    problem_for_result,
)
from ..kept.chat_history import trim_to_budget
from ..languages import understood
from ..offered_tools import intent_types, tool_specs
from ..tool_options import gate_of
from ..verify.done_actions import actions_done
from ..verify.failed_actions import Failure, actions_failed, is_failed_action
from ..verify.outcome import summary
from ..verify.watch import EffectWatch
from .ask import hold_and_ask
from .context import TurnContext
from .local_fallback import async_local_fallback
from .local_first import ForTheModel, async_state_answer
from .model_loop import build_loop
from .reply import Delta, Voice, async_with_wait_phrase
from .tool_log import note_repairs, read_only_tools, tool_result_delta


@dataclass
class _TurnRecord:
    """The turn's context, and what the chat-log writer saw, for composing the result."""

    hass: HomeAssistant
    user_input: conversation.ConversationInput
    chat_log: conversation.ChatLog
    agent_id: str
    pin: str | None
    result: LoopResult | None = None
    said: Said | None = None
    """What the turn ended with, for the reply stage to put into words."""
    asked: bool = False
    """The turn ended on our question about held actions."""
    intents: dict[str, str] = field(default_factory=dict)
    """The intent of each offered intent tool, by offered name."""
    local_fallback: bool = False
    """Whether HA's own agent may answer when no LLM does."""
    try_local: bool = False
    """No LLM answered and nothing was done or said yet: ask HA's own agent."""
    max_tokens: int = 0
    """The reply's length: past it, the spoken words are cut."""
    route: RouteState | None = None
    """The agent's route state: the Route sensor counts repaired tool calls."""
    effects: EffectWatch | None = None
    """What the turn's actions targeted; the words wait for it (bounded)."""
    reasoning_opened: set[str] = field(default_factory=set)
    """The connection's agents whose template opens reasoning in the prompt."""
    subentry_id: str = ""
    left: ForTheModel = ForTheModel()
    """What local first left: a question about the house is not answered unread."""
    heard: set[int] = field(default_factory=set)
    """The model calls whose text will not be spoken further (a loop, its length)."""


async def async_run_model(
    turn: TurnContext, history: list[Message], left: ForTheModel = ForTheModel()
) -> Ending:
    """Run the loop; never raises (but for cancellation): it always ends on words.

    `left`: what the local-first stage left to the model (and what it did).
    """
    hass, user_input, chat_log = turn.hass, turn.user_input, turn.chat_log
    subentry, agent_id = turn.subentry, turn.agent_id
    record = _TurnRecord(
        hass,
        user_input,
        chat_log,
        agent_id,
        subentry.data.get(CONF_CONFIRM_PIN) or None,
        intents=intent_types(chat_log.llm_api),
        # HA's agent would run again what local first ran of a compound command.
        local_fallback=subentry.data.get(CONF_LOCAL_FALLBACK, DEFAULT_LOCAL_FALLBACK)
        and not left.did,
        max_tokens=int(subentry.data.get(CONF_MAX_TOKENS, DEFAULT_MAX_TOKENS)),
        route=turn.entry.runtime_data.routes.get(subentry.subentry_id),
        effects=turn.effects,
        reasoning_opened=turn.entry.runtime_data.reasoning_opened,
        subentry_id=subentry.subentry_id,
        left=left,
    )
    try:
        found = turn.entry.runtime_data.capabilities.get(subentry.subentry_id)
        loop = build_loop(
            turn.provider, subentry, chat_log, found.context_tokens if found else None
        )
        sent = trim_to_budget(
            history,
            int(subentry.data.get(CONF_HISTORY_TOKENS, DEFAULT_HISTORY_TOKENS)),
        )
        events = loop.stream(
            user_input.text,
            sent,
            tool_specs(chat_log.llm_api),
            record.heard.__contains__,
        )
        deltas = _deltas(events, record)
        if wait := int(
            subentry.data.get(CONF_WAIT_PHRASE_AFTER, DEFAULT_WAIT_PHRASE_AFTER)
        ):
            deltas = await async_with_wait_phrase(
                hass, user_input.language, deltas, wait
            )
        async for _content in chat_log.async_add_delta_content_stream(agent_id, deltas):
            pass
    except Exception:  # noqa: BLE001 - whatever broke, the user must hear a reply
        LOGGER.exception(
            "Unexpected error in conversation %s; telling the user",
            chat_log.conversation_id,
        )
        record.said = Fallback(Problem.UNEXPECTED)

    error = record.result.error if record.result is not None else None
    if isinstance(error, LLMAuthError):
        turn.entry.async_start_reauth(hass)
    ending = Ending(record.said or Fallback(Problem.UNEXPECTED), asked=record.asked)
    if record.try_local:
        return await async_local_fallback(turn, error, ending)
    if (state := turn.entry.runtime_data.routes.get(subentry.subentry_id)) is not None:
        # Which model answered, and why the primary was skipped, for the debug view.
        chat_log.async_trace({"route": state.route.value, "reason": state.reason})
    return ending


async def _deltas(
    events: AsyncIterator[LoopEvent], record: _TurnRecord
) -> AsyncIterator[Delta]:
    """Translate loop events into chat-log deltas, cleaned for speech.

    Once an action has failed, the model's words wait: an answer after it may claim
    what did not happen, and the reply stage decides what is said (`_said`). So do
    its words on a state question until it reads the house (on a command HA found
    no device for, until it acts): a guess is not said.
    """
    voice = Voice(
        record.max_tokens,
        reasoning_opened=record.subentry_id in record.reasoning_opened,
    )
    streamed = ""
    read_only = read_only_tools(record.chat_log.llm_api)
    # The words waiting, once an action failed (or while a state question is unread).
    held: str | None = "" if record.left.about_the_house else None
    unread = record.left.about_the_house
    iteration = 0  # the model call whose text streams
    command = record.left.command
    async for event in events:
        if (
            held is None
            and isinstance(event, TextDelta | LoopFinished)
            and not await _shown_done(record)
        ):
            # Words after an action claim its result: not said unless the house shows it.
            held = ""
        match event:
            case LLMCallStarted(iteration=iteration):
                _learn_reasoning(record, voice)
                if (tail := voice.flush()) and held is None:
                    yield {"content": tail}
                streamed = ""
                held = None if held is None else ""
                yield {"role": "assistant"}
            case TextDelta(text=text):
                if (spoken := voice.feed(text)) and held is not None:
                    held += spoken
                elif spoken:
                    streamed += spoken
                    yield {"content": spoken}
                if voice.ended:  # the model need not write on
                    record.heard.add(iteration)
            case ToolCallsRequested(calls=calls):
                # Words before more calls claim no result: they may be said.
                tail = (held or "") + voice.flush()
                held = None if held is None or (unread and not command) else ""
                unread = unread and command  # a command waits for an action (below)
                if tail:
                    streamed += tail
                    yield {"content": tail}
                yield {
                    "tool_calls": [
                        llm.ToolInput(
                            id=call.id,
                            tool_name=call.name,
                            tool_args=call.arguments
                            if isinstance(call.arguments, dict)
                            else {"unparsed_arguments": call.arguments},
                            external=True,
                        )
                        for call in calls
                    ]
                }
                streamed = ""
            case ToolCallFinished(record=call):
                if call.repairs and not call.repeated:
                    note_repairs(record.chat_log, record.route, call)
                if unread and call.name not in read_only:  # a command's action
                    held, unread = None if call.ok else held, False
                if held is None and is_failed_action(call, read_only):
                    held = ""
                yield tool_result_delta(call)
            case LoopFinished(result=result):
                _learn_reasoning(record, voice)
                if (tail := voice.flush()) and held is None:
                    streamed += tail
                    yield {"content": tail}
                record.result = result
                record.said = await _said(result, streamed, record, voice.budget)


def _learn_reasoning(record: _TurnRecord, voice: Voice) -> None:
    """A model call that started inside reasoning: the agent's next words wait for its end.

    Asked before the voice's flush starts the next call anew. The pieces of this one
    before its end showed were in the chat log already.
    """
    if (
        record.subentry_id not in record.reasoning_opened
        and voice.started_inside_reasoning
    ):
        LOGGER.info(
            "The model's text starts inside a reasoning block its template opened;"
            " its words now wait for the block's end"
        )
        record.reasoning_opened.add(record.subentry_id)


async def _said(
    result: LoopResult, streamed: str, record: _TurnRecord, budget: int | None
) -> Said:
    """What the turn ends with: the model's answer, our question, or a fallback."""
    language = record.user_input.language
    read_only = read_only_tools(record.chat_log.llm_api)
    gate = (
        gate_of(record.chat_log.llm_api.llm_context)
        if record.chat_log.llm_api
        else None
    )
    if result.stop_reason is StopReason.CONFIRMATION and gate and gate.held:
        actions = list(gate.held.values())
        if not understood(language):
            # We could not judge the answer: nothing is held, nothing is run.
            LOGGER.warning(
                "Not asking to confirm %s: no yes/no words for language %r",
                ", ".join(f"{a.tool_name} {a.entity_ids}" for a in actions),
                language,
            )
            return NotAsked(await _done(result, record))
        question = hold_and_ask(
            record.hass,
            record.user_input,
            record.chat_log.conversation_id,
            record.agent_id,
            actions,
            done=await _done(result, record),
            pin=record.pin,
        )
        record.asked = isinstance(question, Question)
        return question
    answered = (
        result.stop_reason in (StopReason.FINAL, StopReason.ITERATION_CAP)
        and not result.summarized  # the cap's own reply tells what was not done
    )
    if (
        answered
        and record.left.guessed(result.tool_calls, read_only)
        and (home := await _home_words(record))
    ):
        # It answered without reading or doing what the words need: a guess ("The
        # kitchen light is on." while it is off, "Done." for a light there is not).
        LOGGER.info(
            "The model answered without reading the house or acting; saying Home"
            " Assistant's answer %r instead of %r",
            home,
            result.text[:200],
        )
        record.chat_log.async_trace({"state_answer": "home_assistant"})
        return HomeSaid(home, (), answer=result.text)
    failures = _untold(actions_failed(result, read_only, record.left.failed), record)
    if answered and (failures or not await _shown_done(record)):
        # The model may say "Done." after an error, or before the house shows it:
        # the user hears what the house shows.
        LOGGER.info(
            "Actions failed (%s) or not shown done (%s); saying so instead of the"
            " model's answer: %r",
            ", ".join(repr(f.unmatched) if f.unmatched else "error" for f in failures),
            summary(record.effects.effects) if record.effects else "",
            result.text[:200],
        )
        return Outcome(await _done(result, record), failures, result.text)
    fallback = Fallback(problem_for_result(result), await _done(result, record))
    if answered:
        return ModelAnswer(
            result,
            streamed,
            fallback,
            frozenset(read_only),
            budget,
        )
    LOGGER.warning(
        "Turn ended without an answer (%s%s); speaking a fallback",
        result.stop_reason,
        f": {result.error!r}" if result.error else "",
    )
    if (
        record.local_fallback
        and result.stop_reason in (StopReason.LLM_ERROR, StopReason.DEADLINE)
        and not result.tool_calls  # never after a tool ran: nothing is done twice
        and not streamed.strip()
    ):
        record.try_local = True  # HA's own agent may answer instead
    return fallback


async def _home_words(record: _TurnRecord) -> str | None:
    """Home Assistant's answer to the words: found nothing, or read now."""
    if record.left.home_words is not None:
        return record.left.home_words
    return await async_state_answer(record.hass, record.user_input, record.chat_log)


def _untold(failures: tuple[Failure, ...], record: _TurnRecord) -> tuple[Failure, ...]:
    """Failures not told entity by entity already (a service call's error)."""
    watched = {e.entity_id for e in record.effects.effects} if record.effects else set()
    return tuple(f for f in failures if not f.targets or not f.targets <= watched)


async def _shown_done(record: _TurnRecord) -> bool:
    """Whether the house shows every action so far done (waited for, bounded)."""
    if record.effects is None or not record.effects.effects:
        return True
    if not record.effects.settled:
        await record.effects.async_wait()
    return record.effects.all_done


async def _done(result: LoopResult, record: _TurnRecord) -> Done:
    """What the turn did, as the house shows it (waited for, bounded)."""
    read_only = frozenset(read_only_tools(record.chat_log.llm_api))
    if record.effects is None:
        return Done(actions=actions_done(result.tool_calls, read_only, record.intents))
    return Done(
        tuple(await record.effects.async_wait()), tuple(result.tool_calls), read_only
    )
