"""The Agentic Conversation integration: any OpenAI-compatible LLM as an agent that acts."""

from homeassistant.const import CONF_API_KEY, Platform
from homeassistant.core import HomeAssistant
from homeassistant.exceptions import ConfigEntryAuthFailed
from homeassistant.helpers import config_validation as cv
from homeassistant.helpers.httpx_client import get_async_client
from homeassistant.helpers.typing import ConfigType

from .agent import LLMAuthError, LLMError, OpenAICompatibleProvider
from .agents import agent_subentries, metered_subentries
from .const import CONF_BASE_URL, DOMAIN, INTEGER_OPTIONS, LOGGER
from .endpoint_check import async_start_checks
from .kept.conversation_store import ConversationStore
from .kept.memory import SHARED_POOL, HouseholdMemory
from .redact import redact_url, redactor
from .routes import async_setup_routes
from .runtime import (
    AgenticConfigEntry,
    AgenticRuntimeData,
    async_forget_models,
    async_remember_models,
    async_remembered_models,
)
from .safety.pipelines import async_check_pipelines, async_watch_pipelines
from .tools import async_register_llm_api
from .understanding.stage import async_words
from .usage.budgets import async_forget_budgets, async_start_budgets

PLATFORMS = (Platform.AI_TASK, Platform.CONVERSATION, Platform.SENSOR, Platform.TODO)
CONFIG_SCHEMA = cv.config_entry_only_config_schema(DOMAIN)

# Setup only lists models; a server that cannot do that quickly is down for now.
SETUP_TIMEOUT = 10.0


async def async_setup(hass: HomeAssistant, config: ConfigType) -> bool:
    """Offer our tools to every agent as LLM APIs (alone, and with Assist's intents)."""
    async_register_llm_api(hass)
    return True


async def async_migrate_entry(hass: HomeAssistant, entry: AgenticConfigEntry) -> bool:
    """Bring a connection saved by an older version up to date."""
    if entry.version > 1:
        # Saved by a newer version of the integration: its data cannot be read here.
        return False
    if entry.minor_version < 2:
        # 1.2: whole-number options were stored as the UI's floats (1024.0).
        for subentry in entry.subentries.values():
            if any(isinstance(subentry.data.get(k), float) for k in INTEGER_OPTIONS):
                data = {
                    key: round(value)
                    if key in INTEGER_OPTIONS and isinstance(value, float)
                    else value
                    for key, value in subentry.data.items()
                }
                # HA skips an update whose data compares equal, and 1024.0 == 1024:
                # clear it first (nothing runs in between, the entry is not loaded).
                hass.config_entries.async_update_subentry(entry, subentry, data={})
                hass.config_entries.async_update_subentry(entry, subentry, data=data)
        # 1.2: the title was the base URL, with any credentials in it.
        hass.config_entries.async_update_entry(
            entry, title=redact_url(entry.title), minor_version=2
        )
    return True


async def async_setup_entry(hass: HomeAssistant, entry: AgenticConfigEntry) -> bool:
    """Connect to the server (listing its models proves it answers) and add agents.

    A refused key asks for a new one; a server that does not answer is not waited
    for: its agents load, on their local route until it answers.
    """
    base_url = entry.data[CONF_BASE_URL]
    provider = OpenAICompatibleProvider(
        base_url=base_url,
        api_key=entry.data.get(CONF_API_KEY),
        model="",
        http_client=get_async_client(hass),
        timeout=SETUP_TIMEOUT,
    )
    # Shown in the UI and logged by Home Assistant: without credentials.
    redact = redactor(entry.data)
    try:
        models = await provider.async_list_models()
    except LLMAuthError as err:
        raise ConfigEntryAuthFailed(
            translation_domain=DOMAIN,
            translation_key="setup_invalid_auth",
            translation_placeholders={"base_url": redact(base_url)},
        ) from err
    except LLMError as err:
        # Down at start-up (a power cut; the GPU box boots slower than HA): the agents
        # load on their local route, and a background check finds the server again.
        down: LLMError | None = err
        models = await async_remembered_models(hass, entry.entry_id)
        LOGGER.warning(
            "%s did not answer at start-up (%s); its agents answer without it until"
            " it does",
            redact(base_url),
            redact(str(err)),
        )
    else:
        down = None
        if models != await async_remembered_models(hass, entry.entry_id):
            await async_remember_models(hass, entry.entry_id, models)
    agent_ids = [subentry.subentry_id for subentry in agent_subentries(entry)]
    conversations = ConversationStore(hass, entry.entry_id)
    await conversations.async_load(agent_ids)
    memory = HouseholdMemory(hass, entry.entry_id)
    await memory.async_load()
    # A removed agent's memory goes with it (removing it reloads the connection).
    await memory.async_keep_pools([SHARED_POOL, *agent_ids])
    entry.runtime_data = AgenticRuntimeData(
        client=provider.client,
        models=models,
        conversations=conversations,
        memory=memory,
    )
    budgets = await async_start_budgets(hass, list(metered_subentries(entry)))
    entry.runtime_data.budgets = budgets
    for budget in budgets.values():
        entry.async_on_unload(budget.async_stop)
    async_setup_routes(hass, entry, down=down)
    await hass.config_entries.async_forward_entry_setups(entry, PLATFORMS)
    entry.async_on_unload(entry.add_update_listener(_async_reload))
    # A server that is down is probed when it answers again (routes.py).
    async_start_checks(hass, entry, probe=down is None)
    # Our reading of the home's language (HA's intents read from disk, our sentences
    # compiled): now, not in the first command HA's own sentences miss (0.2–0.7 s).
    entry.async_create_background_task(
        hass, async_words(hass, hass.config.language), f"{DOMAIN} language words"
    )
    async_watch_pipelines(hass)
    return True


async def async_unload_entry(hass: HomeAssistant, entry: AgenticConfigEntry) -> bool:
    """Unload a connection; the HTTP client is HA's and stays open."""
    if unloaded := await hass.config_entries.async_unload_platforms(entry, PLATFORMS):
        await entry.runtime_data.conversations.async_flush()
        async_check_pipelines(hass)  # its agents no longer count
    return unloaded


async def async_remove_entry(hass: HomeAssistant, entry: AgenticConfigEntry) -> None:
    """The connection is deleted: so are its agents' conversations and memories."""
    await ConversationStore(hass, entry.entry_id).async_remove()
    await HouseholdMemory(hass, entry.entry_id).async_remove()
    await async_forget_models(hass, entry.entry_id)
    await async_forget_budgets(hass, list(entry.subentries))


async def _async_reload(hass: HomeAssistant, entry: AgenticConfigEntry) -> None:
    """Apply changed connection data or agents."""
    await hass.config_entries.async_reload(entry.entry_id)
