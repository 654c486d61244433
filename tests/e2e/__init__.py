"""End-to-end tests: a real hass process, driven over its own APIs, and a real LLM server process."""

import json
from pathlib import Path
import subprocess
import sys
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]

# The modules that start llama.cpp share one worker and run one after another (their
# module-scoped stories still run once each). llama.cpp's threads spin at every step's
# barrier: two servers of two threads each on CI's two cores took SmolLM2's answer to
# "tell me a joke" from 1.5 s to past the turn's 58 s deadline.
LLAMA_GROUP = pytest.mark.xdist_group("llama")


def run_story(tmp: Path, *flags: str, story: str = "tests.e2e.story") -> dict[str, Any]:
    """Run `python -m <story>` with these flags; returns its report."""
    report = tmp / "report.json"
    subprocess.run(
        [sys.executable, "-m", story, str(report), *flags],
        cwd=REPO,
        check=True,
        timeout=600,
    )
    result: dict[str, Any] = json.loads(report.read_text())
    assert "error" not in result, (result["error"], result["hass_log_tail"])
    return result


def ensure_llama_or_skip() -> None:
    """Build/download the built-in llama.cpp server, or skip saying why it cannot."""
    ensure = subprocess.run(
        [str(REPO / "scripts" / "llama"), "ensure"],
        capture_output=True,
        text=True,
        timeout=3600,
        check=False,
    )
    if ensure.returncode != 0:
        reason = f"llama.cpp server could not be installed here: {ensure.stderr[-500:]}"
        print(reason)  # noqa: T201 - the reason must show in CI output
        pytest.skip(reason)
