"""The home's only media player by what it plays: "pause the music", "stop the music".

"Music", like "TV" and "speaker", fits every media player, so alone it names none;
where the home exposes just one, "the music" is that one. "Stop" a player is HA's
pause, "resume playing" its unpause, and "mute" runs HA's own mute: no model asked,
and a second player makes "the music" the model's again.
"""

from typing import Any

import pytest
from pytest_homeassistant_custom_component.common import setup_test_component_platform

from homeassistant.components import conversation
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.components.media_player import MediaPlayerEntity
from homeassistant.components.media_player.const import (
    MediaPlayerEntityFeature,
    MediaPlayerState,
)
from homeassistant.core import HomeAssistant
from homeassistant.setup import async_setup_component

from custom_components.agentic_conversation.const import CONF_LOCAL_FIRST
from tests.fake_llm import FakeLLM, Reply
from tests.helpers import add_agent, converse, speech

pytestmark = pytest.mark.usefixtures("no_retry_wait")


class _Player(MediaPlayerEntity):
    """A player that plays, pauses and mutes when told."""

    _attr_supported_features = (
        MediaPlayerEntityFeature.PLAY
        | MediaPlayerEntityFeature.PAUSE
        | MediaPlayerEntityFeature.VOLUME_MUTE
        | MediaPlayerEntityFeature.VOLUME_SET
    )

    def __init__(self, name: str, state: MediaPlayerState) -> None:
        self._attr_name = name
        self._attr_unique_id = name.lower().replace(" ", "_")
        self._attr_state = state
        self._attr_is_volume_muted = False

    async def async_media_pause(self) -> None:
        self._attr_state = MediaPlayerState.PAUSED
        self.async_write_ha_state()

    async def async_media_play(self) -> None:
        self._attr_state = MediaPlayerState.PLAYING
        self.async_write_ha_state()

    async def async_mute_volume(self, mute: bool) -> None:
        self._attr_is_volume_muted = mute
        self.async_write_ha_state()


async def _home(hass: HomeAssistant, *players: _Player) -> None:
    setup_test_component_platform(hass, "media_player", list(players))
    for component in ("homeassistant", "intent", "conversation"):
        assert await async_setup_component(hass, component, {})
    assert await async_setup_component(
        hass, "media_player", {"media_player": {"platform": "test"}}
    )
    await hass.async_block_till_done()
    for player in players:
        assert player.entity_id is not None
        async_expose_entity(hass, conversation.DOMAIN, player.entity_id, True)


@pytest.fixture
async def local(ha_core: HomeAssistant, fake_llm: FakeLLM) -> str:
    """An agent with local first on; the model must not be asked."""
    options: dict[str, Any] = {CONF_LOCAL_FIRST: True}
    return await add_agent(ha_core, fake_llm, **options)


@pytest.mark.parametrize(
    ("text", "state", "spoken", "after", "muted"),
    [
        ("pause the music", MediaPlayerState.PLAYING, "Paused", "paused", False),
        ("stop the music", MediaPlayerState.PLAYING, "Paused", "paused", False),
        ("stop the outdoor speakers", MediaPlayerState.PLAYING, "Paused", "paused", False),
        ("resume playing the music", MediaPlayerState.PAUSED, "Resumed", "playing", False),
        ("mute the music", MediaPlayerState.PLAYING, "Muted", "playing", True),
    ],
)  # fmt: skip
async def test_the_only_player(
    ha_core: HomeAssistant,
    fake_llm: FakeLLM,
    local: str,
    *,
    text: str,
    state: MediaPlayerState,
    spoken: str,
    after: str,
    muted: bool,
) -> None:
    """HA's agent fails; ours runs HA's intent on the one player, no model asked."""
    hass = ha_core
    player = _Player("Outdoor Speakers", state)
    await _home(hass, player)
    ha = await converse(hass, conversation.HOME_ASSISTANT_AGENT, text)
    assert ha.response.response_type.value == "error", speech(ha)
    assert player.state == state

    result = await converse(hass, local, text)

    assert speech(result) == spoken
    current = hass.states.get(player.entity_id or "")
    assert current is not None
    assert current.state == after
    assert bool(current.attributes.get("is_volume_muted")) is muted
    assert fake_llm.requests == []


@pytest.mark.parametrize("text", ["pause the music", "stop the music", "pause the tv"])
async def test_two_players_or_the_wrong_word_left_unrun(
    ha_core: HomeAssistant, fake_llm: FakeLLM, local: str, text: str
) -> None:
    """Two players: 'the music' is either; 'the TV' is not the one speaker."""
    hass = ha_core
    players = [_Player("Outdoor Speakers", MediaPlayerState.PLAYING)]
    if "music" in text:
        players.append(_Player("Kitchen Radio", MediaPlayerState.PLAYING))
    await _home(hass, *players)
    fake_llm.script([Reply.text("The model answered.")])

    result = await converse(hass, local, text)

    assert speech(result) == "The model answered."
    assert [p.state for p in players] == [MediaPlayerState.PLAYING] * len(players)
