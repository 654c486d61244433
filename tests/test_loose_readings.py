"""What Home Assistant read leaving words out is not run as read.

HA's gazetteer (English) accepts a sentence some of whose words it cannot explain,
and its agent runs what it understood: "don't turn on the desk lamp" turned it on, "do
not turn off the hall light" off, "turn on the desk lamp at 7 pm" on at once; "what is
the weather tomorrow" was told today's weather. With a model that acts, such a reading
is left to it; with none, it is not understood. A reading that explains every word
("… please", two devices at once), or leaves out only a filler ("hey", "thanks"),
runs as before.
"""

import pytest

from homeassistant.core import HomeAssistant

from tests.acceptance.home import table_home  # noqa: F401 - the home fixture
from tests.assist_pipeline import Door
from tests.fake_llm import FakeLLM, Reply
from tests.helpers import say, state_of
from tests.test_local_first import _agent

ANSWER = "I can't do that at a later time yet; ask me again then."


def _asked(fake_llm: FakeLLM) -> list[str]:
    """The user's words of each request the model got."""
    return [
        str(request["messages"][-1]["content"])
        for request in fake_llm.requests
        if request["messages"][-1]["role"] == "user"
    ]


COMMANDS = [
    ("don't turn on the desk lamp", "light.desk_lamp", "off"),
    ("do not turn off the hall light", "light.hall_light", "on"),
    ("never turn on the desk lamp", "light.desk_lamp", "off"),
    ("turn off the lights but not the hall light", "light.hall_light", "on"),
    ("turn on the desk lamp at 7 pm", "light.desk_lamp", "off"),
    ("turn on the desk lamp tomorrow morning", "light.desk_lamp", "off"),
    ("turn off the hall light when I leave", "light.hall_light", "on"),
    ("turn on the desk lamp for an hour", "light.desk_lamp", "off"),
]


@pytest.mark.parametrize(("text", "lamp", "state"), COMMANDS)
async def test_a_command_read_without_its_time_is_not_run_now(
    home: HomeAssistant, fake_llm: FakeLLM, text: str, lamp: str, state: str
) -> None:
    """The model gets the words; the lamp is as it was; the model's words are heard."""
    agent = await _agent(home, fake_llm)
    fake_llm.script([Reply.text(ANSWER)])

    spoken = await say(home, agent, text)

    assert spoken == ANSWER
    assert _asked(fake_llm) == [text]
    assert state_of(home, lamp) == state


@pytest.mark.parametrize(
    "text",
    [
        "what is the weather tomorrow",
        "what's the date tomorrow",
        "what time is it in tokyo",
    ],
)
async def test_a_question_read_without_its_when_or_where_goes_to_the_model(
    home: HomeAssistant, fake_llm: FakeLLM, text: str
) -> None:
    """Not today's weather, date or time: the model answers (it has the forecast)."""
    agent = await _agent(home, fake_llm)
    fake_llm.script([Reply.text("Tomorrow: rain, 12 °C at most.")])

    spoken = await say(home, agent, text)

    assert spoken == "Tomorrow: rain, 12 °C at most."
    assert _asked(fake_llm) == [text]


@pytest.mark.parametrize(
    ("text", "spoken", "lit"),
    [
        ("what's the weather", "18.0 °C and sunny", ()),
        (
            "turn on the kitchen ceiling and the desk lamp please",
            "Turned on the light.",
            ("light.kitchen_ceiling", "light.desk_lamp"),
        ),
        (
            "could you turn the desk lamp on",
            "Turned on the light",
            ("light.desk_lamp",),
        ),
        ("hey turn on the desk lamp", "Turned on the light", ("light.desk_lamp",)),
        ("ok turn on the desk lamp now", "Turned on the light", ("light.desk_lamp",)),
        ("turn on the desk lamp, thanks", "Turned on the light", ("light.desk_lamp",)),
    ],
)
async def test_a_reading_of_every_word_is_still_run_at_once(
    home: HomeAssistant,
    fake_llm: FakeLLM,
    text: str,
    spoken: str,
    lit: tuple[str, ...],
) -> None:
    """HA's words, the lights on, and no request to the model."""
    agent = await _agent(home, fake_llm)

    assert await say(home, agent, text) == spoken
    assert _asked(fake_llm) == []
    assert [state_of(home, light) for light in lit] == ["on"] * len(lit)


async def test_with_the_model_down_a_no_is_not_run(
    home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """No model answers: Home Assistant's agent does not turn the lamp on either."""
    agent = await _agent(home, fake_llm)
    fake_llm.script([Reply.error(500)] * 2)

    spoken = await say(home, agent, "don't turn on the desk lamp")

    assert spoken == "The AI service had a problem answering. Please try again later."
    assert state_of(home, "light.desk_lamp") == "off"


CANNOT_ACT = (
    "I didn't do that: Home Assistant didn't understand all of it, and the AI model "
    "can't control devices."
)


@pytest.mark.parametrize(("text", "lamp", "state"), COMMANDS)
async def test_with_a_model_that_cannot_act_a_command_is_not_run(
    home: HomeAssistant,
    fake_llm: FakeLLM,
    door: Door,
    *,
    text: str,
    lamp: str,
    state: str,
) -> None:
    """Its endpoint check found no tool calls: its chat would claim it done.

    (The dev server's model to "turn off everything in the living room", read as its
    TV: "Your request has been fulfilled.", the lights on.)
    """
    fake_llm.probe_tool_reply = Reply.text("I cannot call tools.")
    agent = await _agent(home, fake_llm)
    fake_llm.script([Reply.text("Your request has been fulfilled.")])
    ask = await door.open(home, agent)

    answer = await ask(text, None)

    assert answer["response"]["speech"]["plain"]["speech"] == CANNOT_ACT
    assert state_of(home, lamp) == state
    assert _asked(fake_llm) == []
    if door.name == "pipeline":
        assert door.said == [CANNOT_ACT]


async def test_with_a_model_that_cannot_act_a_question_is_its_own(
    home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """A question read without its "tomorrow" claims nothing done: the model chats."""
    fake_llm.probe_tool_reply = Reply.text("I cannot call tools.")
    agent = await _agent(home, fake_llm)
    fake_llm.script([Reply.text("It may rain tomorrow.")])

    spoken = await say(home, agent, "what is the weather tomorrow")

    assert spoken == "It may rain tomorrow."
    assert _asked(fake_llm) == ["what is the weather tomorrow"]
