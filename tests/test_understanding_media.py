"""The home's only media player by what it plays: "pause the music", "stop the music".

"Music", like "TV" and "speaker", fits every media player, so alone it names none;
where the home exposes just one, "the music" is that one. "Stop" a player is HA's
pause, "resume playing" its unpause, and "mute" runs HA's own mute: no model asked,
and a second player makes "the music" the model's again.

A command that names no player at all ("next song", "turn the volume down to 50%")
is HA's for the satellite's area only; ours runs HA's next, previous or volume on the
one player that can do it, or the only one of those playing — never one of two that
play, one without the feature, or on words that are not these ("next door").
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
    """A player that plays, pauses, mutes, skips and sets its volume when told."""

    _attr_supported_features = (
        MediaPlayerEntityFeature.PLAY
        | MediaPlayerEntityFeature.PAUSE
        | MediaPlayerEntityFeature.VOLUME_MUTE
        | MediaPlayerEntityFeature.VOLUME_SET
        | MediaPlayerEntityFeature.NEXT_TRACK
        | MediaPlayerEntityFeature.PREVIOUS_TRACK
    )

    def __init__(
        self,
        name: str,
        state: MediaPlayerState,
        features: MediaPlayerEntityFeature | None = None,
    ) -> None:
        self._attr_name = name
        self._attr_unique_id = name.lower().replace(" ", "_")
        self._attr_state = state
        self._attr_is_volume_muted = False
        self._attr_volume_level = 0.8
        self._attr_media_track = 5
        if features is not None:
            self._attr_supported_features = features

    async def async_media_pause(self) -> None:
        self._attr_state = MediaPlayerState.PAUSED
        self.async_write_ha_state()

    async def async_media_play(self) -> None:
        self._attr_state = MediaPlayerState.PLAYING
        self.async_write_ha_state()

    async def async_mute_volume(self, mute: bool) -> None:
        self._attr_is_volume_muted = mute
        self.async_write_ha_state()

    async def async_set_volume_level(self, volume: float) -> None:
        self._attr_volume_level = volume
        self.async_write_ha_state()

    async def async_media_next_track(self) -> None:
        self._attr_media_track = (self._attr_media_track or 0) + 1
        self.async_write_ha_state()

    async def async_media_previous_track(self) -> None:
        self._attr_media_track = (self._attr_media_track or 0) - 1
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


# A next or previous track shows in no state: the house says the command was sent.
_SENT = {
    "en": "I sent the command to Outdoor Speakers.",
    "de": "Ich habe den Befehl an Outdoor Speakers gesendet.",
    "fr": "J'ai envoyé la commande à Outdoor Speakers.",
    "es": "He enviado la orden a Outdoor Speakers.",
    "nl": "Ik heb de opdracht naar Outdoor Speakers gestuurd.",
    "it": "Ho inviato il comando a Outdoor Speakers.",
}


def _heard(hass: HomeAssistant, player: _Player) -> tuple[str, int, float]:
    """The player's state, track and volume as the house shows them."""
    current = hass.states.get(player.entity_id or "")
    assert current is not None
    return (
        current.state,
        int(current.attributes["media_track"]),
        float(current.attributes["volume_level"]),
    )


@pytest.mark.parametrize(
    ("language", "text", "spoken", "track", "volume"),
    [
        ("en", "next song", _SENT["en"], 6, 0.8),
        ("en", "skip to the next track", _SENT["en"], 6, 0.8),
        ("en", "previous track", _SENT["en"], 4, 0.8),
        ("en", "turn the volume down to 50%", "Volume set", 5, 0.5),
        ("en", "set the volume to thirty percent", "Volume set", 5, 0.3),
        ("de", "nächstes Lied", _SENT["de"], 6, 0.8),
        ("de", "stelle die Lautstärke auf 30 Prozent", "Lautstärke festgelegt", 5, 0.3),
        ("fr", "chanson suivante", _SENT["fr"], 6, 0.8),
        ("fr", "mets le volume à 30 %", "Volume réglé", 5, 0.3),
        ("es", "siguiente canción", _SENT["es"], 6, 0.8),
        ("es", "pon el volumen al 30%", "Volumen establecido", 5, 0.3),
        ("nl", "volgende nummer", _SENT["nl"], 6, 0.8),
        ("it", "prossima canzone", _SENT["it"], 6, 0.8),
        ("it", "imposta il volume al 30%", "Volume impostato", 5, 0.3),
    ],
)  # fmt: skip
async def test_no_player_named_means_the_only_one(
    ha_core: HomeAssistant,
    fake_llm: FakeLLM,
    local: str,
    *,
    language: str,
    text: str,
    spoken: str,
    track: int,
    volume: float,
) -> None:
    """HA's agent fails without a satellite's area; ours runs HA's intent on the one."""
    hass = ha_core
    player = _Player("Outdoor Speakers", MediaPlayerState.PLAYING)
    await _home(hass, player)
    ha = await converse(
        hass, conversation.HOME_ASSISTANT_AGENT, text, language=language
    )
    assert ha.response.response_type.value == "error", speech(ha)
    assert _heard(hass, player) == ("playing", 5, 0.8)

    result = await converse(hass, local, text, language=language)

    assert speech(result) == spoken
    assert _heard(hass, player) == ("playing", track, volume)
    assert fake_llm.requests == []


