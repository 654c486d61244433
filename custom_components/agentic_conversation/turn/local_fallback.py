"""Home Assistant's own agent as the last route: no model answered.

HA's default agent recognises and runs the words offline (basic_assistant.py); a
risky command is not run, and the user hears that it needs the AI service. A model
that answers but cannot act is the local-first stage's (local_first.py).
"""

from ..agent import Route
from ..basic_assistant import LocalStatus, async_run_local_route
from ..const import CONF_CONFIRM_ENTITIES, LOGGER
from ..ending import Ending, HomeSaid, local_preface_key
from ..redact import redact_url
from .context import TurnContext


async def async_local_fallback(
    turn: TurnContext, error: Exception | None, failure: Ending
) -> Ending:
    """No LLM answered: HA's own agent, else the failure."""
    outcome = await async_run_local_route(
        turn.hass,
        turn.user_input,
        turn.chat_log,
        turn.subentry.data.get(CONF_CONFIRM_ENTITIES) or (),
        effects=turn.effects,
    )
    said = outcome.speech if outcome.answered else None
    reason = f"no model answered: {error}" if error else "no model answered in time"
    route = Route.LOCAL if said is not None else Route.DOWN
    if (
        state := turn.entry.runtime_data.routes.get(turn.subentry.subentry_id)
    ) is not None:
        state.report(route, reason=reason, error=redact_url(str(error or reason)))
    turn.chat_log.async_trace({"route": route.value, "reason": reason})
    if said is None:
        return failure
    LOGGER.warning("No LLM answered (%r); Home Assistant's own agent did", error)
    # HA's words only when the house shows them true; "Kitchen fan or Bedroom fan?":
    # the satellite listens for the answer.
    return Ending(
        HomeSaid(
            said,
            tuple(await turn.effects.async_wait()),
            preface=local_preface_key(error),
            fits=not outcome.narrowed,
        ),
        asked=outcome.status is LocalStatus.ASKED,
    )
