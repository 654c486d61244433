"""Compact home control, the default of new agents: small requests in any home.

Measured on what the fake LLM server received from a new agent (the config flow's
default options) in a home of one porch light and sensors.
"""

import json
from typing import Any

import pytest

from homeassistant.components import conversation
from homeassistant.components.homeassistant.exposed_entities import (
    async_expose_entity,
    async_should_expose,
)
from homeassistant.components.homeassistant.llm import (
    DYNAMIC_CONTEXT_PROMPT,
    GetLiveContextTool,
)
from homeassistant.components.intent.llm import DEVICE_CONTROL_TOOL_USAGE_PROMPT
from homeassistant.const import CONF_LLM_HASS_API
from homeassistant.core import Context, HomeAssistant
from homeassistant.helpers import llm
from homeassistant.setup import async_setup_component

from custom_components.agentic_conversation.config_flow import default_agent_options
from custom_components.agentic_conversation.const import (
    COMPACT_API_ID,
    CONF_LOCAL_FIRST,
    DOMAIN,
    LLM_API_ID,
)
from custom_components.agentic_conversation.offered_tools import original_tool
from custom_components.agentic_conversation.tool_options import AgenticLLMContext
from custom_components.agentic_conversation.tools.llm_api import (
    ACT_WITH_INTENTS,
    ACT_WITH_SERVICES,
)
from tests.across_releases import offered_name
from tests.fake_llm import MODEL, FakeLLM, Reply
from tests.helpers import add_agent, say as _ask

PORCH = "light.porch_light"


@pytest.fixture
async def home(ha_core: HomeAssistant) -> HomeAssistant:
    """A real porch light (a template light over an input_boolean), exposed."""
    hass = ha_core
    assert await async_setup_component(
        hass, "input_boolean", {"input_boolean": {"porch": {}}}
    )
    flag = {"entity_id": "input_boolean.porch"}
    light = {
        "name": "Porch light",
        "state": "{{ is_state('input_boolean.porch', 'on') }}",
        "turn_on": {"action": "input_boolean.turn_on", "target": flag},
        "turn_off": {"action": "input_boolean.turn_off", "target": flag},
    }
    assert await async_setup_component(
        hass, "template", {"template": [{"light": [light]}]}
    )
    assert await async_setup_component(hass, "intent", {})
    await hass.async_block_till_done()
    async_expose_entity(hass, conversation.DOMAIN, PORCH, True)
    async_expose_entity(hass, conversation.DOMAIN, "input_boolean.porch", False)
    return hass


async def _agent(
    hass: HomeAssistant, server: FakeLLM, apis: list[str] | None = None
) -> str:
    """A new agent as the config flow makes it (other APIs, if given).

    Local first off: these tests are about what the model gets and does.
    """
    options = default_agent_options([MODEL]) | {CONF_LOCAL_FIRST: False}
    if apis is not None:
        options[CONF_LLM_HASS_API] = apis
    return await add_agent(hass, server, api_key=None, title=f"Agent {apis}", **options)


def _sent(request: dict[str, Any]) -> tuple[str, int]:
    """The system prompt, and its size with the tool definitions'."""
    system = request["messages"][0]["content"]
    return system, len(system) + len(json.dumps(request.get("tools", [])))


def _expose_sensors(hass: HomeAssistant, exposed: int) -> None:
    """Sensors, until `exposed` entities are exposed in all."""
    have = len(
        [
            state
            for state in hass.states.async_all()
            if async_should_expose(hass, conversation.DOMAIN, state.entity_id)
        ]
    )
    for i in range(have, exposed):
        entity_id = f"sensor.probe_{i}"
        hass.states.async_set(
            entity_id, "21.5", {"friendly_name": f"Room {i} temperature"}
        )
        async_expose_entity(hass, conversation.DOMAIN, entity_id, True)


