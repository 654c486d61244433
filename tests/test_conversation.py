"""The agent in a real Home Assistant: answers, acts, remembers, and always speaks."""

import asyncio
from dataclasses import dataclass, field, fields
import json
from typing import Any

import probatio
import pytest

from homeassistant.components import conversation
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.config_entries import SOURCE_REAUTH
from homeassistant.const import CONF_LLM_HASS_API
from homeassistant.core import Context, HomeAssistant
from homeassistant.exceptions import HomeAssistantError
from homeassistant.helpers import intent, llm
from homeassistant.setup import async_setup_component
from homeassistant.util.json import JsonObjectType

from custom_components.agentic_conversation.config_flow import (
    AgenticConversationConfigFlow,
)
from custom_components.agentic_conversation.const import (
    CONF_ENABLED_TOOLS,
    CONF_HISTORY_TOKENS,
    CONF_LOCAL_FALLBACK,
    CONF_MAX_ITERATIONS,
    CONF_TOOL_TIMEOUT,
    CONF_TURN_TIMEOUT,
    DOMAIN,
    LLM_API_ID,
)
from custom_components.agentic_conversation.tool_options import AgenticLLMContext
from tests.across_releases import offered_name, open_chat_session
from tests.fake_llm import FakeLLM, Reply
from tests.helpers import (
    add_agent,
    converse as _ask,
    speech as _speech,
    state_of as _state,
)


@pytest.fixture
async def porch_light(ha_core: HomeAssistant) -> str:
    """A real template light backed by an input_boolean, exposed to Assist."""
    hass = ha_core
    assert await async_setup_component(
        hass, "input_boolean", {"input_boolean": {"porch": {}}}
    )
    assert await async_setup_component(
        hass,
        "template",
        {
            "template": [
                {
                    "light": [
                        {
                            "name": "Porch light",
                            "state": "{{ is_state('input_boolean.porch', 'on') }}",
                            "turn_on": {
                                "action": "input_boolean.turn_on",
                                "target": {"entity_id": "input_boolean.porch"},
                            },
                            "turn_off": {
                                "action": "input_boolean.turn_off",
                                "target": {"entity_id": "input_boolean.porch"},
                            },
                        }
                    ]
                }
            ]
        },
    )
    assert await async_setup_component(hass, "intent", {})
    await hass.async_block_till_done()
    async_expose_entity(hass, conversation.DOMAIN, "light.porch_light", True)
    return "light.porch_light"


async def _agent(hass: HomeAssistant, server: FakeLLM | str, **options: Any) -> str:
    """Set up a connection with one agent on the server; return its entity id."""
    # Saved by this version: the fractional test timeouts are not migrated. These
    # tests hear how failures are told; HA's own agent answering instead is tested
    # in test_local_route.py.
    return await add_agent(
        hass,
        server,
        minor_version=AgenticConversationConfigFlow.MINOR_VERSION,
        **{CONF_LOCAL_FALLBACK: False, **options},
    )


async def _intent_tools(hass: HomeAssistant, *intents: str) -> tuple[str, ...]:
    """The names Assist offers these intents' tools under (HA's own naming)."""
    return tuple(
        [await offered_name(hass, [llm.LLM_API_ASSIST], intent) for intent in intents]
    )


async def test_plain_answer(ha_core: HomeAssistant, fake_llm: FakeLLM) -> None:
    """A question gets the model's answer, cleaned for speech."""
    agent = await _agent(ha_core, fake_llm)
    fake_llm.script([Reply.text("**Hello** there! 👋")])

    result = await _ask(ha_core, agent, "hi")

    assert result.response.response_type is intent.IntentResponseType.ACTION_DONE
    assert _speech(result) == "Hello there!"
    sent = fake_llm.requests[0]["messages"]
    assert sent[0]["role"] == "system"
    assert sent[-1] == {"role": "user", "content": "hi"}


