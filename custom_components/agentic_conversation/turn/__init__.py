"""One conversation turn, as one sequence of stages.

take held actions → tools and prompt → settle them, or what Home Assistant understands
(local first: the option, or a model that cannot act), or the model → reply → keep the
conversation.

Every route (the model and its fallback, HA's own agent, a held action's settlement, a
failure) returns what happened as an `Ending` (ending.py: done, failed and why, asked),
never words; the reply stage alone puts it into words (words/), writes them into the
chat log and builds the result, so no route can leave a satellite silent, the
dashboard without a conversation id, or the user told more than the house shows.
"""

from homeassistant.components import conversation

from ..agent import Message
from ..const import CONF_CONFIRM_PIN, CONF_TOOL_TIMEOUT, DEFAULT_TOOL_TIMEOUT
from ..ending import Ending
from ..verify.outcome import summary
from .budget_route import async_budget_route, budget_used_up
from .context import TurnContext
from .keep import find_history, keep_history
from .llm_data import async_provide_llm_data
from .local_first import ForTheModel, async_handle_locally, local_first
from .model_route import async_run_model
from .reply import async_reply
from .settle import Held, async_settle, take_held

__all__ = ["TurnContext", "async_handle_turn"]


async def async_handle_turn(turn: TurnContext) -> conversation.ConversationResult:
    """Run the turn's stages; always ends with words in the chat log and a result."""
    # Actions held last turn wait for these words; our code judges them.
    held = take_held(turn, turn.subentry.data.get(CONF_CONFIRM_PIN) or None)
    refused = await async_provide_llm_data(turn, held)
    if refused is not None:
        return await _async_reply(turn, refused)
    kept = find_history(turn)
    try:
        return await _async_reply(turn, await _async_route(turn, held, kept.earlier))
    finally:
        # Whatever the turn added to the chat log (also when cancelled) is kept.
        keep_history(turn, kept)
        turn.effects.close()


async def _async_reply(
    turn: TurnContext, ending: Ending
) -> conversation.ConversationResult:
    if effects := turn.effects.effects:
        # What the house showed of the turn's actions: the trace and the Route sensor.
        turn.chat_log.async_trace(
            {
                "verified": [
                    {
                        "entity_id": effect.entity_id,
                        "status": effect.status.value,
                        "reason": effect.reason.value if effect.reason else None,
                        "state": effect.state,
                    }
                    for effect in effects
                ],
                "verify_waited": round(turn.effects.waited, 3),
            }
        )
        routes = turn.entry.runtime_data.routes
        if (state := routes.get(turn.subentry.subentry_id)) is not None:
            state.note_verified(summary(effects))
    return await async_reply(turn.user_input, turn.chat_log, turn.agent_id, ending)


async def _async_route(
    turn: TurnContext, held: Held | None, history: list[Message]
) -> Ending:
    """Pick the route for these words and run it."""
    if held is not None:
        settled = await async_settle(
            turn.hass,
            held,
            turn.chat_log,
            agent_id=turn.agent_id,
            tool_timeout=float(
                turn.subentry.data.get(CONF_TOOL_TIMEOUT, DEFAULT_TOOL_TIMEOUT)
            ),
        )
        if settled is not None:
            return settled
    # The budget used up: no model call; what HA understands, else why not.
    if budget_used_up(turn):
        return await async_budget_route(turn)
    # Held actions were settled first: a "yes" never reaches the recogniser.
    left = await async_handle_locally(turn) if local_first(turn) else ForTheModel()
    if isinstance(left, Ending):
        return left
    return await async_run_model(turn, history, left)
