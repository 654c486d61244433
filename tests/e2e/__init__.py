"""End-to-end tests: a real hass process, driven over its own APIs, and a real LLM server process."""

import json
from pathlib import Path
import subprocess
import sys
from typing import Any

REPO = Path(__file__).resolve().parents[2]


def run_story(tmp: Path, *flags: str) -> dict[str, Any]:
    """Run `python -m tests.e2e.story` with these flags; returns its report."""
    report = tmp / "report.json"
    subprocess.run(
        [sys.executable, "-m", "tests.e2e.story", str(report), *flags],
        cwd=REPO,
        check=True,
        timeout=600,
    )
    result: dict[str, Any] = json.loads(report.read_text())
    assert "error" not in result, (result["error"], result["hass_log_tail"])
    return result
