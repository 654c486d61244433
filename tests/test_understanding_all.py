"""Every one of them ("all the fans"), never "which one?".

Home Assistant's own agent has no sentence for "turn on all the fans" (nor "close all
the covers"); our reading found the three fans and asked "Bedroom Fan, Kitchen Fan
or Breeze 300?", though the words said all. Now all of them run, through HA's own
intent when HA's matching finds exactly them (every exposed fan, or every exposed
cover of one class), else on each by its own name; a risky one among them is asked
about with the rest named. An
unexposed fan is never among them, and "all the lamps" (maybe some lights only) is
left to the model.
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
COVERS = ("cover.garage", "cover.blinds", "cover.curtains")
MODEL = "The model answered."


async def _ha_asks_or_says_sorry(hass: HomeAssistant, text: str, language: str) -> None:
    """HA's own agent does not do it."""
    before = states(hass)
    result = await converse(
        hass, conversation.HOME_ASSISTANT_AGENT, text, None, language
    )
    assert result.response.response_type.value == "error", speech(result)
    assert states(hass) == before


async def _set(hass: HomeAssistant, entity_ids: tuple[str, ...], service: str) -> None:
    domain = entity_ids[0].split(".")[0]
    await hass.services.async_call(
        domain, service, {"entity_id": list(entity_ids)}, blocking=True
    )


@pytest.mark.parametrize(
    ("language", "text", "start", "heard", "end"),
    [
        ("en", "turn off all the fans", "turn_on", "Turned off all of the fans", "off"),
        # HA's words for turning fans on have no "all": its own, for one fan
        ("en", "turn on every fan", "turn_off", "Turned on the fan", "on"),
        ("de", "schalte alle Ventilatoren aus", "turn_on", "Alle Ventilatoren ausgeschaltet", "off"),
        ("fr", "éteins tous les ventilateurs", "turn_on", "Éteint", "off"),
    ],
)  # fmt: skip
async def test_every_fan_with_no_question(
    home: HomeAssistant,
    fake_llm: FakeLLM,
    local: str,
    *,
    language: str,
    text: str,
    start: str,
    heard: str,
    end: str,
) -> None:
    """Each fan, in three areas, changes; nothing else does; the model is not asked."""
    hass = home
    await _set(hass, FANS, start)
    await _ha_asks_or_says_sorry(hass, text, language)
    before = states(hass)

    result = await converse(hass, local, text, None, language)

    assert speech(result) == heard
    assert states(hass) == before | dict.fromkeys(FANS, end)
    assert fake_llm.requests == []


async def test_an_unexposed_fan_is_not_among_them(
    home: HomeAssistant, fake_llm: FakeLLM, local: str
) -> None:
    """Every fan the user exposed to Assist is "all", never one hidden from it."""
    hass = home
    async_expose_entity(hass, conversation.DOMAIN, "fan.desk_fan", False)
    before = states(hass)

    result = await converse(hass, local, "turn on all the fans")

    assert speech(result) == "Turned on the fan"
    assert states(hass) == before | {"fan.kitchen_fan": "on", "fan.bedroom_fan": "on"}
    assert fake_llm.requests == []


async def test_all_the_covers_with_the_garage_door_asked_first(
    home: HomeAssistant, fake_llm: FakeLLM, local: str
) -> None:
    """The garage door is risky: asked about with the rest named; yes opens all."""
    hass = home
    await _set(hass, COVERS, "close_cover")
    before = states(hass)

    asked = await converse(hass, local, "open all the covers")

    assert speech(asked) == (
        "Shall I open Garage door, Living room blinds and Bedroom curtains?"
    )
    assert states(hass) == before

    opened = await converse(hass, local, "yes", asked.conversation_id)

    assert speech(opened) == (
        "I opened Living room blinds, Bedroom curtains and Garage door."
    )
    assert states(hass) == before | dict.fromkeys(COVERS, "open")
    assert fake_llm.requests == []


async def test_all_that_no_class_names_alone_each_by_its_name(
    home: HomeAssistant, fake_llm: FakeLLM, local: str
) -> None:
    """The blinds and the curtains (two classes): each closed by its own name."""
    hass = home
    await _set(hass, COVERS, "open_cover")
    before = states(hass)

    result = await converse(hass, local, "close all the blinds")

    assert speech(result) == "Closing"
    assert states(hass) == before | {
        "cover.blinds": "closed",
        "cover.curtains": "closed",
    }
    assert fake_llm.requests == []


async def test_all_the_lamps_is_the_models(
    home: HomeAssistant, fake_llm: FakeLLM, local: str
) -> None:
    """Maybe only the lamps: nothing runs, nothing is asked; the model has the words."""
    hass = home
    before = states(hass)
    fake_llm.script([Reply.text(MODEL)])

    result = await converse(hass, local, "turn on all the lamps")

    assert speech(result) == MODEL
    assert states(hass) == before
    (request,) = fake_llm.requests
    assert request["messages"][-1]["content"] == "turn on all the lamps"
