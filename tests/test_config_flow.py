"""The config flow, against a real OpenAI-compatible server on loopback."""

import json
import logging
from pathlib import Path
from typing import Any

from openai.resources.models import AsyncModels
import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry

from homeassistant import config_entries
from homeassistant.components import conversation
from homeassistant.config_entries import ConfigSubentryData
from homeassistant.const import CONF_API_KEY, CONF_LLM_HASS_API, CONF_NAME, CONF_PROMPT
from homeassistant.core import Context, HomeAssistant
from homeassistant.data_entry_flow import FlowResultType
from homeassistant.helpers import llm

from custom_components.agentic_conversation.const import (
    COMPACT_API_ID,
    CONF_ALLOWED_SERVICES,
    CONF_BASE_URL,
    CONF_CAMERA_IMAGE_QUALITY,
    CONF_CAMERA_IMAGE_SIZE,
    CONF_CONFIRM_ENTITIES,
    CONF_CONFIRM_PIN,
    CONF_CONTEXT_WINDOW,
    CONF_CONVERSATION_EXPIRY,
    CONF_DEVICE_CONTINUITY,
    CONF_ENABLED_TOOLS,
    CONF_FIRST_TOKEN_TIMEOUT,
    CONF_HISTORY_TOKENS,
    CONF_LOCAL_FALLBACK,
    CONF_LOCAL_FIRST,
    CONF_MAX_CONVERSATIONS,
    CONF_MAX_ITERATIONS,
    CONF_MAX_TOKENS,
    CONF_MEMORY_SHARED,
    CONF_MODEL,
    CONF_RECOMMENDED,
    CONF_STREAM,
    CONF_TEMPERATURE,
    CONF_TOOL_TIMEOUT,
    CONF_TURN_TIMEOUT,
    CONF_VERIFY_TIMEOUT,
    CONF_WAIT_PHRASE_AFTER,
    CONF_WEATHER_ENTITY,
    DEFAULT_MODEL,
    DOMAIN,
    INTEGER_OPTIONS,
    LLM_API_ID,
)
from tests.agent_form import (
    CONTROL,
    FALLBACK,
    LIMITS,
    MEMORY,
    MODEL_SECTION,
    SECTION_OF,
    SERVER,
    USAGE,
    nest,
    sections,
    shown,
    submit,
)
from tests.fake_llm import MODEL, FakeLLM, Reply, closed_port_url

DOMAIN_LOGGER = f"custom_components.{DOMAIN}"


async def _start(hass: HomeAssistant) -> Any:
    result = await hass.config_entries.flow.async_init(
        DOMAIN, context={"source": config_entries.SOURCE_USER}
    )
    assert result["type"] is FlowResultType.FORM
    assert result["step_id"] == "user"
    return result


