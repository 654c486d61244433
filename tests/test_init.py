"""The integration sets up from a config flow and unloads in a real Home Assistant."""

from homeassistant import config_entries
from homeassistant.config_entries import ConfigEntryState
from homeassistant.const import CONF_API_KEY
from homeassistant.core import HomeAssistant
from homeassistant.data_entry_flow import FlowResultType

from custom_components.agentic_conversation.const import CONF_BASE_URL, DOMAIN


async def test_config_flow_creates_entry_that_loads_and_unloads(
    ha_core: HomeAssistant,
) -> None:
    """A user adds a server; the entry loads, holds its runtime data, and unloads."""
    hass = ha_core
    result = await hass.config_entries.flow.async_init(
        DOMAIN, context={"source": config_entries.SOURCE_USER}
    )
    assert result["type"] is FlowResultType.FORM
    assert result["step_id"] == "user"

    result = await hass.config_entries.flow.async_configure(
        result["flow_id"],
        {CONF_BASE_URL: "http://127.0.0.1:8080/v1", CONF_API_KEY: "sk-test"},
    )
    await hass.async_block_till_done()
    assert result["type"] is FlowResultType.CREATE_ENTRY
    assert result["title"] == "http://127.0.0.1:8080/v1"

    entry = hass.config_entries.async_entries(DOMAIN)[0]
    assert entry.state is ConfigEntryState.LOADED
    assert entry.runtime_data.base_url == "http://127.0.0.1:8080/v1"

    assert await hass.config_entries.async_unload(entry.entry_id)
    await hass.async_block_till_done()
    unloaded = hass.config_entries.async_get_entry(entry.entry_id)
    assert unloaded is not None
    assert unloaded.state is ConfigEntryState.NOT_LOADED
