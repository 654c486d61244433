"""What a satellite hears when the model writes its call as text: a call is a call.

Through an Assist pipeline with a recording streaming TTS: a call after the model's
reasoning turns the light on and the satellite hears the answer after it; the same
call inside the reasoning block, or shown in prose, runs nothing and the satellite
hears the model's words.
"""

from collections.abc import AsyncGenerator
from typing import Any

import pytest
from pytest_homeassistant_custom_component.typing import (
    ClientSessionGenerator,
    WebSocketGenerator,
)

from homeassistant.components import conversation
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.const import STATE_OFF, STATE_ON
from homeassistant.core import HomeAssistant
from homeassistant.setup import async_setup_component

from custom_components.agentic_conversation.words.speech import clean_for_speech
from tests.across_releases import offered_name
from tests.assist_pipeline import RecordingTTS, open_satellite, run_pipeline
from tests.fake_llm import FakeLLM, Reply
from tests.helpers import add_agent, state_of
from tests.test_text_tool_calls import APIS
from tests.written_forms import IN_PROSE, IN_REASONING, written

PORCH = "input_boolean.porch"


@pytest.fixture
async def pipeline(
    ha_core: HomeAssistant,
    fake_llm: FakeLLM,
    recorder: RecordingTTS,
    hass_ws_client: WebSocketGenerator,
) -> AsyncGenerator[Any]:
    """A porch light exposed to Assist, and a satellite's pipeline: our agent, the TTS."""
    hass = ha_core
    assert await async_setup_component(
        hass, "input_boolean", {"input_boolean": {"porch": {"name": "Porch light"}}}
    )
    assert await async_setup_component(hass, "intent", {})
    await hass.async_block_till_done()
    async_expose_entity(hass, conversation.DOMAIN, PORCH, True)
    agent = await add_agent(hass, fake_llm, apis=APIS, api_key=None)
    ws = await open_satellite(hass, hass_ws_client, agent)
    yield ws
    await ws.close()


@pytest.mark.parametrize("form", ["hermes, qwen 2.5", "deepseek v3, r1", "kimi k2"])
async def test_a_written_call_after_reasoning_runs_and_the_answer_is_heard(
    ha_core: HomeAssistant,
    fake_llm: FakeLLM,
    recorder: RecordingTTS,
    pipeline: Any,
    hass_client: ClientSessionGenerator,
    *,
    form: str,
) -> None:
    """Reasoning, then the call: the light goes on; the satellite hears the answer."""
    hass = ha_core
    turn_on = await offered_name(hass, APIS, "HassTurnOn")
    call = written(form, turn_on)
    fake_llm.script(
        [
            Reply.text(f"<think>The porch light, then.</think>\n{call}", chunk_size=4),
            Reply.text("The porch light is on."),
        ]
    )

    await run_pipeline(hass, pipeline, await hass_client(), "porch light on")

    assert state_of(hass, PORCH) == STATE_ON
    assert recorder.said == ["The porch light is on."]


@pytest.mark.parametrize("around", ["reasoning", "prose"])
@pytest.mark.parametrize("form", ["hermes, qwen 2.5", "mistral args", "llama 3.2 json"])
async def test_a_call_in_reasoning_or_prose_runs_nothing_and_is_heard_as_words(
    ha_core: HomeAssistant,
    fake_llm: FakeLLM,
    recorder: RecordingTTS,
    pipeline: Any,
    hass_client: ClientSessionGenerator,
    *,
    form: str,
    around: str,
) -> None:
    """The light stays off; the satellite hears the model's words, once."""
    hass = ha_core
    turn_on = await offered_name(hass, APIS, "HassTurnOn")
    answer = (IN_REASONING if around == "reasoning" else IN_PROSE).format(
        call=written(form, turn_on)
    )
    fake_llm.script([Reply.text(answer, chunk_size=4)])

    output, _ = await run_pipeline(
        hass, pipeline, await hass_client(), "how would you turn on the porch light?"
    )

    heard = "Shall I?" if around == "reasoning" else clean_for_speech(answer).strip()
    assert recorder.said == [heard]
    assert output["response"]["speech"]["plain"]["speech"] == heard
    assert state_of(hass, PORCH) == STATE_OFF
    assert len(fake_llm.requests) == 1


async def test_reasoning_opened_in_the_prompt_is_heard_once_at_most(
    ha_core: HomeAssistant,
    fake_llm: FakeLLM,
    recorder: RecordingTTS,
    pipeline: Any,
    hass_client: ClientSessionGenerator,
) -> None:
    """A template that opens the reasoning block in the prompt (`…</think>answer`).

    The first answer's thoughts stream before their end shows (they are in the chat
    log, and heard, before anything tells them apart); from then on the agent waits
    for the block's end and the satellite hears the answer alone.
    """
    hass = ha_core
    thoughts = "The user greets me. I should answer briefly. "
    fake_llm.script(
        [
            Reply.text(f"{thoughts}</think>\n\nHello!", chunk_size=4),
            Reply.text(
                f"{thoughts}Maybe a joke? No.</think>\n\nHello again!", chunk_size=4
            ),
        ]
    )
    client = await hass_client()

    await run_pipeline(hass, pipeline, client, "hello")
    output, _ = await run_pipeline(hass, pipeline, client, "hello again")

    assert recorder.said == [f"{thoughts}\n\nHello!", "Hello again!"]
    assert output["response"]["speech"]["plain"]["speech"] == "Hello again!"


@pytest.fixture
def thinks_in_prompt(fake_llm: FakeLLM) -> None:
    """A template that opens reasoning in the prompt: the start-up probe shows it."""
    fake_llm.probe_stream_reply = Reply.text("The user wants ok.</think>ok")


async def test_reasoning_opened_in_the_prompt_seen_at_start_up_is_never_heard(
    ha_core: HomeAssistant,
    fake_llm: FakeLLM,
    thinks_in_prompt: None,
    recorder: RecordingTTS,
    pipeline: Any,
    *,
    hass_client: ClientSessionGenerator,
) -> None:
    """The endpoint check saw the block's end first: the first answer is heard alone."""
    hass = ha_core
    await hass.async_block_till_done(wait_background_tasks=True)
    fake_llm.script(
        [Reply.text("The user greets me. Be brief.</think>\n\nHello!", chunk_size=4)]
    )

    output, _ = await run_pipeline(hass, pipeline, await hass_client(), "hello")

    assert recorder.said == ["Hello!"]
    assert output["response"]["speech"]["plain"]["speech"] == "Hello!"
