"""One conversation turn: HA's chat log in, our agentic loop, the chat log and a reply out.

Every step of the loop is written to the chat log as it happens (assistant text, tool
calls as external calls, tool results), so Assist's debug view and traces show the whole
turn and a streaming pipeline speaks text before the model is done. Whatever happens, the
turn ends with a non-empty assistant message in the chat log: that is what a voice
satellite speaks.
"""

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
import json
from typing import Any

from homeassistant.components import conversation
from homeassistant.config_entries import ConfigSubentry
from homeassistant.core import HomeAssistant
from homeassistant.exceptions import HomeAssistantError
from homeassistant.helpers import intent, llm

from . import AgenticConfigEntry
from .agent import (
    AgenticLoop,
    LLMAuthError,
    LLMCallStarted,
    LoopEvent,
    LoopFinished,
    LoopLimits,
    LoopResult,
    OpenAICompatibleProvider,
    StopReason,
    TextDelta,
    ToolCallFinished,
    ToolCallsRequested,
)
from .chat_history import content_to_messages, trim_to_budget
from .const import (
    CONF_HISTORY_TOKENS,
    CONF_MAX_ITERATIONS,
    CONF_TOOL_TIMEOUT,
    CONF_TURN_TIMEOUT,
    DEFAULT_HISTORY_TOKENS,
    DEFAULT_MAX_ITERATIONS,
    DEFAULT_TOOL_TIMEOUT,
    DEFAULT_TURN_TIMEOUT,
    LOGGER,
)
from .replies import Fallback, Problem, async_render, fallback_for
from .speech import SpeechStreamCleaner, clean_for_speech
from .tool_dispatch import ChatLogToolDispatcher, intent_types, no_tools, tool_specs

type Delta = (
    conversation.AssistantContentDeltaDict | conversation.ToolResultContentDeltaDict
)


@dataclass
class _TurnRecord:
    """What the chat-log writer saw, for composing the result."""

    result: LoopResult | None = None
    fallback: Fallback | None = None
    spoken: str = ""
    intents: dict[str, str] = field(default_factory=dict)
    """The intent of each offered intent tool, by offered name."""


async def async_run_turn(  # noqa: PLR0913, PLR0917 - the turn's whole context
    hass: HomeAssistant,
    entry: AgenticConfigEntry,
    subentry: ConfigSubentry,
    provider: OpenAICompatibleProvider,
    agent_id: str,
    user_input: conversation.ConversationInput,
    chat_log: conversation.ChatLog,
) -> conversation.ConversationResult:
    """Run one turn; never raises (but for cancellation): a reply is always spoken."""
    record = _TurnRecord(intents=intent_types(chat_log.llm_api))
    try:
        loop = _build_loop(provider, subentry, chat_log)
        history = trim_to_budget(
            content_to_messages(chat_log.content[1:-1]),
            int(subentry.data.get(CONF_HISTORY_TOKENS, DEFAULT_HISTORY_TOKENS)),
        )
        events = loop.stream(user_input.text, history, tool_specs(chat_log.llm_api))
        async for _content in chat_log.async_add_delta_content_stream(
            agent_id, _deltas(hass, user_input.language, events, record)
        ):
            pass
    except Exception:  # noqa: BLE001 - whatever broke, the user must hear a reply
        LOGGER.exception(
            "Unexpected error in conversation %s; telling the user",
            chat_log.conversation_id,
        )
        record.fallback = Fallback(Problem.UNEXPECTED)
        speech = await async_render(hass, user_input.language, record.fallback)
        chat_log.async_add_assistant_content_without_tools(
            conversation.AssistantContent(agent_id=agent_id, content=speech)
        )
        record.spoken = speech

    if record.result is not None and isinstance(record.result.error, LLMAuthError):
        entry.async_start_reauth(hass)

    if record.fallback is None:
        try:
            return conversation.async_get_result_from_chat_log(user_input, chat_log)
        except HomeAssistantError:  # pragma: no cover - the writer always ends on text
            LOGGER.exception("Chat log ended without an answer")
            record.fallback = Fallback(Problem.UNEXPECTED)
            record.spoken = await async_render(
                hass, user_input.language, record.fallback
            )
    response = intent.IntentResponse(language=user_input.language)
    code = (
        intent.IntentResponseErrorCode.FAILED_TO_HANDLE
        if record.fallback.problem in (Problem.ITERATION_CAP, Problem.EMPTY_ANSWER)
        else intent.IntentResponseErrorCode.UNKNOWN
    )
    response.async_set_error(code, record.spoken)
    return conversation.ConversationResult(
        response=response,
        conversation_id=chat_log.conversation_id,
        continue_conversation=False,
    )


