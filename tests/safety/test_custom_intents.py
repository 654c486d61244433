"""Every intent is judged by what it does: the user's own unlocking sentence asks first.

An `intent_script` whose action unlocks the front door ("Welcome home") is asked
about on every route: called by the model, said as its custom sentence with local
first on, and refused when no model answers; after a yes it runs. One that turns on
a light runs at once. A custom intent whose actions cannot be read is asked about
when its name says it unlocks or opens and the home has a lock, garage or alarm.
"""

from pathlib import Path
from typing import Any

import pytest

from homeassistant.core import Context, HomeAssistant
from homeassistant.helpers import intent, llm
from homeassistant.setup import async_setup_component

from custom_components.agentic_conversation.const import (
    COMPACT_API_ID,
    CONF_LOCAL_FALLBACK,
    CONF_LOCAL_FIRST,
    DOMAIN,
)
from custom_components.agentic_conversation.offered_tools import original_tool
from custom_components.agentic_conversation.safety.effects import UNKNOWN_SERVICE
from custom_components.agentic_conversation.safety.intent_actions import (
    OPENER_WORDS,
    readable_actions,
)
from custom_components.agentic_conversation.safety.risk import (
    RiskKind,
    intent_effects,
    risk_of,
)
from tests.assist_pipeline import Door
from tests.fake_llm import FakeLLM, Reply
from tests.helpers import converse, said, speech, state_of
from tests.test_confirmation import GARAGE, LIGHT, LOCK, _agent, _tool, home

__all__ = ["home"]

QUESTION = "Shall I unlock Front door?"
UNLOCKED = "I unlocked Front door."
BASIC = "The AI service isn't available, so I used the basic assistant: "
# The user's own intents, as written in configuration.yaml.
INTENT_SCRIPTS = {
    "WelcomeHome": {
        "description": "Greets whoever comes home",
        "action": [{"action": "lock.unlock", "target": {"entity_id": LOCK}}],
        "speech": {"text": "Welcome!"},
    },
    "PorchGlow": {
        "description": "Makes the porch glow",
        "action": [{"action": "light.turn_on", "target": {"entity_id": LIGHT}}],
        "speech": {"text": "Glowing."},
    },
    # Its target comes from the slots: what it does depends on what is named.
    "LetIn": {
        "action": [
            {
                "action": "{{ 'lock.unlock' if 'lock' in targets.entities[0] "
                "else 'light.turn_on' }}",
                "target": {"entity_id": "{{ targets.entities }}"},
            }
        ],
        "speech": {"text": "Done."},
    },
    "JustSpeaks": {"speech": {"text": "Hello."}},
}
SENTENCES = """\
language: en
intents:
  WelcomeHome:
    data:
      - sentences:
          - "we are home"
  PorchGlow:
    data:
      - sentences:
          - "porch glow"
  OpenSesame:
    data:
      - sentences:
          - "open sesame"
  TellTheTide:
    data:
      - sentences:
          - "how is the tide"
"""


class _OpenSesame(intent.IntentHandler):
    """Another integration's intent: its actions are code we cannot read."""

    intent_type = "OpenSesame"
    description = "Opens everything"

    async def async_handle(self, intent_obj: intent.Intent) -> intent.IntentResponse:
        await intent_obj.hass.services.async_call(
            "lock", "unlock", {"entity_id": LOCK}, blocking=True
        )
        response = intent_obj.create_response()
        response.async_set_speech("Open!")
        return response


class _TellTime(intent.IntentHandler):
    """Another integration's intent that says nothing about opening."""

    intent_type = "TellTheTide"
    description = "Tells the tide"

    async def async_handle(self, intent_obj: intent.Intent) -> intent.IntentResponse:
        response = intent_obj.create_response()
        response.async_set_speech("Low tide.")
        return response


@pytest.fixture
async def custom_home(home: HomeAssistant, tmp_path: Path) -> HomeAssistant:
    """The front-door home with the user's intent scripts and custom sentences."""
    hass = home
    sentences = tmp_path / "custom_sentences" / "en"
    sentences.mkdir(parents=True)
    (sentences / "home.yaml").write_text(SENTENCES, encoding="utf-8")
    hass.config.config_dir = str(tmp_path)
    assert await async_setup_component(
        hass, "intent_script", {"intent_script": INTENT_SCRIPTS}
    )
    intent.async_register(hass, _OpenSesame())
    intent.async_register(hass, _TellTime())
    await hass.async_block_till_done()
    return hass


