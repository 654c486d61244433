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
    """

    max_iterations: int = 10
    tool_timeout: float = 10.0
    turn_timeout: float = 60.0
    max_tool_result_chars: int = 8000
