"""`look_at_camera`: a snapshot of an exposed camera, shown to the model in this turn.

The picture goes to the model once, in the request after this tool's result; the
result itself, and so the chat log and every store, holds only a line naming it.
"""

from typing import Any

import probatio

from homeassistant.components import camera
from homeassistant.core import HomeAssistant
from homeassistant.exceptions import HomeAssistantError
from homeassistant.helpers import llm
from homeassistant.util import dt as dt_util

from ..agent.describer import DescriberError
from ..const import DOMAIN, LOGGER, TOOL_LOOK_AT_CAMERA
from ..tasks.attachments import downscaled_jpeg, image_part
from ..tool_options import Snapshot, describer_of, snapshots_of, tool_options_of
from .camera_match import cameras_meant
from .entities import EntityInfo, exposed_entities, is_exposed
from .errors import refuse

# Seconds a camera gets to give a picture: within the tool's and the turn's deadline.
SNAPSHOT_TIMEOUT = 5
CAMERA = "camera"
NAME_CHARS = 80


def exposed_cameras(hass: HomeAssistant) -> list[EntityInfo]:
    """The cameras exposed to Assist."""
    return [entity for entity in exposed_entities(hass) if entity.domain == "camera"]


def any_camera_exposed(hass: HomeAssistant) -> bool:
    """Whether at least one camera is exposed to Assist (cheap: cameras only)."""
    return any(
        is_exposed(hass, state.entity_id) for state in hass.states.async_all(CAMERA)
    )


class LookAtCameraTool(llm.Tool):
    """Take a snapshot of an exposed camera; the model sees it next."""

    name = TOOL_LOOK_AT_CAMERA
    description = (
        "Look through a camera now: you get its current picture to answer what the "
        "user asked ('is anyone at the front door?'). camera: its name or area, "
        "e.g. 'front door', 'driveway'."
    )
    parameters = probatio.Schema({probatio.Optional("camera", default=""): str})
    annotations = llm.ToolAnnotations(
        read_only=True, destructive=False, idempotent=False, open_world=False
    )
    integration = DOMAIN

    async def async_call(
        self,
        hass: HomeAssistant,
        tool_input: llm.ToolInput,
        llm_context: llm.LLMContext,
    ) -> llm.ToolResult:
        """Snapshot the camera meant, downscaled, for the model's next request."""
        started = hass.loop.time()
        snapshots = snapshots_of(llm_context)
        if snapshots is None:  # not our agent's turn: nobody would show the picture
            return refuse("Only an Agentic Conversation agent can look at cameras.")
        args = self.parameters(tool_input.tool_args)
        # Quoted back in errors: a model's 10 MB "name" is cut, not echoed.
        wanted = str(args["camera"]).strip()[:NAME_CHARS]
        cameras = exposed_cameras(hass)
        names = [entity.name for entity in cameras]
        # Hidden cameras are not among them: one is refused like a missing one.
        meant = cameras_meant(cameras, wanted)
        matches = meant.cameras
        if meant.generic:
            return refuse(
                f"{wanted!r} does not say which camera.",
                cameras=names,
                hint=(
                    "Call again with the name of the camera the user asked about,"
                    " or ask the user which one."
                ),
            )
        if not matches:
            return refuse(
                f"No camera called {wanted!r}.",
                cameras=names,
                hint="Tell the user there is no such camera; these are the cameras.",
            )
        if len(matches) > 1:
            return refuse(
                f"{wanted!r} could be several cameras.",
                cameras=[entity.name for entity in matches],
                hint="Ask the user which one, or call again with its name.",
            )
        chosen = matches[0]
        options = tool_options_of(llm_context)
        try:
            image = await camera.async_get_image(
                hass, chosen.entity_id, timeout=SNAPSHOT_TIMEOUT
            )
            # What a model needs to tell who is at a door (768 pixels by default);
            # a 4K frame is 20 times the bytes, and as many seconds to send and read.
            data = await hass.async_add_executor_job(
                downscaled_jpeg,
                image.content,
                options.camera_image_size,
                options.camera_image_quality,
            )
        except (HomeAssistantError, OSError, ValueError) as err:
            LOGGER.info("No picture from %s: %s", chosen.entity_id, err)
            return refuse(
                f"{chosen.name} gave no picture: it may be off or unreachable.",
                hint="Tell the user the camera did not answer.",
            )
        label = f"[image from {chosen.name}, {dt_util.now():%H:%M}]"
        part = image_part("image/jpeg", data)
        describer = describer_of(llm_context)
        if options.sees_images is False and describer is not None:
            # The agent's model cannot see: it reads another model's description.
            try:
                # Its own error, a second or a tenth before the tool's deadline cuts
                # it off: a busy home still hears why rather than a bare timeout.
                margin = max(1.0, describer.timeout / 10)
                left = describer.timeout - (hass.loop.time() - started) - margin
                description = await describer.async_describe(chosen.name, part, left)
            except DescriberError as err:
                LOGGER.info("%s gave no description: %s", describer.model, err)
                return refuse(
                    f"The picture from {chosen.name} could not be described ({err}).",
                    hint="Tell the user the camera picture could not be looked at.",
                )
            return llm.ToolResult(
                data={
                    "camera": chosen.name,
                    "image": label,
                    "description": description,
                    "note": "Answer the user from this description of the picture.",
                }
            )
        snapshots.append(Snapshot(label, part))
        result: dict[str, Any] = {
            "camera": chosen.name,
            "image": label,
            "note": "The picture follows; answer the user from what you see.",
        }
        return llm.ToolResult(data=result)
