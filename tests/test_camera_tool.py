"""`look_at_camera`: "Is anyone at the front door?" answered from a camera's picture.

What is checked is what the scripted LLM server receives (the picture, downscaled, with
the question), the words heard, and what is kept after the turn (a label, never the
bytes). The camera's name in other words, and strange arguments: test_camera_arguments.
"""

import json
from typing import Any

import pytest
from pytest_homeassistant_custom_component.typing import (
    ClientSessionGenerator,
    WebSocketGenerator,
)

from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.config_entries import ConfigEntry
from homeassistant.const import CONF_LLM_HASS_API
from homeassistant.core import HomeAssistant
from homeassistant.setup import async_setup_component

from custom_components.agentic_conversation.config_flow import default_agent_options
from custom_components.agentic_conversation.const import (
    COMPACT_API_ID,
    CONF_CAMERA_IMAGE_QUALITY,
    CONF_CAMERA_IMAGE_SIZE,
    CONF_MODEL,
    DOMAIN,
)
from custom_components.agentic_conversation.diagnostics import (
    async_get_config_entry_diagnostics,
)
from tests.assist_pipeline import RecordingTTS, run_pipeline, use_pipeline
from tests.camera_home import (
    ANSWER,
    BLIND,
    QUESTION,
    SEES,
    TOOL,
    FakeCamera,
    camera_agent,
    decoded,
    image_parts,
    offered,
    setup_cameras,
    tool_result,
)
from tests.fake_llm import FakeLLM, Reply
from tests.helpers import add_agent, converse, speech


@pytest.fixture
async def cameras(ha_core: HomeAssistant) -> dict[str, FakeCamera]:
    """Front door (exposed), Back yard (hidden) and Garage (exposed, off)."""
    return await setup_cameras(ha_core)


async def test_the_question_reaches_the_model_with_the_picture(
    ha_core: HomeAssistant, fake_llm: FakeLLM, cameras: dict[str, FakeCamera]
) -> None:
    """The tool's result is a label; the next request shows the picture, downscaled."""
    agent = await camera_agent(ha_core, fake_llm)
    fake_llm.script(
        [Reply.tool_calls([(TOOL, {"camera": "front door"})]), Reply.text(ANSWER)]
    )

    result = await converse(ha_core, agent, QUESTION)

    assert speech(result) == ANSWER
    assert TOOL in offered(fake_llm.requests[0])
    assert image_parts(fake_llm.requests[0]) == []
    second = fake_llm.requests[1]
    result = tool_result(second)["result"]
    assert result["camera"] == "Front door camera"
    assert result["image"].startswith("[image from Front door camera, ")
    # Right after the tool's result: the picture, with the user's words.
    shown = second["messages"][-1]
    assert shown["role"] == "user"
    text, image = shown["content"]
    assert text["type"] == "text"
    assert text["text"] == f"{result['image']} The user said: {QUESTION}"
    assert image_parts(second) == [image]
    assert decoded(image).size == (768, 576)
    assert cameras["front"].asked == 1


