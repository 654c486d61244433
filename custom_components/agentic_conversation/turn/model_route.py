"""The model route: HA's chat log in, our agentic loop, the chat log and its words out.

Every step of the loop is written to the chat log as it happens (assistant text, tool
calls as external calls, tool results), so Assist's debug view and traces show the whole
turn and a streaming pipeline speaks text before the model is done. Whatever happens, the
route ends on words (an answer, our question, a fallback) for the reply stage.
"""

from collections.abc import AsyncIterator
from dataclasses import dataclass, field, replace

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
    ToolCallRecord,
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
from ..data_words import async_data_words
from ..done_actions import Action, actions_done
from ..failed_actions import Failure, actions_failed, closing_question, is_failed_action
from ..kept.chat_history import trim_to_budget
from ..languages import understood
from ..replies import (
    Fallback,
    Problem,
    async_phrase,
    async_render,
    async_render_not_asked,
    fallback_for,
)
from ..speech import SpeechStreamCleaner, clean_for_speech, speech_budget
from ..tool_dispatch import intent_types, tool_specs
from ..tool_options import gate_of
from ..verify.outcome import summary
from ..verify.watch import EffectWatch
from ..wait_phrase import say_while_waiting
from ..words.effects import async_render_outcome, async_told_actions
from .ask import async_hold_and_ask
from .context import TurnContext
from .local_fallback import async_local_fallback
from .model_loop import build_loop
from .reply import Delta, Ending, async_say
from .tool_log import read_only_tools, tool_result_delta


@dataclass
class _TurnRecord:
    """The turn's context, and what the chat-log writer saw, for composing the result."""

    hass: HomeAssistant
    user_input: conversation.ConversationInput
    chat_log: conversation.ChatLog
    agent_id: str
    pin: str | None
    result: LoopResult | None = None
    fallback: Fallback | None = None
    spoken: str = ""
    asked: bool = False
    """The turn ended on our question about held actions."""
    intents: dict[str, str] = field(default_factory=dict)
    """The intent of each offered intent tool, by offered name."""
    local_fallback: bool = False
    """Whether HA's own agent may answer when no LLM does."""
    try_local: bool = False
    """No LLM answered and nothing was done or said yet: ask HA's own agent."""
    speech_budget: int | None = None
    """The characters a reply may have: past them, it is cut (max_tokens ignored)."""
    route: RouteState | None = None
    """The agent's route state: the Route sensor counts repaired tool calls."""
    effects: EffectWatch | None = None
    """What the turn's actions targeted; the words wait for it (bounded)."""


