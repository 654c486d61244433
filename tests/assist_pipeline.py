"""A voice satellite in tests: a recording streaming TTS and `assist_pipeline/run`.

Once text has streamed into the chat log, a pipeline with a streaming-input TTS speaks
only the chat log's assistant deltas; the recorder keeps exactly what it was asked to say.
"""

from collections.abc import AsyncGenerator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import pytest
from pytest_homeassistant_custom_component.common import (
    MockConfigEntry,
    MockModule,
    MockPlatform,
    mock_config_flow,
    mock_integration,
    mock_platform,
)

from homeassistant.components import conversation, tts
from homeassistant.components.tts.const import DATA_TTS_MANAGER
from homeassistant.components.tts.entity import TTSAudioRequest
from homeassistant.config_entries import ConfigEntry, ConfigFlow
from homeassistant.const import Platform
from homeassistant.core import Context, HomeAssistant
from homeassistant.helpers.entity_platform import AddConfigEntryEntitiesCallback
from homeassistant.setup import async_setup_component

TTS_DOMAIN = "recording_tts"

type Ask = Callable[[str, str | None], Awaitable[dict[str, Any]]]
"""Say a sentence (in a conversation); the result as HA's websocket API sends it."""


class RecordingTTS(tts.TextToSpeechEntity):
    """A streaming-input TTS engine that remembers what it was asked to say."""

    _attr_name = "Recorder"
    _attr_supported_languages = ["en", "de", "fr"]
    _attr_default_language = "en"

    def __init__(self) -> None:
        """Nothing said yet."""
        self.said: list[str] = []

    async def async_stream_tts_audio(
        self, request: TTSAudioRequest
    ) -> tts.TTSAudioResponse:
        """Record the whole streamed message; return a tiny "audio" stream."""
        message = "".join([chunk async for chunk in request.message_gen])
        self.said.append(message)

        async def audio() -> AsyncGenerator[bytes]:
            yield b"ID3"

        return tts.TTSAudioResponse("mp3", audio())

    async def async_get_tts_audio(
        self, message: str, language: str, options: dict[str, Any]
    ) -> tts.TtsAudioType:
        """Record a message said whole (a short reply is not streamed)."""
        self.said.append(message)
        return "mp3", b"ID3"


class _RecorderFlow(ConfigFlow):
    """The recorder's (unused) config flow: a config entry needs a handler."""

    VERSION = 1


@asynccontextmanager
async def recording_tts(hass: HomeAssistant) -> AsyncGenerator[RecordingTTS]:
    """A recording TTS entity, set up through a config entry like a real one."""
    engine = RecordingTTS()

    async def setup_entry(hass: HomeAssistant, entry: ConfigEntry) -> bool:
        await hass.config_entries.async_forward_entry_setups(entry, [Platform.TTS])
        return True

    async def setup_platform(
        hass: HomeAssistant,
        entry: ConfigEntry,
        async_add_entities: AddConfigEntryEntitiesCallback,
    ) -> None:
        async_add_entities([engine])

    # A custom integration, as a TTS add-on would be: HA 2026.10 wants a boolean from
    # async_setup_entry, 2026.11 accepts one from custom integrations only.
    mock_integration(
        hass, MockModule(TTS_DOMAIN, async_setup_entry=setup_entry), built_in=False
    )
    mock_platform(
        hass, f"{TTS_DOMAIN}.tts", MockPlatform(async_setup_entry=setup_platform)
    )
    mock_platform(hass, f"{TTS_DOMAIN}.config_flow")
    assert await async_setup_component(hass, "tts", {})
    # The test config folder (and its TTS disk cache) is shared by every test run: a
    # message cached by another run would never reach the recorder.
    hass.data[DATA_TTS_MANAGER].use_file_cache = False
    with mock_config_flow(TTS_DOMAIN, _RecorderFlow):
        entry = MockConfigEntry(domain=TTS_DOMAIN)
        entry.add_to_hass(hass)
        assert await hass.config_entries.async_setup(entry.entry_id)
        await hass.async_block_till_done()
        yield engine


