"""`look_at_camera`: which camera a model's words mean, and what it never shows.

A camera that hangs is given up within the turn; the camera's name in other words and
cases or its entity id is that camera; no name with several cameras is asked about; a
word for any camera, or a place with no camera of its own, finds none; strange
arguments never reach the hidden camera.
"""

import json
from typing import Any

import pytest

from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import HomeAssistant, State
from homeassistant.helpers import area_registry as ar, entity_registry as er

from custom_components.agentic_conversation.tools import camera as camera_tool
from custom_components.agentic_conversation.tools.camera_match import cameras_meant
from custom_components.agentic_conversation.tools.entities import EntityInfo
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


@pytest.mark.parametrize("wanted", ["", "  "])
async def test_several_cameras_meant_is_asked_about(
    ha_core: HomeAssistant,
    fake_llm: FakeLLM,
    cameras: dict[str, FakeCamera],
    wanted: str,
) -> None:
    """No name with two exposed: refused, naming both, no picture taken."""
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


def _only_the_front_door(hass: HomeAssistant) -> None:
    """The garage camera hidden too: the front door's is the only one exposed."""
    async_expose_entity(hass, "conversation", "camera.garage_camera", False)


@pytest.mark.parametrize(
    "wanted",
    [
        "camera",
        "the camera",
        "Camera",
        "cam",
        "cameras",
        "picture",
        "the live view",
        "Kamera",
        "die Kamera",
        "la caméra",
        "камера",
        "telecamera",
    ],
)
@pytest.mark.parametrize("exposed", ["one", "two"])
async def test_a_word_for_any_camera_picks_none(
    ha_core: HomeAssistant,
    fake_llm: FakeLLM,
    cameras: dict[str, FakeCamera],
    *,
    wanted: str,
    exposed: str,
) -> None:
    """'camera' says no camera, even when a single one is exposed: the names offered."""
    if exposed == "one":
        _only_the_front_door(ha_core)
    names = ["Front door camera"] + (["Garage camera"] if exposed == "two" else [])
    agent = await camera_agent(ha_core, fake_llm)
    fake_llm.script(
        [
            Reply.tool_calls([(TOOL, {"camera": wanted})]),
            Reply.text("Which camera should I look at?"),
        ]
    )

    heard = speech(await converse(ha_core, agent, "What does the camera show?"))

    assert heard == "Which camera should I look at?"
    assert tool_result(fake_llm.requests[1]) == {
        "success": False,
        "error": f"{wanted!r} does not say which camera.",
        "cameras": names,
        "hint": (
            "Call again with the name of the camera the user asked about, or ask the"
            " user which one."
        ),
    }
    assert image_parts(fake_llm.requests[1]) == []
    assert cameras["front"].asked == cameras["off"].asked == 0


@pytest.mark.parametrize(
    "wanted", ["", "Front door camera", "front door", "door", "the door camera"]
)
async def test_the_only_camera_by_name_or_with_no_name(
    ha_core: HomeAssistant,
    fake_llm: FakeLLM,
    cameras: dict[str, FakeCamera],
    wanted: str,
) -> None:
    """One camera exposed: no name at all, or a word of its name, is that camera."""
    _only_the_front_door(ha_core)
    agent = await camera_agent(ha_core, fake_llm)
    fake_llm.script(
        [Reply.tool_calls([(TOOL, {"camera": wanted})]), Reply.text(ANSWER)]
    )

    heard = speech(await converse(ha_core, agent, QUESTION))

    assert heard == ANSWER
    assert tool_result(fake_llm.requests[1])["result"]["camera"] == "Front door camera"
    assert len(image_parts(fake_llm.requests[1])) == 1
    assert cameras["front"].asked == 1


NO_GARAGE = "There is no camera in the garage; I can look at the front door."


@pytest.mark.parametrize(
    "wanted",
    ["garage", "Garage camera", "the garage cam", "Garagenkamera", "garage door"],
)
async def test_a_place_with_no_camera_finds_none(
    ha_core: HomeAssistant,
    fake_llm: FakeLLM,
    cameras: dict[str, FakeCamera],
    wanted: str,
) -> None:
    """'Is anyone in the garage?' with only the front door's camera: none, no picture."""
    _only_the_front_door(ha_core)
    agent = await camera_agent(ha_core, fake_llm)
    fake_llm.script(
        [Reply.tool_calls([(TOOL, {"camera": wanted})]), Reply.text(NO_GARAGE)]
    )

    heard = speech(await converse(ha_core, agent, "Is anyone in the garage?"))

    assert heard == NO_GARAGE
    assert tool_result(fake_llm.requests[1]) == {
        "success": False,
        "error": f"No camera called {wanted!r}.",
        "cameras": ["Front door camera"],
        "hint": "Tell the user there is no such camera; these are the cameras.",
    }
    assert image_parts(fake_llm.requests[1]) == []
    assert cameras["front"].asked == cameras["off"].asked == 0


