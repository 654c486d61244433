"""Never a false "done": what the user hears says what failed, whatever the model says.

Small models answer "Done." after a refused call. When every action of the turn failed
the user hears why, in their language; when some worked, what worked and what did not.
A later try that does it after all lets the model's answer through.
"""

import json
from typing import Any

import pytest
from pytest_homeassistant_custom_component.typing import (
    ClientSessionGenerator,
    WebSocketGenerator,
)

from homeassistant.components import conversation
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.const import STATE_OFF, STATE_ON
from homeassistant.core import Context, HomeAssistant
from homeassistant.setup import async_setup_component

from tests.across_releases import offered_name
from tests.assist_pipeline import RecordingTTS, run_pipeline, use_pipeline
from tests.fake_llm import FakeLLM, Reply
from tests.helpers import say as _say, state_of as _state
from tests.test_confirmation import LIGHT, home
from tests.test_text_tool_calls import APIS, _agent

__all__ = ["home"]  # the fixture: a porch light and a locked front door, exposed

KITCHEN = "input_boolean.kitchen_fan"
# Past 60 characters a pipeline speaks the chat log's deltas as they stream.
LONG_DONE = (
    "Done! The porch light is on now, and the whole porch is nicely lit for you."
)


def _sent_back(server: FakeLLM, request: int) -> list[dict[str, Any]]:
    """The tool results the model was sent in a request, as JSON."""
    return [
        json.loads(message["content"])
        for message in server.requests[request]["messages"]
        if message["role"] == "tool"
    ]


async def _turn_on(hass: HomeAssistant) -> str:
    return await offered_name(hass, APIS, "HassTurnOn")


