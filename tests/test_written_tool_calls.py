"""Calls small models write as text, in the forms the trackers report: carried out.

Through `async_converse` with a scripted server: pythonic calls (one or several),
Python dict literals, JSON with a trailing comma, single quotes or a comment, `null`
arguments. A well-formed call of a tool we do not offer goes back to the model as the
unknown-tool error and is never spoken; a call shown as an example in prose, or
pythonic with anything but literals, is an answer and nothing runs.
"""

import json
from typing import Any

import pytest

from homeassistant.const import STATE_OFF, STATE_ON
from homeassistant.core import HomeAssistant

from tests.across_releases import offered_name
from tests.fake_llm import FakeLLM, Reply
from tests.helpers import say as _say, state_of as _state
from tests.test_confirmation import LIGHT, LOCK, home
from tests.test_text_tool_calls import APIS, _agent

__all__ = ["home"]  # the fixture: a porch light and a locked front door, exposed

ANSWER = "The porch light is on."


def _sent_back(server: FakeLLM, request: int = 1) -> list[dict[str, Any]]:
    """The tool results the model was sent in a request, as JSON."""
    return [
        json.loads(message["content"])
        for message in server.requests[request]["messages"]
        if message["role"] == "tool"
    ]


def _calls_sent_back(server: FakeLLM, request: int = 1) -> list[tuple[str, Any]]:
    """The calls the model was told it made (its text taken as calls)."""
    return [
        (call["function"]["name"], json.loads(call["function"]["arguments"]))
        for message in server.requests[request]["messages"]
        if message["role"] == "assistant"
        for call in message.get("tool_calls") or []
    ]


# {turn_on}: the name HA offers HassTurnOn under on this release.
FORMS = {
    "pythonic": '[{turn_on}(name="Porch light")]',
    "pythonic short name": '[HassTurnOn(name="Porch light")]',
    "pythonic bare": 'HassTurnOn(name="Porch light")',
    "pythonic fenced": '```python\n[HassTurnOn(name="Porch light")]\n```',
    "dict literal": "{{'name': '{turn_on}', 'arguments': {{'name': 'Porch light'}}}}",
    "trailing comma": '{{"name": "{turn_on}", "arguments": {{"name": "Porch light",}},}}',
    "single quotes": "<tool_call>{{'name': '{turn_on}', 'arguments': "
    "{{'name': 'Porch light'}}}}</tool_call>",
    "comment": '{{"name": "{turn_on}", // the porch\n'
    '"arguments": {{"name": "Porch light"}} /* on */}}',
}


@pytest.mark.parametrize("form", FORMS)
async def test_a_written_call_turns_the_light_on(
    home: HomeAssistant, fake_llm: FakeLLM, form: str
) -> None:
    """Each form: the light goes on, the model's next answer is what is heard."""
    hass = home
    agent = await _agent(hass, fake_llm)
    turn_on = await offered_name(hass, APIS, "HassTurnOn")
    fake_llm.script(
        [Reply.text(FORMS[form].format(turn_on=turn_on)), Reply.text(ANSWER)]
    )

    speech = await _say(hass, agent, "turn on the porch light")

    assert speech == ANSWER
    assert _state(hass, LIGHT) == STATE_ON
    assert _calls_sent_back(fake_llm) == [(turn_on, {"name": "Porch light"})]
    assert [result["success"] for result in _sent_back(fake_llm)] == [True]


