"""AI tasks on a connection, and the token usage of agents and tasks.

The scripted server sees what an automation's `ai_task.generate_data` sends (the
camera image as a content part, the structure as a JSON schema) and answers with the
usage the sensors then show.
"""

import base64
from pathlib import Path
from typing import Any

import probatio
import pytest
from pytest_homeassistant_custom_component.common import (
    MockConfigEntry,
    MockPlatform,
    mock_platform,
)

from homeassistant.components import ai_task, conversation
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.config_entries import ConfigSubentryData
from homeassistant.const import CONF_API_KEY
from homeassistant.core import HomeAssistant
from homeassistant.data_entry_flow import FlowResultType
from homeassistant.exceptions import HomeAssistantError
from homeassistant.helpers import llm, selector
from homeassistant.helpers.entity_platform import AddEntitiesCallback
from homeassistant.setup import async_setup_component

from custom_components.agentic_conversation.config_flow import (
    AgenticConversationConfigFlow,
)
from custom_components.agentic_conversation.const import (
    CONF_BASE_URL,
    CONF_LOCAL_FALLBACK,
    CONF_MODEL,
    CONF_TASK_TIMEOUT,
    DOMAIN,
)
from custom_components.agentic_conversation.tasks.attachments import async_user_content
from tests.across_releases import offered_name
from tests.e2e.testing_config.custom_components.door_camera.camera import (
    SNAPSHOT,
    FrontDoorCamera,
)
from tests.fake_llm import MODEL, FakeLLM, Reply
from tests.helpers import state_of as _state
from tests.test_confirmation import LOCK, home  # noqa: F401 - a fixture

SNAPSHOT_URL = "data:image/jpeg;base64," + base64.b64encode(SNAPSHOT).decode()
STRUCTURE = probatio.Schema(
    {
        probatio.Required("visitor"): selector.TextSelector(),
        probatio.Required("carries_parcel"): selector.BooleanSelector(),
    }
)
ANSWER = '{"visitor": "a postman", "carries_parcel": true}'
TASK = "ai_task.ai_task"


async def _door_camera(hass: HomeAssistant) -> str:
    async def setup(
        hass: HomeAssistant,
        config: Any,
        add_entities: AddEntitiesCallback,
        discovery_info: Any = None,
    ) -> None:
        add_entities([FrontDoorCamera()])

    mock_platform(hass, "door.camera", MockPlatform(async_setup_platform=setup))
    assert await async_setup_component(hass, "camera", {"camera": {"platform": "door"}})
    await hass.async_block_till_done()
    return "camera.front_door"


async def _connection(
    hass: HomeAssistant,
    server: FakeLLM,
    *,
    agent: dict[str, Any] | None = None,
    task: dict[str, Any] | None = None,
) -> MockConfigEntry:
    """A connection with an agent (no tools) and an AI task."""
    entry = MockConfigEntry(
        domain=DOMAIN,
        minor_version=AgenticConversationConfigFlow.MINOR_VERSION,
        data={CONF_BASE_URL: server.base_url, CONF_API_KEY: "sk-test"},
        subentries_data=[
            ConfigSubentryData(
                data={CONF_MODEL: MODEL, CONF_LOCAL_FALLBACK: False, **(agent or {})},
                subentry_type="conversation",
                title="Agent",
                unique_id=None,
            ),
            ConfigSubentryData(
                data={CONF_MODEL: MODEL, CONF_TASK_TIMEOUT: 30, **(task or {})},
                subentry_type="ai_task_data",
                title="AI Task",
                unique_id=None,
            ),
        ],
    )
    entry.add_to_hass(hass)
    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()
    return entry


async def _describe_door(hass: HomeAssistant, door: str) -> ai_task.GenDataTaskResult:
    return await ai_task.async_generate_data(
        hass,
        task_name="front door",
        entity_id=TASK,
        instructions="Who is at the door?",
        structure=STRUCTURE,
        attachments=[
            {
                "media_content_id": f"media-source://camera/{door}",
                "media_content_type": "image/jpeg",
            }
        ],
    )


