"""The acceptance table: each command, by each route, heard and done as it must be.

A row says what the user must hear (exact words) and which states must change;
a risky row says that nothing changed. Routes are one parametrisation (`ROUTES`):
HA's own agent (the yardstick; a risky row checks that it did the risky thing), a
tool-calling model (scripted per row), a chat-only model (commands go to the local
stage, which asks a risky one), the local route asked directly, the LLM down (the
local route after the failure: a risky one is refused) and the server down when the
connection was set up.
"""

from collections.abc import Awaitable, Callable
from contextlib import nullcontext
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from unittest.mock import patch
from zoneinfo import ZoneInfo

import pytest

from homeassistant.core import HomeAssistant
from homeassistant.helpers import llm
from homeassistant.util import dt as dt_util

from tests.across_releases import offered_name
from tests.fake_llm import FakeLLM, Reply, closed_port_url
from tests.helpers import add_agent, say as _converse

from .home import async_build_home, async_run_local, states

# The LLM-down route's failed call is retried at once, not after real seconds.
pytestmark = pytest.mark.usefixtures("no_retry_wait")

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
    risky: dict[str, str] = field(default_factory=dict)  # what a risky action changes
    asked: str = ""  # a risky row: our question (the LLM down: HA's words, refused)
    frozen: bool = False  # asked at `NOW`


