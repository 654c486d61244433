"""Benchmark (d): memory held by 1000 conversations × 20 turns with our agent.

Every turn goes through Home Assistant's conversation API to our agent and a
zero-latency fake LLM; Home Assistant keeps each conversation's chat log in memory
(our agent's history lives there). Reported: Python heap growth (tracemalloc) while
the conversations are alive, per conversation and per turn, and the process RSS.

Run: scripts/run python bench/memory.py [--conversations 1000] [--turns 20]
"""

import argparse
import asyncio
import gc
import logging
from pathlib import Path
import resource
import sys
import time
import tracemalloc

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from homeassistant.components import conversation  # noqa: E402
from homeassistant.core import Context  # noqa: E402

from bench.harness import add_agent, home_with_server, machine  # noqa: E402
from tests.fake_llm import Reply  # noqa: E402

ANSWER = "The kitchen light is on and the living room is at twenty one degrees."


async def main() -> None:
    """Run the conversations; print the figures."""
    logging.basicConfig(level=logging.ERROR)
    parser = argparse.ArgumentParser()
    parser.add_argument("--conversations", type=int, default=1000)
    parser.add_argument("--turns", type=int, default=20)
    args = parser.parse_args()
    print(f"machine: {machine()}")
    async with home_with_server() as (hass, server):
        agent = await add_agent(hass, server)
        server.script([Reply.text(ANSWER)])  # warm-up
        await conversation.async_converse(hass, "hi", None, Context(), agent_id=agent)
        gc.collect()
        tracemalloc.start()
        before, _ = tracemalloc.get_traced_memory()
        rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        started = time.perf_counter()
        ids: list[str | None] = [None] * args.conversations
        for turn in range(args.turns):
            server.script([Reply.text(ANSWER)] * args.conversations)
            for i in range(args.conversations):
                result = await conversation.async_converse(
                    hass,
                    f"question {turn} in conversation {i}",
                    ids[i],
                    Context(),
                    agent_id=agent,
                )
                ids[i] = result.conversation_id
            server.requests.clear()  # the fake server's own record is not ours
            server.headers.clear()
        elapsed = time.perf_counter() - started
        gc.collect()
        after, _ = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        rss_after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        held = after - before
        total = args.conversations * args.turns
        print(
            f"(d) {args.conversations} conversations x {args.turns} turns"
            f" ({total} turns in {elapsed:.0f} s, with tracemalloc on):"
            f" heap +{held / 2**20:.1f} MiB,"
            f" {held / args.conversations / 1024:.1f} KiB per conversation,"
            f" {held / total:.0f} B per turn; max RSS {rss_before / 1024:.0f} ->"
            f" {rss_after / 1024:.0f} MiB"
        )


if __name__ == "__main__":
    asyncio.run(main())
