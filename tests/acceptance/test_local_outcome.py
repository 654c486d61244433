"""What the local route tells a caller: recognised intents, risky ones, how it ended."""

import pytest

from homeassistant.core import HomeAssistant

from custom_components.agentic_conversation.basic_assistant import (
    FOR_THE_MODEL,
    LocalStatus,
)

from .home import async_build_home, async_run_local, states


async def test_an_entity_on_the_ask_before_list_is_held(ha_core: HomeAssistant) -> None:
    """The agent's "ask before" list makes a plain switch risky: it stays off."""
    await async_build_home(ha_core)

    outcome = await async_run_local(
        ha_core, "turn on the coffee maker", ["switch.coffee_maker"]
    )

    assert (outcome.status, outcome.intents, outcome.risky) == (
        LocalStatus.RISKY,
        ["HassTurnOn"],
        ["HassTurnOn"],
    )
    assert outcome.answered
    assert states(ha_core)["switch.coffee_maker"] == "off"


async def test_words_it_does_not_understand_go_to_the_model(
    ha_core: HomeAssistant,
) -> None:
    """No match: nothing recognised, nothing answered, nothing changed."""
    await async_build_home(ha_core)
    before = states(ha_core)

    outcome = await async_run_local(ha_core, "tell me a joke about lamps", [])

    # 2026.10 finds no sentence; 2026.11 reads "tell me <a name>" and finds no device.
    assert outcome.status in (LocalStatus.NO_MATCH, LocalStatus.NO_TARGET)
    assert (outcome.intents, outcome.answered) == ([], False)
    assert states(ha_core) == before


async def test_a_compound_command_stops_at_its_risky_part(
    ha_core: HomeAssistant,
) -> None:
    """The lamp before the risky unlock is switched; the door stays locked."""
    await async_build_home(ha_core)

    outcome = await async_run_local(
        ha_core, "turn on the desk lamp and then unlock the front door", []
    )

    assert (outcome.status, len(outcome.intents), len(outcome.risky)) == (
        LocalStatus.RISKY,
        2,
        1,
    )
    assert states(ha_core)["lock.front_door"] == "locked"
    assert states(ha_core)["light.desk_lamp"] == "on"


@pytest.mark.parametrize(
    ("text", "intents", "changes"),
    [
        # Run, HA would say "Sorry, no device supports the required features".
        ("play jazz on the living room tv", ["HassMediaSearchAndPlay"], {}),
        ("is the desk lamp on", ["HassGetState"], {}),
        # What comes before the question runs; the question does not.
        (
            "turn on the kitchen ceiling and is the desk lamp on",
            ["HassTurnOn", "HassGetState"],
            {"light.kitchen_ceiling": "on"},
        ),
    ],
)
async def test_a_question_for_the_model_is_not_run(
    ha_core: HomeAssistant, text: str, intents: list[str], changes: dict[str, str]
) -> None:
    """Left to the model: recognised, neither run nor answered."""
    await async_build_home(ha_core)
    before = states(ha_core)

    outcome = await async_run_local(ha_core, text, [], FOR_THE_MODEL)

    assert (outcome.status, outcome.intents, outcome.speech, outcome.answered) == (
        LocalStatus.FOR_THE_MODEL,
        intents,
        None,
        False,
    )
    assert states(ha_core) == before | changes
