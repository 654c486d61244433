"""Monthly budgets: what is left, told before it runs out, and a working home after.

The scripted server reports each answer's usage; prices per million make it a cost
(10 per million tokens in, 30 out), or tokens without a price. Time is the tests' time
zone (US/Pacific), frozen mid-month unless a test moves it.
"""

from datetime import datetime
from typing import Any

from freezegun.api import FrozenDateTimeFactory
import pytest
from pytest_homeassistant_custom_component.common import (
    MockConfigEntry,
    async_capture_events,
    async_fire_time_changed,
)

from homeassistant.components import ai_task, conversation
from homeassistant.core import Context, HomeAssistant
from homeassistant.exceptions import HomeAssistantError
from homeassistant.helpers import issue_registry as ir
from homeassistant.util import dt as dt_util

from custom_components.agentic_conversation.const import (
    CONF_BUDGET,
    CONF_BUDGET_DAY,
    CONF_LOCAL_FALLBACK,
    CONF_PRICE_INPUT,
    CONF_PRICE_OUTPUT,
    DOMAIN,
    EVENT_BUDGET,
)
from tests.acceptance.home import (  # the home fixture: the table's home
    states,
    table_home,  # noqa: F401
)
from tests.across_releases import offered_name
from tests.assist_pipeline import Door
from tests.fake_llm import FakeLLM, Reply
from tests.test_ai_task import TASK, _connection
from tests.test_confirmation import NEW_AGENT_APIS, _agent

PRICES = {CONF_PRICE_INPUT: 10, CONF_PRICE_OUTPUT: 30}
SPENT = "This month's AI budget is used up; I can still do simple commands."
SPENT_LOCAL = "This month's AI budget is used up, so Home Assistant answered: "
JOKE = "Why did the lamp blush? It saw the switch."
CEILING = "light.kitchen_ceiling"
DOOR = "lock.front_door"
LEFT = "sensor.agent_budget_left"


def _local(hass: HomeAssistant, text: str) -> datetime:
    """A moment in Home Assistant's time zone."""
    moment = datetime.fromisoformat(text)
    return moment.replace(tzinfo=dt_util.get_default_time_zone())


async def _ask(
    hass: HomeAssistant, agent: str, text: str, conversation_id: str | None = None
) -> tuple[str, conversation.ConversationResult]:
    result = await conversation.async_converse(
        hass, text, conversation_id, Context(), agent_id=agent
    )
    return str(result.response.speech["plain"]["speech"]), result


def _left(hass: HomeAssistant, entity_id: str = LEFT) -> tuple[float, dict[str, Any]]:
    state = hass.states.get(entity_id)
    assert state is not None, entity_id
    return float(state.state), dict(state.attributes)


def _entry(hass: HomeAssistant) -> MockConfigEntry:
    (entry,) = hass.config_entries.async_entries(DOMAIN)
    assert isinstance(entry, MockConfigEntry)
    return entry


def _issue(hass: HomeAssistant, name: str = "Agent") -> ir.IssueEntry | None:
    entry = _entry(hass)
    subentry_id = next(
        s.subentry_id for s in entry.subentries.values() if s.title == name
    )
    return ir.async_get(hass).async_get_issue(DOMAIN, f"budget_spent_{subentry_id}")


def _placeholders(hass: HomeAssistant) -> dict[str, str]:
    """The agent's budget Repair is shown, with these figures."""
    issue = _issue(hass)
    assert issue is not None
    assert issue.translation_placeholders is not None
    return dict(issue.translation_placeholders)


def _told(events: list[Any]) -> list[tuple[int, float, float]]:
    return [(e.data["threshold"], e.data["spent"], e.data["budget"]) for e in events]


