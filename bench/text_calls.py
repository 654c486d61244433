"""Benchmark: reading tool calls written as text, and holding the stream meanwhile.

1. Holding back an answer of one unbroken token streamed in one-character pieces
   (21 000 and 210 000 pieces): the time per answer, and the ratio between the two
   (10 would be linear, 100 quadratic).
2. Reading an answer that is a call, in each family's notation (tests/written_forms.py):
   the median time per answer.
3. Reading text no call is in: 20 000 characters of words, 10 MB, a 2,000-character
   dotted name.

Run: scripts/run python bench/text_calls.py
"""

from pathlib import Path
import platform
import statistics
import sys
import time

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from custom_components.agentic_conversation.agent.held_text import HeldText  # noqa: E402
from custom_components.agentic_conversation.agent.text_tool_calls import (  # noqa: E402
    recover_tool_calls,
)
from tests.written_forms import FAMILY_CALLS, written  # noqa: E402

OFFERED = ["assist__intent__HassTurnOn", "assist__intent__HassTurnOff", "get_weather"]


def _held(pieces: int) -> float:
    started = time.perf_counter()
    held = HeldText()
    for _ in range(pieces):
        held.feed("a")
    held.release()
    return time.perf_counter() - started


def _read(text: str, runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        recover_tool_calls(text, OFFERED)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    """Print the figures."""
    print(f"Python {platform.python_version()} on {platform.machine()}")
    small, large = _held(21_000), _held(210_000)
    print(
        f"held, one token in 21 000 pieces: {small * 1000:.1f} ms; in 210 000:"
        f" {large * 1000:.1f} ms (ratio {large / small:.1f})"
    )
    per_form = [
        _read(written(form, "assist__intent__HassTurnOn"), 200) for form in FAMILY_CALLS
    ]
    print(
        f"a call in each of {len(per_form)} notations: median"
        f" {statistics.median(per_form) * 1e6:.0f} µs, slowest {max(per_form) * 1e6:.0f} µs"
    )
    for name, text in (
        ("20 000 characters of words", "The porch light is on. " * 870),
        ("10 MB", "x" * 10_000_000),
        ("2,000-character dotted name", "a." * 1_000 + "a()"),
    ):
        print(f"{name}: {_read(text, 5) * 1000:.2f} ms")


if __name__ == "__main__":
    main()
