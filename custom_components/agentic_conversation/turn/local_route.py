"""Home Assistant's own agent as a route: before a model that cannot act, after none answered."""

from ..agent import Route
from ..basic_assistant import async_ask_basic_assistant
from ..const import CONF_CONFIRM_ENTITIES, LOGGER
from ..redact import redact_url
from ..replies import async_phrase, local_preface_key
from .context import TurnContext
from .reply import Ending


def model_cannot_act(turn: TurnContext) -> bool:
    """The endpoint check found the model ignores tools, and the agent has tools."""
    capabilities = turn.entry.runtime_data.capabilities.get(turn.subentry.subentry_id)
    return (
        capabilities is not None
        and capabilities.tools is False
        and turn.chat_log.llm_api is not None
    )


async def _async_ask(turn: TurnContext) -> str | None:
    """The one call site of HA's own agent."""
    return await async_ask_basic_assistant(
        turn.hass,
        turn.user_input,
        turn.chat_log,
        turn.options.get(CONF_CONFIRM_ENTITIES) or (),
    )


async def async_local_first(turn: TurnContext) -> Ending | None:
    """A model that cannot act must not say it did: HA's agent takes the commands.

    None when HA's agent did not understand: the words go to the model.
    """
    said = await _async_ask(turn)
    if said is None:
        return None
    turn.chat_log.async_trace({"route": "local", "reason": "the model ignores tools"})
    return Ending(said)


async def async_local_fallback(
    turn: TurnContext, error: Exception | None, failure: Ending
) -> Ending:
    """No LLM answered: HA's own agent, else the failure already put into words."""
    said = await _async_ask(turn)
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
    template = await async_phrase(
        turn.hass, turn.user_input.language, local_preface_key(error)
    )
    return Ending(template.replace("{speech}", said))