async def test_spent_mid_month_the_home_still_answers_locally(
    home: HomeAssistant, fake_llm: FakeLLM, freezer: FrozenDateTimeFactory
) -> None:
    """The turn that spends it finishes; then commands run locally, the rest is told."""
    hass = home
    freezer.move_to(_local(hass, "2026-11-15 12:00"))
    agent = await _agent(hass, fake_llm, **PRICES, **{CONF_BUDGET: 1.0})
    events = async_capture_events(hass, EVENT_BUDGET)
    before = states(hass)
    # (97 000 × 10 + 1 000 × 30) / 1 000 000 = 1.0: all of it
    fake_llm.script([Reply.text(JOKE).with_usage(97_000, 1_000)])

    joke, _ = await _ask(hass, agent, "tell me a joke")

    assert joke == JOKE  # under way when it was spent: finished, not cut
    assert _told(events) == [(80, 1.0, 1.0), (100, 1.0, 1.0)]
    assert events[0].data["entity_id"] == agent
    assert events[0].data["resets"] == _local(hass, "2026-12-01 00:00").isoformat()
    left, attributes = _left(hass)
    assert left == 0
    assert attributes["unit_of_measurement"] == hass.config.currency
    assert attributes["spent"] == 1.0
    assert attributes["used_up"] is True

    light, _ = await _ask(hass, agent, "turn on the kitchen ceiling")
    other, failed = await _ask(hass, agent, "tell me another joke")
    asked, result = await _ask(hass, agent, "unlock the front door")

    assert light == "Turned on the light"
    assert other == SPENT
    assert failed.response.error_code is not None
    assert asked == "Shall I unlock Front door?"
    assert states(hass) == before | {CEILING: "on"}  # the door still locked
    yes, _ = await _ask(hass, agent, "yes", result.conversation_id)
    assert yes == "I unlocked Front door."
    assert states(hass) == before | {CEILING: "on", DOOR: "unlocked"}
    assert len(fake_llm.requests) == 1  # none after the budget was spent
    assert len(events) == 2  # each told once
    issue = _issue(hass)
    assert issue is not None
    assert issue.translation_key == "budget_spent"
    assert _placeholders(hass) == {
        "name": "Agent",
        "spent": "1",
        "budget": "1",
        "unit": hass.config.currency,
        "resets": "2026-12-01",
    }


async def test_told_at_80_percent_once_and_the_last_request_is_not_sent(
    home: HomeAssistant, fake_llm: FakeLLM, freezer: FrozenDateTimeFactory
) -> None:
    """80 % is an event; a request whose estimate would pass the budget is not sent."""
    hass = home
    freezer.move_to(_local(hass, "2026-11-15 12:00"))
    agent = await _agent(hass, fake_llm, **PRICES, **{CONF_BUDGET: 1.0})
    events = async_capture_events(hass, EVENT_BUDGET)
    fake_llm.script(
        [
            # 0.8 + 0.03 = 0.83, then 0.1 + 0.03 more = 0.96
            Reply.text(JOKE).with_usage(80_000, 1_000),
            Reply.text("It is sunny.").with_usage(10_000, 1_000),
        ]
    )

    first, _ = await _ask(hass, agent, "tell me a joke")
    assert first == JOKE
    assert _told(events) == [(80, 0.83, 1.0)]
    assert _left(hass)[0] == pytest.approx(0.17)
    assert _issue(hass) is None

    second, _ = await _ask(hass, agent, "how is the weather?")
    assert second == "It is sunny."
    assert len(events) == 1  # 80 % is told once a period

    # 0.04 left; a request is estimated at its size (the tools: about 4 000 tokens)
    # and its answer's cap (1 024 tokens): about 0.07.
    third, _ = await _ask(hass, agent, "tell me another joke")
    light, _ = await _ask(hass, agent, "turn on the kitchen ceiling")

    assert third == SPENT
    assert light == "Turned on the light"
    assert len(fake_llm.requests) == 2
    assert _told(events) == [(80, 0.83, 1.0), (100, 0.96, 1.0)]
    assert _left(hass)[0] == pytest.approx(0.04)
    assert _placeholders(hass)["spent"] == "0.96"


async def test_refused_request_goes_to_home_assistant_when_it_understands(
    home: HomeAssistant, fake_llm: FakeLLM, freezer: FrozenDateTimeFactory
) -> None:
    """The turn's first request does not fit: HA's own agent does the command."""
    hass = home
    freezer.move_to(_local(hass, "2026-11-15 12:00"))
    # Less than one request (about 4 000 tokens of tools, and the answer's cap).
    agent = await _agent(hass, fake_llm, **{CONF_BUDGET: 3_000})
    events = async_capture_events(hass, EVENT_BUDGET)

    light, _ = await _ask(hass, agent, "turn on the kitchen ceiling")

    assert light == SPENT_LOCAL + "Turned on the light"
    assert states(hass)[CEILING] == "on"
    assert fake_llm.requests == []
    assert _told(events) == [(100, 0, 3_000)]
    assert _placeholders(hass)["spent"] == "0"


