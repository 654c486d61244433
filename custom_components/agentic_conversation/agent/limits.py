"""The bounds of one agentic turn."""

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class LoopLimits:
    """Limits of one turn.

    Attributes:
        max_iterations: LLM calls that may request tools; after that one last call
            without tools asks for the final answer.
        tool_timeout: Seconds one tool call may take.
        turn_timeout: Seconds the whole turn may take, LLM calls included.
        max_tool_result_chars: Longer tool results are cut, with a visible marker.
        context_tokens: The model's context window; every request of the turn is
            fitted into it (see `context_budget`). None: requests are not fitted.
        answer_tokens: Room kept in the context window for the answer.
    """

    max_iterations: int = 10
    tool_timeout: float = 10.0
    turn_timeout: float = 60.0
    max_tool_result_chars: int = 8000
    context_tokens: int | None = None
    answer_tokens: int = 0
