"""Per-agent request extras: checked when saved, sent on the wire, never overriding."""

import json
from typing import Any

import pytest

from homeassistant.const import CONF_NAME
from homeassistant.core import HomeAssistant
from homeassistant.data_entry_flow import FlowResultType

from custom_components.agentic_conversation.const import (
    CONF_EXTRA_BODY,
    CONF_EXTRA_HEADERS,
)
from tests.agent_form import SERVER, submit
from tests.fake_llm import MODEL, FakeLLM, Reply
from tests.helpers import converse as _ask, speech as _speech
from tests.test_config_flow import AGENT_INPUT, _entry, _new_agent_form
from tests.test_conversation import _agent

THINKING_OFF = '{"chat_template_kwargs": {"enable_thinking": false}}'


@pytest.mark.parametrize(
    ("field", "text", "error"),
    [
        (CONF_EXTRA_BODY, "{not json", "extra_not_json_object"),
        (CONF_EXTRA_BODY, '["a list"]', "extra_not_json_object"),
        (CONF_EXTRA_BODY, '{"model": "gpt-4o"}', "extra_body_reserved"),
        (CONF_EXTRA_BODY, '{"messages": []}', "extra_body_reserved"),
        (CONF_EXTRA_BODY, '{"max_tokens": 99999}', "extra_body_reserved"),
        (CONF_EXTRA_HEADERS, '{"X-Group": 5}', "extra_headers_not_text"),
        (CONF_EXTRA_HEADERS, '{"authorization": "Bearer x"}', "extra_headers_reserved"),
        (CONF_EXTRA_HEADERS, "42", "extra_not_json_object"),
    ],
)
async def test_bad_extras_are_refused_with_a_reason(
    ha_core: HomeAssistant, fake_llm: FakeLLM, field: str, text: str, error: str
) -> None:
    """The form shows the reason in the section; nothing is saved; fixed, it saves."""
    hass = ha_core
    entry = _entry(hass, fake_llm)
    assert await hass.config_entries.async_setup(entry.entry_id)
    result = await _new_agent_form(hass, entry)
    agent = {CONF_NAME: "Kitchen", **AGENT_INPUT}
    before = len(entry.subentries)

    result = await submit(hass, result, {**agent, field: text})

    assert result["type"] is FlowResultType.FORM
    assert result["errors"] == {SERVER: error}
    assert len(entry.subentries) == before

    result = await submit(hass, result, {**agent, field: "  "})
    assert result["type"] is FlowResultType.CREATE_ENTRY
    saved = next(s for s in entry.subentries.values() if s.title == "Kitchen")
    assert field not in saved.data  # empty: none stored


async def test_good_extras_are_saved(ha_core: HomeAssistant, fake_llm: FakeLLM) -> None:
    """Thinking off for Qwen3 and a proxy header: saved as typed."""
    hass = ha_core
    entry = _entry(hass, fake_llm)
    assert await hass.config_entries.async_setup(entry.entry_id)
    result = await _new_agent_form(hass, entry)
    result = await submit(
        hass,
        result,
        {
            CONF_NAME: "Kitchen",
            **AGENT_INPUT,
            CONF_EXTRA_BODY: THINKING_OFF,
            CONF_EXTRA_HEADERS: '{"X-Api-Group": "home"}',
        },
    )
    assert result["type"] is FlowResultType.CREATE_ENTRY
    saved = next(s for s in entry.subentries.values() if s.title == "Kitchen")
    assert saved.data[CONF_EXTRA_BODY] == THINKING_OFF
    assert saved.data[CONF_EXTRA_HEADERS] == '{"X-Api-Group": "home"}'


async def test_stored_extras_never_override_the_request(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """Extras stored by hand with the agent's own fields: those fields stay ours."""
    extras: dict[str, Any] = {
        "chat_template_kwargs": {"enable_thinking": False},
        "top_k": 20,
    }
    agent = await _agent(
        ha_core,
        fake_llm,
        **{
            CONF_EXTRA_BODY: json.dumps(extras),
            CONF_EXTRA_HEADERS: '{"X-Api-Group": "home"}',
        },
    )
    fake_llm.script([Reply.text("Hi!")])

    assert _speech(await _ask(ha_core, agent, "hello")) == "Hi!"

    (sent,) = fake_llm.requests
    assert sent["chat_template_kwargs"] == {"enable_thinking": False}
    assert sent["top_k"] == 20
    assert sent["model"] == MODEL
    headers = {name.lower(): value for name, value in fake_llm.headers[0].items()}
    assert headers["x-api-group"] == "home"


async def test_extras_that_would_override_are_dropped_at_runtime(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """An agent stored with a reserved extra (by hand): ignored whole, logged."""
    agent = await _agent(
        ha_core, fake_llm, **{CONF_EXTRA_BODY: '{"model": "other", "top_k": 3}'}
    )
    fake_llm.script([Reply.text("Hi!")])

    assert _speech(await _ask(ha_core, agent, "hello")) == "Hi!"

    (sent,) = fake_llm.requests
    assert sent["model"] == MODEL
    assert "top_k" not in sent
