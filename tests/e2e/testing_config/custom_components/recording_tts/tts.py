"""The recording TTS entity (tts.recorder)."""

from collections.abc import AsyncGenerator
from typing import Any

from homeassistant.components.tts import TextToSpeechEntity
from homeassistant.components.tts.entity import TTSAudioRequest, TTSAudioResponse
from homeassistant.config_entries import ConfigEntry
from homeassistant.core import HomeAssistant
from homeassistant.helpers.entity_platform import AddConfigEntryEntitiesCallback


async def async_setup_entry(
    hass: HomeAssistant,
    entry: ConfigEntry,
    async_add_entities: AddConfigEntryEntitiesCallback,
) -> None:
    """Add the recorder."""
    async_add_entities([RecordingTTS()])


class RecordingTTS(TextToSpeechEntity):
    """Streaming-input TTS whose audio bytes are the UTF-8 text it received."""

    _attr_name = "Recorder"
    _attr_unique_id = "recorder"
    _attr_supported_languages = ["en", "de", "nl"]
    _attr_default_language = "en"

    async def async_stream_tts_audio(
        self, request: TTSAudioRequest
    ) -> TTSAudioResponse:
        """Collect the whole message; "speak" it as its own bytes."""
        message = "".join([chunk async for chunk in request.message_gen])

        async def audio() -> AsyncGenerator[bytes]:
            yield message.encode()

        return TTSAudioResponse("mp3", audio())

    async def async_get_tts_audio(
        self, message: str, language: str, options: dict[str, Any]
    ) -> tuple[str, bytes]:
        """Non-streamed requests: the same."""
        return "mp3", message.encode()
