"""Asking the user about held actions: kept for their yes; the question, as data.

The model route asks about what the model's calls held; the local-first step about an
intent Home Assistant recognised as risky. Both ask the same way. The same actions
asked for again right after an answer that was neither yes nor no are asked once more
with how to answer; after a second such answer they are dropped, and the user is told.
"""

from homeassistant.components import conversation
from homeassistant.core import HomeAssistant

from ..const import LOGGER
from ..ending import Done, Dropped, Question
from ..safety.asks import asks
from ..safety.confirmation import (
    MAX_UNCLEAR_ANSWERS,
    Asker,
    HeldAction,
    async_hold,
    unclear_answers,
)


def hold_and_ask(
    hass: HomeAssistant,
    user_input: conversation.ConversationInput,
    conversation_id: str,
    agent_id: str,
    actions: list[HeldAction],
    *,
    done: Done,
    pin: str | None,
) -> Question | Dropped:
    """Keep the actions for the asker's next words: the question, after what was done."""
    asker = Asker.of(user_input)
    unclear = unclear_answers(hass, conversation_id, asker, actions)
    if unclear >= MAX_UNCLEAR_ANSWERS:
        LOGGER.info(
            "Conversation %s: not asking about %s again after %d unclear answers",
            conversation_id,
            ", ".join(f"{a.tool_name} {a.entity_ids}" for a in actions),
            unclear,
        )
        return Dropped(done)
    pending = async_hold(
        hass,
        conversation_id,
        agent_id,
        actions,
        user_input.context,
        pin=pin,
        asker=asker,
        unclear=unclear,
    )
    return Question(
        tuple(asks(hass, actions)),
        done,
        needs_pin=pending.needs_pin,
        how_to_answer=unclear > 0,
    )
