"""All of them, one by one, one jammed: what closed is told with what did not.

"Close all the veluxes" (a brand in their names; no place or class names just them):
our reading runs HA's intent on each by its name. When one failed, the user heard
only HA's error for it ("An unexpected error occurred" with a model that cannot act,
"I couldn't do that: …" otherwise) while the others had closed. Now what was done is
told, and the one that failed by its name.
"""

from typing import Any

import pytest

from homeassistant.components import conversation
from homeassistant.components.cover import CoverDeviceClass
from homeassistant.core import HomeAssistant
from homeassistant.exceptions import HomeAssistantError

from tests.fake_llm import FakeLLM, Reply, closed_port_url
from tests.helpers import add_agent, async_test_platforms, converse, speech
from tests.test_ha_failed_then_model import Shutter

pytestmark = pytest.mark.usefixtures("no_retry_wait")


class Jammed(Shutter):
    """A cover whose motor is jammed: closing fails."""

    async def async_close_cover(self, **_: Any) -> None:
        """It does not move."""
        raise HomeAssistantError("The motor is jammed")


@pytest.fixture
async def home(ha_core: HomeAssistant) -> HomeAssistant:
    """Three open roof windows (one jammed), a shut garage door; all exposed."""
    return await _home(ha_core, Shutter)


@pytest.fixture
async def jammed(ha_core: HomeAssistant) -> HomeAssistant:
    """The same home, every roof window jammed."""
    return await _home(ha_core, Jammed)


async def _home(hass: HomeAssistant, window: type[Shutter]) -> HomeAssistant:
    covers = [
        window("Velux hall", closed=False),
        window("Velux landing", closed=False),
        Jammed("Velux attic", closed=False),
        Shutter("Garage door", closed=True, device_class=CoverDeviceClass.GARAGE),
    ]
    await async_test_platforms(hass, {"cover": covers})
    return hass


def _covers(hass: HomeAssistant) -> dict[str, str]:
    return {s.entity_id: s.state for s in hass.states.async_all("cover")}


CLOSED = {
    "cover.velux_hall": "closed",
    "cover.velux_landing": "closed",
    "cover.velux_attic": "open",
    "cover.garage_door": "closed",
}


@pytest.mark.parametrize(
    ("language", "text", "heard"),
    [
        ("en", "close all the veluxes", "I closed Velux hall and Velux landing; Velux attic did not close: Home Assistant reported an error."),
        ("de", "schließe alle Velux", "Ich habe Velux hall und Velux landing geschlossen; Velux attic hat sich nicht geschlossen: Home Assistant hat einen Fehler gemeldet."),
        ("fr", "ferme tous les Velux", "J'ai fermé Velux hall et Velux landing; Velux attic ne s'est pas fermé : Home Assistant a signalé une erreur."),
    ],
)  # fmt: skip
async def test_what_closed_is_told_with_what_did_not(
    home: HomeAssistant, fake_llm: FakeLLM, *, language: str, text: str, heard: str
) -> None:
    """Local first: HA's own agent does not place it; ours runs each, one fails."""
    hass = home
    own = await converse(
        hass, conversation.HOME_ASSISTANT_AGENT, text, language=language
    )
    assert own.response.response_type.value == "error", speech(own)
    agent = await add_agent(hass, fake_llm, local_first=True, verify_timeout=0.5)
    fake_llm.script([Reply.text("Done, all closed.")])

    result = await converse(hass, agent, text, language=language)

    assert speech(result) == heard
    assert _covers(hass) == CLOSED
    assert fake_llm.requests == []


async def test_with_the_model_down(home: HomeAssistant, socket_enabled: None) -> None:
    """No model: the same words after the notice."""
    hass = home
    agent = await add_agent(hass, closed_port_url(), minor_version=2)

    result = await converse(hass, agent, "close all the veluxes")

    assert speech(result) == (
        "The AI service isn't available, so I used the basic assistant: I closed"
        " Velux hall and Velux landing; Velux attic did not close: Home Assistant"
        " reported an error."
    )
    assert _covers(hass) == CLOSED


async def test_none_closed_each_is_told(
    jammed: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """Every one failed: each is named, nothing is said to be done.

    The model gets the turn after a failed run (it may find another way); it only
    said "Done, all closed.", which the house does not show.
    """
    hass = jammed
    agent = await add_agent(hass, fake_llm, local_first=True, verify_timeout=0.5)
    fake_llm.script([Reply.text("Done, all closed.")])

    result = await converse(hass, agent, "close all the veluxes")

    assert speech(result) == (
        "Velux attic did not close: Home Assistant reported an error; Velux hall did"
        " not close: Home Assistant reported an error; Velux landing did not close:"
        " Home Assistant reported an error."
    )
    assert _covers(hass) == CLOSED | {
        "cover.velux_hall": "open",
        "cover.velux_landing": "open",
    }
    assert (
        len(fake_llm.requests) == 1
    )  # a failed run is the model's: its "Done." unsaid


async def test_one_read_by_us_that_failed_is_named(
    home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """HA does not place "the attic velux"; ours does, and it is jammed: it is named."""
    hass = home
    own = await converse(
        hass, conversation.HOME_ASSISTANT_AGENT, "close the attic velux"
    )
    assert own.response.response_type.value == "error", speech(own)
    agent = await add_agent(hass, fake_llm, local_first=True, verify_timeout=0.5)
    fake_llm.script([Reply.text("Done.")])
    before = _covers(hass)

    result = await converse(hass, agent, "close the attic velux")

    assert (
        speech(result) == "Velux attic did not close: Home Assistant reported an error."
    )
    assert _covers(hass) == before
