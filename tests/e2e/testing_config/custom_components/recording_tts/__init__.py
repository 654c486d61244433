"""A streaming-input TTS for the e2e tests: its "audio" is the text it was asked to say.

Fetching the TTS URL of a pipeline run therefore shows exactly what a voice satellite
would have spoken.
"""

from homeassistant.config_entries import SOURCE_IMPORT, ConfigEntry
from homeassistant.const import Platform
from homeassistant.core import HomeAssistant
from homeassistant.helpers.typing import ConfigType

DOMAIN = "recording_tts"


async def async_setup(hass: HomeAssistant, config: ConfigType) -> bool:
    """Create the config entry on first start."""
    if not hass.config_entries.async_entries(DOMAIN):
        hass.async_create_task(
            hass.config_entries.flow.async_init(
                DOMAIN, context={"source": SOURCE_IMPORT}, data={}
            )
        )
    return True


async def async_setup_entry(hass: HomeAssistant, entry: ConfigEntry) -> bool:
    """Add the TTS entity."""
    await hass.config_entries.async_forward_entry_setups(entry, [Platform.TTS])
    return True


async def async_unload_entry(hass: HomeAssistant, entry: ConfigEntry) -> bool:
    """Remove it."""
    return await hass.config_entries.async_unload_platforms(entry, [Platform.TTS])
