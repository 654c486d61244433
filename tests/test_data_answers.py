"""A model that answers with data is heard in words, in the user's language.

Small models echo our tool result, answer with a JSON object or array, or a YAML
block in a fence. Through `async_converse` and through a satellite's pipeline with a
streaming TTS, the user hears one short sentence (what failed, what was done, or that
the answer could not be put into words); the TTS never gets braces or a fence.
"""

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
import json

import pytest
from pytest_homeassistant_custom_component.typing import (
    ClientSessionGenerator,
    WebSocketGenerator,
)

from homeassistant.components import conversation
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import HomeAssistant
from homeassistant.helpers import llm
from homeassistant.setup import async_setup_component

from tests.across_releases import offered_name
from tests.assist_pipeline import RecordingTTS, run_pipeline, use_pipeline
from tests.fake_llm import FakeLLM, Reply
from tests.helpers import add_agent, say, state_of

PORCH = "input_boolean.porch"
# The model's echo of our unknown-tool envelope, cut off by its max_tokens (issue 40).
ECHOED = (
    '{"success": false, "error": "Unknown tool: todoHassAddItem", "valid_tools": '
    '["call_ser'
)
OBJECT = json.dumps({"entity_id": PORCH, "state": "on", "changed": True})
FENCED_YAML = (
    "```yaml\nsuccess: false\nerror: No entities matched the name\n"
    "unmatched: Garage light\n```"
)
ARRAY = json.dumps(
    [{"name": "Porch light", "state": "off"}, {"name": "Hall", "state": "off"}]
)


@dataclass(frozen=True, slots=True)
class Story:
    """What the model does, what the user then hears, and the porch light after."""

    replies: Callable[[Callable[[str], Awaitable[str]]], Awaitable[list[Reply]]]
    heard: dict[str, str]
    porch: str


async def _echo_envelope(tool: Callable[[str], Awaitable[str]]) -> list[Reply]:
    # A made-up tool (our loop answers "Unknown tool"), then that answer echoed.
    return [
        Reply.tool_calls([("todoHassAddItem", {"item": "milk"})]),
        Reply.text(ECHOED),
    ]


async def _bare_object(tool: Callable[[str], Awaitable[str]]) -> list[Reply]:
    return [
        Reply.tool_calls([(await tool("HassTurnOn"), {"name": "Porch light"})]),
        Reply.text(OBJECT),
    ]


async def _fenced_yaml(tool: Callable[[str], Awaitable[str]]) -> list[Reply]:
    # A name that matches nothing, then that failure echoed as YAML.
    return [
        Reply.tool_calls([(await tool("HassTurnOn"), {"name": "Garage light"})]),
        Reply.text(FENCED_YAML),
    ]


async def _array(tool: Callable[[str], Awaitable[str]]) -> list[Reply]:
    # The home's state read (nothing changed), answered as the list it found.
    return [
        Reply.tool_calls([(await tool("GetLiveContext"), {})]),
        Reply.text(ARRAY),
    ]


STORIES = {
    "echoed_error_envelope": Story(
        _echo_envelope,
        {
            # A made-up tool's call is a failed attempt: said as the turn's failure.
            "en": "I couldn't do that: there is no such action.",
            "de": "Das konnte ich nicht tun: Diese Aktion gibt es nicht.",
            "fr": "Je n'ai pas pu le faire : cette action n'existe pas.",
        },
        "off",
    ),
    "bare_json_object": Story(
        _bare_object,
        {
            "en": "I turned on Porch light.",
            "de": "Ich habe Porch light eingeschaltet.",
            "fr": "J'ai allumé Porch light.",
        },
        "on",
    ),
    "fenced_yaml_block": Story(
        _fenced_yaml,
        {
            "en": "I couldn't find “Garage light”.",
            "de": "Ich konnte „Garage light“ nicht finden.",
            "fr": "Je n'ai pas trouvé « Garage light ».",
        },
        "off",
    ),
    "json_array_of_results": Story(
        _array,
        {
            "en": "Sorry, I couldn't put my answer into words. Please ask again.",
            "de": (
                "Entschuldigung, ich konnte meine Antwort nicht in Worte fassen. "
                "Bitte frag noch einmal."
            ),
            "fr": "Désolé, je n'ai pas pu formuler ma réponse. Merci de redemander.",
        },
        "off",
    ),
}
LANGUAGES = ["en", "de", "fr"]
NEVER_HEARD = ("{", "}", "[", "]", '"success"', "success:", "```", "~~~")


