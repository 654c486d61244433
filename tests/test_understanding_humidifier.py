"""A humidifier is turned on and off by its name, with no model.

Home Assistant's sentences for "turn on …" name lights, switches, fans, media players,
input booleans and climates only: "turn on the nursery humidifier" was "Sorry, I am
not aware of any device called nursery humidifier" from its own agent, and with the
model down nothing could do it. Our reading has the words for a humidifier in each
language with data; the intent is HA's own, so its words are heard.
"""

from typing import Any

import pytest

from homeassistant.components import conversation
from homeassistant.components.humidifier import HumidifierEntity
from homeassistant.components.humidifier.const import HumidifierDeviceClass
from homeassistant.core import HomeAssistant

from tests.fake_llm import FakeLLM, Reply, closed_port_url
from tests.helpers import add_agent, async_test_platforms, converse, speech

pytestmark = pytest.mark.usefixtures("no_retry_wait")

HUMIDIFIER, DRYER = HumidifierDeviceClass.HUMIDIFIER, HumidifierDeviceClass.DEHUMIDIFIER


class Humidifier(HumidifierEntity):
    """A humidifier that does as it is told."""

    def __init__(
        self, name: str, device_class: HumidifierDeviceClass, on: bool
    ) -> None:
        """Named, of its class, on or off."""
        self._attr_name = name
        self._attr_unique_id = name.casefold().replace(" ", "_")
        self._attr_device_class = device_class
        self._attr_is_on = on
        self._attr_target_humidity = 45

    async def async_turn_on(self, **_: Any) -> None:
        """On."""
        self._attr_is_on = True
        self.async_write_ha_state()

    async def async_turn_off(self, **_: Any) -> None:
        """Off."""
        self._attr_is_on = False
        self.async_write_ha_state()


EXPOSED = {
    "humidifier.nursery_humidifier": ("Nursery humidifier", HUMIDIFIER, False),
    "humidifier.basement_dehumidifier": ("Basement dehumidifier", DRYER, True),
    "humidifier.luftbefeuchter": ("Luftbefeuchter", HUMIDIFIER, False),
    "humidifier.deshumidificateur": ("Déshumidificateur", DRYER, False),
}
HIDDEN = "humidifier.attic_humidifier"


@pytest.fixture
async def home(ha_core: HomeAssistant) -> HomeAssistant:
    """Four exposed humidifiers and one hidden."""
    hass = ha_core
    hidden = Humidifier("Attic humidifier", HUMIDIFIER, False)
    humidifiers = [*(Humidifier(*spec) for spec in EXPOSED.values()), hidden]
    await async_test_platforms(hass, {"humidifier": humidifiers}, hidden=[hidden])
    assert hidden.entity_id == HIDDEN
    return hass


def _states(hass: HomeAssistant) -> dict[str, str]:
    return {s.entity_id: s.state for s in hass.states.async_all("humidifier")}


@pytest.mark.parametrize(
    ("language", "text", "entity_id", "state", "heard"),
    [
        ("en", "turn on the nursery humidifier", "humidifier.nursery_humidifier", "on", "Turned on the humidifier"),
        ("en", "switch the nursery humidifier on", "humidifier.nursery_humidifier", "on", "Turned on the humidifier"),
        ("en", "turn off the basement dehumidifier", "humidifier.basement_dehumidifier", "off", "Turned off the humidifier"),
        ("de", "schalte den Luftbefeuchter ein", "humidifier.luftbefeuchter", "on", "Luftbefeuchter eingeschaltet"),
        ("fr", "allume le déshumidificateur", "humidifier.deshumidificateur", "on", "Allumé"),
    ],
)  # fmt: skip
async def test_turned_on_and_off_by_name_without_the_model(
    home: HomeAssistant,
    fake_llm: FakeLLM,
    *,
    language: str,
    text: str,
    entity_id: str,
    state: str,
    heard: str,
) -> None:
    """HA's own agent does not place it; ours does it, in HA's words."""
    hass = home
    own = await converse(
        hass, conversation.HOME_ASSISTANT_AGENT, text, language=language
    )
    assert own.response.response_type.value == "error", speech(own)
    agent = await add_agent(hass, fake_llm, local_first=True)
    before = _states(hass)

    result = await converse(hass, agent, text, language=language)

    assert speech(result) == heard
    assert _states(hass) == before | {entity_id: state}
    assert fake_llm.requests == []


async def test_a_hidden_humidifier_is_left_to_the_model(
    home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """Not exposed: not switched, not named; the model's turn, which did nothing.

    The model only answered, so HA's words for a device it does not know are heard
    (tests/test_unplaced_commands.py), the user's own words and nothing more.
    """
    hass = home
    agent = await add_agent(hass, fake_llm, local_first=True)
    fake_llm.script([Reply.text("I can't find that one.")])
    before = _states(hass)

    result = await converse(hass, agent, "turn on the attic humidifier")

    assert (
        speech(result) == "Sorry, I am not aware of any device called attic humidifier"
    )
    assert _states(hass) == before
    assert len(fake_llm.requests) == 1
    assert "Attic" not in str(fake_llm.requests[0])


async def test_with_the_model_down(home: HomeAssistant, socket_enabled: None) -> None:
    """No model: Home Assistant's route of last resort does it too."""
    hass = home
    agent = await add_agent(hass, closed_port_url(), minor_version=2)
    before = _states(hass)

    result = await converse(hass, agent, "turn on the nursery humidifier")

    assert speech(result) == (
        "The AI service isn't available, so I used the basic assistant: "
        "Turned on the humidifier"
    )
    assert _states(hass) == before | {"humidifier.nursery_humidifier": "on"}
