"""The e2e story's part where the LLM server is down when Home Assistant starts.

A power cut: Home Assistant boots before the GPU box. Our agent must exist anyway,
switch the porch light through Home Assistant's own agent, show its Route sensor
`down`, and use the server once it answers, without a restart. Runs in the story's
process; tests/e2e/test_e2e.py checks what it records.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from devtools.ha_api import HomeAssistantClient, Websocket

if TYPE_CHECKING:
    from tests.e2e.story import FakeLLMProcess

# The first check is 10 s after start-up, then 20, 40, 60: generous.
ROUTE_OK_WITHIN = 150.0


async def _states(ws: Websocket) -> dict[str, dict[str, Any]]:
    return {s["entity_id"]: s for s in await ws.call({"type": "get_states"})}


async def _say(ws: Websocket, agent: str, text: str) -> dict[str, Any]:
    output = await ws.call(
        {
            "type": "conversation/process",
            "text": text,
            "language": "en",
            "agent_id": agent,
        }
    )
    response = output["response"]
    return {
        "speech": response.get("speech", {}).get("plain", {}).get("speech", ""),
        "response_type": response.get("response_type"),
        "conversation_id": output.get("conversation_id"),
    }


async def boot_down_story(
    client: HomeAssistantClient,
    llm: FakeLLMProcess,
    agent: str,
    *,
    restart: Callable[[], Awaitable[None]],
    pipeline: Callable[[Websocket, str], Awaitable[dict[str, Any]]],
    report: dict[str, Any],
) -> None:
    """Restart with the server killed; ask; start the server; wait for the route.

    `pipeline` runs text through the satellite's Assist pipeline (intent → tts).
    """
    llm.kill()
    await restart()
    async with client.websocket() as ws:
        await ws.call(
            {
                "type": "call_service",
                "domain": "light",
                "service": "turn_off",
                "target": {"entity_id": "light.porch_light"},
            }
        )
        states = await _states(ws)
        route = next(
            e for e in states if e.startswith("sensor.") and e.endswith("_route")
        )
        report["boot_down"] = {
            "agent_state": states.get(agent, {}).get("state"),
            "route": states[route]["state"],
            "reason": states[route]["attributes"].get("reason"),
            "light_before": states["light.porch_light"]["state"],
            **await _say(ws, agent, "turn on the porch light"),
        }
        report["boot_down"]["light"] = (await _states(ws))["light.porch_light"]["state"]
        # The satellite's pipeline uses the agent too ("Agent … not found" before).
        report["boot_down_pipeline"] = await pipeline(ws, "turn off the porch light")
        report["boot_down_pipeline"]["light"] = (await _states(ws))[
            "light.porch_light"
        ]["state"]

        await llm.start()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + ROUTE_OK_WITHIN
        seen = states[route]["state"]
        while seen != "ok" and loop.time() < deadline:
            await asyncio.sleep(1)
            seen = (await _states(ws))[route]["state"]
        report["server_back"] = {"route": seen}
        await llm.script({"kind": "text", "text": "I'm back."})
        report["server_back"] |= await _say(ws, agent, "are you back?")
        report["server_back"]["sent"] = [
            [m["content"] for m in r["messages"] if m["role"] == "user"]
            for r in await llm.requests()
        ]
