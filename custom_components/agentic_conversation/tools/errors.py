"""How our tools report a problem: an error result the model can read and act on."""

from typing import Any

from homeassistant.helpers import llm


def refuse(message: str, **hints: Any) -> llm.ToolResult:
    """An error result: what went wrong and, where it helps, what to do instead."""
    return llm.ToolResult(data={"error": message, **hints}, error=True)
