"""The home keeps answering when the LLM does not: retry, fallback model, breaker.

And the route sensor that shows which way the answers take.
"""

from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

from freezegun.api import FrozenDateTimeFactory
import pytest
from pytest_homeassistant_custom_component.common import (
    MockConfigEntry,
    async_fire_time_changed,
)

from homeassistant.components.conversation import trace
from homeassistant.config_entries import SOURCE_REAUTH, ConfigSubentryData
from homeassistant.const import CONF_API_KEY, EntityCategory
from homeassistant.core import HomeAssistant
from homeassistant.helpers import entity_registry as er

from custom_components.agentic_conversation.config_flow import (
    AgenticConversationConfigFlow,
)
from custom_components.agentic_conversation.const import (
    CONF_BASE_URL,
    CONF_FALLBACK_MODEL,
    CONF_FIRST_TOKEN_TIMEOUT,
    CONF_LOCAL_FALLBACK,
    CONF_MODEL,
    DOMAIN,
)
from tests.agent_form import selectors, submit
from tests.fake_llm import MODEL, FakeLLM, Reply
from tests.helpers import say

OTHER_MODEL = "model-b"
SENSOR = "sensor.agent_route"


@pytest.fixture(autouse=True)
def _no_retry_wait(no_retry_wait: None) -> None:
    """Retries wait 0 s: no real sleeping."""


@pytest.fixture
async def other_llm(socket_enabled: None) -> AsyncIterator[FakeLLM]:
    """The server of another connection, offering the fallback model."""
    async with FakeLLM(model_ids=(OTHER_MODEL,)) as server:
        yield server


async def _connection(
    hass: HomeAssistant, server: FakeLLM, title: str, *agents: dict[str, Any]
) -> MockConfigEntry:
    """A loaded connection to the server, with these agents' options."""
    entry = MockConfigEntry(
        domain=DOMAIN,
        title=title,
        minor_version=AgenticConversationConfigFlow.MINOR_VERSION,
        data={CONF_BASE_URL: server.base_url, CONF_API_KEY: "sk-test"},
        subentries_data=[
            ConfigSubentryData(
                data={CONF_MODEL: MODEL, **options},
                subentry_type="conversation",
                title="Agent",
                unique_id=None,
            )
            for options in agents
        ],
    )
    entry.add_to_hass(hass)
    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()
    return entry


async def _ask(hass: HomeAssistant, text: str = "hi") -> str:
    return await say(hass, "conversation.agent", text)


def _route(hass: HomeAssistant) -> tuple[str, dict[str, Any]]:
    state = hass.states.get(SENSOR)
    assert state is not None
    return state.state, dict(state.attributes)