async def test_new_agent_request_is_small_in_any_home(
    home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """≤ 8000 characters of prompt and tools; 10 → 1000 exposed entities: ≤ 10 % more."""
    agent = await _agent(home, fake_llm)
    sizes: dict[int, int] = {}
    for exposed in (10, 1000):
        _expose_sensors(home, exposed)
        fake_llm.script([Reply.text("Hello!")])
        await _ask(home, agent, "hello")
        system, sizes[exposed] = _sent(fake_llm.requests[-1])
        assert "Porch light" not in system  # no list of entities

    assert sizes[10] <= 8000, sizes
    assert sizes[1000] <= sizes[10] * 1.10, sizes


async def test_turn_on_the_porch_light_by_name(
    home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """Found with search_entities, turned on by name with Assist's intent."""
    agent = await _agent(home, fake_llm)
    apis = [COMPACT_API_ID]
    search = await offered_name(home, apis, "search_entities")
    turn_on = await offered_name(home, apis, "HassTurnOn")
    fake_llm.script(
        [
            Reply.tool_calls([(search, {"query": "porch light"})]),
            Reply.tool_calls([(turn_on, {"name": "Porch light", "domain": ["light"]})]),
            Reply.text("The porch light is on."),
        ]
    )

    speech = await _ask(home, agent, "turn on the porch light")

    assert home.states.get(PORCH).state == "on"  # type: ignore[union-attr]
    assert speech == "The porch light is on."
    offered = {tool["function"]["name"] for tool in fake_llm.requests[0]["tools"]}
    assert {search, turn_on} <= offered
    found = json.loads(fake_llm.requests[1]["messages"][-1]["content"])
    assert found["result"]["entities"][0]["name"] == "Porch light"


async def test_live_context_only_when_asked(
    home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """Not in the prompt, but HA's live context tool answers when called."""
    agent = await _agent(home, fake_llm)
    api = await llm.async_get_api(
        home,
        COMPACT_API_ID,
        AgenticLLMContext(DOMAIN, Context(), "en", conversation.DOMAIN, None),
    )
    live = next(
        tool.name
        for tool in api.tools
        if isinstance(original_tool(tool), GetLiveContextTool)
    )
    fake_llm.script(
        [Reply.tool_calls([(live, {"domain": "light"})]), Reply.text("It is off.")]
    )

    assert await _ask(home, agent, "is the porch light on?") == "It is off."
    result = json.loads(fake_llm.requests[1]["messages"][-1]["content"])
    assert result["success"] is True
    assert "Porch light" in result["result"]["result"]
    assert "Porch light" not in fake_llm.requests[0]["messages"][0]["content"]


async def test_one_way_to_act_whatever_the_apis(
    home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """No system prompt tells the model two ways to control devices or read states."""
    selections = [
        [COMPACT_API_ID],
        [llm.LLM_API_ASSIST, LLM_API_ID],
        [LLM_API_ID],
        [llm.LLM_API_ASSIST],
    ]
    prompts: dict[str, str] = {}
    for apis in selections:
        agent = await _agent(home, fake_llm, apis)
        fake_llm.script([Reply.text("Hello!")])
        await _ask(home, agent, "hello")
        prompts[",".join(apis)], _ = _sent(fake_llm.requests[-1])

    for selected, prompt in prompts.items():
        by_intents = DEVICE_CONTROL_TOOL_USAGE_PROMPT in prompt or (
            ACT_WITH_INTENTS in prompt
        )
        assert not (ACT_WITH_SERVICES in prompt and by_intents), selected
        # Assist says to read states with its live context; ours, get_entity_state.
        assert not (ACT_WITH_SERVICES in prompt and DYNAMIC_CONTEXT_PROMPT in prompt)
    compact = prompts[COMPACT_API_ID]
    assert ACT_WITH_INTENTS in compact
    assert DEVICE_CONTROL_TOOL_USAGE_PROMPT in compact  # the rest of Assist's stays
    assert DYNAMIC_CONTEXT_PROMPT not in compact
    assert ACT_WITH_SERVICES in prompts[LLM_API_ID]
    assert ACT_WITH_INTENTS in prompts[f"{llm.LLM_API_ASSIST},{LLM_API_ID}"]