async def test_camera_snapshot_and_structure_reach_the_server(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """The image goes as a content part, the structure as a JSON schema."""
    door = await _door_camera(ha_core)
    await _connection(ha_core, fake_llm)
    fake_llm.script([Reply.text(ANSWER)])

    result = await _describe_door(ha_core, door)

    assert result.data == {"visitor": "a postman", "carries_parcel": True}
    (request,) = fake_llm.requests
    assert request["messages"][-1] == {
        "role": "user",
        "content": [
            {"type": "text", "text": "Who is at the door?"},
            {"type": "image_url", "image_url": {"url": SNAPSHOT_URL}},
        ],
    }
    assert request["response_format"] == {
        "type": "json_schema",
        "json_schema": {
            "name": "front_door",
            "schema": {
                "type": "object",
                "properties": {
                    "visitor": {"type": "string"},
                    "carries_parcel": {"type": "boolean"},
                },
                "required": ["visitor", "carries_parcel"],
                "additionalProperties": False,
            },
            "strict": False,
        },
    }
    assert "tools" not in request


async def test_invalid_json_gets_one_repair_round(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """The model hears what was wrong, once; its corrected answer is the result."""
    door = await _door_camera(ha_core)
    await _connection(ha_core, fake_llm)
    fake_llm.script([Reply.text("A postman with a parcel."), Reply.text(ANSWER)])

    result = await _describe_door(ha_core, door)

    assert result.data == {"visitor": "a postman", "carries_parcel": True}
    repair = fake_llm.requests[1]["messages"]
    assert repair[-2] == {"role": "assistant", "content": "A postman with a parcel."}
    assert repair[-1] == {
        "role": "user",
        "content": "Your answer was not valid JSON (Expecting value: line 1 column 1"
        " (char 0)). Reply again with only a JSON object that matches the requested"
        " schema, and nothing else.",
    }
    assert fake_llm.requests[1]["response_format"]["json_schema"]["name"] == (
        "front_door"
    )


async def test_invalid_twice_is_a_clear_error(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """After the repair round, an error saying what was wrong; no third call."""
    door = await _door_camera(ha_core)
    await _connection(ha_core, fake_llm)
    fake_llm.script([Reply.text("A postman."), Reply.text('{"visitor": 7}')])

    with pytest.raises(HomeAssistantError) as raised:
        await _describe_door(ha_core, door)

    assert raised.value.translation_key == "task_invalid_structure"
    assert raised.value.translation_placeholders == {
        "error": "not the requested structure (expected str at 'visitor')"
    }
    assert len(fake_llm.requests) == 2


async def test_a_server_refusing_images_is_told_as_it_said(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """A text-only model: the server's own words, under a translated message."""
    door = await _door_camera(ha_core)
    await _connection(ha_core, fake_llm)
    fake_llm.script([Reply.error(400, "image input is not supported by this model")])

    with pytest.raises(HomeAssistantError) as raised:
        await _describe_door(ha_core, door)

    assert raised.value.translation_key == "task_images_refused"
    assert (
        "image input is not supported by this model"
        in (raised.value.translation_placeholders or {})["error"]
    )


async def test_ai_task_subentry_flow(ha_core: HomeAssistant, fake_llm: FakeLLM) -> None:
    """Name, model and deadline; whole seconds stored, an empty price not at all."""
    entry = await _connection(ha_core, fake_llm)

    result = await ha_core.config_entries.subentries.async_init(
        (entry.entry_id, "ai_task_data"), context={"source": "user"}
    )
    assert result["type"] is FlowResultType.FORM
    assert result["step_id"] == "user"
    result = await ha_core.config_entries.subentries.async_configure(
        result["flow_id"],
        {"name": "Doorbell", CONF_MODEL: MODEL, CONF_TASK_TIMEOUT: 45.0},
    )

    assert result["type"] is FlowResultType.CREATE_ENTRY
    assert result["title"] == "Doorbell"
    assert result["data"] == {CONF_MODEL: MODEL, CONF_TASK_TIMEOUT: 45}
    assert isinstance(result["data"][CONF_TASK_TIMEOUT], int)


async def test_a_non_image_attachment_is_refused_before_any_call(
    ha_core: HomeAssistant, fake_llm: FakeLLM, tmp_path: Path
) -> None:
    """Only images can be shown to a model: a PDF is refused in words."""
    await _connection(ha_core, fake_llm)
    manual = tmp_path / "manual.pdf"
    manual.write_bytes(b"%PDF-1.7")
    attachment = conversation.Attachment(
        media_content_id="media-source://media_source/local/manual.pdf",
        mime_type="application/pdf",
        path=manual,
    )

    with pytest.raises(HomeAssistantError) as raised:
        await async_user_content(ha_core, "Summarise this.", [attachment])

    assert raised.value.translation_key == "task_attachment_not_image"
    assert raised.value.translation_placeholders == {"mime_type": "application/pdf"}
    assert str(raised.value) == (
        "An AI task can only look at images; this attachment is application/pdf"
    )
    assert fake_llm.requests == []


@pytest.mark.parametrize(
    ("server", "body"),
    [
        ("show_body", {"capabilities": ["completion", "tools"]}),  # Ollama
        ("props_body", {"modalities": {"vision": False}}),  # llama.cpp
    ],
)
async def test_a_model_its_server_says_cannot_see_is_not_sent_images(
    ha_core: HomeAssistant, fake_llm: FakeLLM, server: str, body: dict[str, Any]
) -> None:
    """The server tells the model has no vision: a clear error, nothing sent."""
    door = await _door_camera(ha_core)
    await _connection(ha_core, fake_llm)
    setattr(fake_llm, server, body)

    with pytest.raises(HomeAssistantError) as raised:
        await _describe_door(ha_core, door)

    assert raised.value.translation_key == "task_model_cannot_see"
    assert str(raised.value) == (
        "The model fake-model cannot see images (its server says so): choose a vision"
        " model for this AI task"
    )
    assert fake_llm.requests == []


async def test_a_vision_model_is_sent_images(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """Ollama lists vision among the model's capabilities: the task runs."""
    door = await _door_camera(ha_core)
    await _connection(ha_core, fake_llm)
    fake_llm.show_body = {"capabilities": ["completion", "vision"]}
    fake_llm.script([Reply.text(ANSWER)])

    result = await _describe_door(ha_core, door)

    assert result.data == {"visitor": "a postman", "carries_parcel": True}


@pytest.mark.usefixtures("home")
async def test_a_task_with_tools_never_unlocks(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """An automation's task with Assist's tools: the model's unlock is held, not run."""
    await _connection(ha_core, fake_llm)
    # Assist's tools match what is exposed to the assistant asking: here, AI tasks.
    async_expose_entity(ha_core, ai_task.DOMAIN, LOCK, True)
    unlock = await offered_name(ha_core, [llm.LLM_API_ASSIST], "HassTurnOff")
    fake_llm.script([Reply.tool_calls([(unlock, {"name": "Front door"}, "c1")])])
    assist = next(a for a in llm.async_get_apis(ha_core) if a.id == llm.LLM_API_ASSIST)

    with pytest.raises(HomeAssistantError) as raised:
        await ai_task.async_generate_data(
            ha_core,
            task_name="door",
            entity_id=TASK,
            instructions="Open the front door for the guest.",
            llm_api=assist,
        )

    assert raised.value.translation_key == "task_action_held"
    assert _state(ha_core, LOCK) == "locked"
    # The model was offered the tools, and told nothing ran.
    assert unlock in [t["function"]["name"] for t in fake_llm.requests[0]["tools"]]


async def test_a_task_answer_holding_the_key_gives_it_redacted(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """The text an automation gets back has the connection's key taken out."""
    await _connection(ha_core, fake_llm)
    fake_llm.script([Reply.text("Use the key sk-test for the proxy.")])

    result = await ai_task.async_generate_data(
        ha_core, task_name="key", entity_id=TASK, instructions="Which key?"
    )

    assert result.data == "Use the key [redacted] for the proxy."
