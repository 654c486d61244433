"""Our own tools, offered to models as the `agentic_conversation` HA LLM API."""

from collections.abc import Callable

from homeassistant.core import HomeAssistant
from homeassistant.helpers import llm

from .llm_api import AgenticToolsAPI


def async_register_llm_api(hass: HomeAssistant) -> Callable[[], None]:
    """Register the API; returns the function that unregisters it."""
    return llm.async_register_api(hass, AgenticToolsAPI(hass))
