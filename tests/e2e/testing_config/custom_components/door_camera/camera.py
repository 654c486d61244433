"""camera.front_door: its snapshot is always the same bytes."""

from typing import Any

from homeassistant.components.camera import Camera
from homeassistant.core import HomeAssistant
from homeassistant.helpers.entity_platform import AddEntitiesCallback

SNAPSHOT = b"\xff\xd8\xff\xe0 the front door, a postman with a parcel"


async def async_setup_platform(
    hass: HomeAssistant,
    config: Any,
    async_add_entities: AddEntitiesCallback,
    discovery_info: Any = None,
) -> None:
    """Add the front door camera."""
    async_add_entities([FrontDoorCamera()])


class FrontDoorCamera(Camera):
    """A camera with a fixed JPEG snapshot."""

    _attr_name = "Front door"

    def __init__(self) -> None:
        """A JPEG camera."""
        super().__init__()
        self.content_type = "image/jpeg"

    async def async_camera_image(
        self, width: int | None = None, height: int | None = None
    ) -> bytes:
        """The snapshot."""
        return SNAPSHOT
