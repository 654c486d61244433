"""Benchmark: voice latency against a server that behaves like a local model.

The fake server processes the prompt at a set rate (4 characters a token) for what it
has not cached — the longest common prefix with its previous request is cached, as
llama.cpp and vLLM do — then waits a time to first token and streams one token (4
characters) per decode step. Each agent has a server of its own, so that neither
spoils the other's cache.

Reported, median over turns, for our agent (its default options) and HA core's
`llama_cpp` agent (its default: Assist), each a new conversation: the time from the
user's text to the first text handed to TTS (the first chat-log assistant delta with
content) and to the end of the turn; for a chat answer, one tool round and three tool
rounds; at 10 and 1,000 exposed entities. The first turn of each agent (a chat
answer, on a cold cache) is reported apart.

Run: scripts/run python bench/voice_latency.py [--turns 3] [--prompt-rate 1000]
     [--ttft 0.05] [--decode-rate 25]
"""

import argparse
import asyncio
from dataclasses import replace
import json
import logging
import os
from pathlib import Path
import statistics
import sys
import time
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from aiohttp import web  # noqa: E402

from homeassistant.components import conversation  # noqa: E402
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity  # noqa: E402
from homeassistant.const import CONF_LLM_HASS_API, CONF_PROMPT  # noqa: E402
from homeassistant.core import Context, HomeAssistant  # noqa: E402
from homeassistant.helpers import llm  # noqa: E402
from homeassistant.setup import async_setup_component  # noqa: E402

from bench.harness import add_agent, expose_sensors, home_with_server, machine  # noqa: E402
from custom_components.agentic_conversation.config_flow import default_agent_options  # noqa: E402
from tests.across_releases import open_chat_session  # noqa: E402
from tests.fake_llm import MODEL, FakeLLM, Reply, _chunks, _is_probe  # noqa: E402

CHARS_PER_TOKEN = 4

SCENARIOS: dict[str, list[Reply]] = {
    "chat": [
        Reply.text(
            "It is twenty-one degrees in the living room and every window is closed."
        )
    ],
    "1 tool round": [
        Reply.tool_calls([("HassTurnOn", {"name": "Porch light"})]),
        Reply.text("The porch light is on."),
    ],
    "3 tool rounds": [
        Reply.tool_calls([("HassTurnOn", {"name": "Porch light"})]),
        Reply.tool_calls([("HassTurnOff", {"name": "Hall light"})]),
        Reply.tool_calls([("GetDateTime", {})]),
        Reply.text("The porch light is on and the hall light off; it is evening."),
    ],
}


