"""Beyond HA's own agent without a model: device words, brands, places, lists.

Each command here is one Home Assistant's own agent answers "Sorry" to (checked
first, on the same home); ours does it through HA's own intent with no model call,
and every other entity keeps its state. Two or three candidates are asked about,
the answer carried to the next turn; what the home does not have, or does not
expose, is left alone.
"""

from typing import Any

import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry

from homeassistant.components import conversation
from homeassistant.components.conversation import trace
from homeassistant.core import Context, HomeAssistant
from homeassistant.helpers import device_registry as dr

from custom_components.agentic_conversation.const import CONF_LOCAL_FIRST
from tests.fake_llm import FakeLLM, Reply, closed_port_url
from tests.helpers import add_agent, converse, speech
from tests.understanding_home import async_build_home, states

pytestmark = pytest.mark.usefixtures("no_retry_wait")

PREFACE = "The AI service isn't available, so I used the basic assistant: "


@pytest.fixture
def hass_config_dir(hass_tmp_config_dir: str) -> str:
    """The shopping list is a file: a folder of the test's own."""
    return hass_tmp_config_dir


@pytest.fixture
async def home(ha_core: HomeAssistant) -> HomeAssistant:
    """The home of tests/understanding_home.py."""
    await async_build_home(ha_core)
    return ha_core


@pytest.fixture
async def local(home: HomeAssistant, fake_llm: FakeLLM) -> str:
    """An agent with local first on; the model must not be asked."""
    options: dict[str, Any] = {CONF_LOCAL_FIRST: True}
    return await add_agent(home, fake_llm, **options)


async def _ha_says_sorry(hass: HomeAssistant, text: str, language: str = "en") -> None:
    """HA's own agent does not do it: an error, and no state changed."""
    before = states(hass)
    result = await converse(
        hass, conversation.HOME_ASSISTANT_AGENT, text, language=language
    )
    assert result.response.response_type.value == "error", speech(result)
    assert states(hass) == before


async def _items(hass: HomeAssistant) -> list[str]:
    found = await hass.services.async_call(
        "todo",
        "get_items",
        {"entity_id": "todo.lidl"},
        blocking=True,
        return_response=True,
    )
    lists: Any = found
    return [item["summary"] for item in lists["todo.lidl"]["items"]]


@pytest.mark.parametrize(
    ("text", "changed", "spoken"),
    [
        # a device word instead of the name
        ("start the vacuum", {"vacuum.roborock": "cleaning"}, "Started"),
        # not a word the home has: the model's turn; it did nothing, HA's words
        ("turn on the towel warmer", None, "Sorry, I am not aware of any device called towel warmer"),
        # a brand, or a name the user never entered
        ("start the roborock", {"vacuum.roborock": "cleaning"}, "Started"),
        ("switch on the breeze", {"fan.desk_fan": "on"}, "Turned on the fan"),
        # a place for the device
        ("turn on the blanket upstairs", {"switch.blanket": "on"}, "Turned on the switch"),
        # a floor: every exposed light on it, never the unexposed one
        (
            "turn on the upstairs lights",
            dict.fromkeys(
                [
                    "light.bedroom_ceiling",
                    "light.bedside",
                    "light.kids",
                    "light.night",
                    "light.bathroom",
                    "light.mirror",
                    "light.study",
                ],
                "on",
            ),
            "Turned on the lights",
        ),
    ],
)  # fmt: skip
async def test_done_locally_without_the_model(
    home: HomeAssistant,
    fake_llm: FakeLLM,
    local: str,
    *,
    text: str,
    changed: dict[str, str] | None,
    spoken: str,
) -> None:
    """Exactly the meant entities change, HA's words are said, the model is not asked."""
    hass = home
    await _ha_says_sorry(hass, text)
    before = states(hass)
    fake_llm.script([Reply.text("The model answered.")])

    result = await converse(hass, local, text)

    if changed is None:  # the home has no such thing: the model's, nothing run
        assert speech(result) == spoken
        assert len(fake_llm.requests) == 1
        assert states(hass) == before
        return
    assert speech(result) == spoken
    assert states(hass) == before | changed
    assert fake_llm.requests == []