async def test_repair_goes_at_the_next_period_and_the_model_answers_again(
    home: HomeAssistant, fake_llm: FakeLLM, freezer: FrozenDateTimeFactory
) -> None:
    """The period starts on the day picked, at local midnight; all is new then."""
    hass = home
    freezer.move_to(_local(hass, "2026-11-20 23:00"))
    agent = await _agent(
        hass, fake_llm, **PRICES, **{CONF_BUDGET: 1.0, CONF_BUDGET_DAY: 21}
    )
    events = async_capture_events(hass, EVENT_BUDGET)
    fake_llm.script(
        [
            Reply.text(JOKE).with_usage(100_000, 1_000),
            Reply.text("Once upon a time.").with_usage(1_000, 10),
        ]
    )
    await _ask(hass, agent, "tell me a joke")
    assert _placeholders(hass)["resets"] == "2026-11-21"
    assert (await _ask(hass, agent, "tell me a story"))[0] == SPENT

    freezer.move_to(_local(hass, "2026-11-21 00:00:01"))
    async_fire_time_changed(hass)
    await hass.async_block_till_done()

    assert _issue(hass) is None
    left, attributes = _left(hass)
    assert left == 1.0
    assert attributes["period_start"] == _local(hass, "2026-11-21 00:00").isoformat()
    assert attributes["resets"] == _local(hass, "2026-12-21 00:00").isoformat()
    story, _ = await _ask(hass, agent, "tell me a story")
    assert story == "Once upon a time."
    assert len(fake_llm.requests) == 2
    assert [e.data["threshold"] for e in events] == [80, 100]


async def test_raising_the_budget_clears_the_repair(
    home: HomeAssistant, fake_llm: FakeLLM, freezer: FrozenDateTimeFactory
) -> None:
    """Saving a higher budget: what was spent stays, the rest is left, no Repair."""
    hass = home
    freezer.move_to(_local(hass, "2026-11-15 12:00"))
    agent = await _agent(hass, fake_llm, **PRICES, **{CONF_BUDGET: 1.0})
    fake_llm.script(
        [
            Reply.text(JOKE).with_usage(100_000, 1_000),
            Reply.text("Once upon a time.").with_usage(1_000, 10),
        ]
    )
    await _ask(hass, agent, "tell me a joke")
    assert _issue(hass) is not None
    entry = _entry(hass)
    subentry = next(iter(entry.subentries.values()))

    hass.config_entries.async_update_subentry(
        entry, subentry, data={**subentry.data, CONF_BUDGET: 2.5}
    )
    await hass.async_block_till_done()

    assert _issue(hass) is None
    assert _left(hass)[0] == pytest.approx(1.47)
    assert (await _ask(hass, agent, "tell me a story"))[0] == "Once upon a time."


async def test_a_restart_keeps_what_was_spent(
    home: HomeAssistant,
    fake_llm: FakeLLM,
    freezer: FrozenDateTimeFactory,
    hass_storage: dict[str, Any],
) -> None:
    """Saved to storage; set up again from it, with the 80 % already told."""
    hass = home
    freezer.move_to(_local(hass, "2026-11-15 12:00"))
    agent = await _agent(hass, fake_llm, **PRICES, **{CONF_BUDGET: 1.0})
    events = async_capture_events(hass, EVENT_BUDGET)
    fake_llm.script(
        [
            Reply.text(JOKE).with_usage(85_000, 1_000),  # 0.88
            Reply.text("Once upon a time.").with_usage(1_000, 100),  # 0.013
        ]
    )
    await _ask(hass, agent, "tell me a joke")
    entry = _entry(hass)
    subentry_id = next(iter(entry.subentries))

    assert await hass.config_entries.async_unload(entry.entry_id)
    saved = hass_storage[f"{DOMAIN}.budget.{subentry_id}"]["data"]
    assert saved["spent"] == "0.88"
    assert saved["alerted"] == [80]
    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()

    assert _left(hass)[0] == pytest.approx(0.12)
    await _ask(hass, agent, "tell me a story")
    assert _left(hass)[0] == pytest.approx(0.107)
    assert _told(events) == [(80, 0.88, 1.0)]  # not told again after the restart


