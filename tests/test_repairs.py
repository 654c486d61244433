"""The "cannot use tools" repair issue is fixed from Repairs: another model, or chat-only."""

from typing import Any

import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry

from homeassistant.config_entries import ConfigSubentryData
from homeassistant.const import CONF_LLM_HASS_API, CONF_PROMPT
from homeassistant.core import HomeAssistant
from homeassistant.data_entry_flow import FlowResultType
from homeassistant.helpers import issue_registry as ir
from homeassistant.setup import async_setup_component

from custom_components.agentic_conversation.const import (
    COMPACT_API_ID,
    CONF_BASE_URL,
    CONF_MODEL,
    DOMAIN,
)
from tests.fake_llm import MODEL, PROBE_TOOL_NAME, FakeLLM, Reply

CALLS_TOOLS = "qwen3:8b"
ALSO_DEAF = "tiny-chat"


async def _agent_with_issue(
    hass: HomeAssistant, server: FakeLLM
) -> tuple[MockConfigEntry, str, str]:
    """A loaded connection whose agent's model ignores tools: the issue is up."""
    assert await async_setup_component(hass, "repairs", {})
    server.model_ids = [MODEL, ALSO_DEAF, CALLS_TOOLS]
    server.probe_tool_reply = Reply.text("I cannot do that.")
    entry = MockConfigEntry(
        domain=DOMAIN,
        data={CONF_BASE_URL: server.base_url},
        subentries_data=[
            ConfigSubentryData(
                data={
                    CONF_MODEL: MODEL,
                    CONF_PROMPT: "Be brief.",
                    CONF_LLM_HASS_API: [COMPACT_API_ID],
                },
                subentry_type="conversation",
                title="Kitchen agent",
                unique_id=None,
            )
        ],
    )
    entry.add_to_hass(hass)
    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done(wait_background_tasks=True)
    subentry_id = next(iter(entry.subentries))
    issue_id = f"tools_unsupported_{subentry_id}"
    issue = ir.async_get(hass).async_get_issue(DOMAIN, issue_id)
    assert issue is not None
    assert issue.is_fixable
    return entry, subentry_id, issue_id


def _flows(hass: HomeAssistant) -> Any:
    return hass.data["repairs"]["flow_manager"]


async def test_fix_by_switching_to_a_model_that_calls_tools(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """The server's other models are offered; one that ignores tools is refused."""
    hass = ha_core
    entry, subentry_id, issue_id = await _agent_with_issue(hass, fake_llm)
    flows = _flows(hass)

    result = await flows.async_init(DOMAIN, context={"issue_id": issue_id})
    assert result["type"] is FlowResultType.MENU
    assert result["menu_options"] == ["change_model", "chat_only"]
    assert result["description_placeholders"]["agent"] == "Kitchen agent"

    result = await flows.async_configure(
        result["flow_id"], {"next_step_id": "change_model"}
    )
    assert result["step_id"] == "change_model"
    (field,) = result["data_schema"].schema.values()
    assert field.config["options"] == [CALLS_TOOLS, ALSO_DEAF]

    result = await flows.async_configure(result["flow_id"], {CONF_MODEL: ALSO_DEAF})
    assert result["type"] is FlowResultType.FORM
    assert result["errors"] == {CONF_MODEL: "model_ignores_tools"}
    assert entry.subentries[subentry_id].data[CONF_MODEL] == MODEL

    fake_llm.probe_tool_reply = Reply.tool_calls([(PROBE_TOOL_NAME, {})])
    result = await flows.async_configure(result["flow_id"], {CONF_MODEL: CALLS_TOOLS})
    assert result["type"] is FlowResultType.CREATE_ENTRY
    await hass.async_block_till_done(wait_background_tasks=True)

    data = entry.subentries[subentry_id].data
    assert data[CONF_MODEL] == CALLS_TOOLS
    # The rest of the agent is as it was.
    assert data[CONF_LLM_HASS_API] == [COMPACT_API_ID]
    assert data[CONF_PROMPT] == "Be brief."
    # Gone, and the start-up check after the reload does not raise it again.
    assert ir.async_get(hass).async_get_issue(DOMAIN, issue_id) is None
    assert fake_llm.probe_requests[-1]["model"] == CALLS_TOOLS


async def test_fix_by_making_the_agent_chat_only(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """Its Home Assistant APIs are cleared; the model stays; the issue goes."""
    hass = ha_core
    entry, subentry_id, issue_id = await _agent_with_issue(hass, fake_llm)
    flows = _flows(hass)

    result = await flows.async_init(DOMAIN, context={"issue_id": issue_id})
    result = await flows.async_configure(
        result["flow_id"], {"next_step_id": "chat_only"}
    )
    assert result["step_id"] == "chat_only"
    result = await flows.async_configure(result["flow_id"], {})
    assert result["type"] is FlowResultType.CREATE_ENTRY
    await hass.async_block_till_done(wait_background_tasks=True)

    data = entry.subentries[subentry_id].data
    assert CONF_LLM_HASS_API not in data
    assert data[CONF_MODEL] == MODEL
    assert ir.async_get(hass).async_get_issue(DOMAIN, issue_id) is None


@pytest.mark.parametrize("gone", ["agent", "connection"])
async def test_fix_flow_for_an_agent_that_is_gone(
    ha_core: HomeAssistant, fake_llm: FakeLLM, gone: str
) -> None:
    """Removed agent, unloaded connection: the flow says so and changes nothing."""
    hass = ha_core
    entry, subentry_id, issue_id = await _agent_with_issue(hass, fake_llm)
    if gone == "agent":
        # Keep the issue (removing the agent would clear it at the reload).
        hass.config_entries.async_remove_subentry(entry, subentry_id)
        await hass.async_block_till_done(wait_background_tasks=True)
        ir.async_create_issue(
            hass,
            DOMAIN,
            issue_id,
            is_fixable=True,
            data={"entry_id": entry.entry_id, "subentry_id": subentry_id},
            severity=ir.IssueSeverity.WARNING,
            translation_key="tools_unsupported",
        )
    else:
        assert await hass.config_entries.async_unload(entry.entry_id)

    result = await _flows(hass).async_init(DOMAIN, context={"issue_id": issue_id})

    assert result["type"] is FlowResultType.ABORT
    assert result["reason"] == "agent_gone"
    assert ir.async_get(hass).async_get_issue(DOMAIN, issue_id) is not None
