"""Local first: what Home Assistant understands is done without the model, safely.

Through every door (async_converse, the dashboard's websocket, a satellite's
pipeline): a plain command changes the light with no request to the model; "unlock the
front door" is held and asked, and "yes" unlocks it; a chat sentence reaches the
model, whose request carries the locally handled turns; a command HA cannot place goes
to the model, never "Sorry, I couldn't understand that".
"""

import json
from typing import Any

from pytest_homeassistant_custom_component.common import (
    MockConfigEntry,
    async_capture_events,
)

from homeassistant.components import conversation
from homeassistant.components.conversation import trace
from homeassistant.const import CONF_LLM_HASS_API, EVENT_CALL_SERVICE
from homeassistant.core import Context, HomeAssistant
from homeassistant.helpers import (
    area_registry as ar,
    device_registry as dr,
    entity_registry as er,
)

from custom_components.agentic_conversation.const import (
    CONF_CONFIRM_ENTITIES,
    CONF_CONFIRM_PIN,
    CONF_LOCAL_FIRST,
    DOMAIN,
    LLM_API_ID,
)
from tests.acceptance.home import (  # the home fixture: the table's home
    states,
    table_home,  # noqa: F401
)
from tests.across_releases import offered_name
from tests.assist_pipeline import Door
from tests.fake_llm import FakeLLM, Reply
from tests.helpers import said as _speech
from tests.test_confirmation import NEW_AGENT_APIS, _agent as confirmation_agent

CEILING = "light.kitchen_ceiling"
DOOR = "lock.front_door"
JOKE = "Why did the lamp blush? It saw the switch."


async def _agent(hass: HomeAssistant, server: FakeLLM, **options: Any) -> str:
    """An agent of the default APIs with local first on (unless told otherwise)."""
    return await confirmation_agent(hass, server, **{CONF_LOCAL_FIRST: True, **options})


def _route_sensor(hass: HomeAssistant) -> str:
    entity_id = next(
        e.entity_id
        for e in er.async_get(hass).entities.values()
        if e.platform == DOMAIN
        and e.domain == "sensor"
        and e.unique_id.endswith("-route")
    )
    state = hass.states.get(entity_id)
    assert state is not None
    return state.state


def _local_first_details(turn: int) -> list[dict[str, Any]]:
    """What the local stage traced in a turn (-1: the last) before the model's."""
    events = trace.async_get_traces()[turn].as_dict()["events"]
    return [
        e["data"]
        for e in events
        if e["event_type"] == trace.ConversationTraceEventType.AGENT_DETAIL
        and "local_first" in e["data"]
    ]


async def test_commands_locally_risky_asked_chat_to_the_model(
    home: HomeAssistant,
    fake_llm: FakeLLM,
    door: Door,
) -> None:
    """The exact words, the states, and what the model was (not) asked."""
    hass = home
    agent = await _agent(hass, fake_llm)
    ask = await door.open(hass, agent)
    before = states(hass)

    done = await ask("turn on the kitchen ceiling", None)
    conversation_id = done["conversation_id"]

    assert _speech(done) == "Turned on the light"
    assert states(hass) == before | {CEILING: "on"}
    assert fake_llm.requests == []
    assert _route_sensor(hass) == "local"

    asked = await ask("unlock the front door", conversation_id)

    assert _speech(asked) == "Shall I unlock Front door?"
    assert asked["continue_conversation"] is True
    assert asked["conversation_id"] == conversation_id
    assert states(hass) == before | {CEILING: "on"}  # still locked
    assert fake_llm.requests == []

    unlocked = await ask("yes", conversation_id)

    assert _speech(unlocked) == "I unlocked Front door."
    assert states(hass) == before | {CEILING: "on", DOOR: "unlocked"}
    assert fake_llm.requests == []

    fake_llm.script([Reply.text(JOKE)])
    joke = await ask("tell me a joke", conversation_id)

    assert _speech(joke) == JOKE
    (request,) = fake_llm.requests
    # The locally handled turns are in the model's history, under offered names.
    turn_on = await offered_name(hass, NEW_AGENT_APIS, "HassTurnOn")
    turn_off = await offered_name(hass, NEW_AGENT_APIS, "HassTurnOff")
    history = [
        (
            m["role"],
            m.get("content"),
            [c["function"]["name"] for c in m.get("tool_calls", [])],
        )
        for m in request["messages"][1:]
    ]
    results = [
        json.loads(m["content"]) for m in request["messages"] if m["role"] == "tool"
    ]
    assert [(role, text if role != "tool" else None, calls) for role, text, calls in history] == [
        ("user", "turn on the kitchen ceiling", []),
        ("assistant", "", [turn_on]),
        ("tool", None, []),
        ("assistant", "Turned on the light", []),
        ("user", "unlock the front door", []),
        ("assistant", "Shall I unlock Front door?", []),
        ("user", "yes", []),
        ("assistant", "", [turn_off]),
        ("tool", None, []),
        ("assistant", "I unlocked Front door.", []),
        ("user", "tell me a joke", []),
    ]  # fmt: skip
    assert results[0]["speech"]["plain"]["speech"] == "Turned on the light"
    assert results[0]["data"]["success"][0]["name"] == "Kitchen ceiling"
    assert _route_sensor(hass) == "ok"
    if door.name == "pipeline":
        assert door.said == [
            "Turned on the light",
            "Shall I unlock Front door?",
            "I unlocked Front door.",
            JOKE,
        ]


