"""The acceptance table: each command, by each route, heard and done as it must be.

A row says what the user must hear (exact words) and which states must change;
a risky row says that nothing changed. Routes are one parametrisation (`ROUTES`):
HA's own agent (the yardstick), a tool-calling model (scripted per row), a chat-only
model (commands go to the local route), the LLM down (the local route after the
failure) and local first (every row without a model call; risky rows asked). Run with
`-s` to see the figures per route.
"""

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry

from homeassistant.components import conversation
from homeassistant.config_entries import ConfigSubentryData
from homeassistant.const import CONF_API_KEY, CONF_LLM_HASS_API
from homeassistant.core import Context, HomeAssistant
from homeassistant.helpers import llm

from custom_components.agentic_conversation.const import (
    CONF_BASE_URL,
    CONF_MODEL,
    DOMAIN,
)
from tests.across_releases import offered_name
from tests.fake_llm import MODEL, FakeLLM, Reply

from .home import async_build_home, async_run_local, states

LOCAL_PREFACE = "The AI service isn't available, so I used the basic assistant: "
NEEDS_MODEL = (
    "That needs the AI service, which isn't available right now, so I didn't do it."
)


@dataclass(frozen=True)
class Row:
    """One command: what HA's own agent says to it, and what it changes."""

    text: str
    heard: str
    changes: dict[str, str] = field(default_factory=dict)
    calls: tuple[tuple[str, dict[str, Any]], ...] = ()  # the scripted model's tools
    risky: bool = False


OFF, ON = "off", "on"
TABLE = [
    Row("turn on the kitchen ceiling", "Turned on the light", {"light.kitchen_ceiling": ON}, (("HassTurnOn", {"name": "Kitchen ceiling"}),)),
    Row("switch on the desk lamp", "Turned on the light", {"light.desk_lamp": ON}, (("HassTurnOn", {"name": "Desk lamp"}),)),
    Row("turn on the lights in the kitchen", "Turned on the lights", {"light.kitchen_ceiling": ON, "light.kitchen_spots": ON}, (("HassTurnOn", {"area": "Kitchen", "domain": ["light"]}),)),
    Row("turn on the kitchen lights", "Turned on the lights", {"light.kitchen_ceiling": ON, "light.kitchen_spots": ON}, (("HassTurnOn", {"area": "Kitchen", "domain": ["light"]}),)),
    Row("turn on the lights upstairs", "Turned on the lights", {"light.desk_lamp": ON, "light.bedside_lamp": ON}, (("HassTurnOn", {"floor": "Upstairs", "domain": ["light"]}),)),
    Row("turn on the kitchen spots", "Turned on the light", {"light.kitchen_spots": ON}, (("HassTurnOn", {"name": "Kitchen spots"}),)),
    Row("turn on the kitchen spot", "Turned on the light", {"light.kitchen_spots": ON}, (("HassTurnOn", {"name": "Kitchen spots"}),)),
    Row("turn on the desk lamp and the bedside lamp", "Turned on the light.", {"light.desk_lamp": ON, "light.bedside_lamp": ON}, (("HassTurnOn", {"name": "Desk lamp"}), ("HassTurnOn", {"name": "Bedside lamp"}))),
    Row("turn on the coffee maker", "Turned on the switch", {"switch.coffee_maker": ON}, (("HassTurnOn", {"name": "Coffee maker"}),)),
    Row("turn on the ceiling fan", "Turned on the fan", {"fan.ceiling_fan": ON}, (("HassTurnOn", {"name": "Ceiling fan"}),)),
    Row("open the living room curtains", "Opening", {"cover.living_room_curtains": "open"}, (("HassTurnOn", {"name": "Living room curtains"}),)),
    Row("open the curtains in the living room", "Opening the curtains", {"cover.living_room_curtains": "open"}, (("HassTurnOn", {"name": "Living room curtains"}),)),
    Row("is the front door locked", "Yes", {}, (("GetLiveContext", {}),)),
    Row("unlock the front door", NEEDS_MODEL, {}, risky=True),
    Row("turn on the lights on the ground floor", "Turned on the lights", {"light.kitchen_ceiling": ON, "light.kitchen_spots": ON}, (("HassTurnOn", {"floor": "Ground floor", "domain": ["light"]}),)),
    Row("turn on the coffee maker and open the living room curtains", "Turned on the switch. Opening.", {"switch.coffee_maker": ON, "cover.living_room_curtains": "open"}, (("HassTurnOn", {"name": "Coffee maker"}), ("HassTurnOn", {"name": "Living room curtains"}))),
    Row("turn on the bedside lamp", "Turned on the light", {"light.bedside_lamp": ON}, (("HassTurnOn", {"name": "Bedside lamp"}),)),
    Row("turn on the fan in the bedroom", "Turned on the fans", {"fan.ceiling_fan": ON}, (("HassTurnOn", {"area": "Bedroom", "domain": ["fan"]}),)),
    Row("turn on the desk lamp and then unlock the front door", NEEDS_MODEL, {"light.desk_lamp": ON}, risky=True),
]  # fmt: skip

