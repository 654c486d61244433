"""Voice pipelines that would let Home Assistant's own agent unlock without a yes.

A pipeline of our agent with "Prefer handling commands locally" on, while a risky
entity is exposed, raises a fixable Repair naming it; the fix (through the HTTP API
the frontend uses) turns prefer-local off; the Repair goes when nothing is at risk.
"""

from typing import Any

import pytest
from pytest_homeassistant_custom_component.typing import (
    ClientSessionGenerator,
    WebSocketGenerator,
)

from homeassistant.components import conversation
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import Context, HomeAssistant
from homeassistant.helpers import issue_registry as ir
from homeassistant.setup import async_setup_component

from custom_components.agentic_conversation.const import (
    CONF_CONFIRM_ENTITIES,
    CONF_LOCAL_FIRST,
    DOMAIN,
)
from custom_components.agentic_conversation.safety.pipelines import ISSUE_ID
from tests.fake_llm import FakeLLM
from tests.test_confirmation import LOCK, _agent, _switchable

SWITCH = "input_boolean.heater"


@pytest.fixture
async def locked(ha_core: HomeAssistant) -> HomeAssistant:
    """An exposed front door lock and heater switch; repairs loaded."""
    hass = ha_core
    assert await async_setup_component(
        hass,
        "input_boolean",
        {
            "input_boolean": {
                "front_door": {"initial": True},
                "heater": {"name": "Heater"},
            }
        },
    )
    assert await async_setup_component(
        hass, "template", {"template": [{"lock": [_switchable("front_door", "lock")]}]}
    )
    assert await async_setup_component(hass, "repairs", {})
    await hass.async_block_till_done()
    async_expose_entity(hass, conversation.DOMAIN, LOCK, True)
    async_expose_entity(hass, conversation.DOMAIN, "input_boolean.front_door", False)
    async_expose_entity(hass, conversation.DOMAIN, SWITCH, True)
    return hass


def _settings(name: str, engine: str, *, prefer_local: bool) -> dict[str, Any]:
    return {
        "conversation_engine": engine,
        "conversation_language": "en",
        "language": "en",
        "name": name,
        "stt_engine": None,
        "stt_language": None,
        "tts_engine": None,
        "tts_language": None,
        "tts_voice": None,
        "wake_word_entity": None,
        "wake_word_id": None,
        "prefer_local_intents": prefer_local,
    }


async def _pipeline(ws: Any, name: str, engine: str, *, prefer_local: bool) -> str:
    await ws.send_json_auto_id(
        {
            "type": "assist_pipeline/pipeline/create",
            **_settings(name, engine, prefer_local=prefer_local),
        }
    )
    msg = await ws.receive_json()
    assert msg["success"], msg
    return str(msg["result"]["id"])


async def _prefers_local(ws: Any, pipeline_id: str) -> bool:
    await ws.send_json_auto_id(
        {"type": "assist_pipeline/pipeline/get", "pipeline_id": pipeline_id}
    )
    msg = await ws.receive_json()
    assert msg["success"], msg
    return bool(msg["result"]["prefer_local_intents"])


def _issue(hass: HomeAssistant) -> ir.IssueEntry | None:
    return ir.async_get(hass).async_get_issue(DOMAIN, ISSUE_ID)


