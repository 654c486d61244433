"""The agent core: an agentic loop over any OpenAI-compatible LLM, free of Home Assistant.

The HA layer gives it a provider, a tool dispatcher and the history, and turns its
events into chat-log entries.
"""

from .context_budget import CHARS_PER_TOKEN
from .errors import (
    LLMAuthError,
    LLMBadRequestError,
    LLMBadResponseError,
    LLMBudgetError,
    LLMConnectionError,
    LLMError,
    LLMFirstTokenTimeoutError,
    LLMForbiddenError,
    LLMRateLimitError,
    LLMServerError,
    LLMStreamBrokenError,
    LLMTimeoutError,
    ToolError,
    ToolHeldError,
    ToolRefusedError,
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
from .fallback_provider import FallbackProvider
from .limits import LoopLimits
from .loop import AgenticLoop, EventCallback
from .messages import Message, UserContent
from .metered_provider import Hold, MeteredProvider, Spending
from .openai_provider import OpenAICompatibleProvider
from .probe import EndpointCapabilities, probe_endpoint
from .provider import (
    AnswerHeard,
    Call,
    DeltaCallback,
    LLMProvider,
    LLMResponse,
    ToolCall,
    ToolCallCallback,
    WrappedProvider,
)
from .resilient_provider import RetryingProvider
from .result import LoopResult, StopReason
from .route import CircuitBreaker, Route, RouteState
from .safe_text import safe_data, safe_text
from .tool_calls import (
    EntityCall,
    EntityReadingDispatcher,
    PreparedCall,
    RepairingDispatcher,
    ToolCallRecord,
    ToolDispatcher,
    ToolSpec,
)
from .usage import Usage, UsageCallback

__all__ = [
    "AgenticLoop",
    "AnswerHeard",
    "CHARS_PER_TOKEN",
    "Call",
    "CircuitBreaker",
    "DeltaCallback",
    "EndpointCapabilities",
    "EventCallback",
    "FallbackProvider",
    "LLMAuthError",
    "LLMBadRequestError",
    "LLMBadResponseError",
    "LLMBudgetError",
    "LLMCallStarted",
    "LLMConnectionError",
    "LLMError",
    "LLMFirstTokenTimeoutError",
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
    "Hold",
    "MeteredProvider",
    "Spending",
    "OpenAICompatibleProvider",
    "EntityCall",
    "EntityReadingDispatcher",
    "PreparedCall",
    "RepairingDispatcher",
    "RetryingProvider",
    "Route",
    "RouteState",
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
    "ToolRefusedError",
    "ToolSpec",
    "ToolValidationError",
    "UnknownToolError",
    "Usage",
    "UsageCallback",
    "UserContent",
    "WrappedProvider",
    "probe_endpoint",
    "safe_data",
    "safe_text",
]
