"""Our own tools, offered to models as HA LLM APIs: alone, or with Assist's intents."""

from collections.abc import Callable

from homeassistant.core import HomeAssistant, callback
from homeassistant.helpers import llm

from .compact_api import CompactHomeAPI
from .llm_api import AgenticToolsAPI


def async_register_llm_api(hass: HomeAssistant) -> Callable[[], None]:
    """Register our APIs; returns the function that unregisters them."""
    unregister = [
        llm.async_register_api(hass, AgenticToolsAPI(hass)),
        llm.async_register_api(hass, CompactHomeAPI(hass)),
    ]

    @callback
    def unregister_all() -> None:
        for undo in unregister:
            undo()

    return unregister_all
