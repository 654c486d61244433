"""The loop's tool dispatcher over a chat log's HA LLM API (Assist, ours, any other).

Every call passes the turn's confirmation gate first, with what it would do: an
intent's targets resolved as HA will resolve them, the entities another tool names.
`call_service` reviews its own, exactly resolved, targets.
"""

from dataclasses import replace
import json
from typing import Any

import probatio

from homeassistant.helpers import llm

from .agent import ToolHeldError, ToolSpec, ToolValidationError
from .confirmation import HELD_MESSAGE
from .risk import UNKNOWN_SERVICE, Effect, intent_effects
from .tool_options import gate_of
from .tools.compact_api import DescribedTool
from .tools.entities import entity_refs, is_exposed, resolve_entity_ref
from .tools.services import CallServiceTool


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
        except probatio.Invalid as err:
            raise ToolValidationError(f"Invalid arguments: {err}") from err
        gate = gate_of(self._api.llm_context)
        if (
            gate is not None
            and tool is not None
            and (effects := self._effects(tool, arguments)) is not None
            and not gate.review(tool_input.id, name, arguments, effects)
        ):
            raise ToolHeldError(HELD_MESSAGE)
        try:
            result = await self._api.async_call_tool(tool_input)
        except probatio.Invalid as err:
            raise ToolValidationError(f"Invalid arguments: {err}") from err
        if gate is not None and tool_input.id in gate.held:
            # Held by the tool itself: keep it under the name the model used.
            gate.held[tool_input.id] = replace(
                gate.held[tool_input.id], tool_name=name, arguments=arguments
            )
            raise ToolHeldError(HELD_MESSAGE)
        if result.error:
            raise ToolReportedError(json.dumps(result.data))
        return result.data

    def _effects(
        self, tool: llm.Tool, arguments: dict[str, Any]
    ) -> list[Effect] | None:
        """What a call would do, for the gate; None when the tool asks the gate itself."""
        tool = original_tool(tool)
        hass = self._api.api.hass
        if isinstance(tool, CallServiceTool):
            return None
        if isinstance(tool, llm.IntentTool):
            return intent_effects(
                hass, tool.intent_type, arguments, self._api.llm_context
            )
        if tool.annotations.read_only:
            return []
        # The same reading of entity ids (and registry ids) as call_service's data.
        entity_ids = {resolve_entity_ref(hass, ref) for ref in entity_refs(arguments)}
        return [
            Effect(entity_id, entity_id.split(".", 1)[0], UNKNOWN_SERVICE, arguments)
            for entity_id in sorted(entity_ids)
            if hass.states.get(entity_id) is not None and is_exposed(hass, entity_id)
        ]


def tool_specs(api: llm.APIInstance | None) -> list[ToolSpec]:
    """The HA LLM API's tools in the loop's terms (JSON schema parameters)."""
    if api is None:
        return []
    return [
        ToolSpec(
            name=tool.name,
            description=tool.description or "",
            parameters=_json_schema(tool.parameters, api.custom_serializer),
        )
        for tool in api.tools
    ]


# HA builds every tool anew each turn, but from the same validator objects, and
# converting a schema costs about 0.1 ms a tool: the result is kept, by those objects
# (held, so that their ids stay theirs). Never mutated: it is only sent and measured.
_SCHEMAS: dict[tuple[Any, ...], tuple[list[Any], dict[str, Any]]] = {}
_SCHEMAS_KEPT = 256


def _json_schema(schema: probatio.Schema, serializer: Any) -> dict[str, Any]:
    """`probatio.to_openapi` of a tool's parameters, converted once per validators."""
    fields = schema.schema
    if not isinstance(fields, dict):
        return _to_openapi(schema, serializer)
    key = (
        id(serializer),
        schema.extra,
        schema.required,
        *((id(marker), id(validator)) for marker, validator in fields.items()),
    )
    if (kept := _SCHEMAS.get(key)) is not None:
        return kept[1]
    if len(_SCHEMAS) >= _SCHEMAS_KEPT:
        _SCHEMAS.clear()
    converted = _to_openapi(schema, serializer)
    _SCHEMAS[key] = ([serializer, *fields.items()], converted)
    return converted


def _to_openapi(schema: probatio.Schema, serializer: Any) -> dict[str, Any]:
    converted: dict[str, Any] = probatio.to_openapi(
        schema, custom_serializer=serializer, openapi_version="3.1.0"
    )
    return converted


def original_tool(tool: llm.Tool) -> llm.Tool:
    """A tool as its API made it: merging APIs wrap it to rename it, ours to describe it.

    How a merged tool is renamed differs between HA releases (2026.10 prefixes every
    tool with its API, 2026.11 only those whose names collide): never parse names.
    """
    while isinstance(tool, (llm.NamespacedTool, DescribedTool)):
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