@pytest.mark.usefixtures("cameras")
async def test_the_size_and_quality_are_the_agents_options(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """512 pixels at quality 40: a smaller picture than the default's."""
    sizes = []
    for options in ({}, {CONF_CAMERA_IMAGE_SIZE: 512, CONF_CAMERA_IMAGE_QUALITY: 40}):
        agent = await camera_agent(ha_core, fake_llm, **options)
        fake_llm.script(
            [Reply.tool_calls([(TOOL, {"camera": "front door"})]), Reply.text(ANSWER)]
        )
        await converse(ha_core, agent, QUESTION)
        (image,) = image_parts(fake_llm.requests[-1])
        sizes.append((decoded(image).size, len(image["image_url"]["url"])))

    (default_size, default_bytes), (small_size, small_bytes) = sizes
    assert default_size == (768, 576)
    assert small_size == (512, 384)
    assert small_bytes < default_bytes


@pytest.mark.usefixtures("cameras")
async def test_a_satellite_hears_the_answer_from_the_picture(
    ha_core: HomeAssistant,
    fake_llm: FakeLLM,
    recorder: RecordingTTS,
    hass_ws_client: WebSocketGenerator,
    hass_client: ClientSessionGenerator,
) -> None:
    """Through an Assist pipeline to a streaming TTS: the picture sent, answer heard."""
    agent = await camera_agent(ha_core, fake_llm)
    assert await async_setup_component(ha_core, "assist_pipeline", {})
    ws = await hass_ws_client(ha_core)
    await use_pipeline(ws, agent)
    fake_llm.script(
        [Reply.tool_calls([(TOOL, {"camera": "front door"})]), Reply.text(ANSWER)]
    )

    output, _ = await run_pipeline(ha_core, ws, await hass_client(), QUESTION)
    await ws.close()

    assert recorder.said == [ANSWER]
    assert output["response"]["speech"]["plain"]["speech"] == ANSWER
    (image,) = image_parts(fake_llm.requests[1])
    assert decoded(image).size == (768, 576)
    assert fake_llm.requests[1]["messages"][-1]["content"][0]["text"].endswith(
        f"The user said: {QUESTION}"
    )


async def test_a_hidden_camera_is_refused_like_a_missing_one(
    ha_core: HomeAssistant, fake_llm: FakeLLM, cameras: dict[str, FakeCamera]
) -> None:
    """By name or by entity id: the same words as for no camera; never its picture."""
    agent = await camera_agent(ha_core, fake_llm)
    heard = []
    results = []
    asked = (
        "back yard",
        "Back yard camera",
        "garden shed",
        "garden shed camera",
        "camera.back_yard_camera",
        "camera.x",
    )
    for wanted in asked:
        fake_llm.script(
            [
                Reply.tool_calls([(TOOL, {"camera": wanted})]),
                Reply.text("I don't have that camera."),
            ]
        )
        heard.append(speech(await converse(ha_core, agent, f"Look at the {wanted}")))
        results.append(tool_result(fake_llm.requests[-1]))

    assert heard == ["I don't have that camera."] * len(asked)
    for wanted, result in zip(asked, results, strict=True):
        assert result == {
            "success": False,
            "error": f"No camera called {wanted!r}.",
            "cameras": ["Front door camera", "Garage camera"],
            "hint": "Tell the user there is no such camera; these are the cameras.",
        }
    assert all(image_parts(request) == [] for request in fake_llm.requests)
    assert cameras["hidden"].asked == 0
    # Named only where the user and the model said it: never in what we send.
    assert "Back yard" not in json.dumps(
        [(r["messages"][0], r.get("tools")) for r in fake_llm.requests]
    )


async def test_a_camera_that_is_off_is_told_and_the_answer_heard(
    ha_core: HomeAssistant, fake_llm: FakeLLM, cameras: dict[str, FakeCamera]
) -> None:
    """No picture: a clear error for the model, no image sent, its sentence heard."""
    agent = await camera_agent(ha_core, fake_llm)
    fake_llm.script(
        [
            Reply.tool_calls([(TOOL, {"camera": "garage"})]),
            Reply.text("The garage camera did not answer."),
        ]
    )

    heard = speech(await converse(ha_core, agent, "Is the car in the garage?"))

    assert heard == "The garage camera did not answer."
    assert tool_result(fake_llm.requests[1]) == {
        "success": False,
        "error": "Garage camera gave no picture: it may be off or unreachable.",
        "hint": "Tell the user the camera did not answer.",
    }
    assert image_parts(fake_llm.requests[1]) == []


async def test_not_offered_to_a_model_that_cannot_see(
    ha_core: HomeAssistant, fake_llm: FakeLLM, cameras: dict[str, FakeCamera]
) -> None:
    """The server says the model is blind: the other tools, not the camera."""
    agent = await camera_agent(ha_core, fake_llm, props=BLIND)
    fake_llm.script([Reply.text("I cannot see cameras.")])

    heard = speech(await converse(ha_core, agent, QUESTION))

    assert heard == "I cannot see cameras."
    tools = offered(fake_llm.requests[0])
    assert "search_entities" in tools
    assert TOOL not in tools


async def test_not_offered_without_an_exposed_camera(
    ha_core: HomeAssistant, fake_llm: FakeLLM, cameras: dict[str, FakeCamera]
) -> None:
    """Every camera hidden: nothing to look through, the tool is not offered."""
    for entity_id in ("camera.front_door_camera", "camera.garage_camera"):
        async_expose_entity(ha_core, "conversation", entity_id, False)
    agent = await camera_agent(ha_core, fake_llm)
    fake_llm.script([Reply.text("No camera here.")])

    await converse(ha_core, agent, QUESTION)

    tools = offered(fake_llm.requests[0])
    assert "search_entities" in tools
    assert TOOL not in tools


async def test_only_the_label_is_kept(
    ha_core: HomeAssistant,
    fake_llm: FakeLLM,
    cameras: dict[str, FakeCamera],
    hass_storage: dict[str, Any],
) -> None:
    """The next turn's history and the conversation store hold the label only."""
    agent = await camera_agent(ha_core, fake_llm)
    fake_llm.script(
        [
            Reply.tool_calls([(TOOL, {"camera": "front door"})]),
            Reply.text(ANSWER),
            Reply.text("A red coat."),
        ]
    )
    first = await converse(ha_core, agent, QUESTION)
    label = tool_result(fake_llm.requests[1])["result"]["image"]

    await converse(ha_core, agent, "What were they wearing?", first.conversation_id)

    later = fake_llm.requests[2]
    assert image_parts(later) == []
    assert label in json.dumps(later)
    assert "base64" not in json.dumps(later)
    entry: ConfigEntry = ha_core.config_entries.async_entries(DOMAIN)[0]
    diagnostics = json.dumps(
        await async_get_config_entry_diagnostics(ha_core, entry), default=str
    )
    assert "base64" not in diagnostics
    assert "image from" not in diagnostics
    assert await ha_core.config_entries.async_unload(entry.entry_id)
    stored = json.dumps(
        {key: value for key, value in hass_storage.items() if DOMAIN in key}
    )
    assert label in stored
    assert "base64" not in stored


async def test_compact_home_control_looks_at_two_cameras_in_one_round(
    ha_core: HomeAssistant, fake_llm: FakeLLM, cameras: dict[str, FakeCamera]
) -> None:
    """New agents' default API: two calls at once, one picture, one error, one answer."""
    fake_llm.props_body = SEES
    agent = await add_agent(ha_core, fake_llm, apis=(COMPACT_API_ID,))
    fake_llm.script(
        [
            Reply.tool_calls(
                [(TOOL, {"camera": "front door"}), (TOOL, {"camera": "garage"})]
            ),
            Reply.text("Someone is at the front door; the garage camera is off."),
        ]
    )

    heard = speech(await converse(ha_core, agent, "What do the cameras show?"))

    assert heard == "Someone is at the front door; the garage camera is off."
    second = fake_llm.requests[1]
    roles = [message["role"] for message in second["messages"][-4:]]
    assert roles == ["assistant", "tool", "tool", "user"]
    (image,) = image_parts(second)
    assert decoded(image).size == (768, 576)
    text = second["messages"][-1]["content"][0]["text"]
    assert text.startswith("[image from Front door camera, ")
    assert text.endswith("The user said: What do the cameras show?")


@pytest.mark.parametrize("door", ["async_converse", "pipeline"])
async def test_a_new_agent_looks_rather_than_asking_the_people(
    ha_core: HomeAssistant,
    fake_llm: FakeLLM,
    recorder: RecordingTTS,
    hass_ws_client: WebSocketGenerator,
    hass_client: ClientSessionGenerator,
    *,
    cameras: dict[str, FakeCamera],
    door: str,
) -> None:
    """Local first on (a new agent's default) and a person at home.

    Home Assistant's own sentences take the question as one of the people's zones
    ("No"); like its pipeline, local first leaves a state question to the model.
    """
    assert await async_setup_component(
        ha_core, "person", {"person": [{"id": "alice", "name": "Alice"}]}
    )
    async_expose_entity(ha_core, "conversation", "person.alice", True)
    fake_llm.props_body = SEES
    options = {k: v for k, v in default_agent_options([]).items() if k != CONF_MODEL}
    agent = await add_agent(
        ha_core, fake_llm, apis=options.pop(CONF_LLM_HASS_API), **options
    )
    assert await async_setup_component(ha_core, "intent", {})
    assert speech(await converse(ha_core, "conversation.home_assistant", QUESTION)) == (
        "No"
    )
    fake_llm.script(
        [Reply.tool_calls([(TOOL, {"camera": "front door"})]), Reply.text(ANSWER)]
    )

    if door == "pipeline":
        assert await async_setup_component(ha_core, "assist_pipeline", {})
        ws = await hass_ws_client(ha_core)
        await use_pipeline(ws, agent)
        output, _ = await run_pipeline(ha_core, ws, await hass_client(), QUESTION)
        await ws.close()
        assert recorder.said == [ANSWER]
        heard = output["response"]["speech"]["plain"]["speech"]
    else:
        heard = speech(await converse(ha_core, agent, QUESTION))

    assert heard == ANSWER
    assert len(fake_llm.requests) == 2
    assert [m["role"] for m in fake_llm.requests[0]["messages"]] == ["system", "user"]
    (image,) = image_parts(fake_llm.requests[1])
    assert decoded(image).size == (768, 576)
    assert cameras["front"].asked == 1
