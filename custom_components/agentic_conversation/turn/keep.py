"""Keep the conversation: our history outlives HA's chat log (idle minutes, restarts)."""

from dataclasses import dataclass

from ..agent import Message
from ..const import CONF_DEVICE_CONTINUITY, DEFAULT_DEVICE_CONTINUITY
from ..kept.chat_history import content_to_messages
from ..kept.conversation_store import limits_of
from .context import TurnContext


@dataclass(slots=True)
class Kept:
    """The history before this turn, and where the turn's own content starts."""

    earlier: list[Message]
    start: int
    replaces: str | None


def find_history(turn: TurnContext) -> Kept:
    """The conversation so far: our store's, else HA's chat log before this message."""
    options, user_input, chat_log = turn.subentry.data, turn.user_input, turn.chat_log
    store = turn.entry.runtime_data.conversations
    continuity = options.get(CONF_DEVICE_CONTINUITY, DEFAULT_DEVICE_CONTINUITY)
    kept = store.find(
        turn.subentry.subentry_id,
        [user_input.conversation_id, chat_log.conversation_id],
        user_input.device_id
        if continuity and user_input.conversation_id is None
        else None,
        limits_of(options),
    )
    start = len(chat_log.content) - 1  # this turn's user message
    if kept:
        return Kept(kept[1].messages, start, kept[0])
    # Only this agent's exchanges: another agent may share the conversation id.
    return Kept(
        content_to_messages(chat_log.content[1:start], turn.agent_id), start, None
    )


def keep_history(turn: TurnContext, kept: Kept) -> None:
    """Record whatever the turn added to the chat log (also when it was cancelled)."""
    turn.entry.runtime_data.conversations.async_record(
        turn.subentry.subentry_id,
        turn.chat_log.conversation_id,
        [*kept.earlier, *content_to_messages(turn.chat_log.content[kept.start :])],
        device_id=turn.user_input.device_id,
        limits=limits_of(turn.subentry.data),
        replaces=kept.replaces,
    )