def _context() -> llm.LLMContext:
    return llm.LLMContext(DOMAIN, Context(), "en", "conversation", None)


@pytest.mark.parametrize(
    ("name", "arguments", "risky"),
    [
        ("WelcomeHome", {}, {(LOCK, "unlock"): RiskKind.UNLOCK}),
        ("PorchGlow", {}, {}),
        ("JustSpeaks", {}, {}),
        ("LetIn", {"name": "Front door"}, {(LOCK, "unlock"): RiskKind.UNLOCK}),
        ("LetIn", {"name": "Porch light"}, {}),
        ("TellTheTide", {}, {}),
        (
            "OpenSesame",
            {},
            {(LOCK, UNKNOWN_SERVICE): RiskKind.OTHER, (GARAGE, UNKNOWN_SERVICE): RiskKind.OTHER},
        ),
    ],
)  # fmt: skip
async def test_what_each_custom_intent_does(
    custom_home: HomeAssistant,
    name: str,
    arguments: dict[str, Any],
    risky: dict[tuple[str, str], RiskKind],
) -> None:
    """Read from its actions (templates rendered with its slots), else its name."""
    hass = custom_home
    effects = intent_effects(hass, name, arguments, _context())
    found = {
        (effect.entity_id, effect.service): kind
        for effect in effects
        if (kind := risk_of(hass, effect, ())) is not None
    }
    assert found == risky


