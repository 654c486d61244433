"""Every model family's written tool call, through `async_converse`: a call is a call.

For each family's notation (tests/written_forms.py), as a server leaves it in the text
when its tool parser is not set up: the porch light goes on and the model's answer
after it is heard. The same call with words after it ("That is the call I would
make…") is an answer, and so is a call written inside a reasoning block: the light
stays off, nothing runs, the model is asked once, and the user hears the answer.
"""

import json
from typing import Any

import pytest

from homeassistant.components import conversation
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.const import STATE_OFF, STATE_ON
from homeassistant.core import HomeAssistant

from custom_components.agentic_conversation.words.speech import clean_for_speech
from tests.across_releases import offered_name
from tests.fake_llm import FakeLLM, Reply
from tests.helpers import say, state_of
from tests.test_confirmation import LIGHT, LOCK, home
from tests.test_text_tool_calls import APIS, _agent
from tests.written_forms import FAMILY_CALLS, IN_PROSE, IN_REASONING, written

__all__ = ["home"]  # the fixture: a porch light and a locked front door, exposed

ANSWER = "The porch light is on."


@pytest.mark.parametrize("form", FAMILY_CALLS)
async def test_each_family_s_written_call_turns_the_light_on(
    home: HomeAssistant, fake_llm: FakeLLM, form: str
) -> None:
    """The call runs like a real one; the model's next answer is what is heard."""
    hass = home
    agent = await _agent(hass, fake_llm)
    turn_on = await offered_name(hass, APIS, "HassTurnOn")
    fake_llm.script([Reply.text(written(form, turn_on)), Reply.text(ANSWER)])

    speech = await say(hass, agent, "turn on the porch light")

    assert speech == ANSWER
    assert state_of(hass, LIGHT) == STATE_ON
    calls = fake_llm.requests[1]["messages"][-2]["tool_calls"]
    assert [call["function"]["name"] for call in calls] == [turn_on]
    assert fake_llm.requests[1]["messages"][-1]["role"] == "tool"


@pytest.mark.parametrize("form", FAMILY_CALLS)
@pytest.mark.parametrize("around", ["prose", "reasoning"])
async def test_a_call_in_prose_or_reasoning_is_an_answer(
    home: HomeAssistant, fake_llm: FakeLLM, form: str, around: str
) -> None:
    """Words after the call, or the call inside `<think>`: nothing runs, words heard."""
    hass = home
    agent = await _agent(hass, fake_llm)
    turn_on = await offered_name(hass, APIS, "HassTurnOn")
    answer = (IN_PROSE if around == "prose" else IN_REASONING).format(
        call=written(form, turn_on)
    )
    fake_llm.script([Reply.text(answer, chunk_size=3)])

    speech = await say(hass, agent, "how would you turn on the porch light?")

    if around == "reasoning":
        assert speech == "Shall I?"
    else:
        # The model's words as the speaker says any answer (markdown dropped).
        assert speech == clean_for_speech(answer).strip()
        assert speech.endswith(
            "That is the call I would make, if you want the light on."
        )
    assert state_of(hass, LIGHT) == STATE_OFF
    assert len(fake_llm.requests) == 1


@pytest.mark.parametrize("glued", ["whole", "last part"])
async def test_a_glued_namespace_still_names_the_tool(
    home: HomeAssistant, fake_llm: FakeLLM, glued: str
) -> None:
    """`intentHassTurnOn` for `intent__HassTurnOn` (markdown took the `__`): it runs."""
    hass = home
    agent = await _agent(hass, fake_llm)
    turn_on = await offered_name(hass, APIS, "HassTurnOn")
    parts = turn_on.split("__")
    name = "".join(parts if glued == "whole" else parts[-2:])
    if name == turn_on:
        pytest.skip("this release offers HassTurnOn without a namespace")
    fake_llm.script(
        [
            Reply.text(
                f'<tool_call>{{"name": "{name}", "arguments": '
                '{"name": "Porch light"}}</tool_call>'
            ),
            Reply.text(ANSWER),
        ]
    )

    speech = await say(hass, agent, "turn on the porch light")

    assert speech == ANSWER
    assert state_of(hass, LIGHT) == STATE_ON
    calls = fake_llm.requests[1]["messages"][-2]["tool_calls"]
    assert [call["function"]["name"] for call in calls] == [turn_on]


def _tool_results(server: FakeLLM) -> list[dict[str, Any]]:
    """The tool results the model was sent in its second request."""
    return [
        json.loads(message["content"])
        for message in server.requests[1]["messages"]
        if message["role"] == "tool"
    ]


async def test_an_entity_called_as_a_tool_is_the_intent_it_means(
    home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """`porch_light` with `"state": "on"`: the one exposed entity, turned on."""
    hass = home
    agent = await _agent(hass, fake_llm)
    fake_llm.script(
        [
            Reply.text('{"name": "porch_light", "arguments": {"state": "on"}}'),
            Reply.text(ANSWER),
        ]
    )

    speech = await say(hass, agent, "turn on the porch light")

    assert speech == ANSWER
    assert state_of(hass, LIGHT) == STATE_ON
    (result,) = _tool_results(fake_llm)
    assert result["success"] is True


async def test_an_entity_called_to_unlock_is_asked_first(
    home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """`front_door` with `"action": "unlock"`: read as unlocking, held and asked."""
    hass = home
    agent = await _agent(hass, fake_llm)
    fake_llm.script(
        [
            Reply.text(
                '<tool_call>{"name": "front_door", "arguments": '
                '{"action": "unlock"}}</tool_call>'
            )
        ]
    )

    speech = await say(hass, agent, "unlock the front door")

    assert speech == "Shall I unlock Front door?"
    assert state_of(hass, LOCK) == "locked"


@pytest.mark.parametrize(
    ("sent", "arguments"),
    [
        ("hidden_heater", '{"state": "on"}'),  # exposed to nothing
        ("porch_light", "{}"),  # which way is not said
        ("porch_light", '{"state": "on", "action": "off"}'),  # both ways
        ("porch", '{"state": "on"}'),  # no entity's id
    ],
)
async def test_an_entity_call_that_is_not_plain_goes_back_as_unknown(
    home: HomeAssistant, fake_llm: FakeLLM, sent: str, arguments: str
) -> None:
    """Nothing runs; the model reads "Unknown tool" with the tools, no entity named."""
    hass = home
    hass.states.async_set("switch.hidden_heater", STATE_OFF)
    async_expose_entity(hass, conversation.DOMAIN, "switch.hidden_heater", False)
    agent = await _agent(hass, fake_llm)
    fake_llm.script(
        [
            Reply.text(f'{{"name": "{sent}", "arguments": {arguments}}}'),
            Reply.text("I could not do that."),
        ]
    )

    speech = await say(hass, agent, "turn on the heater")

    # A call of a tool that does not exist is a failed attempt, whatever the model
    # says after it.
    assert speech == "I couldn't do that: there is no such action."
    assert state_of(hass, LIGHT) == STATE_OFF
    assert state_of(hass, "switch.hidden_heater") == STATE_OFF
    (result,) = _tool_results(fake_llm)
    assert result["error"] == f"Unknown tool: {sent}"
    assert "switch." not in json.dumps(result)
