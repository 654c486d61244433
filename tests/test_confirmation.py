"""Risky actions wait for the user's own "yes", whatever the model says or calls.

Each test checks the entity's state afterwards, what was spoken, and what the LLM server
was (or was not) asked.
"""

from datetime import timedelta
import inspect
from typing import Any

from freezegun.api import FrozenDateTimeFactory
import pytest
from pytest_homeassistant_custom_component.common import (
    async_capture_events,
    async_fire_time_changed,
)
from pytest_homeassistant_custom_component.components.recorder.common import (
    async_wait_recording_done,
)

from homeassistant.components import conversation
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.const import CONF_LLM_HASS_API
from homeassistant.core import Context, HomeAssistant
from homeassistant.helpers import chat_session, llm
from homeassistant.setup import async_setup_component

from custom_components.agentic_conversation.config_flow import default_agent_options
from custom_components.agentic_conversation.const import (
    CONF_ALLOWED_SERVICES,
    CONF_CONFIRM_ENTITIES,
    CONF_CONFIRM_PIN,
    DOMAIN,
    LLM_API_ID,
)
from custom_components.agentic_conversation.safety.confirmation import (
    CONFIRM_SECONDS,
    EVENT_ACTION,
)
from tests.across_releases import offered_name
from tests.fake_llm import FakeLLM, Reply
from tests.helpers import (
    add_agent,
    converse as _ask,
    speech as _speech,
    state_of as _state,
)

LOCK = "lock.front_door"
GARAGE = "cover.garage_door"
SHUTTER = "cover.kitchen_shutter"
LIGHT = "light.porch_light"
# A new agent's LLM APIs, unless a test says otherwise.
NEW_AGENT_APIS: list[str] = default_agent_options([])[CONF_LLM_HASS_API]
MERGED_APIS = [llm.LLM_API_ASSIST, LLM_API_ID]
# HA 2026.11+ ties a chat session to its user (another user's words are refused).
SESSIONS_HAVE_OWNERS = (
    "context" in inspect.signature(chat_session.async_get_chat_session).parameters
)


def _switchable(name: str, kind: str) -> dict[str, Any]:
    flag = f"input_boolean.{name}"
    on = {"action": "input_boolean.turn_on", "target": {"entity_id": flag}}
    off = {"action": "input_boolean.turn_off", "target": {"entity_id": flag}}
    is_on = f"is_state('{flag}', 'on')"
    if kind == "lock":
        # on = locked: the door starts locked.
        return {
            "name": "Front door",
            "state": f"{{{{ {is_on} }}}}",
            "lock": on,
            "unlock": off,
        }
    if kind == "light":
        return {
            "name": "Porch light",
            "state": f"{{{{ {is_on} }}}}",
            "turn_on": on,
            "turn_off": off,
        }
    return {
        "name": name.replace("_", " ").capitalize(),
        "device_class": kind,
        "state": f"{{{{ 'open' if {is_on} else 'closed' }}}}",
        "open_cover": on,
        "close_cover": off,
    }


@pytest.fixture
async def home(ha_core: HomeAssistant) -> HomeAssistant:
    """A locked front door, a closed garage door and shutter, a porch light: exposed."""
    hass = ha_core
    flags = ["front_door", "garage_door", "kitchen_shutter", "porch_light"]
    assert await async_setup_component(
        hass,
        "input_boolean",
        {"input_boolean": {f: {"initial": f == "front_door"} for f in flags}},
    )
    assert await async_setup_component(
        hass,
        "template",
        {
            "template": [
                {
                    "lock": [_switchable("front_door", "lock")],
                    "cover": [
                        _switchable("garage_door", "garage"),
                        _switchable("kitchen_shutter", "shutter"),
                    ],
                    "light": [_switchable("porch_light", "light")],
                }
            ]
        },
    )
    assert await async_setup_component(hass, "intent", {})
    await hass.async_block_till_done()
    for entity_id in (LOCK, GARAGE, SHUTTER, LIGHT):
        async_expose_entity(hass, conversation.DOMAIN, entity_id, True)
    assert hass.states.get(LOCK).state == "locked"  # type: ignore[union-attr]
    return hass


