"""Token usage: the sensors of agents and AI tasks, the trace, the prices.

Exact figures from the scripted server's `usage` (or the estimate when it has none).
"""

from homeassistant.components import conversation
from homeassistant.components.conversation import trace
from homeassistant.core import Context, HomeAssistant
from homeassistant.data_entry_flow import FlowResultType

from custom_components.agentic_conversation.const import (
    CONF_MODEL,
    CONF_PRICE_INPUT,
    CONF_PRICE_OUTPUT,
)
from tests.agent_form import submit
from tests.fake_llm import MODEL, FakeLLM, Reply
from tests.helpers import state_of as _state
from tests.test_ai_task import ANSWER, _connection, _describe_door, _door_camera


async def test_tokens_and_cost_of_two_turns_and_a_task(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """The sensors add up the server's usage; the cost follows the prices."""
    door = await _door_camera(ha_core)
    await _connection(
        ha_core,
        fake_llm,
        agent={CONF_PRICE_INPUT: 2.5, CONF_PRICE_OUTPUT: 10},
        task={CONF_PRICE_INPUT: 0.5, CONF_PRICE_OUTPUT: 1.5},
    )
    fake_llm.script(
        [
            Reply.text("Hello.").with_usage(100, 10),
            Reply.text("It is sunny.").with_usage(150, 12),
            Reply.text(ANSWER).with_usage(800, 20),
        ]
    )

    for text in ("Hi", "How is the weather?"):
        await conversation.async_converse(
            ha_core, text, None, Context(), agent_id="conversation.agent"
        )
    stats = [
        event["data"]["stats"]
        for event in trace.async_get_traces()[-1].as_dict()["events"]
        if event["event_type"] == trace.ConversationTraceEventType.AGENT_DETAIL
        and "stats" in event["data"]
    ]
    await _describe_door(ha_core, door)

    # Streamed turns asked for their usage in the last chunk.
    assert fake_llm.requests[0]["stream_options"] == {"include_usage": True}
    assert stats == [{"input_tokens": 150, "output_tokens": 12}]
    assert _state(ha_core, "sensor.agent_input_tokens") == "250"
    assert _state(ha_core, "sensor.agent_output_tokens") == "22"
    # (250 × 2.5 + 22 × 10) / 1 000 000
    assert _state(ha_core, "sensor.agent_cost") == "0.000845"
    assert _state(ha_core, "sensor.ai_task_input_tokens") == "800"
    assert _state(ha_core, "sensor.ai_task_output_tokens") == "20"
    # (800 × 0.5 + 20 × 1.5) / 1 000 000
    assert _state(ha_core, "sensor.ai_task_cost") == "0.00043"
    cost = ha_core.states.get("sensor.agent_cost")
    assert cost is not None
    assert cost.attributes["unit_of_measurement"] == ha_core.config.currency


async def test_no_price_no_cost_sensor_and_a_server_refusing_stream_options(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """Without stream_options the turn still answers; usage is then estimated."""
    await _connection(ha_core, fake_llm)
    fake_llm.script(
        [
            Reply.error(400, "Unrecognized request argument supplied: stream_options"),
            Reply.text("Hello there."),
            Reply.text("Again."),
        ]
    )

    for text in ("Hi", "Hi again"):
        result = await conversation.async_converse(
            ha_core, text, None, Context(), agent_id="conversation.agent"
        )
        assert result.response.response_type.value == "action_done"

    assert [("stream_options" in r) for r in fake_llm.requests] == [True, False, False]
    stats = [
        event["data"]["stats"]
        for event in trace.async_get_traces()[-1].as_dict()["events"]
        if event["event_type"] == trace.ConversationTraceEventType.AGENT_DETAIL
        and "stats" in event["data"]
    ]
    # In the trace too, marked as estimated ("Again.": 6 characters, 2 tokens).
    assert stats[0]["estimated"] is True
    assert stats[0]["output_tokens"] == 2
    assert ha_core.states.get("sensor.agent_cost") is None
    # Estimated: "Hello there." is 12 characters, 3 tokens; "Again." 2.
    assert _state(ha_core, "sensor.agent_output_tokens") == "5"


async def test_agent_prices_are_saved_and_an_empty_one_is_not(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """The agent form's usage section: a price set is kept, 0 or empty is none."""
    entry = await _connection(ha_core, fake_llm)
    agent = next(s for s in entry.subentries.values() if s.title == "Agent")
    result = await ha_core.config_entries.subentries.async_init(
        (entry.entry_id, "conversation"),
        context={"source": "reconfigure", "subentry_id": agent.subentry_id},
    )

    result = await submit(
        ha_core,
        result,
        {CONF_MODEL: MODEL, CONF_PRICE_INPUT: 0.15, CONF_PRICE_OUTPUT: 0},
        recommended=True,
    )

    assert result["type"] is FlowResultType.ABORT
    assert result["reason"] == "reconfigure_successful"
    saved = entry.subentries[agent.subentry_id].data
    assert saved[CONF_PRICE_INPUT] == 0.15
    assert CONF_PRICE_OUTPUT not in saved
    # The connection reloads with the agent: now it has a cost sensor.
    await ha_core.async_block_till_done()
    assert _state(ha_core, "sensor.agent_cost") == "0"


async def test_token_counts_go_on_after_a_reload(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """The sensors start from what they showed before (restored, not reset)."""
    entry = await _connection(ha_core, fake_llm)
    fake_llm.script(
        [Reply.text("Hello.").with_usage(100, 10), Reply.text("Hi.").with_usage(50, 5)]
    )
    await conversation.async_converse(
        ha_core, "Hi", None, Context(), agent_id="conversation.agent"
    )

    assert await ha_core.config_entries.async_reload(entry.entry_id)
    await ha_core.async_block_till_done()
    await conversation.async_converse(
        ha_core, "Hi again", None, Context(), agent_id="conversation.agent"
    )

    assert _state(ha_core, "sensor.agent_input_tokens") == "150"
    assert _state(ha_core, "sensor.agent_output_tokens") == "15"
