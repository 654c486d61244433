"""The loop's tool dispatcher over a chat log's HA LLM API (Assist, ours, any other)."""

import json
from typing import Any

import probatio

from homeassistant.helpers import llm

from .agent import ToolSpec, ToolValidationError


class ToolReportedError(Exception):
    """A Home Assistant tool answered with an error result."""


class ChatLogToolDispatcher:
    """Runs the loop's tool calls through the chat log's HA LLM API (Assist, ours…)."""

    def __init__(self, api: llm.APIInstance) -> None:
        """Dispatch to the tools of this API instance."""
        self._api = api

    async def __call__(self, name: str, arguments: dict[str, Any]) -> Any:
        """Call a tool; bad arguments and error results raise, the loop reports them."""
        # HA does not check arguments against a tool's schema: do it here, so every
        # tool (Assist's, ours, another integration's) gets validated arguments and
        # the model a clear error.
        tool = next((t for t in self._api.tools if t.name == name), None)
        try:
            if tool is not None:
                arguments = tool.parameters(arguments)
            tool_input = llm.ToolInput(
                tool_name=name, tool_args=arguments, external=True
            )
            result = await self._api.async_call_tool(tool_input)
        except probatio.Invalid as err:
            raise ToolValidationError(f"Invalid arguments: {err}") from err
        if result.error:
            raise ToolReportedError(json.dumps(result.data))
        return result.data


def tool_specs(api: llm.APIInstance | None) -> list[ToolSpec]:
    """The HA LLM API's tools in the loop's terms (JSON schema parameters)."""
    if api is None:
        return []
    return [
        ToolSpec(
            name=tool.name,
            description=tool.description or "",
            parameters=probatio.to_openapi(
                tool.parameters,
                custom_serializer=api.custom_serializer,
                openapi_version="3.1.0",
            ),
        )
        for tool in api.tools
    ]


def original_tool(tool: llm.Tool) -> llm.Tool:
    """A tool as its API made it: merging APIs may wrap it to rename it.

    How a merged tool is renamed differs between HA releases (2026.10 prefixes every
    tool with its API, 2026.11 only those whose names collide): never parse names.
    """
    while isinstance(tool, llm.NamespacedTool):
        tool = tool.tool
    return tool


def intent_types(api: llm.APIInstance | None) -> dict[str, str]:
    """The intent (e.g. "HassTurnOn") of each offered intent tool, by offered name."""
    if api is None:
        return {}
    return {
        tool.name: original.intent_type
        for tool in api.tools
        if isinstance(original := original_tool(tool), llm.IntentTool)
    }


async def no_tools(name: str, arguments: dict[str, Any]) -> Any:
    """The dispatcher of an agent without an LLM API: the loop never offers tools."""
    raise ToolValidationError(f"No tools are available (asked for {name})")
