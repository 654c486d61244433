"""Names a model gets nearly right: the one exposed entity that fits, else nothing.

When more than one fits, nothing runs and the closest names are fed back. Found by bench/real_model.py with Qwen2.5-Coder 0.5B/1.5B: models send a name without
its area word, with it, the area for the one device of that kind there, an object id,
or part of a to-do list's name. In the acceptance table's home: the kitchen has two
lights (Kitchen ceiling, Kitchen spots), the office one light (Desk lamp) and a fan.
"""

import json
from typing import Any

import pytest

from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.const import STATE_OFF, STATE_ON
from homeassistant.core import HomeAssistant
from homeassistant.helpers import llm

from tests.acceptance.home import (  # the home fixture: the table's home
    states,
    table_home,  # noqa: F401
)
from tests.across_releases import offered_name
from tests.fake_llm import FakeLLM, Reply
from tests.helpers import add_agent, converse, speech, state_of

APIS = [llm.LLM_API_ASSIST]
DONE = "Done."


@pytest.fixture
def hass_config_dir(hass_tmp_config_dir: str) -> str:
    """A configuration folder of the test's own (the shopping list is a file)."""
    return hass_tmp_config_dir


def _tool_result(server: FakeLLM) -> dict[str, Any]:
    """What the model read back from its call."""
    result: dict[str, Any] = json.loads(server.requests[1]["messages"][-1]["content"])
    return result


async def _call(
    hass: HomeAssistant,
    server: FakeLLM,
    intent_type: str,
    arguments: dict[str, Any],
    text: str = "do it",
) -> str:
    agent = await add_agent(hass, server, apis=APIS)
    tool = await offered_name(hass, APIS, intent_type)
    server.script([Reply.tool_calls([(tool, arguments)]), Reply.text(DONE)])
    return speech(await converse(hass, agent, text))


@pytest.mark.parametrize(
    ("arguments", "entity_id"),
    [
        # The name without its area word.
        ({"name": "Ceiling"}, "light.kitchen_ceiling"),
        ({"name": "spots", "area": "Kitchen"}, "light.kitchen_spots"),
        # With its area's words added.
        ({"name": "Bedroom bedside lamp"}, "light.bedside_lamp"),
        # The area for its one device of the kind asked for.
        ({"name": "Office", "domain": "light"}, "light.desk_lamp"),
        ({"name": "office light", "domain": ["light"]}, "light.desk_lamp"),
        ({"name": "Landing"}, "light.landing_light"),
        # The area and part of the name.
        ({"name": "lamp", "area": "office"}, "light.desk_lamp"),
        # The object id.
        ({"name": "kitchen_spots"}, "light.kitchen_spots"),
        # A name one entity has, with a place or kind the model guessed wrong.
        ({"name": "Desk lamp", "area": "Living room"}, "light.desk_lamp"),
        (
            {"name": "desk lamp", "domain": ["switch"], "device_class": ["water"]},
            "light.desk_lamp",
        ),
        ({"name": "Desk lamp", "area": "", "floor": "Attic"}, "light.desk_lamp"),
    ],
)
async def test_a_nearly_right_name_acts_on_the_one_entity_it_fits(
    home: HomeAssistant,
    fake_llm: FakeLLM,
    arguments: dict[str, Any],
    entity_id: str,
) -> None:
    """The entity it fits changes, nothing else does; the model reads success."""
    hass = home
    verb = "HassTurnOff" if state_of(hass, entity_id) == STATE_ON else "HassTurnOn"
    before = states(hass)

    assert await _call(hass, fake_llm, verb, arguments) == DONE

    after = states(hass)
    changed = {e for e in after if after[e] != before[e]}
    assert changed == {entity_id}
    assert _tool_result(fake_llm)["success"] is True


@pytest.mark.parametrize(
    ("arguments", "closest"),
    [
        # Two kitchen lights fit: neither is guessed.
        (
            {"name": "Kitchen", "domain": "light"},
            ["Kitchen ceiling", "Kitchen spots", "Coffee maker"],
        ),
        ({"name": "kitchen light"}, ["Kitchen ceiling", "Kitchen spots"]),
        # The office has a lamp and a fan: without a kind, no one device.
        ({"name": "Office"}, ["Office fan", "Desk lamp"]),
        # A word of a name, for an intent that acts on many kinds: not enough.
        ({"name": "bedside"}, ["Bedside lamp"]),
    ],
)
async def test_a_name_more_than_one_entity_fits_changes_nothing(
    home: HomeAssistant,
    fake_llm: FakeLLM,
    arguments: dict[str, Any],
    closest: list[str],
) -> None:
    """Nothing runs; the model is given the closest exposed names to try.

    The model's "Done." is not what is heard: the failed action is.
    """
    hass = home
    before = states(hass)

    said = await _call(hass, fake_llm, "HassTurnOn", arguments)

    assert said == f"I couldn't find “{arguments['name']}”."
    assert states(hass) == before
    result = _tool_result(fake_llm)
    assert result["success"] is False
    assert result["unmatched"] == arguments["name"]
    assert result["closest"] == closest


async def test_an_unexposed_entity_is_never_the_one_that_fits(
    home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """With the spots hidden, "Kitchen" fits the one exposed kitchen light alone."""
    hass = home
    async_expose_entity(hass, "conversation", "light.kitchen_spots", False)

    await _call(hass, fake_llm, "HassTurnOn", {"name": "spots", "area": "Kitchen"})
    assert state_of(hass, "light.kitchen_spots") == STATE_OFF
    assert "spots" not in json.dumps(_tool_result(fake_llm)["closest"]).lower()

    fake_llm.requests.clear()
    await _call(hass, fake_llm, "HassTurnOn", {"name": "Kitchen", "domain": "light"})
    assert state_of(hass, "light.kitchen_ceiling") == STATE_ON
    assert state_of(hass, "light.kitchen_spots") == STATE_OFF


async def test_a_nearly_named_lock_is_still_asked_before_it_opens(
    home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """The hall's front door, read from "Hall front door": unlocking waits for a yes."""
    hass = home
    agent = await add_agent(hass, fake_llm, apis=APIS)
    tool = await offered_name(hass, APIS, "HassTurnOff")
    fake_llm.script(
        [Reply.tool_calls([(tool, {"name": "Hall front door"})]), Reply.text(DONE)]
    )

    result = await converse(hass, agent, "unlock the door")

    assert result.continue_conversation is True
    assert speech(result) == "Shall I unlock Front door?"
    assert state_of(hass, "lock.front_door") == "locked"


async def test_part_of_a_list_name_adds_to_the_one_list(
    home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """The list intent acts on to-do lists alone: "shopping" is the Shopping List."""
    hass = home

    await _call(hass, fake_llm, "HassListAddItem", {"name": "shopping", "item": "eggs"})

    result: Any = await hass.services.async_call(
        "todo",
        "get_items",
        {"entity_id": "todo.shopping_list"},
        blocking=True,
        return_response=True,
    )
    items = result["todo.shopping_list"]["items"]
    assert [item["summary"] for item in items] == ["Eggs"]
    assert _tool_result(fake_llm)["success"] is True
