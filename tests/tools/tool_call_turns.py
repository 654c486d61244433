"""Turns through our agent in which the model slips in a tool call: the shared set-up.

The tool tests' home (a hidden kitchen strip) with Home Assistant's intents, an agent
on Assist and our tools, and what the model and the admin were shown.
"""

import json
from typing import Any

import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry

from homeassistant.components import conversation
from homeassistant.components.conversation import trace
from homeassistant.config_entries import ConfigSubentryData
from homeassistant.const import CONF_LLM_HASS_API
from homeassistant.core import Context, HomeAssistant
from homeassistant.helpers import entity_registry as er, llm
from homeassistant.setup import async_setup_component

from custom_components.agentic_conversation.const import (
    CONF_BASE_URL,
    CONF_MODEL,
    DOMAIN,
    LLM_API_ID,
)
from tests.fake_llm import MODEL, FakeLLM

APIS = [llm.LLM_API_ASSIST, LLM_API_ID]
LIGHT = "light.porch_light"
HIDDEN = "light.kitchen_strip"  # not exposed
LOCK = "lock.front_door"
SENSOR = "sensor.agent_route"
ANSWER = "The porch light is on."
PORCH = {"name": "Porch light"}
# HassTurnOn's result, as the model reads it after the right call.
TURNED_ON = {
    "success": True,
    "result": {
        "speech": {},
        "response_type": "action_done",
        "data": {
            "success": [{"name": "Porch light", "type": "entity", "id": LIGHT}],
            "failed": [],
        },
    },
}
# What HassTurnOn takes, told to a model that gave it nothing it could use.
TURN_ON_TAKES = {
    "arguments_taken": ["area", "device_class", "domain", "floor", "name"],
    "required": [],
}


@pytest.fixture
async def house(home: HomeAssistant) -> HomeAssistant:
    """The tool tests' home (a hidden kitchen strip), with Home Assistant's intents.

    The porch light answers to its name as well as its alias (an entity with aliases
    is matched by them alone).
    """
    assert await async_setup_component(home, "intent", {})
    er.async_get(home).async_update_entity(
        LIGHT, aliases=[er.COMPUTED_NAME, "front light"]
    )
    return home


async def agent(hass: HomeAssistant, server: FakeLLM, apis: list[str] = APIS) -> str:
    """A new agent on these APIs, talking to the fake server; its entity id."""
    entry = MockConfigEntry(
        domain=DOMAIN,
        data={CONF_BASE_URL: server.base_url},
        subentries_data=[
            ConfigSubentryData(
                data={CONF_MODEL: MODEL, CONF_LLM_HASS_API: apis},
                subentry_type="conversation",
                title="Agent",
                unique_id=None,
            )
        ],
    )
    entry.add_to_hass(hass)
    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()
    return next(
        s
        for s in hass.states.async_entity_ids(conversation.DOMAIN)
        if s != "conversation.home_assistant"
    )


async def say(hass: HomeAssistant, agent: str, text: str) -> str:
    """What the user hears after saying `text` in a new conversation."""
    result = await conversation.async_converse(
        hass, text, None, Context(), language="en", agent_id=agent
    )
    return str(result.response.speech["plain"]["speech"])


def sent_back(server: FakeLLM, request: int = 1) -> Any:
    """The tool result the model read in this request."""
    message = server.requests[request]["messages"][-1]
    assert message["role"] == "tool"
    return json.loads(message["content"])


def repairs_traced() -> list[Any]:
    """What the last turn's trace says was repaired."""
    return [
        event["data"]["tool_call_repaired"]
        for event in trace.async_get_traces()[-1].as_dict()["events"]
        if event["event_type"] == trace.ConversationTraceEventType.AGENT_DETAIL
        and "tool_call_repaired" in event["data"]
    ]