async def _fix(client: Any, step: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """Fix the Repair through the HTTP API the frontend uses; its menu and step form."""
    resp = await client.post(
        "/api/repairs/issues/fix", json={"handler": DOMAIN, "issue_id": ISSUE_ID}
    )
    assert resp.status == 200
    flow = await resp.json()
    assert flow["type"] == "menu"
    assert flow["menu_options"] == ["use_local_first", "turn_off_prefer_local"]
    resp = await client.post(
        f"/api/repairs/issues/fix/{flow['flow_id']}", json={"next_step_id": step}
    )
    form: dict[str, Any] = await resp.json()
    assert form["type"] == "form"
    assert form["step_id"] == step
    resp = await client.post(f"/api/repairs/issues/fix/{flow['flow_id']}", json={})
    assert (await resp.json())["type"] == "create_entry"
    return flow, form


async def test_repair_names_the_pipelines_and_its_fix_turns_prefer_local_off(
    locked: HomeAssistant,
    fake_llm: FakeLLM,
    hass_ws_client: WebSocketGenerator,
    hass_client: ClientSessionGenerator,
) -> None:
    """Raised on the pipeline's creation, fixed from Repairs, gone afterwards."""
    hass = locked
    agent = await _agent(hass, fake_llm)
    assert await async_setup_component(hass, "assist_pipeline", {})
    ws = await hass_ws_client(hass)
    assert _issue(hass) is None

    kitchen = await _pipeline(ws, "Kitchen satellite", agent, prefer_local=True)
    hall = await _pipeline(ws, "Hall satellite", agent, prefer_local=True)
    slow = await _pipeline(ws, "Office", agent, prefer_local=False)
    builtin = await _pipeline(
        ws, "Built-in", conversation.HOME_ASSISTANT_AGENT, prefer_local=True
    )
    await hass.async_block_till_done()

    issue = _issue(hass)
    assert issue is not None
    assert issue.is_fixable
    assert issue.severity is ir.IssueSeverity.WARNING
    # The heater is on no agent's "ask before" list: only the lock counts.
    assert issue.translation_placeholders == {
        "pipelines": "Kitchen satellite, Hall satellite",
        "entities": "Front door",
        "agents": "Agent",
    }

    menu, _ = await _fix(await hass_client(), "turn_off_prefer_local")
    await hass.async_block_till_done()

    # A fixable Repair shows only its flow: the menu says what is at risk.
    assert menu["description_placeholders"] == {
        "pipelines": "Kitchen satellite, Hall satellite",
        "entities": "Front door",
    }

    assert not await _prefers_local(ws, kitchen)
    assert not await _prefers_local(ws, hall)
    assert not await _prefers_local(ws, slow)
    assert await _prefers_local(ws, builtin)  # not ours: left as it was
    assert _issue(hass) is None


async def test_repair_follows_exposure_and_pipeline_changes(
    locked: HomeAssistant, fake_llm: FakeLLM, hass_ws_client: WebSocketGenerator
) -> None:
    """Cleared when nothing risky is exposed or prefer-local is off; back when not."""
    hass = locked
    async_expose_entity(hass, conversation.DOMAIN, SWITCH, False)
    assert await async_setup_component(hass, "assist_pipeline", {})
    agent = await _agent(hass, fake_llm)
    ws = await hass_ws_client(hass)
    kitchen = await _pipeline(ws, "Kitchen satellite", agent, prefer_local=True)
    await hass.async_block_till_done()
    assert _issue(hass) is not None

    async_expose_entity(hass, conversation.DOMAIN, LOCK, False)
    await hass.async_block_till_done()
    assert _issue(hass) is None

    async_expose_entity(hass, conversation.DOMAIN, LOCK, True)
    await hass.async_block_till_done()
    assert _issue(hass) is not None

    await ws.send_json_auto_id(
        {
            "type": "assist_pipeline/pipeline/update",
            "pipeline_id": kitchen,
            **_settings("Kitchen satellite", agent, prefer_local=False),
        }
    )
    assert (await ws.receive_json())["success"]
    await hass.async_block_till_done()
    assert _issue(hass) is None


async def test_the_agents_ask_before_list_counts(
    locked: HomeAssistant, fake_llm: FakeLLM, hass_ws_client: WebSocketGenerator
) -> None:
    """No lock exposed, but the heater is on the agent's "ask before" list."""
    hass = locked
    async_expose_entity(hass, conversation.DOMAIN, LOCK, False)
    assert await async_setup_component(hass, "assist_pipeline", {})
    agent = await _agent(hass, fake_llm, **{CONF_CONFIRM_ENTITIES: [SWITCH]})
    ws = await hass_ws_client(hass)
    await _pipeline(ws, "Kitchen satellite", agent, prefer_local=True)
    await hass.async_block_till_done()

    issue = _issue(hass)
    assert issue is not None
    assert issue.translation_placeholders == {
        "pipelines": "Kitchen satellite",
        "entities": "Heater",
        "agents": "Agent",
    }


async def test_the_fix_can_hand_the_speed_to_the_agent(
    locked: HomeAssistant,
    fake_llm: FakeLLM,
    hass_ws_client: WebSocketGenerator,
    hass_client: ClientSessionGenerator,
) -> None:
    """Local first on for the agent, prefer-local off; then a yes is needed again."""
    hass = locked
    agent = await _agent(hass, fake_llm)
    assert await async_setup_component(hass, "assist_pipeline", {})
    ws = await hass_ws_client(hass)
    kitchen = await _pipeline(ws, "Kitchen satellite", agent, prefer_local=True)
    await hass.async_block_till_done()
    assert _issue(hass) is not None
    (entry,) = hass.config_entries.async_entries(DOMAIN)
    (subentry_id,) = entry.subentries
    assert CONF_LOCAL_FIRST not in entry.subentries[subentry_id].data

    _, form = await _fix(await hass_client(), "use_local_first")
    assert form["description_placeholders"] == {
        "pipelines": "Kitchen satellite",
        "agents": "Agent",
    }
    await hass.async_block_till_done(wait_background_tasks=True)

    assert entry.subentries[subentry_id].data[CONF_LOCAL_FIRST] is True
    assert not await _prefers_local(ws, kitchen)
    assert _issue(hass) is None

    # The agent now takes "unlock the front door" itself: asked, not done.
    result = await conversation.async_converse(
        hass, "unlock the front door", None, Context(), language="en", agent_id=agent
    )
    assert result.response.speech["plain"]["speech"] == "Shall I unlock Front door?"
    assert hass.states.get(LOCK).state == "locked"  # type: ignore[union-attr]
    assert fake_llm.requests == []
