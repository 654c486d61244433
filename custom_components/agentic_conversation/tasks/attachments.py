"""A task's attachments as OpenAI-compatible content parts (images, base64)."""

import base64
from pathlib import Path
from typing import Any

from homeassistant.components import conversation
from homeassistant.core import HomeAssistant
from homeassistant.exceptions import HomeAssistantError

from ..const import DOMAIN


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
        encoded = base64.b64encode(data).decode("ascii")
        parts.append(
            {
                "type": "image_url",
                "image_url": {"url": f"data:{attachment.mime_type};base64,{encoded}"},
            }
        )
    return parts
