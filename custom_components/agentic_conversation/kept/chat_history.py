"""HA's chat log as the loop's history: OpenAI messages, trimmed to a budget.

The chat log of a conversation is the one history; this module turns its content into
chat-completions messages and trims the oldest exchanges to fit the agent's budget,
never separating an assistant tool call from its results.
"""

from collections.abc import Sequence
from enum import Enum
import json
from typing import Any

from homeassistant.components import conversation
from homeassistant.helpers.json import json_encoder_default

from ..agent import CHARS_PER_TOKEN, Message


def content_to_messages(
    content: Sequence[conversation.Content], agent_id: str | None = None
) -> list[Message]:
    """Convert chat-log content (without the system prompt) to chat-completions messages.

    With `agent_id`, only that agent's exchanges are kept: HA gives two agents one
    conversation id (one device, two wake words), and another agent's turns, its
    user's words included, must never reach our model.
    """
    if agent_id is not None:
        content = _answered_by(content, agent_id)
    messages: list[Message] = []
    for item in content:
        if isinstance(item, conversation.UserContent):
            messages.append({"role": "user", "content": item.content})
        elif isinstance(item, conversation.AssistantContent):
            message: Message = {"role": "assistant", "content": item.content or ""}
            if item.tool_calls:
                message["tool_calls"] = [
                    {
                        "id": call.id,
                        "type": "function",
                        "function": {
                            "name": call.tool_name,
                            "arguments": to_json(call.tool_args),
                        },
                    }
                    for call in item.tool_calls
                ]
            elif not item.content:
                continue  # an empty assistant turn tells the model nothing
            messages.append(message)
        elif isinstance(item, conversation.ToolResultContent):
            messages.append(
                {
                    "role": "tool",
                    "tool_call_id": item.tool_call_id,
                    "content": to_json(item.result.data),
                }
            )
    return _drop_unanswered_tool_calls(messages)


def to_json(data: Any) -> str:
    """JSON text of whatever a tool took or returned; never raises.

    HA's intents return dates, times, sets and their own objects; what JSON cannot hold
    becomes its string, and what cannot be walked at all (a cycle) the string of the whole.
    """
    try:
        return json.dumps(data, default=_json_default)
    except TypeError, ValueError, RecursionError:
        return json.dumps(_as_text(data))


def _json_default(value: Any) -> Any:
    try:
        return json_encoder_default(value)
    except TypeError:
        pass
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, frozenset):
        return list(value)
    return _as_text(value)


def _as_text(value: Any) -> str:
    try:
        return str(value)
    except Exception:  # noqa: BLE001 - a broken __str__ must not break the history
        return repr(type(value))


def _answered_by(
    content: Sequence[conversation.Content], agent_id: str
) -> list[conversation.Content]:
    """The exchanges (a user message and what followed) that this agent answered.

    An exchange with no answer from this agent is dropped whole; within a kept one,
    another agent's content is left out.
    """
    exchanges: list[list[conversation.Content]] = []
    for item in content:
        if isinstance(item, conversation.UserContent) or not exchanges:
            exchanges.append([])
        exchanges[-1].append(item)
    return [
        item
        for exchange in exchanges
        if any(
            isinstance(item, conversation.AssistantContent)
            and item.agent_id == agent_id
            for item in exchange
        )
        for item in exchange
        if not isinstance(
            item, conversation.AssistantContent | conversation.ToolResultContent
        )
        or item.agent_id == agent_id
    ]


def _drop_unanswered_tool_calls(messages: list[Message]) -> list[Message]:
    """Keep the history valid for strict servers.

    A turn cut short can leave a tool call without a result, or a result whose call is
    gone; chat-completions servers reject both, so such pieces are left out.
    """
    answered = {m["tool_call_id"] for m in messages if m["role"] == "tool"}
    kept: list[Message] = []
    called: set[str] = set()
    for message in messages:
        if message["role"] == "assistant" and "tool_calls" in message:
            calls = [c for c in message["tool_calls"] if c["id"] in answered]
            if not calls:
                if message["content"]:
                    kept.append({"role": "assistant", "content": message["content"]})
                continue
            called.update(c["id"] for c in calls)
            message = {**message, "tool_calls": calls}
        elif message["role"] == "tool" and message["tool_call_id"] not in called:
            continue
        kept.append(message)
    return kept


def _size(message: Message) -> int:
    return len(json.dumps(message, ensure_ascii=False))


def trim_to_budget(messages: Sequence[Message], budget_tokens: int) -> list[Message]:
    """Keep the newest whole exchanges that fit in the budget (oldest dropped first).

    History is cut only in front of a user message, so an assistant tool call always
    keeps its results. A budget of 0 sends no history.
    """
    budget = budget_tokens * CHARS_PER_TOKEN
    starts = [i for i, m in enumerate(messages) if m["role"] == "user"]
    kept_from = len(messages)
    used = 0
    for start in reversed(starts):
        exchange = sum(_size(m) for m in messages[start:kept_from])
        if used + exchange > budget:
            break
        used += exchange
        kept_from = start
    return list(messages[kept_from:])
