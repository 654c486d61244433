"""Our LLM API over MCP: the e2e story's part that uses the official `mcp` client.

Home Assistant's `mcp_server` integration (added through its config flow, as a user
would) serves every LLM API at /api/mcp/<api id>. An MCP client authenticated with the
onboarded user's long-lived access token lists and calls our tools; what it sees and
does is recorded for tests/e2e/test_e2e.py. Runs in the story's process, not pytest's.
"""

from __future__ import annotations

from contextlib import AsyncExitStack
import json
from typing import Any

import aiohttp
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from devtools.ha_api import HomeAssistantClient

API_ID = "agentic_conversation"
# In the story's configuration.yaml: exposed to Assist or not (set by _expose).
EXPOSED = ["light.porch_light", "lock.front_door", "cover.garage_door"]
HIDDEN = ["light.cellar_light"]


async def _expose(client: HomeAssistantClient) -> None:
    async with client.websocket() as ws:
        for should_expose, entity_ids in ((True, EXPOSED), (False, HIDDEN)):
            await ws.call(
                {
                    "type": "homeassistant/expose_entity",
                    "assistants": ["conversation"],
                    "entity_ids": entity_ids,
                    "should_expose": should_expose,
                }
            )


async def _long_lived_token(client: HomeAssistantClient) -> str:
    """What a user makes for an MCP client: Profile → Security → Long-lived tokens."""
    async with client.websocket() as ws:
        token: str = await ws.call(
            {
                "type": "auth/long_lived_access_token",
                "client_name": "MCP client",
                "lifespan": 1,
            }
        )
    return token


async def _state(client: HomeAssistantClient, entity_id: str) -> str:
    return str((await client.rest("GET", f"/api/states/{entity_id}"))["state"])


class _Tools:
    """An MCP client session on our API's endpoint."""

    def __init__(self, session: ClientSession) -> None:
        self.session = session

    async def names(self) -> list[str]:
        return [tool.name for tool in (await self.session.list_tools()).tools]

    async def call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """The tool's result as JSON, whatever the client's version names its fields."""
        result = await self.session.call_tool(name, arguments)
        dumped = result.model_dump(mode="json", by_alias=True, exclude_none=True)
        text = "".join(c.get("text", "") for c in dumped.get("content", []))
        try:
            data = json.loads(text)
        except ValueError:
            data = text
        return {"is_error": bool(dumped.get("isError")), "data": data}


async def mcp_story(
    client: HomeAssistantClient, session: aiohttp.ClientSession, report: dict[str, Any]
) -> None:
    """Enable MCP, then list and call our tools the way an MCP client does."""
    await _expose(client)
    flow = await client.flow(
        "/api/config/config_entries/flow", {"handler": "mcp_server"}, {}
    )
    report["mcp_flow"] = flow.get("type")
    url = f"{client.url}/api/mcp/{API_ID}"
    # Without a token Home Assistant refuses before any MCP.
    async with session.post(url, json={}) as response:
        report["mcp_without_token"] = response.status
    token = await _long_lived_token(client)
    async with AsyncExitStack() as stack:
        http = await stack.enter_async_context(
            create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
        )
        # (read, write) on mcp 2, (read, write, session id) on mcp 1
        streams = await stack.enter_async_context(
            streamable_http_client(url, http_client=http)
        )
        mcp = await stack.enter_async_context(ClientSession(streams[0], streams[1]))
        initialized = (await mcp.initialize()).model_dump(by_alias=True)
        report["mcp_server_name"] = initialized["serverInfo"]["name"]
        tools = _Tools(mcp)
        report["mcp_tools"] = await tools.names()
        report["mcp_search"] = await tools.call(
            "search_entities", {"query": "light", "domain": "light"}
        )
        report["mcp_search_cellar"] = await tools.call(
            "search_entities", {"query": "cellar"}
        )
        # Targets as lists: the input schema the server publishes says so, and the
        # MCP server checks calls against it.
        light_on = {"domain": "light", "service": "turn_on"}
        # Earlier steps of the story leave the light on: start from off.
        await client.rest(
            "POST", "/api/services/light/turn_off", {"entity_id": "light.porch_light"}
        )
        report["mcp_porch_before"] = await _state(client, "light.porch_light")
        report["mcp_turn_on"] = await tools.call(
            "call_service", {**light_on, "target": {"entity_id": ["light.porch_light"]}}
        )
        report["mcp_porch_after"] = await _state(client, "light.porch_light")
        report["mcp_hidden"] = await tools.call(
            "call_service",
            {**light_on, "target": {"entity_id": ["light.cellar_light"]}},
        )
        report["mcp_cellar_after"] = await _state(client, "light.cellar_light")
        report["mcp_unlock"] = await tools.call(
            "call_service",
            {
                "domain": "lock",
                "service": "unlock",
                "target": {"entity_id": ["lock.front_door"]},
            },
        )
        report["mcp_lock_after"] = await _state(client, "lock.front_door")
        report["mcp_open_garage"] = await tools.call(
            "call_service",
            {
                "domain": "cover",
                "service": "open_cover",
                "target": {"entity_id": ["cover.garage_door"]},
            },
        )
        report["mcp_garage_after"] = await _state(client, "cover.garage_door")