async def test_tool_turn_turns_on_a_real_light_and_follow_up_uses_history(
    ha_core: HomeAssistant, fake_llm: FakeLLM, porch_light: str
) -> None:
    """Assist's intent tool really changes the light; "turn it off" sees the history."""
    hass = ha_core
    agent = await _agent(hass, fake_llm)
    turn_on, turn_off = await _intent_tools(hass, "HassTurnOn", "HassTurnOff")
    fake_llm.script(
        [
            Reply.tool_calls([(turn_on, {"name": "Porch light"}, "call_on")]),
            Reply.text("The porch light is on."),
        ]
    )

    first = await _ask(hass, agent, "turn on the porch light")

    assert _state(hass, porch_light) == "on"
    assert _speech(first) == "The porch light is on."
    offered = {t["function"]["name"] for t in fake_llm.requests[0]["tools"]}
    assert turn_on in offered
    tool_message = fake_llm.requests[1]["messages"][-1]
    assert tool_message["role"] == "tool"
    assert tool_message["tool_call_id"] == "call_on"

    fake_llm.script(
        [
            Reply.tool_calls([(turn_off, {"name": "Porch light"}, "call_off")]),
            Reply.text("Done, it's off."),
        ]
    )
    second = await _ask(hass, agent, "turn it off", first.conversation_id)

    assert _state(hass, porch_light) == "off"
    assert _speech(second) == "Done, it's off."
    history = fake_llm.requests[2]["messages"]
    roles = [m["role"] for m in history]
    assert roles == ["system", "user", "assistant", "tool", "assistant", "user"]
    assert history[1]["content"] == "turn on the porch light"
    assert history[2]["tool_calls"][0]["id"] == "call_on"