@pytest.fixture
async def agent(ha_core: HomeAssistant, fake_llm: FakeLLM) -> str:
    """Our agent over Assist, in a home with a porch light (off) exposed."""
    hass = ha_core
    assert await async_setup_component(
        hass, "input_boolean", {"input_boolean": {"porch": {"name": "Porch light"}}}
    )
    assert await async_setup_component(hass, "intent", {})
    await hass.async_block_till_done()
    async_expose_entity(hass, conversation.DOMAIN, PORCH, True)
    return await add_agent(hass, fake_llm)


def _tool(hass: HomeAssistant) -> Callable[[str], Awaitable[str]]:
    async def name(tool: str) -> str:
        return await offered_name(hass, [llm.LLM_API_ASSIST], tool)

    return name


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("story", list(STORIES))
async def test_typed_a_data_answer_is_heard_in_words(
    ha_core: HomeAssistant,
    fake_llm: FakeLLM,
    agent: str,
    *,
    story: str,
    language: str,
) -> None:
    """Through async_converse: the sentence in the user's language, the home as told."""
    told = STORIES[story]
    fake_llm.script(await told.replies(_tool(ha_core)))

    heard = await say(ha_core, agent, "the porch please", language)

    assert heard == told.heard[language]
    assert state_of(ha_core, PORCH) == told.porch
    # The words are ours: the model was not asked again.
    assert len(fake_llm.requests) == len(await told.replies(_tool(ha_core)))


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("story", list(STORIES))
async def test_a_satellite_never_hears_data(
    ha_core: HomeAssistant,
    fake_llm: FakeLLM,
    agent: str,
    *,
    recorder: RecordingTTS,
    hass_ws_client: WebSocketGenerator,
    hass_client: ClientSessionGenerator,
    story: str,
    language: str,
) -> None:
    """Through a pipeline with a streaming TTS: only the sentence reaches the TTS."""
    told = STORIES[story]
    fake_llm.script(await told.replies(_tool(ha_core)))
    assert await async_setup_component(ha_core, "assist_pipeline", {})
    ws = await hass_ws_client(ha_core)
    await use_pipeline(ws, agent, language)

    output, _ = await run_pipeline(
        ha_core, ws, await hass_client(), "the porch please", language
    )

    assert recorder.said == [told.heard[language]]
    assert output["response"]["speech"]["plain"]["speech"] == told.heard[language]
    assert not [mark for mark in NEVER_HEARD if mark in "".join(recorder.said)]
    assert state_of(ha_core, PORCH) == told.porch
    await ws.close()


async def _converse_with(
    hass: HomeAssistant, fake_llm: FakeLLM, agent: str, replies: list[Reply]
) -> str:
    fake_llm.script(replies)
    return await say(hass, agent, "the porch please")


async def test_prose_around_data_is_spoken_and_the_data_is_not(
    ha_core: HomeAssistant, fake_llm: FakeLLM, agent: str
) -> None:
    """Words before and after a block are the answer; the block itself is left out."""
    answer = 'The porch light is off.\n```json\n{"state": "off"}\n```\nAnything else?'

    heard = await _converse_with(ha_core, fake_llm, agent, [Reply.text(answer)])

    assert heard == "The porch light is off.\nAnything else?"
    assert state_of(ha_core, PORCH) == "off"


async def test_a_slip_after_a_done_action_tells_both(
    ha_core: HomeAssistant, fake_llm: FakeLLM, agent: str
) -> None:
    """The porch turned on, then a made-up tool echoed: what was done, then the rest."""
    turn_on = await offered_name(ha_core, [llm.LLM_API_ASSIST], "HassTurnOn")
    replies = [
        Reply.tool_calls([(turn_on, {"name": "Porch light"})]),
        Reply.tool_calls([("todoHassAddItem", {"item": "milk"})]),
        Reply.text(ECHOED),
    ]

    heard = await _converse_with(ha_core, fake_llm, agent, replies)

    assert heard == (
        "I turned on Porch light. But I couldn't do that: there is no such action."
    )
    assert state_of(ha_core, PORCH) == "on"


async def test_a_failure_no_call_had_is_not_believed(
    ha_core: HomeAssistant, fake_llm: FakeLLM, agent: str
) -> None:
    """A failure result the model made up, with no call failing: nothing is told failed."""
    echoed = (
        '{"success": false, "error": "HomeAssistantError: Device offline", '
        '"unmatched": "Bedroom safe"}'
    )

    heard = await _converse_with(ha_core, fake_llm, agent, [Reply.text(echoed)])

    assert heard == UNSPOKEN
    assert len(fake_llm.requests) == 1


