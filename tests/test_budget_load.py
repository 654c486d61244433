"""Budgets that hold: fallbacks priced apart, every retry and parallel turn counted.

And a period that outlives a new time zone or start day.

Time is the tests' time zone (US/Pacific), frozen mid-month unless a test moves it.
"""

import asyncio
from collections import Counter
import json
import math
from typing import Any

from freezegun.api import FrozenDateTimeFactory
import pytest
from pytest_homeassistant_custom_component.common import (
    MockConfigEntry,
    async_fire_time_changed,
)

from homeassistant.components import ai_task
from homeassistant.config_entries import ConfigSubentryData
from homeassistant.const import CONF_API_KEY
from homeassistant.core import HomeAssistant
from homeassistant.exceptions import HomeAssistantError

from custom_components.agentic_conversation.config_flow import (
    AgenticConversationConfigFlow,
)
from custom_components.agentic_conversation.const import (
    CONF_BASE_URL,
    CONF_BUDGET,
    CONF_BUDGET_DAY,
    CONF_FALLBACK_MODEL,
    CONF_LOCAL_FALLBACK,
    CONF_MODEL,
    DEFAULT_MAX_TOKENS,
    DOMAIN,
)
from tests.acceptance.home import table_home  # noqa: F401 - the home fixture
from tests.fake_llm import MODEL, FakeLLM, Reply, text_chunk
from tests.test_ai_task import TASK, _connection as _task_connection
from tests.test_budget import JOKE, PRICES, SPENT, _ask, _entry, _left, _local
from tests.test_confirmation import _agent

OTHER_MODEL = "model-b"


@pytest.fixture(autouse=True)
def _no_retry_wait(no_retry_wait: None) -> None:
    """Retries wait 0 s: no real sleeping."""


@pytest.fixture
async def other_llm(socket_enabled: None) -> Any:
    """The server of another connection, offering the fallback model."""
    async with FakeLLM(model_ids=(OTHER_MODEL,)) as server:
        yield server


def _estimate(body: dict[str, Any]) -> int:
    """What a request holds, in tokens: its size and its answer's cap.

    The messages and tools as JSON, at four characters a token.
    """
    chars = sum(
        len(json.dumps(message, ensure_ascii=False)) + 2 for message in body["messages"]
    )
    if body.get("tools"):
        chars += len(json.dumps(body["tools"], ensure_ascii=False))
    return math.ceil(chars / 4) + DEFAULT_MAX_TOKENS


async def _connections(
    hass: HomeAssistant,
    fake_llm: FakeLLM,
    other_llm: FakeLLM,
    agent: dict[str, Any],
    other: dict[str, Any],
) -> None:
    """Two connections: "Home", whose agent falls back to the other's model.

    "Other" has an agent "Cloud" on that model, with the `other` options.
    """
    cloud = MockConfigEntry(
        domain=DOMAIN,
        title="Other",
        minor_version=AgenticConversationConfigFlow.MINOR_VERSION,
        data={CONF_BASE_URL: other_llm.base_url, CONF_API_KEY: "sk-test"},
        subentries_data=[
            ConfigSubentryData(
                data={CONF_MODEL: OTHER_MODEL, **other},
                subentry_type="conversation",
                title="Cloud",
                unique_id=None,
            )
        ],
    )
    cloud.add_to_hass(hass)
    assert await hass.config_entries.async_setup(cloud.entry_id)
    home = MockConfigEntry(
        domain=DOMAIN,
        title="Home",
        minor_version=AgenticConversationConfigFlow.MINOR_VERSION,
        data={CONF_BASE_URL: fake_llm.base_url, CONF_API_KEY: "sk-test"},
        subentries_data=[
            ConfigSubentryData(
                data={
                    CONF_MODEL: MODEL,
                    CONF_LOCAL_FALLBACK: False,
                    CONF_FALLBACK_MODEL: f"{cloud.entry_id}:{OTHER_MODEL}",
                    **agent,
                },
                subentry_type="conversation",
                title="Agent",
                unique_id=None,
            )
        ],
    )
    home.add_to_hass(hass)
    assert await hass.config_entries.async_setup(home.entry_id)
    await hass.async_block_till_done()


@pytest.mark.parametrize(
    ("other", "cost"),
    [
        # (1 000 × 100 + 100 × 300) / 1 000 000
        ({"price_input": 100, "price_output": 300}, 0.13),
        # no price of its own: the agent's, (1 000 × 10 + 100 × 30) / 1 000 000
        ({}, 0.013),
    ],
    ids=["own prices", "no prices"],
)
async def test_a_fallback_is_priced_at_its_own_connections_prices(
    ha_core: HomeAssistant,
    fake_llm: FakeLLM,
    other_llm: FakeLLM,
    freezer: FrozenDateTimeFactory,
    *,
    other: dict[str, Any],
    cost: float,
) -> None:
    """The primary turns the request away (429, nothing spent); the fallback answers."""
    hass = ha_core
    freezer.move_to(_local(hass, "2026-11-15 12:00"))
    await _connections(hass, fake_llm, other_llm, {**PRICES, CONF_BUDGET: 1.0}, other)
    fake_llm.script([Reply.error(429, retry_after="30")])  # too long to wait for
    other_llm.script([Reply.text("The fallback speaks.").with_usage(1_000, 100)])

    said, _ = await _ask(hass, "conversation.agent", "hi")

    assert said == "The fallback speaks."
    assert [r["model"] for r in other_llm.requests] == [OTHER_MODEL]
    left, attributes = _left(hass)
    assert attributes["spent"] == pytest.approx(cost)
    assert left == pytest.approx(1.0 - cost)
    state = hass.states.get("sensor.agent_cost")
    assert state is not None
    assert float(state.state) == pytest.approx(cost)


