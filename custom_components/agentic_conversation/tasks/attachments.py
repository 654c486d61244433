"""Images as OpenAI-compatible content parts (base64): a task's attachments, a snapshot."""

import base64
import io
from pathlib import Path
from typing import Any

from PIL import Image

from homeassistant.components import conversation
from homeassistant.core import HomeAssistant
from homeassistant.exceptions import HomeAssistantError

from ..agent.vision import async_sees_images
from ..const import DOMAIN
from ..runtime import AgenticConfigEntry


async def async_model_sees_images(entry: AgenticConfigEntry, model: str) -> bool | None:
    """Whether the server says its model takes images (None: it does not say).

    Asked once per model while the connection is loaded.
    """
    known = entry.runtime_data.sees_images
    if model in known:
        return known[model]
    client = entry.runtime_data.client

    async def fetch(url: str, body: dict[str, Any] | None) -> Any:
        if body is None:
            return await client.get(url, cast_to=object)
        return await client.post(url, cast_to=object, body=body)

    sees = await async_sees_images(fetch, str(client.base_url), model)
    known[model] = sees
    return sees


def refuse_images(model: str) -> HomeAssistantError:
    """The error of a task with images for a model its server says cannot see."""
    return HomeAssistantError(
        translation_domain=DOMAIN,
        translation_key="task_model_cannot_see",
        translation_placeholders={"model": model},
    )


async def async_user_content(
    hass: HomeAssistant,
    instructions: str,
    attachments: list[conversation.Attachment] | None,
) -> str | list[dict[str, Any]]:
    """The instructions, with each image as a data-URL part after them."""
    if not attachments:
        return instructions
    parts: list[dict[str, Any]] = [{"type": "text", "text": instructions}]
    for attachment in attachments:
        if not attachment.mime_type.startswith("image/"):
            raise HomeAssistantError(
                translation_domain=DOMAIN,
                translation_key="task_attachment_not_image",
                translation_placeholders={"mime_type": attachment.mime_type},
            )
        # HA prepared the file (a media source, a camera snapshot): read it off-loop.
        data = await hass.async_add_executor_job(Path(attachment.path).read_bytes)
        parts.append(image_part(attachment.mime_type, data))
    return parts


def image_part(mime_type: str, data: bytes) -> dict[str, Any]:
    """An image as a content part, its bytes in a data URL."""
    encoded = base64.b64encode(data).decode("ascii")
    return {
        "type": "image_url",
        "image_url": {"url": f"data:{mime_type};base64,{encoded}"},
    }


def downscaled_jpeg(data: bytes, max_side: int, quality: int) -> bytes:
    """The image as a JPEG whose longer side is at most `max_side` pixels.

    Blocking (decoding, encoding): run it in the executor. A model reads a 768-pixel
    picture as well as a 4K one, and the smaller one is sent and read much faster.
    """
    with Image.open(io.BytesIO(data)) as image:
        image.thumbnail((max_side, max_side))
        out = io.BytesIO()
        image.convert("RGB").save(out, format="JPEG", quality=quality)
    return out.getvalue()
