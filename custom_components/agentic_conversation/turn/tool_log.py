"""The turn's tools as the chat log knows them: offered, read-only, their results."""

import json
from typing import Any

from homeassistant.components import conversation
from homeassistant.helpers import llm

from ..agent import RouteState, ToolCallRecord
from .reply import Delta


def offered_tools(chat_log: conversation.ChatLog) -> frozenset[str]:
    """The tools offered to the model this turn."""
    api = chat_log.llm_api
    return frozenset(tool.name for tool in api.tools) if api else frozenset()


def read_only_tools(api: llm.APIInstance | None) -> frozenset[str]:
    """Tools that only read (searching, states, weather): they never count as done."""
    if api is None:
        return frozenset()
    return frozenset(tool.name for tool in api.tools if tool.annotations.read_only)


def tool_result_delta(record: ToolCallRecord) -> Delta:
    """A finished tool call as the chat log's tool result."""
    return {
        "role": "tool_result",
        "tool_call_id": record.call_id,
        "tool_name": record.name,
        "result": llm.ToolResult(
            data=envelope_data(record.result), error=not record.ok
        ),
    }


def envelope_data(envelope: str) -> dict[str, Any]:
    """The tool result envelope as JSON data for the chat log."""
    try:
        data = json.loads(envelope)
    except ValueError:
        return {"success": False, "error": envelope}
    return data if isinstance(data, dict) else {"result": data}


def note_repairs(
    chat_log: conversation.ChatLog, route: RouteState | None, call: ToolCallRecord
) -> None:
    """A call the model slipped on, for the trace and the Route sensor."""
    chat_log.async_trace(
        {
            "tool_call_repaired": {
                "tool_call_id": call.call_id,
                "tool_name": call.name,
                "repairs": list(call.repairs),
            }
        }
    )
    if route is not None:
        route.note_repair(call.name, call.repairs)