OFF, ON = "off", "on"
TEMPERATURE, VOLUME = (
    "climate.thermostat temperature",
    "media_player.living_room_tv volume_level",
)
NOW = datetime(2026, 11, 24, 18, 30, tzinfo=UTC).astimezone(
    ZoneInfo("US/Pacific")
)  # the time rows' frozen now: 10:30 AM in US/Pacific
TABLE = [
    # Lights: names, plural names, areas, floors, a name said wrong.
    Row("turn on the kitchen ceiling", "Turned on the light", {"light.kitchen_ceiling": ON}, (("HassTurnOn", {"name": "Kitchen ceiling"}),)),
    Row("switch on the desk lamp", "Turned on the light", {"light.desk_lamp": ON}, (("HassTurnOn", {"name": "Desk lamp"}),)),
    Row("turn on the bedside lamp", "Turned on the light", {"light.bedside_lamp": ON}, (("HassTurnOn", {"name": "Bedside lamp"}),)),
    Row("turn off the hall light", "Turned off the light", {"light.hall_light": OFF}, (("HassTurnOff", {"name": "Hall light"}),)),
    Row("turn on the lights in the kitchen", "Turned on the lights", {"light.kitchen_ceiling": ON, "light.kitchen_spots": ON}, (("HassTurnOn", {"area": "Kitchen", "domain": ["light"]}),)),
    Row("turn on the kitchen lights", "Turned on the lights", {"light.kitchen_ceiling": ON, "light.kitchen_spots": ON}, (("HassTurnOn", {"area": "Kitchen", "domain": ["light"]}),)),
    Row("turn off the lights in the living room", "Turned off the lights", {"light.living_room_lamp": OFF}, (("HassTurnOff", {"area": "Living room", "domain": ["light"]}),)),
    Row("turn on the lights upstairs", "Turned on the lights", {"light.desk_lamp": ON, "light.bedside_lamp": ON}, (("HassTurnOn", {"floor": "Upstairs", "domain": ["light"]}),)),
    Row("turn off the lights upstairs", "Turned off the lights", {"light.landing_light": OFF}, (("HassTurnOff", {"floor": "Upstairs", "domain": ["light"]}),)),
    Row("turn on the lights on the ground floor", "Turned on the lights", {"light.kitchen_ceiling": ON, "light.kitchen_spots": ON}, (("HassTurnOn", {"floor": "Ground floor", "domain": ["light"]}),)),
    Row("turn on the kitchen spots", "Turned on the light", {"light.kitchen_spots": ON}, (("HassTurnOn", {"name": "Kitchen spots"}),)),
    Row("turn on the kitchen spot", "Turned on the light", {"light.kitchen_spots": ON}, (("HassTurnOn", {"name": "Kitchen spots"}),)),
    Row("is the desk lamp on", "No, off", {}, (("GetLiveContext", {}),)),
    # Switches and fans.
    Row("turn on the coffee maker", "Turned on the switch", {"switch.coffee_maker": ON}, (("HassTurnOn", {"name": "Coffee maker"}),)),
    Row("turn off the dehumidifier", "Turned off the switch", {"switch.dehumidifier": OFF}, (("HassTurnOff", {"name": "Dehumidifier"}),)),
    Row("turn on the ceiling fan", "Turned on the fan", {"fan.ceiling_fan": ON}, (("HassTurnOn", {"name": "Ceiling fan"}),)),
    Row("turn on the fan in the bedroom", "Turned on the fans", {"fan.ceiling_fan": ON}, (("HassTurnOn", {"area": "Bedroom", "domain": ["fan"]}),)),
    Row("turn off the office fan", "Turned off the fan", {"fan.office_fan": OFF}, (("HassTurnOff", {"name": "Office fan"}),)),
    # Covers: curtains, blinds; a garage door is risky.
    Row("open the living room curtains", "Opening", {"cover.living_room_curtains": "open"}, (("HassTurnOn", {"name": "Living room curtains"}),)),
    Row("open the curtains in the living room", "Opening the curtains", {"cover.living_room_curtains": "open"}, (("HassTurnOn", {"name": "Living room curtains"}),)),
    Row("close the bedroom blinds", "Closing", {"cover.bedroom_blinds": "closed"}, (("HassTurnOff", {"name": "Bedroom blinds"}),)),
    Row("close the blinds in the bedroom", "Closing the blinds", {"cover.bedroom_blinds": "closed"}, (("HassTurnOff", {"area": "Bedroom", "domain": ["cover"], "device_class": ["blind"]}),)),
    Row("open the garage door", NEEDS_MODEL, {}, risky={"cover.garage_door": "open"}, asked="Shall I open Garage door?"),
    # Locks: asking is safe, unlocking is risky.
    Row("is the front door locked", "Yes", {}, (("GetLiveContext", {}),)),
    Row("unlock the front door", NEEDS_MODEL, {}, risky={"lock.front_door": "unlocked"}, asked="Shall I unlock Front door?"),
    # Climate.
    Row("set the thermostat to 21 degrees", "Temperature set to 21 degrees", {TEMPERATURE: "21.0"}, (("HassClimateSetTemperature", {"name": "Thermostat", "temperature": 21}),)),
    Row("set the living room temperature to 22 degrees", "Temperature set to 22 degrees", {TEMPERATURE: "22.0"}, (("HassClimateSetTemperature", {"area": "Living room", "temperature": 22}),)),
    Row("what is the temperature in the living room", "20.5 degrees", {}, (("GetLiveContext", {}),)),
    # Media players.
    Row("pause the living room tv", "Paused", {"media_player.living_room_tv": "paused"}, (("HassMediaPause", {"name": "Living room TV"}),)),
    Row("set the living room tv volume to 50%", "Volume set", {VOLUME: "0.5"}, (("HassSetVolume", {"name": "Living room TV", "volume_level": 50}),)),
    Row("set the volume of the living room tv to 40", "Volume set", {VOLUME: "0.4"}, (("HassSetVolume", {"name": "Living room TV", "volume_level": 40}),)),
    # To-do lists and vacuums.
    Row("add milk to the shopping list", "Added milk", {"todo.shopping_list": "1"}, (("HassListAddItem", {"name": "Shopping list", "item": "milk"}),)),
    Row("add bread to my shopping list", "Added bread", {"todo.shopping_list": "1"}, (("HassListAddItem", {"name": "Shopping list", "item": "bread"}),)),
    Row("start the robot vacuum", "Started", {"vacuum.robot_vacuum": "cleaning"}, (("HassVacuumStart", {"name": "Robot vacuum"}),)),
    # Timers (a timer needs a device that rings: text has none), time, date, weather.
    Row("set a timer for 5 minutes", "Sorry, timers are not supported on this device", {}),
    Row("what time is it", "10:30 AM", {}, frozen=True),
    Row("what's the date today", "November 24th, 2026", {}, frozen=True),
    Row("what's the weather like", "18.0 °C and sunny", {}, (("GetLiveContext", {}),)),
    # Two commands in one sentence; one of them risky.
    Row("turn on the desk lamp and the bedside lamp", "Turned on the light.", {"light.desk_lamp": ON, "light.bedside_lamp": ON}, (("HassTurnOn", {"name": "Desk lamp"}), ("HassTurnOn", {"name": "Bedside lamp"}))),
    Row("turn off the hall light and turn on the desk lamp", "Turned off the light. Turned on the light.", {"light.hall_light": OFF, "light.desk_lamp": ON}, (("HassTurnOff", {"name": "Hall light"}), ("HassTurnOn", {"name": "Desk lamp"}))),
    Row("turn on the coffee maker and open the living room curtains", "Turned on the switch. Opening.", {"switch.coffee_maker": ON, "cover.living_room_curtains": "open"}, (("HassTurnOn", {"name": "Coffee maker"}), ("HassTurnOn", {"name": "Living room curtains"}))),
    Row("turn off the living room lamp and close the bedroom blinds", "Turned off the light. Closing.", {"light.living_room_lamp": OFF, "cover.bedroom_blinds": "closed"}, (("HassTurnOff", {"name": "Living room lamp"}), ("HassTurnOff", {"name": "Bedroom blinds"}))),
    Row("turn on the desk lamp and then unlock the front door", NEEDS_MODEL, {"light.desk_lamp": ON}, risky={"lock.front_door": "unlocked"}, asked="Turned on the light. Shall I unlock Front door?"),
]  # fmt: skip


