"""Done means done: the user hears what the house did, as the entities' states show it.

Each test has a device fail (or answer late) the way real ones do, and checks the
exact words heard and the entities' states afterwards (tests/verified_home.py).
"""

import time

import pytest

from homeassistant.components import conversation
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import HomeAssistant
from homeassistant.helpers import llm
from homeassistant.setup import async_setup_component

from custom_components.agentic_conversation.config_flow import default_agent_options
from tests.across_releases import offered_name
from tests.fake_llm import FakeLLM, Reply
from tests.helpers import add_agent, converse, speech, state_of
from tests.verified_home import (
    DOORBELL,
    FRONT,
    GARAGE_LIGHTS,
    LATE,
    MOVIE,
    ONLINE,
    PORCH,
    SHUTTER,
    SLOW,
    agent,
    home,
)

__all__ = ["home"]

APIS = default_agent_options([])["llm_hass_api"]
# How "yes" and the first words sound in each language tested.
YES = {"en": "Yes.", "de": "Ja.", "fr": "Oui."}


async def _tool(hass: HomeAssistant, name: str) -> str:
    return await offered_name(hass, APIS, name)


async def _unlock(
    hass: HomeAssistant, server: FakeLLM, names: list[str], language: str = "en"
) -> str:
    """The model asks to unlock these doors; the user says yes: the words heard."""
    agent_id = await agent(hass, server)
    turn_off = await _tool(hass, "HassTurnOff")
    server.script([Reply.tool_calls([(turn_off, {"name": name}) for name in names])])
    asked = await converse(hass, agent_id, "unlock the doors", language=language)
    assert asked.continue_conversation is True, speech(asked)
    return await _yes(hass, agent_id, asked.conversation_id, language)


async def _yes(
    hass: HomeAssistant, agent_id: str, conversation_id: str | None, language: str
) -> str:
    return speech(
        await converse(hass, agent_id, YES[language], conversation_id, language)
    )


@pytest.mark.parametrize(
    ("language", "heard"),
    [
        ("en", "Front door did not unlock: it is unavailable."),
        ("de", "Front door wurde nicht entriegelt: es ist nicht verfügbar."),
        ("fr", "Front door ne s'est pas déverrouillé : il est indisponible."),
    ],
)
async def test_a_lock_unavailable_at_the_yes_is_not_told_unlocked(
    home: HomeAssistant, fake_llm: FakeLLM, language: str, heard: str
) -> None:
    """The lock drops off the network between the question and the yes."""
    hass = home
    agent_id = await agent(hass, fake_llm)
    turn_off = await _tool(hass, "HassTurnOff")
    fake_llm.script([Reply.tool_calls([(turn_off, {"name": "Front door"})])])
    asked = await converse(hass, agent_id, "unlock the front door", language=language)
    hass.states.async_set(ONLINE, "off")  # the flag, as its integration would
    await hass.services.async_call(
        "input_boolean", "turn_off", {"entity_id": ONLINE}, blocking=True
    )
    await hass.async_block_till_done()
    assert state_of(hass, FRONT) == "unavailable"

    said = await _yes(hass, agent_id, asked.conversation_id, language)

    assert said == heard
    assert state_of(hass, FRONT) == "unavailable"


@pytest.mark.parametrize(
    ("language", "heard"),
    [
        ("en", "Slow door did not unlock: it is still locked."),
        ("de", "Slow door wurde nicht entriegelt: es ist immer noch verriegelt."),
        ("fr", "Slow door ne s'est pas déverrouillé : il est toujours verrouillé."),
    ],
)
async def test_an_unlock_that_fails_after_a_second(
    home: HomeAssistant, fake_llm: FakeLLM, language: str, heard: str
) -> None:
    """HA's intent reports success after 0.2 s; the lock jams a second later."""
    said = await _unlock(home, fake_llm, ["Slow door"], language)

    assert said == heard
    assert state_of(home, SLOW) == "locked"


@pytest.mark.parametrize(
    "names",
    [["Front door", "Slow door"], ["Slow door", "Front door"]],
    ids=["done first", "failing first"],
)
async def test_two_confirmed_unlocks_one_fails(
    home: HomeAssistant, fake_llm: FakeLLM, names: list[str]
) -> None:
    """The done one is named with its verb, the other with why, in either order."""
    said = await _unlock(home, fake_llm, names)

    assert (
        said == "I unlocked Front door; Slow door did not unlock: it is still locked."
    )
    assert state_of(home, FRONT) == "unlocked"
    assert state_of(home, SLOW) == "locked"


