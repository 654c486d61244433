"""A command that names no player: "next song", "turn the volume down to 50%".

Home Assistant reads these for the satellite's area only; ours runs HA's next,
previous or volume on the one player that can do it, or the only one of those
playing — never one of two that play, one without the feature, a player elsewhere
when the satellite's area has one, or on words that are not these ("next door").
"""

from typing import Any

import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry

from homeassistant.components import conversation
from homeassistant.components.media_player.const import (
    MediaPlayerEntityFeature,
    MediaPlayerState,
)
from homeassistant.core import Context, HomeAssistant
from homeassistant.helpers import (
    area_registry as ar,
    device_registry as dr,
    entity_registry as er,
)

from custom_components.agentic_conversation.const import CONF_LOCAL_FIRST
from tests.fake_llm import FakeLLM, Reply
from tests.helpers import add_agent, converse, speech
from tests.understanding_players import Player, async_build_players, heard

pytestmark = pytest.mark.usefixtures("no_retry_wait")


@pytest.fixture
async def local(ha_core: HomeAssistant, fake_llm: FakeLLM) -> str:
    """An agent with local first on; the model must not be asked."""
    options: dict[str, Any] = {CONF_LOCAL_FIRST: True}
    return await add_agent(ha_core, fake_llm, **options)


# A next or previous track shows in no state: the house says the command was sent.
_SENT = {
    "en": "I sent the command to Outdoor Speakers.",
    "de": "Ich habe den Befehl an Outdoor Speakers gesendet.",
    "fr": "J'ai envoyé la commande à Outdoor Speakers.",
    "es": "He enviado la orden a Outdoor Speakers.",
    "nl": "Ik heb de opdracht naar Outdoor Speakers gestuurd.",
    "it": "Ho inviato il comando a Outdoor Speakers.",
}


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
    player = Player("Outdoor Speakers", MediaPlayerState.PLAYING)
    await async_build_players(hass, player)
    ha = await converse(
        hass, conversation.HOME_ASSISTANT_AGENT, text, language=language
    )
    assert ha.response.response_type.value == "error", speech(ha)
    assert heard(hass, player) == ("playing", 5, 0.8)

    result = await converse(hass, local, text, language=language)

    assert speech(result) == spoken
    assert heard(hass, player) == ("playing", track, volume)
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
    playing = Player("Outdoor Speakers", MediaPlayerState.PLAYING)
    paused = Player("Kitchen Radio", MediaPlayerState.PAUSED)
    await async_build_players(hass, playing, paused)

    result = await converse(hass, local, text, language=language)

    assert speech(result) == {"fr": "Volume réglé"}.get(language, _SENT[language])
    assert heard(hass, playing) == after
    assert heard(hass, paused) == ("paused", 5, 0.8)
    assert fake_llm.requests == []


_EITHER = ["next song", "turn the volume down to 50%"]
_NEITHER = [
    "next door",
    "skip the lights",
    "set the volume to 150%",
    "turn the volume down to 50% in here",
]
# A home of players has no such device: the model did nothing, HA's words are said.
_NO_SUCH = {
    "next door": "Sorry, I am not aware of any device called door",
    "skip the lights": "Sorry, I am not aware of any device called lights",
}


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
    players = [Player("Outdoor Speakers", MediaPlayerState.PLAYING)]
    if home == "two playing":
        players.append(Player("Kitchen Radio", MediaPlayerState.PLAYING))
    elif home == "one without the feature":
        players = [
            Player(
                "Outdoor Speakers",
                MediaPlayerState.PLAYING,
                MediaPlayerEntityFeature.PLAY | MediaPlayerEntityFeature.PAUSE,
            )
        ]
    await async_build_players(hass, *players)
    fake_llm.script([Reply.text("The model answered.")])

    result = await converse(hass, local, text)

    assert speech(result) == _NO_SUCH.get(text, "The model answered.")
    for player in players:
        current = hass.states.get(player.entity_id or "")
        assert current is not None
        assert current.state == "playing"
        assert current.attributes.get("media_track", 5) == 5
        assert current.attributes.get("volume_level", 0.8) == 0.8


async def test_the_satellites_area_first(
    ha_core: HomeAssistant, fake_llm: FakeLLM, local: str
) -> None:
    """Said in the kitchen, 'next song' is the kitchen radio's, though it is paused.

    Home Assistant reads it for the kitchen's player and fails (it is not playing);
    the player playing outside is not skipped instead.
    """
    hass = ha_core
    kitchen = Player("Kitchen Radio", MediaPlayerState.PAUSED)
    outside = Player("Outdoor Speakers", MediaPlayerState.PLAYING)
    await async_build_players(hass, kitchen, outside)
    area = ar.async_get(hass).async_create("Kitchen")
    er.async_get(hass).async_update_entity(kitchen.entity_id or "", area_id=area.id)
    entry = MockConfigEntry(domain="test")
    entry.add_to_hass(hass)
    devices = dr.async_get(hass)
    satellite = devices.async_get_or_create(
        config_entry_id=entry.entry_id, identifiers={("test", "kitchen-satellite")}
    )
    devices.async_update_device(satellite.id, area_id=area.id)
    fake_llm.script([Reply.text("The model answered.")])

    result = await conversation.async_converse(
        hass,
        "next song",
        None,
        Context(),
        language="en",
        agent_id=local,
        device_id=satellite.id,
    )

    assert speech(result) == "The model answered."
    assert heard(hass, kitchen) == ("paused", 5, 0.8)
    assert heard(hass, outside) == ("playing", 5, 0.8)
