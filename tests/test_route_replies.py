"""The plain sentences, on every route, through every door a user talks through.

"hello", "turn on the kitchen lights", "what time is it", "tell me a joke", "turn off
the kitchen lights": asked of a tool-calling model, of a chat-only model (HA's own
agent takes the commands) and with the LLM down (HA's own agent, else the failure
told), through `async_converse`, the websocket `conversation/process` (the dashboard)
and an Assist pipeline (a satellite). Each reply is checked word for word, with its
response type, its conversation id, and the light's state after it.
"""

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
import json

import pytest

from homeassistant.components import conversation
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import HomeAssistant
from homeassistant.helpers import llm
from homeassistant.setup import async_setup_component
from homeassistant.util import dt as dt_util

from tests.across_releases import offered_name
from tests.assist_pipeline import Door
from tests.fake_llm import FakeLLM, Reply
from tests.helpers import add_agent

LIGHTS = "light.kitchen_lights"
JOKE = "Why did the lamp blush? It saw the switch."
DOWN = "I can't reach the AI service right now. Please check that it is running."
HELLO = "Hello from Home Assistant."  # HA's own agent knows "hello"
LOCAL = "The AI service isn't available, so I used the basic assistant: "


@dataclass(frozen=True, slots=True)
class Heard:
    """What one sentence must get: the words, the response type, the lights after."""

    text: str
    speech: str | Callable[[HomeAssistant], set[str]]
    response_type: str
    lights: str


@pytest.fixture
async def kitchen(ha_core: HomeAssistant) -> HomeAssistant:
    """Exposed kitchen lights (a template light over an input_boolean)."""
    hass = ha_core
    assert await async_setup_component(
        hass, "input_boolean", {"input_boolean": {"kitchen": {}}}
    )
    target = {"entity_id": "input_boolean.kitchen"}
    assert await async_setup_component(
        hass,
        "template",
        {
            "template": [
                {
                    "light": [
                        {
                            "name": "Kitchen lights",
                            "state": "{{ is_state('input_boolean.kitchen', 'on') }}",
                            "turn_on": {"action": "input_boolean.turn_on", "target": target},
                            "turn_off": {"action": "input_boolean.turn_off", "target": target},
                        }
                    ]
                }
            ]
        },
    )  # fmt: skip
    assert await async_setup_component(hass, "intent", {})
    await hass.async_block_till_done()
    async_expose_entity(hass, conversation.DOMAIN, LIGHTS, True)
    return hass


async def _agent(hass: HomeAssistant, fake_llm: FakeLLM) -> str:
    # The endpoint check (is the model calling tools?) runs in the background.
    return await add_agent(hass, fake_llm, minor_version=2, background=True)


def _moments() -> list[datetime]:
    """This minute and the one before: a test may straddle a minute."""
    now = dt_util.now()
    return [now - timedelta(minutes=1), now]


def _times(hass: HomeAssistant) -> set[str]:
    """What HA's agent says the time is."""
    return {moment.strftime("%-I:%M %p") for moment in _moments()}


def _scripted_model(turn_on: str, turn_off: str) -> list[Reply]:
    return [
        Reply.text("Hello! What can I do for you?"),
        Reply.tool_calls([(turn_on, {"name": "Kitchen lights"})]),
        Reply.text("The kitchen lights are on."),
        Reply.text("It is a quarter past two."),  # the prompt says the time
        Reply.text(JOKE),
        Reply.tool_calls([(turn_off, {"name": "Kitchen lights"})]),
        Reply.text("The kitchen lights are off."),
    ]


