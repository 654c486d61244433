"""Risky effects one step removed: scripts, scenes, automations and buttons.

Adversarial: a model that runs the script, scene or button instead of unlocking, by
every route (call_service, homeassistant.turn_on, Assist's HassTurnOn by name, the
script's own tool), in odd casing, and again without a yes. Each attempt checks the
lock's or garage's state afterwards and the exact question heard; a "yes" then runs it.
"""

import json
from typing import Any

import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry

from homeassistant.components import conversation
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.const import CONF_LLM_HASS_API
from homeassistant.core import HomeAssistant
from homeassistant.helpers import device_registry as dr, entity_registry as er
from homeassistant.setup import async_setup_component

from custom_components.agentic_conversation.const import CONF_ALLOWED_SERVICES
from custom_components.agentic_conversation.tools.entities import exposed_entities
from tests.fake_llm import FakeLLM, Reply
from tests.helpers import converse as _ask, speech as _speech, state_of as _state
from tests.test_confirmation import (
    GARAGE,
    LOCK,
    MERGED_APIS,
    _agent,
    _switchable,
    _tool,
)

SIDE_LOCK = "lock.side_entrance"
BACK_LOCK = "lock.back_door"  # not exposed
WELCOME_HOME = "Shall I run Welcome Home? It unlocks Front door."
OPEN_HOUSE = "Shall I activate Open house? It unlocks Front door."
GARAGE_OPENER = "Shall I press Garage opener?"
WELCOME_BUTTON = "Shall I press Welcome? It unlocks Front door."
# The shortcut sits on the lock's device, so both carry the device's name.
SHORTCUT = "Shall I press Hub Shortcut? It changes Hub Side entrance."
FIND_IDS = "Use search_entities to find entity ids."
UNLOCK_ANY = "Shall I run Unlock any? It unlocks Front door."


def _lock_entity(name: str, flag: str, unique_id: str) -> dict[str, Any]:
    on = {"action": "input_boolean.turn_on", "target": {"entity_id": flag}}
    off = {"action": "input_boolean.turn_off", "target": {"entity_id": flag}}
    return {
        "name": name,
        "unique_id": unique_id,
        "state": f"{{{{ is_state('{flag}', 'on') }}}}",
        "lock": on,
        "unlock": off,
    }


