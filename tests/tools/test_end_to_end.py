"""One turn through our agent and the fake LLM: weather somewhere and a light at home."""

import json

from pytest_homeassistant_custom_component.common import MockConfigEntry

from homeassistant.components import conversation
from homeassistant.config_entries import ConfigSubentryData
from homeassistant.const import CONF_LLM_HASS_API
from homeassistant.core import Context, HomeAssistant
from homeassistant.helpers import llm

from custom_components.agentic_conversation.const import (
    CONF_BASE_URL,
    CONF_MODEL,
    DOMAIN,
    LLM_API_ID,
)
from tests.across_releases import offered_name
from tests.fake_llm import MODEL, FakeLLM, Reply
from tests.fake_open_meteo import FakeOpenMeteo

ANSWER = "Tomorrow in Lisbon: slight rain, up to 19 degrees. The porch light is on."


async def test_weather_and_light_in_one_turn(
    home: HomeAssistant, fake_llm: FakeLLM, fake_open_meteo: FakeOpenMeteo
) -> None:
    """Both tools are asked for in one response, run, and reported back; light on."""
    entry = MockConfigEntry(
        domain=DOMAIN,
        data={CONF_BASE_URL: fake_llm.base_url},
        subentries_data=[
            ConfigSubentryData(
                data={
                    CONF_MODEL: MODEL,
                    CONF_LLM_HASS_API: [llm.LLM_API_ASSIST, LLM_API_ID],
                },
                subentry_type="conversation",
                title="Agent",
                unique_id=None,
            )
        ],
    )
    entry.add_to_hass(home)
    assert await home.config_entries.async_setup(entry.entry_id)
    await home.async_block_till_done()
    # Merging the two APIs may rename our tools (how depends on HA's release).
    apis = [llm.LLM_API_ASSIST, LLM_API_ID]
    get_weather = await offered_name(home, apis, "get_weather")
    call_service = await offered_name(home, apis, "call_service")
    fake_llm.script(
        [
            Reply.tool_calls(
                [
                    (get_weather, {"location": "Lisbon", "days": 2}),
                    (
                        call_service,
                        {
                            "domain": "light",
                            "service": "turn_on",
                            "target": {"entity_id": ["light.porch_light"]},
                        },
                    ),
                ]
            ),
            Reply.text(ANSWER),
        ]
    )

    result = await conversation.async_converse(
        home,
        "what's the weather in Lisbon tomorrow and turn on the porch light",
        None,
        Context(),
        agent_id="conversation.agent",
    )

    offered = {tool["function"]["name"] for tool in fake_llm.requests[0]["tools"]}
    assert {get_weather, call_service} <= offered
    state = home.states.get("light.porch_light")
    assert state is not None
    assert state.state == "on"
    weather, light = (
        json.loads(m["content"])
        for m in fake_llm.requests[1]["messages"]
        if m["role"] == "tool"
    )
    assert weather["success"] is True
    assert weather["result"]["daily"][1]["conditions"] == "slight rain"
    assert light["result"]["states"][0]["state"] == "on"
    assert result.response.speech["plain"]["speech"] == ANSWER
