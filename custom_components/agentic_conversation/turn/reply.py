"""How every route ends: its words in the chat log, and a result HA accepts.

A satellite speaks only what streamed into the chat log; the websocket API and
`async_converse` need a result with the conversation id. Whatever route answered (the
model, the fallback model, HA's own agent, a held action's settlement, a failure), its
reply goes through here.
"""

from collections.abc import AsyncIterator
from dataclasses import dataclass, replace

from homeassistant.components import conversation
from homeassistant.exceptions import HomeAssistantError
from homeassistant.helpers import intent

from ..const import LOGGER
from ..replies import Problem

type Delta = (
    conversation.AssistantContentDeltaDict | conversation.ToolResultContentDeltaDict
)

# Problems the user caused by asking too much; the rest are ours or the server's.
_NOT_HANDLED = (Problem.ITERATION_CAP, Problem.EMPTY_ANSWER)


@dataclass(frozen=True, slots=True)
class Ending:
    """What a route said, and whether it is a problem or a question."""

    spoken: str
    problem: Problem | None = None
    asked: bool = False
    """A question about held actions: a satellite listens for the answer."""


async def async_reply(
    user_input: conversation.ConversationInput,
    chat_log: conversation.ChatLog,
    agent_id: str,
    ending: Ending,
) -> conversation.ConversationResult:
    """Make sure the chat log ends on the route's words; the result carries the id."""
    if not ending.spoken and not _ends_on_words(chat_log):
        # Nothing to say ("never mind"): the turn ends silently, as HA's agent ends it.
        chat_log.async_add_assistant_content_without_tools(
            conversation.AssistantContent(agent_id, content="")
        )
    elif not _ends_on_words(chat_log):
        # Said outside the stream (HA's own agent, a failure): TTS hears it only here.
        await async_say(chat_log, agent_id, ending.spoken)
    if ending.problem is not None:
        return error_result(
            user_input,
            ending.spoken,
            chat_log.conversation_id,
            code=intent.IntentResponseErrorCode.FAILED_TO_HANDLE
            if ending.problem in _NOT_HANDLED
            else intent.IntentResponseErrorCode.UNKNOWN,
        )
    try:
        result = conversation.async_get_result_from_chat_log(user_input, chat_log)
    except HomeAssistantError:  # pragma: no cover - the chat log ends on words
        LOGGER.exception("Chat log ended without an answer")
        return error_result(user_input, ending.spoken, chat_log.conversation_id)
    return replace(result, continue_conversation=True) if ending.asked else result


def _ends_on_words(chat_log: conversation.ChatLog) -> bool:
    last = chat_log.content[-1]
    return isinstance(last, conversation.AssistantContent) and bool(
        last.content and last.content.strip()
    )


def error_result(
    user_input: conversation.ConversationInput,
    speech: str,
    conversation_id: str | None,
    *,
    code: intent.IntentResponseErrorCode = intent.IntentResponseErrorCode.UNKNOWN,
) -> conversation.ConversationResult:
    """A result that speaks a problem instead of an answer."""
    response = intent.IntentResponse(language=user_input.language)
    response.async_set_error(code, speech)
    return conversation.ConversationResult(
        response=response, conversation_id=conversation_id
    )


async def async_say(chat_log: conversation.ChatLog, agent_id: str, text: str) -> None:
    """Add our own words to the chat log through its delta stream (TTS hears it)."""

    async def _words() -> AsyncIterator[Delta]:
        yield {"role": "assistant", "content": text}

    async for _content in chat_log.async_add_delta_content_stream(agent_id, _words()):
        pass