@pytest.mark.parametrize(
    ("language", "question", "wanted", "answer"),
    [
        ("en", "Is anyone in the back yard?", "back yard", "I have no camera there."),
        ("en", "Is anyone by the pool?", "pool camera", "I have no camera there."),
        (
            "de",
            "Ist jemand im Hinterhof?",
            "Back yard camera",
            "Dort habe ich keine Kamera.",
        ),
        ("de", "Ist jemand am Pool?", "Poolkamera", "Dort habe ich keine Kamera."),
        (
            "fr",
            "Il y a quelqu'un dans le jardin ?",
            "camera.back_yard_camera",
            "Je n'ai pas de caméra là-bas.",
        ),
        (
            "fr",
            "Il y a quelqu'un près de la piscine ?",
            "caméra de la piscine",
            "Je n'ai pas de caméra là-bas.",
        ),
    ],
    ids=[
        "en-hidden",
        "en-missing",
        "de-hidden",
        "de-missing",
        "fr-hidden",
        "fr-missing",
    ],
)
async def test_a_missing_or_hidden_camera_in_three_languages(
    ha_core: HomeAssistant,
    fake_llm: FakeLLM,
    cameras: dict[str, FakeCamera],
    *,
    language: str,
    question: str,
    wanted: str,
    answer: str,
) -> None:
    """Hidden and missing alike: the same words, the exposed names, no picture."""
    agent = await camera_agent(ha_core, fake_llm)
    fake_llm.script(
        [Reply.tool_calls([(TOOL, {"camera": wanted})]), Reply.text(answer)]
    )

    heard = speech(await converse(ha_core, agent, question, language=language))

    assert heard == answer
    assert tool_result(fake_llm.requests[1]) == {
        "success": False,
        "error": f"No camera called {wanted!r}.",
        "cameras": ["Front door camera", "Garage camera"],
        "hint": "Tell the user there is no such camera; these are the cameras.",
    }
    assert image_parts(fake_llm.requests[1]) == []
    assert cameras["front"].asked == cameras["hidden"].asked == 0
    assert cameras["off"].asked == 0


@pytest.mark.parametrize("wanted", ["porch", "the porch camera", "Porch"])
async def test_a_camera_by_its_area(
    ha_core: HomeAssistant,
    fake_llm: FakeLLM,
    cameras: dict[str, FakeCamera],
    wanted: str,
) -> None:
    """The front door camera is on the porch: "porch" is that camera."""
    area = ar.async_get(ha_core).async_create("Porch")
    er.async_get(ha_core).async_update_entity(
        "camera.front_door_camera", area_id=area.id
    )
    agent = await camera_agent(ha_core, fake_llm)
    fake_llm.script(
        [Reply.tool_calls([(TOOL, {"camera": wanted})]), Reply.text(ANSWER)]
    )

    heard = speech(await converse(ha_core, agent, "Is anyone on the porch?"))

    assert heard == ANSWER
    assert tool_result(fake_llm.requests[1])["result"]["camera"] == "Front door camera"
    assert len(image_parts(fake_llm.requests[1])) == 1
    assert cameras["front"].asked == 1


def _camera(name: str, area: str | None = None) -> EntityInfo:
    entity_id = f"camera.{name.lower().replace(' ', '_')}"
    return EntityInfo(
        entity_id, name, (), area, (), None, None, State(entity_id, "idle")
    )


@pytest.mark.parametrize(
    ("wanted", "meant"),
    [
        ("Cameron's room", []),  # a word that starts like "camera" is not one
        ("Bildschirm", []),
        ("gate", ["Gate"]),
        ("the gate camera", ["Gate"]),
        ("Hofkamera", ["Hof"]),
        ("camera 2", ["Camera 2"]),
        ("2", ["Camera 2"]),
        ("Camera", []),
        ("garden", ["Shed"]),  # its area
        ("garden gate", []),  # the gate is not in the garden
        ("telecamera del giardino", ["Shed"]),
        ("la cámara del jardín", []),  # "jardín" is no name here
    ],
)
def test_which_words_name_a_camera(wanted: str, meant: list[str]) -> None:
    """Words that are not a camera's own never name it; generic ones are set aside."""
    cameras = [
        _camera("Gate"),
        _camera("Hof"),
        _camera("Camera 2"),
        _camera("Shed", area="Garden Giardino"),
    ]

    found = cameras_meant(cameras, wanted)

    assert [camera.name for camera in found.cameras] == meant
    assert found.generic is (wanted == "Camera")