async def _agent(hass: HomeAssistant, server: FakeLLM, **options: Any) -> str:
    # The endpoint check is let finish first: a test that moves the clock on while its
    # request is open trips the HTTP client's own deadline (a teardown error, not ours).
    return await add_agent(
        hass,
        server,
        apis=NEW_AGENT_APIS,
        background=True,
        **{CONF_ALLOWED_SERVICES: ["light", "cover", "lock"], **options},
    )


async def _tool(
    hass: HomeAssistant, name: str, apis: list[str] = NEW_AGENT_APIS
) -> str:
    """The name the model sees for a tool (HA namespaces merged APIs its own way)."""
    return await offered_name(hass, apis, name)


async def _unlock_call(
    hass: HomeAssistant, call_id: str = "c1", apis: list[str] = NEW_AGENT_APIS
) -> Reply:
    return Reply.tool_calls(
        [(await _tool(hass, "HassTurnOff", apis), {"name": "Front door"}, call_id)]
    )


@pytest.mark.parametrize("apis", [NEW_AGENT_APIS, MERGED_APIS], ids=str)
async def test_intent_unlock_waits_for_yes(
    home: HomeAssistant, fake_llm: FakeLLM, apis: list[str]
) -> None:
    """Assist's HassTurnOff on a lock is an unlock: held, asked, run on "yes"."""
    hass = home
    agent = await _agent(hass, fake_llm, **{CONF_LLM_HASS_API: apis})
    events = async_capture_events(hass, EVENT_ACTION)
    fake_llm.script([await _unlock_call(hass, apis=apis), Reply.text("Unlocked!")])

    asked = await _ask(hass, agent, "unlock the front door")

    assert _state(hass, LOCK) == "locked"
    assert _speech(asked) == "Shall I unlock Front door?"
    assert asked.continue_conversation is True
    assert len(fake_llm.requests) == 1  # the model is not asked to go on
    assert [e.data["outcome"] for e in events] == ["held"]

    done = await _ask(hass, agent, "Yes.", asked.conversation_id)

    assert _state(hass, LOCK) == "unlocked"
    assert _speech(done) == "I unlocked Front door."
    assert len(fake_llm.requests) == 1  # "yes" is ours, not the model's
    assert [e.data["outcome"] for e in events] == ["held", "confirmed"]
    assert events[1].data["entity_ids"] == [LOCK]
    assert events[1].data["actions"] == ["lock.unlock"]


