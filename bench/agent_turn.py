"""Benchmark: our agent inside Home Assistant.

(a) Agent overhead per turn with a zero-latency scripted server: our agent vs HA core's
    `llama_cpp` agent on the same server and hass, median of interleaved turns, ratio;
    a plain answer, and a turn of two tool rounds (Assist's GetLiveContext, then
    GetDateTime) and an answer; and as a new agent is set up (kept conversations and
    memory on) with Assist plus our tools merged, three LLM calls of which two each
    call one intent (HassTurnOn, then HassTurnOff on an exposed light).
(b) Time from the server starting its streamed answer to the first text delta our
    entity hands to the chat log (what a streaming TTS waits for).
(c) Request size — characters of system prompt + tool definitions sent to the LLM —
    with 10, 100 and 1000 exposed entities, with and without the Assist API, with our
    tools, and with Compact home control (the default of new agents).

Run: scripts/run python bench/agent_turn.py [--turns 25]
"""

import argparse
import asyncio
import json
import logging
from pathlib import Path
import statistics
import sys
import time
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from homeassistant.components import conversation  # noqa: E402
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity  # noqa: E402
from homeassistant.const import CONF_LLM_HASS_API  # noqa: E402
from homeassistant.core import Context, HomeAssistant  # noqa: E402
from homeassistant.helpers import llm  # noqa: E402
from homeassistant.setup import async_setup_component  # noqa: E402

from bench.harness import add_agent, expose_sensors, home_with_server, machine  # noqa: E402
from custom_components.agentic_conversation.config_flow import default_agent_options  # noqa: E402
from custom_components.agentic_conversation.const import (  # noqa: E402
    COMPACT_API_ID,
    CONF_CONTEXT_WINDOW,
    CONF_STREAM,
    LLM_API_ID,
)
from tests.across_releases import open_chat_session  # noqa: E402
from tests.fake_llm import MODEL, FakeLLM, Reply  # noqa: E402


async def _turn(hass: HomeAssistant, agent: str, text: str = "hello") -> float:
    started = time.perf_counter()
    result = await conversation.async_converse(
        hass, text, None, Context(), agent_id=agent
    )
    elapsed = time.perf_counter() - started
    assert result.response.speech["plain"]["speech"], result
    return elapsed


async def _porch_light(hass: HomeAssistant) -> None:
    """An exposed light the intents switch (a template over an input_boolean)."""
    flag = {"entity_id": "input_boolean.porch"}
    assert await async_setup_component(
        hass, "input_boolean", {"input_boolean": {"porch": {}}}
    )
    assert await async_setup_component(
        hass,
        "template",
        {
            "template": [
                {
                    "light": [
                        {
                            "name": "Porch light",
                            "state": "{{ is_state('input_boolean.porch', 'on') }}",
                            "turn_on": {
                                "action": "input_boolean.turn_on",
                                "target": flag,
                            },
                            "turn_off": {
                                "action": "input_boolean.turn_off",
                                "target": flag,
                            },
                        }
                    ]
                }
            ]
        },
    )
    await hass.async_block_till_done()
    async_expose_entity(hass, conversation.DOMAIN, "light.porch_light", True)


def _tool_name(api: llm.APIInstance, suffix: str) -> str:
    return next(tool.name for tool in api.tools if tool.name.endswith(suffix))


async def overhead(
    turns: int, *, rounds: int = 0, intents: bool = False
) -> dict[str, Any]:
    """(a) Median ms per turn, ours vs llama_cpp, interleaved; `rounds` tool rounds.

    `intents`: a new agent's options (kept conversations, memory) with Assist and our
    tools merged; the rounds switch an exposed light on, then off.
    """
    apis = [llm.LLM_API_ASSIST, LLM_API_ID] if intents else [llm.LLM_API_ASSIST]
    async with home_with_server() as (hass, server):
        if intents:
            await _porch_light(hass)
        ours = await add_agent(
            hass,
            server,
            (default_agent_options([MODEL]) if intents else {})
            | {CONF_LLM_HASS_API: apis, CONF_STREAM: True},
        )
        core = await add_agent(
            hass,
            server,
            {CONF_LLM_HASS_API: apis, "streaming": True},
            domain="llama_cpp",
        )
        api = await llm.async_get_api(
            hass, apis, llm.LLMContext("bench", None, "en", conversation.DOMAIN, None)
        )
        steps = (
            [
                Reply.tool_calls(
                    [(_tool_name(api, "HassTurnOn"), {"name": "Porch light"})]
                ),
                Reply.tool_calls(
                    [(_tool_name(api, "HassTurnOff"), {"name": "Porch light"})]
                ),
            ]
            if intents
            else [
                Reply.tool_calls([(_tool_name(api, "GetLiveContext"), {})]),
                Reply.tool_calls([(_tool_name(api, "GetDateTime"), {})]),
            ]
        )[:rounds]
        times: dict[str, list[float]] = {"ours": [], "llama_cpp": []}
        server.script([*steps, Reply.text("Done.")] * (2 * turns + 10))
        for _ in range(5):  # warm-up
            await _turn(hass, ours)
            await _turn(hass, core)
        for _ in range(turns):
            times["ours"].append(await _turn(hass, ours))
            times["llama_cpp"].append(await _turn(hass, core))
        assert server.unused == 0, "a turn did not ask the LLM as scripted"
    medians = {k: statistics.median(v) * 1000 for k, v in times.items()}
    return {
        "turns": turns,
        "tool_rounds": rounds,
        "intents_store_memory": intents,
        "ours_ms": round(medians["ours"], 2),
        "llama_cpp_ms": round(medians["llama_cpp"], 2),
        "ratio": round(medians["ours"] / medians["llama_cpp"], 2),
    }


