"""Asking the user about held actions: kept for their yes, and the question in words.

The model route asks about what the model's calls held; the local-first step about an
intent Home Assistant recognised as risky. Both ask the same way. The same actions
asked for again right after an answer that was neither yes nor no are asked once more
with how to answer; after a second such answer they are dropped, and the user is told.
"""

from collections.abc import Sequence
from dataclasses import dataclass

from homeassistant.components import conversation
from homeassistant.core import HomeAssistant

from ..const import LOGGER
from ..done_actions import Action
from ..replies import async_render_dropped, async_render_question
from ..safety.confirmation import (
    MAX_UNCLEAR_ANSWERS,
    Asker,
    HeldAction,
    asks,
    async_hold,
    unclear_answers,
)


@dataclass(frozen=True, slots=True)
class Question:
    """What the user hears; `asked` unless the actions were dropped instead."""

    spoken: str
    asked: bool


async def async_hold_and_ask(
    hass: HomeAssistant,
    user_input: conversation.ConversationInput,
    conversation_id: str,
    agent_id: str,
    actions: list[HeldAction],
    *,
    done: Sequence[Action],
    pin: str | None,
) -> Question:
    """Keep the actions for the asker's next words; the question, after what was done."""
    asker = Asker.of(user_input)
    unclear = unclear_answers(hass, conversation_id, asker, actions)
    if unclear >= MAX_UNCLEAR_ANSWERS:
        LOGGER.info(
            "Conversation %s: not asking about %s again after %d unclear answers",
            conversation_id,
            ", ".join(f"{a.tool_name} {a.entity_ids}" for a in actions),
            unclear,
        )
        return Question(
            await async_render_dropped(hass, user_input.language, done), asked=False
        )
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
    spoken = await async_render_question(
        hass,
        user_input.language,
        asks(hass, actions),
        done,
        needs_pin=pending.needs_pin,
        how_to_answer=unclear > 0,
    )
    return Question(spoken, asked=True)
