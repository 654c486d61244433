"""What a loaded connection holds while it runs, its typed config entry, its models."""

from dataclasses import dataclass, field

import openai

from homeassistant.config_entries import ConfigEntry
from homeassistant.core import HomeAssistant
from homeassistant.helpers.storage import Store

from .agent import EndpointCapabilities, RouteState
from .const import DOMAIN
from .kept.conversation_store import ConversationStore
from .kept.memory import HouseholdMemory
from .usage.budget import Budget
from .usage.meter import UsageMeter


@dataclass(slots=True)
class AgenticRuntimeData:
    """What a loaded connection holds while it runs."""

    client: openai.AsyncOpenAI
    """The SDK client on HA's shared HTTP client, shared by the connection's agents."""
    models: list[str]
    """The models the server listed last (remembered while it is down)."""
    conversations: ConversationStore
    """The conversations the connection's agents keep, across restarts."""
    memory: HouseholdMemory
    """The facts the connection's agents remember."""
    capabilities: dict[str, EndpointCapabilities] = field(default_factory=dict)
    """What each agent's model did when probed at setup, by subentry id."""
    routes: dict[str, RouteState] = field(default_factory=dict)
    """Who answers each agent (primary, fallback...), by subentry id."""
    usage: dict[str, UsageMeter] = field(default_factory=dict)
    """The token usage of each agent and AI task, by subentry id."""
    budgets: dict[str, Budget] = field(default_factory=dict)
    """The spending budget of each agent and AI task that has one, by subentry id."""
    sees_images: dict[str, bool | None] = field(default_factory=dict)
    """Whether the server says each model takes images (None: it does not say)."""
    reasoning_opened: set[str] = field(default_factory=set)
    """The agents (subentry ids) whose model's text started inside a reasoning block
    its template opened in the prompt: their words wait for the block's end."""


type AgenticConfigEntry = ConfigEntry[AgenticRuntimeData]


def _models_store(hass: HomeAssistant, entry_id: str) -> Store[list[str]]:
    return Store(hass, 1, f"{DOMAIN}.{entry_id}.models")


async def async_remembered_models(hass: HomeAssistant, entry_id: str) -> list[str]:
    """The models the connection's server listed last, for when it is down."""
    models = await _models_store(hass, entry_id).async_load()
    return [model for model in models or () if isinstance(model, str)]


async def async_remember_models(
    hass: HomeAssistant, entry_id: str, models: list[str]
) -> None:
    """Keep what the server listed; its agents' forms offer it while it is down."""
    await _models_store(hass, entry_id).async_save(models)


async def async_forget_models(hass: HomeAssistant, entry_id: str) -> None:
    """The connection is deleted."""
    await _models_store(hass, entry_id).async_remove()
