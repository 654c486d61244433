"""Verified effects on every route, and on a satellite: the words match the house.

The local stage (what Home Assistant understands first), the route when no model
answers, and an Assist pipeline with a recording streaming TTS (tests/verified_home.py).
"""

from typing import Any

import pytest
from pytest_homeassistant_custom_component.typing import (
    ClientSessionGenerator,
    WebSocketGenerator,
)

from homeassistant.components.conversation import trace
from homeassistant.core import HomeAssistant
from homeassistant.setup import async_setup_component

from custom_components.agentic_conversation.const import (
    CONF_LOCAL_FIRST,
    CONF_VERIFY_TIMEOUT,
)
from tests.across_releases import offered_name
from tests.assist_pipeline import RecordingTTS, run_pipeline, use_pipeline
from tests.fake_llm import FakeLLM, Reply
from tests.helpers import add_agent, converse, speech, state_of
from tests.verified_home import (
    FRONT,
    GARAGE_LIGHTS,
    PORCH,
    SLOW,
    SLOW_LIGHT,
    agent,
    home,
)

__all__ = ["home"]

pytestmark = pytest.mark.usefixtures("no_retry_wait")

GARAGE_FAILED = (
    "Left garage light did not turn on: it is still off; "
    "Right garage light did not turn on: it is still off."
)


async def _local_agent(hass: HomeAssistant, server: FakeLLM | str) -> str:
    """An agent that lets Home Assistant handle what it understands first."""
    options: dict[str, Any] = {CONF_LOCAL_FIRST: True, CONF_VERIFY_TIMEOUT: 2.0}
    return await add_agent(hass, server, background=True, **options)


def _verified(hass: HomeAssistant) -> list[dict[str, Any]]:
    """What the last turn's trace says was verified."""
    events = trace.async_get_traces()[-1].as_dict()["events"]
    return [
        item for event in events for item in event.get("data", {}).get("verified", [])
    ]