async def test_done_after_a_name_that_matched_nothing_is_not_said(
    home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """A name that matches nothing, then "Done.": the user hears why not."""
    hass = home
    agent = await _agent(hass, fake_llm)
    turn_on = await _turn_on(hass)
    fake_llm.script(
        [Reply.tool_calls([(turn_on, {"name": "porch"})]), Reply.text("Done.")]
    )

    speech = await _say(hass, agent, "turn on the porch light")

    assert speech == "I couldn't find “porch”."
    assert _state(hass, LIGHT) == STATE_OFF
    (result,) = _sent_back(fake_llm, 1)
    assert result["success"] is False


async def test_the_models_question_follows_the_reason(
    home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """A closing question claims nothing: it is heard after the reason, the claim not."""
    hass = home
    agent = await _agent(hass, fake_llm)
    turn_on = await _turn_on(hass)
    fake_llm.script(
        [
            Reply.tool_calls([(turn_on, {"name": "porch"})]),
            Reply.text("Done, it is on. Did you mean Porch light?"),
        ]
    )

    speech = await _say(hass, agent, "turn on the porch")

    assert speech == "I couldn't find “porch”. Did you mean Porch light?"
    assert _state(hass, LIGHT) == STATE_OFF


async def test_the_failure_is_said_in_the_users_language(
    home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """The same in German: the sentence is German, the name as the model sent it."""
    hass = home
    agent = await _agent(hass, fake_llm)
    turn_on = await _turn_on(hass)
    fake_llm.script(
        [Reply.tool_calls([(turn_on, {"name": "Veranda"})]), Reply.text("Erledigt.")]
    )

    result = await conversation.async_converse(
        hass,
        "mach das Verandalicht an",
        None,
        Context(),
        language="de",
        agent_id=agent,
    )

    assert result.response.speech["plain"]["speech"] == (
        "Ich konnte „Veranda“ nicht finden."
    )
    assert _state(hass, LIGHT) == STATE_OFF


async def test_done_after_another_failure_gets_the_short_reason(
    home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """A failure that is not a missing name: a short generic reason, not "Done."."""
    hass = home
    agent = await _agent(hass, fake_llm)
    # A brightness that is no number: the call is refused, not repaired.
    light_set = await offered_name(hass, APIS, "HassLightSet")
    fake_llm.script(
        [
            Reply.tool_calls(
                [(light_set, {"name": "Porch light", "brightness": "max"})]
            ),
            Reply.text("Done, the porch light is on."),
        ]
    )

    speech = await _say(hass, agent, "turn on the porch light")

    assert speech == "I couldn't do that: Home Assistant reported an error."
    assert _state(hass, LIGHT) == STATE_OFF
    (result,) = _sent_back(fake_llm, 1)
    assert result["success"] is False


async def test_a_partial_success_does_not_claim_what_failed(
    home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """One light on, one name not found, "Done, both are on.": both are told."""
    hass = home
    agent = await _agent(hass, fake_llm)
    turn_on = await _turn_on(hass)
    fake_llm.script(
        [
            Reply.tool_calls(
                [(turn_on, {"name": "Porch light"}), (turn_on, {"name": "garden"})]
            ),
            Reply.text("Done, both are on."),
        ]
    )

    speech = await _say(hass, agent, "turn on the porch and the garden light")

    assert speech == "I turned on Porch light. But I couldn't find “garden”."
    assert _state(hass, LIGHT) == STATE_ON
    assert [r["success"] for r in _sent_back(fake_llm, 1)] == [True, False]


async def test_a_retry_that_worked_lets_the_answer_through(
    home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """A name fails, the model tries the right one and it works: "Done." is true."""
    hass = home
    agent = await _agent(hass, fake_llm)
    turn_on = await _turn_on(hass)
    fake_llm.script(
        [
            Reply.tool_calls([(turn_on, {"name": "porch"})]),
            Reply.tool_calls([(turn_on, {"name": "Porch light"})]),
            Reply.text("Done."),
        ]
    )

    speech = await _say(hass, agent, "turn on the porch light")

    assert speech == "Done."
    assert _state(hass, LIGHT) == STATE_ON


async def test_a_failed_call_written_as_text_then_done_is_not_said(
    home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """A pythonic call with a name that matches nothing, then "Done.": the reason."""
    hass = home
    agent = await _agent(hass, fake_llm)
    fake_llm.script([Reply.text('[HassTurnOn(name="porch")]'), Reply.text("Done.")])

    speech = await _say(hass, agent, "turn on the porch light")

    assert speech == "I couldn't find “porch”."
    assert _state(hass, LIGHT) == STATE_OFF


@pytest.fixture
async def satellite(
    home: HomeAssistant,
    fake_llm: FakeLLM,
    recorder: RecordingTTS,
    hass_ws_client: WebSocketGenerator,
) -> Any:
    """A websocket client whose preferred pipeline is our agent + the recorder."""
    hass = home
    agent = await _agent(hass, fake_llm)
    assert await async_setup_component(hass, "assist_pipeline", {})
    ws = await hass_ws_client(hass)
    await use_pipeline(ws, agent)
    yield ws
    await ws.close()


@pytest.mark.parametrize(
    ("written", "then", "heard"),
    [
        # A failed action, then a "done" long enough to be streamed to the speaker
        # as it comes: the satellite hears the reason instead.
        ('[HassTurnOn(name="porch")]', LONG_DONE, "I couldn't find “porch”."),
        # A call of a tool we do not offer: its markup never reaches the speaker,
        # and it is an attempt that did nothing, whatever the model says after it.
        (
            (
                '<tool_call>{"name": "lock_unlock", "arguments": '
                '{"name": "Front door"}}</tool_call>'
            ),
            LONG_DONE,
            "I couldn't do that: there is no such action.",
        ),
        # A pythonic call that works: only the answer after it is spoken.
        ('[HassTurnOn(name="Porch light")]', LONG_DONE, LONG_DONE),
    ],
    ids=["done after a failure", "unoffered tool", "pythonic"],
)
async def test_a_satellite_hears_no_markup_and_no_false_done(
    home: HomeAssistant,
    fake_llm: FakeLLM,
    recorder: RecordingTTS,
    satellite: Any,
    hass_client: ClientSessionGenerator,
    *,
    written: str,
    then: str,
    heard: str,
) -> None:
    """Streamed to a TTS engine: exactly the words the user should hear, once."""
    fake_llm.script([Reply.text(written, chunk_size=2), Reply.text(then, chunk_size=2)])

    output, _ = await run_pipeline(
        home, satellite, await hass_client(), "turn on the porch light"
    )

    assert recorder.said == [heard]
    assert output["response"]["speech"]["plain"]["speech"] == heard


async def test_a_failed_read_alone_leaves_the_answer_to_the_model(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """Only a read failed (nothing was tried to change): the model's answer is heard."""
    hass = ha_core
    assert await async_setup_component(
        hass, "input_boolean", {"input_boolean": {"kitchen_fan": {"name": "Fan"}}}
    )
    await hass.async_block_till_done()
    async_expose_entity(hass, conversation.DOMAIN, KITCHEN, True)
    agent = await _agent(hass, fake_llm)
    state = await offered_name(hass, APIS, "get_entity_state")
    fake_llm.script(
        [
            Reply.tool_calls([(state, {"entity_ids": ["light.nowhere"]})]),
            Reply.text("I could not find that light."),
        ]
    )

    speech = await _say(hass, agent, "is the nowhere light on?")

    assert speech == "I could not find that light."