async def test_server_error_then_answer_after_one_retry(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """A 500, then the answer: the user hears it; two requests; the route stays ok."""
    await _connection(ha_core, fake_llm, "Home", {})
    fake_llm.script([Reply.error(500), Reply.text("Hello there.")])

    assert await _ask(ha_core) == "Hello there."
    assert len(fake_llm.requests) == 2
    assert _route(ha_core)[0] == "ok"


async def test_fallback_on_the_same_connection(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """The primary keeps failing: another model of the same server answers."""
    await _connection(ha_core, fake_llm, "Home", {CONF_FALLBACK_MODEL: OTHER_MODEL})
    fake_llm.script(
        [Reply.error(500), Reply.error(500), Reply.text("From the other model.")]
    )

    assert await _ask(ha_core) == "From the other model."
    assert [r["model"] for r in fake_llm.requests] == [MODEL, MODEL, OTHER_MODEL]
    route, attributes = _route(ha_core)
    assert route == "fallback"
    assert attributes["last_error"].startswith("HTTP 500")
    assert attributes["reason"].startswith("primary failed: HTTP 500")
    # The debug view (the conversation's trace) says the same.
    details = [
        event["data"]
        for event in trace.async_get_traces()[-1].as_dict()["events"]
        if event["event_type"] == trace.ConversationTraceEventType.AGENT_DETAIL
        and "route" in event["data"]
    ]
    assert details[-1]["route"] == "fallback"
    assert details[-1]["reason"].startswith("primary failed: HTTP 500")


@pytest.mark.parametrize(
    ("failure", "first_token_timeout"),
    [
        ([Reply.error(500), Reply.error(502)], None),
        ([Reply.error(429, retry_after="30")], None),  # too long to wait: no retry
        ([Reply.hang()], 0.2),
        ("refused", None),
    ],
    ids=["500", "429", "hang", "refused"],
)
async def test_fallback_on_another_connection(
    ha_core: HomeAssistant,
    fake_llm: FakeLLM,
    other_llm: FakeLLM,
    failure: list[Reply] | str,
    first_token_timeout: float | None,
) -> None:
    """Primary down, busy, silent or gone: the other connection's model answers."""
    other = await _connection(ha_core, other_llm, "Other")
    options: dict[str, Any] = {CONF_FALLBACK_MODEL: f"{other.entry_id}:{OTHER_MODEL}"}
    if first_token_timeout is not None:
        # Fractional for the test; the form takes whole seconds.
        options[CONF_FIRST_TOKEN_TIMEOUT] = first_token_timeout
    await _connection(ha_core, fake_llm, "Home", options)
    if failure == "refused":
        await fake_llm.close()
    else:
        assert isinstance(failure, list)
        fake_llm.script(failure)
    other_llm.script([Reply.text("The fallback speaks.")])

    assert await _ask(ha_core) == "The fallback speaks."
    assert [r["model"] for r in other_llm.requests] == [OTHER_MODEL]
    assert fake_llm.unused == 0
    route, attributes = _route(ha_core)
    assert route == "fallback"
    assert attributes["last_error"]


async def test_breaker_skips_primary_until_it_answers(
    ha_core: HomeAssistant, fake_llm: FakeLLM, freezer: FrozenDateTimeFactory
) -> None:
    """Three failed turns: the primary is skipped, checked each minute, used again.

    The route sensor follows: ok, fallback, ok.
    """
    hass = ha_core
    await _connection(hass, fake_llm, "Home", {CONF_FALLBACK_MODEL: OTHER_MODEL})
    assert _route(hass) == (
        "ok",
        {
            "last_error": None,
            "reason": None,
            "calls_as_text": False,
            "repaired_calls": 0,
            "last_repair": None,
            "last_verified": None,
        }
        | _named(),
    )
    for turn in range(3):
        fake_llm.script([Reply.error(503), Reply.error(503), Reply.text(f"F{turn}.")])
        assert await _ask(hass) == f"F{turn}."
    assert len(fake_llm.requests) == 9

    fake_llm.script([Reply.text("Skipped straight to me.")])
    assert await _ask(hass) == "Skipped straight to me."
    assert [r["model"] for r in fake_llm.requests[9:]] == [OTHER_MODEL]
    route, attributes = _route(hass)
    assert route == "fallback"
    assert attributes["reason"].startswith("primary skipped after 3 failures")

    # A minute on, the check finds the server still failing: still skipped.
    fake_llm.models_status = 500
    freezer.tick(timedelta(seconds=61))
    async_fire_time_changed(hass)
    await hass.async_block_till_done(wait_background_tasks=True)
    assert _route(hass)[0] == "fallback"

    # It answers again: back to the primary.
    fake_llm.models_status = None
    freezer.tick(timedelta(seconds=61))
    async_fire_time_changed(hass)
    await hass.async_block_till_done(wait_background_tasks=True)
    route, attributes = _route(hass)
    assert route == "ok"
    assert attributes["last_error"].startswith("HTTP 503")  # kept after recovery

    fake_llm.script([Reply.text("Primary again.")])
    assert await _ask(hass) == "Primary again."
    assert fake_llm.requests[-1]["model"] == MODEL


def _named() -> dict[str, Any]:
    """The attributes every route sensor has besides ours."""
    return {
        "device_class": "enum",
        "friendly_name": "Agent Route",
        "options": ["ok", "fallback", "local", "down"],
    }


async def test_without_fallback_the_route_is_down(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """No fallback at all: the failure is spoken and the route shows down."""
    await _connection(ha_core, fake_llm, "Home", {CONF_LOCAL_FALLBACK: False})
    fake_llm.script([Reply.error(500), Reply.error(500)])

    assert "problem" in await _ask(ha_core)
    route, attributes = _route(ha_core)
    assert route == "down"
    assert attributes["last_error"].startswith("HTTP 500")


async def test_refused_key_asks_for_a_new_one_though_the_fallback_answered(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """401 from the primary: the fallback answers, and a new key is asked for."""
    await _connection(ha_core, fake_llm, "Home", {CONF_FALLBACK_MODEL: OTHER_MODEL})
    fake_llm.script([Reply.error(401), Reply.text("Still here.")])

    assert await _ask(ha_core) == "Still here."
    await ha_core.async_block_till_done()

    flows = ha_core.config_entries.flow.async_progress_by_handler(DOMAIN)
    assert [flow["context"]["source"] for flow in flows] == [SOURCE_REAUTH]


async def test_route_sensor_is_a_diagnostic_of_the_agent(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """One route sensor per agent, on the agent's device, diagnostic."""
    await _connection(ha_core, fake_llm, "Home", {})
    registry = er.async_get(ha_core)

    sensor = registry.async_get(SENSOR)
    agent = registry.async_get("conversation.agent")

    assert sensor is not None
    assert agent is not None
    assert sensor.device_id == agent.device_id
    assert sensor.entity_category is EntityCategory.DIAGNOSTIC
    assert sensor.translation_key == "route"


async def test_the_form_offers_every_connections_models(
    ha_core: HomeAssistant, fake_llm: FakeLLM, other_llm: FakeLLM
) -> None:
    """The fallback list names each connection's models; the choice is saved."""
    hass = ha_core
    other = await _connection(hass, other_llm, "Other")
    home = await _connection(hass, fake_llm, "Home", {})
    agent = next(iter(home.subentries.values()))

    result = await home.start_subentry_reconfigure_flow(hass, agent.subentry_id)
    offered = selectors(result)[CONF_FALLBACK_MODEL].config["options"]
    assert {option["label"] for option in offered} == {
        f"Home: {MODEL}",
        f"Other: {OTHER_MODEL}",
    }

    choice = f"{other.entry_id}:{OTHER_MODEL}"
    result = await submit(
        hass,
        result,
        {**agent.data, CONF_FALLBACK_MODEL: choice, CONF_FIRST_TOKEN_TIMEOUT: 3.0},
    )
    assert result["reason"] == "reconfigure_successful"
    saved = home.subentries[agent.subentry_id].data
    assert saved[CONF_FALLBACK_MODEL] == choice
    assert saved[CONF_FIRST_TOKEN_TIMEOUT] == 3
    assert type(saved[CONF_FIRST_TOKEN_TIMEOUT]) is int


async def test_fallback_connection_not_loaded(
    ha_core: HomeAssistant, fake_llm: FakeLLM, other_llm: FakeLLM
) -> None:
    """The fallback's connection is unloaded: the primary's failure is spoken."""
    hass = ha_core
    other = await _connection(hass, other_llm, "Other")
    choice = f"{other.entry_id}:{OTHER_MODEL}"
    await _connection(
        hass,
        fake_llm,
        "Home",
        {CONF_FALLBACK_MODEL: choice, CONF_LOCAL_FALLBACK: False},
    )
    assert await hass.config_entries.async_unload(other.entry_id)
    fake_llm.script([Reply.error(500), Reply.error(500)])

    assert "can't reach" in await _ask(hass)
    route, attributes = _route(hass)
    assert route == "down"
    assert "connection is not loaded" in attributes["last_error"]


async def test_unloading_stops_the_primary_check(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """An open breaker's pending check ends with the connection."""
    hass = ha_core
    home = await _connection(hass, fake_llm, "Home", {CONF_LOCAL_FALLBACK: False})
    for _ in range(3):
        fake_llm.script([Reply.error(500), Reply.error(500)])
        await _ask(hass)
    assert _route(hass)[0] == "down"

    assert await hass.config_entries.async_unload(home.entry_id)
    # No timer is left behind (the test harness fails on lingering timers).
