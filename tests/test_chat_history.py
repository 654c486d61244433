"""The chat log becomes valid history, trimmed oldest first without splitting tool pairs."""

from datetime import date, datetime, time, timedelta
from enum import Enum
import json
from typing import Any

import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry

from homeassistant.components import conversation
from homeassistant.config_entries import ConfigSubentryData
from homeassistant.const import CONF_API_KEY, CONF_LLM_HASS_API
from homeassistant.core import Context, HomeAssistant
from homeassistant.helpers import entity_registry as er, llm
from homeassistant.setup import async_setup_component

from custom_components.agentic_conversation.const import (
    CONF_BASE_URL,
    CONF_MODEL,
    DOMAIN,
)
from custom_components.agentic_conversation.kept.chat_history import (
    content_to_messages,
    trim_to_budget,
)
from tests.fake_llm import MODEL, FakeLLM, Reply

AGENT = "conversation.agentic"


def _exchange(n: int, *, with_tool: bool) -> list[conversation.Content]:
    """One user turn; optionally a tool call and its result before the answer."""
    items: list[conversation.Content] = [
        conversation.UserContent(content=f"question {n}")
    ]
    if with_tool:
        call = llm.ToolInput(
            tool_name="HassTurnOn",
            tool_args={"name": f"light {n}"},
            id=f"call_{n}",
            external=True,
        )
        items += [
            conversation.AssistantContent(agent_id=AGENT, tool_calls=[call]),
            conversation.ToolResultContent(
                agent_id=AGENT,
                tool_call_id=call.id,
                tool_name=call.tool_name,
                result=llm.ToolResult(data={"success": True}),
            ),
        ]
    items.append(conversation.AssistantContent(agent_id=AGENT, content=f"answer {n}"))
    return items


def test_content_becomes_chat_completion_messages() -> None:
    """Roles, tool calls with JSON arguments, and results matched by id."""
    messages = content_to_messages(_exchange(1, with_tool=True))
    assert messages == [
        {"role": "user", "content": "question 1"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {
                        "name": "HassTurnOn",
                        "arguments": '{"name": "light 1"}',
                    },
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": '{"success": true}'},
        {"role": "assistant", "content": "answer 1"},
    ]


def test_unanswered_tool_calls_and_orphan_results_are_left_out() -> None:
    """A turn cut short must not make the next request invalid."""
    call = llm.ToolInput(
        tool_name="get_weather", tool_args={}, id="lost", external=True
    )
    content: list[conversation.Content] = [
        conversation.UserContent(content="weather?"),
        conversation.AssistantContent(
            agent_id=AGENT, content="Checking.", tool_calls=[call]
        ),
        conversation.ToolResultContent(
            agent_id=AGENT,
            tool_call_id="other",
            tool_name="x",
            result=llm.ToolResult(data={}),
        ),
        conversation.AssistantContent(agent_id=AGENT, content=None),
    ]
    assert content_to_messages(content) == [
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "content": "Checking."},
    ]


def test_trim_keeps_newest_exchanges_and_tool_pairs_whole() -> None:
    """Oldest exchanges go first; a tool call is never separated from its result."""
    content: list[conversation.Content] = []
    for n in range(1, 6):
        content += _exchange(n, with_tool=n % 2 == 1)
    messages = content_to_messages(content)
    last_two = messages[messages.index({"role": "user", "content": "question 4"}) :]
    budget = sum(len(str(m)) for m in last_two) // 4 + 20

    trimmed = trim_to_budget(messages, budget)

    assert trimmed[0] == {"role": "user", "content": "question 4"}
    assert trimmed[-1] == {"role": "assistant", "content": "answer 5"}
    call_ids = [c["id"] for m in trimmed for c in m.get("tool_calls", [])]
    result_ids = [m["tool_call_id"] for m in trimmed if m["role"] == "tool"]
    assert call_ids == result_ids == ["call_5"]


def test_trim_with_room_for_everything_or_nothing() -> None:
    """A large budget keeps all; a zero budget sends no history."""
    messages = content_to_messages(_exchange(1, with_tool=True))
    assert trim_to_budget(messages, 100_000) == messages
    assert trim_to_budget(messages, 0) == []


class _Colour(Enum):
    RED = "red"


class _Unprintable:
    def __str__(self) -> str:
        raise RuntimeError("no words")


def _tool_turn(data: Any, args: Any) -> list[conversation.Content]:
    call = llm.ToolInput(tool_name="HassGetCurrentTime", tool_args=args, id="call_t")
    return [
        conversation.UserContent(content="what time is it"),
        conversation.AssistantContent(agent_id=AGENT, tool_calls=[call]),
        conversation.ToolResultContent(
            agent_id=AGENT,
            tool_call_id="call_t",
            tool_name=call.tool_name,
            result=llm.ToolResult(data=data),
        ),
    ]