async def test_user_flow_creates_a_connection_with_a_default_agent(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """A reachable server: the entry and one agent on a model the server offers."""
    hass = ha_core
    fake_llm.model_ids = ["qwen3:8b", "llama3.2"]
    result = await _start(hass)

    result = await hass.config_entries.flow.async_configure(
        result["flow_id"],
        {CONF_BASE_URL: f"  {fake_llm.base_url}/ ", CONF_API_KEY: " sk-1 "},
    )

    assert result["type"] is FlowResultType.CREATE_ENTRY
    assert result["title"] == fake_llm.base_url
    assert result["data"] == {CONF_BASE_URL: fake_llm.base_url, CONF_API_KEY: "sk-1"}
    entry = hass.config_entries.async_entries(DOMAIN)[0]
    (agent,) = entry.subentries.values()
    assert agent.subentry_type == "conversation"
    assert agent.data[CONF_MODEL] == "qwen3:8b"
    assert agent.data[CONF_LLM_HASS_API] == [COMPACT_API_ID]
    assert agent.data[CONF_MAX_ITERATIONS] == 10
    assert agent.data[CONF_TOOL_TIMEOUT] == 10
    assert agent.data[CONF_TURN_TIMEOUT] == 60
    await hass.async_block_till_done()
    assert hass.states.get("conversation.agentic_conversation") is not None


async def test_default_model_preferred_and_key_optional(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """A local server with no key; the default model is used when listed."""
    fake_llm.model_ids = ["other", DEFAULT_MODEL]
    result = await _start(ha_core)
    result = await ha_core.config_entries.flow.async_configure(
        result["flow_id"], {CONF_BASE_URL: fake_llm.base_url}
    )
    assert result["type"] is FlowResultType.CREATE_ENTRY
    assert result["data"] == {CONF_BASE_URL: fake_llm.base_url}
    entry = ha_core.config_entries.async_entries(DOMAIN)[0]
    assert next(iter(entry.subentries.values())).data[CONF_MODEL] == DEFAULT_MODEL


@pytest.mark.parametrize(
    ("breakage", "error"),
    [
        ("closed_port", "cannot_connect"),
        ("wrong_key", "invalid_auth"),
        ("forbidden", "forbidden"),
        ("server_error", "cannot_connect"),
        ("not_a_url", "invalid_url"),
        ("sdk_bug", "unknown"),
    ],
)
async def test_user_flow_errors_then_recovers(
    ha_core: HomeAssistant,
    fake_llm: FakeLLM,
    monkeypatch: pytest.MonkeyPatch,
    breakage: str,
    error: str,
) -> None:
    """Each failure shows its translated error and keeps the input; fixing it works."""
    hass = ha_core
    url = fake_llm.base_url
    key = "sk-right"
    fake_llm.api_key = key
    bad: dict[str, str] = {CONF_BASE_URL: url, CONF_API_KEY: key}
    if breakage == "closed_port":
        bad[CONF_BASE_URL] = closed_port_url()
    elif breakage == "wrong_key":
        bad[CONF_API_KEY] = "sk-wrong"
    elif breakage == "forbidden":
        fake_llm.models_status = 403
    elif breakage == "server_error":
        fake_llm.models_status = 500
    elif breakage == "sdk_bug":
        # Something nobody foresaw, inside the SDK: shown as "unknown", logged.
        monkeypatch.setattr(AsyncModels, "list", _raise_runtime_error)
    else:
        bad[CONF_BASE_URL] = "not a url at all"
    result = await _start(hass)

    result = await hass.config_entries.flow.async_configure(result["flow_id"], bad)

    assert result["type"] is FlowResultType.FORM
    assert result["errors"] == {"base": error}
    fake_llm.models_status = None
    monkeypatch.undo()
    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {CONF_BASE_URL: url, CONF_API_KEY: key}
    )
    assert result["type"] is FlowResultType.CREATE_ENTRY


def _with_credentials(url: str) -> str:
    return url.replace("http://", "http://me:s3cret@")


async def test_credentials_in_the_url_stay_out_of_the_title_and_the_log(
    ha_core: HomeAssistant, fake_llm: FakeLLM, caplog: pytest.LogCaptureFixture
) -> None:
    """The entry keeps the URL as typed, but its title and our log lines hide them."""
    hass = ha_core
    url = _with_credentials(fake_llm.base_url)
    result = await _start(hass)

    with caplog.at_level(logging.INFO):
        result = await hass.config_entries.flow.async_configure(
            result["flow_id"],
            {CONF_BASE_URL: _with_credentials(closed_port_url()) + "?token=t0ken"},
        )
    assert result["errors"] == {"base": "cannot_connect"}
    ours = [r.getMessage() for r in caplog.records if r.name.startswith(DOMAIN_LOGGER)]
    assert any("Cannot connect to http://***@127.0.0.1" in line for line in ours)
    assert not [line for line in ours if "s3cret" in line or "t0ken" in line]

    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {CONF_BASE_URL: url}
    )
    assert result["type"] is FlowResultType.CREATE_ENTRY
    assert result["title"] == fake_llm.base_url.replace("http://", "http://***@")
    assert result["data"][CONF_BASE_URL] == url


async def test_reconfigure_title_hides_credentials(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """A URL with credentials set by reconfigure is shown without them."""
    hass = ha_core
    entry = _entry(hass, fake_llm)
    result = await entry.start_reconfigure_flow(hass)

    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {CONF_BASE_URL: _with_credentials(fake_llm.base_url)}
    )
    await hass.async_block_till_done()

    assert result["reason"] == "reconfigure_successful"
    assert entry.title == fake_llm.base_url.replace("http://", "http://***@")
    assert entry.data[CONF_BASE_URL] == _with_credentials(fake_llm.base_url)


