"""The Agentic Conversation integration: any OpenAI-compatible LLM as an agent that acts."""

from dataclasses import dataclass

from homeassistant.config_entries import ConfigEntry
from homeassistant.core import HomeAssistant

from .const import CONF_BASE_URL


@dataclass(slots=True)
class AgenticRuntimeData:
    """What a loaded entry holds while it runs."""

    base_url: str


type AgenticConfigEntry = ConfigEntry[AgenticRuntimeData]


async def async_setup_entry(hass: HomeAssistant, entry: AgenticConfigEntry) -> bool:
    """Set up a connection to an OpenAI-compatible server."""
    entry.runtime_data = AgenticRuntimeData(base_url=entry.data[CONF_BASE_URL])
    return True


async def async_unload_entry(hass: HomeAssistant, entry: AgenticConfigEntry) -> bool:
    """Unload a connection."""
    return True