@pytest.mark.parametrize(
    ("language", "text", "after"),
    [
        ("en", "next song", ("playing", 6, 0.8)),
        ("de", "nächstes Lied", ("playing", 6, 0.8)),
        ("fr", "mets le volume à 30 %", ("playing", 5, 0.3)),
    ],
)
async def test_the_one_playing_of_two(
    ha_core: HomeAssistant,
    fake_llm: FakeLLM,
    local: str,
    *,
    language: str,
    text: str,
    after: tuple[str, int, float],
) -> None:
    """Of two players, the one playing is meant; the paused one is left alone."""
    hass = ha_core
    playing = _Player("Outdoor Speakers", MediaPlayerState.PLAYING)
    paused = _Player("Kitchen Radio", MediaPlayerState.PAUSED)
    await _home(hass, playing, paused)

    result = await converse(hass, local, text, language=language)

    assert speech(result) == {"fr": "Volume réglé"}.get(language, _SENT[language])
    assert _heard(hass, playing) == after
    assert _heard(hass, paused) == ("paused", 5, 0.8)
    assert fake_llm.requests == []


_EITHER = ["next song", "turn the volume down to 50%"]
_NEITHER = [
    "next door",
    "skip the lights",
    "set the volume to 150%",
    "turn the volume down to 50% in here",
]


@pytest.mark.parametrize(
    ("home", "text"),
    [("two playing", text) for text in _EITHER + _NEITHER]
    + [("one without the feature", text) for text in _EITHER + _NEITHER]
    + [("one", text) for text in _NEITHER],
)
async def test_not_sure_left_unrun(
    ha_core: HomeAssistant, fake_llm: FakeLLM, local: str, home: str, text: str
) -> None:
    """Two playing, a player that cannot, or other words: the model's, nothing runs."""
    hass = ha_core
    players = [_Player("Outdoor Speakers", MediaPlayerState.PLAYING)]
    if home == "two playing":
        players.append(_Player("Kitchen Radio", MediaPlayerState.PLAYING))
    elif home == "one without the feature":
        players = [
            _Player(
                "Outdoor Speakers",
                MediaPlayerState.PLAYING,
                MediaPlayerEntityFeature.PLAY | MediaPlayerEntityFeature.PAUSE,
            )
        ]
    await _home(hass, *players)
    fake_llm.script([Reply.text("The model answered.")])

    result = await converse(hass, local, text)

    assert speech(result) == "The model answered."
    for player in players:
        current = hass.states.get(player.entity_id or "")
        assert current is not None
        assert current.state == "playing"
        assert current.attributes.get("media_track", 5) == 5
        assert current.attributes.get("volume_level", 0.8) == 0.8


@pytest.mark.parametrize(
    ("language", "text", "outdoor", "spoken"),
    [
        ("en", "pause the music outside", "Outdoor Speakers", "Paused"),
        ("de", "pausiere die Musik draußen", "Gartenlautsprecher", "Pausiert"),
        ("es", "pausa la música fuera", "Altavoz terraza", "Reproducción en pausa"),
        ("nl", "pauzeer de muziek buiten", "Tuin speaker", "Gepauzeerd"),
        ("it", "metti in pausa la musica fuori", "Casse giardino", "Messo in pausa"),
    ],
)
async def test_the_music_outside_is_the_player_out_of_doors(
    ha_core: HomeAssistant,
    fake_llm: FakeLLM,
    local: str,
    *,
    language: str,
    text: str,
    outdoor: str,
    spoken: str,
) -> None:
    """'Outside' is no area: of two players, the one called after a place outdoors."""
    hass = ha_core
    out = _Player(outdoor, MediaPlayerState.PLAYING)
    kitchen = _Player("Kitchen Radio", MediaPlayerState.PLAYING)
    await _home(hass, out, kitchen)
    ha = await converse(
        hass, conversation.HOME_ASSISTANT_AGENT, text, language=language
    )
    assert ha.response.response_type.value == "error", speech(ha)

    result = await converse(hass, local, text, language=language)

    assert speech(result) == spoken
    assert [out.state, kitchen.state] == ["paused", "playing"]
    assert fake_llm.requests == []


@pytest.mark.parametrize(
    "names", [["Kitchen Radio"], ["Outdoor Speakers", "Garden speaker"]]
)
async def test_no_one_player_outside_left_unrun(
    ha_core: HomeAssistant, fake_llm: FakeLLM, local: str, names: list[str]
) -> None:
    """None out of doors, or two there: 'the music outside' is the model's."""
    hass = ha_core
    players = [_Player(name, MediaPlayerState.PLAYING) for name in names]
    await _home(hass, *players)
    fake_llm.script([Reply.text("The model answered.")])

    result = await converse(hass, local, "pause the music outside")

    assert speech(result) == "The model answered."
    assert [p.state for p in players] == ["playing"] * len(players)