async def test_the_local_stage_speaks_ha_words_when_the_house_shows_them(
    home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """A 0.3 s light, handled by Home Assistant: its own words, once the light is on."""
    hass = home
    agent_id = await _local_agent(hass, fake_llm)

    said = speech(await converse(hass, agent_id, "turn on the slow light"))

    assert said == "Turned on the light"
    assert state_of(hass, SLOW_LIGHT) == "on"
    assert _verified(hass) == [
        {"entity_id": SLOW_LIGHT, "status": "done", "reason": None, "state": ""}
    ]
    assert fake_llm.requests == []  # no model call
    route = hass.states.get("sensor.agent_route")
    assert route is not None
    assert route.attributes["last_verified"] == "1 done"


@pytest.mark.parametrize(
    ("language", "text", "heard"),
    [
        ("en", "turn on the lights in the garage", GARAGE_FAILED),
        (
            "de",
            "schalte die Lichter in der Garage ein",
            (
                "Left garage light hat sich nicht eingeschaltet: es ist immer noch aus; "
                "Right garage light hat sich nicht eingeschaltet: es ist immer noch aus."
            ),
        ),
    ],
)
async def test_the_local_stage_does_not_claim_an_area_that_failed(
    home: HomeAssistant, fake_llm: FakeLLM, language: str, text: str, heard: str
) -> None:
    """HA's "Turned on the lights" is not said while every light is still off."""
    hass = home
    agent_id = await _local_agent(hass, fake_llm)

    said = speech(await converse(hass, agent_id, text, language=language))

    assert said == heard
    assert [state_of(hass, light) for light in GARAGE_LIGHTS] == ["off", "off"]
    assert [item["reason"] for item in _verified(hass)] == ["still", "still"]


async def test_no_model_answers_and_the_area_failed(
    home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """The LLM-down route: the preface, then what the house shows, not HA's claim."""
    hass = home
    agent_id = await add_agent(hass, fake_llm, background=True)
    await fake_llm.close()  # connections are refused

    said = speech(await converse(hass, agent_id, "turn on the lights in the garage"))

    assert said == (
        "The AI service isn't available, so I used the basic assistant: "
        + GARAGE_FAILED
    )
    assert [state_of(hass, light) for light in GARAGE_LIGHTS] == ["off", "off"]


@pytest.fixture
async def satellite(
    home: HomeAssistant,
    fake_llm: FakeLLM,
    recorder: RecordingTTS,
    hass_ws_client: WebSocketGenerator,
    hass_client: ClientSessionGenerator,
) -> Any:
    """Say a sentence through a pipeline of the agent and the recorder: the output."""
    hass = home
    agent_id = await agent(hass, fake_llm)
    assert await async_setup_component(hass, "assist_pipeline", {})
    ws = await hass_ws_client(hass)
    await use_pipeline(ws, agent_id)
    http = await hass_client()

    async def say(text: str, conversation_id: str | None = None) -> dict[str, Any]:
        output, _ = await run_pipeline(
            hass, ws, http, text, conversation_id=conversation_id
        )
        return output

    yield say
    await ws.close()


# Past 60 characters a pipeline speaks the chat log's deltas as they stream.
LONG_DONE = "Done! The slow light is on now, and the whole hall is nicely lit for you."


@pytest.mark.parametrize(
    ("name", "entity_id", "heard"),
    [
        ("Slow light", SLOW_LIGHT, LONG_DONE),
        ("Porch light", PORCH, LONG_DONE),
    ],
    ids=["slow", "at once"],
)
async def test_a_satellite_hears_the_models_words_when_the_house_shows_them(
    home: HomeAssistant,
    fake_llm: FakeLLM,
    recorder: RecordingTTS,
    satellite: Any,
    *,
    name: str,
    entity_id: str,
    heard: str,
) -> None:
    """Streamed as it comes, once the light shows it is on (0.3 s, or at once)."""
    hass = home
    turn_on = await offered_name(hass, ["agentic_conversation_compact"], "HassTurnOn")
    fake_llm.script(
        [
            Reply.tool_calls([(turn_on, {"name": name})]),
            Reply.text(LONG_DONE, chunk_size=2),
        ]
    )

    output = await satellite(f"turn on the {name}")

    assert recorder.said == [heard]
    assert output["response"]["speech"]["plain"]["speech"] == heard
    assert state_of(hass, entity_id) == "on"


async def test_a_satellite_hears_which_lights_did_not_come_on(
    home: HomeAssistant, fake_llm: FakeLLM, recorder: RecordingTTS, satellite: Any
) -> None:
    """The model's long "Done!" would stream: the satellite hears the house instead."""
    hass = home
    turn_on = await offered_name(hass, ["agentic_conversation_compact"], "HassTurnOn")
    fake_llm.script(
        [
            Reply.tool_calls([(turn_on, {"area": "Garage", "domain": ["light"]})]),
            Reply.text(LONG_DONE, chunk_size=2),
        ]
    )

    output = await satellite("turn on the garage lights")

    assert recorder.said == [GARAGE_FAILED]
    assert output["response"]["speech"]["plain"]["speech"] == GARAGE_FAILED


@pytest.mark.parametrize(
    "names",
    [["Front door", "Slow door"], ["Slow door", "Front door"]],
    ids=["done first", "failing first"],
)
async def test_a_satellite_hears_which_confirmed_unlock_failed(
    home: HomeAssistant,
    fake_llm: FakeLLM,
    recorder: RecordingTTS,
    satellite: Any,
    names: list[str],
) -> None:
    """Asked, yes, one door jams: the satellite hears both, each as it is."""
    hass = home
    turn_off = await offered_name(hass, ["agentic_conversation_compact"], "HassTurnOff")
    fake_llm.script([Reply.tool_calls([(turn_off, {"name": n}) for n in names])])

    asked = await satellite("unlock the doors")
    await satellite("Yes.", asked["conversation_id"])

    heard = "I unlocked Front door; Slow door did not unlock: it is still locked."
    assert recorder.said[-1] == heard
    assert state_of(hass, FRONT) == "unlocked"
    assert state_of(hass, SLOW) == "locked"
