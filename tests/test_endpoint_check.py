"""At setup each agent's endpoint is checked; tools ignored → a repair issue."""

from datetime import timedelta

from pytest_homeassistant_custom_component.common import (
    MockConfigEntry,
    async_fire_time_changed,
)

from homeassistant.config_entries import ConfigSubentryData
from homeassistant.const import CONF_LLM_HASS_API
from homeassistant.core import HomeAssistant
from homeassistant.helpers import issue_registry as ir, llm
from homeassistant.util import dt as dt_util

from custom_components.agentic_conversation.const import (
    CONF_BASE_URL,
    CONF_MODEL,
    CONF_STREAM,
    DOMAIN,
)
from custom_components.agentic_conversation.diagnostics import (
    async_get_config_entry_diagnostics,
)
from tests.fake_llm import MODEL, FakeLLM, Reply


def _entry(hass: HomeAssistant, server: FakeLLM, **options: object) -> MockConfigEntry:
    entry = MockConfigEntry(
        domain=DOMAIN,
        data={CONF_BASE_URL: server.base_url},
        subentries_data=[
            ConfigSubentryData(
                data={CONF_MODEL: MODEL, **options},
                subentry_type="conversation",
                title="Kitchen agent",
                unique_id=None,
            )
        ],
    )
    entry.add_to_hass(hass)
    return entry


async def test_tools_ignored_raises_a_repair_issue_until_fixed(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """The model answers in text when told to call a tool: the user is told why."""
    hass = ha_core
    fake_llm.probe_tool_reply = Reply.text("I cannot do that.")
    # A password in the URL stays out of the issue (Repairs, diagnostics).
    with_password = fake_llm.base_url.replace("http://", "http://me:s3cret@")
    entry = _entry(hass, fake_llm, **{CONF_LLM_HASS_API: [llm.LLM_API_ASSIST]})
    hass.config_entries.async_update_entry(entry, data={CONF_BASE_URL: with_password})

    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done(wait_background_tasks=True)

    subentry_id = next(iter(entry.subentries))
    issue = ir.async_get(hass).async_get_issue(
        DOMAIN, f"tools_unsupported_{subentry_id}"
    )
    assert issue is not None
    assert issue.translation_key == "tools_unsupported"
    assert issue.translation_placeholders == {
        "agent": "Kitchen agent",
        "model": MODEL,
        "base_url": fake_llm.base_url.replace("http://", "http://***@"),
    }
    diagnostics = await async_get_config_entry_diagnostics(hass, entry)
    assert diagnostics["endpoint_checks"][subentry_id]["tools"] is False
    assert diagnostics["routes"][subentry_id]["route"] == "ok"
    assert diagnostics["kept_conversations"] == {subentry_id: 0}
    assert diagnostics["endpoint_checks"][subentry_id]["streaming"] is True

    # A model that can call tools (the server honours them now): the issue goes.
    fake_llm.probe_tool_reply = Reply.tool_calls([("agentic_probe", {})])
    assert await hass.config_entries.async_reload(entry.entry_id)
    await hass.async_block_till_done(wait_background_tasks=True)
    assert (
        ir.async_get(hass).async_get_issue(DOMAIN, f"tools_unsupported_{subentry_id}")
        is None
    )


async def test_a_chat_only_agent_is_not_probed_for_tools(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """No LLM API selected and no streaming: no probe, no issue."""
    hass = ha_core
    entry = _entry(hass, fake_llm, **{CONF_STREAM: False})

    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done(wait_background_tasks=True)

    assert fake_llm.probe_requests == []
    assert not [
        issue for (domain, issue) in ir.async_get(hass).issues if domain == DOMAIN
    ]


async def test_a_probe_that_could_not_tell_is_tried_again(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """A busy server at start-up: probed again later, and the answer then counts."""
    hass = ha_core
    fake_llm.probe_tool_reply = Reply.error(503)
    entry = _entry(hass, fake_llm, **{CONF_LLM_HASS_API: [llm.LLM_API_ASSIST]})
    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done(wait_background_tasks=True)
    subentry_id = next(iter(entry.subentries))
    assert entry.runtime_data.capabilities[subentry_id].tools is None
    issue_id = f"tools_unsupported_{subentry_id}"
    assert ir.async_get(hass).async_get_issue(DOMAIN, issue_id) is None

    # Later the server answers: the model ignores the tool, as SmolLM2 does.
    fake_llm.probe_tool_reply = Reply.text("I cannot do that.")
    async_fire_time_changed(hass, dt_util.utcnow() + timedelta(seconds=31))
    await hass.async_block_till_done(wait_background_tasks=True)

    assert entry.runtime_data.capabilities[subentry_id].tools is False
    assert ir.async_get(hass).async_get_issue(DOMAIN, issue_id) is not None
