"""A reasoning model's thoughts are never heard, whatever its family writes them in.

Through `conversation.async_converse` (typed) and an Assist pipeline with a recording
streaming TTS (a satellite): the answer streams in small pieces, each family's markup
cut anywhere, and only the words after the reasoning are heard.
"""

from typing import Any

import pytest
from pytest_homeassistant_custom_component.typing import (
    ClientSessionGenerator,
    WebSocketGenerator,
)

from homeassistant.core import HomeAssistant

from tests.assist_pipeline import RecordingTTS, open_satellite, run_pipeline
from tests.fake_llm import FakeLLM, Reply
from tests.helpers import add_agent, say

HEARD = "The porch light is on, and the door is locked."
ANSWERS = [
    (
        "<reasoning>\nThe user asks about the porch. I should say it is on.\n"
        "</reasoning>\nThe porch light is on, [THINK]and the door?[/THINK] and the "
        "door is locked."
    ),
    "[THINK]The porch is on; say so. Do not mention the garage.[/THINK]\n\n" + HEARD,
]


@pytest.mark.parametrize("answer", ANSWERS)
async def test_typed_reasoning_is_not_in_the_answer(
    ha_core: HomeAssistant, fake_llm: FakeLLM, *, answer: str
) -> None:
    """A typed question gets the answer's words only."""
    agent = await add_agent(ha_core, fake_llm)
    fake_llm.script([Reply.text(answer, chunk_size=3)])

    assert await say(ha_core, agent, "is the porch light on?") == HEARD


@pytest.mark.parametrize("answer", ANSWERS)
async def test_a_satellite_hears_the_answer_without_the_reasoning(
    ha_core: HomeAssistant,
    fake_llm: FakeLLM,
    recorder: RecordingTTS,
    hass_ws_client: WebSocketGenerator,
    hass_client: ClientSessionGenerator,
    *,
    answer: str,
) -> None:
    """The TTS engine is given exactly the answer: no word of the reasoning."""
    agent = await add_agent(ha_core, fake_llm)
    ws = await open_satellite(ha_core, hass_ws_client, agent)
    fake_llm.script([Reply.text(answer, chunk_size=3)])

    output, _ = await run_pipeline(
        ha_core, ws, await hass_client(), "is the porch light on?"
    )
    await ws.close()

    assert recorder.said == [HEARD]
    result: Any = output["response"]["speech"]["plain"]["speech"]
    assert result == HEARD
