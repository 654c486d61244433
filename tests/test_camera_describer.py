"""A model that cannot see looks through a camera by another model's description.

The agent's model is blind (its server says so); a describing model on the same
connection gets the snapshot with the user's words, and the agent's model reads only
its description: no picture reaches it. A describer that fails or is too slow is a
clear tool error, and the agent's model still answers.
"""

import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry

from homeassistant.core import HomeAssistant
from homeassistant.data_entry_flow import FlowResultType

from custom_components.agentic_conversation.const import (
    CONF_CAMERA_DESCRIBER,
    CONF_MODEL,
    CONF_TOOL_TIMEOUT,
    DOMAIN,
)
from tests.agent_form import LIMITS, nest, sections, selectors, submit
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
from tests.fake_llm import MODEL, FakeLLM, Reply
from tests.helpers import add_agent, converse, speech

DESCRIBER = "vision-describer"
DESCRIPTION = "A person in a red coat stands at the front door, holding a parcel."
LOOK = Reply.tool_calls([(TOOL, {"camera": "front door"})])


@pytest.fixture
async def cameras(ha_core: HomeAssistant) -> dict[str, FakeCamera]:
    """Front door (exposed), Back yard (hidden) and Garage (exposed, off)."""
    return await setup_cameras(ha_core)


async def test_the_describer_sees_and_the_blind_model_reads(
    ha_core: HomeAssistant, fake_llm: FakeLLM, cameras: dict[str, FakeCamera]
) -> None:
    """Snapshot and question to the describer; its words, no picture, to the agent."""
    agent = await camera_agent(
        ha_core, fake_llm, props=BLIND, **{CONF_CAMERA_DESCRIBER: DESCRIBER}
    )
    fake_llm.script([LOOK, Reply.text(DESCRIPTION), Reply.text(ANSWER)])

    heard = speech(await converse(ha_core, agent, QUESTION))

    assert heard == ANSWER
    first, described, answered = fake_llm.requests
    assert first["model"] == MODEL
    assert TOOL in offered(first)
    # The describer: one user message, the question and the downscaled snapshot.
    assert described["model"] == DESCRIBER
    assert "tools" not in described
    (message,) = described["messages"]
    text, image = message["content"]
    assert text["type"] == "text"
    assert "Front door camera" in text["text"]
    assert text["text"].endswith(f"The user said: {QUESTION}")
    assert decoded(image).size == (768, 576)
    # The agent's model: the description as the tool's result, and no picture.
    assert answered["model"] == MODEL
    result = tool_result(answered)["result"]
    assert result["camera"] == "Front door camera"
    assert result["image"].startswith("[image from Front door camera, ")
    assert result["description"] == DESCRIPTION
    assert image_parts(answered) == []
    assert cameras["front"].asked == 1


@pytest.mark.usefixtures("cameras")
async def test_a_model_that_sees_gets_the_picture_itself(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """A describer set for a model that sees is not asked: the picture goes to it."""
    agent = await camera_agent(
        ha_core, fake_llm, props=SEES, **{CONF_CAMERA_DESCRIBER: DESCRIBER}
    )
    fake_llm.script([LOOK, Reply.text(ANSWER)])

    heard = speech(await converse(ha_core, agent, QUESTION))

    assert heard == ANSWER
    assert [request["model"] for request in fake_llm.requests] == [MODEL, MODEL]
    assert len(image_parts(fake_llm.requests[1])) == 1


@pytest.mark.usefixtures("cameras")
async def test_a_blind_model_without_a_describer_is_not_offered_the_camera(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """No describing model: the camera tool is not offered to a model that cannot see."""
    agent = await camera_agent(ha_core, fake_llm, props=BLIND)
    fake_llm.script([Reply.text("I cannot see cameras.")])

    heard = speech(await converse(ha_core, agent, QUESTION))

    assert heard == "I cannot see cameras."
    assert TOOL not in offered(fake_llm.requests[0])
    assert len(fake_llm.requests) == 1


@pytest.mark.usefixtures("cameras")
async def test_a_describer_that_fails_is_a_clear_error(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """The describer refuses: the model reads why, and says so; no picture reaches it."""
    agent = await camera_agent(
        ha_core, fake_llm, props=BLIND, **{CONF_CAMERA_DESCRIBER: DESCRIBER}
    )
    said = "I could not look at the front door camera just now."
    fake_llm.script(
        [LOOK, Reply.error(400, "sk-test is not allowed"), Reply.text(said)]
    )

    heard = speech(await converse(ha_core, agent, QUESTION))

    assert heard == said
    assert fake_llm.requests[1]["model"] == DESCRIBER
    answered = fake_llm.requests[2]
    assert tool_result(answered) == {
        "success": False,
        "error": "The picture from Front door camera could not be described "
        "(bad_request).",
        "hint": "Tell the user the camera picture could not be looked at.",
    }
    assert image_parts(answered) == []


@pytest.mark.usefixtures("cameras")
async def test_a_describer_too_slow_is_a_clear_error(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """The describer hangs: within the tool's deadline, a timeout the model can tell."""
    agent = await camera_agent(
        ha_core,
        fake_llm,
        props=BLIND,
        **{CONF_CAMERA_DESCRIBER: DESCRIBER, CONF_TOOL_TIMEOUT: 3},
    )
    said = "The camera took too long to look at."
    fake_llm.script([LOOK, Reply.hang(), Reply.text(said)])

    heard = speech(await converse(ha_core, agent, QUESTION))

    assert heard == said
    assert tool_result(fake_llm.requests[2]) == {
        "success": False,
        "error": "The picture from Front door camera could not be described (timeout).",
        "hint": "Tell the user the camera picture could not be looked at.",
    }


async def test_the_describer_is_chosen_in_the_agent_form(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """One of the connection's models, or typed; emptied, none is stored."""
    await add_agent(ha_core, fake_llm)
    (entry,) = ha_core.config_entries.async_entries(DOMAIN)
    assert isinstance(entry, MockConfigEntry)
    (agent,) = entry.subentries.values()

    for typed, stored in ((DESCRIBER, DESCRIBER), ("", None)):
        result = await entry.start_subentry_reconfigure_flow(ha_core, agent.subentry_id)
        if LIMITS not in sections(result):  # shown with the recommended settings off
            result = await ha_core.config_entries.subentries.async_configure(
                result["flow_id"],
                nest({CONF_MODEL: MODEL}, recommended=False, tuning=False),
            )
        choice = selectors(result)[CONF_CAMERA_DESCRIBER].config
        assert choice["options"] == [MODEL]
        assert choice["custom_value"] is True
        result = await submit(
            ha_core, result, {CONF_MODEL: MODEL, CONF_CAMERA_DESCRIBER: typed}
        )
        await ha_core.async_block_till_done()

        assert result["type"] is FlowResultType.ABORT
        assert entry.subentries[agent.subentry_id].data.get(CONF_CAMERA_DESCRIBER) == (
            stored
        )


@pytest.mark.usefixtures("cameras")
async def test_a_describers_flood_is_cut(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """10 MB and a lone surrogate from the describer: 2000 safe characters read."""
    agent = await camera_agent(
        ha_core, fake_llm, props=BLIND, **{CONF_CAMERA_DESCRIBER: DESCRIBER}
    )
    fake_llm.script([LOOK, Reply.text("\ud800" + "x" * 10_000_000), Reply.text(ANSWER)])

    heard = speech(await converse(ha_core, agent, QUESTION))

    assert heard == ANSWER
    description = tool_result(fake_llm.requests[2])["result"]["description"]
    assert description == "\ufffd" + "x" * 1999