async def test_what_ha_cannot_place_goes_to_the_model(
    home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """No such device, or not a command: the model answers, as if the option were off."""
    hass = home
    agent = await _agent(hass, fake_llm)
    before = states(hass)
    fake_llm.script([Reply.text("There is no garage light."), Reply.text(JOKE)])

    for text, heard in (
        ("turn on the garage light", "There is no garage light."),
        ("tell me a joke", JOKE),
    ):
        result = await conversation.async_converse(
            hass, text, None, Context(), language="en", agent_id=agent
        )
        assert result.response.speech["plain"]["speech"] == heard

    assert [r["messages"][-1]["content"] for r in fake_llm.requests] == [
        "turn on the garage light",
        "tell me a joke",
    ]
    # The failed attempt left nothing in the model's history.
    assert [m["role"] for m in fake_llm.requests[0]["messages"]] == ["system", "user"]
    assert states(hass) == before
    # (The home has a garage door: HassTurnOn is recognised, its target is not.)
    assert _local_first_details(-2) == [
        {"local_first": "no_target", "intents": ["HassTurnOn"]}
    ]


async def test_off_every_command_goes_to_the_model(
    home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """An agent saved before the option existed is unchanged."""
    hass = home
    agent = await _agent(hass, fake_llm, **{CONF_LOCAL_FIRST: False})
    name = await offered_name(hass, NEW_AGENT_APIS, "HassTurnOn")
    fake_llm.script(
        [Reply.tool_calls([(name, {"name": "Kitchen ceiling"})]), Reply.text("Done.")]
    )

    result = await conversation.async_converse(
        hass,
        "turn on the kitchen ceiling",
        None,
        Context(),
        language="en",
        agent_id=agent,
    )

    assert result.response.speech["plain"]["speech"] == "Done."
    assert hass.states.get(CEILING).state == "on"  # type: ignore[union-attr]
    assert len(fake_llm.requests) == 2


async def test_ask_before_list_and_pin_are_asked_locally(
    home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """The agent's own risk settings hold: its list asks, its PIN replaces "yes"."""
    hass = home
    agent = await _agent(
        hass,
        fake_llm,
        **{CONF_CONFIRM_ENTITIES: ["switch.coffee_maker"], CONF_CONFIRM_PIN: "4711"},
    )
    before = states(hass)

    asked = await _converse(hass, agent, "turn on the coffee maker")
    assert _speech(asked.as_dict()) == "Shall I turn on Coffee maker?"
    done = await _converse(hass, agent, "yes", asked.conversation_id)
    assert _speech(done.as_dict()) == "I turned on Coffee maker."
    assert states(hass) == before | {"switch.coffee_maker": "on"}

    asked = await _converse(hass, agent, "unlock the front door")
    assert _speech(asked.as_dict()) == (
        "Shall I unlock Front door? Please say the PIN to confirm."
    )
    refused = await _converse(hass, agent, "yes", asked.conversation_id)
    assert _speech(refused.as_dict()) == (
        "That needs the PIN, so I did nothing. Please ask again and say the PIN."
    )
    assert states(hass)[DOOR] == "locked"
    asked = await _converse(hass, agent, "unlock the front door")
    done = await _converse(hass, agent, "4711", asked.conversation_id)
    assert _speech(done.as_dict()) == "I unlocked Front door."
    assert states(hass)[DOOR] == "unlocked"
    assert fake_llm.requests == []


async def test_a_risky_command_without_an_intent_tool_goes_to_the_model(
    home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """Only our own tools (no intents to hold it as): the model has the words."""
    hass = home
    agent = await _agent(hass, fake_llm, **{CONF_LLM_HASS_API: [LLM_API_ID]})
    fake_llm.script([Reply.text("I can't do that.")])

    result = await _converse(hass, agent, "unlock the front door")

    assert _speech(result.as_dict()) == "I can't do that."
    assert states(hass)[DOOR] == "locked"
    assert [r["messages"][-1]["content"] for r in fake_llm.requests] == [
        "unlock the front door"
    ]


async def test_a_satellite_in_the_kitchen_turns_on_the_kitchen_lights(
    home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """A kitchen satellite says "turn on the lights": its area, no model call."""
    hass = home
    agent = await _agent(hass, fake_llm)
    config_entry = MockConfigEntry(domain="satellite_test")
    config_entry.add_to_hass(hass)
    device = dr.async_get(hass).async_get_or_create(
        config_entry_id=config_entry.entry_id, identifiers={("satellite_test", "k")}
    )
    kitchen = next(
        a for a in ar.async_get(hass).async_list_areas() if a.name == "Kitchen"
    )
    dr.async_get(hass).async_update_device(device.id, area_id=kitchen.id)
    before = states(hass)

    result = await conversation.async_converse(
        hass,
        "turn on the lights",
        None,
        Context(),
        language="en",
        agent_id=agent,
        device_id=device.id,
    )

    assert _speech(result.as_dict()) == "Turned on the lights"
    assert states(hass) == before | {
        CEILING: "on",
        "light.kitchen_spots": "on",
    }
    assert fake_llm.requests == []


async def _converse(
    hass: HomeAssistant, agent: str, text: str, conversation_id: str | None = None
) -> conversation.ConversationResult:
    return await conversation.async_converse(
        hass, text, conversation_id, Context(), language="en", agent_id=agent
    )


async def test_a_risky_command_asked_again_locally_is_reasked_then_dropped(
    home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """Recognised again right after an unclear answer: how to answer, then dropped."""
    hass = home
    agent = await _agent(hass, fake_llm)
    before = states(hass)

    async def says(text: str, conversation_id: str | None) -> Any:
        return await conversation.async_converse(
            hass, text, conversation_id, Context(), language="en", agent_id=agent
        )

    asked = await says("unlock the front door", None)
    conversation_id = asked.conversation_id
    assert asked.response.speech["plain"]["speech"] == "Shall I unlock Front door?"
    # not a yes (a question back), and Home Assistant recognises the unlock again
    again = await says("can you unlock the front door", conversation_id)
    assert again.response.speech["plain"]["speech"] == (
        "Say yes to unlock Front door, or no."
    )
    assert again.continue_conversation is True
    dropped = await says("can you unlock the front door", conversation_id)
    assert dropped.response.speech["plain"]["speech"] == (
        "I still couldn't tell whether that was a yes or a no, so I've left it and "
        "done nothing. Ask me again whenever you want."
    )
    assert dropped.continue_conversation is False
    assert states(hass) == before  # still locked
    assert fake_llm.requests == []


async def test_a_state_question_goes_to_a_model_that_can_act(
    home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """As HA's pipeline does when it prefers local handling: not answered locally.

    Home Assistant's own agent answers it ("No, off"); the model is asked instead, and
    the recognition leaves nothing in its history. (A model that answers without
    reading the house: tests/test_state_answers.py.)
    """
    hass = home
    agent = await _agent(hass, fake_llm)
    before = states(hass)
    live = await offered_name(hass, NEW_AGENT_APIS, "GetLiveContext")
    fake_llm.script(
        [Reply.tool_calls([(live, {})]), Reply.text("The desk lamp is off.")]
    )

    result = await _converse(hass, agent, "is the desk lamp on")

    assert _speech(result.as_dict()) == "The desk lamp is off."
    assert [m["role"] for m in fake_llm.requests[0]["messages"]] == ["system", "user"]
    assert fake_llm.requests[0]["messages"][-1]["content"] == "is the desk lamp on"
    assert states(hass) == before
    assert _local_first_details(-1) == [
        {"local_first": "for_the_model", "intents": ["HassGetState"]}
    ]
    ha_says = await _converse(
        hass, "conversation.home_assistant", "is the desk lamp on"
    )
    assert _speech(ha_says.as_dict()) == "No, off"


async def test_a_compound_command_then_a_question(
    home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """What ran before the question is done and kept; the question is the model's."""
    hass = home
    agent = await _agent(hass, fake_llm)
    before = states(hass)
    turn_on = await offered_name(hass, NEW_AGENT_APIS, "HassTurnOn")
    fake_llm.script(
        [Reply.text("The desk lamp is off."), Reply.text("You're welcome.")]
    )

    first = await _converse(
        hass, agent, "turn on the kitchen ceiling and is the desk lamp on"
    )
    second = await _converse(hass, agent, "thanks", first.conversation_id)

    assert _speech(first.as_dict()) == "The desk lamp is off."
    assert _speech(second.as_dict()) == "You're welcome."
    assert states(hass) == before | {CEILING: "on"}
    # The question's recognition is not in the history; the command's call is.
    sent = fake_llm.requests[1]["messages"]
    assert [m["role"] for m in sent] == [
        "system",
        "user",
        "assistant",
        "tool",
        "assistant",
        "user",
    ]
    (call,) = sent[2]["tool_calls"]
    assert call["function"]["name"] == turn_on
    assert json.loads(sent[3]["content"])["speech"]["plain"]["speech"] == (
        "Turned on the light"
    )


async def test_a_compound_command_is_not_run_again_when_no_model_answers(
    home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """What local first did before the question is not done twice by the fallback."""
    hass = home
    agent = await _agent(hass, fake_llm)
    before = states(hass)
    calls = async_capture_events(hass, EVENT_CALL_SERVICE)
    fake_llm.script([Reply.error(500)] * 4)

    result = await _converse(
        hass, agent, "turn on the kitchen ceiling and is the desk lamp on"
    )

    assert _speech(result.as_dict()) == (
        "I turned on Kitchen ceiling. But the AI service had a problem answering. "
        "Please try again later."
    )
    assert states(hass) == before | {CEILING: "on"}
    # once: HA's agent, when no model answered, did not run the words again
    assert [c.data["service_data"] for c in calls if c.data["domain"] == "light"] == [
        {"entity_id": [CEILING]}
    ]
