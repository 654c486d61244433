"""Helpers shared by the agent core tests: tools, a dispatcher, event collection."""

import asyncio
from collections.abc import Awaitable, Callable
import json
from typing import Any

from custom_components.agentic_conversation.agent import (
    LoopEvent,
    LoopFinished,
    ToolSpec,
)

type Handler = Callable[..., Awaitable[Any]]

OBJECT_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}}


def spec(name: str) -> ToolSpec:
    """A tool spec with an open object schema."""
    return ToolSpec(
        name=name, description=f"The {name} tool.", parameters=OBJECT_SCHEMA
    )


async def weather(city: str) -> dict[str, Any]:
    """A tool answering at once."""
    return {"city": city, "sky": "sunny"}


class Dispatcher:
    """A tool dispatcher over named async handlers, recording every call it runs."""

    def __init__(self, **handlers: Handler) -> None:
        """Initialise with handlers by tool name."""
        self.handlers = handlers
        self.calls: list[tuple[str, dict[str, Any]]] = []

    @property
    def specs(self) -> list[ToolSpec]:
        """Specs of all the handlers' tools."""
        return [spec(name) for name in self.handlers]

    async def __call__(self, name: str, arguments: dict[str, Any]) -> Any:
        """Run the named handler with the arguments as keywords."""
        self.calls.append((name, arguments))
        return await self.handlers[name](**arguments)


class Events:
    """An on_event callback collecting events, async so the loop awaits it."""

    def __init__(self) -> None:
        """Start empty."""
        self.items: list[LoopEvent] = []
        self.changed = asyncio.Event()

    async def __call__(self, event: LoopEvent) -> None:
        """Collect one event."""
        self.items.append(event)
        self.changed.set()

    def of(self, kind: type) -> list[Any]:
        """The events of one type."""
        return [event for event in self.items if isinstance(event, kind)]

    @property
    def kinds(self) -> list[str]:
        """Event class names, in order."""
        return [type(event).__name__ for event in self.items]

    @property
    def finished(self) -> LoopFinished:
        """The LoopFinished event (asserting it is last)."""
        assert isinstance(self.items[-1], LoopFinished)
        return self.items[-1]


def envelope(message: dict[str, Any]) -> dict[str, Any]:
    """The decoded JSON envelope of a tool message."""
    assert message["role"] == "tool"
    decoded: dict[str, Any] = json.loads(message["content"])
    return decoded


def assert_consistent(messages: list[dict[str, Any]]) -> None:
    """Every assistant tool call is followed by exactly one tool message with its id."""
    index = 0
    while index < len(messages):
        message = messages[index]
        index += 1
        if message["role"] != "assistant" or not message.get("tool_calls"):
            assert message["role"] != "tool", f"orphan tool message {message}"
            continue
        ids = [call["id"] for call in message["tool_calls"]]
        results = messages[index : index + len(ids)]
        assert [m["role"] for m in results] == ["tool"] * len(ids), messages
        assert [m["tool_call_id"] for m in results] == ids
        index += len(ids)