async def test_stop_vacuuming(
    home: HomeAssistant, fake_llm: FakeLLM, local: str
) -> None:
    """'stop vacuuming' sends the one vacuum home."""
    hass = home
    await converse(hass, local, "start the vacuum")
    await _ha_says_sorry(hass, "stop vacuuming")
    before = states(hass)

    result = await converse(hass, local, "stop vacuuming")

    assert speech(result) == "Returning"
    assert states(hass) == before | {"vacuum.roborock": "docked"}
    assert fake_llm.requests == []
    events = trace.async_get_traces()[-1].as_dict()["events"]
    assert [
        e["data"]["reason"]
        for e in events
        if e["event_type"] == trace.ConversationTraceEventType.AGENT_DETAIL
        and "reason" in e["data"]
    ] == ["Our understanding placed the command; Home Assistant's intent ran it"]


async def test_a_list_called_after_the_shop(
    home: HomeAssistant, fake_llm: FakeLLM, local: str
) -> None:
    """'my groceries' is the only list there is, called Lidl."""
    hass = home
    await _ha_says_sorry(hass, "add apples to my groceries")

    result = await converse(hass, local, "add apples to my groceries")

    assert speech(result) == "Added apples"
    assert await _items(hass) == ["Apples"]  # the list writes it so
    assert fake_llm.requests == []


async def test_two_fans_called_fan_asked_and_the_answer_carried(
    home: HomeAssistant, fake_llm: FakeLLM, local: str
) -> None:
    """Three fans fit 'the fan': asked which; 'the one in the bedroom' turns it on."""
    hass = home
    before = states(hass)

    asked = await converse(hass, local, "fire up the fan")

    assert speech(asked) == "Bedroom Fan, Kitchen Fan or Breeze 300?"
    assert asked.continue_conversation is True
    assert states(hass) == before

    done = await converse(hass, local, "the one in the bedroom", asked.conversation_id)

    assert speech(done) == "Turned on the fan"
    assert states(hass) == before | {"fan.bedroom_fan": "on"}
    assert fake_llm.requests == []


@pytest.mark.parametrize(
    ("text", "question", "answer", "done_said", "changed"),
    [
        # The porch light and the path lights are out of doors: asked, none run yet.
        (
            "turn on the lights outside",
            "Path lights or Porch light?",
            "the porch",
            "Turned on the light",
            {"light.porch": "on"},
        ),
        # The lock in the hall is called Entry: a risky one is asked, run on yes.
        (
            "unlock the hall lock",
            "Shall I unlock Entry?",
            "yes",
            "I unlocked Entry.",
            {"lock.entry": "unlocked"},
        ),
    ],
)
async def test_asked_first_then_run_on_the_answer(
    home: HomeAssistant,
    fake_llm: FakeLLM,
    local: str,
    *,
    text: str,
    question: str,
    answer: str,
    done_said: str,
    changed: dict[str, str],
) -> None:
    """HA's own agent says sorry; ours asks, and runs only what the answer means."""
    hass = home
    await _ha_says_sorry(hass, text)
    before = states(hass)

    asked = await converse(hass, local, text)

    assert speech(asked) == question
    assert states(hass) == before
    done = await converse(hass, local, answer, asked.conversation_id)
    assert speech(done) == done_said
    assert states(hass) == before | changed
    assert fake_llm.requests == []


async def test_an_answer_that_names_none_of_them_is_a_new_request(
    home: HomeAssistant, fake_llm: FakeLLM, local: str
) -> None:
    """After 'which?', words naming none of them go on as a new request."""
    hass = home
    before = states(hass)
    asked = await converse(hass, local, "fire up the fan")
    fake_llm.script([Reply.text("Here is a joke.")])

    other = await converse(hass, local, "tell me a joke", asked.conversation_id)

    assert speech(other) == "Here is a joke."
    assert states(hass) == before
    # The question is forgotten: 'bedroom' alone is no command now.
    fake_llm.script([Reply.text("Which bedroom?")])
    later = await converse(hass, local, "bedroom", asked.conversation_id)
    assert speech(later) == "Which bedroom?"
    assert states(hass) == before


