"""Benchmark: what verified effects add to a turn when devices answer at once.

In one run, on the acceptance table's home (tests/acceptance/home.py), a plain command
("turn on / off the kitchen ceiling", alternating, so each turn changes the light):
(a) through the model (a scripted server answering at once: a tool call, then
    "Done."), and (b) through the local stage (local first): median ms of turns with
    verification as shipped (`verify_timeout` 2 s) and with it taken out (the watch
    patched to note and wait for nothing), interleaved; the difference is what a
    verified turn adds. Also the median time the turns waited for states (the trace's
    `verify_waited`), and the watch's own cost for an area command of 10 lights.

Run: scripts/run python bench/verify_effects.py [--turns 30]
"""

import argparse
import asyncio
from contextlib import contextmanager
import logging
from pathlib import Path
import statistics
import sys
import time
from typing import Any
from unittest.mock import patch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pytest_homeassistant_custom_component.common import mock_storage  # noqa: E402

from homeassistant.components import conversation  # noqa: E402
from homeassistant.const import CONF_LLM_HASS_API  # noqa: E402
from homeassistant.core import HomeAssistant  # noqa: E402
from homeassistant.helpers import llm  # noqa: E402

from bench.harness import add_agent, home_with_server, machine, timed_turn  # noqa: E402
from custom_components.agentic_conversation.const import (  # noqa: E402
    CONF_LOCAL_FIRST,
    CONF_VERIFY_TIMEOUT,
)
from custom_components.agentic_conversation.verify.expected import service_expectation  # noqa: E402
from custom_components.agentic_conversation.verify.watch import EffectWatch  # noqa: E402
from tests.acceptance.home import async_build_home  # noqa: E402
from tests.across_releases import offered_name  # noqa: E402
from tests.fake_llm import FakeLLM, Reply  # noqa: E402

APIS = [llm.LLM_API_ASSIST]


@contextmanager
def _unverified() -> Any:
    """The watch notes nothing and waits for nothing: the turn as before it."""

    async def _nothing(self: EffectWatch) -> list[Any]:
        return []

    with (
        patch.object(EffectWatch, "expect", lambda *args, **kwargs: None),
        patch.object(EffectWatch, "failed", lambda *args, **kwargs: None),
        patch.object(EffectWatch, "async_wait", _nothing),
    ):
        yield


def _ms(times: list[float]) -> float:
    return round(statistics.median(times) * 1000, 2)


async def measure(turns: int) -> dict[str, Any]:
    """Every figure of one run."""
    with mock_storage():
        async with home_with_server() as (hass, server):
            return await _measure(hass, server, turns)


async def _measure(hass: HomeAssistant, server: FakeLLM, turns: int) -> dict[str, Any]:
    await async_build_home(hass)
    options = {CONF_LLM_HASS_API: APIS, CONF_VERIFY_TIMEOUT: 2.0}
    model = await add_agent(hass, server, options)
    local = await add_agent(hass, server, {**options, CONF_LOCAL_FIRST: True})
    turn_on = await offered_name(hass, APIS, "HassTurnOn")
    turn_off = await offered_name(hass, APIS, "HassTurnOff")
    timed: dict[str, list[float]] = {
        key: [] for key in ("model", "model unverified", "local", "local unverified")
    }
    waited: list[float] = []
    for i in range(turns):
        # Which goes first alternates: neither gets the warmer caches every time.
        for verified in (True, False) if i % 2 == 0 else (False, True):
            suffix = "" if verified else " unverified"
            for route, agent in (("model", model), ("local", local)):
                verb = "on" if (len(timed[route + suffix]) % 2 == 0) else "off"
                text = f"turn {verb} the kitchen ceiling"
                if route == "model":
                    tool = turn_on if verb == "on" else turn_off
                    server.script(
                        [
                            Reply.tool_calls([(tool, {"name": "Kitchen ceiling"})]),
                            Reply.text("Done."),
                        ]
                    )
                if verified:
                    timed[route].append(await timed_turn(hass, agent, text))
                    waited.append(_last_wait())
                else:
                    with _unverified():
                        timed[route + suffix].append(
                            await timed_turn(hass, agent, text)
                        )
                assert hass.states.get("light.kitchen_ceiling").state == verb  # type: ignore[union-attr]
    figures: dict[str, Any] = {
        "plain command, median ms": {k: _ms(v) for k, v in timed.items()},
        "added by verification, median ms": {
            route: round(
                (
                    statistics.median(timed[route])
                    - statistics.median(timed[f"{route} unverified"])
                )
                * 1000,
                2,
            )
            for route in ("model", "local")
        },
        "waited for states, median ms": _ms(waited),
        "watch for 10 lights at once, median µs": await _watch_cost(hass),
    }
    return figures


def _last_wait() -> float:
    """The last turn's wait for states, from its trace."""
    events = conversation.trace.async_get_traces()[-1].as_dict()["events"]
    return next(
        float(e["data"]["verify_waited"])
        for e in reversed(events)
        if "verify_waited" in e.get("data", {})
    )


async def _watch_cost(hass: HomeAssistant, rounds: int = 200) -> float:
    """Noting 10 lights already on and waiting: the watch's own work."""
    for n in range(10):
        hass.states.async_set(f"light.bench_{n}", "on")
    expectation = service_expectation("light", "turn_on", {})
    costs = []
    for _ in range(rounds):
        started = time.perf_counter()
        watch = EffectWatch(hass, 2.0)
        for n in range(10):
            watch.expect(f"light.bench_{n}", expectation)
        await watch.async_wait()
        watch.close()
        costs.append(time.perf_counter() - started)
    return round(statistics.median(costs) * 1e6, 1)


async def main() -> None:
    """Print every figure."""
    logging.basicConfig(level=logging.ERROR)
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=30)
    args = parser.parse_args()
    print(f"machine: {machine()}")
    print(f"{args.turns} turns of each kind, interleaved")
    for name, value in (await measure(args.turns)).items():
        print(f"{name}: {value}")


if __name__ == "__main__":
    asyncio.run(main())
