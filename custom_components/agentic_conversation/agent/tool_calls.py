"""Tools: what is offered to the LLM, how one call runs, and its JSON result envelope.

Every outcome of a tool call (success, bad arguments, unknown tool, exception, timeout)
becomes a JSON envelope the model can read and recover from; nothing escapes.
"""

from __future__ import annotations

import asyncio
from collections.abc import Collection
from dataclasses import dataclass, replace
import json
import logging
import time
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from .errors import (
    ToolHeldError,
    ToolRefusedError,
    ToolValidationError,
    UnknownToolError,
)
from .safe_text import safe_text
from .tool_call_repair import match_tool_name

if TYPE_CHECKING:
    from .provider import ToolCall

_LOGGER = logging.getLogger(__name__)

# How much of unparsable arguments to quote back to the model.
_QUOTE_CHARS = 500
# How the error of a call of a tool that does not exist begins (or of a name that
# fits several: no tool was called either).
UNKNOWN_TOOL = "Unknown tool:"
AMBIGUOUS_TOOL = "Ambiguous tool name:"
_QUOTE_NAME_CHARS = 80


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """A tool offered to the LLM.

    Attributes:
        name: The function name the LLM calls.
        description: What the tool does, for the LLM.
        parameters: The JSON schema of the arguments object.
    """

    name: str
    description: str
    parameters: dict[str, Any]

    def to_openai(self) -> dict[str, Any]:
        """The chat-completions `tools` entry."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            },
        }


class ToolDispatcher(Protocol):
    """Runs a tool by name.

    Raises `ToolValidationError` for bad arguments, `UnknownToolError` for a tool it
    does not know; any other exception is reported to the model as well.
    """

    async def __call__(self, name: str, arguments: dict[str, Any]) -> Any:
        """Run the tool and return a JSON-serialisable result."""
        ...


@dataclass(frozen=True, slots=True)
class PreparedCall:
    """A call's arguments as its tool takes them, and what was repaired to get there.

    Attributes:
        arguments: What the tool is called with.
        repairs: Each repair, in words, for the trace and the Route sensor.
        ignored: Arguments the tool does not take, dropped: the model is told.
    """

    arguments: dict[str, Any]
    repairs: tuple[str, ...] = ()
    ignored: tuple[str, ...] = ()


@runtime_checkable
class ShowingDispatcher(ToolDispatcher, Protocol):
    """A dispatcher whose tools may take pictures for the model to see next."""

    def take_snapshots(self) -> list[tuple[str, dict[str, Any]]]:
        """The pictures taken since last asked: (what is kept, the image part)."""
        ...


@dataclass(frozen=True, slots=True)
class EntityCall:
    """A call naming an entity instead of a tool, read as the tool call it means."""

    name: str
    arguments: dict[str, Any]
    repair: str


@runtime_checkable
class EntityReadingDispatcher(ToolDispatcher, Protocol):
    """A dispatcher that knows the home's entities, to read one called as a tool."""

    def entity_call(
        self, name: str, arguments: dict[str, Any], offered: Collection[str]
    ) -> EntityCall | None:
        """The call an entity's id as a tool's name plainly means, if any."""
        ...


@runtime_checkable
class RepairingDispatcher(ToolDispatcher, Protocol):
    """A dispatcher that knows its tools' arguments, and repairs plain slips in them."""

    async def prepare(self, name: str, arguments: dict[str, Any]) -> PreparedCall:
        """The arguments as the tool takes them; raises `ToolError` to refuse."""
        ...


@dataclass(frozen=True, slots=True)
class ToolCallRecord:
    """What happened to one tool call.

    Attributes:
        call_id: The LLM's id of the call.
        name: The tool's name.
        arguments: Parsed arguments, or the raw text when they were not a JSON object.
        ok: Whether the tool ran and succeeded.
        error: The error told to the model, if not ok.
        duration: Seconds the call took.
        result: The JSON envelope sent to the model.
        started_at: time.monotonic() when the call started.
        finished_at: time.monotonic() when the call finished.
        repeated: The call repeated an earlier identical one and was not run again.
        held: The call was not run; it waits for the user's confirmation.
        repairs: What was repaired in the call (its name, its arguments), in words.
    """

    call_id: str
    name: str
    arguments: dict[str, Any] | str
    ok: bool
    error: str | None
    duration: float
    result: str
    started_at: float
    finished_at: float
    repeated: bool = False
    held: bool = False
    repairs: tuple[str, ...] = ()


def _dumps(value: Any) -> str:
    # A tool result is text from anywhere (states, web, files): made safe here.
    return safe_text(json.dumps(value, ensure_ascii=False, default=str))


def truncate(text: str, max_chars: int) -> str:
    """Cut text to max_chars, with a marker saying how much was left out."""
    if len(text) <= max_chars:
        return text
    return f"{text[:max_chars]}…[truncated {len(text) - max_chars} chars]"


def success_envelope(result: Any, max_chars: int, **hints: Any) -> str:
    """The envelope of a successful call; a large result becomes a truncated string."""
    envelope: dict[str, Any] = {"success": True, "result": result, **hints}
    text = result if isinstance(result, str) else _dumps(result)
    if len(text) > max_chars:
        envelope["result"] = truncate(text, max_chars)
        envelope["truncated"] = True
    return _dumps(envelope)


