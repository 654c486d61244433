"""A small client for a running Home Assistant: onboarding, login, REST and websocket.

Used by `scripts/develop` (to configure the dev server), `scripts/chat` and the e2e
tests, the way a user's browser or a voice satellite talks to Home Assistant.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
import itertools
import time
from typing import Any, Self

import aiohttp


class HomeAssistantError(Exception):
    """Home Assistant answered with an error."""


@dataclass(frozen=True, slots=True)
class Login:
    """The dev user's credentials."""

    name: str
    username: str
    password: str


class HomeAssistantClient:
    """REST and websocket access with a user's access token."""

    def __init__(self, url: str, session: aiohttp.ClientSession) -> None:
        """Talk to the Home Assistant at `url` (e.g. http://127.0.0.1:8123)."""
        self.url = url.rstrip("/")
        self.session = session
        self.token: str | None = None
        self.client_id = f"{self.url}/"

    async def wait_until_up(self, timeout: float = 300.0) -> None:
        """Wait until the HTTP API answers (401 counts: it is up)."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                async with self.session.get(f"{self.url}/api/") as response:
                    if response.status in (200, 401):
                        return
            except aiohttp.ClientError:
                pass
            if time.monotonic() > deadline:
                raise TimeoutError(f"Home Assistant at {self.url} did not come up")
            await asyncio.sleep(0.5)

    async def wait_until_running(self, timeout: float = 300.0) -> None:
        """Wait until start-up is complete (every integration set up); needs a token."""
        deadline = time.monotonic() + timeout
        async with self.websocket() as ws:
            while (await ws.call({"type": "get_config"}))["state"] != "RUNNING":
                if time.monotonic() > deadline:
                    raise TimeoutError(
                        f"Home Assistant at {self.url} did not finish starting"
                    )
                await asyncio.sleep(0.5)

    async def onboarded(self) -> bool:
        """Whether the first user exists."""
        async with self.session.get(f"{self.url}/api/onboarding") as response:
            if response.status == 404:  # onboarding is finished and its API is gone
                return True
            steps = await response.json()
        return any(s["step"] == "user" and s["done"] for s in steps)

    async def onboard(self, login: Login, language: str = "en") -> None:
        """Create the first user and finish onboarding; keeps the user's token."""
        data = await self._post_json(
            "/api/onboarding/users",
            {
                "client_id": self.client_id,
                "name": login.name,
                "username": login.username,
                "password": login.password,
                "language": language,
            },
            auth=False,
        )
        await self._exchange_code(data["auth_code"])
        await self._post_json("/api/onboarding/core_config", {})
        await self._post_json("/api/onboarding/analytics", {})
        await self._post_json(
            "/api/onboarding/integration",
            {
                "client_id": self.client_id,
                "redirect_uri": f"{self.url}/?auth_callback=1",
            },
        )

    async def log_in(self, login: Login) -> None:
        """Log in with username and password (HA's login flow); keeps the token."""
        flow = await self._post_json(
            "/auth/login_flow",
            {
                "client_id": self.client_id,
                "handler": ["homeassistant", None],
                "redirect_uri": f"{self.url}/?auth_callback=1",
            },
            auth=False,
        )
        result = await self._post_json(
            f"/auth/login_flow/{flow['flow_id']}",
            {
                "client_id": self.client_id,
                "username": login.username,
                "password": login.password,
            },
            auth=False,
        )
        if result.get("type") != "create_entry":
            raise HomeAssistantError(f"login failed: {result.get('errors')}")
        await self._exchange_code(result["result"])

    async def _exchange_code(self, code: str) -> None:
        async with self.session.post(
            f"{self.url}/auth/token",
            data={
                "grant_type": "authorization_code",
                "code": code,
                "client_id": self.client_id,
            },
        ) as response:
            body = await response.json()
            if response.status != 200:
                raise HomeAssistantError(f"token exchange failed: {body}")
        self.token = body["access_token"]

    async def rest(self, method: str, path: str, payload: Any = None) -> Any:
        """Call the REST API; returns the JSON body."""
        async with self.session.request(
            method,
            f"{self.url}{path}",
            json=payload,
            headers={"Authorization": f"Bearer {self.token}"},
        ) as response:
            body = await response.json(content_type=None)
            if response.status >= 400:
                raise HomeAssistantError(f"{method} {path}: {response.status} {body}")
            return body

    async def _post_json(self, path: str, payload: Any, *, auth: bool = True) -> Any:
        headers = {"Authorization": f"Bearer {self.token}"} if auth else {}
        async with self.session.post(
            f"{self.url}{path}", json=payload, headers=headers
        ) as response:
            body = await response.json(content_type=None)
            if response.status >= 400:
                raise HomeAssistantError(f"POST {path}: {response.status} {body}")
            return body

    async def flow(
        self, path: str, start: dict[str, Any], *steps: dict[str, Any]
    ) -> Any:
        """Run a data-entry flow over REST: start it, then submit each step."""
        result = await self.rest("POST", path, start)
        for step in steps:
            if result.get("type") != "form":
                break
            result = await self.rest("POST", f"{path}/{result['flow_id']}", step)
        return result

    def websocket(self) -> Websocket:
        """A websocket connection (use with `async with`)."""
        return Websocket(self)