class LocalModel(FakeLLM):
    """A scripted server with a local model's timing and prompt cache.

    Tool calls are scripted by the end of the tool's name; each request calls the
    tool it was offered under whatever name (our agent and HA's name them apart).
    """

    def __init__(self, prompt_rate: float, ttft: float, decode_rate: float) -> None:
        """Tokens a second for the prompt and the answer; seconds to the first token."""
        super().__init__()
        self.prompt_rate = prompt_rate
        self.ttft = ttft
        self.decode_rate = decode_rate
        self.previous = ""
        self.processed_tokens: list[int] = []

    async def _serve(
        self, request: web.Request, body: dict[str, Any], reply: Reply
    ) -> web.StreamResponse:
        if _is_probe(body) or not body.get("stream"):
            return await super()._serve(request, body, reply)
        # What a chat template would put first: the tools, then the messages.
        prompt = json.dumps(body.get("tools", [])) + json.dumps(body["messages"])
        cached = len(os.path.commonprefix([self.previous, prompt]))
        self.previous = prompt
        tokens = -(-(len(prompt) - cached) // CHARS_PER_TOKEN)
        self.processed_tokens.append(tokens)
        await asyncio.sleep(tokens / self.prompt_rate + self.ttft)
        names = [tool["function"]["name"] for tool in body.get("tools", [])]
        reply = replace(
            reply,
            chunk_size=CHARS_PER_TOKEN,
            calls=tuple(
                (next(n for n in names if n.endswith(call[0])), *call[1:])
                for call in reply.calls
            ),
        )
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        chunks = _chunks(reply)
        for index, chunk in enumerate(chunks):
            if 0 < index < len(chunks) - 1:  # each piece of text or arguments
                await asyncio.sleep(1 / self.decode_rate)
            await response.write(f"data: {json.dumps(chunk)}\n\n".encode())
        await response.write(b"data: [DONE]\n\n")
        await response.write_eof()
        return response


async def _timed_turn(hass: HomeAssistant, agent: str) -> tuple[float, float]:
    """Seconds to the first text for TTS and to the end of one new conversation."""
    first: list[float] = []

    def listener(chat_log: Any, delta: dict[str, Any]) -> None:
        if delta.get("content") and not first:
            first.append(time.perf_counter())

    started = time.perf_counter()
    with (
        open_chat_session(hass, Context()) as session,
        conversation.async_get_chat_log(
            hass, session, chat_log_delta_listener=listener
        ),
    ):
        result = await conversation.async_converse(
            hass, "do it", session.conversation_id, Context(), agent_id=agent
        )
    ended = time.perf_counter()
    assert result.response.speech["plain"]["speech"], result
    return first[0] - started, ended - started


async def _home(hass: HomeAssistant, entities: int) -> None:
    assert await async_setup_component(
        hass,
        "input_boolean",
        {
            "input_boolean": {
                "porch": {"name": "Porch light"},
                "hall": {"name": "Hall light", "initial": True},
            }
        },
    )
    await hass.async_block_till_done()
    for entity_id in ("input_boolean.porch", "input_boolean.hall"):
        async_expose_entity(hass, conversation.DOMAIN, entity_id, True)
    expose_sensors(hass, 0, entities - 2)


async def measure(
    entities: int, turns: int, rates: tuple[float, float, float]
) -> dict[str, dict[str, Any]]:
    """Medians per agent and scenario, at this many exposed entities."""
    figures: dict[str, dict[str, Any]] = {}
    async with home_with_server() as (hass, _):
        await _home(hass, entities)
        servers = {"ours": LocalModel(*rates), "llama_cpp": LocalModel(*rates)}
        for server in servers.values():
            await server.start()
        ours = await add_agent(
            hass,
            servers["ours"],
            default_agent_options([MODEL]),
        )
        core = await add_agent(
            hass,
            servers["llama_cpp"],
            {
                CONF_LLM_HASS_API: [llm.LLM_API_ASSIST],
                CONF_PROMPT: llm.DEFAULT_INSTRUCTIONS_PROMPT,
                "streaming": True,
            },
            domain="llama_cpp",
        )
        try:
            for name, agent in (("ours", ours), ("llama_cpp", core)):
                server = servers[name]
                server.script(SCENARIOS["chat"])  # the cold cache: the whole prompt
                first_text, end = await _timed_turn(hass, agent)
                figures.setdefault("chat, cold cache (1 turn)", {})[name] = {
                    "first_text_s": round(first_text, 2),
                    "end_s": round(end, 2),
                    "prompt_tokens_per_turn": server.processed_tokens[-1],
                }
                for scenario, replies in SCENARIOS.items():
                    times = []
                    processed_before = len(server.processed_tokens)
                    for _ in range(turns):
                        server.script(replies)
                        times.append(await _timed_turn(hass, agent))
                    assert server.unused == 0, "a turn did not ask as scripted"
                    figures.setdefault(scenario, {})[name] = {
                        "first_text_s": round(
                            statistics.median(t[0] for t in times), 2
                        ),
                        "end_s": round(statistics.median(t[1] for t in times), 2),
                        "prompt_tokens_per_turn": round(
                            sum(server.processed_tokens[processed_before:]) / turns
                        ),
                    }
        finally:
            for server in servers.values():
                await server.close()
    return figures


async def main() -> None:
    """Print every figure."""
    logging.basicConfig(level=logging.ERROR)
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=3)
    parser.add_argument("--prompt-rate", type=float, default=1000.0)
    parser.add_argument("--ttft", type=float, default=0.05)
    parser.add_argument("--decode-rate", type=float, default=25.0)
    args = parser.parse_args()
    rates = (args.prompt_rate, args.ttft, args.decode_rate)
    print(f"machine: {machine()}")
    print(
        f"server: prompt {args.prompt_rate:g} tokens/s (uncached), time to first"
        f" token {args.ttft:g} s, decode {args.decode_rate:g} tokens/s;"
        f" {args.turns} turns each"
    )
    for entities in (10, 1000):
        for scenario, by_agent in (await measure(entities, args.turns, rates)).items():
            print(f"{entities} entities, {scenario}: {by_agent}")


if __name__ == "__main__":
    asyncio.run(main())