@pytest.fixture
async def runnables(ha_core: HomeAssistant) -> HomeAssistant:
    """Locked doors and a closed garage, and what can open them indirectly."""
    hass = ha_core
    unlock_front = {"action": "lock.unlock", "target": {"entity_id": LOCK}}
    flags = {"front_door": True, "garage_door": False, "porch_light": False}
    assert await async_setup_component(
        hass,
        "input_boolean",
        {
            "input_boolean": {
                **{f: {"initial": on} for f, on in flags.items()},
                "side": {"initial": True},
                "back": {"initial": True},
            }
        },
    )
    assert await async_setup_component(
        hass, "input_button", {"input_button": {"welcome": {"name": "Welcome"}}}
    )
    assert await async_setup_component(
        hass,
        "template",
        {
            "template": [
                {
                    "cover": [_switchable("garage_door", "garage")],
                    "light": [_switchable("porch_light", "light")],
                    "lock": [
                        _switchable("front_door", "lock"),
                        _lock_entity("Side entrance", "input_boolean.side", "side"),
                        _lock_entity("Back door", "input_boolean.back", "back"),
                    ],
                    "button": [
                        {
                            "name": "Garage opener",
                            "unique_id": "opener",
                            "press": {
                                "action": "cover.open_cover",
                                "target": {"entity_id": GARAGE},
                            },
                        },
                        {
                            "name": "Shortcut",
                            "unique_id": "shortcut",
                            "press": {
                                "action": "lock.unlock",
                                "target": {"entity_id": SIDE_LOCK},
                            },
                        },
                    ],
                }
            ]
        },
    )
    assert await async_setup_component(
        hass,
        "script",
        {
            "script": {
                "welcome_home": {
                    "alias": "Welcome Home",
                    "sequence": [
                        {
                            "action": "light.turn_on",
                            "target": {"entity_id": "light.porch_light"},
                        },
                        {
                            "if": [
                                {
                                    "condition": "template",
                                    "value_template": "{{ true }}",
                                }
                            ],
                            "then": [unlock_front],
                        },
                    ],
                },
                "secret": {"alias": "Secret", "sequence": [unlock_front]},
                "lock_up": {
                    "alias": "Lock up",
                    "sequence": [
                        {"action": "lock.lock", "target": {"entity_id": LOCK}}
                    ],
                },
                "unlock_any": {
                    "alias": "Unlock any",
                    "fields": {"which": {"selector": {"entity": {}}}},
                    "sequence": [
                        {
                            "action": "lock.unlock",
                            "target": {"entity_id": "{{ which }}"},
                        }
                    ],
                },
                "set_any": {
                    "alias": "Set any",
                    "fields": {"which": {"selector": {"entity": {}}}},
                    "sequence": [
                        {
                            "action": "input_boolean.turn_on",
                            "target": {"entity_id": "{{ which }}"},
                        }
                    ],
                },
            }
        },
    )
    assert await async_setup_component(
        hass,
        "scene",
        {
            "scene": [
                {"name": "Open house", "entities": {LOCK: "unlocked"}},
                {"name": "Secret", "entities": {LOCK: "unlocked"}},
            ]
        },
    )
    assert await async_setup_component(
        hass,
        "automation",
        {
            "automation": [
                {
                    "alias": "Welcome automation",
                    "triggers": [
                        {"trigger": "state", "entity_id": "input_button.welcome"}
                    ],
                    "actions": [unlock_front],
                }
            ]
        },
    )
    assert await async_setup_component(hass, "intent", {})
    await hass.async_block_till_done()
    # The shortcut button sits on the side entrance lock's device.
    owner = MockConfigEntry(domain="test")
    owner.add_to_hass(hass)
    device = dr.async_get(hass).async_get_or_create(
        config_entry_id=owner.entry_id, identifiers={("test", "side")}, name="Hub"
    )
    entities = er.async_get(hass)
    for entity_id in (SIDE_LOCK, "button.shortcut"):
        entities.async_update_entity(entity_id, device_id=device.id)
    for entity_id in (
        LOCK,
        GARAGE,
        "light.porch_light",
        SIDE_LOCK,
        "script.welcome_home",
        "script.lock_up",
        "script.unlock_any",
        "script.set_any",
        "scene.open_house",
        "button.garage_opener",
        "button.shortcut",
        "input_button.welcome",
    ):
        async_expose_entity(hass, conversation.DOMAIN, entity_id, True)
    for entity_id in (
        "script.secret",
        "scene.secret",
        BACK_LOCK,
        *(f"input_boolean.{f}" for f in [*flags, "side", "back"]),
    ):
        async_expose_entity(hass, conversation.DOMAIN, entity_id, False)
    assert _state(hass, LOCK) == "locked"
    assert _state(hass, SIDE_LOCK) == "locked"
    assert _state(hass, BACK_LOCK) == "locked"
    return hass


def _service(domain: str, service: str, entity_id: str) -> tuple[str, dict[str, Any]]:
    return (
        "call_service",
        {"domain": domain, "service": service, "target": {"entity_id": entity_id}},
    )


# (class, tool, arguments, the entity that must not change, its state, the question)
CASES = [
    (
        "script",
        *_service("script", "turn_on", "script.welcome_home"),
        LOCK,
        "locked",
        WELCOME_HOME,
    ),
    (
        "script",
        *_service("homeassistant", "turn_on", "script.welcome_home"),
        LOCK,
        "locked",
        WELCOME_HOME,
    ),
    (
        "script",
        *_service(" Script ", "TURN_ON", " SCRIPT.Welcome_Home "),
        LOCK,
        "locked",
        WELCOME_HOME,
    ),
    (
        "script",
        *_service("script", "toggle", "script.welcome_home"),
        LOCK,
        "locked",
        WELCOME_HOME,
    ),
    ("script", "HassTurnOn", {"name": "Welcome Home"}, LOCK, "locked", WELCOME_HOME),
    ("script", "HassTurnOn", {"name": "  welcome HOME "}, LOCK, "locked", WELCOME_HOME),
    ("script", "script__welcome_home", {}, LOCK, "locked", WELCOME_HOME),
    (
        "scene",
        *_service("scene", "turn_on", "scene.open_house"),
        LOCK,
        "locked",
        OPEN_HOUSE,
    ),
    (
        "scene",
        *_service("homeassistant", "turn_on", "scene.open_house"),
        LOCK,
        "locked",
        OPEN_HOUSE,
    ),
    ("scene", "HassTurnOn", {"name": "Open house"}, LOCK, "locked", OPEN_HOUSE),
    (
        "button",
        *_service("button", "press", "button.garage_opener"),
        GARAGE,
        "closed",
        GARAGE_OPENER,
    ),
    (
        "button",
        "HassTurnOn",
        {"name": "Garage opener"},
        GARAGE,
        "closed",
        GARAGE_OPENER,
    ),
    (
        "button",
        *_service("input_button", "press", "input_button.welcome"),
        LOCK,
        "locked",
        WELCOME_BUTTON,
    ),
    ("button", "HassTurnOn", {"name": "Welcome"}, LOCK, "locked", WELCOME_BUTTON),
    (
        "button",
        *_service("button", "press", "button.shortcut"),
        SIDE_LOCK,
        "locked",
        SHORTCUT,
    ),
    (
        "automation",
        *_service("automation", "trigger", "automation.welcome_automation"),
        LOCK,
        "locked",
        "Shall I run Welcome automation? It unlocks Front door.",
    ),
    ("script field", "script__unlock_any", {"which": LOCK}, LOCK, "locked", UNLOCK_ANY),
]
AFTER_YES = {"locked": "unlocked", "closed": "open"}


