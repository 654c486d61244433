"""An answer to "which one?" that means all of them runs on all of them.

"Turn on the fan" with three fans is asked "Bedroom Fan, Kitchen Fan or Breeze
300?"; "all of them" was heard as a new request ("Sorry, I am not aware of any area
called them"), "both" and "tous" went to the model. Now an answer that is only
"all" ("all of them", "all three", "tous", "todos", "alle drei") runs on every one
asked about, "both" on the two when there were two; a risky one among them is still
asked first. An answer that says more ("not all of them", "all but the kitchen") or
"both" of three is no such answer: a new request, nothing run.
"""

import pytest

from homeassistant.components import conversation
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import HomeAssistant

from tests.fake_llm import FakeLLM, Reply
from tests.helpers import converse, speech
from tests.test_local_understanding import hass_config_dir, home, local
from tests.understanding_home import states

__all__ = ["hass_config_dir", "home", "local"]  # fixtures: the understanding home

FANS = ("fan.kitchen_fan", "fan.bedroom_fan", "fan.desk_fan")


@pytest.mark.parametrize(
    ("language", "command", "question", "answer", "heard"),
    [
        ("en", "turn on the fan", "Bedroom Fan, Kitchen Fan or Breeze 300?", "all of them", "Turned on the fans"),
        ("en", "turn on the fan", "Bedroom Fan, Kitchen Fan or Breeze 300?", "All three, please.", "Turned on the fans"),
        ("de", "schalte den Ventilator ein", "Breeze 300, Bedroom Fan oder Kitchen Fan?", "alle drei", "Alle Ventilatoren eingeschaltet"),
        ("fr", "allume le ventilateur", "Breeze 300, Bedroom Fan ou Kitchen Fan ?", "tous les trois", "Ventilateurs allumés"),
        ("es", "enciende el ventilador", "Breeze 300, Bedroom Fan o Kitchen Fan?", "todos", "Ventiladores encendidos"),
    ],
)  # fmt: skip
async def test_all_of_them(
    home: HomeAssistant,
    fake_llm: FakeLLM,
    local: str,
    *,
    language: str,
    command: str,
    question: str,
    answer: str,
    heard: str,
) -> None:
    """Every fan asked about is on after "all of them"; the model is never asked."""
    hass = home
    before = states(hass)

    asked = await converse(hass, local, command, None, language)
    assert speech(asked) == question
    result = await converse(hass, local, answer, asked.conversation_id, language)

    assert speech(result) == heard
    assert states(hass) == before | dict.fromkeys(FANS, "on")
    assert fake_llm.requests == []


async def test_both_of_two(home: HomeAssistant, fake_llm: FakeLLM, local: str) -> None:
    """Two fans asked about: "both" turns on the two, not the hidden third."""
    hass = home
    async_expose_entity(hass, conversation.DOMAIN, "fan.desk_fan", False)
    before = states(hass)

    asked = await converse(hass, local, "turn on the fan")
    assert speech(asked) == "Bedroom Fan or Kitchen Fan?"
    result = await converse(hass, local, "both", asked.conversation_id)

    assert speech(result) == "Turned on the fans"
    assert states(hass) == before | {"fan.kitchen_fan": "on", "fan.bedroom_fan": "on"}


@pytest.mark.parametrize(
    ("answer", "heard"),
    [
        # HA reads these as its own commands, finds no such place; the model did
        # nothing: HA's words (test_local_first)
        ("not all of them", "Sorry, I am not aware of any area called them"),
        ("all of them off", "Sorry, I am not aware of any floor called them"),
        ("all but the kitchen", "The model answered."),
        ("both", "The model answered."),
    ],
)
async def test_more_than_all_is_a_new_request(
    home: HomeAssistant, fake_llm: FakeLLM, local: str, *, answer: str, heard: str
) -> None:
    """Words beside "all", or "both" of three: nothing runs; the model has them."""
    hass = home
    before = states(hass)
    fake_llm.script([Reply.text("The model answered.")])

    asked = await converse(hass, local, "turn on the fan")
    result = await converse(hass, local, answer, asked.conversation_id)

    assert speech(result) == heard
    assert states(hass) == before
    assert fake_llm.requests[-1]["messages"][-1]["content"] == answer


async def test_all_the_doors_still_asks_about_the_garage(
    home: HomeAssistant, fake_llm: FakeLLM, local: str
) -> None:
    """Covers with the garage door: after "all of them" it is asked about first."""
    hass = home
    before = states(hass)

    asked = await converse(hass, local, "open the cover")
    result = await converse(hass, local, "all of them", asked.conversation_id)

    assert speech(result) == (
        "Shall I open Garage door, Living room blinds and Bedroom curtains?"
    )
    assert states(hass)["cover.garage"] == before["cover.garage"]
    assert fake_llm.requests == []