async def test_several_pythonic_calls_all_run(
    home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """`[f(...), g()]`: both run, both results go back, in order."""
    hass = home
    agent = await _agent(hass, fake_llm)
    turn_on = await offered_name(hass, APIS, "HassTurnOn")
    context = await offered_name(hass, APIS, "GetLiveContext")
    fake_llm.script(
        [
            Reply.text(f'[{turn_on}(name="Porch light"), {context}()]'),
            Reply.text(ANSWER),
        ]
    )

    speech = await _say(hass, agent, "turn on the porch light and tell me the rest")

    assert speech == ANSWER
    assert _state(hass, LIGHT) == STATE_ON
    assert _calls_sent_back(fake_llm) == [
        (turn_on, {"name": "Porch light"}),
        (context, {}),
    ]
    assert [result["success"] for result in _sent_back(fake_llm)] == [True, True]


async def test_null_arguments_are_no_arguments(
    home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """`"arguments": null` for a tool without parameters: it runs with `{}`."""
    hass = home
    agent = await _agent(hass, fake_llm)
    context = await offered_name(hass, APIS, "GetLiveContext")
    fake_llm.script(
        [
            Reply.text(f'{{"name": "{context}", "arguments": null}}'),
            Reply.text("The porch light is off."),
        ]
    )

    speech = await _say(hass, agent, "is the porch light on?")

    assert speech == "The porch light is off."
    assert _calls_sent_back(fake_llm) == [(context, {})]
    (result,) = _sent_back(fake_llm)
    assert result["success"] is True
    assert "Porch light" in json.dumps(result)


async def test_a_written_call_of_an_unoffered_tool_goes_back_to_the_model(
    home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """`<tool_call>` naming a tool we do not offer: not run, not spoken.

    The model is told no such tool exists (and which do); the user hears that the
    attempt did nothing (a call of a tool that does not exist is a failed action).
    """
    hass = home
    agent = await _agent(hass, fake_llm)
    turn_on = await offered_name(hass, APIS, "HassTurnOn")
    fake_llm.script(
        [
            Reply.text(
                '<tool_call>{"name": "lock_unlock", "arguments": '
                '{"name": "Front door"}}</tool_call>'
            ),
            Reply.text("I cannot unlock doors."),
        ]
    )

    speech = await _say(hass, agent, "unlock the front door")

    assert speech == "I couldn't do that: there is no such action."
    assert _state(hass, LOCK) == "locked"
    assert _calls_sent_back(fake_llm) == [("lock_unlock", {"name": "Front door"})]
    (result,) = _sent_back(fake_llm)
    assert result["success"] is False
    assert result["error"].startswith("Unknown tool")
    assert turn_on in json.dumps(result)  # the tools there are


async def test_a_call_shown_as_an_example_is_an_answer(
    home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """Prose around a fenced call: nothing runs, the prose is the answer heard."""
    hass = home
    agent = await _agent(hass, fake_llm)
    turn_on = await offered_name(hass, APIS, "HassTurnOn")
    fake_llm.script(
        [
            Reply.text(
                "To switch it on I would send this call:\n```json\n"
                f'{{"name": "{turn_on}", "arguments": {{"name": "Porch light"}}}}\n'
                "```\nShall I do that?"
            )
        ]
    )

    speech = await _say(hass, agent, "how would you turn on the porch light?")

    # The fenced block is data: never spoken (data_text.py).
    assert speech == "To switch it on I would send this call:\nShall I do that?"
    assert _state(hass, LIGHT) == STATE_OFF
    assert len(fake_llm.requests) == 1


@pytest.mark.parametrize(
    "answer",
    [
        "HassTurnOn(name=x)",  # a variable: not a literal
        '[HassTurnOn(name="Porch" + " light")]',  # an expression
        'HassTurnOn("Porch light")',  # positional: which parameter is unknown
        '[HassTurnOn(name=open("/etc/hostname").read())]',  # a call: never run
    ],
)
async def test_a_pythonic_call_without_literals_is_not_run(
    home: HomeAssistant, fake_llm: FakeLLM, answer: str
) -> None:
    """Not literals only: no call (nothing is evaluated); the text is the answer."""
    hass = home
    agent = await _agent(hass, fake_llm)
    fake_llm.script([Reply.text(answer)])

    speech = await _say(hass, agent, "turn on the porch light")

    assert speech == answer
    assert _state(hass, LIGHT) == STATE_OFF
    assert len(fake_llm.requests) == 1
