"""The budget in the agent and AI task forms, and its period on short months."""

from datetime import datetime
from decimal import Decimal
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from homeassistant.core import HomeAssistant
from homeassistant.data_entry_flow import FlowResultType, InvalidData

from custom_components.agentic_conversation.const import (
    CONF_BUDGET,
    CONF_BUDGET_DAY,
    CONF_MODEL,
    CONF_PRICE_INPUT,
    CONF_TASK_TIMEOUT,
)
from custom_components.agentic_conversation.usage.budget import budget_of, start_day
from custom_components.agentic_conversation.usage.period import next_start, period_start
from tests.agent_form import submit
from tests.fake_llm import MODEL, FakeLLM
from tests.test_ai_task import _connection

ZONE = ZoneInfo("Europe/Berlin")


def _at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=ZONE)


@pytest.mark.parametrize(
    ("now", "day", "start", "then"),
    [
        # The 1st: the calendar month.
        ("2026-11-15 12:00", 1, "2026-11-01", "2026-12-01"),
        ("2026-11-01 00:00", 1, "2026-11-01", "2026-12-01"),
        # Before this month's day: the period began last month.
        ("2026-11-10 12:00", 15, "2026-10-15", "2026-11-15"),
        ("2026-12-31 23:59", 15, "2026-12-15", "2027-01-15"),
        ("2027-01-03 08:00", 15, "2026-12-15", "2027-01-15"),
        # Day 31 in shorter months: their last day.
        ("2027-03-10 12:00", 31, "2027-02-28", "2027-03-31"),
        ("2028-03-10 12:00", 31, "2028-02-29", "2028-03-31"),
        ("2027-02-28 00:00", 31, "2027-02-28", "2027-03-31"),
        ("2027-04-30 09:00", 31, "2027-04-30", "2027-05-31"),
        ("2027-02-27 23:59", 30, "2027-01-30", "2027-02-28"),
    ],
)
def test_period(now: str, day: int, start: str, then: str) -> None:
    """Where the period holding `now` starts, and the next one (local midnight)."""
    began = period_start(_at(now), day)

    assert began == _at(f"{start} 00:00")
    assert next_start(began, day) == _at(f"{then} 00:00")


async def _reconfigure_task(hass: HomeAssistant, server: FakeLLM) -> Any:
    entry = await _connection(hass, server)
    task = next(s for s in entry.subentries.values() if s.title == "AI Task")
    result = await hass.config_entries.subentries.async_init(
        (entry.entry_id, "ai_task_data"),
        context={"source": "reconfigure", "subentry_id": task.subentry_id},
    )
    return entry, task.subentry_id, result


async def test_task_budget_in_tokens_is_a_whole_number(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """The UI sends floats: a tokens budget and its day are stored as integers."""
    entry, task_id, result = await _reconfigure_task(ha_core, fake_llm)

    result = await ha_core.config_entries.subentries.async_configure(
        result["flow_id"],
        {
            CONF_MODEL: MODEL,
            CONF_TASK_TIMEOUT: 30.0,
            CONF_BUDGET: 150_000.4,
            CONF_BUDGET_DAY: 31.0,
        },
    )

    assert result["type"] is FlowResultType.ABORT
    saved = entry.subentries[task_id].data
    assert saved[CONF_BUDGET] == 150_000
    assert isinstance(saved[CONF_BUDGET], int)
    assert saved[CONF_BUDGET_DAY] == 31
    assert isinstance(saved[CONF_BUDGET_DAY], int)
    await ha_core.async_block_till_done()
    state = ha_core.states.get("sensor.ai_task_budget_left")
    assert state is not None
    assert (state.state, state.attributes["unit_of_measurement"]) == (
        "150000",
        "tokens",
    )


@pytest.mark.parametrize(
    ("field", "value"),
    [(CONF_BUDGET, -5.0), (CONF_BUDGET_DAY, 0.0), (CONF_BUDGET_DAY, 32.0)],
)
async def test_task_budget_out_of_range_is_refused(
    ha_core: HomeAssistant, fake_llm: FakeLLM, field: str, value: float
) -> None:
    """A negative budget, day 0 or 32: the form refuses it and names the field."""
    entry, task_id, result = await _reconfigure_task(ha_core, fake_llm)
    before = dict(entry.subentries[task_id].data)

    with pytest.raises(InvalidData) as raised:
        await ha_core.config_entries.subentries.async_configure(
            result["flow_id"],
            {
                CONF_MODEL: MODEL,
                CONF_TASK_TIMEOUT: 30.0,
                CONF_BUDGET: 1.0,
                field: value,
            },
        )

    assert list(raised.value.schema_errors) == [field]
    assert entry.subentries[task_id].data == before


async def test_agent_budget_in_the_usage_section(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """With a price the budget is money (kept as given); 0 means none, day and all."""
    entry = await _connection(ha_core, fake_llm)
    agent = next(s for s in entry.subentries.values() if s.title == "Agent")

    async def save(budget: float) -> dict[str, Any]:
        result = await ha_core.config_entries.subentries.async_init(
            (entry.entry_id, "conversation"),
            context={"source": "reconfigure", "subentry_id": agent.subentry_id},
        )
        result = await submit(
            ha_core,
            result,
            {
                CONF_MODEL: MODEL,
                CONF_PRICE_INPUT: 0.15,
                CONF_BUDGET: budget,
                CONF_BUDGET_DAY: 15.0,
            },
            recommended=True,
        )
        assert result["reason"] == "reconfigure_successful"
        await ha_core.async_block_till_done()
        return dict(entry.subentries[agent.subentry_id].data)

    saved = await save(2.5)
    assert (saved[CONF_BUDGET], saved[CONF_BUDGET_DAY]) == (2.5, 15)
    state = ha_core.states.get("sensor.agent_budget_left")
    assert state is not None
    assert state.state == "2.5"
    assert state.attributes["unit_of_measurement"] == ha_core.config.currency

    saved = await save(0)
    assert CONF_BUDGET not in saved
    assert CONF_BUDGET_DAY not in saved
    assert ha_core.states.get("sensor.agent_budget_left") is None


@pytest.mark.parametrize(
    ("stored", "read"),
    [
        (2.5, Decimal("2.5")),
        (150_000, Decimal(150_000)),
        ("0.75", Decimal("0.75")),
        (0, None),
        (-5, None),
        ("NaN", None),
        ("Infinity", None),
        ("lots", None),
        (True, None),
        ([1], None),
        (None, None),
    ],
)
def test_a_stored_budget_is_an_amount_or_none(stored: object, read: object) -> None:
    """Options edited by hand or by an old version: a strange budget is none."""
    assert budget_of(stored) == read


@pytest.mark.parametrize(
    ("stored", "day"),
    [(15, 15), (31.0, 31), (0, 1), (99, 31), (float("nan"), 1), ("15", 1), (None, 1)],
)
def test_a_stored_start_day_is_1_to_31(stored: object, day: int) -> None:
    """The form allows 1 to 31; anything else stored is brought into that."""
    assert start_day(stored) == day


async def test_a_strange_stored_budget_does_not_stop_the_agent(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """The connection loads, without a budget sensor; the task still runs."""
    await _connection(
        ha_core, fake_llm, task={CONF_BUDGET: "NaN", CONF_BUDGET_DAY: "soon"}
    )

    assert ha_core.states.get("sensor.ai_task_budget_left") is None
    assert ha_core.states.get("ai_task.ai_task") is not None
