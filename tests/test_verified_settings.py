"""A fan's speed, a player muted, a mower started: done only when the entity shows it.

Home Assistant's "Speed set" and "Muted" came from its intent handler, which reports
success while the service runs on: a fan that kept its speed was told as set, a
player that stayed loud as muted, and a model's "Done." after a speed, a preset or a
mower's start stood unchecked. Now the attribute (or state) each of them sets is
checked like an unlock: HA's words are heard when the entity shows it, and an entity
that did not take it is told as not changed, in the user's language.
"""

import math
from typing import Any

import pytest

from homeassistant.components.fan import FanEntity
from homeassistant.components.fan.const import FanEntityFeature
from homeassistant.components.lawn_mower import LawnMowerEntity
from homeassistant.components.lawn_mower.const import (
    LawnMowerActivity,
    LawnMowerEntityFeature,
)
from homeassistant.components.media_player.const import MediaPlayerState
from homeassistant.core import HomeAssistant
from homeassistant.util.percentage import (
    percentage_to_ranged_value,
    ranged_value_to_percentage,
)

from custom_components.agentic_conversation.config_flow import default_agent_options
from custom_components.agentic_conversation.const import (
    CONF_ALLOWED_SERVICES,
    CONF_LOCAL_FIRST,
    CONF_VERIFY_TIMEOUT,
)
from tests.across_releases import offered_name
from tests.fake_llm import FakeLLM, Reply
from tests.helpers import add_agent, async_test_platforms, converse, speech
from tests.understanding_players import Player

APIS = default_agent_options([])["llm_hass_api"]


class Fan(FanEntity):
    """A fan that runs at the speed it is told, unless it is stuck."""

    _attr_supported_features = (
        FanEntityFeature.SET_SPEED
        | FanEntityFeature.PRESET_MODE
        | FanEntityFeature.TURN_ON
        | FanEntityFeature.TURN_OFF
    )
    _attr_preset_modes = ["auto", "sleep"]

    def __init__(self, name: str, *, speeds: int = 100, stuck: bool = False) -> None:
        """On at a third of its speed; a stuck one keeps it (a cloud that said yes)."""
        self._attr_name = name
        self._attr_unique_id = name.lower().replace(" ", "_")
        self._attr_speed_count = speeds
        self._attr_percentage = 33
        self._attr_preset_mode = None
        self._stuck = stuck

    @property
    def is_on(self) -> bool:
        """On while it turns."""
        return bool(self._attr_percentage)

    async def async_set_percentage(self, percentage: int) -> None:
        """Its speed, rounded up to one of its steps (as most integrations do)."""
        if not self._stuck:
            speeds = (1, self.speed_count)
            speed = math.ceil(percentage_to_ranged_value(speeds, percentage))
            self._attr_percentage = ranged_value_to_percentage(speeds, speed)
        self.async_write_ha_state()

    async def async_set_preset_mode(self, preset_mode: str) -> None:
        """A preset."""
        if not self._stuck:
            self._attr_preset_mode = preset_mode
        self.async_write_ha_state()

    async def async_turn_on(
        self, percentage: int | None = None, preset_mode: str | None = None, **_: Any
    ) -> None:
        """On, at the speed asked for."""
        await self.async_set_percentage(percentage or 100)

    async def async_turn_off(self, **_: Any) -> None:
        """Off."""
        await self.async_set_percentage(0)


class DeafPlayer(Player):
    """A player that answers a mute and stays loud."""

    async def async_mute_volume(self, mute: bool) -> None:
        """Nothing changes."""
        self.async_write_ha_state()


class Mower(LawnMowerEntity):
    """A mower that stays docked."""

    _attr_supported_features = LawnMowerEntityFeature.START_MOWING
    _attr_activity = LawnMowerActivity.DOCKED

    def __init__(self, name: str) -> None:
        """Docked."""
        self._attr_name = name
        self._attr_unique_id = name.lower()

    async def async_start_mowing(self) -> None:
        """It does not leave its dock."""
        self.async_write_ha_state()


DESK, STUCK, STEPS = "fan.desk_fan", "fan.stuck_fan", "fan.step_fan"
LOUNGE, DEN = "media_player.lounge_speaker", "media_player.den_speaker"
MOWER = "lawn_mower.mower"


@pytest.fixture
async def home(ha_core: HomeAssistant) -> HomeAssistant:
    """Three fans (one stuck, one of three speeds), two players, a mower."""
    hass = ha_core
    playing = MediaPlayerState.PLAYING
    platforms: dict[str, list[Any]] = {
        "fan": [
            Fan("Desk fan"),
            Fan("Stuck fan", stuck=True),
            Fan("Step fan", speeds=3),
        ],
        "media_player": [
            Player("Lounge speaker", playing),
            DeafPlayer("Den speaker", playing),
        ],
        "lawn_mower": [Mower("Mower")],
    }
    await async_test_platforms(hass, platforms)
    assert [e.entity_id for es in platforms.values() for e in es] == [
        DESK,
        STUCK,
        STEPS,
        LOUNGE,
        DEN,
        MOWER,
    ]
    return hass


