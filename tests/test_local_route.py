"""The home keeps answering when the LLM does not: Home Assistant's own agent.

Each test checks the light's state and what was said: with the LLM failing in every
way, "turn on the porch light" still turns it on — but never twice, never a risky
action, and a model that cannot call tools is not the one that answers commands.
"""

from typing import Any

import pytest

from homeassistant.components import conversation
from homeassistant.components.conversation import trace
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import HomeAssistant, ServiceCall, callback
from homeassistant.helpers import intent, llm
from homeassistant.setup import async_setup_component

from custom_components.agentic_conversation.const import (
    CONF_LOCAL_FALLBACK,
    CONF_TURN_TIMEOUT,
)
from tests.across_releases import offered_name
from tests.fake_llm import FakeLLM, Reply
from tests.helpers import (
    add_agent,
    converse as _say,
    speech as _speech,
    state_of as _state,
)

# The failing LLM is retried at once (what a retry waits is test_resilient_provider's).
pytestmark = pytest.mark.usefixtures("no_retry_wait")

LIGHT = "light.porch_light"
LOCK = "lock.front_door"


@pytest.fixture
async def home(ha_core: HomeAssistant) -> HomeAssistant:
    """An exposed porch light and a locked, exposed front door (templates)."""
    hass = ha_core
    assert await async_setup_component(
        hass,
        "input_boolean",
        {"input_boolean": {"porch": {}, "door": {"initial": True}}},
    )
    porch = {"entity_id": "input_boolean.porch"}
    door = {"entity_id": "input_boolean.door"}
    assert await async_setup_component(
        hass,
        "template",
        {
            "template": [
                {
                    "light": [
                        {
                            "name": "Porch light",
                            "state": "{{ is_state('input_boolean.porch', 'on') }}",
                            "turn_on": {
                                "action": "input_boolean.turn_on",
                                "target": porch,
                            },
                            "turn_off": {
                                "action": "input_boolean.turn_off",
                                "target": porch,
                            },
                        }
                    ],
                    "lock": [
                        {
                            "name": "Front door",
                            "state": "{{ is_state('input_boolean.door', 'on') }}",
                            "lock": {"action": "input_boolean.turn_on", "target": door},
                            "unlock": {
                                "action": "input_boolean.turn_off",
                                "target": door,
                            },
                        }
                    ],
                }
            ]
        },
    )
    assert await async_setup_component(hass, "intent", {})
    await hass.async_block_till_done()
    async_expose_entity(hass, conversation.DOMAIN, LIGHT, True)
    async_expose_entity(hass, conversation.DOMAIN, LOCK, True)
    return hass


async def _agent(hass: HomeAssistant, base_url: str, **options: Any) -> str:
    return await add_agent(hass, base_url, minor_version=2, **options)


FAULTS = {
    "500": [Reply.error(500)] * 2,
    "429": [Reply.error(429)] * 2,
    "garbage": [Reply.raw("this is not JSON", content_type="text/plain")] * 2,
    "hang": [Reply.hang()],
}


@pytest.mark.parametrize(
    ("language", "text", "preface", "done"),
    [
        ("en", "turn on the porch light", "The AI service isn't available, so I used the basic assistant: ", "Turned on the light"),
        ("de", "schalte Porch light ein", "Der KI-Dienst ist nicht verfügbar, deshalb habe ich den einfachen Assistenten benutzt: ", "Licht eingeschaltet"),
    ],
)  # fmt: skip
@pytest.mark.parametrize("fault", [*FAULTS, "refused"])
async def test_the_light_goes_on_whatever_the_llm_does(
    home: HomeAssistant,
    fake_llm: FakeLLM,
    *,
    fault: str,
    language: str,
    text: str,
    preface: str,
    done: str,
) -> None:
    """500, 429, garbage, a hang, a refused connection: HA's agent switches the light."""
    hass = home
    agent = await _agent(hass, fake_llm.base_url, **{CONF_TURN_TIMEOUT: 6})
    await hass.async_block_till_done(wait_background_tasks=True)
    if fault == "refused":
        await fake_llm.close()  # the server process is gone: connections are refused
    else:
        fake_llm.script(FAULTS[fault])

    result = await _say(hass, agent, text, language=language)

    assert _state(hass, LIGHT) == "on"
    assert _speech(result) == preface + done  # HA's own words after ours
    route = hass.states.get("sensor.agent_route")
    assert route is not None
    assert route.state == "local"
    details = [
        event["data"]
        for event in trace.async_get_traces()[-1].as_dict()["events"]
        if event["event_type"] == trace.ConversationTraceEventType.AGENT_DETAIL
        and "route" in event["data"]  # the reply stage's `verified` follows it
    ]
    assert {"route": "local"}.items() <= details[-1].items()
    assert details[-1]["reason"].startswith("no model answered")


