"""Start the built-in llama.cpp server (scripts/llama builds and caches it).

AGENTIC_LLAMA_MODEL (or `model`) chooses the model scripts/llama fetches: smollm2
(the default), qwen-0.5b or qwen-1.5b.
"""

from __future__ import annotations

import os
from pathlib import Path
import subprocess
from typing import IO

REPO = Path(__file__).resolve().parent.parent
MODEL_VARIABLE = "AGENTIC_LLAMA_MODEL"
# The default model's name as the server reports it (smollm2).
ALIAS = "smollm2-135m-instruct"


def _ask(what: str, model: str | None = None) -> str:
    """What scripts/llama prints (`ensure` builds/downloads if needed)."""
    env = dict(os.environ)
    if model:
        env[MODEL_VARIABLE] = model
    output = subprocess.run(
        [str(REPO / "scripts" / "llama"), what],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    ).stdout
    return output.strip().splitlines()[-1]


SMOLLM2_MAX_TOKENS = 256
"""The agent's answer length with SmolLM2: at 0.7 it rambles to max_tokens (1024) on
about one "tell me a joke" in six, 20 s on an idle 2-core machine and past the turn's
60 s on a busy one; a chat answer needs a few dozen tokens."""


def built_in_max_tokens() -> int | None:
    """The agent's max_tokens for the built-in model chosen (None: the default)."""
    return (
        SMOLLM2_MAX_TOKENS
        if os.environ.get(MODEL_VARIABLE, "smollm2") == "smollm2"
        else None
    )


def model_alias(model: str | None = None) -> str:
    """The name the server reports for the chosen model."""
    return _ask("alias", model)


def start_llama_server(
    port: int,
    *,
    ctx_size: int = 8192,
    model: str | None = None,
    parallel: int | None = None,
    log: IO[bytes] | None = None,
) -> subprocess.Popen[bytes]:
    """llama-server with the chosen model on 127.0.0.1:port; the caller stops it.

    `parallel`: the server's slots (each gets ctx_size / parallel tokens).
    """
    binary = _ask("ensure", model)
    path = _ask("model", model)
    extra = ["--parallel", str(parallel)] if parallel else []
    return subprocess.Popen(
        [
            binary,
            "--model",
            path,
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--jinja",  # the model's own chat template
            "--ctx-size",
            str(ctx_size),
            "--threads",
            "2",
            "--alias",
            model_alias(model),
            *extra,
        ],  # fmt: skip
        stdout=log or subprocess.DEVNULL,
        stderr=log or subprocess.DEVNULL,
    )
