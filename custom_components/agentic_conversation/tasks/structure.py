"""A task's structure: the JSON schema asked for, and the answer checked against it."""

import json
import re
from typing import Any

import probatio

from homeassistant.helpers import llm

# A model may wrap its JSON in a Markdown code fence even when told not to.
_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.DOTALL)


def response_format(
    name: str, structure: probatio.Schema, api: llm.APIInstance | None
) -> dict[str, Any]:
    """The structure as a `json_schema` response format."""
    schema = probatio.to_openapi(
        structure,
        custom_serializer=api.custom_serializer if api else llm.selector_serializer,
        openapi_version="3.1.0",
    )
    return {
        "type": "json_schema",
        "json_schema": {
            "name": re.sub(r"[^A-Za-z0-9_-]", "_", name)[:64] or "data",
            "schema": schema,
            # Strict mode needs every field required; HA's structures have optional
            # ones. The answer is checked here instead.
            "strict": False,
        },
    }


def check(text: str, structure: probatio.Schema) -> tuple[Any, str | None]:
    """The answer's data, or what is wrong with it (then the data is None)."""
    if found := _FENCE.match(text):
        text = found[1]
    try:
        data = json.loads(text)
    except ValueError as err:
        return None, f"not valid JSON ({err})"
    try:
        return structure(data), None
    except probatio.Invalid as err:
        return None, f"not the requested structure ({err})"


def repair_instruction(problem: str) -> str:
    """What the model is told after an answer that does not fit."""
    return (
        f"Your answer was {problem}. Reply again with only a JSON object that"
        " matches the requested schema, and nothing else."
    )
