"""Benchmark: does search_entities find what people say, and how fast?

Five homes (bench/search_homes.py: a one-room flat to a three-floor villa with 150+
entities, names in English and German) and commands said in English and German, each
with the entities it means. The query is the sentence as said. Recall@k is, per
command, the share of its entities among the first k results (of at most k of them),
averaged. Speed: the same ranking over 2,000 exposed entities (the villa copied), per
search, the registry lookups that build the entity list not included.

Run: scripts/run python bench/search_recall.py
"""

import asyncio
from pathlib import Path
import statistics
import sys
import time

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from homeassistant.components.homeassistant.exposed_entities import async_expose_entity  # noqa: E402
from homeassistant.core import State  # noqa: E402
from homeassistant.helpers import llm  # noqa: E402

from bench.harness import home_with_server, machine  # noqa: E402
from bench.search_homes import COMMANDS, FLOORS, HOMES  # noqa: E402
from custom_components.agentic_conversation.const import DOMAIN, LLM_API_ID  # noqa: E402
from custom_components.agentic_conversation.tools.entities import EntityInfo  # noqa: E402
from custom_components.agentic_conversation.tools.search import find  # noqa: E402


def home(key: str, copies: int = 1) -> list[EntityInfo]:
    """A home's entities as the tool sees them."""
    found = []
    for copy in range(copies):
        for line in HOMES[key].strip().splitlines():
            entity_id, name, area, device_class = line.split("|")
            if copy:
                entity_id, name = f"{entity_id}_{copy}", f"{name} {copy}"
            floor = FLOORS[key].get(area)
            attributes = {"device_class": device_class} if device_class else {}
            found.append(
                EntityInfo(
                    entity_id=entity_id,
                    name=name,
                    aliases=(),
                    area=area or None,
                    area_aliases=(),
                    area_id=area.lower().replace(" ", "_") or None,
                    device_id=None,
                    state=State(entity_id, "on", {"friendly_name": name, **attributes}),
                    floor=floor[0] if floor else None,
                    floor_aliases=floor[2] if floor else (),
                    floor_level=floor[1] if floor else None,
                )
            )
    return found


def recall() -> None:
    """Recall@1/5/10 over every command, and the misses at 5."""
    homes = {key: home(key) for key in HOMES}
    commands = [line.split("|") for line in COMMANDS.strip().splitlines()]
    at: dict[int, list[float]] = {1: [], 5: [], 10: []}
    misses = []
    for key, language, sentence, ids in commands:
        meant = ids.split(",")
        known = {e.entity_id for e in homes[key]}
        assert set(meant) <= known, (sentence, set(meant) - known)
        found = [e.entity_id for e in find(homes[key], sentence, language)]
        for k, scores in at.items():
            scores.append(len(set(found[:k]) & set(meant)) / min(k, len(meant)))
        if at[5][-1] < 1:
            misses.append(
                f"  {key}/{language}: {sentence!r} → {found[:5]} (meant {meant})"
            )
    print(f"{len(commands)} commands in {len(homes)} homes ({machine()})")
    for k, scores in at.items():
        print(f"recall@{k}: {100 * statistics.fmean(scores):.1f} %")
    print(f"misses at 5: {len(misses)}")
    print("\n".join(misses))


def speed() -> None:
    """Time per search over 2,000 entities."""
    entities = home("villa", copies=13)[:2000]
    sentences = [line.split("|")[2] for line in COMMANDS.strip().splitlines()]
    find(entities, "warm up", "en")
    times, cpu = [], []
    for _ in range(3):
        for sentence in sentences:
            start, start_cpu = time.perf_counter(), time.process_time()
            find(entities, sentence, "en")
            cpu.append(time.process_time() - start_cpu)
            times.append(time.perf_counter() - start)
    times.sort()
    print(
        f"ranking over {len(entities)} entities: median {1000 * statistics.median(times):.2f} ms,"
        f" p90 {1000 * times[int(0.9 * len(times))]:.2f} ms per search"
        f" (CPU time: median {1000 * statistics.median(cpu):.2f} ms)"
    )


async def tool_speed() -> None:
    """The whole tool call in a real hass: exposure and registries read, then ranked."""
    from homeassistant.setup import async_setup_component  # noqa: PLC0415

    from tests.tools.conftest import context  # noqa: PLC0415

    async with home_with_server() as (hass, _):
        for entity in home("villa", copies=13)[:2000]:
            hass.states.async_set(entity.entity_id, "on", dict(entity.state.attributes))
            async_expose_entity(hass, "conversation", entity.entity_id, True)
        assert await async_setup_component(hass, DOMAIN, {})
        api = await llm.async_get_api(hass, LLM_API_ID, context())
        sentences = [line.split("|")[2] for line in COMMANDS.strip().splitlines()]
        times, cpu = [], []
        for sentence in ["warm up", *sentences]:
            tool_input = llm.ToolInput(
                tool_name="search_entities", tool_args={"query": sentence}
            )
            start, start_cpu = time.perf_counter(), time.process_time()
            await api.async_call_tool(tool_input)
            cpu.append(time.process_time() - start_cpu)
            times.append(time.perf_counter() - start)
        times = sorted(times[1:])
        print(
            f"whole tool call over 2000 exposed entities in hass: median "
            f"{1000 * statistics.median(times):.2f} ms,"
            f" p90 {1000 * times[int(0.9 * len(times))]:.2f} ms"
            f" (CPU time: median {1000 * statistics.median(cpu[1:]):.2f} ms)"
        )


if __name__ == "__main__":
    recall()
    speed()
    asyncio.run(tool_speed())