async def test_call_service_unlock_and_no(
    home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """call_service lock.unlock with "no": still locked, the no acknowledged."""
    hass = home
    agent = await _agent(hass, fake_llm)
    events = async_capture_events(hass, EVENT_ACTION)
    call_service = await _tool(hass, "call_service")
    fake_llm.script(
        [
            Reply.tool_calls(
                [
                    (
                        call_service,
                        {
                            "domain": "lock",
                            "service": "unlock",
                            "target": {"entity_id": LOCK},
                        },
                        "c1",
                    )
                ]
            )
        ]
    )

    asked = await _ask(hass, agent, "unlock the door")
    declined = await _ask(hass, agent, "no", asked.conversation_id)

    assert _speech(asked) == "Shall I unlock Front door?"
    assert _speech(declined) == "Okay, I won't."
    assert declined.continue_conversation is False
    assert _state(hass, LOCK) == "locked"
    assert [e.data["outcome"] for e in events] == ["held", "refused"]
    result = fake_llm.requests[0]["messages"][-1]
    assert result["role"] == "user"  # the held call's result went to the chat log only


async def test_garage_opens_on_yes_please(
    home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """A garage door is opened only after "yes please"; a shutter needs no yes."""
    hass = home
    agent = await _agent(hass, fake_llm)
    turn_on = await _tool(hass, "HassTurnOn")
    fake_llm.script(
        [
            Reply.tool_calls(
                [
                    (turn_on, {"name": "Kitchen shutter"}, "c1"),
                    (turn_on, {"name": "Garage door"}, "c2"),
                ]
            )
        ]
    )

    asked = await _ask(hass, agent, "open the shutter and the garage")

    assert _state(hass, SHUTTER) == "open"
    assert _state(hass, GARAGE) == "closed"
    assert _speech(asked) == "I opened Kitchen shutter. Shall I open Garage door?"

    done = await _ask(hass, agent, "yes please", asked.conversation_id)

    assert _state(hass, GARAGE) == "open"
    assert _speech(done) == "I opened Garage door."


async def test_unrelated_request_drops_it_and_asking_again_only_holds_again(
    home: HomeAssistant, fake_llm: FakeLLM, freezer: FrozenDateTimeFactory
) -> None:
    """Anything but yes drops the held call; the model asking again is held again."""
    hass = home
    agent = await _agent(hass, fake_llm)
    events = async_capture_events(hass, EVENT_ACTION)
    fake_llm.script(
        [
            await _unlock_call(hass, "c1"),
            # the user talks about something else; the model tries again
            await _unlock_call(hass, "c2"),
        ]
    )

    asked = await _ask(hass, agent, "unlock the front door")
    again = await _ask(hass, agent, "what time is it?", asked.conversation_id)

    assert _state(hass, LOCK) == "locked"
    # asked again right after an answer that was neither yes nor no: how to answer
    assert _speech(again) == "Say yes to unlock Front door, or no."
    assert len(fake_llm.requests) == 2
    # the model saw that it was not done
    sent = fake_llm.requests[1]["messages"]
    assert sent[-1] == {"role": "user", "content": "what time is it?"}
    assert any(
        m["role"] == "tool" and "needs the user's own confirmation" in m["content"]
        for m in sent
    )
    assert [e.data["outcome"] for e in events] == ["held", "refused", "held"]

    # Nobody answers: after a minute it expires on its own.
    freezer.tick(timedelta(seconds=CONFIRM_SECONDS + 1))
    async_fire_time_changed(hass)
    await hass.async_block_till_done()
    assert [e.data["outcome"] for e in events][-1] == "expired"
    assert _state(hass, LOCK) == "locked"


async def test_a_held_call_expires(
    home: HomeAssistant, fake_llm: FakeLLM, freezer: FrozenDateTimeFactory
) -> None:
    """After a minute, "yes" does nothing but say so."""
    hass = home
    agent = await _agent(hass, fake_llm)
    events = async_capture_events(hass, EVENT_ACTION)
    fake_llm.script([await _unlock_call(hass)])

    asked = await _ask(hass, agent, "unlock the front door")
    freezer.tick(timedelta(seconds=CONFIRM_SECONDS + 1))
    async_fire_time_changed(hass)
    await hass.async_block_till_done()
    late = await _ask(hass, agent, "yes", asked.conversation_id)

    assert _state(hass, LOCK) == "locked"
    assert (
        _speech(late) == "That request has expired, so I did nothing. Please ask again."
    )
    assert [e.data["outcome"] for e in events] == ["held", "expired"]
    assert len(fake_llm.requests) == 1


async def test_german_question_and_ja(home: HomeAssistant, fake_llm: FakeLLM) -> None:
    """Asked in German, confirmed with "ja bitte"."""
    hass = home
    agent = await _agent(hass, fake_llm)
    fake_llm.script([await _unlock_call(hass)])

    asked = await _ask(hass, agent, "Schließ die Haustür auf", language="de")
    assert _speech(asked) == "Soll ich Front door aufschließen?"
    assert _state(hass, LOCK) == "locked"

    done = await _ask(hass, agent, "Ja, bitte!", asked.conversation_id, language="de")

    assert _state(hass, LOCK) == "unlocked"
    assert _speech(done) == "Ich habe Front door aufgeschlossen."


async def test_pin_replaces_yes_for_locks(
    home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """With a PIN, "yes" is not enough, a wrong PIN does nothing, the right one unlocks."""
    hass = home
    agent = await _agent(hass, fake_llm, **{CONF_CONFIRM_PIN: "4711"})
    fake_llm.script([await _unlock_call(hass, "c1")] * 3)

    asked = await _ask(hass, agent, "unlock the front door")
    assert _speech(asked) == "Shall I unlock Front door? Please say the PIN to confirm."
    yes = await _ask(hass, agent, "yes", asked.conversation_id)
    assert (
        _speech(yes)
        == "That needs the PIN, so I did nothing. Please ask again and say the PIN."
    )

    asked = await _ask(hass, agent, "unlock the front door", asked.conversation_id)
    wrong = await _ask(hass, agent, "1 2 3 4", asked.conversation_id)
    assert _speech(wrong) == "That PIN is not right, so I did nothing."
    assert _state(hass, LOCK) == "locked"

    asked = await _ask(hass, agent, "unlock the front door", asked.conversation_id)
    done = await _ask(hass, agent, "four seven one one", asked.conversation_id)
    assert _state(hass, LOCK) == "unlocked"
    assert _speech(done) == "I unlocked Front door."


async def test_ask_before_list(home: HomeAssistant, fake_llm: FakeLLM) -> None:
    """An entity on the agent's ask-before list waits even for a plain turn on."""
    hass = home
    agent = await _agent(hass, fake_llm, **{CONF_CONFIRM_ENTITIES: [LIGHT]})
    fake_llm.script(
        [Reply.tool_calls([(await _tool(hass, "HassTurnOn"), {"name": "Porch light"})])]
    )

    asked = await _ask(hass, agent, "porch light on")

    assert _speech(asked) == "Shall I turn on Porch light?"
    assert _state(hass, LIGHT) == "off"
    await _ask(hass, agent, "do it", asked.conversation_id)
    assert _state(hass, LIGHT) == "on"


async def test_other_callers_cannot_unlock(home: HomeAssistant) -> None:
    """Without our agent's gate (another agent, MCP), risky calls are refused."""
    hass = home
    assert await async_setup_component(hass, DOMAIN, {})
    api = await llm.async_get_api(
        hass,
        LLM_API_ID,
        llm.LLMContext(DOMAIN, Context(), "en", conversation.DOMAIN, None),
    )
    result = await api.async_call_tool(
        llm.ToolInput(
            tool_name="call_service",
            tool_args={
                "domain": "cover",
                "service": "open_cover",
                "target": {"entity_id": GARAGE},
            },
        )
    )

    assert result.error
    assert _state(hass, GARAGE) == "closed"


async def test_removing_the_agent_drops_what_it_held(
    home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """An unloaded agent's held action is gone: nothing can run it later."""
    hass = home
    agent = await _agent(hass, fake_llm)
    events = async_capture_events(hass, EVENT_ACTION)
    fake_llm.script([await _unlock_call(hass)])
    await _ask(hass, agent, "unlock the front door")

    entry = hass.config_entries.async_entries(DOMAIN)[0]
    assert await hass.config_entries.async_unload(entry.entry_id)

    assert [e.data["outcome"] for e in events] == ["held", "expired"]
    assert _state(hass, LOCK) == "locked"


@pytest.mark.usefixtures("recorder_mock")
async def test_logbook_tells_who_asked_what(
    home: HomeAssistant, fake_llm: FakeLLM, hass_ws_client: Any, hass_admin_user: Any
) -> None:
    """Held and confirmed actions are in the logbook, with the asking user's context."""
    hass = home
    assert await async_setup_component(hass, "logbook", {})
    agent = await _agent(hass, fake_llm)
    fake_llm.script([await _unlock_call(hass)])
    context = Context(user_id=hass_admin_user.id)
    asked = await conversation.async_converse(
        hass, "unlock the front door", None, context, language="en", agent_id=agent
    )
    await conversation.async_converse(
        hass, "yes", asked.conversation_id, context, language="en", agent_id=agent
    )
    await hass.async_block_till_done()
    await async_wait_recording_done(hass)

    ws = await hass_ws_client(hass)
    await ws.send_json_auto_id(
        {"type": "logbook/get_events", "start_time": "2000-01-01T00:00:00Z"}
    )
    entries = [
        e for e in (await ws.receive_json())["result"] if e.get("domain") == DOMAIN
    ]

    assert [e["message"] for e in entries] == [
        "waits for confirmation to lock.unlock Front door",
        "was confirmed to lock.unlock Front door",
    ]
    assert all(e["context_user_id"] == hass_admin_user.id for e in entries), entries


@pytest.mark.parametrize(
    ("tool", "arguments", "entity_id", "before", "act"),
    [
        # Assist intents, every way they can reach the lock or the garage
        ("HassTurnOff", {"name": "Front door", "domain": ["lock"]}, LOCK, "locked", "unlock Front door"),
        ("HassTurnOn", {"name": "garage door"}, GARAGE, "closed", "open Garage door"),
        ("HassTurnOn", {"name": "Garage door", "device_class": ["garage"]}, GARAGE, "closed", "open Garage door"),
        ("HassSetPosition", {"name": "Garage door", "position": 100}, GARAGE, "closed", "open Garage door"),
        # our call_service, with every service allowed
        ("call_service", {"domain": "lock", "service": "unlock", "target": {"entity_id": [LOCK]}}, LOCK, "locked", "unlock Front door"),
        ("call_service", {"domain": "lock", "service": "open", "target": {"entity_id": LOCK}}, LOCK, "locked", "open Front door"),
        ("call_service", {"domain": "homeassistant", "service": "toggle", "target": {"entity_id": GARAGE}}, GARAGE, "closed", "open Garage door"),
        ("call_service", {"domain": "cover", "service": "set_cover_position", "target": {"entity_id": GARAGE}, "data": {"position": 40}}, GARAGE, "closed", "open Garage door"),
        ("call_service", {"domain": "cover", "service": "open_cover", "target": {"entity_id": [SHUTTER, GARAGE]}}, GARAGE, "closed", "open Garage door and Kitchen shutter"),
        ("call_service", {"domain": "cover", "service": "toggle", "target": {"entity_id": GARAGE}}, GARAGE, "closed", "open Garage door"),
    ],
)  # fmt: skip
async def test_every_way_to_a_risky_action_is_held(
    home: HomeAssistant,
    fake_llm: FakeLLM,
    *,
    tool: str,
    arguments: dict[str, Any],
    entity_id: str,
    before: str,
    act: str,
) -> None:
    """However the model phrases it, the door stays shut and the user is asked."""
    hass = home
    agent = await _agent(hass, fake_llm, **{CONF_ALLOWED_SERVICES: ["*"]})
    name = await _tool(hass, tool)
    # The model insists: the same call three times in the turn, then once more later.
    fake_llm.script(
        [
            Reply.tool_calls(
                [(name, arguments, "a"), (name, arguments, "b"), (name, arguments, "c")]
            ),
            Reply.tool_calls([(name, arguments, "d")]),
        ]
    )

    house = _covers_and_locks(hass)
    assert house[entity_id] == before

    asked = await _ask(hass, agent, "do it")
    assert _speech(asked) == f"Shall I {act}?"
    assert _covers_and_locks(hass) == house  # nothing, not even the shutter with it
    again = await _ask(hass, agent, "I said do it", asked.conversation_id)

    assert _speech(again) == f"Say yes to {act}, or no."
    assert _covers_and_locks(hass) == house


def _covers_and_locks(hass: HomeAssistant) -> dict[str, str]:
    return {s.entity_id: s.state for s in hass.states.async_all(["cover", "lock"])}


async def test_closing_needs_no_yes(home: HomeAssistant, fake_llm: FakeLLM) -> None:
    """Locking and closing are safe: they run at once."""
    hass = home
    agent = await _agent(hass, fake_llm, **{CONF_ALLOWED_SERVICES: ["*"]})
    call_service = await _tool(hass, "call_service")
    fake_llm.script(
        [
            Reply.tool_calls(
                [
                    (
                        call_service,
                        {
                            "domain": "cover",
                            "service": "close_cover",
                            "target": {"entity_id": GARAGE},
                        },
                    ),
                    (await _tool(hass, "HassTurnOn"), {"name": "Front door"}),
                ]
            ),
            Reply.text("Locked and closed."),
        ]
    )

    result = await _ask(hass, agent, "lock up")

    assert _speech(result) == "Locked and closed."
    assert _state(hass, LOCK) == "locked"


async def test_yes_in_another_conversation_does_nothing(
    home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """A held action belongs to its conversation: a "yes" elsewhere is a new request."""
    hass = home
    agent = await _agent(hass, fake_llm)
    fake_llm.script([await _unlock_call(hass), Reply.text("Yes to what?")])

    await _ask(hass, agent, "unlock the front door")
    other = await _ask(hass, agent, "yes")

    assert _speech(other) == "Yes to what?"
    assert _state(hass, LOCK) == "locked"


async def _ask_from(
    hass: HomeAssistant,
    agent: str,
    text: str,
    conversation_id: str | None,
    *,
    user_id: str,
    device_id: str,
    satellite_id: str | None = None,
) -> conversation.ConversationResult:
    return await conversation.async_converse(
        hass,
        text,
        conversation_id,
        Context(user_id=user_id),
        language="en",
        agent_id=agent,
        device_id=device_id,
        satellite_id=satellite_id,
    )


async def test_only_the_asker_can_say_yes(
    home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """A "yes" from another device, satellite or user is a new turn.

    Same conversation id: the lock stays locked, and the asker's own "yes" still
    unlocks it afterwards.
    """
    hass = home
    agent = await _agent(hass, fake_llm)
    alice = await hass.auth.async_create_user("Alice", group_ids=["system-admin"])
    mallory = await hass.auth.async_create_user("Mallory", group_ids=["system-admin"])
    events = async_capture_events(hass, EVENT_ACTION)
    strangers = [
        {"user_id": alice.id, "device_id": "hall_satellite"},  # another device
        {"user_id": mallory.id, "device_id": "kitchen_satellite"},  # another user
        {  # another satellite on the same device
            "user_id": alice.id,
            "device_id": "kitchen_satellite",
            "satellite_id": "assist_satellite.hall",
        },
        {"user_id": mallory.id, "device_id": "hall_satellite"},  # both
    ]
    fake_llm.script(
        [await _unlock_call(hass)] + [Reply.text("Yes to what?")] * len(strangers)
    )
    asker = {"user_id": alice.id, "device_id": "kitchen_satellite"}

    asked = await _ask_from(hass, agent, "unlock the front door", None, **asker)
    assert _speech(asked) == "Shall I unlock Front door?"
    new_turns = 0
    for stranger in strangers:
        other = await _ask_from(hass, agent, "yes", asked.conversation_id, **stranger)
        if stranger["user_id"] != alice.id and SESSIONS_HAVE_OWNERS:
            # HA 2026.11+ refuses another user's words in the conversation itself.
            assert _speech(other) == "Unauthorized"
        else:
            # A new request, for the model.
            assert _speech(other) == "Yes to what?"
            new_turns += 1
        assert _state(hass, LOCK) == "locked"
    assert len(fake_llm.requests) == 1 + new_turns
    assert [e.data["outcome"] for e in events] == ["held"]

    done = await _ask_from(hass, agent, "yes", asked.conversation_id, **asker)

    assert _state(hass, LOCK) == "unlocked"
    assert _speech(done) == "I unlocked Front door."
    assert len(fake_llm.requests) == 1 + new_turns
    assert [e.data["outcome"] for e in events] == ["held", "confirmed"]


async def test_a_strangers_yes_leaves_it_to_expire(
    home: HomeAssistant, fake_llm: FakeLLM, freezer: FrozenDateTimeFactory
) -> None:
    """Held for one asker, a stranger's "yes" neither runs nor refuses it; it expires."""
    hass = home
    agent = await _agent(hass, fake_llm)
    alice = await hass.auth.async_create_user("Alice", group_ids=["system-admin"])
    mallory = await hass.auth.async_create_user("Mallory", group_ids=["system-admin"])
    events = async_capture_events(hass, EVENT_ACTION)
    fake_llm.script([await _unlock_call(hass), Reply.text("Yes to what?")])

    asked = await _ask_from(
        hass, agent, "unlock the front door", None, user_id=alice.id, device_id="d1"
    )
    other = await _ask_from(
        hass, agent, "yes", asked.conversation_id, user_id=mallory.id, device_id="d1"
    )
    freezer.tick(timedelta(seconds=CONFIRM_SECONDS + 1))
    async_fire_time_changed(hass)
    await hass.async_block_till_done()
    late = await _ask_from(
        hass, agent, "yes", asked.conversation_id, user_id=alice.id, device_id="d1"
    )

    assert _speech(other) == (
        "Unauthorized" if SESSIONS_HAVE_OWNERS else "Yes to what?"
    )
    assert _state(hass, LOCK) == "locked"
    assert [e.data["outcome"] for e in events] == ["held", "expired"]
    assert (
        _speech(late) == "That request has expired, so I did nothing. Please ask again."
    )