async def test_a_slow_device_within_the_deadline_is_done(
    home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """A 0.3 s unlock: "done", and the reply does not wait for the deadline (5 s)."""
    hass = home
    agent_id = await agent(hass, fake_llm, deadline=5.0)
    turn_off = await _tool(hass, "HassTurnOff")
    fake_llm.script([Reply.tool_calls([(turn_off, {"name": "Late door"})])])
    asked = await converse(hass, agent_id, "unlock the late door")

    started = time.monotonic()
    said = await _yes(hass, agent_id, asked.conversation_id, "en")

    assert said == "I unlocked Late door."
    assert state_of(hass, LATE) == "unlocked"
    # Event-driven: the state change ends the wait, not the 5 s deadline.
    assert time.monotonic() - started < 4.0


@pytest.mark.parametrize(
    ("language", "heard"),
    [
        (
            "en",
            (
                "Left garage light did not turn on: it is still off; "
                "Right garage light did not turn on: it is still off."
            ),
        ),
        (
            "de",
            (
                "Left garage light hat sich nicht eingeschaltet: es ist immer noch aus; "
                "Right garage light hat sich nicht eingeschaltet: es ist immer noch aus."
            ),
        ),
    ],
)
async def test_an_area_whose_every_light_fails(
    home: HomeAssistant, fake_llm: FakeLLM, language: str, heard: str
) -> None:
    """HA reports the area a success; each light's action fails: not "Done."."""
    hass = home
    agent_id = await agent(hass, fake_llm)
    turn_on = await _tool(hass, "HassTurnOn")
    fake_llm.script(
        [
            Reply.tool_calls([(turn_on, {"area": "Garage", "domain": ["light"]})]),
            Reply.text("Done."),
        ]
    )

    said = speech(await converse(hass, agent_id, "garage lights on", language=language))

    assert said == heard
    assert [state_of(hass, light) for light in GARAGE_LIGHTS] == ["off", "off"]


@pytest.mark.parametrize(
    ("language", "heard"),
    [
        ("en", "I couldn't do that: there is no such action."),
        ("de", "Das konnte ich nicht tun: Diese Aktion gibt es nicht."),
        ("fr", "Je n'ai pas pu le faire : cette action n'existe pas."),
    ],
)
async def test_an_unknown_tool_then_done(
    home: HomeAssistant, fake_llm: FakeLLM, language: str, heard: str
) -> None:
    """A call of a tool that does not exist is an attempt that did nothing."""
    hass = home
    agent_id = await agent(hass, fake_llm)
    fake_llm.script(
        [
            Reply.tool_calls([("light_turn_on", {"entity_id": PORCH})]),
            Reply.text("Done."),
        ]
    )

    said = speech(await converse(hass, agent_id, "porch light on", language=language))

    assert said == heard
    assert state_of(hass, PORCH) == "off"


async def test_a_failure_is_not_forgiven_by_a_success_elsewhere(
    home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """call_service fails on the shutter, then works on the porch light."""
    hass = home
    agent_id = await agent(hass, fake_llm)
    call_service = await _tool(hass, "call_service")
    fake_llm.script(
        [
            Reply.tool_calls(
                [
                    (
                        call_service,
                        {
                            "domain": "cover",
                            "service": "open_cover",
                            "target": {"entity_id": [SHUTTER]},
                        },
                    )
                ]
            ),
            Reply.tool_calls(
                [
                    (
                        call_service,
                        {
                            "domain": "light",
                            "service": "turn_on",
                            "target": {"entity_id": [PORCH]},
                        },
                    )
                ]
            ),
            Reply.text("Both are done."),
        ]
    )

    said = speech(await converse(hass, agent_id, "open the shutter, porch light on"))

    assert said == (
        "I turned on Porch light; Kitchen shutter did not open: it is still closed."
    )
    assert state_of(hass, SHUTTER) == "closed"
    assert state_of(hass, PORCH) == "on"


async def test_a_scene_is_sent_not_done(home: HomeAssistant, fake_llm: FakeLLM) -> None:
    """Its state cannot show what it set: "sent", whatever the model claims."""
    hass = home
    agent_id = await agent(hass, fake_llm)
    turn_on = await _tool(hass, "HassTurnOn")
    fake_llm.script(
        [
            Reply.tool_calls([(turn_on, {"name": "Movie night"})]),
            Reply.text("Done, it worked."),
        ]
    )
    before = state_of(hass, MOVIE)

    said = speech(await converse(hass, agent_id, "movie night"))

    assert said == "I sent the command to Movie night."
    assert state_of(hass, MOVIE) != before  # activated: a new timestamp
    assert state_of(hass, "input_boolean.movie") == "on"


@pytest.mark.parametrize(
    ("language", "heard"),
    [
        ("en", "I sent the command to Doorbell."),
        ("de", "Ich habe den Befehl an Doorbell gesendet."),
        ("fr", "J'ai envoyé la commande à Doorbell."),
    ],
)
async def test_a_confirmed_button_press_is_sent_not_done(
    home: HomeAssistant, fake_llm: FakeLLM, language: str, heard: str
) -> None:
    """A button is asked about first; after the yes its press is "sent"."""
    hass = home
    agent_id = await agent(hass, fake_llm)
    turn_on = await _tool(hass, "HassTurnOn")
    fake_llm.script([Reply.tool_calls([(turn_on, {"name": "Doorbell"})])])
    before = state_of(hass, DOORBELL)
    asked = await converse(hass, agent_id, "ring the doorbell", language=language)
    assert asked.continue_conversation is True, speech(asked)

    said = await _yes(hass, agent_id, asked.conversation_id, language)

    assert said == heard
    assert state_of(hass, DOORBELL) != before  # pressed: a new timestamp


async def test_a_script_that_answers_is_the_models_to_tell(
    home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """A script with a response was a question: nothing to check, the model tells."""
    hass = home
    assert await async_setup_component(
        hass,
        "script",
        {
            "script": {
                "next_bin": {
                    "alias": "Next bin",
                    "sequence": [
                        {"variables": {"bin": {"day": "Tuesday"}}},
                        {"stop": "", "response_variable": "bin"},
                    ],
                }
            }
        },
    )
    async_expose_entity(hass, conversation.DOMAIN, "script.next_bin", True)
    # Assist offers each exposed script as a tool of its own.
    agent_id = await add_agent(hass, fake_llm, apis=[llm.LLM_API_ASSIST])
    bin_tool = await offered_name(hass, [llm.LLM_API_ASSIST], "script__next_bin")
    fake_llm.script(
        [
            Reply.tool_calls([(bin_tool, {})]),
            Reply.text("The bins go out on Tuesday."),
        ]
    )

    said = speech(await converse(hass, agent_id, "when do the bins go out?"))

    assert said == "The bins go out on Tuesday."