async def _agent(hass: HomeAssistant, server: FakeLLM, **options: Any) -> str:
    return await add_agent(
        hass,
        server,
        apis=APIS,
        background=True,
        **{CONF_ALLOWED_SERVICES: ["fan"], CONF_VERIFY_TIMEOUT: 0.5, **options},
    )


def _attribute(hass: HomeAssistant, entity_id: str, name: str) -> Any:
    state = hass.states.get(entity_id)
    assert state is not None
    return state.attributes.get(name)


@pytest.mark.parametrize(
    ("command", "heard", "fan", "speed"),
    [
        ("set the desk fan to 50%", "Speed set", DESK, 50),
        # three speeds: its second, shown as 66 %, is the 50 % asked
        ("set the step fan to 50%", "Speed set", STEPS, 66),
        # not "Speed set" for a fan still at a third
        ("set the stuck fan to 50%", "Stuck fan did not change: it is still on.", STUCK, 33),
    ],
)  # fmt: skip
async def test_home_assistants_speed_set_only_when_the_fan_shows_it(
    home: HomeAssistant,
    fake_llm: FakeLLM,
    *,
    command: str,
    heard: str,
    fan: str,
    speed: Any,
) -> None:
    """Local first runs HA's intent, no model asked; the fan's speed decides."""
    hass = home
    agent = await _agent(hass, fake_llm, **{CONF_LOCAL_FIRST: True})

    result = await converse(hass, agent, command)

    assert speech(result) == heard
    assert _attribute(hass, fan, "percentage") == speed
    assert fake_llm.requests == []


@pytest.mark.parametrize(
    ("command", "heard", "player", "muted"),
    [
        ("mute the lounge speaker", "Muted", LOUNGE, True),
        ("mute the den speaker", "Den speaker did not change: it is still playing.", DEN, False),
    ],
)  # fmt: skip
async def test_muted_only_when_the_player_shows_it(
    home: HomeAssistant,
    fake_llm: FakeLLM,
    *,
    command: str,
    heard: str,
    player: str,
    muted: bool,
) -> None:
    """HA's "Muted" is heard for a player that went quiet, never for one still loud."""
    hass = home
    agent = await _agent(hass, fake_llm, **{CONF_LOCAL_FIRST: True})

    result = await converse(hass, agent, command)

    assert speech(result) == heard
    assert _attribute(hass, player, "is_volume_muted") is muted


@pytest.mark.parametrize(
    ("language", "heard"),
    [
        ("en", "Stuck fan did not change: it is still on."),
        ("de", "Stuck fan hat sich nicht geändert: es ist immer noch ein."),
        ("fr", "Stuck fan n'a pas changé : il est toujours allumé."),
    ],
)
async def test_the_models_done_for_a_fan_that_kept_its_speed_is_not_said(
    home: HomeAssistant, fake_llm: FakeLLM, *, language: str, heard: str
) -> None:
    """The model sets the speed by intent and says "Done.": the fan's speed is heard."""
    hass = home
    agent = await _agent(hass, fake_llm)
    set_speed = await offered_name(hass, APIS, "HassFanSetSpeed")
    fake_llm.script(
        [
            Reply.tool_calls([(set_speed, {"name": "Stuck fan", "percentage": 80})]),
            Reply.text("Done."),
        ]
    )

    result = await converse(hass, agent, "stuck fan to 80", language=language)

    assert speech(result) == heard
    assert _attribute(hass, STUCK, "percentage") == 33


async def test_a_preset_by_service_is_told_fan_by_fan(
    home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """call_service sets two fans to sleep: the one that shows it is done."""
    hass = home
    agent = await _agent(hass, fake_llm)
    call_service = await offered_name(hass, APIS, "call_service")
    arguments = {
        "domain": "fan",
        "service": "set_preset_mode",
        "target": {"entity_id": [DESK, STUCK]},
        "data": {"preset_mode": "sleep"},
    }
    fake_llm.script(
        [Reply.tool_calls([(call_service, arguments)]), Reply.text("Both are asleep.")]
    )

    result = await converse(hass, agent, "fans to sleep")

    assert speech(result) == (
        "I took care of Desk fan; Stuck fan did not change: it is still on."
    )
    assert _attribute(hass, DESK, "preset_mode") == "sleep"
    assert _attribute(hass, STUCK, "preset_mode") is None


@pytest.mark.parametrize(
    ("language", "heard"),
    [
        ("en", "Mower did not change: it is still docked."),
        ("de", "Mower hat sich nicht geändert: es ist immer noch angedockt."),
        ("fr", "Mower n'a pas changé : il est toujours sur la base."),
    ],
)
async def test_a_mower_that_stays_docked_is_not_said_to_mow(
    home: HomeAssistant, fake_llm: FakeLLM, *, language: str, heard: str
) -> None:
    """The model starts the mower by intent; it stays on its dock."""
    hass = home
    agent = await _agent(hass, fake_llm)
    start = await offered_name(hass, APIS, "HassLawnMowerStartMowing")
    fake_llm.script(
        [
            Reply.tool_calls([(start, {"name": "Mower"})]),
            Reply.text("The mower is on its way."),
        ]
    )

    result = await converse(hass, agent, "mow the lawn", language=language)

    assert speech(result) == heard
    state = hass.states.get(MOWER)
    assert state is not None and state.state == "docked"
