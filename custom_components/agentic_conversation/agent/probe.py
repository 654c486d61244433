"""Ask an OpenAI-compatible endpoint what it really does: tools? streaming?

Servers differ silently: llama.cpp's `llama-server` drops `tools` when the model's chat
template has no tool support and answers in plain text; others ignore `tool_choice`.
One tiny request forcing a call of a trivial tool tells whether tools are honoured —
natively, or written as text the server passes through (its tool-call parser not set
up for the model; the agent reads and carries out such calls, text_tool_calls.py); one
tiny streamed request tells whether streaming works. The probe never raises.
"""

import asyncio
from dataclasses import dataclass
import logging

from .errors import LLMBadRequestError, LLMError
from .messages import user_message
from .provider import LLMProvider
from .reasoning_text import opened_in_prompt
from .tool_calls import ToolSpec

_LOGGER = logging.getLogger(__name__)

PROBE_TOOL = ToolSpec(
    name="agentic_probe",
    description="Call this tool to confirm that you can call tools.",
    parameters={"type": "object", "properties": {}},
)
PROBE_PROMPT = "Call the agentic_probe tool now. Do not answer with text."
STREAM_PROMPT = "Reply with the single word: ok"


@dataclass(frozen=True, slots=True)
class EndpointCapabilities:
    """What the endpoint did when asked; None where it could not be asked."""

    tools: bool | None
    streaming: bool | None
    detail: str
    context_tokens: int | None = None
    """The context size the server runs the model with, where it tells."""
    calls_as_text: bool = False
    """The model called the tool by writing the call as text (tools is True)."""
    reasoning_opened: bool = False
    """The model's text started inside a reasoning block its template opened."""


async def probe_endpoint(
    provider: LLMProvider,
    *,
    tools: bool = True,
    streaming: bool = True,
    limit: float = 20.0,
) -> EndpointCapabilities:
    """Probe tool calling and streaming (each only if asked for); never raises."""
    notes: list[str] = []
    written: list[str] = []  # the model's texts, to see how its reasoning shows
    tools_ok, as_text = (
        await _probe_tools(provider, limit, notes, written) if tools else (None, False)
    )
    stream_ok = (
        await _probe_streaming(provider, limit, notes, written) if streaming else None
    )
    return EndpointCapabilities(
        tools_ok,
        stream_ok,
        "; ".join(notes),
        calls_as_text=as_text,
        reasoning_opened=any(opened_in_prompt(text) for text in written),
    )


async def _probe_tools(
    provider: LLMProvider, limit: float, notes: list[str], written: list[str]
) -> tuple[bool | None, bool]:
    """Whether the tool was called, and whether as text."""
    messages = [user_message(PROBE_PROMPT)]
    for choice in ("required", "auto"):
        try:
            async with asyncio.timeout(limit):
                response = await provider.complete(
                    messages, [PROBE_TOOL], tool_choice=choice, timeout=limit
                )
        except LLMBadRequestError as err:
            # Some servers reject "required" (or tools altogether).
            notes.append(f"tools with tool_choice={choice!r} refused: {err}")
            continue
        except (LLMError, TimeoutError) as err:
            notes.append(f"tool probe failed: {err!r}")
            return None, False
        written.append(response.text)
        if response.tool_calls and response.calls_from_text:
            notes.append(
                f"the model writes tool calls as text (tool_choice={choice!r}): the"
                " server passes them through; they are read and carried out"
            )
            return True, True
        if response.tool_calls:
            notes.append(f"tools honoured (tool_choice={choice!r})")
            return True, False
        notes.append(
            f"asked to call a tool (tool_choice={choice!r}), the server answered"
            f" with text: {response.text[:80]!r}"
        )
        return False, False
    return False, False


async def _probe_streaming(
    provider: LLMProvider, limit: float, notes: list[str], written: list[str]
) -> bool | None:
    pieces: list[str] = []
    try:
        async with asyncio.timeout(limit):
            response = await provider.complete(
                [user_message(STREAM_PROMPT)],
                [],
                on_delta=pieces.append,
                timeout=limit,
            )
    except LLMBadRequestError as err:
        notes.append(f"streaming refused: {err}")
        return False
    except (LLMError, TimeoutError) as err:
        notes.append(f"stream probe failed: {err!r}")
        return None
    notes.append(f"streamed {len(pieces)} pieces")
    written.append(response.text)
    return bool(pieces) or not response.text
