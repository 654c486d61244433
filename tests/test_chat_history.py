"""The chat log becomes valid history, trimmed oldest first without splitting tool pairs."""

from homeassistant.components import conversation
from homeassistant.helpers import llm

from custom_components.agentic_conversation.chat_history import (
    content_to_messages,
    trim_to_budget,
)

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