# With local first, a risky row is asked (after what a compound command did first).
ASKED = {
    "unlock the front door": "Shall I unlock Front door?",
    "turn on the desk lamp and then unlock the front door": (
        "Turned on the light. Shall I unlock Front door?"
    ),
}


@dataclass
class Route:
    """How a command reaches the home; `heard` maps HA's words to ours."""

    name: str
    ask: Callable[[HomeAssistant, FakeLLM, Row], Awaitable[str]]
    heard: Callable[[Row], str]


async def _converse(hass: HomeAssistant, agent: str, text: str) -> str:
    result = await conversation.async_converse(
        hass, text, None, Context(), language="en", agent_id=agent
    )
    return str(result.response.speech["plain"]["speech"])


async def _agent(hass: HomeAssistant, fake_llm: FakeLLM, **options: Any) -> str:
    entry = MockConfigEntry(
        domain=DOMAIN,
        minor_version=2,
        data={CONF_BASE_URL: fake_llm.base_url, CONF_API_KEY: "sk-test"},
        subentries_data=[
            ConfigSubentryData(
                data={
                    CONF_MODEL: MODEL,
                    CONF_LLM_HASS_API: [llm.LLM_API_ASSIST],
                    **options,
                },
                subentry_type="conversation",
                title="Agent",
                unique_id=None,
            )
        ],
    )
    entry.add_to_hass(hass)
    await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done(wait_background_tasks=True)
    return "conversation.agent"


async def _home_assistant(hass: HomeAssistant, fake_llm: FakeLLM, row: Row) -> str:
    return await _converse(hass, "conversation.home_assistant", row.text)


async def _llm_down(hass: HomeAssistant, fake_llm: FakeLLM, row: Row) -> str:
    agent = await _agent(hass, fake_llm)
    fake_llm.script([Reply.error(500)] * 2)
    return await _converse(hass, agent, row.text)


async def _chat_only(hass: HomeAssistant, fake_llm: FakeLLM, row: Row) -> str:
    fake_llm.probe_tool_reply = Reply.text("I cannot call tools.")
    agent = await _agent(hass, fake_llm)
    fake_llm.script([Reply.text("The model answered.")])
    return await _converse(hass, agent, row.text)


async def _local_route(hass: HomeAssistant, fake_llm: FakeLLM, row: Row) -> str:
    """The chat-only route's engine, asked directly (see `_chat_only`)."""
    outcome = await async_run_local(hass, row.text, [])
    return str(outcome.speech if outcome.answered else None)


async def _local_first(hass: HomeAssistant, fake_llm: FakeLLM, row: Row) -> str:
    """Handle commands Home Assistant understands first: no model call for any row."""
    agent = await _agent(hass, fake_llm, local_first=True)
    heard = await _converse(hass, agent, row.text)
    assert fake_llm.requests == []
    return heard


async def _tool_calling(hass: HomeAssistant, fake_llm: FakeLLM, row: Row) -> str:
    if not row.calls:
        pytest.skip(
            "a risky row is the confirmation tests' (tests/test_confirmation.py)"
        )
    agent = await _agent(hass, fake_llm)
    api = [llm.LLM_API_ASSIST]
    calls = [(await offered_name(hass, api, name), args) for name, args in row.calls]
    fake_llm.script([Reply.tool_calls(calls), Reply.text("Done.")])
    return await _converse(hass, agent, row.text)


ROUTES = {
    route.name: route
    for route in [
        Route("home_assistant", _home_assistant, lambda row: row.heard),
        Route("tool_calling", _tool_calling, lambda row: "Done."),
        Route("chat_only", _chat_only, lambda row: row.heard),
        Route("local_route", _local_route, lambda row: row.heard),
        Route("local_first", _local_first, lambda row: ASKED.get(row.text, row.heard)),
        Route("llm_down", _llm_down, lambda row: LOCAL_PREFACE + row.heard),
    ]
}


@pytest.mark.parametrize("route", list(ROUTES))
@pytest.mark.parametrize("row", TABLE, ids=[row.text for row in TABLE])
async def test_row(
    ha_core: HomeAssistant,
    fake_llm: FakeLLM,
    request: pytest.FixtureRequest,
    route: str,
    row: Row,
) -> None:
    """The words heard and the states changed; nothing else changed."""
    hass = ha_core
    await async_build_home(hass)
    before = states(hass)

    heard = await ROUTES[route].ask(hass, fake_llm, row)

    expected = before | row.changes
    if row.risky and route == "home_assistant":
        pytest.xfail("HA's own agent runs risky commands without asking")
    assert (heard, states(hass)) == (ROUTES[route].heard(row), expected)