async def test_a_plain_answer_is_still_spoken_as_the_model_said_it(
    ha_core: HomeAssistant, fake_llm: FakeLLM, agent: str
) -> None:
    """A sentence that merely starts with a lower-case word and a colon is prose."""
    answer = "note: the porch light is off, and nothing else is on."

    heard = await _converse_with(ha_core, fake_llm, agent, [Reply.text(answer)])

    assert heard == answer


INTRO = 'Here is what I did:\n```json\n{"porch": "on"}\n```'


async def test_words_leading_to_data_are_followed_by_ours(
    ha_core: HomeAssistant, fake_llm: FakeLLM, agent: str
) -> None:
    """A lead-in then a block: what was done is said, not a dangling colon."""
    turn_on = await offered_name(ha_core, [llm.LLM_API_ASSIST], "HassTurnOn")
    replies = [
        Reply.tool_calls([(turn_on, {"name": "Porch light"})]),
        Reply.text(INTRO),
    ]

    heard = await _converse_with(ha_core, fake_llm, agent, replies)

    assert heard == "I turned on Porch light."
    assert state_of(ha_core, PORCH) == "on"


LONG_LEAD = "Here is everything I changed in the house for you just now, in detail:"


@pytest.mark.parametrize(
    ("lead", "said"),
    [
        # Too short to start the streaming TTS: the result's words are spoken.
        ("Here is what I did:", "I turned on Porch light."),
        # Long enough: the TTS already speaks it, ours follow.
        (LONG_LEAD, f"{LONG_LEAD} I turned on Porch light."),
    ],
    ids=["short", "long"],
)
async def test_a_satellite_hears_the_lead_in_then_ours(
    ha_core: HomeAssistant,
    fake_llm: FakeLLM,
    agent: str,
    *,
    recorder: RecordingTTS,
    hass_ws_client: WebSocketGenerator,
    hass_client: ClientSessionGenerator,
    lead: str,
    said: str,
) -> None:
    """The block after a lead-in never reaches the TTS; what was done is said."""
    turn_on = await offered_name(ha_core, [llm.LLM_API_ASSIST], "HassTurnOn")
    fake_llm.script(
        [
            Reply.tool_calls([(turn_on, {"name": "Porch light"})]),
            Reply.text(f'{lead}\n```json\n{{"porch": "on"}}\n```'),
        ]
    )
    assert await async_setup_component(ha_core, "assist_pipeline", {})
    ws = await hass_ws_client(ha_core)
    await use_pipeline(ws, agent)

    output, _ = await run_pipeline(ha_core, ws, await hass_client(), "porch please")

    assert recorder.said == [said]
    assert output["response"]["speech"]["plain"]["speech"] == (
        "I turned on Porch light."
    )
    assert state_of(ha_core, PORCH) == "on"
    await ws.close()


UNSPOKEN = "Sorry, I couldn't put my answer into words. Please ask again."
# Aliases that would grow into billions of items.
YAML_BOMB = (
    "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a]\n"
    "c: &c [*b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c]"
)


@pytest.mark.parametrize(
    "answer",
    [
        YAML_BOMB,
        "[" * 50_000,  # nesting no parser survives
        json.dumps({"result": ["x" * 100] * 20_000}),  # 2 MB of data
        '{"success": false, "unmatched": 42, "error": null}',  # our keys, odd values
        "```python\nimport os\nos.remove('/config/secrets.yaml')\n```",
    ],
    ids=["yaml_bomb", "deep", "two_megabytes", "odd_envelope", "code"],
)
async def test_strange_data_is_never_heard_and_changes_nothing(
    ha_core: HomeAssistant, fake_llm: FakeLLM, agent: str, answer: str
) -> None:
    """Whatever the data, the reply is one short sentence and the home is as it was."""
    heard = await _converse_with(
        ha_core, fake_llm, agent, [Reply.text(answer, chunk_size=65536)]
    )

    assert heard == UNSPOKEN
    assert state_of(ha_core, PORCH) == "off"


async def test_a_failure_a_later_try_fixed_is_not_told(
    ha_core: HomeAssistant, fake_llm: FakeLLM, agent: str
) -> None:
    """A wrong name, then the right one worked, then the first error echoed: done."""
    turn_on = await offered_name(ha_core, [llm.LLM_API_ASSIST], "HassTurnOn")
    echoed = (
        '{"success": false, "error": "No entities matched the name", '
        '"unmatched": "Porch"}'
    )
    replies = [
        Reply.tool_calls([(turn_on, {"name": "Porch"})]),
        Reply.tool_calls([(turn_on, {"name": "Porch light"})]),
        Reply.text(echoed),
    ]

    heard = await _converse_with(ha_core, fake_llm, agent, replies)

    assert heard == "I turned on Porch light."
    assert state_of(ha_core, PORCH) == "on"