async def test_a_fallback_counts_its_tokens_in_a_tokens_budget(
    ha_core: HomeAssistant,
    fake_llm: FakeLLM,
    other_llm: FakeLLM,
    freezer: FrozenDateTimeFactory,
) -> None:
    """No price on the agent: the fallback's tokens, whatever its own prices."""
    hass = ha_core
    freezer.move_to(_local(hass, "2026-11-15 12:00"))
    await _connections(
        hass,
        fake_llm,
        other_llm,
        {CONF_BUDGET: 100_000},
        {"price_input": 100, "price_output": 300},
    )
    fake_llm.script([Reply.error(429, retry_after="30")])
    other_llm.script([Reply.text("The fallback speaks.").with_usage(1_000, 100)])

    said, _ = await _ask(hass, "conversation.agent", "hi")

    assert said == "The fallback speaks."
    assert _left(hass)[0] == 100_000 - 1_100
    assert hass.states.get("sensor.agent_cost") is None


async def test_a_retried_request_is_counted_twice(
    home: HomeAssistant, fake_llm: FakeLLM, freezer: FrozenDateTimeFactory
) -> None:
    """A server error, then the answer: the failed request keeps its estimate."""
    hass = home
    freezer.move_to(_local(hass, "2026-11-15 12:00"))
    agent = await _agent(hass, fake_llm, **{CONF_BUDGET: 100_000})
    fake_llm.script([Reply.error(500), Reply.text(JOKE).with_usage(3_000, 100)])

    said, _ = await _ask(hass, agent, "tell me a joke")

    assert said == JOKE
    first, second = fake_llm.requests
    assert first == second
    estimate = _estimate(first)
    left, attributes = _left(hass)
    assert attributes["spent"] == estimate + 3_100
    assert left == 100_000 - estimate - 3_100
    # The token sensors count what servers reported: the answer's.
    tokens = hass.states.get("sensor.agent_input_tokens")
    assert tokens is not None
    assert tokens.state == "3000"


async def test_ten_turns_at_once_on_room_for_two(
    home: HomeAssistant, fake_llm: FakeLLM, freezer: FrozenDateTimeFactory
) -> None:
    """Two are sent and answered; the eight others hear the budget sentence."""
    hass = home
    freezer.move_to(_local(hass, "2026-11-15 12:00"))
    agent = await _agent(hass, fake_llm, **{CONF_BUDGET: 1_000_000})
    fake_llm.script([Reply.text(JOKE).with_usage(1, 1)])
    assert (await _ask(hass, agent, "tell me a joke"))[0] == JOKE
    estimate = _estimate(fake_llm.requests[0])
    limit = 2 + 2 * estimate + estimate // 2  # room for two requests, not three
    entry = _entry(hass)
    subentry = next(iter(entry.subentries.values()))
    hass.config_entries.async_update_subentry(
        entry, subentry, data={**subentry.data, CONF_BUDGET: limit}
    )
    await hass.async_block_till_done()
    assert _left(hass)[0] == limit - 2
    release = asyncio.Event()
    # Each answers while the others wait; the server counts more than estimated.
    reply = Reply.text(JOKE).with_usage(estimate + 300, 200)
    fake_llm.script([reply.held(text_chunk, release)] * 2)

    turns = [
        asyncio.create_task(_ask(hass, agent, "tell me a joke")) for _ in range(10)
    ]
    await fake_llm.wait_for_requests(3)
    while sum(turn.done() for turn in turns) < 8:
        await asyncio.wait(
            [t for t in turns if not t.done()], return_when=asyncio.FIRST_COMPLETED
        )
    release.set()
    heard = Counter([said for said, _ in await asyncio.gather(*turns)])

    assert heard == Counter({JOKE: 2, SPENT: 8})
    assert len(fake_llm.requests) == 3
    left, attributes = _left(hass)
    spent = 2 + 2 * (estimate + 500)
    assert attributes["spent"] == spent
    assert spent <= limit + estimate
    assert left == limit - spent
    assert attributes["used_up"] is True