async def test_the_model_calls_the_unlocking_intent_script(
    custom_home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """Asked first, still locked; "yes" runs it: unlocked, and said so."""
    hass = custom_home
    agent = await _agent(hass, fake_llm)
    fake_llm.script([Reply.tool_calls([(await _tool(hass, "WelcomeHome"), {})])])

    asked = await converse(hass, agent, "I'm home")

    assert speech(asked) == QUESTION
    assert state_of(hass, LOCK) == "locked"

    done = await converse(hass, agent, "yes", asked.conversation_id)

    assert speech(done) == UNLOCKED
    assert state_of(hass, LOCK) == "unlocked"
    assert len(fake_llm.requests) == 1


@pytest.mark.parametrize("door", ["async_converse", "pipeline"], indirect=True)
async def test_the_custom_sentence_with_local_first(
    custom_home: HomeAssistant,
    fake_llm: FakeLLM,
    door: Door,
) -> None:
    """The user's own sentence: asked, no model call; "yes" unlocks."""
    hass = custom_home
    agent = await _agent(hass, fake_llm, **{CONF_LOCAL_FIRST: True})
    ask = await door.open(hass, agent)

    asked = await ask("we are home", None)
    conversation_id = asked["conversation_id"]

    assert said(asked) == QUESTION
    assert asked["continue_conversation"] is True
    assert state_of(hass, LOCK) == "locked"
    assert fake_llm.requests == []

    declined = await ask("all good, thanks", conversation_id)

    assert said(declined) == "Okay, I won't."
    assert state_of(hass, LOCK) == "locked"

    assert said(await ask("we are home", conversation_id)) == QUESTION
    done = await ask("yes", conversation_id)

    assert said(done) == UNLOCKED
    assert state_of(hass, LOCK) == "unlocked"
    assert fake_llm.requests == []
    if door.name == "pipeline":
        assert door.said == [QUESTION, "Okay, I won't.", UNLOCKED]


async def test_an_intent_script_that_lights_runs_at_once(
    custom_home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """Called by the model, or said with local first: the porch light is on."""
    hass = custom_home
    agent = await _agent(hass, fake_llm)
    fake_llm.script(
        [
            Reply.tool_calls([(await _tool(hass, "PorchGlow"), {})]),
            Reply.text("The porch glows."),
        ]
    )

    assert speech(await converse(hass, agent, "make the porch glow")) == (
        "The porch glows."
    )
    assert state_of(hass, LIGHT) == "on"

    await hass.services.async_call("light", "turn_off", {"entity_id": LIGHT}, True)
    local = await _agent(hass, fake_llm, **{CONF_LOCAL_FIRST: True})

    assert speech(await converse(hass, local, "porch glow")) == "Glowing."
    assert state_of(hass, LIGHT) == "on"
    assert len(fake_llm.requests) == 2


async def test_an_unread_intent_named_to_open_is_never_run_unasked(
    custom_home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """Its code cannot be read, its name says it opens: not run; the model is asked.

    (No LLM API offers another integration's intent as a tool unless it does so
    itself: the local stage cannot hold it as a call, so the model has the words.)
    """
    hass = custom_home
    agent = await _agent(hass, fake_llm, **{CONF_LOCAL_FIRST: True})
    fake_llm.script([Reply.text("I can't open everything.")])

    assert speech(await converse(hass, agent, "open sesame")) == (
        "I can't open everything."
    )
    assert state_of(hass, LOCK) == "locked"
    assert fake_llm.requests[-1]["messages"][-1]["content"] == "open sesame"
    # One that says nothing of opening runs at once.
    assert speech(await converse(hass, agent, "how is the tide")) == "Low tide."
    assert len(fake_llm.requests) == 1


async def test_no_model_answers_the_unlocking_sentence(
    custom_home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """The LLM-down route runs HA's own agent: the unlocking sentence is refused."""
    hass = custom_home
    agent = await _agent(hass, fake_llm, **{CONF_LOCAL_FALLBACK: True})
    fake_llm.script([Reply.error(500), Reply.error(500)])

    refused = await converse(hass, agent, "we are home")

    assert state_of(hass, LOCK) == "locked"
    assert (
        speech(refused)
        == f"{BASIC}That needs the AI service, which isn't available right now, so I didn't do it."
    )

    fake_llm.script([Reply.error(500), Reply.error(500)])
    assert speech(await converse(hass, agent, "porch glow")) == f"{BASIC}Glowing."
    assert state_of(hass, LIGHT) == "on"


HA_INTENT_DOMAINS = ("conversation", "light", "climate", "media_player", "vacuum", "todo", "shopping_list", "humidifier", "fan", "lawn_mower", "weather", "cover", "valve", "lock", "timer")  # fmt: skip


async def test_home_assistants_own_intents_are_not_judged_by_their_names(
    home: HomeAssistant,
) -> None:
    """No intent HA ships is taken for an opener: each is read or does no harm."""
    hass = home
    for domain in HA_INTENT_DOMAINS:
        assert await async_setup_component(hass, domain, {}), domain
    await hass.async_block_till_done()
    unread = [
        handler
        for handler in intent.async_get(hass)
        if not isinstance(handler, intent.DynamicServiceIntentHandler)
        and readable_actions(handler) is None
    ]
    assert len(unread) > 10
    for handler in unread:
        said = f"{handler.intent_type} {getattr(handler, 'description', '') or ''}"
        assert OPENER_WORDS.search(said) is None, said


async def test_without_a_gate_a_risky_intent_is_refused(
    custom_home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """Compact home control over MCP (no one to ask): refused; harmless ones run."""
    hass = custom_home
    await _agent(hass, fake_llm)  # registers our APIs
    api = await llm.async_get_api(hass, COMPACT_API_ID, _context())
    tools = {
        getattr(original_tool(tool), "intent_type", tool.name): tool.name
        for tool in api.tools
    }

    async def call(name: str, arguments: dict[str, Any]) -> Any:
        return await api.async_call_tool(
            llm.ToolInput(tool_name=tools[name], tool_args=arguments)
        )

    for name, arguments in (
        ("HassTurnOff", {"name": "Front door"}),
        ("WelcomeHome", {}),
        ("LetIn", {"name": "Front door"}),
    ):
        refused = await call(name, arguments)
        assert refused.error, name
        assert refused.data["error"] == (
            "This action needs the user's own confirmation, which this assistant "
            "cannot ask for. Nothing was changed."
        )
        assert state_of(hass, LOCK) == "locked", name
    await call("PorchGlow", {})
    assert state_of(hass, LIGHT) == "on"
