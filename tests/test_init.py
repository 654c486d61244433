"""Setting up, reloading and unloading a connection in a real Home Assistant."""

import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry

from homeassistant.components import conversation
from homeassistant.components.diagnostics import REDACTED
from homeassistant.config_entries import (
    SOURCE_REAUTH,
    ConfigEntryState,
    ConfigSubentryData,
)
from homeassistant.const import CONF_API_KEY, CONF_PROMPT
from homeassistant.core import Context, HomeAssistant

from custom_components.agentic_conversation.const import (
    CONF_BASE_URL,
    CONF_CONFIRM_PIN,
    CONF_HISTORY_TOKENS,
    CONF_MAX_ITERATIONS,
    CONF_MAX_TOKENS,
    CONF_MODEL,
    CONF_TEMPERATURE,
    CONF_TOOL_TIMEOUT,
    CONF_TURN_TIMEOUT,
    DOMAIN,
    INTEGER_OPTIONS,
)
from custom_components.agentic_conversation.diagnostics import (
    async_get_config_entry_diagnostics,
)
from custom_components.agentic_conversation.redact import redact_url
from tests.fake_llm import MODEL, FakeLLM, Reply, closed_port_url


def _entry(hass: HomeAssistant, base_url: str) -> MockConfigEntry:
    entry = MockConfigEntry(
        domain=DOMAIN,
        title=base_url,
        data={CONF_BASE_URL: base_url, CONF_API_KEY: "sk-secret"},
        subentries_data=[
            ConfigSubentryData(
                data={
                    CONF_MODEL: MODEL,
                    CONF_PROMPT: "my private prompt",
                    CONF_CONFIRM_PIN: "2468",
                },
                subentry_type="conversation",
                title="Agent",
                unique_id=None,
            )
        ],
    )
    entry.add_to_hass(hass)
    return entry