async def use_pipeline(ws: Any, agent: str, language: str = "en") -> None:
    """Make a pipeline of the agent and the recorder, in a language, the preferred one."""
    await ws.send_json_auto_id(
        {
            "type": "assist_pipeline/pipeline/create",
            "conversation_engine": agent,
            "conversation_language": language,
            "language": language,
            "name": "Satellite",
            "stt_engine": None,
            "stt_language": None,
            "tts_engine": "tts.recorder",
            "tts_language": language,
            "tts_voice": None,
            "wake_word_entity": None,
            "wake_word_id": None,
        }
    )
    msg = await ws.receive_json()
    assert msg["success"], msg
    await ws.send_json_auto_id(
        {
            "type": "assist_pipeline/pipeline/set_preferred",
            "pipeline_id": msg["result"]["id"],
        }
    )
    assert (await ws.receive_json())["success"]


async def open_satellite(
    hass: HomeAssistant, hass_ws_client: Any, agent: str, language: str = "en"
) -> Any:
    """A websocket client whose preferred pipeline is the agent and the recorder."""
    assert await async_setup_component(hass, "assist_pipeline", {})
    ws = await hass_ws_client(hass)
    await use_pipeline(ws, agent, language)
    return ws


async def run_pipeline(
    hass: HomeAssistant,
    ws: Any,
    http: Any,
    text: str,
    language: str = "en",
    *,
    conversation_id: str | None = None,
    on_event: Callable[[dict[str, Any]], None] | None = None,
) -> tuple[dict[str, Any], str]:
    """Run intent → tts like a satellite; return the intent output and the TTS URL."""
    await ws.send_json_auto_id(
        {
            "type": "assist_pipeline/run",
            "start_stage": "intent",
            "end_stage": "tts",
            "input": {"text": text},
            "conversation_id": conversation_id,
        }
    )
    msg = await ws.receive_json()
    assert msg["success"], msg
    intent_output: dict[str, Any] = {}
    url = ""
    while True:
        msg = await ws.receive_json()
        event = msg["event"]
        if on_event is not None:
            on_event(event)
        if event["type"] == "intent-end":
            intent_output = event["data"]["intent_output"]
        elif event["type"] == "tts-end":
            url = event["data"]["tts_output"]["url"]
        elif event["type"] == "error":
            pytest.fail(f"pipeline error: {event['data']}")
        elif event["type"] == "run-end":
            break
    response = await http.get(url)
    assert response.status == 200
    await response.read()
    return intent_output, url


async def door_to(
    hass: HomeAssistant,
    door: str,
    agent: str,
    hass_ws_client: Any,
    hass_client: Any,
) -> Ask:
    """How the sentences are said: HA's Python API, the dashboard, a satellite."""
    if door == "async_converse":

        async def converse(text: str, conversation_id: str | None) -> dict[str, Any]:
            result = await conversation.async_converse(
                hass, text, conversation_id, Context(), language="en", agent_id=agent
            )
            return result.as_dict()

        return converse
    if door == "pipeline":  # before the client: it freezes HA's HTTP routes
        assert await async_setup_component(hass, "assist_pipeline", {})
    ws = await hass_ws_client(hass)
    if door == "websocket":

        async def dashboard(text: str, conversation_id: str | None) -> dict[str, Any]:
            await ws.send_json_auto_id(
                {
                    "type": "conversation/process",
                    "text": text,
                    "conversation_id": conversation_id,
                    "agent_id": agent,
                    "language": "en",
                }
            )
            msg = await ws.receive_json()
            assert msg["success"], msg
            result: dict[str, Any] = msg["result"]
            return result

        return dashboard
    await use_pipeline(ws, agent)
    http = await hass_client()

    async def satellite(text: str, conversation_id: str | None) -> dict[str, Any]:
        output, _ = await run_pipeline(
            hass, ws, http, text, conversation_id=conversation_id
        )
        return output

    return satellite


DOORS = ("async_converse", "websocket", "pipeline")


@dataclass
class Door:
    """One way a user talks to an agent (the `door` fixture: each of DOORS)."""

    name: str
    speaker: RecordingTTS
    ws_client: Any
    client: Any

    async def open(self, hass: HomeAssistant, agent: str) -> Ask:
        """This door's ask, to the agent."""
        return await door_to(hass, self.name, agent, self.ws_client, self.client)

    @property
    def said(self) -> list[str]:
        """What a satellite spoke (through the pipeline door only)."""
        return self.speaker.said