async def async_run_model(turn: TurnContext, history: list[Message]) -> Ending:
    """Run the loop; never raises (but for cancellation): it always ends on words."""
    hass, user_input, chat_log = turn.hass, turn.user_input, turn.chat_log
    subentry, agent_id = turn.subentry, turn.agent_id
    record = _TurnRecord(
        hass,
        user_input,
        chat_log,
        agent_id,
        subentry.data.get(CONF_CONFIRM_PIN) or None,
        intents=intent_types(chat_log.llm_api),
        local_fallback=subentry.data.get(CONF_LOCAL_FALLBACK, DEFAULT_LOCAL_FALLBACK),
        speech_budget=speech_budget(
            int(subentry.data.get(CONF_MAX_TOKENS, DEFAULT_MAX_TOKENS))
        ),
        route=turn.entry.runtime_data.routes.get(subentry.subentry_id),
        effects=turn.effects,
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
        events = loop.stream(user_input.text, sent, tool_specs(chat_log.llm_api))
        deltas = _deltas(events, record)
        if wait := int(
            subentry.data.get(CONF_WAIT_PHRASE_AFTER, DEFAULT_WAIT_PHRASE_AFTER)
        ):
            phrase = await async_phrase(hass, user_input.language, "wait_phrase")
            deltas = say_while_waiting(deltas, wait, {"content": phrase})
        async for _content in chat_log.async_add_delta_content_stream(agent_id, deltas):
            pass
    except Exception:  # noqa: BLE001 - whatever broke, the user must hear a reply
        LOGGER.exception(
            "Unexpected error in conversation %s; telling the user",
            chat_log.conversation_id,
        )
        record.fallback = Fallback(Problem.UNEXPECTED)
        record.spoken = await async_render(hass, user_input.language, record.fallback)
        # Through the delta stream now: a pipeline that already speaks says it too.
        await async_say(chat_log, agent_id, record.spoken)

    error = record.result.error if record.result is not None else None
    if isinstance(error, LLMAuthError):
        turn.entry.async_start_reauth(hass)
    ending = Ending(
        record.spoken,
        problem=record.fallback.problem if record.fallback is not None else None,
        asked=record.asked,
    )
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
    what did not happen, and the reply stage decides what is said (`_finish`).
    """
    cleaner = SpeechStreamCleaner(record.speech_budget)
    streamed = ""
    read_only = read_only_tools(record.chat_log.llm_api)
    held: str | None = None  # the words waiting, once an action failed
    async for event in events:
        if (
            held is None
            and isinstance(event, TextDelta | LoopFinished)
            and not await _shown_done(record)
        ):
            # Words after an action claim its result: not said unless the house shows it.
            held = ""
        match event:
            case LLMCallStarted():
                if (tail := cleaner.flush()) and held is None:
                    yield {"content": tail}
                cleaner = SpeechStreamCleaner(record.speech_budget)
                streamed = ""
                held = None if held is None else ""
                yield {"role": "assistant"}
            case TextDelta(text=text):
                if (spoken := cleaner.feed(text)) and held is not None:
                    held += spoken
                elif spoken:
                    streamed += spoken
                    yield {"content": spoken}
            case ToolCallsRequested(calls=calls):
                # Words before more calls claim no result: they may be said.
                tail = (held or "") + cleaner.flush()
                held = None if held is None else ""
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
                    _note_repairs(record, call)
                if held is None and is_failed_action(call, read_only):
                    held = ""
                yield tool_result_delta(call)
            case LoopFinished(result=result):
                if (tail := cleaner.flush()) and held is None:
                    streamed += tail
                    yield {"content": tail}
                record.result = result
                async for delta in _finish(result, streamed, record):
                    yield delta


async def _finish(
    result: LoopResult, streamed: str, record: _TurnRecord
) -> AsyncIterator[Delta]:
    """End the turn on words: the model's answer, our question, or a fallback."""
    hass, language = record.hass, record.user_input.language
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
            record.spoken = await async_render_not_asked(
                hass,
                language,
                await _told(result, record),
            )
            yield {"role": "assistant", "content": record.spoken}
            return
        question = await async_hold_and_ask(
            hass,
            record.user_input,
            record.chat_log.conversation_id,
            record.agent_id,
            actions,
            done=await _told(result, record),
            pin=record.pin,
        )
        record.asked, record.spoken = question.asked, question.spoken
        yield {"role": "assistant", "content": record.spoken}
        return
    # A streamed answer was cut (and logged) as it streamed.
    answer = clean_for_speech(
        result.text, None if streamed.strip() else record.speech_budget
    )
    answered = (
        result.stop_reason in (StopReason.FINAL, StopReason.ITERATION_CAP)
        and not result.summarized
        and bool(answer)
    )
    if (
        result.stop_reason in (StopReason.FINAL, StopReason.ITERATION_CAP)
        and not result.summarized  # the cap's own reply tells what was not done
        and (
            (failures := _untold(actions_failed(result, read_only), record))
            or not await _shown_done(record)
        )
    ):
        # The model may say "Done." after an error, or before the house shows it:
        # the user hears what the house shows.
        LOGGER.info(
            "Actions failed (%s) or not shown done (%s); saying so instead of the"
            " model's answer: %r",
            ", ".join(repr(f.unmatched) if f.unmatched else "error" for f in failures),
            summary(record.effects.effects) if record.effects else "",
            answer[:200],
        )
        record.spoken = await async_render_outcome(
            hass,
            language,
            await _told(result, record),
            failures,
            closing_question(answer),
        )
        yield {"role": "assistant", "content": record.spoken}
        return
    # Issue 40: an answer that was only data (JSON, YAML, code), or words that
    # only lead to it ("Here it is:"), is said in words after them.
    if words := await async_data_words(
        hass,
        language,
        result,
        answer,
        actions_done(result.tool_calls, read_only, record.intents),
        read_only=read_only,
    ):
        record.spoken = words
        yield {"role": "assistant", "content": words}
        return
    if answered:
        if not streamed.strip():
            # e.g. a content-filter refusal or a non-streamed text: put it in the log
            yield {"role": "assistant", "content": answer}
        record.spoken = streamed.strip() or answer
        return
    record.fallback = replace(
        fallback_for(result, read_only, record.intents),
        done=tuple(await _told(result, record)),
    )
    LOGGER.warning(
        "Turn ended without an answer (%s%s); speaking a fallback",
        result.stop_reason,
        f": {result.error!r}" if result.error else "",
    )
    record.spoken = await async_render(hass, language, record.fallback)
    if (
        record.local_fallback
        and result.stop_reason in (StopReason.LLM_ERROR, StopReason.DEADLINE)
        and not result.tool_calls  # never after a tool ran: nothing is done twice
        and not streamed.strip()
    ):
        record.try_local = True  # said after the stream: HA's agent writes the log
        return
    yield {"role": "assistant", "content": record.spoken}


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


async def _told(result: LoopResult, record: _TurnRecord) -> list[Action]:
    """What the turn did, as the house shows it, for words before a problem."""
    read_only = read_only_tools(record.chat_log.llm_api)
    if record.effects is None:
        return list(actions_done(result.tool_calls, read_only, record.intents))
    return await async_told_actions(
        record.hass,
        record.user_input.language,
        await record.effects.async_wait(),
        result.tool_calls,
        read_only,
    )


def _note_repairs(record: _TurnRecord, call: ToolCallRecord) -> None:
    """A call the model slipped on, for the trace and the Route sensor."""
    record.chat_log.async_trace(
        {
            "tool_call_repaired": {
                "tool_call_id": call.call_id,
                "tool_name": call.name,
                "repairs": list(call.repairs),
            }
        }
    )
    if record.route is not None:
        record.route.note_repair(call.name, call.repairs)
