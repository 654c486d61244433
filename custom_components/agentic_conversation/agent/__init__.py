"""The agent core: an agentic loop over any OpenAI-compatible LLM, free of Home Assistant.

The HA layer gives it a provider, a tool dispatcher and the history, and turns its
events into chat-log entries.
"""

from .context_budget import CHARS_PER_TOKEN
from .errors import (
    LLMAuthError,
    LLMBadRequestError,
    LLMBadResponseError,
    LLMConnectionError,
    LLMError,
    LLMForbiddenError,
    LLMRateLimitError,
    LLMServerError,
    LLMStreamBrokenError,
    LLMTimeoutError,
    ToolError,
    ToolHeldError,
    ToolValidationError,
    UnknownToolError,
)
from .events import (
    LLMCallStarted,
    LoopEvent,
    LoopFinished,
    TextDelta,
    ToolCallFinished,
    ToolCallsRequested,
)
from .limits import LoopLimits
from .loop import AgenticLoop, EventCallback
from .messages import Message
from .openai_provider import OpenAICompatibleProvider
from .probe import EndpointCapabilities, probe_endpoint
from .provider import (
    DeltaCallback,
    LLMProvider,
    LLMResponse,
    ToolCall,
    ToolCallCallback,
)
from .result import LoopResult, StopReason
from .tool_calls import ToolCallRecord, ToolDispatcher, ToolSpec

__all__ = [
    "CHARS_PER_TOKEN",
    "AgenticLoop",
    "DeltaCallback",
    "EndpointCapabilities",
    "EventCallback",
    "LLMAuthError",
    "LLMBadRequestError",
    "LLMBadResponseError",
    "LLMCallStarted",
    "LLMConnectionError",
    "LLMError",
    "LLMForbiddenError",
    "LLMProvider",
    "LLMRateLimitError",
    "LLMResponse",
    "LLMServerError",
    "LLMStreamBrokenError",
    "LLMTimeoutError",
    "LoopEvent",
    "LoopFinished",
    "LoopLimits",
    "LoopResult",
    "Message",
    "OpenAICompatibleProvider",
    "StopReason",
    "TextDelta",
    "ToolCall",
    "ToolCallCallback",
    "ToolCallFinished",
    "ToolCallRecord",
    "ToolCallsRequested",
    "ToolDispatcher",
    "ToolError",
    "ToolHeldError",
    "ToolSpec",
    "ToolValidationError",
    "UnknownToolError",
    "probe_endpoint",
]
