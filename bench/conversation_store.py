"""Benchmark (e): kept conversations at startup — 1000 of them, loaded from storage.

Each conversation holds 20 turns (a user message, a tool call and its result, an
answer), as a busy household's satellites leave them. Reported: the size of the store
file, the time to load and check it (what setup adds), and the heap it holds.

Run: scripts/run python bench/conversation_store.py [--conversations 1000] [--turns 20]
"""

import argparse
import asyncio
import gc
import json
import logging
from pathlib import Path
import sys
import time
import tracemalloc

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from homeassistant.util import dt as dt_util  # noqa: E402

from bench.harness import home_with_server, machine  # noqa: E402
from custom_components.agentic_conversation.kept.conversation_store import (
    ConversationStore,  # noqa: E402
)

AGENT = "agent"


def _turn(i: int) -> list[dict[str, object]]:
    call = f"call_{i}"
    return [
        {"role": "user", "content": f"turn on the kitchen light number {i}"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "id": call,
                    "type": "function",
                    "function": {
                        "name": "HassTurnOn",
                        "arguments": json.dumps({"name": f"Kitchen light {i}"}),
                    },
                }
            ],
        },
        {
            "role": "tool",
            "tool_call_id": call,
            "content": json.dumps(
                {"success": True, "result": {"speech": "Turned on the light"}}
            ),
        },
        {"role": "assistant", "content": f"Kitchen light {i} is on."},
    ]


async def main() -> None:
    """Write the store, load it again; print the figures."""
    logging.basicConfig(level=logging.ERROR)
    parser = argparse.ArgumentParser()
    parser.add_argument("--conversations", type=int, default=1000)
    parser.add_argument("--turns", type=int, default=20)
    args = parser.parse_args()
    print(f"machine: {machine()}")
    messages = [m for i in range(args.turns) for m in _turn(i)]
    data = {
        "agents": {
            AGENT: {
                f"conversation-{c}": {
                    "messages": messages,
                    "updated": dt_util.utcnow().isoformat(),
                    "device_id": None,
                }
                for c in range(args.conversations)
            }
        }
    }
    async with home_with_server() as (hass, _server):
        writer = ConversationStore(hass, "bench")
        await writer._store.async_save(data)  # noqa: SLF001 - the file as HA writes it
        path = Path(writer._store.path)  # noqa: SLF001
        size = await hass.async_add_executor_job(lambda: path.stat().st_size)
        gc.collect()
        tracemalloc.start()
        before, _ = tracemalloc.get_traced_memory()
        started = time.perf_counter()
        store = ConversationStore(hass, "bench")
        await store.async_load([AGENT])
        elapsed = time.perf_counter() - started
        gc.collect()
        after, _ = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        print(
            f"(e) {args.conversations} kept conversations x {args.turns} turns:"
            f" file {size / 2**20:.1f} MiB, loaded and checked in"
            f" {elapsed * 1000:.0f} ms (tracemalloc on), heap +{(after - before) / 2**20:.1f}"
            f" MiB ({(after - before) / args.conversations / 1024:.1f} KiB per conversation)"
        )
        await store.async_remove()


if __name__ == "__main__":
    asyncio.run(main())
