"""What a voice satellite hears: an Assist pipeline from intent to a streaming TTS.

With a streaming-input TTS, once enough text (or text then a tool call) has streamed
into the chat log, the pipeline speaks only the chat log's assistant deltas and ignores
the result's speech. These tests run the pipeline as a satellite does
(`assist_pipeline/run` over the websocket API), fetch the TTS URL, and check what the
TTS engine was asked to say.
"""

import asyncio
from collections.abc import AsyncGenerator
from typing import Any

import pytest
from pytest_homeassistant_custom_component.typing import (
    ClientSessionGenerator,
    WebSocketGenerator,
)

from homeassistant.components import conversation
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import HomeAssistant
from homeassistant.helpers import intent, llm
from homeassistant.setup import async_setup_component

from custom_components.agentic_conversation.const import (
    CONF_MAX_TOKENS,
    CONF_WAIT_PHRASE_AFTER,
)
from custom_components.agentic_conversation.words import render
from tests.across_releases import offered_name
from tests.assist_pipeline import RecordingTTS, open_satellite, run_pipeline
from tests.fake_llm import FakeLLM, Reply
from tests.helpers import add_agent


@pytest.fixture
async def porch(ha_core: HomeAssistant) -> str:
    """A real switchable light (template over an input_boolean), exposed to Assist."""
    hass = ha_core
    assert await async_setup_component(
        hass, "input_boolean", {"input_boolean": {"porch": {"name": "Porch light"}}}
    )
    assert await async_setup_component(hass, "intent", {})
    await hass.async_block_till_done()
    async_expose_entity(hass, conversation.DOMAIN, "input_boolean.porch", True)
    return "input_boolean.porch"


@pytest.fixture
def agent_options() -> dict[str, Any]:
    """Extra options of the agent under test (tests parametrize this)."""
    return {}


async def _agent(
    hass: HomeAssistant, server: FakeLLM, options: dict[str, Any] | None = None
) -> str:
    return await add_agent(hass, server, **(options or {}))


@pytest.fixture
async def pipeline(
    ha_core: HomeAssistant,
    fake_llm: FakeLLM,
    recorder: RecordingTTS,
    hass_ws_client: WebSocketGenerator,
    agent_options: dict[str, Any],
) -> AsyncGenerator[Any]:
    """A websocket client whose preferred pipeline is our agent + the recorder."""
    hass = ha_core
    agent = await _agent(hass, fake_llm, agent_options)
    ws = await open_satellite(hass, hass_ws_client, agent)
    yield ws
    await ws.close()


async def test_a_long_answer_is_spoken_as_streamed(
    ha_core: HomeAssistant,
    fake_llm: FakeLLM,
    recorder: RecordingTTS,
    pipeline: Any,
    hass_client: ClientSessionGenerator,
) -> None:
    """A plain answer reaches the TTS engine whole and cleaned of markdown."""
    answer = (
        "**All good.** The house is quiet, every door is shut and the lights are off."
    )
    fake_llm.script([Reply.text(answer)])

    output, _ = await run_pipeline(
        ha_core, pipeline, await hass_client(), "how is the house?"
    )

    spoken = "All good. The house is quiet, every door is shut and the lights are off."
    assert recorder.said == [spoken]
    assert output["response"]["speech"]["plain"]["speech"] == spoken