async def test_nothing_is_done_twice(home: HomeAssistant, fake_llm: FakeLLM) -> None:
    """A tool ran, then the LLM died: no second run by HA's agent; what was done is told."""
    hass = home
    agent = await _agent(hass, fake_llm.base_url)
    calls: list[ServiceCall] = []

    @callback
    def record(event: Any) -> None:
        if event.data.get("domain") == "light":
            calls.append(event)

    hass.bus.async_listen("call_service", record)
    turn_on = await offered_name(hass, [llm.LLM_API_ASSIST], "HassTurnOn")
    fake_llm.script(
        [Reply.tool_calls([(turn_on, {"name": "Porch light"})]), Reply.error(500)]
    )

    result = await _say(hass, agent, "turn on the porch light")

    assert _state(hass, LIGHT) == "on"
    assert len(calls) == 1
    assert _speech(result) == (
        "I turned on Porch light. But the AI service had a problem answering. "
        "Please try again later."
    )


async def test_a_risky_command_is_never_run_by_the_basic_assistant(
    home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """LLM down and "unlock the front door": it stays locked; the user hears why."""
    hass = home
    agent = await _agent(hass, fake_llm.base_url)
    fake_llm.script([Reply.error(500)] * 2)

    result = await _say(hass, agent, "unlock the front door")

    assert _state(hass, LOCK) == "locked"
    assert _speech(result) == (
        "The AI service isn't available, so I used the basic assistant: That needs "
        "the AI service, which isn't available right now, so I didn't do it."
    )


async def test_the_option_off_keeps_the_failure_reply(
    home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """With the option off, nothing is switched: the failure is told."""
    hass = home
    agent = await _agent(hass, fake_llm.base_url, **{CONF_LOCAL_FALLBACK: False})
    fake_llm.script([Reply.error(500)] * 2)

    result = await _say(hass, agent, "turn on the porch light")

    assert _state(hass, LIGHT) == "off"
    assert _speech(result) == (
        "The AI service had a problem answering. Please try again later."
    )


async def test_a_model_that_ignores_tools_does_not_answer_commands(
    home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """The endpoint check found no tool calling: HA's agent acts; chit-chat is the model's."""
    hass = home
    fake_llm.probe_tool_reply = Reply.text("I cannot call tools.")
    agent = await _agent(hass, fake_llm.base_url)
    await hass.async_block_till_done(wait_background_tasks=True)
    fake_llm.script([Reply.text("Why did the lamp blush? It saw the switch.")])

    command = await _say(hass, agent, "turn on the porch light")
    joke = await _say(hass, agent, "tell me a joke")

    assert _state(hass, LIGHT) == "on"
    # HA's agent's own words, as an answer (not an error), in a conversation the
    # websocket API and a pipeline accept; the joke continues that conversation.
    assert _speech(command) == "Turned on the light"
    assert command.response.response_type is intent.IntentResponseType.ACTION_DONE
    assert command.conversation_id
    assert len(fake_llm.requests) == 1  # only the joke went to the model
    assert _speech(joke) == "Why did the lamp blush? It saw the switch."
    assert joke.conversation_id != command.conversation_id  # each asked anew
    sent = fake_llm.requests[0]["messages"]
    assert [m["role"] for m in sent if m["role"] != "system"] == ["user"]
