"""How every route ends: its words in the chat log, and a result HA accepts.

A satellite speaks only what streamed into the chat log; the websocket API and
`async_converse` need a result with the conversation id. Whatever route answered (the
model, the fallback model, HA's own agent, a held action's settlement, a failure), its
reply goes through here.
"""

from collections.abc import AsyncIterator
from dataclasses import replace

from homeassistant.components import conversation
from homeassistant.core import HomeAssistant
from homeassistant.exceptions import HomeAssistantError
from homeassistant.helpers import intent

from ..const import LOGGER
from ..ending import Ending, Fallback, Problem
from ..words.render import async_words
from ..words.replies import async_phrase
from ..words.speech import SpeechStreamCleaner, speech_budget
from ..words.wait_phrase import say_while_waiting

type Delta = (
    conversation.AssistantContentDeltaDict | conversation.ToolResultContentDeltaDict
)

# Problems the user caused by asking too much; the rest are ours or the server's.
_NOT_HANDLED = (Problem.ITERATION_CAP, Problem.EMPTY_ANSWER)


async def async_reply(
    user_input: conversation.ConversationInput,
    chat_log: conversation.ChatLog,
    agent_id: str,
    ending: Ending,
) -> conversation.ConversationResult:
    """The ending in words, at the end of the chat log; the result carries the id."""
    try:
        spoken = await async_words(chat_log.hass, user_input.language, ending.said)
    except Exception:  # noqa: BLE001 - whatever broke, the user must hear a reply
        LOGGER.exception(
            "Putting conversation %s's ending into words failed; telling the user",
            chat_log.conversation_id,
        )
        spoken = await async_words(
            chat_log.hass, user_input.language, Fallback(Problem.UNEXPECTED)
        )
    if spoken.streamed:
        pass  # the model's own words, streamed into the chat log as they came
    elif spoken.text:
        if not _ends_on(chat_log, spoken.text):
            # Said after the stream: TTS hears only what goes through the stream.
            await async_say(chat_log, agent_id, spoken.text)
    elif not _ends_on_words(chat_log):
        # Nothing to say ("never mind"): the turn ends silently, as HA's agent ends it.
        chat_log.async_add_assistant_content_without_tools(
            conversation.AssistantContent(agent_id, content="")
        )
    if spoken.problem is not None:
        return error_result(
            user_input,
            spoken.text,
            chat_log.conversation_id,
            code=intent.IntentResponseErrorCode.FAILED_TO_HANDLE
            if spoken.problem in _NOT_HANDLED
            else intent.IntentResponseErrorCode.UNKNOWN,
        )
    try:
        result = conversation.async_get_result_from_chat_log(user_input, chat_log)
    except HomeAssistantError:  # pragma: no cover - the chat log ends on words
        LOGGER.exception("Chat log ended without an answer")
        return error_result(user_input, spoken.text, chat_log.conversation_id)
    return replace(result, continue_conversation=True) if ending.asked else result


async def async_problem_result(
    hass: HomeAssistant,
    user_input: conversation.ConversationInput,
    problem: Problem,
) -> conversation.ConversationResult:
    """A turn that could not start (the conversation is busy): the problem in words."""
    spoken = await async_words(hass, user_input.language, Fallback(problem))
    return error_result(user_input, spoken.text, user_input.conversation_id)


class Voice:
    """The model's streamed text as it will be heard: cleaned, within the budget."""

    def __init__(self, max_tokens: int, *, reasoning_opened: bool = False) -> None:
        """A voice for a reply of at most `max_tokens` tokens.

        `reasoning_opened`: the model's template opens reasoning in the prompt (its
        text is held until the block's end shows).
        """
        self.budget = speech_budget(max_tokens)
        self._opened = reasoning_opened
        self._cleaner = SpeechStreamCleaner(self.budget, reasoning_opened=self._opened)

    @property
    def started_inside_reasoning(self) -> bool:
        """Whether this model call's text started inside a reasoning block."""
        return self._cleaner.started_inside_reasoning

    @property
    def ended(self) -> bool:
        """Whether no more of this model call's text will be spoken (a loop, its length)."""
        return self._cleaner.ended

    def feed(self, text: str) -> str:
        """What of the text so far may be spoken now."""
        return self._cleaner.feed(text)

    def flush(self) -> str:
        """The rest, at the end of one model call; the next starts anew."""
        tail = self._cleaner.flush()
        self._cleaner = SpeechStreamCleaner(self.budget, reasoning_opened=self._opened)
        return tail


async def async_with_wait_phrase(
    hass: HomeAssistant,
    language: str,
    deltas: AsyncIterator[Delta],
    after: float,
) -> AsyncIterator[Delta]:
    """The deltas, with "One moment." put in when tools run longer than `after` s."""
    phrase: Delta = {"content": await async_phrase(hass, language, "wait_phrase")}
    return say_while_waiting(deltas, after, phrase)


def _ends_on(chat_log: conversation.ChatLog, text: str) -> bool:
    last = chat_log.content[-1]
    return isinstance(last, conversation.AssistantContent) and last.content == text


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