async def first_delta(turns: int) -> dict[str, Any]:
    """(b) Server's first streamed chunk → first text delta in the chat log."""
    async with home_with_server() as (hass, server):
        agent = await add_agent(hass, server, {CONF_STREAM: True})
        waits: list[float] = []
        answer = "The living room is twenty one degrees and the windows are closed."
        for _ in range(turns + 3):
            server.script([Reply.text(answer, chunk_size=4)])
            first: list[float] = []

            def listener(
                chat_log: Any, delta: dict[str, Any], first: list[float] = first
            ) -> None:
                if delta.get("content") and not first:
                    first.append(time.perf_counter())

            with (
                open_chat_session(hass, Context()) as session,
                conversation.async_get_chat_log(
                    hass, session, chat_log_delta_listener=listener
                ),
            ):
                await conversation.async_converse(
                    hass,
                    "how warm is it?",
                    session.conversation_id,
                    Context(),
                    agent_id=agent,
                )
            waits.append(first[0] - server.stream_started_at[-1])
        waits = waits[3:]
    return {
        "turns": turns,
        "median_ms": round(statistics.median(waits) * 1000, 2),
        "p90_ms": round(sorted(waits)[int(len(waits) * 0.9) - 1] * 1000, 2),
    }


def _sent_size(server: FakeLLM) -> int:
    request = server.requests[-1]
    system = request["messages"][0]["content"]
    return len(system) + len(json.dumps(request.get("tools", [])))


async def request_size() -> dict[str, dict[int, int]]:
    """(c) Characters of system prompt + tools by exposed entities and API set."""
    configs = {
        "no tools": [],
        "Assist": [llm.LLM_API_ASSIST],
        "Agentic tools": [LLM_API_ID],
        "Assist + Agentic tools": [llm.LLM_API_ASSIST, LLM_API_ID],
        "Compact home control (new agents)": [COMPACT_API_ID],
    }
    sizes: dict[str, dict[int, int]] = {name: {} for name in configs}
    async with home_with_server() as (hass, server):
        # A window big enough for any of them: this measures what would be sent.
        agents = {
            name: await add_agent(
                hass,
                server,
                {CONF_CONTEXT_WINDOW: 1_000_000}
                | ({CONF_LLM_HASS_API: apis} if apis else {}),
            )
            for name, apis in configs.items()
        }
        exposed = 0
        for count in (10, 100, 1000):
            expose_sensors(hass, exposed, count)
            exposed = count
            for name, agent in agents.items():
                server.script([Reply.text("ok")])
                before = len(server.requests)
                await _turn(hass, agent)
                assert len(server.requests) == before + 1, "the LLM was not asked"
                sizes[name][count] = _sent_size(server)
    return sizes


async def main() -> None:
    """Print every figure."""
    logging.basicConfig(level=logging.ERROR)
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=25)
    args = parser.parse_args()
    print(f"machine: {machine()}")
    print(f"(a) overhead per turn: {await overhead(args.turns)}")
    print(f"(a) overhead per turn: {await overhead(args.turns, rounds=2)}")
    print(
        f"(a) overhead per turn: {await overhead(args.turns, rounds=2, intents=True)}"
    )
    print(f"(b) first token to first chat-log delta: {await first_delta(args.turns)}")
    for name, by_count in (await request_size()).items():
        print(f"(c) request size, {name}: {by_count}")


if __name__ == "__main__":
    asyncio.run(main())
