"""A small model's slip in a tool call is repaired when it is plain, guided when not.

Each test is one turn through `async_converse` with a scripted server: "turn on the
porch light", the model slips once, then answers. What is checked is what a user and
the model notice: the light, the words heard, and the tool result the model was sent.
"""

import json
from typing import Any

import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry

from homeassistant.components import conversation
from homeassistant.components.conversation import trace
from homeassistant.config_entries import ConfigSubentryData
from homeassistant.const import CONF_LLM_HASS_API, STATE_OFF, STATE_ON
from homeassistant.core import Context, HomeAssistant
from homeassistant.helpers import entity_registry as er, llm
from homeassistant.setup import async_setup_component

from custom_components.agentic_conversation.const import (
    CONF_BASE_URL,
    CONF_MODEL,
    DOMAIN,
    LLM_API_ID,
)
from custom_components.agentic_conversation.tools.argument_checks import FIND_IDS
from tests.across_releases import offered_name
from tests.fake_llm import MODEL, FakeLLM, Reply

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


async def _agent(hass: HomeAssistant, server: FakeLLM, apis: list[str] = APIS) -> str:
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


async def _say(hass: HomeAssistant, agent: str, text: str) -> str:
    result = await conversation.async_converse(
        hass, text, None, Context(), language="en", agent_id=agent
    )
    return str(result.response.speech["plain"]["speech"])


def _state(hass: HomeAssistant, entity_id: str) -> str:
    state = hass.states.get(entity_id)
    assert state is not None
    return state.state


def _sent_back(server: FakeLLM, request: int = 1) -> Any:
    """The tool result the model read in this request."""
    message = server.requests[request]["messages"][-1]
    assert message["role"] == "tool"
    return json.loads(message["content"])


def _repairs_traced() -> list[Any]:
    """What the last turn's trace says was repaired."""
    return [
        event["data"]["tool_call_repaired"]
        for event in trace.async_get_traces()[-1].as_dict()["events"]
        if event["event_type"] == trace.ConversationTraceEventType.AGENT_DETAIL
        and "tool_call_repaired" in event["data"]
    ]


def _foreign(offered: str, intent: str) -> str:
    """The intent under a namespace HA does not give it on this release."""
    return next(
        f"{space}__{intent}"
        for space in ("assist", "intent", "homeassistant")
        if f"{space}__{intent}" != offered
    )


# (slip, how the model names the tool, the arguments it sends, what is repaired)
SLIPS: list[tuple[str, Any, Any, str]] = [
    ("wrong case", str.lower, PORCH, "tool name"),
    ("trailing space", lambda n: f"{n} ", PORCH, "tool name"),
    ("functions prefix", lambda n: f"functions.{n}", PORCH, "tool name"),
    ("missing namespace", lambda n: "HassTurnOn", PORCH, "tool name"),
    ("foreign namespace", lambda n: _foreign(n, "HassTurnOn"), PORCH, "tool name"),
    ("wrapped", None, {"arguments": PORCH}, "arguments were wrapped in 'arguments'"),
    (
        "wrapped as a string",
        None,
        {"parameters": json.dumps(PORCH)},
        "arguments were wrapped in 'parameters' as a JSON string",
    ),
    ("entity_id as key", None, {"entity_id": LIGHT}, "entity_id 'light.porch_light'"),
    ("entity_id list", None, {"entity_id": [LIGHT]}, "entity_id ['light.porch_light']"),
    ("entity_id as name", None, {"name": " Light.Porch_Light"}, "name ' Light.Porch"),
]


@pytest.mark.parametrize(
    ("rename", "arguments", "repaired"),
    [slip[1:] for slip in SLIPS],
    ids=[slip[0] for slip in SLIPS],
)
async def test_a_plain_slip_is_repaired(
    house: HomeAssistant,
    fake_llm: FakeLLM,
    rename: Any,
    arguments: Any,
    repaired: str,
) -> None:
    """The light goes on, the model reads the right call's result, the admin sees it."""
    hass = house
    agent = await _agent(hass, fake_llm)
    turn_on = await offered_name(hass, APIS, "HassTurnOn")
    name = rename(turn_on) if rename else turn_on
    fake_llm.script([Reply.tool_calls([(name, arguments)]), Reply.text(ANSWER)])

    speech = await _say(hass, agent, "turn on the porch light")

    assert speech == ANSWER
    assert _sent_back(fake_llm) == TURNED_ON
    assert _state(hass, LIGHT) == STATE_ON
    (traced,) = _repairs_traced()
    assert traced["tool_name"] == turn_on
    (repair,) = traced["repairs"]
    assert repair.startswith(repaired)
    route = hass.states.get(SENSOR)
    assert route is not None
    assert route.attributes["repaired_calls"] == 1
    assert route.attributes["last_repair"] == f"{turn_on}: {repair}"


