"""Asking the user about held actions: kept for their yes, and the question in words.

The model route asks about what the model's calls held; the local-first step about an
intent Home Assistant recognised as risky. Both ask the same way.
"""

from collections.abc import Sequence

from homeassistant.components import conversation
from homeassistant.core import HomeAssistant

from ..done_actions import Action
from ..replies import async_render_question
from ..safety.confirmation import Asker, HeldAction, asks, async_hold


async def async_hold_and_ask(
    hass: HomeAssistant,
    user_input: conversation.ConversationInput,
    conversation_id: str,
    agent_id: str,
    actions: list[HeldAction],
    *,
    done: Sequence[Action],
    pin: str | None,
) -> str:
    """Keep the actions for the asker's next words; the question, after what was done."""
    pending = async_hold(
        hass,
        conversation_id,
        agent_id,
        actions,
        user_input.context,
        pin=pin,
        asker=Asker.of(user_input),
    )
    return await async_render_question(
        hass,
        user_input.language,
        asks(hass, actions),
        done,
        needs_pin=pending.needs_pin,
    )
