"""At setup each agent's endpoint is checked; tools ignored → a repair issue."""

from datetime import timedelta

from pytest_homeassistant_custom_component.common import (
    MockConfigEntry,
    async_fire_time_changed,
)

from homeassistant.config_entries import ConfigSubentryData
from homeassistant.const import CONF_LLM_HASS_API
from homeassistant.core import HomeAssistant
from homeassistant.helpers import entity_registry as er, issue_registry as ir, llm
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


async def test_a_model_writing_its_calls_as_text_is_told_apart(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """The probe's call comes back as text (no tool parser): it can act, no issue.

    A small model on llama-server whose template's calls the server does not parse
    answers `<tool_call>{…}</tool_call>` or a fenced JSON call: the agent carries
    such calls out, so it is not "a model that cannot call tools"; the Route sensor
    says from the start that its calls come as text.
    """
    hass = ha_core
    for written in (
        '<tool_call>\n{"name": "agentic_probe", "arguments": {}}\n</tool_call>',
        '```json\n{"name": "agentic_probe", "arguments": {}}\n```',
        # Qwen2.5-Coder-1.5B on llama-server, word for word: doubled braces, then
        # empty fences until the probe's token limit.
        '{{"name": "agentic_probe", "arguments": {}}}\n```\n```\n```\n```\n```\n```',
    ):
        fake_llm.probe_tool_reply = Reply.text(written)
        entry = _entry(hass, fake_llm, **{CONF_LLM_HASS_API: [llm.LLM_API_ASSIST]})
        assert await hass.config_entries.async_setup(entry.entry_id)
        await hass.async_block_till_done(wait_background_tasks=True)

        subentry_id = next(iter(entry.subentries))
        found = entry.runtime_data.capabilities[subentry_id]
        assert (found.tools, found.calls_as_text) == (True, True)
        assert "writes tool calls as text" in found.detail
        issue = f"tools_unsupported_{subentry_id}"
        assert ir.async_get(hass).async_get_issue(DOMAIN, issue) is None
        route = next(
            e.entity_id
            for e in er.async_entries_for_config_entry(
                er.async_get(hass), entry.entry_id
            )
            if e.unique_id == f"{subentry_id}-route"
        )
        state = hass.states.get(route)
        assert state is not None
        assert state.attributes["calls_as_text"] is True
        assert await hass.config_entries.async_unload(entry.entry_id)

    # Text that only talks about the tool is no call: the issue is raised.
    fake_llm.probe_tool_reply = Reply.text("I would call agentic_probe, but I won't.")
    entry = _entry(hass, fake_llm, **{CONF_LLM_HASS_API: [llm.LLM_API_ASSIST]})
    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done(wait_background_tasks=True)
    subentry_id = next(iter(entry.subentries))
    found = entry.runtime_data.capabilities[subentry_id]
    assert (found.tools, found.calls_as_text) == (False, False)
    issue = f"tools_unsupported_{subentry_id}"
    assert ir.async_get(hass).async_get_issue(DOMAIN, issue) is not None