class Websocket:
    """An authenticated websocket session with request/response helpers."""

    def __init__(self, client: HomeAssistantClient) -> None:
        """Connect on enter."""
        self._client = client
        self._ws: aiohttp.ClientWebSocketResponse | None = None
        self._ids = itertools.count(1)

    async def __aenter__(self) -> Self:
        """Connect and authenticate."""
        url = self._client.url.replace("http", "ws", 1) + "/api/websocket"
        self._ws = await self._client.session.ws_connect(url, max_msg_size=0)
        await self._ws.receive_json()  # auth_required
        await self._ws.send_json({"type": "auth", "access_token": self._client.token})
        reply = await self._ws.receive_json()
        if reply.get("type") != "auth_ok":
            raise HomeAssistantError(f"websocket auth failed: {reply}")
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        """Close."""
        if self._ws is not None:
            await self._ws.close()

    async def send(self, message: dict[str, Any]) -> int:
        """Send a command; returns its id."""
        assert self._ws is not None
        msg_id = next(self._ids)
        await self._ws.send_json({"id": msg_id, **message})
        return msg_id

    async def receive(self, timeout: float = 120.0) -> dict[str, Any]:
        """The next message."""
        assert self._ws is not None
        message: dict[str, Any] = await self._ws.receive_json(timeout=timeout)
        return message

    async def call(self, message: dict[str, Any], timeout: float = 120.0) -> Any:
        """Send a command and return its result (raises on an error result)."""
        msg_id = await self.send(message)
        while True:
            reply = await self.receive(timeout)
            if reply.get("id") != msg_id or reply.get("type") != "result":
                continue
            if not reply["success"]:
                raise HomeAssistantError(f"{message['type']}: {reply['error']}")
            return reply["result"]

    async def run_pipeline(
        self, text: str, *, conversation_id: str | None = None, end_stage: str = "tts"
    ) -> list[dict[str, Any]]:
        """`assist_pipeline/run` from the intent stage; returns the events to run-end."""
        msg_id = await self.send(
            {
                "type": "assist_pipeline/run",
                "start_stage": "intent",
                "end_stage": end_stage,
                "input": {"text": text},
                **({"conversation_id": conversation_id} if conversation_id else {}),
            }
        )
        events: list[dict[str, Any]] = []
        while True:
            reply = await self.receive()
            if reply.get("id") != msg_id:
                continue
            if reply.get("type") == "result":
                if not reply["success"]:
                    raise HomeAssistantError(f"pipeline: {reply['error']}")
                continue
            event = reply["event"]
            events.append(event)
            if event["type"] == "run-end":
                return events
