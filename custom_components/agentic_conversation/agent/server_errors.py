"""What a server's error says about how it is set up, and the fix it needs.

The messages are the servers' own (vLLM, llama.cpp's llama-server, Ollama, LM Studio,
LocalAI, OpenRouter, OpenAI); tests keep them as fixtures. A server that is up but set
up wrongly answers every turn with the same error: naming the fix ends that.
"""

from dataclasses import dataclass, field
from enum import StrEnum
import re

from .errors import LLMError


class SetupFault(StrEnum):
    """The kinds of set-up fault, each a spoken reply of its own."""

    NO_TOOLS = "no_tools"
    CONTEXT = "context"
    MODEL_MISSING = "model_missing"


@dataclass(frozen=True, slots=True)
class ServerProblem:
    """A set-up fault and the fix to name.

    Attributes:
        fault: What is wrong.
        fix: Which fix to name (a Repair's translation key).
        numbers: Figures the server gave (`needed` and `context` tokens).
    """

    fault: SetupFault
    fix: str
    numbers: dict[str, int] = field(default_factory=dict)


# (pattern, fault, fix): first match wins; case-insensitive.
_KNOWN: tuple[tuple[re.Pattern[str], SetupFault, str], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE | re.DOTALL), fault, fix)
    for pattern, fault, fix in (
        # vLLM started without --enable-auto-tool-choice/--tool-call-parser.
        (
            r"tool choice requires --enable-auto-tool-choice",
            SetupFault.NO_TOOLS,
            "vllm_tool_parser",
        ),
        (r"--tool-call-parser", SetupFault.NO_TOOLS, "vllm_tool_parser"),
        # llama-server without --jinja.
        (r"tools param requires --jinja", SetupFault.NO_TOOLS, "llamacpp_jinja"),
        (r"--jinja", SetupFault.NO_TOOLS, "llamacpp_jinja"),
        # Ollama: "registry.ollama.ai/library/gemma2:2b does not support tools".
        (r"does not support tools", SetupFault.NO_TOOLS, "model_without_tools"),
        # OpenRouter: no provider of the model takes tools.
        (
            r"no endpoints found that support tool",
            SetupFault.NO_TOOLS,
            "model_without_tools",
        ),
        (
            r"does not support (?:function|tool) calling",
            SetupFault.NO_TOOLS,
            "model_without_tools",
        ),
        # llama-server: "the request exceeds the available context size…".
        (r"exceeds the available context size", SetupFault.CONTEXT, "context_size"),
        # vLLM, OpenAI, OpenRouter: "…maximum context length is 4096 tokens…".
        (r"maximum context length is", SetupFault.CONTEXT, "context_size"),
        # LM Studio: "…the model is loaded with context length of only 4096 tokens…".
        (r"loaded with context length of only", SetupFault.CONTEXT, "context_size"),
        (r"context_length_exceeded", SetupFault.CONTEXT, "context_size"),
        # Ollama: 'model "qwen3:8b" not found, try pulling it first'.
        (r"not found, try pulling it", SetupFault.MODEL_MISSING, "ollama_pull"),
        # vLLM: "The model `x` does not exist."; LocalAI, OpenRouter and others.
        (
            r"model [`'\"]?[^ ]*[`'\"]? does not exist",
            SetupFault.MODEL_MISSING,
            "model_missing",
        ),
        (r"is not a valid model id", SetupFault.MODEL_MISSING, "model_missing"),
        (r"model (?:'[^']*' )?not found", SetupFault.MODEL_MISSING, "model_missing"),
    )
)
# The context size a server names ("n_ctx": 4096, "maximum context length is 4096",
# "context length of only 4096") and what the request needed.
_CONTEXT = re.compile(
    r"(?:\"?n_ctx\"?\s*[:=]\s*|maximum context length is\s+|context length of only\s+)"
    r"(\d+)",
    re.IGNORECASE,
)
_NEEDED = re.compile(
    r"(?:\"?n_prompt_tokens\"?\s*[:=]\s*|you requested (?:about\s+)?|request has\s+|"
    r"resulted in\s+|keep the first\s+)(\d+)",
    re.IGNORECASE,
)


def server_problem(error: LLMError) -> ServerProblem | None:
    """The set-up fault an error names, if it is one we know."""
    if error.status_code is not None and error.status_code < 400:
        return None
    message = str(error)
    for pattern, fault, fix in _KNOWN:
        if pattern.search(message):
            numbers: dict[str, int] = {}
            if fault is SetupFault.CONTEXT:
                if found := _CONTEXT.search(message):
                    numbers["context"] = int(found[1])
                if found := _NEEDED.search(message):
                    numbers["needed"] = int(found[1])
            return ServerProblem(fault, fix, numbers)
    return None
