"""The table of bench/real_model.py, from its JSON-lines records.

The latest record of each (model, agent, home, command) counts: a slice run again
replaces the earlier one.
"""

import json
from pathlib import Path
import statistics
from typing import Any

OUTCOMES = ("done", "wrong device", "risky", "not done")
_SHORT = {"done": "done", "wrong device": "WRONG", "risky": "RISKY", "not done": "-"}


def load(paths: list[Path]) -> list[dict[str, Any]]:
    """The records, the latest of each command kept."""
    latest: dict[tuple[str, str, str, str], dict[str, Any]] = {}
    for path in paths:
        for line in path.read_text().splitlines():
            if line.strip():
                record = json.loads(line)
                key = (record["model"], record["agent"], record["home"], record["text"])
                latest[key] = record
    return list(latest.values())


def report(paths: list[Path]) -> str:
    """The summary per model and agent, then each command's outcome and time."""
    records = load(paths)
    lines: list[str] = []
    for model in sorted({r["model"] for r in records}):
        mine = [r for r in records if r["model"] == model]
        dates = sorted({r["date"] for r in mine})
        lines += [
            f"model {model}, {len(dates) and dates[0]}..{dates[-1]}",
            (
                "| agent | commands | done | wrong device | risky | not done"
                " | asked first | median s | slowest s | first command, median s |"
            ),
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
        ]
        agents = sorted({r["agent"] for r in mine}, key=_agent_order)
        for agent in agents:
            rows = [r for r in mine if r["agent"] == agent]
            counts = [sum(r["outcome"] == o for r in rows) for o in OUTCOMES]
            times = [r["seconds"] for r in rows]
            first = [r["seconds"] for r in rows if r.get("first")]
            lines.append(
                f"| {agent} | {len(rows)} | "
                + " | ".join(str(c) for c in counts)
                + f" | {sum(r['asked'] for r in rows)}"
                f" | {statistics.median(times):.1f} | {max(times):.1f}"
                f" | {statistics.median(first) if first else float('nan'):.1f} |"
            )
        lines += ["", "Prompt tokens of a home's first command's first model call:"]
        for agent in agents:
            calls = [
                r["model_calls"][0]
                for r in mine
                if r["agent"] == agent and r.get("first") and r["model_calls"]
            ]
            if calls:
                read = statistics.median(c["prompt_tokens"] or 0 for c in calls)
                kept = statistics.median(c["cached_tokens"] or 0 for c in calls)
                lines.append(
                    f"- {agent}: read {read:.0f}, reused from the cache {kept:.0f}"
                )
        lines += ["", "| home | command | " + " | ".join(agents) + " |"]
        lines.append("| --- | --- |" + " --- |" * len(agents))
        by_command: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}
        for r in mine:
            by_command.setdefault((r["home"], r["text"]), {})[r["agent"]] = r
        for (home, text), seen in by_command.items():
            cells = [
                f"{_SHORT[seen[a]['outcome']]} {seen[a]['seconds']:.1f}s"
                if a in seen
                else ""
                for a in agents
            ]
            lines.append(f"| {home} | {text} | " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines)


def _agent_order(agent: str) -> int:
    order = ("ha", "ours", "ours_model", "llama_cpp")
    return order.index(agent) if agent in order else len(order)
