"""What a small model gets wrong and cannot be repaired goes back with what would work.

An unknown or ambiguous tool, a hidden or missing entity, a name that matches nothing,
arguments a tool does not take: the model reads the offered names, the closest exposed
names or the arguments taken, and nothing runs. Never a word of a hidden entity.
"""

from typing import Any

import pytest

from homeassistant.const import STATE_OFF, STATE_ON
from homeassistant.core import HomeAssistant
from homeassistant.helpers import entity_registry as er, llm

from custom_components.agentic_conversation.tools.argument_checks import FIND_IDS
from tests.across_releases import offered_name
from tests.fake_llm import FakeLLM, Reply
from tests.tools.conftest import state_of
from tests.tools.tool_call_turns import (
    APIS,
    HIDDEN,
    LIGHT,
    PORCH,
    agent,
    house,
    repairs_traced,
    say,
    sent_back,
)

__all__ = ["house"]  # the fixture


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
    agent_id = await agent(hass, fake_llm)
    fake_llm.script([Reply.tool_calls([(name, PORCH)]), Reply.text("Sorry.")])

    # A call of a tool that does not exist is an attempt that did nothing.
    assert await say(hass, agent_id, "turn on the porch light") == (
        "I couldn't do that: there is no such action."
    )
    assert state_of(hass, LIGHT) == STATE_OFF
    offered = sorted(t["function"]["name"] for t in fake_llm.requests[0]["tools"])
    assert sent_back(fake_llm) == {
        "success": False,
        "error": f"Unknown tool: {name}",
        "valid_tools": offered,
    }
    assert repairs_traced() == []


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
    agent_id = await agent(hass, fake_llm, apis)
    ours = await offered_name(hass, apis, "get_weather")
    theirs = next(
        t["function"]["name"]
        for t in (await _tools(hass, fake_llm, agent_id))
        if t["function"]["name"] != ours and "get_weather" in t["function"]["name"]
    )
    fake_llm.script(
        [
            Reply.tool_calls([("GET_WEATHER ", {"location": "Lisbon"})]),
            Reply.text("Which weather?"),
        ]
    )
    _OtherWeather.calls = 0

    assert await say(hass, agent_id, "weather in Lisbon") == (
        "I couldn't do that: there is no such action. Which weather?"
    )
    both = sorted([ours, theirs])
    assert sent_back(fake_llm) == {
        "success": False,
        "error": f"Ambiguous tool name: GET_WEATHER  fits {both[0]} and {both[1]}",
        "valid_tools": both,
        "hint": "Call one of these by its exact name.",
    }
    assert _OtherWeather.calls == 0


async def _tools(hass: HomeAssistant, server: FakeLLM, agent_id: str) -> list[Any]:
    """The tools the agent offers (one turn that only answers)."""
    server.script([Reply.text("Hello.")])
    await say(hass, agent_id, "hello")
    tools: list[Any] = server.requests[-1]["tools"]
    server.requests.clear()
    return tools


async def test_a_hidden_entity_id_reads_as_a_missing_one(
    house: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """The hidden strip stays off; the refusal is word for word the missing one's."""
    hass = house
    agent_id = await agent(hass, fake_llm)
    turn_on = await offered_name(hass, APIS, "HassTurnOn")
    call = Reply.tool_calls([(turn_on, {"entity_id": HIDDEN})])
    fake_llm.script([call, Reply.text("I can't.")])
    # What the user hears names only what the model sent, never what exists.
    refused = f"I couldn't find “{HIDDEN}”."

    assert await say(hass, agent_id, "turn on the kitchen strip") == refused
    assert state_of(hass, HIDDEN) == STATE_OFF
    hidden = sent_back(fake_llm)
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
    assert await say(hass, agent_id, "turn on the kitchen strip") == refused
    assert sent_back(fake_llm) == hidden


async def test_a_name_that_matches_nothing_gets_the_closest_exposed_names(
    house: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """A name HA matches to nothing ("kitchen"): the model gets the names to try.

    The kitchen has two exposed devices, so the area names neither (the porch's one
    light would be read from "porch": tests/tools/test_near_names.py).
    """
    hass = house
    agent_id = await agent(hass, fake_llm)
    turn_on = await offered_name(hass, APIS, "HassTurnOn")
    fake_llm.script(
        [
            Reply.tool_calls([(turn_on, {"name": "kitchen"})]),
            Reply.tool_calls([(turn_on, {"name": "Kitchen light"})]),
            Reply.text("The kitchen light is on."),
        ]
    )

    said = await say(hass, agent_id, "turn on the kitchen light")

    assert said == "The kitchen light is on."
    assert state_of(hass, "light.kitchen_light") == STATE_ON
    assert state_of(hass, "switch.coffee_machine") == STATE_OFF
    assert sent_back(fake_llm, 1) == {
        "success": False,
        "error": "No entities matched the name (given name 'kitchen')",
        "unmatched": "kitchen",
        "hint": "Use one of the closest names, or search_entities.",
        "closest": ["Kitchen bar Kitchen light", "Coffee machine"],
    }


async def test_arguments_a_tool_does_not_take_are_refused_with_what_it_takes(
    house: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """Not an intent: nothing is dropped; the model learns the tool's arguments."""
    hass = house
    agent_id = await agent(hass, fake_llm)
    search = await offered_name(hass, APIS, "search_entities")
    fake_llm.script([Reply.tool_calls([(search, {"q": "porch"})]), Reply.text("Hm.")])

    assert await say(hass, agent_id, "find the porch light") == "Hm."
    assert sent_back(fake_llm) == {
        "success": False,
        "error": "Invalid arguments: not a valid option at 'q'",
        "hint": "Fix the arguments and call the tool again.",
        "arguments_taken": ["area", "domain", "floor", "limit", "query"],
        "required": [],
    }


async def test_a_huge_name_is_quoted_short(
    house: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """A name of 2,400 characters: `unmatched` quotes its start; nothing turns on."""
    hass = house
    agent_id = await agent(hass, fake_llm)
    turn_on = await offered_name(hass, APIS, "HassTurnOn")
    huge = "porch light " * 200
    fake_llm.script(
        [Reply.tool_calls([(turn_on, {"name": huge})]), Reply.text("Sorry.")]
    )

    # The user hears its first 60 characters only.
    heard = f"I couldn't find “{huge[:60].strip()}”."
    assert await say(hass, agent_id, "turn on the porch light") == heard
    assert state_of(hass, LIGHT) == STATE_OFF
    sent = sent_back(fake_llm)
    assert sent["unmatched"] == huge[:120]
    assert sent["closest"] == ["Porch light"]