def _build_loop(
    provider: OpenAICompatibleProvider,
    subentry: ConfigSubentry,
    chat_log: conversation.ChatLog,
) -> AgenticLoop:
    """The loop for this agent's options."""
    options = subentry.data
    turn_timeout = float(options.get(CONF_TURN_TIMEOUT, DEFAULT_TURN_TIMEOUT))
    system = chat_log.content[0]
    return AgenticLoop(
        provider,
        ChatLogToolDispatcher(chat_log.llm_api) if chat_log.llm_api else no_tools,
        LoopLimits(
            max_iterations=int(
                options.get(CONF_MAX_ITERATIONS, DEFAULT_MAX_ITERATIONS)
            ),
            tool_timeout=float(options.get(CONF_TOOL_TIMEOUT, DEFAULT_TOOL_TIMEOUT)),
            turn_timeout=turn_timeout,
        ),
        system_prompt=system.content
        if isinstance(system, conversation.SystemContent)
        else None,
    )


async def _deltas(
    hass: HomeAssistant,
    language: str,
    events: AsyncIterator[LoopEvent],
    record: _TurnRecord,
) -> AsyncIterator[Delta]:
    """Translate loop events into chat-log deltas, cleaned for speech."""
    cleaner = SpeechStreamCleaner()
    streamed = ""
    async for event in events:
        match event:
            case LLMCallStarted():
                if tail := cleaner.flush():
                    yield {"content": tail}
                cleaner = SpeechStreamCleaner()
                streamed = ""
                yield {"role": "assistant"}
            case TextDelta(text=text):
                if spoken := cleaner.feed(text):
                    streamed += spoken
                    yield {"content": spoken}
            case ToolCallsRequested(calls=calls):
                if tail := cleaner.flush():
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
                yield {
                    "role": "tool_result",
                    "tool_call_id": call.call_id,
                    "tool_name": call.name,
                    "result": llm.ToolResult(
                        data=_envelope_data(call.result), error=not call.ok
                    ),
                }
            case LoopFinished(result=result):
                if tail := cleaner.flush():
                    streamed += tail
                    yield {"content": tail}
                record.result = result
                async for delta in _finish(hass, language, result, streamed, record):
                    yield delta


async def _finish(
    hass: HomeAssistant,
    language: str,
    result: LoopResult,
    streamed: str,
    record: _TurnRecord,
) -> AsyncIterator[Delta]:
    """End the turn on words: the model's answer, or a spoken fallback."""
    answer = clean_for_speech(result.text)
    answered = (
        result.stop_reason in (StopReason.FINAL, StopReason.ITERATION_CAP)
        and not result.summarized
        and bool(answer)
    )
    if answered:
        if not streamed.strip():
            # e.g. a content-filter refusal or a non-streamed text: put it in the log
            yield {"role": "assistant", "content": answer}
        record.spoken = streamed.strip() or answer
        return
    record.fallback = fallback_for(result, record.intents)
    LOGGER.warning(
        "Turn ended without an answer (%s%s); speaking a fallback",
        result.stop_reason,
        f": {result.error!r}" if result.error else "",
    )
    record.spoken = await async_render(hass, language, record.fallback)
    yield {"role": "assistant", "content": record.spoken}


def _envelope_data(envelope: str) -> dict[str, Any]:
    """The tool result envelope as JSON data for the chat log."""
    try:
        data = json.loads(envelope)
    except ValueError:
        return {"success": False, "error": envelope}
    return data if isinstance(data, dict) else {"result": data}
