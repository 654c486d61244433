"""The tools as the model is offered them: their JSON schemas, the intent each is.

Tool names reach the model namespaced, and the rule differs between HA releases
(2026.10 prefixes every tool of a merged API, 2026.11 only colliding ones): the tool
behind a name is found by unwrapping it (`original_tool`), never by parsing the name.
"""

from typing import Any

import probatio

from homeassistant.helpers import llm

from .agent import ToolSpec
from .tools.compact_api import DescribedTool


def tool_specs(api: llm.APIInstance | None) -> list[ToolSpec]:
    """The HA LLM API's tools in the loop's terms (JSON schema parameters)."""
    if api is None:
        return []
    return [
        ToolSpec(
            name=tool.name,
            description=tool.description or "",
            parameters=_json_schema(tool.parameters, api),
        )
        for tool in api.tools
    ]


# HA builds every tool anew each turn (a merged API even its validators' markers), and
# converting a schema costs about 0.4 ms a tool: the result is kept, by the API (whose
# serializer converts selectors) and the schema's text, which names every marker and
# validator and every choice (an area added changes it). Never mutated: it is only
# sent and measured.
_SCHEMAS: dict[tuple[Any, ...], dict[str, Any]] = {}
_SCHEMAS_KEPT = 256


def _json_schema(schema: probatio.Schema, api: llm.APIInstance) -> dict[str, Any]:
    """`probatio.to_openapi` of a tool's parameters, converted once per schema text."""
    try:
        key = (api.api.id, schema.extra, schema.required, repr(schema.schema))
    except Exception:  # noqa: BLE001 - a validator whose repr fails: just convert
        return _to_openapi(schema, api.custom_serializer)
    if (kept := _SCHEMAS.get(key)) is not None:
        return kept
    if len(_SCHEMAS) >= _SCHEMAS_KEPT:
        _SCHEMAS.clear()
    converted = _to_openapi(schema, api.custom_serializer)
    _SCHEMAS[key] = converted
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