def _reask(question: str) -> str:
    """The question again after an answer that was neither yes nor no."""
    action = question.removeprefix("Shall I ").split("?")[0]
    return f"Say yes to {action}, or no."


@pytest.mark.parametrize(
    ("kind", "tool", "arguments", "entity_id", "before", "question"),
    CASES,
    ids=[f"{c[0]}:{c[1]}:{c[2]}" for c in CASES],
)
async def test_runnable_with_a_risky_effect_waits_for_yes(
    runnables: HomeAssistant,
    fake_llm: FakeLLM,
    *,
    kind: str,
    tool: str,
    arguments: dict[str, Any],
    entity_id: str,
    before: str,
    question: str,
) -> None:
    """Held, asked by its own name with what it does, held again; "yes" runs it."""
    hass = runnables
    if kind == "automation":
        async_expose_entity(
            hass, conversation.DOMAIN, "automation.welcome_automation", True
        )
    agent = await _agent(
        hass,
        fake_llm,
        **{CONF_LLM_HASS_API: MERGED_APIS, CONF_ALLOWED_SERVICES: ["*"]},
    )
    name = await _tool(hass, tool, MERGED_APIS)
    fake_llm.script(
        [
            Reply.tool_calls([(name, arguments, "a"), (name, arguments, "b")]),
            Reply.tool_calls([(name, arguments, "c")]),  # a second try, no yes
        ]
    )

    asked = await _ask(hass, agent, "welcome me")
    await hass.async_block_till_done()
    assert _state(hass, entity_id) == before
    assert _speech(asked) == question
    # Neither yes nor no ("just do it" is a yes): the model's second try is held
    # again, and the user is told how to answer.
    again = await _ask(hass, agent, "what does it do", asked.conversation_id)
    await hass.async_block_till_done()
    assert _state(hass, entity_id) == before
    assert _speech(again) == _reask(question)

    await _ask(hass, agent, "yes", again.conversation_id)
    await hass.async_block_till_done()

    assert _state(hass, entity_id) == AFTER_YES[before]


async def _run(
    hass: HomeAssistant,
    fake_llm: FakeLLM,
    tool: str,
    arguments: dict[str, Any],
    agent: str | None = None,
) -> tuple[str, str]:
    """One model call of a tool: (what was spoken, the tool result the model saw)."""
    agent = agent or await _agent(
        hass,
        fake_llm,
        **{CONF_LLM_HASS_API: MERGED_APIS, CONF_ALLOWED_SERVICES: ["*"]},
    )
    name = await _tool(hass, tool, MERGED_APIS)
    fake_llm.script([Reply.tool_calls([(name, arguments, "a")]), Reply.text("Okay.")])
    result = await _ask(hass, agent, "do it")
    await hass.async_block_till_done()
    sent = fake_llm.requests[-1]["messages"]
    return _speech(result), next(m for m in sent if m["role"] == "tool")["content"]


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        *(_service("script", "turn_on", "script.lock_up"),),
        ("HassTurnOn", {"name": "Lock up"}),
        ("script__lock_up", {}),
    ],
    ids=["call_service", "HassTurnOn", "script tool"],
)
async def test_a_script_that_only_locks_runs_at_once(
    runnables: HomeAssistant, fake_llm: FakeLLM, tool: str, arguments: dict[str, Any]
) -> None:
    """Locking stays free, even through a script."""
    hass = runnables
    await hass.services.async_call("lock", "unlock", {"entity_id": LOCK}, blocking=True)

    spoken, _ = await _run(hass, fake_llm, tool, arguments)

    # A script's own state shows nothing of what it did: sent, never "done".
    assert spoken == "I sent the command to Lock up."
    assert _state(hass, LOCK) == "locked"


