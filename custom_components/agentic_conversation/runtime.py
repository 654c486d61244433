"""What a loaded connection holds while it runs, and its typed config entry."""

from dataclasses import dataclass, field

import openai

from homeassistant.config_entries import ConfigEntry

from .agent import EndpointCapabilities, RouteState
from .conversation_store import ConversationStore
from .memory import HouseholdMemory
from .usage.meter import UsageMeter


@dataclass(slots=True)
class AgenticRuntimeData:
    """What a loaded connection holds while it runs."""

    client: openai.AsyncOpenAI
    """The SDK client on HA's shared HTTP client, shared by the connection's agents."""
    models: list[str]
    """The models the server listed at setup."""
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


type AgenticConfigEntry = ConfigEntry[AgenticRuntimeData]