async def test_the_satellites_area_first(
    home: HomeAssistant, fake_llm: FakeLLM, local: str
) -> None:
    """Said to a satellite in the kitchen, 'the fan' is the kitchen's."""
    hass = home
    entry = MockConfigEntry(domain="test")
    entry.add_to_hass(hass)
    device = dr.async_get(hass).async_get_or_create(
        config_entry_id=entry.entry_id, identifiers={("test", "kitchen-satellite")}
    )
    dr.async_get(hass).async_update_device(device.id, area_id="kitchen")
    before = states(hass)

    result = await conversation.async_converse(
        hass,
        "fire up the fan",
        None,
        Context(),
        language="en",
        agent_id=local,
        device_id=device.id,
    )

    assert speech(result) == "Turned on the fan"
    assert states(hass) == before | {"fan.kitchen_fan": "on"}
    assert fake_llm.requests == []


@pytest.mark.parametrize(
    ("text", "heard"),
    [
        ("turn on the secret lamp", "The model answered."),  # not exposed
        ("turn on the garage light", "The model answered."),  # the home has none
        ("turn on the lamp", "The model answered."),  # too many to ask about
        ("the kitchen ceiling light fan", "The model answered."),
        # a place names no device, and none is called so: the model did nothing
        ("turn on the kitchen", "Sorry, I am not aware of any device called kitchen"),
    ],
)  # fmt: skip
async def test_left_to_the_model_unrun(
    home: HomeAssistant, fake_llm: FakeLLM, local: str, *, text: str, heard: str
) -> None:
    """Nothing it could mean for sure: the model's turn, and no state changed."""
    hass = home
    before = states(hass)
    fake_llm.script([Reply.text("The model answered.")])

    result = await converse(hass, local, text)

    assert speech(result) == heard
    assert len(fake_llm.requests) == 1
    assert states(hass) == before


async def test_with_the_model_down(home: HomeAssistant, socket_enabled: None) -> None:
    """No model: ours does it on HA's route of last resort, and asks there too."""
    hass = home
    agent = await add_agent(hass, closed_port_url(), minor_version=2)
    before = states(hass)

    started = await converse(hass, agent, "start the vacuum")

    assert speech(started) == f"{PREFACE}Started"
    assert states(hass) == before | {"vacuum.roborock": "cleaning"}

    asked = await converse(hass, agent, "fire up the fan")
    assert speech(asked) == f"{PREFACE}Bedroom Fan, Kitchen Fan or Breeze 300?"
    assert asked.continue_conversation is True
    done = await converse(hass, agent, "kitchen", asked.conversation_id)
    assert speech(done) == f"{PREFACE}Turned on the fan"
    assert states(hass) == before | {
        "vacuum.roborock": "cleaning",
        "fan.kitchen_fan": "on",
    }

    # Not exposed: not switched, not named; the user hears the service is down.
    missing = await converse(hass, agent, "turn on the secret lamp")
    assert speech(missing) == (
        "I can't reach the AI service right now. Please check that it is running."
    )
    assert states(hass) == before | {
        "vacuum.roborock": "cleaning",
        "fan.kitchen_fan": "on",
    }


LANGUAGES: list[tuple[str, str, str]] = [
    ("de", "starte den Staubsauger", "Gestartet"),
    ("fr", "démarre l'aspirateur", "Nettoyage lancé"),
    ("es", "inicia la aspiradora", "Limpieza iniciada"),
    ("nl", "start de stofzuiger", "Gestart"),
    ("it", "avvia l'aspirapolvere", "Pulizia avviata"),
]


@pytest.mark.parametrize(("language", "text", "spoken"), LANGUAGES)
async def test_languages(
    home: HomeAssistant,
    fake_llm: FakeLLM,
    local: str,
    *,
    language: str,
    text: str,
    spoken: str,
) -> None:
    """Each language's words start the vacuum, in HA's words of that language."""
    hass = home
    await _ha_says_sorry(hass, text, language)
    before = states(hass)

    result = await converse(hass, local, text, language=language)

    assert speech(result) == spoken
    assert states(hass) == before | {"vacuum.roborock": "cleaning"}
    assert fake_llm.requests == []
