"""A server that is down when Home Assistant starts (a power cut; the GPU box boots slower).

The connection loads anyway, its agent answers by HA's own agent, its route sensor
says `down` and why; when the server answers, the agent uses it without a restart.
"""

from collections.abc import AsyncIterator
from datetime import timedelta
from urllib.parse import urlsplit

from freezegun.api import FrozenDateTimeFactory
import pytest
from pytest_homeassistant_custom_component.common import (
    MockConfigEntry,
    async_fire_time_changed,
)

from homeassistant.components import conversation
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.config_entries import (
    SOURCE_REAUTH,
    ConfigEntryState,
    ConfigSubentryData,
)
from homeassistant.const import CONF_API_KEY, CONF_LLM_HASS_API
from homeassistant.core import HomeAssistant
from homeassistant.helpers import intent, llm
from homeassistant.setup import async_setup_component

from custom_components.agentic_conversation.const import (
    CONF_BASE_URL,
    CONF_MODEL,
    DOMAIN,
)
from custom_components.agentic_conversation.routes import FIRST_CHECK_AFTER_BOOT
from tests.fake_llm import MODEL, FakeLLM, Reply, closed_port_url
from tests.helpers import converse, speech as _speech, state_of as _state

LIGHT = "light.porch_light"
ROUTE = "sensor.agent_route"
LOCAL = "The AI service isn't available, so I used the basic assistant: "


@pytest.fixture
async def porch(ha_core: HomeAssistant) -> HomeAssistant:
    """An exposed porch light, off."""
    hass = ha_core
    assert await async_setup_component(
        hass, "input_boolean", {"input_boolean": {"porch": {}}}
    )
    target = {"entity_id": "input_boolean.porch"}
    light = {
        "name": "Porch light",
        "state": "{{ is_state('input_boolean.porch', 'on') }}",
        "turn_on": {"action": "input_boolean.turn_on", "target": target},
        "turn_off": {"action": "input_boolean.turn_off", "target": target},
    }
    assert await async_setup_component(
        hass, "template", {"template": [{"light": [light]}]}
    )
    assert await async_setup_component(hass, "intent", {})
    await hass.async_block_till_done()
    async_expose_entity(hass, conversation.DOMAIN, LIGHT, True)
    return hass


@pytest.fixture
async def late_server(socket_enabled: None) -> AsyncIterator[FakeLLM]:
    """The server, not started: the test starts it on `closed_port_url()`'s port."""
    server = FakeLLM()
    yield server
    await server.close()


async def _boot(hass: HomeAssistant, base_url: str) -> MockConfigEntry:
    entry = MockConfigEntry(
        domain=DOMAIN,
        minor_version=2,
        data={CONF_BASE_URL: base_url, CONF_API_KEY: "sk-test"},
        subentries_data=[
            ConfigSubentryData(
                data={CONF_MODEL: MODEL, CONF_LLM_HASS_API: [llm.LLM_API_ASSIST]},
                subentry_type="conversation",
                title="Agent",
                unique_id=None,
            )
        ],
    )
    entry.add_to_hass(hass)
    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done(wait_background_tasks=True)
    return entry


async def _start_on(server: FakeLLM, base_url: str) -> None:
    """The server comes up where the connection expects it."""
    port = urlsplit(base_url).port
    assert port is not None
    await server.start_on(port)


async def _wait(
    hass: HomeAssistant, freezer: FrozenDateTimeFactory, seconds: float
) -> None:
    """Let this much time pass, and what it starts finish."""
    freezer.tick(timedelta(seconds=seconds + 1))
    async_fire_time_changed(hass)
    await hass.async_block_till_done(wait_background_tasks=True)


async def _say(hass: HomeAssistant, text: str) -> conversation.ConversationResult:
    return await converse(hass, "conversation.agent", text)


async def test_down_at_boot_the_home_answers_then_the_model_when_it_returns(
    porch: HomeAssistant, late_server: FakeLLM, freezer: FrozenDateTimeFactory
) -> None:
    """Loaded with the server down: the light goes on; once it returns, the model."""
    hass = porch
    base_url = closed_port_url()
    entry = await _boot(hass, base_url)

    assert entry.state is ConfigEntryState.LOADED
    assert hass.states.get("conversation.agent") is not None
    route = hass.states.get(ROUTE)
    assert route is not None
    assert route.state == "down"
    assert route.attributes["reason"] == (
        "the server did not answer at start-up: cannot reach the LLM server:"
        " All connection attempts failed"
    )
    assert not hass.config_entries.flow.async_progress_by_handler(DOMAIN)

    result = await _say(hass, "turn on the porch light")

    assert _state(hass, LIGHT) == "on"
    assert _speech(result) == f"{LOCAL}Turned on the light"
    assert result.response.response_type is intent.IntentResponseType.ACTION_DONE
    assert result.conversation_id
    assert _state(hass, ROUTE) == "local"

    # Checked soon (the server may be booting too): still down, checked again later.
    await _wait(hass, freezer, FIRST_CHECK_AFTER_BOOT)
    assert _state(hass, ROUTE) == "local"
    # The server comes back; the next check, twice as far, finds it.
    await _start_on(late_server, base_url)
    await _wait(hass, freezer, 2 * FIRST_CHECK_AFTER_BOOT)

    assert _state(hass, ROUTE) == "ok"
    assert entry.runtime_data.models == [MODEL]
    # Its endpoint was checked then: tools work, so the model answers commands.
    assert late_server.probe_requests
    assert entry.runtime_data.capabilities[next(iter(entry.subentries))].tools is True

    late_server.script([Reply.text("The porch light is already on.")])
    result = await _say(hass, "is the porch light on?")

    assert _speech(result) == "The porch light is already on."
    assert len(late_server.requests) == 1
    sent = late_server.requests[0]
    assert sent["model"] == MODEL
    assert sent["messages"][-1] == {"role": "user", "content": "is the porch light on?"}
    assert _state(hass, ROUTE) == "ok"


async def test_models_listed_last_time_are_offered_while_down(
    porch: HomeAssistant, late_server: FakeLLM
) -> None:
    """The models the server listed when it was up are remembered across restarts."""
    hass = porch
    base_url = closed_port_url()
    late_server.model_ids = [MODEL, "qwen3:8b"]
    await _start_on(late_server, base_url)
    entry = await _boot(hass, base_url)
    assert entry.runtime_data.models == [MODEL, "qwen3:8b"]
    await late_server.close()

    assert await hass.config_entries.async_reload(entry.entry_id)
    await hass.async_block_till_done(wait_background_tasks=True)

    assert entry.state is ConfigEntryState.LOADED
    assert entry.runtime_data.models == [MODEL, "qwen3:8b"]
    assert _state(hass, ROUTE) == "down"


async def test_a_server_back_refusing_the_key_asks_for_a_new_one(
    porch: HomeAssistant, late_server: FakeLLM, freezer: FrozenDateTimeFactory
) -> None:
    """Down at start-up, then up but refusing the key (401): re-authentication starts."""
    hass = porch
    base_url = closed_port_url()
    await _boot(hass, base_url)
    assert not hass.config_entries.flow.async_progress_by_handler(DOMAIN)

    late_server.api_key = "sk-new"
    await _start_on(late_server, base_url)
    await _wait(hass, freezer, FIRST_CHECK_AFTER_BOOT)

    flows = hass.config_entries.flow.async_progress_by_handler(DOMAIN)
    assert [flow["context"]["source"] for flow in flows] == [SOURCE_REAUTH]
    assert _state(hass, ROUTE) == "down"
