"""Which tool a slipped name means, and arguments out of their wrapper: the pure rules."""

import json

import pytest

from custom_components.agentic_conversation.agent.messages import parse_arguments
from custom_components.agentic_conversation.agent.tool_call_repair import (
    NameMatch,
    match_tool_name,
    unwrap_arguments,
)

# 2026.10 prefixes every tool of merged APIs; 2026.11 only the colliding ones.
OFFERED_10 = {"assist__intent__HassTurnOn", "assist__intent__HassTurnOff"}
OFFERED_11 = {"intent__HassTurnOn", "intent__HassTurnOff", "search_entities"}


@pytest.mark.parametrize("offered", [OFFERED_10, OFFERED_11], ids=["10", "11"])
@pytest.mark.parametrize(
    "sent",
    [
        "hassturnon",
        "HASSTURNON",
        " HassTurnOn\n",
        "functions.HassTurnOn",
        "assist__HassTurnOn",
        "homeassistant__intent__hassTurnOn",
    ],
)
def test_a_slipped_name_that_fits_one_tool_is_that_tool(
    offered: set[str], sent: str
) -> None:
    """Case, space, `functions.` and any namespace are set aside."""
    (turn_on,) = (name for name in offered if name.endswith("HassTurnOn"))
    assert match_tool_name(sent, offered) == NameMatch(turn_on)


@pytest.mark.parametrize(
    "sent",
    [
        "default_api.HassTurnOn",
        "HassTurnOn()",
        "hass_turn_on",
        "Hass Turn On",
        "TurnOn",
        "",
        "__",
        "functions.",
    ],
)
def test_other_forms_fit_nothing(sent: str) -> None:
    """Only the known slips are read; anything else is an unknown tool."""
    assert match_tool_name(sent, OFFERED_10 | OFFERED_11) == NameMatch(None)


def test_a_name_two_tools_fit_names_both() -> None:
    """Ambiguous: no tool, and both that fit."""
    offered = {"weather_one__get_weather", "weather_two__get_weather"}
    assert match_tool_name("Get_Weather", offered) == NameMatch(
        None, ("weather_one__get_weather", "weather_two__get_weather")
    )


def test_the_whole_name_comes_before_its_namespace() -> None:
    """`GET_WEATHER` is get_weather even where script__get_weather is offered."""
    offered = {"get_weather", "script__get_weather"}
    assert match_tool_name("GET_WEATHER", offered) == NameMatch("get_weather")
    assert match_tool_name("other__get_weather", offered).fits == tuple(sorted(offered))


@pytest.mark.parametrize(
    ("sent", "arguments"),
    [
        ({"arguments": {"name": "Porch"}}, {"name": "Porch"}),
        ({"parameters": '{"name": "Porch"}'}, {"name": "Porch"}),
        ({"input": None}, {}),
    ],
)
def test_wrapped_arguments_are_unwrapped(
    sent: dict[str, object], arguments: dict[str, object]
) -> None:
    """Alone in `arguments`/`parameters`/`input`, an object (or JSON of one), null."""
    assert unwrap_arguments(sent, {"name"}).arguments == arguments


@pytest.mark.parametrize(
    "sent",
    [
        {"arguments": {"name": "Porch"}, "name": "Porch"},  # not alone
        {"input": "turn on the porch"},  # text, not an object
        {"Arguments": {"name": "Porch"}},  # not a wrapper we know
        {"args": {"name": "Porch"}},
    ],
)
def test_other_shapes_stay_as_sent(sent: dict[str, object]) -> None:
    """What is not plainly a wrapper is left for the tool's own check."""
    assert unwrap_arguments(sent, {"name"}).arguments == sent


def test_a_key_the_tool_takes_is_not_a_wrapper() -> None:
    """A tool with an `input` argument gets it."""
    sent = {"input": {"text": "hi"}}
    assert unwrap_arguments(sent, {"input"}).arguments == sent


@pytest.mark.parametrize(
    ("raw", "parsed"),
    [
        ("null", {}),
        (json.dumps(json.dumps({"name": "Porch"})), {"name": "Porch"}),
        ("[1]", "[1]"),  # not an object: quoted back in the error
    ],
)
def test_wire_arguments(raw: str, parsed: object) -> None:
    """`null` is no arguments; an object encoded twice is the object."""
    assert parse_arguments(raw) == parsed


@pytest.mark.parametrize(
    "sent", ["intentHassTurnOn", "IntentHassTurnOn", "assistintentHassTurnOn"]
)
def test_a_glued_namespace_fits_its_tool(sent: str) -> None:
    """Markdown ate the `__` of `intent__HassTurnOn`: still the one tool it names."""
    offered = {"assist__intent__HassTurnOn", "assist__intent__HassTurnOff"}
    assert match_tool_name(sent, offered) == NameMatch("assist__intent__HassTurnOn")


@pytest.mark.parametrize(
    "sent",
    ["intentHassTurn", "HassTurnOnintent", "otherHassTurnOn", "assistHassTurnOn"],
)
def test_a_glued_name_that_is_no_namespace_fits_nothing(sent: str) -> None:
    """Only the tool's own namespaces, glued in their order, count."""
    offered = {"assist__intent__HassTurnOn", "assist__intent__HassTurnOff"}
    assert match_tool_name(sent, offered) == NameMatch(None)


def test_a_glued_name_two_tools_fit_is_not_guessed() -> None:
    """`intentHassTurnOn` under two APIs: neither, both named."""
    offered = {"one__intent__HassTurnOn", "two__intent__HassTurnOn"}
    assert match_tool_name("intentHassTurnOn", offered).fits == tuple(sorted(offered))