async def test_same_server_and_key_twice_aborts(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """One entry per base URL and key."""
    MockConfigEntry(
        domain=DOMAIN, data={CONF_BASE_URL: fake_llm.base_url, CONF_API_KEY: "k"}
    ).add_to_hass(ha_core)
    result = await _start(ha_core)
    result = await ha_core.config_entries.flow.async_configure(
        result["flow_id"], {CONF_BASE_URL: fake_llm.base_url + "/", CONF_API_KEY: "k"}
    )
    assert result["type"] is FlowResultType.ABORT
    assert result["reason"] == "already_configured"


def _raise_runtime_error(*args: Any, **kwargs: Any) -> Any:
    raise RuntimeError("unforeseen")


async def test_model_entries_without_an_id_are_ignored(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """A server listing garbled models still gets an agent on a real model name."""
    fake_llm.models_body = {
        "object": "list",
        "data": [{"object": "model"}, {"id": "good", "object": "model"}],
    }
    result = await _start(ha_core)
    result = await ha_core.config_entries.flow.async_configure(
        result["flow_id"], {CONF_BASE_URL: fake_llm.base_url}
    )
    entry = ha_core.config_entries.async_entries(DOMAIN)[0]
    assert next(iter(entry.subentries.values())).data[CONF_MODEL] == "good"


def _entry(hass: HomeAssistant, server: FakeLLM, **data: Any) -> MockConfigEntry:
    entry = MockConfigEntry(
        domain=DOMAIN,
        title=server.base_url,
        data={CONF_BASE_URL: server.base_url, CONF_API_KEY: "sk-old", **data},
        subentries_data=[
            ConfigSubentryData(
                data={CONF_MODEL: MODEL},
                subentry_type="conversation",
                title="Agent",
                unique_id=None,
            )
        ],
    )
    entry.add_to_hass(hass)
    return entry


async def test_reauth_takes_a_new_key(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """A refused key: reauth checks the new one, then the entry loads with it."""
    hass = ha_core
    fake_llm.api_key = "sk-new"
    entry = _entry(hass, fake_llm)
    assert not await hass.config_entries.async_setup(entry.entry_id)
    assert entry.state is config_entries.ConfigEntryState.SETUP_ERROR
    (flow,) = hass.config_entries.flow.async_progress_by_handler(DOMAIN)
    assert flow["context"]["source"] == config_entries.SOURCE_REAUTH

    result = await hass.config_entries.flow.async_configure(
        flow["flow_id"], {CONF_API_KEY: "sk-still-wrong"}
    )
    assert result["type"] is FlowResultType.FORM
    assert result["errors"] == {"base": "invalid_auth"}

    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {CONF_API_KEY: "sk-new"}
    )
    await hass.async_block_till_done()
    assert result["type"] is FlowResultType.ABORT
    assert result["reason"] == "reauth_successful"
    assert entry.data[CONF_API_KEY] == "sk-new"
    assert entry.state is config_entries.ConfigEntryState.LOADED


async def test_reauth_form_shows_the_url_without_credentials(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """The "refused the key" form names the server, not its password."""
    hass = ha_core
    fake_llm.api_key = "sk-new"
    entry = _entry(
        hass, fake_llm, **{CONF_BASE_URL: _with_credentials(fake_llm.base_url)}
    )
    assert not await hass.config_entries.async_setup(entry.entry_id)
    (flow,) = hass.config_entries.flow.async_progress_by_handler(DOMAIN)

    result = await hass.config_entries.flow.async_configure(flow["flow_id"])

    assert result["step_id"] == "reauth_confirm"
    placeholders = result["description_placeholders"]
    assert placeholders is not None
    assert placeholders[CONF_BASE_URL] == fake_llm.base_url.replace(
        "http://", "http://***@"
    )


async def test_reconfigure_changes_the_server(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """Reconfigure validates the new address; an unreachable one is an error."""
    hass = ha_core
    entry = _entry(hass, fake_llm)
    result = await entry.start_reconfigure_flow(hass)
    assert result["step_id"] == "reconfigure"

    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {CONF_BASE_URL: closed_port_url(), CONF_API_KEY: "x"}
    )
    assert result["errors"] == {"base": "cannot_connect"}

    async with FakeLLM() as other:
        result = await hass.config_entries.flow.async_configure(
            result["flow_id"], {CONF_BASE_URL: other.base_url}
        )
        await hass.async_block_till_done()
    assert result["type"] is FlowResultType.ABORT
    assert result["reason"] == "reconfigure_successful"
    assert entry.data == {CONF_BASE_URL: other.base_url, CONF_API_KEY: "sk-old"}
    assert entry.title == other.base_url


@pytest.mark.parametrize("blank", [{}, {CONF_API_KEY: ""}, {CONF_API_KEY: "  "}])
async def test_reconfigure_with_a_blank_key_keeps_the_stored_key(
    ha_core: HomeAssistant, fake_llm: FakeLLM, blank: dict[str, str]
) -> None:
    """The key field is never pre-filled; leaving it blank must not drop the key."""
    hass = ha_core
    fake_llm.api_key = "sk-old"  # the server lists models only for the stored key
    entry = _entry(hass, fake_llm)
    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()
    result = await entry.start_reconfigure_flow(hass)

    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {CONF_BASE_URL: fake_llm.base_url + "/", **blank}
    )
    await hass.async_block_till_done()

    assert result["type"] is FlowResultType.ABORT
    assert result["reason"] == "reconfigure_successful"
    assert entry.data == {CONF_BASE_URL: fake_llm.base_url, CONF_API_KEY: "sk-old"}
    assert entry.state is config_entries.ConfigEntryState.LOADED


async def test_reconfigure_with_a_new_key_validates_it(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """A typed key replaces the stored one, once the server accepts it."""
    hass = ha_core
    fake_llm.api_key = "sk-new"
    entry = _entry(hass, fake_llm)
    result = await entry.start_reconfigure_flow(hass)

    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {CONF_BASE_URL: fake_llm.base_url}
    )
    assert result["errors"] == {"base": "invalid_auth"}
    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {CONF_BASE_URL: fake_llm.base_url, CONF_API_KEY: "sk-new"}
    )
    await hass.async_block_till_done()

    assert result["reason"] == "reconfigure_successful"
    assert entry.data[CONF_API_KEY] == "sk-new"


async def test_reconfigure_onto_another_entry_aborts(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """Reconfiguring into a duplicate of another connection is refused."""
    hass = ha_core
    entry = _entry(hass, fake_llm)
    MockConfigEntry(
        domain=DOMAIN, data={CONF_BASE_URL: "http://other:1/v1", CONF_API_KEY: "k"}
    ).add_to_hass(hass)
    result = await entry.start_reconfigure_flow(hass)
    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {CONF_BASE_URL: "http://other:1/v1", CONF_API_KEY: "k"}
    )
    assert result["type"] is FlowResultType.ABORT
    assert result["reason"] == "already_configured"


AGENT_INPUT: dict[str, Any] = {
    CONF_MODEL: "typed-by-hand",
    CONF_PROMPT: "Be brief.",
    CONF_LLM_HASS_API: [],
    CONF_MAX_ITERATIONS: 5,
    CONF_TOOL_TIMEOUT: 5,
    CONF_TURN_TIMEOUT: 30,
    CONF_TEMPERATURE: 0.2,
    CONF_MAX_TOKENS: 300,
    CONF_HISTORY_TOKENS: 2000,
    CONF_CONTEXT_WINDOW: 4096,
    CONF_STREAM: False,
    CONF_ENABLED_TOOLS: ["get_weather"],
    CONF_ALLOWED_SERVICES: ["light", "cover.open_cover"],
}


async def _new_agent_form(hass: HomeAssistant, entry: MockConfigEntry) -> Any:
    result = await hass.config_entries.subentries.async_init(
        (entry.entry_id, "conversation"), context={"source": config_entries.SOURCE_USER}
    )
    assert result["type"] is FlowResultType.FORM
    assert result["step_id"] == "new_agent"
    return result


async def test_add_and_reconfigure_an_agent(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """A new agent with a hand-typed model and no tools; then changed."""
    hass = ha_core
    entry = _entry(hass, fake_llm)
    assert await hass.config_entries.async_setup(entry.entry_id)
    result = await _new_agent_form(hass, entry)

    result = await submit(
        hass, result, {CONF_NAME: "Kitchen", **AGENT_INPUT, CONF_TURN_TIMEOUT: 5}
    )
    assert result["type"] is FlowResultType.FORM
    assert result["errors"] == {LIMITS: "turn_timeout_too_short"}

    result = await submit(
        hass, result, {CONF_NAME: "Kitchen", **AGENT_INPUT, CONF_MAX_TOKENS: 4096}
    )
    assert result["type"] is FlowResultType.FORM
    assert result["errors"] == {LIMITS: "context_window_too_small"}

    result = await submit(hass, result, {CONF_NAME: "Kitchen", **AGENT_INPUT})
    assert result["type"] is FlowResultType.CREATE_ENTRY
    kitchen = next(s for s in entry.subentries.values() if s.title == "Kitchen")
    expected = {
        k: v
        for k, v in AGENT_INPUT.items()
        if k not in (CONF_LLM_HASS_API, CONF_WEATHER_ENTITY)
    }
    # Saved flat, as the runtime reads it.
    assert dict(kitchen.data) == {
        **expected,
        CONF_CONFIRM_ENTITIES: [],
        # kept conversations: the defaults
        CONF_CONVERSATION_EXPIRY: 5,
        CONF_MAX_CONVERSATIONS: 100,
        CONF_DEVICE_CONTINUITY: False,
        CONF_LOCAL_FALLBACK: True,
        CONF_LOCAL_FIRST: True,  # new agents: see docs/configuration.md
        CONF_MEMORY_SHARED: False,
        CONF_FIRST_TOKEN_TIMEOUT: 5,
        CONF_WAIT_PHRASE_AFTER: 0,
        CONF_VERIFY_TIMEOUT: 2.0,
        CONF_CAMERA_IMAGE_SIZE: 768,
        CONF_CAMERA_IMAGE_QUALITY: 75,
        CONF_RECOMMENDED: False,
    }

    await hass.async_block_till_done()
    result = await entry.start_subentry_reconfigure_flow(hass, kitchen.subentry_id)
    assert result["step_id"] == "set_options"
    result = await submit(
        hass,
        result,
        {
            **AGENT_INPUT,
            CONF_LLM_HASS_API: [llm.LLM_API_ASSIST],
            CONF_WEATHER_ENTITY: "weather.home",
        },
    )
    assert result["type"] is FlowResultType.ABORT
    assert result["reason"] == "reconfigure_successful"
    kitchen = entry.subentries[kitchen.subentry_id]
    assert kitchen.data[CONF_LLM_HASS_API] == [llm.LLM_API_ASSIST]
    assert kitchen.data[CONF_WEATHER_ENTITY] == "weather.home"


@pytest.mark.parametrize("beside", [llm.LLM_API_ASSIST, LLM_API_ID])
async def test_compact_home_control_goes_alone(
    ha_core: HomeAssistant, fake_llm: FakeLLM, beside: str
) -> None:
    """It holds Assist's intents and our tools: either beside it is refused."""
    hass = ha_core
    entry = _entry(hass, fake_llm)
    assert await hass.config_entries.async_setup(entry.entry_id)
    result = await _new_agent_form(hass, entry)
    assert shown(result)[CONF_LLM_HASS_API] == [COMPACT_API_ID]

    result = await submit(
        hass,
        result,
        {CONF_NAME: "Hall", **AGENT_INPUT, CONF_LLM_HASS_API: [COMPACT_API_ID, beside]},
    )
    assert result["type"] is FlowResultType.FORM
    assert result["errors"] == {CONTROL: "compact_with_its_parts"}

    result = await submit(
        hass,
        result,
        {CONF_NAME: "Hall", **AGENT_INPUT, CONF_LLM_HASS_API: [COMPACT_API_ID]},
    )
    assert result["type"] is FlowResultType.CREATE_ENTRY


async def test_whole_numbers_from_the_ui_are_saved_and_sent_as_ints(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """UI number fields give floats; servers reject "max_tokens": 1024.0."""
    hass = ha_core
    entry = _entry(hass, fake_llm)
    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()
    agent = next(iter(entry.subentries.values()))
    from_the_ui = {
        **AGENT_INPUT,
        CONF_MODEL: MODEL,
        CONF_MAX_ITERATIONS: 5.0,
        CONF_TOOL_TIMEOUT: 5.0,
        CONF_TURN_TIMEOUT: 30.0,
        CONF_MAX_TOKENS: 1024.0,
        CONF_HISTORY_TOKENS: 2000.0,
        CONF_CONTEXT_WINDOW: 4096.0,
        CONF_FIRST_TOKEN_TIMEOUT: 5.0,
        CONF_CONVERSATION_EXPIRY: 10.0,
        CONF_MAX_CONVERSATIONS: 50.0,
    }

    result = await entry.start_subentry_reconfigure_flow(hass, agent.subentry_id)
    result = await submit(hass, result, from_the_ui)
    await hass.async_block_till_done()

    assert result["reason"] == "reconfigure_successful"
    saved = entry.subentries[agent.subentry_id].data
    for key in INTEGER_OPTIONS:
        assert type(saved[key]) is int, key
    assert saved[CONF_MAX_TOKENS] == 1024
    fake_llm.script([Reply.text("Hi.")])
    reply = await conversation.async_converse(
        hass, "hello", None, Context(), agent_id="conversation.agent"
    )
    assert reply.response.speech["plain"]["speech"] == "Hi."
    # The JSON body said 1024, not 1024.0 (which would parse back as a float).
    sent = fake_llm.requests[-1]["max_tokens"]
    assert sent == 1024
    assert type(sent) is int


async def test_ask_before_list_and_pin_are_saved_changed_and_cleared(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """An agent asks before acting on the listed entities; the PIN stays until cleared."""
    hass = ha_core
    entry = _entry(hass, fake_llm)
    assert await hass.config_entries.async_setup(entry.entry_id)
    result = await _new_agent_form(hass, entry)
    result = await submit(
        hass,
        result,
        {
            CONF_NAME: "Hall",
            **AGENT_INPUT,
            CONF_CONFIRM_ENTITIES: ["cover.garage_door", "switch.heater"],
            CONF_CONFIRM_PIN: " 0042 ",
        },
    )
    assert result["type"] is FlowResultType.CREATE_ENTRY
    hall = next(s for s in entry.subentries.values() if s.title == "Hall")
    assert hall.data[CONF_CONFIRM_ENTITIES] == ["cover.garage_door", "switch.heater"]
    assert hall.data[CONF_CONFIRM_PIN] == "0042"
    await hass.async_block_till_done()

    # Reconfigure shows the PIN (masked): saving the form unchanged keeps it.
    result = await entry.start_subentry_reconfigure_flow(hass, hall.subentry_id)
    assert shown(result)[CONF_CONFIRM_PIN] == "0042"
    result = await submit(hass, result, {**AGENT_INPUT, CONF_CONFIRM_PIN: "0042"})
    assert result["reason"] == "reconfigure_successful"
    hall = entry.subentries[hall.subentry_id]
    assert hall.data[CONF_CONFIRM_PIN] == "0042"
    assert hall.data[CONF_CONFIRM_ENTITIES] == []
    await hass.async_block_till_done()

    # Emptied: no PIN any more.
    result = await entry.start_subentry_reconfigure_flow(hass, hall.subentry_id)
    result = await submit(hass, result, {**AGENT_INPUT, CONF_CONFIRM_PIN: ""})
    assert result["reason"] == "reconfigure_successful"
    assert CONF_CONFIRM_PIN not in entry.subentries[hall.subentry_id].data


@pytest.mark.parametrize("pin", ["123", "12345678901", "12a4", "12 34", "١٢٣٤", "²²²²"])
async def test_a_pin_must_be_4_to_10_digits(
    ha_core: HomeAssistant, fake_llm: FakeLLM, pin: str
) -> None:
    """A PIN that is too short, too long or not only digits is refused, then fixed."""
    hass = ha_core
    entry = _entry(hass, fake_llm)
    assert await hass.config_entries.async_setup(entry.entry_id)
    result = await _new_agent_form(hass, entry)

    result = await submit(
        hass, result, {CONF_NAME: "Hall", **AGENT_INPUT, CONF_CONFIRM_PIN: pin}
    )

    assert result["type"] is FlowResultType.FORM
    assert result["errors"] == {CONTROL: "invalid_pin"}
    result = await submit(
        hass, result, {CONF_NAME: "Hall", **AGENT_INPUT, CONF_CONFIRM_PIN: "1234567890"}
    )
    assert result["type"] is FlowResultType.CREATE_ENTRY
    hall = next(s for s in entry.subentries.values() if s.title == "Hall")
    assert hall.data[CONF_CONFIRM_PIN] == "1234567890"


async def test_agent_flow_needs_a_loaded_connection(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """Agents can't be added while the connection is down."""
    hass = ha_core
    entry = _entry(hass, fake_llm)
    result = await hass.config_entries.subentries.async_init(
        (entry.entry_id, "conversation"), context={"source": config_entries.SOURCE_USER}
    )
    assert result["type"] is FlowResultType.ABORT
    assert result["reason"] == "entry_not_loaded"


# --- the form's sections and the recommended switch ------------------------------


async def test_each_section_holds_its_fields(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """Model, control, fallback and server extras always; memory and limits once off."""
    hass = ha_core
    entry = _entry(hass, fake_llm)
    assert await hass.config_entries.async_setup(entry.entry_id)
    result = await _new_agent_form(hass, entry)

    # A new agent starts on the recommended settings: no tuning sections.
    assert shown(result)[CONF_RECOMMENDED] is True
    found = sections(result)
    assert list(found) == [MODEL_SECTION, CONTROL, FALLBACK, SERVER, USAGE]
    assert {name: s.options["collapsed"] for name, s in found.items()} == {
        MODEL_SECTION: False,
        CONTROL: False,
        FALLBACK: True,
        SERVER: True,
        USAGE: True,
    }

    result = await hass.config_entries.subentries.async_configure(
        result["flow_id"],
        nest({CONF_NAME: "Hall", CONF_MODEL: MODEL}, recommended=False, tuning=False),
    )

    found = sections(result)
    assert list(found) == [
        MODEL_SECTION,
        CONTROL,
        FALLBACK,
        MEMORY,
        LIMITS,
        SERVER,
        USAGE,
    ]
    # Just switched off: the tuning sections open.
    assert not found[MEMORY].options["collapsed"]
    assert not found[LIMITS].options["collapsed"]
    fields = {
        str(key): name
        for name, form_section in found.items()
        for key in form_section.schema.schema
    }
    assert fields == SECTION_OF


async def test_switching_recommended_off_keeps_what_was_typed(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """The form comes back with the typed values, and the tuning at the defaults."""
    hass = ha_core
    entry = _entry(hass, fake_llm)
    assert await hass.config_entries.async_setup(entry.entry_id)
    result = await _new_agent_form(hass, entry)
    typed = {
        CONF_NAME: "Hall",
        CONF_MODEL: "typed-by-hand",
        CONF_PROMPT: "Be brief.",
        CONF_LLM_HASS_API: [llm.LLM_API_ASSIST],
        CONF_CONFIRM_PIN: "4711",
        CONF_LOCAL_FALLBACK: False,
    }

    result = await hass.config_entries.subentries.async_configure(
        result["flow_id"], nest(typed, recommended=False, tuning=False)
    )

    values = shown(result)
    assert {k: values[k] for k in typed} == typed
    assert values[CONF_RECOMMENDED] is False
    assert values[CONF_TEMPERATURE] == 0.7
    assert values[CONF_TURN_TIMEOUT] == 60
    assert values[CONF_MEMORY_SHARED] is False


async def test_recommended_on_saves_the_defaults_and_keeps_the_rest(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """An agent tuned by hand, switched back: defaults for the tuning, the rest kept."""
    hass = ha_core
    entry = _entry(hass, fake_llm)
    assert await hass.config_entries.async_setup(entry.entry_id)
    result = await _new_agent_form(hass, entry)
    tuned = {
        CONF_NAME: "Hall",
        **AGENT_INPUT,
        CONF_MEMORY_SHARED: True,
        CONF_CONFIRM_PIN: "4711",
    }
    result = await submit(hass, result, tuned)
    assert result["type"] is FlowResultType.CREATE_ENTRY
    hall = next(s for s in entry.subentries.values() if s.title == "Hall")
    assert hall.data[CONF_TEMPERATURE] == 0.2
    assert hall.data[CONF_RECOMMENDED] is False
    await hass.async_block_till_done()

    # Reopened: switch off, tuning shown with the agent's values, collapsed.
    result = await entry.start_subentry_reconfigure_flow(hass, hall.subentry_id)
    values = shown(result)
    assert values[CONF_RECOMMENDED] is False
    assert values[CONF_TEMPERATURE] == 0.2
    assert values[CONF_MEMORY_SHARED] is True
    assert sections(result)[LIMITS].options["collapsed"]

    del tuned[CONF_NAME]
    result = await submit(hass, result, {**tuned, CONF_STREAM: True}, recommended=True)

    assert result["reason"] == "reconfigure_successful"
    data = entry.subentries[hall.subentry_id].data
    assert data[CONF_RECOMMENDED] is True
    assert data[CONF_TEMPERATURE] == 0.7
    assert data[CONF_MAX_TOKENS] == 1024
    assert data[CONF_TURN_TIMEOUT] == 60
    assert data[CONF_MEMORY_SHARED] is False
    # Not tuning: kept.
    assert data[CONF_MODEL] == "typed-by-hand"
    assert data[CONF_PROMPT] == "Be brief."
    assert data[CONF_CONFIRM_PIN] == "4711"
    assert data[CONF_ALLOWED_SERVICES] == ["light", "cover.open_cover"]
    await hass.async_block_till_done()

    # Reopened: the switch is on and the tuning sections are hidden.
    result = await entry.start_subentry_reconfigure_flow(hass, hall.subentry_id)
    assert shown(result)[CONF_RECOMMENDED] is True
    assert LIMITS not in sections(result)


OLD_FLAT_AGENT: dict[str, Any] = {
    CONF_MODEL: MODEL,
    CONF_PROMPT: "Old instructions.",
    CONF_LLM_HASS_API: [llm.LLM_API_ASSIST, LLM_API_ID],
    CONF_MAX_ITERATIONS: 4,
    CONF_TOOL_TIMEOUT: 10,
    CONF_TURN_TIMEOUT: 90,
    CONF_TEMPERATURE: 0.3,
    CONF_MAX_TOKENS: 512,
    CONF_HISTORY_TOKENS: 3000,
    CONF_CONTEXT_WINDOW: 8192,
    CONF_STREAM: True,
    CONF_CONVERSATION_EXPIRY: 30,
    CONF_MAX_CONVERSATIONS: 20,
    CONF_DEVICE_CONTINUITY: True,
    CONF_LOCAL_FALLBACK: False,
    CONF_ALLOWED_SERVICES: ["light"],
    CONF_ENABLED_TOOLS: ["get_weather"],
    CONF_CONFIRM_ENTITIES: ["switch.heater"],
    CONF_CONFIRM_PIN: "2468",
    CONF_MEMORY_SHARED: True,
    CONF_FIRST_TOKEN_TIMEOUT: 8,
}


async def test_an_old_flat_agent_opens_with_its_values_and_saves_flat(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """Saved before the sections: every value is in its section; saved unchanged."""
    hass = ha_core
    entry = MockConfigEntry(
        domain=DOMAIN,
        data={CONF_BASE_URL: fake_llm.base_url},
        subentries_data=[
            ConfigSubentryData(
                data=OLD_FLAT_AGENT,
                subentry_type="conversation",
                title="Kitchen agent",
                unique_id=None,
            )
        ],
    )
    entry.add_to_hass(hass)
    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()
    agent = next(iter(entry.subentries.values()))

    result = await entry.start_subentry_reconfigure_flow(hass, agent.subentry_id)

    values = shown(result)
    # Tuned by hand: the switch is off and the tuning shown.
    assert values.pop(CONF_RECOMMENDED) is False
    assert values == OLD_FLAT_AGENT
    result = await hass.config_entries.subentries.async_configure(
        result["flow_id"], nest(values, recommended=False)
    )
    assert result["reason"] == "reconfigure_successful"
    assert dict(entry.subentries[agent.subentry_id].data) == {
        **OLD_FLAT_AGENT,
        CONF_RECOMMENDED: False,
        CONF_WAIT_PHRASE_AFTER: 0,  # an option added since: saved at its default
        CONF_VERIFY_TIMEOUT: 2.0,  # the same
        CONF_CAMERA_IMAGE_SIZE: 768,  # the same
        CONF_CAMERA_IMAGE_QUALITY: 75,
        CONF_LOCAL_FIRST: True,  # the same, shown on before saving
    }


async def test_an_old_agent_on_the_defaults_opens_recommended(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """No switch saved and nothing tuned (or not saved at all): it opens on."""
    hass = ha_core
    entry = _entry(hass, fake_llm)  # the agent has only a model
    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()
    agent = next(iter(entry.subentries.values()))

    result = await entry.start_subentry_reconfigure_flow(hass, agent.subentry_id)

    assert shown(result)[CONF_RECOMMENDED] is True
    assert LIMITS not in sections(result)


async def test_the_titles_name_the_agent(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """Changing an agent names it; a new agent names the connection."""
    hass = ha_core
    entry = _entry(hass, fake_llm)
    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()
    agent = next(iter(entry.subentries.values()))
    hass.config_entries.async_update_subentry(entry, agent, title="Kitchen agent")
    await hass.async_block_till_done()
    strings = _json_strings()

    result = await entry.start_subentry_reconfigure_flow(hass, agent.subentry_id)

    assert result["step_id"] == "set_options"
    placeholders = result["description_placeholders"]
    assert placeholders is not None
    title = strings["set_options"]["title"].format(**placeholders)
    assert title == "Settings of Kitchen agent"

    result = await _new_agent_form(hass, entry)
    placeholders = result["description_placeholders"]
    assert placeholders is not None
    assert placeholders["connection"] == entry.title
    description = strings["new_agent"]["description"].format(**placeholders)
    assert fake_llm.base_url in description


def _json_strings() -> dict[str, Any]:
    path = (
        Path(__file__).parent.parent
        / "custom_components"
        / DOMAIN
        / "translations"
        / "en.json"
    )
    steps: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))[
        "config_subentries"
    ]["conversation"]["step"]
    return steps
