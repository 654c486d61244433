"""`search_entities` and `get_entity_state`: only what is exposed, found by any name."""

import json

import probatio

from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import HomeAssistant
from homeassistant.helpers import llm

from custom_components.agentic_conversation.const import LLM_API_ID
from tests.tools.conftest import Result, call, context


def _ids(result: Result) -> list[str]:
    return [entity["entity_id"] for entity in result.data["entities"]]


async def test_finds_by_alias(home: HomeAssistant) -> None:
    """The porch light is found by its alias, "front light"."""
    result = await call(home, "search_entities", {"query": "front light"})

    assert _ids(result)[0] == "light.porch_light"


async def test_finds_by_area_and_never_returns_unexposed(home: HomeAssistant) -> None:
    """Everything in the kitchen that is exposed; the strip is not."""
    by_area = await call(home, "search_entities", {"area": "Kitchen"})
    by_words = await call(home, "search_entities", {"query": "kitchen"})
    garage = await call(home, "search_entities", {"query": "garage light"})

    assert sorted(_ids(by_area)) == ["light.kitchen_light", "switch.coffee_machine"]
    assert "light.kitchen_strip" not in _ids(by_words)
    assert "light.garage_light" not in _ids(garage)
    assert all(e["area"] == "Kitchen" for e in by_area.data["entities"])


async def test_filters_by_domain_and_limits(home: HomeAssistant) -> None:
    """A domain filter and a limit; the total says how many matched."""
    result = await call(home, "search_entities", {"domain": "light", "limit": 1})

    assert len(result.data["entities"]) == 1
    assert result.data["total_matches"] == 2  # porch and kitchen; not strip, garage


async def test_no_match_gives_a_hint(home: HomeAssistant) -> None:
    """Nothing found: the model is told how to search again."""
    result = await call(home, "search_entities", {"query": "jacuzzi"})

    assert result.data["entities"] == []
    assert "hint" in result.data


async def test_get_entity_state_hides_unexposed(home: HomeAssistant) -> None:
    """States of exposed entities; an unexposed one is reported as unknown."""
    result = await call(
        home,
        "get_entity_state",
        {"entity_ids": ["light.porch_light", "light.garage_light"]},
    )

    assert [s["entity_id"] for s in result.data["states"]] == ["light.porch_light"]
    assert result.data["states"][0]["area"] == "Porch"
    assert result.data["unknown_entity_ids"] == ["light.garage_light"]
    nothing = await call(home, "get_entity_state", {"entity_ids": "light.garage_light"})
    assert nothing.error


async def test_enabled_tools_follow_the_agent_options(home: HomeAssistant) -> None:
    """An agent that enabled only the weather gets only the weather tool."""
    api = await llm.async_get_api(
        home, LLM_API_ID, context(enabled_tools=frozenset({"get_weather"}))
    )
    assert [tool.name for tool in api.tools] == ["get_weather"]


def _request_size(api: llm.APIInstance) -> int:
    """Characters our agent sends for this API: tool definitions and API prompt."""
    tools = [
        {
            "name": tool.name,
            "description": tool.description,
            "parameters": probatio.to_openapi(
                tool.parameters,
                custom_serializer=api.custom_serializer,
                openapi_version="3.1.0",
            ),
        }
        for tool in api.tools
    ]
    return len(api.api_prompt) + len(json.dumps(tools))


async def test_request_size_does_not_grow_with_the_number_of_entities(
    home: HomeAssistant,
) -> None:
    """10 or 1000 exposed entities: what the model is sent stays the same size."""
    sizes: dict[int, int] = {}
    total = 0
    for wanted in (10, 1000):
        while total < wanted:
            entity_id = f"sensor.probe_{total}"
            home.states.async_set(entity_id, "21", {"friendly_name": f"Probe {total}"})
            async_expose_entity(home, "conversation", entity_id, True)
            total += 1
        api = await llm.async_get_api(home, LLM_API_ID, context())
        sizes[wanted] = _request_size(api)

    assert sizes[1000] <= sizes[10] * 1.10
    found = await call(home, "search_entities", {"query": "probe 999"})
    assert _ids(found)[0] == "sensor.probe_999"
