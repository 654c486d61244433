"""A home with cameras for the `look_at_camera` tests, and how to read what was sent.

A test camera platform serves a known JPEG (1280×960): Front door (exposed), Back yard
(hidden) and Garage (exposed, off).
"""

import asyncio
import base64
import io
import json
from typing import Any

from PIL import Image
from pytest_homeassistant_custom_component.common import setup_test_component_platform

from homeassistant.components import camera
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import HomeAssistant
from homeassistant.setup import async_setup_component

from custom_components.agentic_conversation.const import LLM_API_ID
from tests.fake_llm import FakeLLM
from tests.helpers import add_agent

QUESTION = "Is anyone at the front door?"
ANSWER = "Yes: someone in a red coat is at the front door."
CAMERA = "camera"
TOOL = "look_at_camera"  # our API alone: offered under its own name on every release
SEES = {"modalities": {"vision": True}}  # llama.cpp's /props for a seeing model
BLIND = {"modalities": {"vision": False}}


def jpeg(width: int, height: int) -> bytes:
    """A plain red JPEG of this size."""
    out = io.BytesIO()
    Image.new("RGB", (width, height), (200, 20, 20)).save(out, format="JPEG")
    return out.getvalue()


class FakeCamera(camera.Camera):
    """A camera serving a fixed picture; None plays a camera that is off."""

    def __init__(self, name: str, image: bytes | None) -> None:
        """A camera with this name and picture."""
        super().__init__()
        self._attr_name = name
        self._attr_unique_id = name.lower().replace(" ", "_")
        self.image = image
        self.asked = 0
        self.hangs = False

    async def async_camera_image(
        self, width: int | None = None, height: int | None = None
    ) -> bytes | None:
        """The picture, counted; a hanging camera never answers."""
        self.asked += 1
        if self.hangs:
            await asyncio.Event().wait()
        return self.image


async def setup_cameras(ha_core: HomeAssistant) -> dict[str, FakeCamera]:
    """Front door (exposed), Back yard (hidden) and Garage (exposed, off)."""
    found = {
        "front": FakeCamera("Front door camera", jpeg(1280, 960)),
        "hidden": FakeCamera("Back yard camera", jpeg(1280, 960)),
        "off": FakeCamera("Garage camera", None),
    }
    setup_test_component_platform(ha_core, CAMERA, found.values())
    assert await async_setup_component(ha_core, CAMERA, {CAMERA: {"platform": "test"}})
    await ha_core.async_block_till_done()
    for entity_id, exposed in (
        ("camera.front_door_camera", True),
        ("camera.back_yard_camera", False),
        ("camera.garage_camera", True),
    ):
        async_expose_entity(ha_core, "conversation", entity_id, exposed)
    return found


async def camera_agent(
    hass: HomeAssistant, server: FakeLLM, props: Any = SEES, **options: Any
) -> str:
    """An agent on our tools alone, its model seeing (or not) as `props` says."""
    server.props_body = props
    return await add_agent(hass, server, apis=(LLM_API_ID,), **options)


def offered(request: dict[str, Any]) -> set[str]:
    """The tool names a request offered."""
    return {tool["function"]["name"] for tool in request.get("tools") or ()}


def image_parts(request: dict[str, Any]) -> list[dict[str, Any]]:
    """Every image part of a request's messages."""
    return [
        part
        for message in request["messages"]
        if isinstance(message.get("content"), list)
        for part in message["content"]
        if part.get("type") == "image_url"
    ]


def tool_result(request: dict[str, Any]) -> dict[str, Any]:
    """The one tool result of a request, parsed."""
    (message,) = [m for m in request["messages"] if m["role"] == "tool"]
    result: dict[str, Any] = json.loads(message["content"])
    return result


def decoded(part: dict[str, Any]) -> Image.Image:
    """The JPEG of an image part."""
    url: str = part["image_url"]["url"]
    header, _, data = url.partition(",")
    assert header == "data:image/jpeg;base64"
    return Image.open(io.BytesIO(base64.b64decode(data)))