ROUTES: dict[str, list[Heard]] = {
    "tool-calling model": [
        Heard("hello", "Hello! What can I do for you?", "action_done", "off"),
        Heard("turn on the kitchen lights", "The kitchen lights are on.", "action_done", "on"),
        Heard("what time is it", "It is a quarter past two.", "action_done", "on"),
        Heard("tell me a joke", JOKE, "action_done", "on"),
        Heard("turn off the kitchen lights", "The kitchen lights are off.", "action_done", "off"),
    ],
    "chat-only model": [
        Heard("hello", HELLO, "action_done", "off"),
        Heard("turn on the kitchen lights", "Turned on the light", "action_done", "on"),
        Heard("what time is it", _times, "action_done", "on"),
        Heard("tell me a joke", JOKE, "action_done", "on"),
        Heard("turn off the kitchen lights", "Turned off the light", "action_done", "off"),
    ],
    "LLM down": [
        Heard("hello", f"{LOCAL}{HELLO}", "action_done", "off"),
        Heard("turn on the kitchen lights", f"{LOCAL}Turned on the light", "action_done", "on"),
        Heard("what time is it", lambda hass: {LOCAL + t for t in _times(hass)}, "action_done", "on"),
        Heard("tell me a joke", DOWN, "error", "on"),
        Heard("turn off the kitchen lights", f"{LOCAL}Turned off the light", "action_done", "off"),
    ],
}  # fmt: skip


@pytest.mark.parametrize("route", list(ROUTES))
async def test_every_sentence_is_answered_on_every_route(
    kitchen: HomeAssistant,
    fake_llm: FakeLLM,
    door: Door,
    *,
    route: str,
) -> None:
    """The exact words, the response type, one conversation id, the lights switched."""
    hass = kitchen
    if route == "chat-only model":
        fake_llm.probe_tool_reply = Reply.text("I cannot call tools.")
    agent = await _agent(hass, fake_llm)
    names = [
        await offered_name(hass, [llm.LLM_API_ASSIST], name)
        for name in ("HassTurnOn", "HassTurnOff")
    ]
    if route == "tool-calling model":
        fake_llm.script(_scripted_model(*names))
    elif route == "chat-only model":
        fake_llm.script([Reply.text(JOKE)])
    else:
        await fake_llm.close()  # the server is gone: connections are refused
    ask = await door.open(hass, agent)

    conversation_id: str | None = None
    for heard in ROUTES[route]:
        result = await ask(heard.text, conversation_id)
        speech = result["response"]["speech"]["plain"]["speech"]
        expected = heard.speech if isinstance(heard.speech, str) else None
        if expected is None:
            assert callable(heard.speech)
            assert speech in heard.speech(hass), heard.text
        else:
            assert speech == expected, heard.text
        assert result["response"]["response_type"] == heard.response_type, heard.text
        assert result["conversation_id"], heard.text
        assert conversation_id in (None, result["conversation_id"]), heard.text
        conversation_id = result["conversation_id"]
        assert hass.states.get(LIGHTS).state == heard.lights, heard.text  # type: ignore[union-attr]
        if door.name == "pipeline":
            # What the satellite spoke is the reply, word for word.
            assert door.said[-1:] == [speech], (heard.text, door.said)

    if route == "tool-calling model":
        assert fake_llm.unused == 0
        # The conversation's tool results reached the model as JSON.
        results = [
            json.loads(m["content"])
            for m in fake_llm.requests[-1]["messages"]
            if m["role"] == "tool"
        ]
        assert [r["success"] for r in results] == [True, True]
    elif route == "chat-only model":
        # Only what HA's agent does not know went to the model.
        assert [r["messages"][-1]["content"] for r in fake_llm.requests] == [
            "tell me a joke"
        ]
        # What HA's agent did is in the history the model got, the time included
        # (HA's intent result holds a datetime.time).
        results = [
            json.loads(m["content"])
            for m in fake_llm.requests[-1]["messages"]
            if m["role"] == "tool"
        ]
        assert [r["speech"]["plain"]["speech"] for r in results][:2] == [
            HELLO,
            "Turned on the light",
        ]
        assert results[2]["speech"]["plain"]["speech"] in _times(hass)
        assert results[2]["speech_slots"]["time"][:5] in {
            t.strftime("%H:%M") for t in _moments()
        }
