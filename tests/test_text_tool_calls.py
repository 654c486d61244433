"""A server that passes tool calls through as text: the light still goes on.

The model writes its call in one of the common text formats (the server's tool parser
is not set up); the agent carries it out through the same gate as a real call, the
user hears the model's answer after it, never the JSON, and the Route sensor notes it.
"""

import pytest

from homeassistant.const import STATE_ON
from homeassistant.core import HomeAssistant
from homeassistant.helpers import llm

from custom_components.agentic_conversation.const import LLM_API_ID
from tests.across_releases import offered_name
from tests.fake_llm import FakeLLM, Reply
from tests.helpers import add_agent, say as _say, state_of as _state
from tests.test_confirmation import LIGHT, LOCK, home

__all__ = ["home"]  # the fixture: a porch light and a locked front door, exposed

APIS = [llm.LLM_API_ASSIST, LLM_API_ID]
SENSOR = "sensor.agent_route"


def _written(form: str, name: str, arguments: str) -> str:
    """A call as models write it when the server does not parse it."""
    return {
        "hermes": f'<tool_call>\n{{"name": "{name}", "arguments": {arguments}}}\n'
        "</tool_call>",
        "bare json": f'{{"name": "{name}", "arguments": {arguments}}}',
        "mistral": f'[TOOL_CALLS][{{"name": "{name}", "arguments": {arguments}}}]',
        "llama 3": f'<|python_tag|>{{"name": "{name}", "parameters": {arguments}}}',
        "fenced json": f'```json\n{{"name": "{name}", "arguments": {arguments}}}\n```',
        "after reasoning": "<think>Turn it on.</think>\n<tool_call>"
        f'{{"name": "{name}", "arguments": {arguments}}}</tool_call>',
    }[form]


FORMS = ["hermes", "bare json", "mistral", "llama 3", "fenced json", "after reasoning"]


async def _agent(hass: HomeAssistant, server: FakeLLM) -> str:
    return await add_agent(hass, server, apis=APIS, api_key=None)


@pytest.mark.parametrize("form", FORMS)
async def test_a_call_written_as_text_is_carried_out(
    home: HomeAssistant, fake_llm: FakeLLM, form: str
) -> None:
    """Each format: the porch light goes on, the answer after it is what is heard."""
    hass = home
    agent = await _agent(hass, fake_llm)
    turn_on = await offered_name(hass, APIS, "HassTurnOn")
    fake_llm.script(
        [
            Reply.text(_written(form, turn_on, '{"name": "Porch light"}')),
            Reply.text("The porch light is on."),
        ]
    )

    speech = await _say(hass, agent, "turn on the porch light")

    assert speech == "The porch light is on."
    assert _state(hass, LIGHT) == STATE_ON
    # The model saw its call answered like a real one.
    answered = fake_llm.requests[1]["messages"]
    assert answered[-2]["tool_calls"][0]["function"]["name"] == turn_on
    assert answered[-1]["role"] == "tool"
    route = hass.states.get(SENSOR)
    assert route is not None
    assert route.attributes["calls_as_text"] is True


async def test_a_risky_written_call_waits_for_the_yes(
    home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """Written as text or not, unlocking is held and asked, the door stays locked."""
    hass = home
    agent = await _agent(hass, fake_llm)
    unlock = await offered_name(hass, APIS, "HassTurnOff")
    fake_llm.script([Reply.text(_written("hermes", unlock, '{"name": "Front door"}'))])

    speech = await _say(hass, agent, "unlock the front door")

    assert speech == "Shall I unlock Front door?"
    assert _state(hass, LOCK) == "locked"
    assert len(fake_llm.requests) == 1
