"""`look_at_camera`: which camera a model's words mean, and what it never shows.

A camera that hangs is given up within the turn; the camera's name in other words and
cases or its entity id is that camera; words that fit several are asked about; strange
arguments never reach the hidden camera.
"""

import json
from typing import Any

import pytest

from homeassistant.core import HomeAssistant

from custom_components.agentic_conversation.tools import camera as camera_tool
from tests.camera_home import (
    ANSWER,
    QUESTION,
    TOOL,
    FakeCamera,
    camera_agent,
    image_parts,
    setup_cameras,
    tool_result,
)
from tests.fake_llm import FakeLLM, Reply
from tests.helpers import converse, speech


@pytest.fixture
async def cameras(ha_core: HomeAssistant) -> dict[str, FakeCamera]:
    """Front door (exposed), Back yard (hidden) and Garage (exposed, off)."""
    return await setup_cameras(ha_core)


async def test_a_camera_that_hangs_is_told_within_the_turn(
    ha_core: HomeAssistant,
    fake_llm: FakeLLM,
    cameras: dict[str, FakeCamera],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A camera that never answers: given up after the snapshot timeout, told."""
    monkeypatch.setattr(camera_tool, "SNAPSHOT_TIMEOUT", 0.05)
    cameras["front"].hangs = True
    agent = await camera_agent(ha_core, fake_llm)
    fake_llm.script(
        [
            Reply.tool_calls([(TOOL, {"camera": "front door"})]),
            Reply.text("The front door camera did not answer."),
        ]
    )

    heard = speech(await converse(ha_core, agent, QUESTION))

    assert heard == "The front door camera did not answer."
    assert tool_result(fake_llm.requests[1])["error"] == (
        "Front door camera gave no picture: it may be off or unreachable."
    )
    assert image_parts(fake_llm.requests[1]) == []


@pytest.mark.parametrize(
    ("wanted", "chosen"),
    [
        ("front door", "Front door camera"),
        ("the front door camera", "Front door camera"),
        ("Front Door", "Front door camera"),
        ("camera.front_door_camera", "Front door camera"),
        ("CAMERA.FRONT_DOOR_CAMERA", "Front door camera"),
    ],
)
async def test_what_a_person_plainly_means(
    ha_core: HomeAssistant,
    fake_llm: FakeLLM,
    cameras: dict[str, FakeCamera],
    wanted: str,
    chosen: str,
) -> None:
    """Its name in other words and cases, or its entity id: that camera."""
    agent = await camera_agent(ha_core, fake_llm)
    fake_llm.script(
        [Reply.tool_calls([(TOOL, {"camera": wanted})]), Reply.text(ANSWER)]
    )

    await converse(ha_core, agent, QUESTION)

    assert tool_result(fake_llm.requests[1])["result"]["camera"] == chosen
    assert len(image_parts(fake_llm.requests[1])) == 1


@pytest.mark.parametrize("wanted", ["camera", "", "  "])
async def test_several_cameras_meant_is_asked_about(
    ha_core: HomeAssistant,
    fake_llm: FakeLLM,
    cameras: dict[str, FakeCamera],
    wanted: str,
) -> None:
    """'the camera' with two exposed: refused, naming both, no picture taken."""
    agent = await camera_agent(ha_core, fake_llm)
    fake_llm.script(
        [
            Reply.tool_calls([(TOOL, {"camera": wanted})]),
            Reply.text("Which camera: the front door or the garage?"),
        ]
    )

    heard = speech(await converse(ha_core, agent, "What does the camera show?"))

    assert heard == "Which camera: the front door or the garage?"
    assert tool_result(fake_llm.requests[1]) == {
        "success": False,
        "error": f"{wanted.strip()!r} could be several cameras.",
        "cameras": ["Front door camera", "Garage camera"],
        "hint": "Ask the user which one, or call again with its name.",
    }
    assert cameras["front"].asked == cameras["off"].asked == 0


@pytest.mark.parametrize(
    "arguments",
    [
        {"camera": 42},
        {"camera": ["front door", "back yard"]},
        {"camera": "x" * 5_000},
        {"camera": "back yard\ud800"},
        {"camera": "front door", "entity_id": "camera.back_yard_camera"},
    ],
)
async def test_strange_arguments_never_show_the_hidden_camera(
    ha_core: HomeAssistant,
    fake_llm: FakeLLM,
    cameras: dict[str, FakeCamera],
    arguments: dict[str, Any],
) -> None:
    """Whatever a model sends, the hidden camera is never asked for its picture."""
    agent = await camera_agent(ha_core, fake_llm)
    fake_llm.script([Reply.tool_calls([(TOOL, arguments)]), Reply.text("Sorry.")])

    heard = speech(await converse(ha_core, agent, QUESTION))

    assert heard == "Sorry."
    assert cameras["hidden"].asked == 0
    assert "Back yard" not in json.dumps(fake_llm.requests)
    assert len(tool_result(fake_llm.requests[1])["error"]) < 200  # a name is cut