async def test_tokens_only_budget(
    home: HomeAssistant, fake_llm: FakeLLM, freezer: FrozenDateTimeFactory
) -> None:
    """No price: the budget counts tokens, in and out alike."""
    hass = home
    freezer.move_to(_local(hass, "2026-11-15 12:00"))
    agent = await _agent(
        hass, fake_llm, **{CONF_BUDGET: 10_000, CONF_LOCAL_FALLBACK: False}
    )
    events = async_capture_events(hass, EVENT_BUDGET)
    fake_llm.script([Reply.text(JOKE).with_usage(6_000, 2_000)])

    first, _ = await _ask(hass, agent, "tell me a joke")
    left, attributes = _left(hass)

    assert first == JOKE
    assert left == 2000
    assert attributes["unit_of_measurement"] == "tokens"
    assert hass.states.get("sensor.agent_cost") is None
    assert _told(events) == [(80, 8000, 10_000)]

    # 2 000 left: a request is estimated at about 4 000 tokens and its answer's cap.
    second, _ = await _ask(hass, agent, "tell me another joke")
    light, _ = await _ask(hass, agent, "turn on the kitchen ceiling")

    assert second == SPENT
    assert light == "Turned on the light"
    assert states(hass)[CEILING] == "on"
    assert len(fake_llm.requests) == 1
    assert _told(events) == [(80, 8000, 10_000), (100, 8000, 10_000)]
    assert _placeholders(hass)["unit"] == "tokens"
    assert _placeholders(hass)["spent"] == "8000"


async def test_ai_task_refused_with_its_error(
    ha_core: HomeAssistant, fake_llm: FakeLLM, freezer: FrozenDateTimeFactory
) -> None:
    """A task past its budget fails, naming the budget; nothing reaches the model."""
    freezer.move_to(_local(ha_core, "2026-11-15 12:00"))
    await _connection(ha_core, fake_llm, task={CONF_BUDGET: 2000})
    fake_llm.script([Reply.text("A quiet day.").with_usage(1_800, 200)])

    done = await ai_task.async_generate_data(
        ha_core, task_name="day", entity_id=TASK, instructions="Sum up the day."
    )
    assert done.data == "A quiet day."

    with pytest.raises(HomeAssistantError) as raised:
        await ai_task.async_generate_data(
            ha_core, task_name="day", entity_id=TASK, instructions="Sum up the day."
        )

    assert raised.value.translation_key == "task_budget_spent"
    assert str(raised.value) == (
        "The AI budget of AI Task is used up for this period: the task was not sent"
        " to the model. Raise its monthly budget in its settings, or wait for the"
        " next period"  # HA drops the final stop
    )
    assert len(fake_llm.requests) == 1
    assert _left(ha_core, "sensor.ai_task_budget_left")[0] == 0
    assert _issue(ha_core, "AI Task") is not None
    assert _issue(ha_core, "Agent") is None  # the agent has no budget


async def test_the_budget_sentence_is_in_the_users_language(
    home: HomeAssistant, fake_llm: FakeLLM, freezer: FrozenDateTimeFactory
) -> None:
    """German in, German out; the command still done by Home Assistant."""
    hass = home
    freezer.move_to(_local(hass, "2026-11-15 12:00"))
    agent = await _agent(hass, fake_llm, **{CONF_BUDGET: 10_000})
    fake_llm.script([Reply.text("Gern.").with_usage(9_000, 1_000)])
    await _ask(hass, agent, "tell me a joke")

    result = await conversation.async_converse(
        hass, "Erzähl mir einen Witz", None, Context(), language="de", agent_id=agent
    )

    assert result.response.speech["plain"]["speech"] == (
        "Das KI-Budget für diesen Monat ist aufgebraucht; einfache Befehle kann ich"
        " weiterhin ausführen."
    )
    assert len(fake_llm.requests) == 1