async def test_conversations_are_kept_apart(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """Two conversation ids never see each other's history."""
    agent = await _agent(ha_core, fake_llm)
    fake_llm.script([Reply.text("A1"), Reply.text("B1"), Reply.text("A2")])

    a = await _ask(ha_core, agent, "I am A")
    b = await _ask(ha_core, agent, "I am B")
    await _ask(ha_core, agent, "who am I?", a.conversation_id)

    assert a.conversation_id != b.conversation_id
    contents = [m.get("content") for m in fake_llm.requests[2]["messages"]]
    assert "I am A" in contents
    assert "I am B" not in contents


@dataclass(frozen=True)
class Fault:
    """A way a turn can go wrong, and how the user must hear about it."""

    script: tuple[Reply, ...]
    # What the user hears (by language where the words are ours).
    answer: str | dict[str, str]
    # The error the result carries; None for faults the model recovers from.
    code: intent.IntentResponseErrorCode | None = None
    options: dict[str, Any] = field(default_factory=dict)
    # What the model must have been told in the tool result, for tool faults.
    told: str | None = None


UNKNOWN = intent.IntentResponseErrorCode.UNKNOWN
FAILED = intent.IntentResponseErrorCode.FAILED_TO_HANDLE
RECOVERED = "That did not work, sorry."
# A tool that failed, whatever the model says next.
ACTION_FAILED = {
    "en": "I couldn't do that: Home Assistant reported an error.",
    "de": "Das hat nicht geklappt: Home Assistant hat einen Fehler gemeldet.",
}
NO_SUCH_ACTION = {
    "en": "I couldn't do that: there is no such action.",
    "de": "Das konnte ich nicht tun: Diese Aktion gibt es nicht.",
}
SERVER_FAILED = {
    "en": "The AI service had a problem answering. Please try again later.",
    "de": "Beim KI-Dienst ist ein Fehler aufgetreten. Bitte versuche es später noch einmal.",
}
FAULTS = {
    "401": Fault(
        (Reply.error(401),),
        {
            "en": "The AI service did not accept my key. Please check the API key in"
            " the Agentic Conversation settings.",
            "de": "Der KI-Dienst hat meinen Schlüssel nicht akzeptiert. Bitte prüfe den"
            " API-Schlüssel in den Einstellungen von Agentic Conversation.",
        },
        UNKNOWN,
    ),
    "403": Fault(
        (Reply.error(403),),
        {
            "en": "The AI service refused this request. The key may not have access to"
            " this model, or the request was blocked. Please check your account with"
            " the provider.",
            "de": "Der KI-Dienst hat diese Anfrage abgelehnt. Vielleicht hat der"
            " Schlüssel keinen Zugriff auf dieses Modell, oder die Anfrage wurde"
            " blockiert. Bitte prüfe dein Konto beim Anbieter.",
        },
        UNKNOWN,
    ),
    "429": Fault((Reply.error(429),), SERVER_FAILED, UNKNOWN),
    "500": Fault((Reply.error(500),), SERVER_FAILED, UNKNOWN),
    "hang": Fault(
        (Reply.hang(),),
        {
            "en": "The AI service took too long to answer. Please try again.",
            "de": "Der KI-Dienst hat zu lange für die Antwort gebraucht. Bitte versuche"
            " es noch einmal.",
        },
        UNKNOWN,
        {CONF_TURN_TIMEOUT: 0.5},
    ),
    "stream_cut": Fault((Reply.truncated("Hal"),), SERVER_FAILED, UNKNOWN),
    "empty": Fault(
        (Reply.text(""),),
        {
            "en": "Sorry, I have no answer for that.",
            "de": "Darauf habe ich leider keine Antwort.",
        },
        FAILED,
    ),
    "iteration_cap": Fault(
        (
            Reply.tool_calls([("explode", {})]),
            Reply.tool_calls([("explode", {"again": True})]),
            Reply.tool_calls([("explode", {"more": True})]),
        ),
        {
            "en": "I needed too many steps for that, so I stopped. Please try a"
            " simpler request.",
            "de": "Dafür hätte ich zu viele Schritte gebraucht, deshalb habe ich"
            " aufgehört. Bitte versuche eine einfachere Anfrage.",
        },
        FAILED,
        {CONF_MAX_ITERATIONS: 2},
    ),
    "non_json_arguments": Fault(
        (Reply.tool_calls([("explode", '{"oops": ')]), Reply.text(RECOVERED)),
        ACTION_FAILED,
        told="not a valid JSON object",
    ),
    # A call of a tool that does not exist: an attempt that did nothing.
    "unknown_tool": Fault(
        (Reply.tool_calls([("no_such_tool", {})]), Reply.text(RECOVERED)),
        NO_SUCH_ACTION,
        told="no_such_tool",
    ),
    "tool_raises": Fault(
        (Reply.tool_calls([("explode", {})]), Reply.text(RECOVERED)),
        ACTION_FAILED,
        told="The fuse blew",
    ),
    "tool_hangs": Fault(
        (Reply.tool_calls([("dawdle", {})]), Reply.text(RECOVERED)),
        ACTION_FAILED,
        options={CONF_TOOL_TIMEOUT: 0.2},
        told="did not finish within 0.2 seconds",
    ),
    "length": Fault(
        (Reply.text("The answer is forty", finish_reason="length"),),
        "The answer is forty",
    ),
}


class FaultyAPI(llm.API):
    """An HA LLM API whose tools fail: one raises, one never returns."""

    def __init__(self, hass: HomeAssistant) -> None:
        """Register as "faulty"."""
        super().__init__(hass=hass, id="faulty", name="Faulty tools")

    async def async_get_api_instance(
        self, llm_context: llm.LLMContext
    ) -> llm.APIInstance:
        """The instance with the two tools."""
        return llm.APIInstance(
            api=self,
            api_prompt="Use the tools.",
            llm_context=llm_context,
            tools=[_ExplodingTool(), _DawdlingTool()],
        )


class _ExplodingTool(llm.Tool):
    name = "explode"
    description = "Always fails."
    parameters = probatio.Schema({}, extra=probatio.ALLOW_EXTRA)

    async def async_call(
        self,
        hass: HomeAssistant,
        tool_input: llm.ToolInput,
        llm_context: llm.LLMContext,
    ) -> JsonObjectType:
        raise HomeAssistantError("The fuse blew")


class _DawdlingTool(llm.Tool):
    name = "dawdle"
    description = "Never returns."
    parameters = probatio.Schema({})

    async def async_call(
        self,
        hass: HomeAssistant,
        tool_input: llm.ToolInput,
        llm_context: llm.LLMContext,
    ) -> JsonObjectType:
        await asyncio.Event().wait()
        return {}


@pytest.mark.parametrize("language", ["en", "de"])
@pytest.mark.parametrize("fault", FAULTS.values(), ids=FAULTS.keys())
async def test_every_failure_is_spoken_and_the_next_turn_works(
    ha_core: HomeAssistant, fake_llm: FakeLLM, fault: Fault, language: str
) -> None:
    """Whatever breaks, the user hears a short reply; the conversation goes on."""
    hass = ha_core
    unregister = llm.async_register_api(hass, FaultyAPI(hass))
    agent = await _agent(
        hass, fake_llm, **{CONF_LLM_HASS_API: ["faulty"], **fault.options}
    )
    fake_llm.script(fault.script)

    result = await _ask(hass, agent, "hello", language=language)

    answer = fault.answer
    assert _speech(result) == (answer[language] if isinstance(answer, dict) else answer)
    if fault.code is None:
        assert result.response.response_type is intent.IntentResponseType.ACTION_DONE
    else:
        assert result.response.response_type is intent.IntentResponseType.ERROR
        assert result.response.error_code is fault.code
    if fault.told is not None:
        tool_result = fake_llm.requests[1]["messages"][-1]
        assert tool_result["role"] == "tool"
        assert fault.told in tool_result["content"]
        assert json.loads(tool_result["content"])["success"] is False

    # The chat log stays consistent: the next turn sends a valid history and works.
    sent_before = len(fake_llm.requests)
    fake_llm.script([Reply.text("Back again.")])
    nxt = await _ask(hass, agent, "still there?", result.conversation_id, language)
    assert _speech(nxt) == "Back again."
    history = fake_llm.requests[sent_before]["messages"]
    assert history[1] == {"role": "user", "content": "hello"}
    assert history[-1] == {"role": "user", "content": "still there?"}
    answered = {m["tool_call_id"] for m in history if m["role"] == "tool"}
    asked = {
        call["id"]
        for m in history
        if m["role"] == "assistant"
        for call in m.get("tool_calls") or ()
    }
    assert asked == answered
    unregister()


@pytest.mark.parametrize(
    ("language", "spoken"),
    [
        (
            "en",
            "I can't reach the AI service right now. Please check that it is running.",
        ),
        (
            "de",
            "Ich kann den KI-Dienst gerade nicht erreichen. Bitte prüfe, ob er läuft.",
        ),
    ],
)
async def test_unreachable_server_is_spoken(
    ha_core: HomeAssistant, fake_llm: FakeLLM, language: str, spoken: str
) -> None:
    """The server goes away after setup: connection refused becomes a spoken reply."""
    agent = await _agent(ha_core, fake_llm)
    await fake_llm.close()

    result = await _ask(ha_core, agent, "hello", language=language)

    assert _speech(result) == spoken
    assert result.response.error_code is UNKNOWN


@pytest.mark.parametrize(
    ("status", "spoken", "asks_for_a_key"),
    [
        (
            401,
            (
                "The AI service did not accept my key. Please check the API key in"
                " the Agentic Conversation settings."
            ),
            True,
        ),
        (
            403,
            (
                "The AI service refused this request. The key may not have access to"
                " this model, or the request was blocked. Please check your account"
                " with the provider."
            ),
            False,
        ),
    ],
)
async def test_only_a_refused_key_asks_for_a_new_one(
    ha_core: HomeAssistant,
    fake_llm: FakeLLM,
    status: int,
    spoken: str,
    asks_for_a_key: bool,
) -> None:
    """401 starts re-authentication; 403 (model access, region, moderation) does not."""
    hass = ha_core
    agent = await _agent(hass, fake_llm)
    fake_llm.script([Reply.error(status)])

    result = await _ask(hass, agent, "hello")
    await hass.async_block_till_done()

    assert _speech(result) == spoken
    flows = hass.config_entries.flow.async_progress_by_handler(DOMAIN)
    assert [flow["context"]["source"] for flow in flows] == (
        [SOURCE_REAUTH] if asks_for_a_key else []
    )


@pytest.mark.parametrize(
    "apis", [[llm.LLM_API_ASSIST], [llm.LLM_API_ASSIST, LLM_API_ID]], ids=str
)
async def test_server_gone_after_setup_is_spoken_with_what_was_done(
    ha_core: HomeAssistant, fake_llm: FakeLLM, porch_light: str, apis: list[str]
) -> None:
    """The light goes on, then the server dies: the user hears both.

    With several APIs HA renames the intent's tool: it is still known for turning on.
    """
    agent = await _agent(ha_core, fake_llm, **{CONF_LLM_HASS_API: apis})
    turn_on = await offered_name(ha_core, apis, "HassTurnOn")
    fake_llm.script([Reply.tool_calls([(turn_on, {"name": "Porch light"})])])
    # after the tool call the server is gone: the next request is refused
    fake_llm.script([Reply.error(503)])

    result = await _ask(ha_core, agent, "turn on the porch light")

    assert _state(ha_core, porch_light) == "on"
    speech = _speech(result)
    assert speech == (
        "I turned on Porch light. But the AI service had a problem answering."
        " Please try again later."
    )


async def test_text_streams_into_the_chat_log_before_the_answer_is_complete(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """A pipeline listening to the chat log gets text while the model still talks."""
    hass = ha_core
    agent = await _agent(hass, fake_llm)
    answer = "The living room is at twenty one degrees and the humidity is fine."
    fake_llm.script([Reply.text(answer, chunk_size=4)])
    heard: list[str] = []
    logged_before_first_words: list[str] = []

    def listener(chat_log: conversation.ChatLog, delta: dict[str, Any]) -> None:
        if content := delta.get("content"):
            if not heard:
                logged_before_first_words.append(chat_log.content[-1].role)
            heard.append(content)

    with (
        open_chat_session(hass, Context()) as session,
        conversation.async_get_chat_log(
            hass, session, chat_log_delta_listener=listener
        ),
    ):
        result = await _ask(
            hass, agent, "how is the living room?", session.conversation_id
        )

    assert _speech(result) == answer
    assert len(heard) > 3
    assert "".join(heard) == answer
    # When the first words arrived, the answer was not yet in the log: it was streaming.
    assert logged_before_first_words == ["user"]


async def test_a_question_keeps_the_microphone_open(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """An answer that asks back continues the conversation; a statement does not."""
    agent = await _agent(ha_core, fake_llm)
    fake_llm.script([Reply.text("Which room do you mean?"), Reply.text("Done.")])

    asked = await _ask(ha_core, agent, "turn on the light")
    told = await _ask(ha_core, agent, "the kitchen", asked.conversation_id)

    assert asked.continue_conversation is True
    assert told.continue_conversation is False


async def test_history_is_trimmed_oldest_first_keeping_tool_calls_with_results(
    ha_core: HomeAssistant, fake_llm: FakeLLM, porch_light: str
) -> None:
    """A small budget drops whole old turns, never a tool call without its result."""
    hass = ha_core
    agent = await _agent(hass, fake_llm, **{CONF_HISTORY_TOKENS: 150})
    turn_on, turn_off = await _intent_tools(hass, "HassTurnOn", "HassTurnOff")
    conversation_id = None
    for turn in range(4):
        fake_llm.script(
            [
                Reply.tool_calls(
                    [(turn_on if turn % 2 == 0 else turn_off, {"name": "Porch light"})]
                ),
                Reply.text(f"Done number {turn}, the porch light has been switched."),
            ]
        )
        result = await _ask(
            hass, agent, f"request {turn}: toggle the porch", conversation_id
        )
        conversation_id = result.conversation_id

    last = fake_llm.requests[-2]["messages"]
    users = [m["content"] for m in last if m["role"] == "user"]
    assert users[-1] == "request 3: toggle the porch"
    assert "request 0: toggle the porch" not in users
    assert last[1]["role"] == "user"
    asked = [
        c["id"]
        for m in last
        if m["role"] == "assistant"
        for c in m.get("tool_calls") or ()
    ]
    answered = [m["tool_call_id"] for m in last if m["role"] == "tool"]
    assert asked == answered


@pytest.mark.parametrize("language", ["en", "de"])
async def test_a_bug_of_ours_is_spoken_and_logged(
    ha_core: HomeAssistant,
    fake_llm: FakeLLM,
    language: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Options no form would accept (hand-edited storage) break the turn: still a reply."""
    agent = await _agent(ha_core, fake_llm, **{CONF_MAX_ITERATIONS: "many"})

    result = await _ask(ha_core, agent, "hello", language=language)

    spoken = {
        "en": "Sorry, something went wrong on my side. Please try again.",
        "de": "Entschuldigung, bei mir ist etwas schiefgegangen."
        " Bitte versuche es noch einmal.",
    }
    assert _speech(result) == spoken[language]
    assert result.response.error_code is UNKNOWN
    assert "Unexpected error in conversation" in caplog.text
    assert "ValueError" in caplog.text


class _RecordingAPI(llm.API):
    """An HA LLM API without tools that keeps the LLM contexts it is given."""

    def __init__(self, hass: HomeAssistant) -> None:
        """Register as "recording"."""
        super().__init__(hass=hass, id="recording", name="Recording")
        self.contexts: list[llm.LLMContext] = []

    async def async_get_api_instance(
        self, llm_context: llm.LLMContext
    ) -> llm.APIInstance:
        """An instance without tools."""
        self.contexts.append(llm_context)
        return llm.APIInstance(
            api=self, api_prompt="", llm_context=llm_context, tools=[]
        )


async def test_tools_get_the_context_ha_builds_with_the_agents_options(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """HA's LLM context for the message (naming the agent since HA 2026.11) + options."""
    hass = ha_core
    api = _RecordingAPI(hass)
    unregister = llm.async_register_api(hass, api)
    agent = await _agent(
        hass,
        fake_llm,
        **{CONF_LLM_HASS_API: ["recording"], CONF_ENABLED_TOOLS: ["get_weather"]},
    )
    fake_llm.script([Reply.text("Hi.")])
    context = Context()

    await conversation.async_converse(
        hass, "hi", None, context, language="nl", agent_id=agent, device_id="sat1"
    )

    (llm_context,) = api.contexts
    assert isinstance(llm_context, AgenticLLMContext)
    assert llm_context.tool_options.enabled_tools == {"get_weather"}
    assert (llm_context.platform, llm_context.assistant) == (DOMAIN, "conversation")
    assert llm_context.context is context
    assert (llm_context.language, llm_context.device_id) == ("nl", "sat1")
    if "agent_id" in {item.name for item in fields(llm.LLMContext)}:
        assert getattr(llm_context, "agent_id") == agent  # noqa: B009 - HA 2026.11+
    unregister()


async def test_a_message_while_another_agent_answers_the_conversation_gets_words(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """HA 2026.11+ refuses a message while another agent answers that conversation.

    (Our own agent's turns of one conversation wait for each other instead: see
    test_conversation_store.py.)
    """
    if not hasattr(conversation, "ConversationBusyError"):
        pytest.skip("Home Assistant 2026.10 answers both messages at once")
    hass = ha_core
    agent = await _agent(hass, fake_llm, **{CONF_TURN_TIMEOUT: 1})
    await _agent(hass, fake_llm)
    other = next(
        s
        for s in hass.states.async_entity_ids(conversation.DOMAIN)
        if s not in {"conversation.home_assistant", agent}
    )
    fake_llm.script([Reply.hang()])
    first = hass.async_create_task(_ask(hass, agent, "first", "kitchen-chat"))
    await fake_llm.wait_for_requests(1)

    second = await _ask(hass, other, "second", "kitchen-chat", language="nl")

    assert _speech(second) == (
        "Ik ben nog bezig met je vorige bericht. Wacht even en probeer het dan opnieuw."
    )
    assert second.response.response_type is intent.IntentResponseType.ERROR
    assert second.conversation_id == "kitchen-chat"
    assert (await first).conversation_id == "kitchen-chat"
    assert len(fake_llm.requests) == 1