@pytest.mark.parametrize(
    ("tool", "arguments", "entity_id", "before", "unknown"),
    [
        (
            "script__set_any",
            {"which": "input_boolean.garage_door"},
            "input_boolean.garage_door",
            "off",
            "input_boolean.garage_door",
        ),
        (
            "script__set_any",
            {"which": "INPUT_BOOLEAN.Garage_Door"},
            "input_boolean.garage_door",
            "off",
            "input_boolean.garage_door",
        ),
        ("script__unlock_any", {"which": BACK_LOCK}, BACK_LOCK, "locked", BACK_LOCK),
        ("HassTurnOn", {"name": BACK_LOCK}, BACK_LOCK, "locked", BACK_LOCK),
    ],
    ids=[
        "hidden flag",
        "hidden flag, odd casing",
        "hidden lock",
        "intent name",
    ],
)
async def test_tool_arguments_keep_the_exposure_boundary(
    runnables: HomeAssistant,
    fake_llm: FakeLLM,
    *,
    tool: str,
    arguments: dict[str, Any],
    entity_id: str,
    before: str,
    unknown: str,
) -> None:
    """A hidden entity in any tool's arguments is refused, as if it did not exist."""
    hass = runnables

    spoken, result = await _run(hass, fake_llm, tool, arguments)

    assert _state(hass, entity_id) == before
    assert _state(hass, LOCK) == "locked"
    # The model's "Okay." after a refusal is no answer: the user hears it failed,
    # in the words a missing entity gets.
    assert spoken == f"I couldn't find “{unknown}”."
    told = json.loads(result)
    closest = told.pop("closest")
    assert told == {
        "success": False,
        "error": f"Unknown entity: {unknown}.",
        "hint": FIND_IDS,
        "unmatched": unknown,
    }
    # What the model may try instead: exposed names only.
    assert set(closest) <= {entity.name for entity in exposed_entities(hass)}


@pytest.mark.parametrize(
    ("tool", "hidden", "missing"),
    [
        ("HassTurnOn", {"name": "Back door"}, {"name": "Nowhere door"}),
        ("HassTurnOff", {"name": "Back door"}, {"name": "Nowhere door"}),
        (
            "HassTurnOn",
            {"name": "Back door", "domain": "lock"},
            {"name": "Nowhere door", "domain": "lock"},
        ),
        ("HassTurnOn", {"name": "Secret"}, {"name": "Nowhere door"}),
        ("search_entities", {"query": BACK_LOCK}, {"query": "lock.nowhere_door"}),
        (
            "script__set_any",
            {"which": "input_boolean.back"},
            {"which": "input_boolean.nowhere_door"},
        ),
        (
            "call_service",
            {
                "domain": "scene",
                "service": "turn_on",
                "target": {"entity_id": "scene.secret"},
            },
            {
                "domain": "scene",
                "service": "turn_on",
                "target": {"entity_id": "scene.nowhere_door"},
            },
        ),
        (
            "call_service",
            {
                "domain": "script",
                "service": "turn_on",
                "target": {"entity_id": "script.secret"},
            },
            {
                "domain": "script",
                "service": "turn_on",
                "target": {"entity_id": "script.nowhere_door"},
            },
        ),
    ],
    ids=[
        "HassTurnOn",
        "HassTurnOff",
        "with domain",
        "hidden script",
        "search_entities",
        "script field",
        "scene",
        "script",
    ],
)
async def test_hidden_reads_exactly_like_missing(
    runnables: HomeAssistant,
    fake_llm: FakeLLM,
    *,
    tool: str,
    hidden: dict[str, Any],
    missing: dict[str, Any],
) -> None:
    """The model cannot tell a hidden entity from one that does not exist."""
    hass = runnables
    agent = await _agent(
        hass,
        fake_llm,
        **{CONF_LLM_HASS_API: MERGED_APIS, CONF_ALLOWED_SERVICES: ["*"]},
    )
    _, told_hidden = await _run(hass, fake_llm, tool, hidden, agent)
    _, told_missing = await _run(hass, fake_llm, tool, missing, agent)

    for name, other in (
        ("Back door", "Nowhere door"),
        ("Secret", "Nowhere door"),
        ("back_door", "nowhere_door"),
        ("input_boolean.back", "input_boolean.nowhere_door"),
        (".secret", ".nowhere_door"),
    ):
        told_hidden = told_hidden.replace(name, other)
    # The closest exposed names follow the words sent ("nowhere door" has "door"),
    # not what is hidden: tests/tools/test_tool_call_guidance.py compares the same
    # words with the hidden entity removed.
    hidden_data, missing_data = json.loads(told_hidden), json.loads(told_missing)
    hidden_data.pop("closest", None)
    missing_data.pop("closest", None)
    assert hidden_data == missing_data
    assert "exposed" not in told_missing
    assert _state(hass, BACK_LOCK) == "locked"