async def test_arguments_encoded_twice_are_read(
    house: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """Arguments sent as a JSON string inside the JSON string: the light goes on."""
    hass = house
    agent = await _agent(hass, fake_llm)
    turn_on = await offered_name(hass, APIS, "HassTurnOn")
    twice = json.dumps(json.dumps(PORCH))
    fake_llm.script([Reply.tool_calls([(turn_on, twice)]), Reply.text(ANSWER)])

    assert await _say(hass, agent, "turn on the porch light") == ANSWER
    assert _state(hass, LIGHT) == STATE_ON
    assert _sent_back(fake_llm) == TURNED_ON


async def test_null_arguments_are_none_and_the_model_is_told_what_it_takes(
    house: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """`null`: no arguments; HassTurnOn then has no target and says what it takes."""
    hass = house
    agent = await _agent(hass, fake_llm)
    turn_on = await offered_name(hass, APIS, "HassTurnOn")
    fake_llm.script(
        [
            Reply.tool_calls([(turn_on, "null")]),
            Reply.tool_calls([(turn_on, PORCH)]),
            Reply.text(ANSWER),
        ]
    )

    assert await _say(hass, agent, "turn on the porch light") == ANSWER
    assert _state(hass, LIGHT) == STATE_ON
    assert _sent_back(fake_llm, 1) == {
        "success": False,
        "error": "Service handler cannot target all devices",
        **TURN_ON_TAKES,
    }
    assert _sent_back(fake_llm, 2) == TURNED_ON


async def test_an_argument_the_intent_does_not_take_is_dropped_and_told(
    house: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """HassTurnOn has no transition: the light goes on and the model learns why not."""
    hass = house
    agent = await _agent(hass, fake_llm)
    turn_on = await offered_name(hass, APIS, "HassTurnOn")
    fake_llm.script(
        [
            Reply.tool_calls([(turn_on, {**PORCH, "transition": 2})]),
            Reply.text(ANSWER),
        ]
    )

    assert await _say(hass, agent, "turn on the porch light") == ANSWER
    assert _state(hass, LIGHT) == STATE_ON
    assert _sent_back(fake_llm) == {
        **TURNED_ON,
        "ignored_arguments": ["transition"],
        "note": f"{turn_on} does not take transition; it was ignored.",
    }


@pytest.mark.parametrize(
    "name",
    [
        "default_api.HassTurnOn",
        "HassTurnOn()",
        "hass_turn_on",
        "Hass Turn On",
        "turn_on",
    ],
)
async def test_forms_not_in_the_prefix_list_are_refused(
    house: HomeAssistant, fake_llm: FakeLLM, name: str
) -> None:
    """Nothing is guessed beyond case, space, `functions.` and namespaces."""
    hass = house
    agent = await _agent(hass, fake_llm)
    fake_llm.script([Reply.tool_calls([(name, PORCH)]), Reply.text("Sorry.")])

    assert await _say(hass, agent, "turn on the porch light") == "Sorry."
    assert _state(hass, LIGHT) == STATE_OFF
    offered = sorted(t["function"]["name"] for t in fake_llm.requests[0]["tools"])
    assert _sent_back(fake_llm) == {
        "success": False,
        "error": f"Unknown tool: {name}",
        "valid_tools": offered,
    }
    assert _repairs_traced() == []


class _OtherWeather(llm.Tool):
    """Another integration's weather tool, under the same name as ours."""

    name = "get_weather"
    description = "The weather somewhere."
    integration = "other_weather"
    calls = 0

    async def async_call(
        self,
        hass: HomeAssistant,
        tool_input: llm.ToolInput,
        llm_context: llm.LLMContext,
    ) -> llm.ToolResult:
        type(self).calls += 1
        return llm.ToolResult(data={"weather": "sunny"})


class _OtherAPI(llm.API):
    async def async_get_api_instance(
        self, llm_context: llm.LLMContext
    ) -> llm.APIInstance:
        return llm.APIInstance(
            api=self, api_prompt="", llm_context=llm_context, tools=[_OtherWeather()]
        )


async def test_a_name_two_offered_tools_fit_is_refused_naming_both(
    house: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """Two APIs offer get_weather: `GET_WEATHER ` fits both, so neither runs."""
    hass = house
    llm.async_register_api(
        hass, _OtherAPI(hass=hass, id="other_weather", name="Other weather")
    )
    apis = [*APIS, "other_weather"]
    agent = await _agent(hass, fake_llm, apis)
    ours = await offered_name(hass, apis, "get_weather")
    theirs = next(
        t["function"]["name"]
        for t in (await _tools(hass, fake_llm, agent))
        if t["function"]["name"] != ours and "get_weather" in t["function"]["name"]
    )
    fake_llm.script(
        [
            Reply.tool_calls([("GET_WEATHER ", {"location": "Lisbon"})]),
            Reply.text("Which weather?"),
        ]
    )
    _OtherWeather.calls = 0

    assert await _say(hass, agent, "weather in Lisbon") == "Which weather?"
    both = sorted([ours, theirs])
    assert _sent_back(fake_llm) == {
        "success": False,
        "error": f"Ambiguous tool name: GET_WEATHER  fits {both[0]} and {both[1]}",
        "valid_tools": both,
        "hint": "Call one of these by its exact name.",
    }
    assert _OtherWeather.calls == 0


async def _tools(hass: HomeAssistant, server: FakeLLM, agent: str) -> list[Any]:
    """The tools the agent offers (one turn that only answers)."""
    server.script([Reply.text("Hello.")])
    await _say(hass, agent, "hello")
    tools: list[Any] = server.requests[-1]["tools"]
    server.requests.clear()
    return tools


async def test_a_hidden_entity_id_reads_as_a_missing_one(
    house: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """The hidden strip stays off; the refusal is word for word the missing one's."""
    hass = house
    agent = await _agent(hass, fake_llm)
    turn_on = await offered_name(hass, APIS, "HassTurnOn")
    call = Reply.tool_calls([(turn_on, {"entity_id": HIDDEN})])
    fake_llm.script([call, Reply.text("I can't.")])

    assert await _say(hass, agent, "turn on the kitchen strip") == "I can't."
    assert _state(hass, HIDDEN) == STATE_OFF
    hidden = _sent_back(fake_llm)
    assert hidden == {
        "success": False,
        "error": f"Unknown entity: {HIDDEN}.",
        "hint": FIND_IDS,
        "unmatched": HIDDEN,
        "closest": ["Kitchen bar Kitchen light"],  # as search_entities names it
    }

    # Now the strip does not exist at all: the model is told exactly the same.
    er.async_get(hass).async_remove(HIDDEN)
    hass.states.async_remove(HIDDEN)
    fake_llm.requests.clear()
    fake_llm.script([call, Reply.text("I can't.")])
    assert await _say(hass, agent, "turn on the kitchen strip") == "I can't."
    assert _sent_back(fake_llm) == hidden


async def test_a_name_that_matches_nothing_gets_the_closest_exposed_names(
    house: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """A name HA matches to nothing ("porch"): the model gets "Porch light" to try."""
    hass = house
    agent = await _agent(hass, fake_llm)
    turn_on = await offered_name(hass, APIS, "HassTurnOn")
    fake_llm.script(
        [
            Reply.tool_calls([(turn_on, {"name": "porch"})]),
            Reply.tool_calls([(turn_on, PORCH)]),
            Reply.text(ANSWER),
        ]
    )

    assert await _say(hass, agent, "turn on the porch light") == ANSWER
    assert _state(hass, LIGHT) == STATE_ON
    assert _sent_back(fake_llm, 1) == {
        "success": False,
        "error": "No entities matched the name (given name 'porch')",
        "unmatched": "porch",
        "hint": "Use one of the closest names, or search_entities.",
        "closest": ["Porch light"],
    }


async def test_arguments_a_tool_does_not_take_are_refused_with_what_it_takes(
    house: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """Not an intent: nothing is dropped; the model learns the tool's arguments."""
    hass = house
    agent = await _agent(hass, fake_llm)
    search = await offered_name(hass, APIS, "search_entities")
    fake_llm.script([Reply.tool_calls([(search, {"q": "porch"})]), Reply.text("Hm.")])

    assert await _say(hass, agent, "find the porch light") == "Hm."
    assert _sent_back(fake_llm) == {
        "success": False,
        "error": "Invalid arguments: not a valid option at 'q'",
        "hint": "Fix the arguments and call the tool again.",
        "arguments_taken": ["area", "domain", "floor", "limit", "query"],
        "required": [],
    }


async def test_a_repaired_unlock_still_waits_for_the_yes(
    house: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """`functions.` + the lock's entity_id: repaired, then held and asked; locked."""
    hass = house
    await hass.services.async_call(
        "input_boolean", "turn_on", {"entity_id": "input_boolean.front_door"}, True
    )
    assert _state(hass, LOCK) == "locked"
    agent = await _agent(hass, fake_llm)
    turn_off = await offered_name(hass, APIS, "HassTurnOff")
    fake_llm.script(
        [Reply.tool_calls([(f"functions.{turn_off}", {"entity_id": LOCK})])]
    )

    speech = await _say(hass, agent, "unlock the front door")

    assert speech == "Shall I unlock Front door?"
    assert _state(hass, LOCK) == "locked"
    (traced,) = _repairs_traced()
    assert traced["repairs"] == [
        f"tool name 'functions.{turn_off}' read as '{turn_off}'",
        "entity_id 'lock.front_door' taken as the name",
    ]


async def test_a_huge_name_is_quoted_short(
    house: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """A name of 2,400 characters: `unmatched` quotes its start; nothing turns on."""
    hass = house
    agent = await _agent(hass, fake_llm)
    turn_on = await offered_name(hass, APIS, "HassTurnOn")
    huge = "porch light " * 200
    fake_llm.script(
        [Reply.tool_calls([(turn_on, {"name": huge})]), Reply.text("Sorry.")]
    )

    assert await _say(hass, agent, "turn on the porch light") == "Sorry."
    assert _state(hass, LIGHT) == STATE_OFF
    sent = _sent_back(fake_llm)
    assert sent["unmatched"] == huge[:120]
    assert sent["closest"] == ["Porch light"]
