"""Ask an OpenAI-compatible endpoint what it really does: tools? streaming?

Servers differ silently: llama.cpp's `llama-server` drops `tools` when the model's chat
template has no tool support and answers in plain text; others ignore `tool_choice`.
One tiny request forcing a call of a trivial tool tells whether tools are honoured;
one tiny streamed request tells whether streaming works. The probe never raises.
"""

import asyncio
from dataclasses import dataclass
import logging

from .errors import LLMBadRequestError, LLMError
from .messages import user_message
from .provider import LLMProvider
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


async def probe_endpoint(
    provider: LLMProvider,
    *,
    tools: bool = True,
    streaming: bool = True,
    limit: float = 20.0,
) -> EndpointCapabilities:
    """Probe tool calling and streaming (each only if asked for); never raises."""
    notes: list[str] = []
    tools_ok = await _probe_tools(provider, limit, notes) if tools else None
    stream_ok = await _probe_streaming(provider, limit, notes) if streaming else None
    return EndpointCapabilities(tools_ok, stream_ok, "; ".join(notes))


async def _probe_tools(
    provider: LLMProvider, limit: float, notes: list[str]
) -> bool | None:
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
            return None
        if response.tool_calls:
            notes.append(f"tools honoured (tool_choice={choice!r})")
            return True
        notes.append(
            f"asked to call a tool (tool_choice={choice!r}), the server answered"
            f" with text: {response.text[:80]!r}"
        )
        return False
    return False


async def _probe_streaming(
    provider: LLMProvider, limit: float, notes: list[str]
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
    return bool(pieces) or not response.text
