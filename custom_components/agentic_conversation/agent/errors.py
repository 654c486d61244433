"""Errors of the agent core: LLM failures (classified) and tool failures.

LLM errors never escape the loop; they become a stop reason carrying one of these, so the
caller can speak a short explanation chosen by `kind` and log `str(error)`.
"""

from typing import Any


class LLMError(Exception):
    """The LLM could not give a usable answer.

    Attributes:
        kind: Stable short name of the error class, for messages and logs.
        status_code: HTTP status of the failed response, if there was one.
        retry_after: Seconds the server asked us to wait (429), if it said.
    """

    kind: str = "llm"

    def __init__(
        self,
        message: str = "",
        *,
        status_code: int | None = None,
        retry_after: float | None = None,
    ) -> None:
        """Initialise with a log-friendly message and the HTTP details, if any."""
        super().__init__(message or self.__class__.__name__)
        self.status_code = status_code
        self.retry_after = retry_after

    def __repr__(self) -> str:
        """Show the class, message and HTTP details."""
        return (
            f"{self.__class__.__name__}({str(self)!r}, status_code={self.status_code},"
            f" retry_after={self.retry_after})"
        )


class LLMAuthError(LLMError):
    """The server rejected our credentials (401): a new key is needed."""

    kind = "auth"


class LLMForbiddenError(LLMError):
    """The server refused this request (403), though the key itself may be fine.

    No access to the model, a region or a moderation block: a new key would not help.
    """

    kind = "forbidden"


class LLMRateLimitError(LLMError):
    """Too many requests or quota exhausted (429)."""

    kind = "rate_limit"


class LLMTimeoutError(LLMError):
    """No (complete) answer in time: the request or the turn's deadline ran out."""

    kind = "timeout"


class LLMFirstTokenTimeoutError(LLMTimeoutError):
    """Nothing of the answer arrived within the first-token timeout."""


class LLMConnectionError(LLMError):
    """The server could not be reached, or the connection broke mid-answer."""

    kind = "connection"


class LLMStreamBrokenError(LLMConnectionError):
    """The connection broke after the answer had started streaming."""

    kind = "stream_broken"


class LLMBadRequestError(LLMError):
    """The server refused the request as such (400, 404 unknown model, 422, ...)."""

    kind = "bad_request"


class LLMServerError(LLMError):
    """The server failed (5xx) or reported an error inside a stream."""

    kind = "server"


class LLMBadResponseError(LLMError):
    """The answer could not be used: unparsable, empty, or ended early."""

    kind = "bad_response"


class LLMBudgetError(LLMError):
    """The call was not made: its estimated cost would pass the spending budget."""

    kind = "budget"


class ToolError(Exception):
    """Base of the errors a tool dispatcher raises on purpose.

    `hints` go to the model beside the message: what would work instead.
    """

    def __init__(self, message: str = "", **hints: Any) -> None:
        """The message for the model, and hints (offered names, arguments taken…)."""
        super().__init__(message)
        self.hints = hints


class ToolValidationError(ToolError):
    """The arguments of a tool call are wrong; the message tells the model how."""


class ToolHeldError(ToolError):
    """The call was not run: it waits for the user's own confirmation.

    The message tells the model so; the loop ends the turn after this round, so the
    caller can ask the user.
    """


class ToolRefusedError(ToolError):
    """The tool answered with an error result; its message and hints go back as they are."""


class UnknownToolError(ToolError):
    """The dispatcher does not know a tool of this name."""

    def __init__(self, name: str) -> None:
        """Initialise with the unknown tool's name."""
        super().__init__(f"unknown tool: {name}")
        self.name = name
