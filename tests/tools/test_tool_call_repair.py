"""A small model's plain slip in a tool call is repaired, and the light goes on.

Each test is one turn through `async_converse` with a scripted server: "turn on the
porch light", the model slips once, then answers. What is checked is what a user and
the model notice: the light, the words heard, and the tool result the model was sent.
"""

import json
from typing import Any

import pytest

from homeassistant.const import STATE_ON
from homeassistant.core import HomeAssistant

from tests.across_releases import offered_name
from tests.fake_llm import FakeLLM, Reply
from tests.tools.conftest import state_of
from tests.tools.tool_call_turns import (
    ANSWER,
    APIS,
    LIGHT,
    LOCK,
    PORCH,
    SENSOR,
    TURN_ON_TAKES,
    TURNED_ON,
    agent,
    house,
    repairs_traced,
    say,
    sent_back,
)

__all__ = ["house"]  # the fixture


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
    agent_id = await agent(hass, fake_llm)
    turn_on = await offered_name(hass, APIS, "HassTurnOn")
    name = rename(turn_on) if rename else turn_on
    fake_llm.script([Reply.tool_calls([(name, arguments)]), Reply.text(ANSWER)])

    speech = await say(hass, agent_id, "turn on the porch light")

    assert speech == ANSWER
    assert sent_back(fake_llm) == TURNED_ON
    assert state_of(hass, LIGHT) == STATE_ON
    (traced,) = repairs_traced()
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
    agent_id = await agent(hass, fake_llm)
    turn_on = await offered_name(hass, APIS, "HassTurnOn")
    twice = json.dumps(json.dumps(PORCH))
    fake_llm.script([Reply.tool_calls([(turn_on, twice)]), Reply.text(ANSWER)])

    assert await say(hass, agent_id, "turn on the porch light") == ANSWER
    assert state_of(hass, LIGHT) == STATE_ON
    assert sent_back(fake_llm) == TURNED_ON


async def test_null_arguments_are_none_and_the_model_is_told_what_it_takes(
    house: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """`null`: no arguments; HassTurnOn then has no target and says what it takes."""
    hass = house
    agent_id = await agent(hass, fake_llm)
    turn_on = await offered_name(hass, APIS, "HassTurnOn")
    fake_llm.script(
        [
            Reply.tool_calls([(turn_on, "null")]),
            Reply.tool_calls([(turn_on, PORCH)]),
            Reply.text(ANSWER),
        ]
    )

    assert await say(hass, agent_id, "turn on the porch light") == ANSWER
    assert state_of(hass, LIGHT) == STATE_ON
    assert sent_back(fake_llm, 1) == {
        "success": False,
        "error": "Service handler cannot target all devices",
        **TURN_ON_TAKES,
    }
    assert sent_back(fake_llm, 2) == TURNED_ON


async def test_an_argument_the_intent_does_not_take_is_dropped_and_told(
    house: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """HassTurnOn has no transition: the light goes on and the model learns why not."""
    hass = house
    agent_id = await agent(hass, fake_llm)
    turn_on = await offered_name(hass, APIS, "HassTurnOn")
    fake_llm.script(
        [
            Reply.tool_calls([(turn_on, {**PORCH, "transition": 2})]),
            Reply.text(ANSWER),
        ]
    )

    assert await say(hass, agent_id, "turn on the porch light") == ANSWER
    assert state_of(hass, LIGHT) == STATE_ON
    assert sent_back(fake_llm) == {
        **TURNED_ON,
        "ignored_arguments": ["transition"],
        "note": f"{turn_on} does not take transition; it was ignored.",
    }


async def test_a_repaired_unlock_still_waits_for_the_yes(
    house: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """`functions.` + the lock's entity_id: repaired, then held and asked; locked."""
    hass = house
    await hass.services.async_call(
        "input_boolean", "turn_on", {"entity_id": "input_boolean.front_door"}, True
    )
    assert state_of(hass, LOCK) == "locked"
    agent_id = await agent(hass, fake_llm)
    turn_off = await offered_name(hass, APIS, "HassTurnOff")
    fake_llm.script(
        [Reply.tool_calls([(f"functions.{turn_off}", {"entity_id": LOCK})])]
    )

    speech = await say(hass, agent_id, "unlock the front door")

    assert speech == "Shall I unlock Front door?"
    assert state_of(hass, LOCK) == "locked"
    (traced,) = repairs_traced()
    assert traced["repairs"] == [
        f"tool name 'functions.{turn_off}' read as '{turn_off}'",
        "entity_id 'lock.front_door' taken as the name",
    ]
