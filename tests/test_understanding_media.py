"""The home's only media player by what it plays: "pause the music", "stop the music".

"Music", like "TV" and "speaker", fits every media player, so alone it names none;
where the home exposes just one, "the music" is that one. "Stop" a player is HA's
pause, "resume playing" its unpause, and "mute" runs HA's own mute: no model asked,
and a second player makes "the music" the model's again.

"TV" names the players whose device class is TV ("the TV" with one TV and a
speaker is the TV), in the user's language; "the TVs" are all of them. Italian
"spegni la tv" turns it off, though HA's Italian data reads "spegni" as mute too.

"Outside" names no area: "the music outside" is the one player whose name or area is
out of doors; none or two there, or other words, are the model's.
"""

from typing import Any

import pytest

from homeassistant.components import conversation
from homeassistant.components.media_player.const import (
    MediaPlayerDeviceClass,
    MediaPlayerEntityFeature,
    MediaPlayerState,
)
from homeassistant.core import HomeAssistant

from custom_components.agentic_conversation.const import CONF_LOCAL_FIRST
from tests.fake_llm import FakeLLM, Reply
from tests.helpers import add_agent, converse, speech
from tests.understanding_players import ALL_BUT_POWER, Player, async_build_players

pytestmark = pytest.mark.usefixtures("no_retry_wait")


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
    player = Player("Outdoor Speakers", state)
    await async_build_players(hass, player)
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


@pytest.mark.parametrize(
    ("text", "heard"),
    [
        ("pause the music", "The model answered."),
        ("stop the music", "The model answered."),
        # no device is a TV: the model did nothing, HA's words (test_unplaced_commands)
        ("pause the tv", "Sorry, I am not aware of any device called tv"),
    ],
)
async def test_two_players_or_the_wrong_word_left_unrun(
    ha_core: HomeAssistant, fake_llm: FakeLLM, local: str, *, text: str, heard: str
) -> None:
    """Two players: 'the music' is either; 'the TV' is not the one speaker."""
    hass = ha_core
    players = [Player("Outdoor Speakers", MediaPlayerState.PLAYING)]
    if "music" in text:
        players.append(Player("Kitchen Radio", MediaPlayerState.PLAYING))
    await async_build_players(hass, *players)
    fake_llm.script([Reply.text("The model answered.")])

    result = await converse(hass, local, text)

    assert speech(result) == heard
    assert [p.state for p in players] == [MediaPlayerState.PLAYING] * len(players)


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
    out = Player(outdoor, MediaPlayerState.PLAYING)
    kitchen = Player("Kitchen Radio", MediaPlayerState.PLAYING)
    await async_build_players(hass, out, kitchen)
    ha = await converse(
        hass, conversation.HOME_ASSISTANT_AGENT, text, language=language
    )
    assert ha.response.response_type.value == "error", speech(ha)

    result = await converse(hass, local, text, language=language)

    assert speech(result) == spoken
    assert [out.state, kitchen.state] == ["paused", "playing"]
    assert fake_llm.requests == []


@pytest.mark.parametrize(
    ("names", "text"),
    [
        (["Kitchen Radio"], "pause the music outside"),
        (["Outdoor Speakers", "Garden speaker"], "pause the music outside"),
        (["Outdoor Speakers", "Kitchen Radio"], "pause the music out there"),
        (["Outdoor Speakers", "Kitchen Radio"], "pause the music in the garden"),
    ],
)
async def test_no_one_player_outside_left_unrun(
    ha_core: HomeAssistant, fake_llm: FakeLLM, local: str, names: list[str], text: str
) -> None:
    """None out of doors, two there, or words not for it: the model's."""
    hass = ha_core
    players = [Player(name, MediaPlayerState.PLAYING) for name in names]
    await async_build_players(hass, *players)
    fake_llm.script([Reply.text("The model answered.")])

    result = await converse(hass, local, text)

    assert speech(result) == "The model answered."
    assert [p.state for p in players] == ["playing"] * len(players)


TV, SPEAKER = MediaPlayerDeviceClass.TV, MediaPlayerDeviceClass.SPEAKER


@pytest.mark.parametrize(
    ("language", "text", "spoken", "after"),
    [
        ("en", "pause the tv", "Paused", "paused"),
        ("de", "pausiere den Fernseher", "Pausiert", "paused"),
        ("es", "pausa la tele", "Reproducción en pausa", "paused"),
        ("it", "metti in pausa la tv", "Messo in pausa", "paused"),
        ("en", "turn off the tv", "Turned off the media player", "off"),
        # HA's Italian data reads "spegni" as mute too: it is off, never muted
        ("it", "spegni la tv", "Ho spento Lounge", "off"),
        ("it", "spegni il televisore", "Ho spento Lounge", "off"),
        ("fr", "éteins la télé", "Éteint", "off"),
    ],
)
async def test_the_tv_is_the_player_whose_class_is_tv(
    ha_core: HomeAssistant,
    fake_llm: FakeLLM,
    local: str,
    *,
    language: str,
    text: str,
    spoken: str,
    after: str,
) -> None:
    """A TV not called so and a speaker: "the TV" is the TV; the speaker plays on."""
    hass = ha_core
    power = ALL_BUT_POWER | MediaPlayerEntityFeature.TURN_OFF
    lounge = Player("Lounge", MediaPlayerState.PLAYING, power, TV)
    radio = Player("Kitchen Radio", MediaPlayerState.PLAYING, power, SPEAKER)
    await async_build_players(hass, lounge, radio)
    ha = await converse(
        hass, conversation.HOME_ASSISTANT_AGENT, text, language=language
    )
    assert ha.response.response_type.value == "error", speech(ha)

    result = await converse(hass, local, text, language=language)

    assert speech(result) == spoken
    assert [lounge.state, radio.state] == [after, "playing"]
    assert not lounge.is_volume_muted
    assert fake_llm.requests == []


async def test_two_tvs_the_tv_asked_the_tvs_both(
    ha_core: HomeAssistant, fake_llm: FakeLLM, local: str
) -> None:
    """Of two TVs "the TV" is asked; "the TVs" pauses both, never the speaker."""
    hass = ha_core
    lounge = Player("Lounge", MediaPlayerState.PLAYING, device_class=TV)
    den = Player("Den", MediaPlayerState.PLAYING, device_class=TV)
    radio = Player("Kitchen Radio", MediaPlayerState.PLAYING, device_class=SPEAKER)
    await async_build_players(hass, lounge, den, radio)

    asked = await converse(hass, local, "pause the tv")

    assert speech(asked) == "Den or Lounge?"
    assert [lounge.state, den.state, radio.state] == ["playing"] * 3

    both = await converse(hass, local, "pause the tvs")

    assert speech(both) == "Paused"
    assert [lounge.state, den.state, radio.state] == ["paused", "paused", "playing"]
    assert fake_llm.requests == []