async def test_entry_loads_with_its_agent_and_unloads(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """The connection loads, knows the server's models, adds its agent, unloads."""
    hass = ha_core
    fake_llm.model_ids = [MODEL, "other"]
    entry = _entry(hass, fake_llm.base_url)

    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()

    assert entry.state is ConfigEntryState.LOADED
    assert entry.runtime_data.models == [MODEL, "other"]
    assert hass.states.get("conversation.agent") is not None

    assert await hass.config_entries.async_unload(entry.entry_id)
    await hass.async_block_till_done()
    assert entry.state is ConfigEntryState.NOT_LOADED
    state = hass.states.get("conversation.agent")
    assert state is not None
    assert state.state == "unavailable"


@pytest.mark.usefixtures("socket_enabled")
async def test_unreachable_server_loads_with_its_agent_down(
    ha_core: HomeAssistant,
) -> None:
    """A server that is down at start-up: the agent loads, its route is down; no reauth."""
    hass = ha_core
    entry = _entry(hass, closed_port_url())

    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done(wait_background_tasks=True)

    assert entry.state is ConfigEntryState.LOADED
    assert entry.runtime_data.models == []  # never listed: nothing to remember
    assert hass.states.get("conversation.agent") is not None
    route = hass.states.get("sensor.agent_route")
    assert route is not None
    assert route.state == "down"
    assert not hass.config_entries.flow.async_progress_by_handler(DOMAIN)


async def test_server_refusing_access_loads_without_asking_for_a_key(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """403 at start-up (region, model access): down, checked later; the key is not blamed."""
    hass = ha_core
    fake_llm.models_status = 403
    entry = _entry(hass, fake_llm.base_url)

    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done(wait_background_tasks=True)

    assert entry.state is ConfigEntryState.LOADED
    route = hass.states.get("sensor.agent_route")
    assert route is not None
    assert route.state == "down"
    assert route.attributes["reason"].startswith(
        "the server did not answer at start-up: HTTP 403"
    )
    assert not hass.config_entries.flow.async_progress_by_handler(DOMAIN)


async def test_refused_key_at_start_up_asks_for_a_new_one(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """401 at start-up: the connection does not load, and a new key is asked for."""
    hass = ha_core
    fake_llm.api_key = "sk-other"
    entry = _entry(hass, fake_llm.base_url)

    assert not await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()

    assert entry.state is ConfigEntryState.SETUP_ERROR
    flows = hass.config_entries.flow.async_progress_by_handler(DOMAIN)
    assert [flow["context"]["source"] for flow in flows] == [SOURCE_REAUTH]


@pytest.mark.usefixtures("socket_enabled")
async def test_server_down_at_start_up_does_not_show_credentials_in_the_url(
    ha_core: HomeAssistant, caplog: pytest.LogCaptureFixture
) -> None:
    """The log and the route sensor name the server without its secrets."""
    hass = ha_core
    url = closed_port_url().replace("http://", "http://me:s3cret@") + "?key=k3y"
    entry = _entry(hass, url)
    # The config flow saves the title redacted, the URL as typed.
    hass.config_entries.async_update_entry(entry, title=redact_url(url))

    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done(wait_background_tasks=True)

    assert entry.state is ConfigEntryState.LOADED
    assert "http://***@127.0.0.1" in caplog.text
    assert "?key=***" in caplog.text
    route = hass.states.get("sensor.agent_route")
    assert route is not None
    assert "s3cret" not in str(route.attributes)
    assert "k3y" not in str(route.attributes)
    assert "s3cret" not in caplog.text
    assert "k3y" not in caplog.text


async def test_changing_an_agent_takes_effect(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """A changed agent (subentry) reloads the connection; the next turn uses it."""
    hass = ha_core
    entry = _entry(hass, fake_llm.base_url)
    assert await hass.config_entries.async_setup(entry.entry_id)
    subentry = next(iter(entry.subentries.values()))

    hass.config_entries.async_update_subentry(
        entry, subentry, data={**subentry.data, CONF_MODEL: "other"}
    )
    await hass.async_block_till_done()
    fake_llm.script([Reply.text("Hi.")])
    result = await conversation.async_converse(
        hass, "hello", None, Context(), agent_id="conversation.agent"
    )

    assert entry.state is ConfigEntryState.LOADED
    assert result.response.speech["plain"]["speech"] == "Hi."
    assert fake_llm.requests[-1]["model"] == "other"


async def test_diagnostics_redact_the_key_prompts_and_pin(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """Support sees the setup, never the key, the prompt or the confirmation PIN."""
    hass = ha_core
    entry = _entry(hass, fake_llm.base_url)
    assert await hass.config_entries.async_setup(entry.entry_id)

    diagnostics = await async_get_config_entry_diagnostics(hass, entry)

    assert diagnostics["entry"]["data"] == {
        CONF_BASE_URL: fake_llm.base_url,
        CONF_API_KEY: REDACTED,
    }
    assert diagnostics["models"] == [MODEL]
    (agent,) = diagnostics["agents"].values()
    assert agent["options"] == {
        CONF_MODEL: MODEL,
        CONF_PROMPT: REDACTED,
        CONF_CONFIRM_PIN: REDACTED,
    }
    assert "sk-secret" not in str(diagnostics)
    assert "2468" not in str(diagnostics)
    assert "my private prompt" not in str(diagnostics)


async def test_entries_saved_by_older_versions_are_migrated(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """Saved by 0.1: floats become ints (and an int is sent), the title is redacted."""
    hass = ha_core
    entry = MockConfigEntry(
        domain=DOMAIN,
        title=f"{fake_llm.base_url}?api_key=k3y",
        version=1,
        minor_version=1,
        data={CONF_BASE_URL: fake_llm.base_url},
        subentries_data=[
            ConfigSubentryData(
                data={
                    CONF_MODEL: MODEL,
                    CONF_MAX_ITERATIONS: 10.0,
                    CONF_TOOL_TIMEOUT: 10.0,
                    CONF_TURN_TIMEOUT: 60.0,
                    CONF_MAX_TOKENS: 1024.0,
                    CONF_HISTORY_TOKENS: 4000.0,
                    CONF_TEMPERATURE: 0.7,
                },
                subentry_type="conversation",
                title="Agent",
                unique_id=None,
            )
        ],
    )
    entry.add_to_hass(hass)

    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()

    assert entry.state is ConfigEntryState.LOADED
    assert (entry.version, entry.minor_version) == (1, 2)
    assert entry.title == f"{fake_llm.base_url}?api_key=***"
    options = next(iter(entry.subentries.values())).data
    assert {
        key: (options[key], type(options[key]))
        for key in INTEGER_OPTIONS
        if key in options  # context_window came after 1.1
    } == {
        CONF_MAX_ITERATIONS: (10, int),
        CONF_TOOL_TIMEOUT: (10, int),
        CONF_TURN_TIMEOUT: (60, int),
        CONF_MAX_TOKENS: (1024, int),
        CONF_HISTORY_TOKENS: (4000, int),
    }
    assert options[CONF_TEMPERATURE] == 0.7
    fake_llm.script([Reply.text("Hi.")])
    await conversation.async_converse(
        hass, "hello", None, Context(), agent_id="conversation.agent"
    )
    assert type(fake_llm.requests[-1]["max_tokens"]) is int


async def test_entry_from_a_newer_version_is_not_loaded(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """Data saved by a newer major version is left alone, not misread."""
    entry = MockConfigEntry(
        domain=DOMAIN, version=2, data={CONF_BASE_URL: fake_llm.base_url}
    )
    entry.add_to_hass(ha_core)

    assert not await ha_core.config_entries.async_setup(entry.entry_id)

    assert entry.state is ConfigEntryState.MIGRATION_ERROR


async def test_diagnostics_hide_credentials_in_the_url(ha_core: HomeAssistant) -> None:
    """User info and key/token query values in the base URL are redacted too."""
    url = "https://me:s3cret@llm.example/v1?api_key=k3y&region=eu"
    entry = _entry(ha_core, url)

    diagnostics = await async_get_config_entry_diagnostics(ha_core, entry)

    shown = "https://***@llm.example/v1?api_key=***&region=eu"
    assert diagnostics["entry"]["title"] == shown
    assert diagnostics["entry"]["data"][CONF_BASE_URL] == shown
    assert "s3cret" not in str(diagnostics)
    assert "k3y" not in str(diagnostics)