def error_envelope(error: str, max_chars: int, **hints: Any) -> str:
    """The envelope of a failed call, with hints for the model to recover."""
    return _dumps({"success": False, "error": truncate(error, max_chars), **hints})


def cancelled_record(call: ToolCall, error: str, now: float) -> ToolCallRecord:
    """The record of a call that was requested but cut short (cancelled, deadline)."""
    return ToolCallRecord(
        call_id=call.id,
        name=call.name,
        arguments=call.arguments,
        ok=False,
        error=error,
        duration=0.0,
        result=_dumps({"success": False, "error": error}),
        started_at=now,
        finished_at=now,
    )


def repeated_record(
    call: ToolCall, earlier: ToolCallRecord, note: str
) -> ToolCallRecord:
    """The record of a call answered from an earlier identical call of the turn."""
    envelope = json.loads(earlier.result)
    envelope["note"] = note
    now = time.monotonic()
    return ToolCallRecord(
        call_id=call.id,
        name=earlier.name,
        arguments=call.arguments,
        ok=earlier.ok,
        error=earlier.error,
        duration=0.0,
        result=_dumps(envelope),
        started_at=now,
        finished_at=now,
        repeated=True,
    )


async def execute_tool_call(
    call: ToolCall,
    dispatcher: ToolDispatcher,
    offered: Collection[str],
    *,
    tool_timeout: float,
    max_result_chars: int,
) -> ToolCallRecord:
    """Run one tool call; every failure becomes an error envelope, none is raised.

    Cancellation is not a failure of the tool and propagates.
    """
    started = time.monotonic()
    error: str | None = None
    hints: dict[str, Any] = {}
    result: Any = None
    held = False
    match = match_tool_name(call.name, offered)
    repairs: list[str] = []
    if (
        match.name is None
        and not match.fits
        and isinstance(call.arguments, dict)
        and isinstance(dispatcher, EntityReadingDispatcher)
        and (meant := dispatcher.entity_call(call.name, call.arguments, offered))
    ):
        call = replace(call, name=meant.name, arguments=meant.arguments)
        match = match_tool_name(meant.name, offered)
        repairs.append(meant.repair)
    name = match.name or call.name
    if match.name is not None and match.name != call.name:
        sent = truncate(call.name, _QUOTE_NAME_CHARS)
        repairs.append(f"tool name {sent!r} read as {match.name!r}")
    ignored: tuple[str, ...] = ()
    if isinstance(call.arguments, str):
        error = "The arguments are not a valid JSON object."
        hints = {
            "received": truncate(call.arguments, _QUOTE_CHARS),
            "hint": "Call the tool again with a JSON object matching its parameters.",
        }
    elif match.fits:
        error = f"{AMBIGUOUS_TOOL} {call.name} fits " + " and ".join(match.fits)
        hints = {
            "valid_tools": list(match.fits),
            "hint": "Call one of these by its exact name.",
        }
    elif match.name is None:
        error = f"{UNKNOWN_TOOL} {call.name}"
        hints = {"valid_tools": sorted(offered)}
    else:
        deadline = asyncio.timeout(tool_timeout)
        try:
            async with deadline:
                arguments = call.arguments
                if isinstance(dispatcher, RepairingDispatcher):
                    prepared = await dispatcher.prepare(name, arguments)
                    arguments, ignored = prepared.arguments, prepared.ignored
                    repairs.extend(prepared.repairs)
                result = await dispatcher(name, arguments)
        except UnknownToolError:
            error = f"{UNKNOWN_TOOL} {call.name}"
            hints = {"valid_tools": sorted(offered)}
        except ToolHeldError as err:
            error, held = str(err), True
            hints = {"needs_user_confirmation": True}
        except ToolValidationError as err:
            error = f"Invalid arguments: {err}"
            hints = {"hint": "Fix the arguments and call the tool again.", **err.hints}
        except ToolRefusedError as err:
            error, hints = str(err), err.hints
        except TimeoutError as err:
            if deadline.expired():
                error = f"The tool did not finish within {tool_timeout:g} seconds."
            else:  # the tool's own timeout, e.g. talking to a device
                error = f"TimeoutError: {str(err) or 'the tool timed out'}"
        except Exception as err:  # noqa: BLE001 - any tool failure goes to the model
            _LOGGER.info("Tool %s failed: %s: %s", name, type(err).__name__, err)
            _LOGGER.debug("Tool %s failure", name, exc_info=True)
            error = f"{type(err).__name__}: {err}"
    if ignored:
        hints["ignored_arguments"] = list(ignored)
        hints["note"] = (
            f"{name} does not take {', '.join(ignored)}; "
            + ("it was" if len(ignored) == 1 else "they were")
            + " ignored."
        )

    if error is None:
        try:
            envelope = success_envelope(result, max_result_chars, **hints)
        except ValueError as err:  # e.g. a circular structure
            error = f"The tool's result could not be serialised: {err}"
    if error is not None:
        envelope = error_envelope(error, max_result_chars, **hints)
    finished = time.monotonic()
    _LOGGER.debug(
        "Tool %s %s in %.3f s",
        name,
        "failed" if error else "ok",
        finished - started,
    )
    return ToolCallRecord(
        call_id=call.id,
        name=name,
        arguments=call.arguments,
        ok=error is None,
        error=error,
        duration=finished - started,
        result=envelope,
        started_at=started,
        finished_at=finished,
        held=held,
        repairs=tuple(repairs),
    )