@pytest.mark.parametrize("agent_options", [{CONF_MAX_TOKENS: 64}])
async def test_a_reply_far_past_max_tokens_is_cut_at_a_sentence_end(
    ha_core: HomeAssistant,
    fake_llm: FakeLLM,
    recorder: RecordingTTS,
    pipeline: Any,
    hass_client: ClientSessionGenerator,
    *,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Asked for 64 tokens, sent 130 kB: the satellite hears 512 characters at most."""
    # Each different (one said twice would be cut there), each 65 characters long.
    sentences = [
        f"Light {number:04d} is on, and the heating is set to twenty-three degrees."
        for number in range(2000)
    ]
    fake_llm.script([Reply.text(" ".join(sentences), chunk_size=4000)])

    output, _ = await run_pipeline(
        ha_core, pipeline, await hass_client(), "how is the house?"
    )

    spoken = " ".join(sentences[:7])  # 461 characters; 8 sentences would be 527
    assert recorder.said == [spoken]
    assert output["response"]["speech"]["plain"]["speech"] == spoken
    cuts = [r.getMessage() for r in caplog.records if "cut after" in r.getMessage()]
    cut = (
        "The reply is longer than the agent asked for (512 characters allowed for "
        f"its max_tokens): cut after {len(spoken)} characters, the rest is not spoken"
    )
    assert cuts == [cut]


async def test_preamble_then_a_broken_stream_is_followed_by_the_spoken_fallback(
    ha_core: HomeAssistant,
    fake_llm: FakeLLM,
    recorder: RecordingTTS,
    pipeline: Any,
    hass_client: ClientSessionGenerator,
) -> None:
    """More than 60 characters streamed, then the stream dies: the user hears both."""
    preamble = "Let me think about the best way to arrange the lights in every room of"
    fake_llm.script([Reply.truncated(preamble)])

    output, _ = await run_pipeline(
        ha_core, pipeline, await hass_client(), "arrange my lights"
    )

    fallback = "The AI service stopped in the middle of its answer. Please try again."
    assert recorder.said == [f"{preamble} {fallback}"]
    assert output["response"]["response_type"] == "error"


@pytest.mark.usefixtures("porch")
async def test_text_then_tool_then_server_error_tells_what_was_done(
    ha_core: HomeAssistant,
    fake_llm: FakeLLM,
    recorder: RecordingTTS,
    pipeline: Any,
    hass_client: ClientSessionGenerator,
) -> None:
    """Text, a tool call that works, then a 500: the user hears all that happened."""
    turn_on = await offered_name(ha_core, [llm.LLM_API_ASSIST], "HassTurnOn")
    fake_llm.script(
        [
            Reply.tool_calls([(turn_on, {"name": "Porch light"})], text="Sure."),
            Reply.error(500),
        ]
    )

    await run_pipeline(
        ha_core, pipeline, await hass_client(), "turn on the porch light"
    )

    assert ha_core.states.get("input_boolean.porch").state == "on"  # type: ignore[union-attr]
    assert recorder.said == [
        (
            "Sure. I turned on Porch light. But the AI service had a problem"
            " answering. Please try again later."
        )
    ]


@pytest.fixture
async def front_door(ha_core: HomeAssistant) -> str:
    """A locked template lock over an input_boolean, exposed to Assist."""
    hass = ha_core
    assert await async_setup_component(
        hass, "input_boolean", {"input_boolean": {"door": {"initial": True}}}
    )
    flag = {"entity_id": "input_boolean.door"}
    assert await async_setup_component(
        hass,
        "template",
        {
            "template": [
                {
                    "lock": [
                        {
                            "name": "Front door",
                            "state": "{{ is_state('input_boolean.door', 'on') }}",
                            "lock": {"action": "input_boolean.turn_on", "target": flag},
                            "unlock": {
                                "action": "input_boolean.turn_off",
                                "target": flag,
                            },
                        }
                    ]
                }
            ]
        },
    )
    assert await async_setup_component(hass, "intent", {})
    await hass.async_block_till_done()
    async_expose_entity(hass, conversation.DOMAIN, "lock.front_door", True)
    return "lock.front_door"


@pytest.mark.usefixtures("front_door")
async def test_satellite_hears_the_question_and_the_yes_unlocks(
    ha_core: HomeAssistant,
    fake_llm: FakeLLM,
    recorder: RecordingTTS,
    pipeline: Any,
    hass_client: ClientSessionGenerator,
) -> None:
    """Text, then an unlock: the satellite hears our question; its "yes" unlocks."""
    hass = ha_core
    front_door = "lock.front_door"
    fake_llm.script(
        [
            Reply.tool_calls(
                [(await _tool_name(hass, "HassTurnOff"), {"name": "Front door"})],
                text="Let me see about the front door for you right now, one moment.",
            )
        ]
    )
    http = await hass_client()

    asked, _ = await run_pipeline(hass, pipeline, http, "unlock the front door")

    assert hass.states.get(front_door).state == "locked"  # type: ignore[union-attr]
    question = (
        "Let me see about the front door for you right now, one moment."
        " Shall I unlock Front door?"
    )
    assert recorder.said == [question]
    assert asked["continue_conversation"] is True

    done, _ = await run_pipeline(
        hass, pipeline, http, "yes", conversation_id=asked["conversation_id"]
    )

    assert hass.states.get(front_door).state == "unlocked"  # type: ignore[union-attr]
    assert recorder.said == [question, "I unlocked Front door."]
    assert done["continue_conversation"] is False
    assert len(fake_llm.requests) == 1


async def _tool_name(hass: HomeAssistant, name: str) -> str:
    """The name the model sees for an Assist tool (however HA namespaces it)."""
    return await offered_name(hass, [llm.LLM_API_ASSIST], name)


async def test_a_bug_after_streamed_text_is_still_heard(
    ha_core: HomeAssistant,
    fake_llm: FakeLLM,
    recorder: RecordingTTS,
    pipeline: Any,
    hass_client: ClientSessionGenerator,
    *,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Text streamed to TTS, then a bug of ours: the apology reaches the TTS too."""
    preamble = "Let me look at every light in the house and tell you which ones are on."

    def broken(text: str) -> str:
        raise RuntimeError("a bug")

    monkeypatch.setattr(render, "clean_for_speech", broken)
    fake_llm.script([Reply.text(preamble)])

    output, _ = await run_pipeline(ha_core, pipeline, await hass_client(), "lights?")

    apology = "Sorry, something went wrong on my side. Please try again."
    assert recorder.said == [f"{preamble} {apology}"]
    assert output["response"]["response_type"] == "error"


@pytest.mark.usefixtures("porch")
@pytest.mark.parametrize("agent_options", [{CONF_WAIT_PHRASE_AFTER: 1}])
async def test_a_slow_tool_with_nothing_said_is_announced(
    ha_core: HomeAssistant,
    fake_llm: FakeLLM,
    recorder: RecordingTTS,
    pipeline: Any,
    hass_client: ClientSessionGenerator,
) -> None:
    """The tool outlasts the agent's delay: the satellite hears "One moment." first.

    The tool finishes only once the phrase has reached the pipeline, so the test
    asserts order, not time; the real delay is the option's smallest, 1 s.
    """
    hass = ha_core
    heard = asyncio.Event()

    class Slow(intent.IntentHandler):
        """Turning on a slow device (replaces HA's handler)."""

        intent_type = intent.INTENT_TURN_ON
        description = "Turns on a device that takes a while."

        async def async_handle(
            self, intent_obj: intent.Intent
        ) -> intent.IntentResponse:
            async with asyncio.timeout(10):  # a safety net, not a measure
                await heard.wait()
            response = intent_obj.create_response()
            response.async_set_speech("Finished.")
            return response

    intent.async_register(hass, Slow())
    slow = await offered_name(hass, [llm.LLM_API_ASSIST], intent.INTENT_TURN_ON)
    fake_llm.script(
        [Reply.tool_calls([(slow, {})]), Reply.text("The slow thing is done.")]
    )
    progress: list[dict[str, Any]] = []

    def on_event(event: dict[str, Any]) -> None:
        if event["type"] != "intent-progress":
            return
        progress.append(event["data"])
        if event["data"].get("chat_log_delta", {}).get("content") == "One moment.":
            heard.set()

    output, _ = await run_pipeline(
        hass, pipeline, await hass_client(), "slow", on_event=on_event
    )

    assert heard.is_set()
    assert recorder.said == ["One moment. The slow thing is done."]
    assert output["response"]["speech"]["plain"]["speech"] == "The slow thing is done."
    # Said, then the held tool call made the pipeline start speaking.
    said_at = next(
        i for i, p in enumerate(progress) if p.get("chat_log_delta", {}).get("content")
    )
    assert progress[said_at + 1]["chat_log_delta"]["tool_calls"]
    assert progress[said_at + 2] == {"tts_start_streaming": True}


# The connection's key (_agent's), and an answer long enough to be spoken as streamed.
KEY = "sk-test"
ECHOED = (
    "Your key is sk-test, it is set on the connection. Keep it safe, share it never."
)
SAID = (
    "Your key is [redacted], it is set on the connection. Keep it safe, share it never."
)


@pytest.mark.parametrize(
    "chunk_size",
    [
        3,  # the key in three pieces
        ECHOED.index(KEY) + 2,  # "…is sk" then "-test, it is…": split in two
        len(ECHOED),  # whole in one piece
    ],
    ids=["pieces", "split_in_two", "whole"],
)
async def test_the_key_a_model_repeats_is_neither_heard_nor_kept(
    ha_core: HomeAssistant,
    fake_llm: FakeLLM,
    recorder: RecordingTTS,
    pipeline: Any,
    hass_client: ClientSessionGenerator,
    *,
    chunk_size: int,
) -> None:
    """The satellite hears the answer with the key replaced, and so it is kept."""
    fake_llm.script([Reply.text(ECHOED, chunk_size=chunk_size), Reply.text("Okay.")])
    http = await hass_client()

    output, _ = await run_pipeline(ha_core, pipeline, http, "what is my key?")

    assert recorder.said == [SAID]
    assert output["response"]["speech"]["plain"]["speech"] == SAID
    # The conversation goes on from what was kept: the key is not in it.
    await run_pipeline(
        ha_core,
        pipeline,
        http,
        "thanks",
        conversation_id=output["conversation_id"],
    )
    history = fake_llm.requests[-1]["messages"]
    assert [m["content"] for m in history if m["role"] == "assistant"] == [SAID]
    assert KEY not in str(history)


def _streamed_words(progress: list[dict[str, Any]]) -> str:
    """Every piece of assistant text that streamed into the chat log, in order."""
    return "".join(
        str(p.get("chat_log_delta", {}).get("content") or "") for p in progress
    )


DATA_MARKS = ("{", "}", "[", "]", "success", "```")


async def test_a_yaml_echo_streamed_in_pieces_never_reaches_the_speaker(
    ha_core: HomeAssistant,
    fake_llm: FakeLLM,
    recorder: RecordingTTS,
    pipeline: Any,
    hass_client: ClientSessionGenerator,
) -> None:
    """Our failure result echoed as YAML, 3 characters at a time: none of it streams."""
    echoed = (
        "success: false\nerror: 'Unknown tool: todoHassAddItem'\nvalid_tools:\n"
        "  - HassTurnOn\n  - HassTurnOff\n"
    )
    fake_llm.script(
        [
            # A tool the model made up (our loop answers "Unknown tool"), then echoed.
            Reply.tool_calls([("todoHassAddItem", {"item": "milk"})]),
            Reply.text(echoed, chunk_size=3),
        ]
    )
    progress: list[dict[str, Any]] = []

    def on_event(event: dict[str, Any]) -> None:
        if event["type"] == "intent-progress":
            progress.append(event["data"])

    output, _ = await run_pipeline(
        ha_core, pipeline, await hass_client(), "add milk", on_event=on_event
    )

    unknown = "I couldn't do that: there is no such action."
    assert recorder.said == [unknown]
    assert output["response"]["speech"]["plain"]["speech"] == unknown
    assert not [mark for mark in DATA_MARKS if mark in _streamed_words(progress)]


@pytest.mark.parametrize("agent_options", [{"apis": ()}])
async def test_a_chat_only_model_streaming_a_json_array_is_not_heard(
    ha_core: HomeAssistant,
    fake_llm: FakeLLM,
    recorder: RecordingTTS,
    pipeline: Any,
    hass_client: ClientSessionGenerator,
) -> None:
    """No tools offered, so nothing upstream holds the JSON: it is held here."""
    answer = (
        '[{"name": "Porch light", "state": "off"}, {"name": "Hall", "state": "on"}]'
    )
    fake_llm.script([Reply.text(answer, chunk_size=2)])
    progress: list[dict[str, Any]] = []

    def on_event(event: dict[str, Any]) -> None:
        if event["type"] == "intent-progress":
            progress.append(event["data"])

    await run_pipeline(
        ha_core, pipeline, await hass_client(), "which lights?", on_event=on_event
    )

    unspoken = "Sorry, I couldn't put my answer into words. Please ask again."
    assert recorder.said == [unspoken]
    assert not [mark for mark in DATA_MARKS if mark in _streamed_words(progress)]
    assert "tools" not in fake_llm.requests[0]


async def test_words_stream_at_once_and_a_block_among_them_is_left_out(
    ha_core: HomeAssistant,
    fake_llm: FakeLLM,
    recorder: RecordingTTS,
    pipeline: Any,
    hass_client: ClientSessionGenerator,
) -> None:
    """A long sentence streams to the TTS; the fenced JSON after it never does."""
    before = "The porch light is off and the hall light is on, here is what I found."
    answer = f'{before}\n```json\n{{"porch": "off", "hall": "on"}}\n```\nAnything else?'
    fake_llm.script([Reply.text(answer, chunk_size=4)])
    progress: list[dict[str, Any]] = []

    def on_event(event: dict[str, Any]) -> None:
        if event["type"] == "intent-progress":
            progress.append(event["data"])

    await run_pipeline(
        ha_core, pipeline, await hass_client(), "lights?", on_event=on_event
    )

    assert recorder.said == [f"{before}\nAnything else?"]
    # The sentence streamed before the answer ended: the TTS started on it.
    started = next(
        i for i, p in enumerate(progress) if p.get("tts_start_streaming") is True
    )
    assert before.startswith(_streamed_words(progress[:started]).strip())
    assert _streamed_words(progress[:started]).strip()
    assert not [mark for mark in DATA_MARKS if mark in _streamed_words(progress)]