def test_what_a_tool_returned_is_kept_as_json_whatever_its_type() -> None:
    """HA's intents answer with times and dates: the history keeps them as text."""
    cyclic: list[Any] = []
    cyclic.append(cyclic)
    data = {
        "time": time(14, 5),
        "date": date(2026, 11, 25),
        "at": datetime(2026, 11, 25, 14, 5),
        "colour": _Colour.RED,
        "names": frozenset({"porch"}),
        "ids": {"light.porch"},
        "pair": ("a", 1),
        "took": timedelta(seconds=90),
        "odd": _Unprintable(),
        "raw": b"x",
    }
    messages = content_to_messages(_tool_turn(data, {"when": time(7, 30)}))

    assert json.loads(messages[1]["tool_calls"][0]["function"]["arguments"]) == {
        "when": "07:30:00"
    }
    assert messages[2]["role"] == "tool"
    assert json.loads(messages[2]["content"]) == {
        "time": "14:05:00",
        "date": "2026-11-25",
        "at": "2026-11-25T14:05:00",
        "colour": "red",
        "names": ["porch"],
        "ids": ["light.porch"],
        "pair": ["a", 1],
        "took": "0:01:30",
        "odd": "<class 'tests.test_chat_history._Unprintable'>",
        "raw": "b'x'",
    }
    # What cannot be walked at all becomes the text of the whole.
    looped = content_to_messages(_tool_turn({"loop": cyclic}, {}))
    assert json.loads(looped[2]["content"]) == "{'loop': [[...]]}"


def test_another_agents_exchanges_are_left_out() -> None:
    """With an agent id, only that agent's exchanges (and its own tool results)."""
    other = "conversation.cloud"
    call = llm.ToolInput(
        tool_name="HassTurnOn", tool_args={"name": "x"}, id="theirs", external=True
    )
    content: list[conversation.Content] = [
        *_exchange(1, with_tool=True),
        conversation.UserContent(content="my bank PIN is 4711"),
        conversation.AssistantContent(agent_id=other, tool_calls=[call]),
        conversation.ToolResultContent(
            agent_id=other,
            tool_call_id="theirs",
            tool_name="HassTurnOn",
            result=llm.ToolResult(data={"pin": "4711"}),
        ),
        conversation.AssistantContent(agent_id=other, content="Noted: 4711."),
        conversation.UserContent(content="unanswered 4711"),
        *_exchange(2, with_tool=False),
    ]

    assert content_to_messages(content, AGENT) == [
        *content_to_messages(_exchange(1, with_tool=True)),
        {"role": "user", "content": "question 2"},
        {"role": "assistant", "content": "answer 2"},
    ]
    assert "4711" in json.dumps(content_to_messages(content))  # without, all of it


async def _our_agent(hass: HomeAssistant, server: FakeLLM, title: str) -> str:
    """Set up one of our agents on the server; return its entity id."""
    entry = MockConfigEntry(
        domain=DOMAIN,
        data={CONF_BASE_URL: server.base_url, CONF_API_KEY: "sk-test"},
        subentries_data=[
            ConfigSubentryData(
                data={CONF_MODEL: MODEL, CONF_LLM_HASS_API: [llm.LLM_API_ASSIST]},
                subentry_type="conversation",
                title=title,
                unique_id=None,
            )
        ],
    )
    entry.add_to_hass(hass)
    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()
    return next(
        e.entity_id
        for e in er.async_entries_for_config_entry(er.async_get(hass), entry.entry_id)
        if e.domain == conversation.DOMAIN
    )


@pytest.mark.parametrize("first", ["home_assistant", "ours"])
async def test_one_conversation_id_two_agents_nothing_crosses(
    ha_core: HomeAssistant, fake_llm: FakeLLM, first: str
) -> None:
    """A PIN told to another agent in the same conversation never reaches our model.

    The other agent is HA's own or another of ours (HA gives one device's two wake
    words one conversation id).
    """
    hass = ha_core
    assert await async_setup_component(hass, "intent", {})
    ours = await _our_agent(hass, fake_llm, "Local")
    other = (
        conversation.HOME_ASSISTANT_AGENT
        if first == "home_assistant"
        else await _our_agent(hass, fake_llm, "Cloud")
    )
    fake_llm.script(
        [Reply.text("Hello!")]
        if first == "home_assistant"
        else [Reply.text("Noted."), Reply.text("Hello!")]
    )

    told = await conversation.async_converse(
        hass, "my bank PIN is 4711", None, Context(), language="en", agent_id=other
    )
    answer = await conversation.async_converse(
        hass, "hello", told.conversation_id, Context(), language="en", agent_id=ours
    )

    assert answer.conversation_id == told.conversation_id
    assert answer.response.speech["plain"]["speech"] == "Hello!"
    sent = fake_llm.requests[-1]["messages"]
    assert sent[-1] == {"role": "user", "content": "hello"}
    assert "4711" not in json.dumps(sent)
    assert [m["role"] for m in sent] == ["system", "user"]
