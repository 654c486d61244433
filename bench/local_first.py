"""Benchmark: "Handle commands Home Assistant understands first" (local first).

In one run, on the acceptance table's home (tests/acceptance/home.py):
(a) a plain command ("turn on / off the kitchen ceiling", alternating, so each turn
    changes a state): median ms through our agent with local first on, through our
    agent with it off (the model: a scripted server answering each call after 0.6 s,
    a tool call and an answer), and through HA's own agent; interleaved turns; the
    ratio of local first to HA's own agent (target: at most 3).
(b) what the local step costs a sentence it hands to the model ("tell me joke number
    <n>", each new, so no recognition is reused): the recognition alone, median ms.
(c) the acceptance table's sentences said to an agent with local first: how many are
    answered without a model call, how many asked (risky), how many reach the model.

Run: scripts/run python bench/local_first.py [--turns 20] [--model-turns 5]
"""

import argparse
import asyncio
import logging
from pathlib import Path
import statistics
import sys
import time
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from aiohttp import web  # noqa: E402
from pytest_homeassistant_custom_component.common import mock_storage  # noqa: E402

from homeassistant.components import conversation  # noqa: E402
from homeassistant.const import CONF_LLM_HASS_API  # noqa: E402
from homeassistant.core import Context, HomeAssistant  # noqa: E402
from homeassistant.helpers import llm  # noqa: E402

from bench.harness import add_agent, home_with_server, machine, timed_turn  # noqa: E402
from custom_components.agentic_conversation.const import CONF_LOCAL_FIRST  # noqa: E402
from tests.acceptance.home import async_build_home, async_run_local  # noqa: E402
from tests.acceptance.test_table import TABLE  # noqa: E402
from tests.across_releases import offered_name  # noqa: E402
from tests.fake_llm import FakeLLM, Reply  # noqa: E402

MODEL_SECONDS = 0.6
APIS = [llm.LLM_API_ASSIST]


class SlowModel(FakeLLM):
    """The scripted server, answering each chat completion after `MODEL_SECONDS`."""

    async def _chat_completions(self, request: web.Request) -> web.StreamResponse:
        await asyncio.sleep(MODEL_SECONDS)
        return await super()._chat_completions(request)


def _ms(times: list[float]) -> float:
    return round(statistics.median(times) * 1000, 1)


async def measure(turns: int, model_turns: int) -> dict[str, Any]:
    """Every figure of one run."""
    figures: dict[str, Any] = {}
    # The home's areas and floors stay in memory: the test config folder is shared.
    with mock_storage():
        async with home_with_server() as (hass, _), SlowModel() as server:
            await _measure(hass, server, turns, model_turns, figures)
    return figures


async def _measure(
    hass: HomeAssistant,
    server: FakeLLM,
    turns: int,
    model_turns: int,
    figures: dict[str, Any],
) -> None:
    """Every figure, into `figures`."""
    await async_build_home(hass)
    local = await add_agent(
        hass, server, {CONF_LLM_HASS_API: APIS, CONF_LOCAL_FIRST: True}
    )
    model = await add_agent(hass, server, {CONF_LLM_HASS_API: APIS})
    turn_on = await offered_name(hass, APIS, "HassTurnOn")
    turn_off = await offered_name(hass, APIS, "HassTurnOff")
    timed: dict[str, list[float]] = {"ha": [], "local_first": [], "model": []}
    for i in range(turns):
        verb = "on" if i % 2 == 0 else "off"
        text = f"turn {verb} the kitchen ceiling"
        timed["ha"].append(
            await timed_turn(hass, conversation.HOME_ASSISTANT_AGENT, text)
        )
        before = len(server.requests)
        timed["local_first"].append(await timed_turn(hass, local, text))
        assert len(server.requests) == before, "local first asked the model"
        if i < model_turns:
            tool = turn_on if verb == "on" else turn_off
            server.script(
                [
                    Reply.tool_calls([(tool, {"name": "Kitchen ceiling"})]),
                    Reply.text("Done."),
                ]
            )
            timed["model"].append(await timed_turn(hass, model, text))
            assert server.unused == 0
    figures["plain command, median ms"] = {
        name: _ms(times) for name, times in timed.items()
    }
    figures["local first / HA's own agent"] = round(
        statistics.median(timed["local_first"]) / statistics.median(timed["ha"]), 2
    )
    figures["model / local first"] = round(
        statistics.median(timed["model"]) / statistics.median(timed["local_first"]),
        1,
    )
    recognition = []
    for i in range(turns):
        # Each sentence new: HA's agent keeps recognition results of recent ones.
        started = time.perf_counter()
        outcome = await async_run_local(hass, f"tell me joke number {i}", [])
        recognition.append(time.perf_counter() - started)
        assert not outcome.answered
    figures["local step on a chat sentence, median ms"] = _ms(recognition)
    figures["acceptance table"] = await _table(hass, server, local)


async def _table(hass: HomeAssistant, server: FakeLLM, agent: str) -> dict[str, int]:
    """The table's sentences: answered locally, asked, or the model's."""
    counts = {"rows": len(TABLE), "answered": 0, "asked": 0, "to the model": 0}
    for row in TABLE:
        before = len(server.requests)
        server.script([Reply.text("The model answered.")])
        result = await conversation.async_converse(
            hass, row.text, None, Context(), language="en", agent_id=agent
        )
        if len(server.requests) > before:
            counts["to the model"] += 1
        elif result.continue_conversation:
            counts["asked"] += 1
        else:
            counts["answered"] += 1
        server.script([])
    return counts


async def main() -> None:
    """Print every figure."""
    logging.basicConfig(level=logging.ERROR)
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=20)
    parser.add_argument("--model-turns", type=int, default=5)
    args = parser.parse_args()
    print(f"machine: {machine()}")
    print(f"server: {MODEL_SECONDS} s per call; {args.turns} turns each")
    for name, value in (await measure(args.turns, args.model_turns)).items():
        print(f"{name}: {value}")


if __name__ == "__main__":
    asyncio.run(main())
