"""The route of an agent whose budget is used up: no model call.

What Home Assistant understands is still done (risky commands asked first), as local
first does it; anything else ends on one sentence saying why the model is not asked.
"""

from ..ending import Ending, Fallback, Problem, Words
from .context import TurnContext
from .local_first import async_handle_locally, async_state_answer


def budget_used_up(turn: TurnContext) -> bool:
    """The agent has a budget, and it is used up for this period."""
    budget = turn.entry.runtime_data.budgets.get(turn.subentry.subentry_id)
    return budget is not None and budget.refuses_turn()


async def async_budget_route(turn: TurnContext) -> Ending:
    """Home Assistant's recognition, else the budget sentence."""
    turn.chat_log.async_trace({"route": "local", "reason": "the budget is used up"})
    handled = await async_handle_locally(turn)
    if isinstance(handled, Ending):
        return handled
    if handled.state_question and (
        # No model to look: the house as Home Assistant reads it.
        answer := await async_state_answer(turn.hass, turn.user_input, turn.chat_log)
    ):
        return Ending(Words(answer))
    return Ending(Fallback(Problem.BUDGET_SPENT))