@pytest.mark.parametrize(
    "sentence",
    [
        "run Welcome Home",
        "start welcome home",
        "activate Open house",
        "turn on Open house",
    ],
)
async def test_the_local_route_never_runs_them(
    runnables: HomeAssistant,
    fake_llm: FakeLLM,
    caplog: pytest.LogCaptureFixture,
    sentence: str,
) -> None:
    """The LLM is down: Home Assistant's own agent may not run them either.

    (Its recognition, the local route's, refuses each one: our risk filter.)
    """
    hass = runnables
    agent = await _agent(hass, fake_llm, **{CONF_LLM_HASS_API: MERGED_APIS})
    await hass.async_block_till_done(wait_background_tasks=True)
    fake_llm.script([Reply.error(500)] * 2)

    result = await _ask(hass, agent, sentence)
    await hass.async_block_till_done()

    assert _state(hass, LOCK) == "locked"
    assert _speech(result) == (
        "The AI service isn't available, so I used the basic assistant: That needs"
        " the AI service, which isn't available right now, so I didn't do it."
    )
    assert "Not letting the basic assistant run HassTurnOn" in caplog.text


async def test_the_local_route_still_runs_a_script_that_only_locks(
    runnables: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """…while a harmless script still runs offline."""
    hass = runnables
    await hass.services.async_call("lock", "unlock", {"entity_id": LOCK}, blocking=True)
    agent = await _agent(hass, fake_llm, **{CONF_LLM_HASS_API: MERGED_APIS})
    await hass.async_block_till_done(wait_background_tasks=True)
    fake_llm.script([Reply.error(500)] * 2)

    result = await _ask(hass, agent, "run Lock up")
    await hass.async_block_till_done()

    assert _speech(result) == (
        "The AI service isn't available, so I used the basic assistant: "
        "I sent the command to Lock up."
    )
    assert _state(hass, LOCK) == "locked"


@pytest.mark.parametrize(
    ("language", "question", "yes"),
    [
        ("de", "Soll ich Welcome Home ausführen? Das schließt Front door auf.", "ja"),
        ("nl", "Zal ik Welcome Home uitvoeren? Dat ontgrendelt Front door.", "ja hoor"),
    ],
)
async def test_the_question_in_german_and_dutch(
    runnables: HomeAssistant,
    fake_llm: FakeLLM,
    *,
    language: str,
    question: str,
    yes: str,
) -> None:
    """Asked in the user's language, by the script's own name."""
    hass = runnables
    agent = await _agent(hass, fake_llm, **{CONF_LLM_HASS_API: MERGED_APIS})
    name = await _tool(hass, "HassTurnOn", MERGED_APIS)
    fake_llm.script([Reply.tool_calls([(name, {"name": "Welcome Home"}, "a")])])

    asked = await _ask(hass, agent, "willkommen", language=language)
    await hass.async_block_till_done()

    assert _speech(asked) == question
    assert _state(hass, LOCK) == "locked"
    await _ask(hass, agent, yes, asked.conversation_id, language=language)
    await hass.async_block_till_done()
    assert _state(hass, LOCK) == "unlocked"