@dataclass
class Route:
    """How a command reaches the home; `heard` maps HA's words to ours."""

    name: str
    ask: Callable[[HomeAssistant, FakeLLM, Row], Awaitable[str]]
    heard: Callable[[Row], str]


async def _agent(hass: HomeAssistant, base_url: str) -> str:
    return await add_agent(hass, base_url, minor_version=2, background=True)


async def _home_assistant(hass: HomeAssistant, fake_llm: FakeLLM, row: Row) -> str:
    return await _converse(hass, "conversation.home_assistant", row.text)


async def _llm_down(hass: HomeAssistant, fake_llm: FakeLLM, row: Row) -> str:
    agent = await _agent(hass, fake_llm.base_url)
    fake_llm.script([Reply.error(500)] * 2)
    return await _converse(hass, agent, row.text)


async def _down_at_boot(hass: HomeAssistant, fake_llm: FakeLLM, row: Row) -> str:
    """Set up while nothing listens at the server's address (see test_boot_down.py)."""
    agent = await _agent(hass, closed_port_url())
    return await _converse(hass, agent, row.text)


async def _chat_only(hass: HomeAssistant, fake_llm: FakeLLM, row: Row) -> str:
    fake_llm.probe_tool_reply = Reply.text("I cannot call tools.")
    agent = await _agent(hass, fake_llm.base_url)
    fake_llm.script([Reply.text("The model answered.")])
    return await _converse(hass, agent, row.text)


async def _local_route(hass: HomeAssistant, fake_llm: FakeLLM, row: Row) -> str:
    """The chat-only route's engine, asked directly (see `_chat_only`)."""
    outcome = await async_run_local(hass, row.text, [])
    return str(outcome.speech if outcome.answered else None)


async def _tool_calling(hass: HomeAssistant, fake_llm: FakeLLM, row: Row) -> str:
    """The model calls the row's tools, then says "Done." (or just answers in words)."""
    if row.risky:
        pytest.skip(
            "a risky row is the confirmation tests' (tests/test_confirmation.py)"
        )
    agent = await _agent(hass, fake_llm.base_url)
    api = [llm.LLM_API_ASSIST]
    calls = [(await offered_name(hass, api, name), args) for name, args in row.calls]
    replies = [Reply.tool_calls(calls)] if calls else []
    fake_llm.script([*replies, Reply.text("Done.")])
    return await _converse(hass, agent, row.text)


ROUTES = {
    route.name: route
    for route in [
        Route("home_assistant", _home_assistant, lambda row: row.heard),
        Route("tool_calling", _tool_calling, lambda row: "Done."),
        Route("chat_only", _chat_only, lambda row: row.asked or row.heard),
        Route("local_route", _local_route, lambda row: row.heard),
        Route("llm_down", _llm_down, lambda row: LOCAL_PREFACE + row.heard),
        Route("down_at_boot", _down_at_boot, lambda row: LOCAL_PREFACE + row.heard),
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
    # HA's clock stops at NOW for the time rows; the event loop's clock runs on (a
    # frozen loop would never end the LLM client's retry pause).
    with (
        patch.object(dt_util, "now", return_value=NOW) if row.frozen else nullcontext()
    ):
        heard = await ROUTES[route].ask(hass, fake_llm, row)
    await hass.async_block_till_done()  # what the command started (a volume step) ends

    expected = before | row.changes
    if row.risky and route == "home_assistant":
        # The yardstick does what it was told, risky or not: count it, don't copy it.
        assert states(hass) == expected | row.risky
        pytest.xfail("HA's own agent runs risky commands without asking")
    assert (heard, states(hass)) == (ROUTES[route].heard(row), expected)
