"""A local server's prompt cache warmed with the agent's system prompt and tools.

A model on a CPU reads a turn's 2-3 k prompt tokens in tens of seconds; llama.cpp and
Ollama keep the last prompt and read anew only what differs. So the first turn after
start, or after other requests replaced that cache, paid for all of it. The agent
builds its prompt and tools as a turn would and sends them once for a one-token answer:
when its endpoint check is done, and again `REWARM_AFTER` seconds after its last turn.
Only on servers that tell their context size (llama.cpp, Ollama: local ones); a cloud
API caches on its own and would bill the request.
"""

from collections.abc import Callable
from datetime import datetime
import time

from homeassistant.components import conversation
from homeassistant.config_entries import ConfigSubentry
from homeassistant.core import Context, HomeAssistant, callback
from homeassistant.helpers import entity_registry as er
from homeassistant.helpers.event import async_call_later
from homeassistant.util.ulid import ulid

from .agent import LLMError, OpenAICompatibleProvider
from .agent.messages import system_message, user_message
from .const import CONF_BASE_URL, CONF_MODEL, DOMAIN, LOGGER
from .offered_tools import tool_specs
from .runtime import AgenticConfigEntry
from .turn.context import TurnContext
from .turn.llm_data import async_provide_llm_data
from .verify.watch import EffectWatch

REWARM_AFTER = 300.0
"""Seconds after a turn before warming again (Ollama unloads a model after 5 min)."""
WARM_LIMIT = 300.0
"""A CPU-served model may take minutes to read the prompt the first time."""
WARM_TEXT = "(prompt cache warm-up)"
"""The user message of the warm-up request: the cache keeps what comes before it."""
_PENDING: dict[str, Callable[[], None]] = {}


def wants_warming(entry: AgenticConfigEntry, subentry: ConfigSubentry) -> bool:
    """A local server (it told its context size) and a model that calls tools."""
    found = entry.runtime_data.capabilities.get(subentry.subentry_id)
    return found is not None and bool(found.tools) and found.context_tokens is not None


async def async_warm(
    hass: HomeAssistant, entry: AgenticConfigEntry, subentry: ConfigSubentry
) -> float | None:
    """Send the agent's prompt and tools for one token; seconds taken (None: not)."""
    agent_id = er.async_get(hass).async_get_entity_id(
        conversation.DOMAIN, DOMAIN, subentry.subentry_id
    )
    if agent_id is None or not wants_warming(entry, subentry):
        return None
    user_input = conversation.ConversationInput(
        text="",
        context=Context(),
        conversation_id=None,
        device_id=None,
        satellite_id=None,
        language=hass.config.language,
        agent_id=agent_id,
    )
    chat_log = conversation.ChatLog(hass, ulid())
    provider = OpenAICompatibleProvider(
        base_url=entry.data[CONF_BASE_URL],
        api_key=None,
        model=str(subentry.data.get(CONF_MODEL, "")),
        max_tokens=1,
        temperature=0,
        timeout=WARM_LIMIT,
        client=entry.runtime_data.client,
    )
    # No tool runs here: the watch is only there because every turn has one.
    turn = TurnContext(
        hass,
        entry,
        subentry,
        provider,
        agent_id,
        user_input,
        chat_log,
        EffectWatch(hass, 0.0),
    )
    started = time.monotonic()
    try:
        if await async_provide_llm_data(turn, None) is not None:
            return None
        system = chat_log.content[0]
        if not isinstance(system, conversation.SystemContent):
            return None
        await provider.complete(
            [system_message(system.content), user_message(WARM_TEXT)],
            tool_specs(chat_log.llm_api),
        )
    except LLMError as err:
        LOGGER.debug("Warming the prompt cache for %s failed: %s", agent_id, err)
        return None
    seconds = time.monotonic() - started
    LOGGER.debug("Prompt cache warmed for %s in %.1f s", agent_id, seconds)
    return seconds


@callback
def async_rewarm_later(
    hass: HomeAssistant, entry: AgenticConfigEntry, subentry: ConfigSubentry
) -> None:
    """After a turn: warm again once the agent has been idle `REWARM_AFTER` s."""
    if not wants_warming(entry, subentry):
        return
    key = subentry.subentry_id
    if (cancel := _PENDING.pop(key, None)) is not None:
        cancel()

    @callback
    def _fire(_now: datetime) -> None:
        _PENDING.pop(key, None)
        entry.async_create_background_task(
            hass, async_warm(hass, entry, subentry), f"{DOMAIN} warm {subentry.title}"
        )

    _PENDING[key] = async_call_later(hass, REWARM_AFTER, _fire)


@callback
def async_stop_warming(subentry_id: str) -> None:
    """The agent unloads: no warming after it."""
    if (cancel := _PENDING.pop(subentry_id, None)) is not None:
        cancel()
