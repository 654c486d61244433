"""Created from configuration only."""

from typing import Any

from homeassistant.config_entries import ConfigFlow, ConfigFlowResult


class RecordingTTSFlow(ConfigFlow, domain="recording_tts"):
    """One entry, made on import."""

    VERSION = 1

    async def async_step_import(self, import_data: dict[str, Any]) -> ConfigFlowResult:
        """Create the entry."""
        return self.async_create_entry(title="Recorder", data={})