async def test_ai_tasks_at_once_on_room_for_two(
    ha_core: HomeAssistant, fake_llm: FakeLLM, freezer: FrozenDateTimeFactory
) -> None:
    """Three tasks at once: two are sent, the third fails naming the budget."""
    hass = ha_core
    freezer.move_to(_local(hass, "2026-11-15 12:00"))
    await _task_connection(hass, fake_llm, task={CONF_BUDGET: 1_000_000})
    fake_llm.script([Reply.text("A quiet day.").with_usage(1, 1)])
    await ai_task.async_generate_data(
        hass, task_name="day", entity_id=TASK, instructions="Sum up the day."
    )
    estimate = _estimate(fake_llm.requests[0])
    entry = _entry(hass)
    subentry = next(s for s in entry.subentries.values() if s.title == "AI Task")
    limit = 2 + 2 * estimate + estimate // 2
    hass.config_entries.async_update_subentry(
        entry, subentry, data={**subentry.data, CONF_BUDGET: limit}
    )
    await hass.async_block_till_done()
    release = asyncio.Event()
    reply = Reply.text("A quiet day.").with_usage(estimate, 0)
    fake_llm.script([reply.held(text_chunk, release)] * 2)

    tasks = [
        asyncio.create_task(
            ai_task.async_generate_data(
                hass, task_name="day", entity_id=TASK, instructions="Sum up the day."
            )
        )
        for _ in range(3)
    ]
    await fake_llm.wait_for_requests(3)
    await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    release.set()
    results = await asyncio.gather(*tasks, return_exceptions=True)

    done = [r.data for r in results if not isinstance(r, BaseException)]
    (failed,) = [r for r in results if isinstance(r, HomeAssistantError)]
    assert done == ["A quiet day.", "A quiet day."]
    assert failed.translation_key == "task_budget_spent"
    assert len(fake_llm.requests) == 3
    assert _left(hass, "sensor.ai_task_budget_left")[1]["spent"] == 2 + 2 * estimate


async def _reload(hass: HomeAssistant) -> None:
    entry = _entry(hass)
    assert await hass.config_entries.async_reload(entry.entry_id)
    await hass.async_block_till_done()


async def test_a_new_time_zone_keeps_what_was_spent(
    home: HomeAssistant, fake_llm: FakeLLM, freezer: FrozenDateTimeFactory
) -> None:
    """The period goes on to its first start in the new zone; reloads keep it."""
    hass = home
    freezer.move_to(_local(hass, "2026-11-15 12:00"))
    agent = await _agent(hass, fake_llm, **{CONF_BUDGET: 10_000})
    fake_llm.script(
        [
            Reply.text(JOKE).with_usage(6_000, 2_000),
            Reply.text("Once upon a time.").with_usage(100, 10),
        ]
    )
    await _ask(hass, agent, "tell me a joke")
    started = _local(hass, "2026-11-01 00:00").isoformat()

    await hass.config.async_update(time_zone="Europe/Berlin")
    await hass.async_block_till_done()
    berlin = _local(hass, "2026-12-01 00:00").isoformat()
    assert berlin.endswith("+01:00")
    assert _left(hass)[1]["resets"] == berlin  # told at once, without a reload
    for _ in range(2):
        await _reload(hass)
        left, attributes = _left(hass)
        assert left == 2_000
        assert attributes["period_start"] == started
        assert attributes["resets"] == berlin

    freezer.move_to(_local(hass, "2026-11-30 23:59"))  # Berlin
    async_fire_time_changed(hass)
    await hass.async_block_till_done()
    assert _left(hass)[0] == 2_000
    freezer.move_to(_local(hass, "2026-12-01 00:00:01"))
    async_fire_time_changed(hass)
    await hass.async_block_till_done()
    left, attributes = _left(hass)
    assert left == 10_000
    assert attributes["period_start"] == berlin
    said, _ = await _ask(hass, agent, "tell me a story")
    assert said == "Once upon a time."


async def test_a_new_start_day_takes_effect_at_the_next_period(
    home: HomeAssistant, fake_llm: FakeLLM, freezer: FrozenDateTimeFactory
) -> None:
    """Day 1 to 15 on the 20th: this period runs to 15 December, spending kept."""
    hass = home
    freezer.move_to(_local(hass, "2026-11-20 12:00"))
    agent = await _agent(hass, fake_llm, **{CONF_BUDGET: 10_000})
    fake_llm.script([Reply.text(JOKE).with_usage(6_000, 2_000)])
    await _ask(hass, agent, "tell me a joke")
    entry = _entry(hass)
    subentry = next(iter(entry.subentries.values()))

    hass.config_entries.async_update_subentry(
        entry, subentry, data={**subentry.data, CONF_BUDGET_DAY: 15}
    )
    await hass.async_block_till_done()

    for _ in range(2):
        left, attributes = _left(hass)
        assert left == 2_000
        assert attributes["period_start"] == _local(hass, "2026-11-01").isoformat()
        assert attributes["resets"] == _local(hass, "2026-12-15").isoformat()
        await _reload(hass)
    freezer.move_to(_local(hass, "2026-12-01 00:00:01"))  # the old day: no new period
    async_fire_time_changed(hass)
    await hass.async_block_till_done()
    assert _left(hass)[0] == 2_000
    freezer.move_to(_local(hass, "2026-12-15 00:00:01"))
    async_fire_time_changed(hass)
    await hass.async_block_till_done()
    left, attributes = _left(hass)
    assert left == 10_000
    assert attributes["resets"] == _local(hass, "2027-01-15").isoformat()
