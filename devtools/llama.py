"""Start the built-in llama.cpp server (scripts/llama builds and caches it)."""

from __future__ import annotations

from pathlib import Path
import subprocess

REPO = Path(__file__).resolve().parent.parent
ALIAS = "smollm2-135m-instruct"


def _ask(what: str) -> str:
    """A path printed by scripts/llama (`ensure` builds/downloads if needed)."""
    output = subprocess.run(
        [str(REPO / "scripts" / "llama"), what],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return output.strip().splitlines()[-1]


def start_llama_server(port: int, *, ctx_size: int = 8192) -> subprocess.Popen[bytes]:
    """llama-server with SmolLM2-135M on 127.0.0.1:port; the caller stops it."""
    binary = _ask("ensure")
    model = _ask("model")
    return subprocess.Popen(
        [
            binary,
            "--model",
            model,
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
            ALIAS,
        ],  # fmt: skip
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
