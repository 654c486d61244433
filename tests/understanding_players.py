"""Media players for tests of our understanding: they do at once what they are told."""

from homeassistant.components.media_player import MediaPlayerEntity
from homeassistant.components.media_player.const import (
    MediaPlayerDeviceClass,
    MediaPlayerEntityFeature,
    MediaPlayerState,
)
from homeassistant.core import HomeAssistant

from tests.helpers import async_test_platforms

ALL_BUT_POWER = (
    MediaPlayerEntityFeature.PLAY
    | MediaPlayerEntityFeature.PAUSE
    | MediaPlayerEntityFeature.VOLUME_MUTE
    | MediaPlayerEntityFeature.VOLUME_SET
    | MediaPlayerEntityFeature.NEXT_TRACK
    | MediaPlayerEntityFeature.PREVIOUS_TRACK
)


class Player(MediaPlayerEntity):
    """A player that plays, pauses, mutes, skips and sets its volume when told."""

    _attr_supported_features = ALL_BUT_POWER

    def __init__(
        self,
        name: str,
        state: MediaPlayerState,
        features: MediaPlayerEntityFeature | None = None,
        device_class: MediaPlayerDeviceClass | None = None,
    ) -> None:
        """A player called `name`, in this state; all features unless told."""
        self._attr_device_class = device_class
        self._attr_name = name
        self._attr_unique_id = name.lower().replace(" ", "_")
        self._attr_state = state
        self._attr_is_volume_muted = False
        self._attr_volume_level = 0.8
        self._attr_media_track = 5
        if features is not None:
            self._attr_supported_features = features

    async def async_turn_off(self) -> None:
        """Off (where its features say it can be)."""
        self._attr_state = MediaPlayerState.OFF
        self.async_write_ha_state()

    async def async_media_pause(self) -> None:
        """Pause."""
        self._attr_state = MediaPlayerState.PAUSED
        self.async_write_ha_state()

    async def async_media_play(self) -> None:
        """Play."""
        self._attr_state = MediaPlayerState.PLAYING
        self.async_write_ha_state()

    async def async_mute_volume(self, mute: bool) -> None:
        """Mute or unmute."""
        self._attr_is_volume_muted = mute
        self.async_write_ha_state()

    async def async_set_volume_level(self, volume: float) -> None:
        """Set the volume (0 to 1)."""
        self._attr_volume_level = volume
        self.async_write_ha_state()

    async def async_media_next_track(self) -> None:
        """The next track."""
        self._attr_media_track = (self._attr_media_track or 0) + 1
        self.async_write_ha_state()

    async def async_media_previous_track(self) -> None:
        """The previous track."""
        self._attr_media_track = (self._attr_media_track or 0) - 1
        self.async_write_ha_state()


async def async_build_players(hass: HomeAssistant, *players: Player) -> None:
    """A home of these players, exposed."""
    await async_test_platforms(hass, {"media_player": list(players)})


def heard(hass: HomeAssistant, player: Player) -> tuple[str, int, float]:
    """The player's state, track and volume as the house shows them."""
    current = hass.states.get(player.entity_id or "")
    assert current is not None
    return (
        current.state,
        int(current.attributes["media_track"]),
        float(current.attributes["volume_level"]),
    )