async def test_a_turn_under_way_ends_on_what_it_did(
    home: HomeAssistant, fake_llm: FakeLLM, freezer: FrozenDateTimeFactory
) -> None:
    """The answer to a tool result would pass the budget: not asked; the light is on."""
    hass = home
    freezer.move_to(_local(hass, "2026-11-15 12:00"))
    agent = await _agent(hass, fake_llm, **PRICES, **{CONF_BUDGET: 1.0})
    turn_on = await offered_name(hass, NEW_AGENT_APIS, "HassTurnOn")
    fake_llm.script(
        [
            Reply.tool_calls([(turn_on, {"name": "Kitchen ceiling"}, "c1")]).with_usage(
                95_000, 1_000
            ),
            Reply.text("Done, the light is on."),
        ]
    )

    said, _ = await _ask(hass, agent, "make it bright in the kitchen")

    assert said == (
        "I turned on Kitchen ceiling. But this month's AI budget is used up; I can"
        " still do simple commands."
    )
    assert states(hass)[CEILING] == "on"
    assert len(fake_llm.requests) == 1


async def test_every_door_hears_the_budget_sentence(
    home: HomeAssistant,
    fake_llm: FakeLLM,
    door: Door,
) -> None:
    """The dashboard and a satellite (its TTS) hear it too, and the light's answer.

    Today, not frozen: the dashboard's login token would be from the future.
    """
    hass = home
    agent = await _agent(hass, fake_llm, **{CONF_BUDGET: 10_000})
    fake_llm.script([Reply.text(JOKE).with_usage(9_000, 1_000)])
    ask = await door.open(hass, agent)

    joke = await ask("tell me a joke", None)
    spent = await ask("tell me another joke", joke["conversation_id"])
    light = await ask("turn on the kitchen ceiling", joke["conversation_id"])

    assert [
        r["response"]["speech"]["plain"]["speech"] for r in (joke, spent, light)
    ] == [JOKE, SPENT, "Turned on the light"]
    assert states(hass)[CEILING] == "on"
    assert len(fake_llm.requests) == 1
    if door.name == "pipeline":
        assert door.said == [JOKE, SPENT, "Turned on the light"]


async def test_unreadable_saved_spending_starts_from_nothing(
    home: HomeAssistant,
    fake_llm: FakeLLM,
    freezer: FrozenDateTimeFactory,
    hass_storage: dict[str, Any],
) -> None:
    """A damaged storage file does not stop the agent: the budget starts over."""
    hass = home
    freezer.move_to(_local(hass, "2026-11-15 12:00"))
    await _agent(hass, fake_llm, **PRICES, **{CONF_BUDGET: 1.0})
    entry = _entry(hass)
    key = f"{DOMAIN}.budget.{next(iter(entry.subentries))}"
    assert await hass.config_entries.async_unload(entry.entry_id)

    for spent in ("lots", "NaN", None):
        hass_storage[key]["data"]["spent"] = spent
        assert await hass.config_entries.async_setup(entry.entry_id)
        await hass.async_block_till_done()

        assert _left(hass)[0] == 1.0
        assert await hass.config_entries.async_unload(entry.entry_id)


async def test_deleting_the_connection_forgets_its_budgets(
    home: HomeAssistant,
    fake_llm: FakeLLM,
    freezer: FrozenDateTimeFactory,
    hass_storage: dict[str, Any],
) -> None:
    """What was spent and the Repair go with the connection."""
    hass = home
    freezer.move_to(_local(hass, "2026-11-15 12:00"))
    agent = await _agent(hass, fake_llm, **PRICES, **{CONF_BUDGET: 1.0})
    fake_llm.script([Reply.text(JOKE).with_usage(100_000, 1_000)])
    await _ask(hass, agent, "tell me a joke")
    entry = _entry(hass)
    subentry_id = next(iter(entry.subentries))
    assert _issue(hass) is not None
    freezer.tick(11)  # saved within seconds, not only when unloaded
    async_fire_time_changed(hass)
    await hass.async_block_till_done()
    assert hass_storage[f"{DOMAIN}.budget.{subentry_id}"]["data"]["spent"] == "1.03"

    assert await hass.config_entries.async_remove(entry.entry_id)
    await hass.async_block_till_done()

    assert f"{DOMAIN}.budget.{subentry_id}" not in hass_storage
    assert (
        ir.async_get(hass).async_get_issue(DOMAIN, f"budget_spent_{subentry_id}")
        is None
    )
