"""The e2e story, run in its own process.

    python -m tests.e2e.story REPORT.json [--llama | --frontend SCREENSHOTS_DIR]

It starts a real `hass` on a free loopback port with a temporary config, a scripted
OpenAI-compatible server process (tests/fake_llm.py) — or, with --llama, the built-in
llama.cpp server —, onboards Home Assistant through its API, adds our integration
through the config-flow API, and talks to the agent over the websocket API the way a
client and a voice satellite do. Everything observed goes into the JSON report, which
the pytest tests in this folder check. (It runs outside pytest's process so the HA test
plugin's socket guard and event loop don't apply to a real client.)
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
import contextlib
import json
import os
from pathlib import Path
import socket
import subprocess
import sys
import tempfile
import time
from typing import Any

import aiohttp
from aiohttp import web

from devtools.ha_api import HomeAssistantClient, Login, Websocket
from devtools.llama import start_llama_server
from devtools.setup_home import async_configure_agent, async_set_agent_options
from tests.e2e.ai_task_story import AUTOMATION, ai_task_story
from tests.e2e.boot_story import boot_down_story
from tests.e2e.frontend_story import frontend_story
from tests.e2e.mcp_story import mcp_story

REPO = Path(__file__).resolve().parents[2]
DOOR_CAMERA = (
    Path(__file__).resolve().parent
    / "testing_config"
    / "custom_components"
    / "door_camera"
)
RECORDING_TTS = (
    Path(__file__).resolve().parent
    / "testing_config"
    / "custom_components"
    / "recording_tts"
)
LOGIN = Login(name="E2E", username="e2e", password="e2e-password")

CONFIGURATION = """
homeassistant:
  name: E2E home
  latitude: 38.7223
  longitude: -9.1393
  elevation: 10
  unit_system: metric
  time_zone: Europe/Lisbon
  country: PT
  language: en
http:
  server_host: 127.0.0.1
  server_port: {port}
onboarding:
config:
conversation:
intent:
assist_pipeline:
recording_tts:
input_boolean:
  porch:
    name: Porch switch
  cellar:
    name: Cellar switch
  front_door_locked:
    name: Front door bolt
    initial: true
  garage_open:
    name: Garage motor
template:
  - light:
      - name: Porch light
        unique_id: porch_light
        state: "{{{{ is_state('input_boolean.porch', 'on') }}}}"
        turn_on:
          action: input_boolean.turn_on
          target:
            entity_id: input_boolean.porch
        turn_off:
          action: input_boolean.turn_off
          target:
            entity_id: input_boolean.porch
      - name: Cellar light
        unique_id: cellar_light
        state: "{{{{ is_state('input_boolean.cellar', 'on') }}}}"
        turn_on:
          action: input_boolean.turn_on
          target:
            entity_id: input_boolean.cellar
        turn_off:
          action: input_boolean.turn_off
          target:
            entity_id: input_boolean.cellar
    lock:
      - name: Front door
        unique_id: front_door
        state: "{{{{ 'locked' if is_state('input_boolean.front_door_locked', 'on') else 'unlocked' }}}}"
        lock:
          action: input_boolean.turn_on
          target:
            entity_id: input_boolean.front_door_locked
        unlock:
          action: input_boolean.turn_off
          target:
            entity_id: input_boolean.front_door_locked
    cover:
      - name: Garage door
        unique_id: garage_door
        device_class: garage
        state: "{{{{ 'open' if is_state('input_boolean.garage_open', 'on') else 'closed' }}}}"
        open_cover:
          action: input_boolean.turn_on
          target:
            entity_id: input_boolean.garage_open
        close_cover:
          action: input_boolean.turn_off
          target:
            entity_id: input_boolean.garage_open
logger:
  default: warning
  logs:
    custom_components.agentic_conversation: debug
"""


def free_port() -> int:
    """A free TCP port on loopback."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def wait_for_models(session: aiohttp.ClientSession, base_url: str) -> None:
    """Wait until an OpenAI-compatible server lists its models."""
    for _ in range(600):
        with contextlib.suppress(aiohttp.ClientError):
            async with session.get(f"{base_url}/models") as response:
                if response.status == 200:
                    return
        await asyncio.sleep(0.2)
    raise TimeoutError(f"{base_url} did not start")


class FakeLLMProcess:
    """tests/fake_llm.py in its own process, scripted over its control endpoints."""

    def __init__(self, session: aiohttp.ClientSession) -> None:
        """Pick a port; start() runs it."""
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self.session = session
        self.process: subprocess.Popen[bytes] | None = None

    async def start(self) -> None:
        """Run it and wait until it answers."""
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.fake_llm", "--port", str(self.port)],
            cwd=REPO,
            stdout=subprocess.DEVNULL,
        )
        for _ in range(100):
            with contextlib.suppress(aiohttp.ClientError):
                async with self.session.get(f"{self.base_url}/models"):
                    return
            await asyncio.sleep(0.1)
        raise TimeoutError("fake LLM did not start")

    async def script(self, *replies: dict[str, Any]) -> None:
        """Queue replies."""
        url = f"http://127.0.0.1:{self.port}/control/script"
        async with self.session.post(url, json=list(replies)) as response:
            response.raise_for_status()

    async def requests(self) -> list[dict[str, Any]]:
        """What it received so far."""
        url = f"http://127.0.0.1:{self.port}/control/requests"
        async with self.session.get(url) as response:
            result: list[dict[str, Any]] = await response.json()
            return result

    def kill(self) -> None:
        """Kill -9: no goodbye, the port just refuses from now on."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()


class RecordingProxy:
    """Sits between Home Assistant and a real LLM server and records every exchange.

    So a test against a real server can still check what the agent sent it and what
    the model answered, word for word.
    """

    def __init__(self, upstream: str, session: aiohttp.ClientSession) -> None:
        """Forward to `upstream` (e.g. http://127.0.0.1:8080); start() listens."""
        self.upstream = upstream.rstrip("/")
        self.session = session
        self.exchanges: list[dict[str, Any]] = []
        self.base_url = ""
        self._runner: web.AppRunner | None = None

    async def start(self) -> None:
        """Listen on a free loopback port."""
        app = web.Application()
        app.router.add_route("*", "/{path:.*}", self._forward)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.base_url = f"http://127.0.0.1:{self._runner.addresses[0][1]}/v1"

    async def close(self) -> None:
        """Stop listening."""
        if self._runner is not None:
            await self._runner.cleanup()

    async def _forward(self, request: web.Request) -> web.StreamResponse:
        body = await request.read()
        async with self.session.request(
            request.method,
            f"{self.upstream}{request.path_qs}",
            data=body,
            headers={"Content-Type": request.content_type},
        ) as upstream:
            response = web.StreamResponse(
                status=upstream.status,
                headers={"Content-Type": upstream.headers.get("Content-Type", "")},
            )
            await response.prepare(request)
            received = b""
            async for chunk in upstream.content.iter_any():
                received += chunk
                await response.write(chunk)
            # A client that has read the stream's [DONE] may close before the end
            # of the chunked body: it has the whole answer, so record it anyway.
            with contextlib.suppress(ConnectionResetError):
                await response.write_eof()
        if request.path.endswith("/chat/completions"):
            self.exchanges.append(
                {"request": json.loads(body), "answer": _answer_text(received)}
            )
        return response


def _answer_text(raw: bytes) -> str:
    """The model's words in a chat completion, streamed (SSE) or not."""
    text = raw.decode(errors="replace")
    if not text.lstrip().startswith("data:"):
        with contextlib.suppress(ValueError, KeyError, IndexError):
            return str(json.loads(text)["choices"][0]["message"]["content"] or "")
        return ""
    words = []
    for line in text.splitlines():
        data = line.removeprefix("data:").strip()
        if not line.startswith("data:") or data == "[DONE]":
            continue
        with contextlib.suppress(ValueError, KeyError, IndexError):
            words.append(json.loads(data)["choices"][0]["delta"].get("content") or "")
    return "".join(words)


async def _speech_of(output: dict[str, Any]) -> dict[str, Any]:
    response = output["response"]
    return {
        "speech": response.get("speech", {}).get("plain", {}).get("speech", ""),
        "response_type": response.get("response_type"),
        "code": response.get("data", {}).get("code"),
        "conversation_id": output.get("conversation_id"),
    }


async def _say(
    ws: Websocket, agent: str, text: str, conversation_id: str | None = None
) -> dict[str, Any]:
    output = await ws.call(
        {
            "type": "conversation/process",
            "text": text,
            "language": "en",
            "agent_id": agent,
            **({"conversation_id": conversation_id} if conversation_id else {}),
        }
    )
    return await _speech_of(output)


async def _pipeline(
    client: HomeAssistantClient,
    ws: Websocket,
    text: str,
    session: aiohttp.ClientSession,
    conversation_id: str | None = None,
) -> dict[str, Any]:
    """Run intent → tts and fetch what the TTS engine was asked to say."""
    events = await ws.run_pipeline(text, conversation_id=conversation_id)
    types = [e["type"] for e in events]
    intent_end = next((e for e in events if e["type"] == "intent-end"), None)
    tts_end = next((e for e in events if e["type"] == "tts-end"), None)
    heard = None
    if tts_end is not None:
        url = tts_end["data"]["tts_output"]["url"]
        if url.startswith("/"):
            url = client.url + url
        async with session.get(url) as response:
            heard = (await response.read()).decode()
    return {
        "events": types,
        "speech": intent_end["data"]["intent_output"]["response"]["speech"]["plain"][
            "speech"
        ]
        if intent_end
        else None,
        "conversation_id": intent_end["data"]["intent_output"].get("conversation_id")
        if intent_end
        else None,
        "heard": heard,
    }


async def _light(client: HomeAssistantClient) -> str:
    state = await client.rest("GET", "/api/states/light.porch_light")
    return str(state["state"])


async def _set_up_home(client: HomeAssistantClient, base_url: str) -> str:
    """Onboard, expose the porch light, add our agent, make the satellite pipeline."""
    await client.onboard(LOGIN)
    await client.wait_until_running()
    async with client.websocket() as ws:
        await ws.call(
            {
                "type": "homeassistant/expose_entity",
                "assistants": ["conversation"],
                "entity_ids": ["light.porch_light"],
                "should_expose": True,
            }
        )
    entry = await async_configure_agent(client, base_url)
    # The story is about the model's turns: commands go to it, not to HA's recognition.
    await async_set_agent_options(client, entry["entry_id"], local_first=False)
    async with client.websocket() as ws:
        states = await ws.call({"type": "get_states"})
        agent = next(
            s["entity_id"]
            for s in states
            if s["entity_id"].startswith("conversation.")
            and s["entity_id"] != "conversation.home_assistant"
        )
        for _ in range(100):  # the option's change reloads the connection
            listed = await ws.call({"type": "conversation/agent/list"})
            if any(a["id"] == agent for a in listed["agents"]):
                break
            await asyncio.sleep(0.1)
        pipeline = await ws.call(
            {
                "type": "assist_pipeline/pipeline/create",
                "name": "Satellite",
                "language": "en",
                "conversation_engine": agent,
                "conversation_language": "en",
                "stt_engine": None,
                "stt_language": None,
                "tts_engine": "tts.recorder",
                "tts_language": "en",
                "tts_voice": None,
                "wake_word_entity": None,
                "wake_word_id": None,
            }
        )
        await ws.call(
            {
                "type": "assist_pipeline/pipeline/set_preferred",
                "pipeline_id": pipeline["id"],
            }
        )
    return str(agent)


async def _scripted_story(
    client: HomeAssistantClient,
    session: aiohttp.ClientSession,
    report: dict[str, Any],
    restart: Callable[[], Awaitable[None]],
) -> None:
    llm = FakeLLMProcess(session)
    await llm.start()
    try:
        await _scripted_turns(client, session, llm, report, restart)
    finally:
        llm.kill()  # also when a step failed: never leave the server running


async def _scripted_turns(
    client: HomeAssistantClient,
    session: aiohttp.ClientSession,
    llm: FakeLLMProcess,
    report: dict[str, Any],
    restart: Callable[[], Awaitable[None]],
) -> None:
    agent = await _set_up_home(client, llm.base_url)
    report["agent"] = agent
    async with client.websocket() as ws:
        # Which tools does the model get? Ask once and look at the request.
        await llm.script({"kind": "text", "text": "Hello! How can I help?"})
        report["hello"] = await _say(ws, agent, "hello")
        offered = [
            t["function"]["name"] for t in (await llm.requests())[0].get("tools", [])
        ]
        report["offered_tools"] = offered
        turn_on = next(name for name in offered if name.endswith("HassTurnOn"))
        turn_off = next(name for name in offered if name.endswith("HassTurnOff"))

        # (a) an action
        await llm.script(
            {
                "kind": "tool_calls",
                "calls": [[turn_on, {"name": "Porch light"}, "call_on"]],
            },
            {"kind": "text", "text": "The porch light is on."},
        )
        report["turn_on"] = await _say(ws, agent, "turn on the porch light")
        report["turn_on"]["light"] = await _light(client)

        # (b) a follow-up in the same conversation
        await llm.script(
            {
                "kind": "tool_calls",
                "calls": [[turn_off, {"name": "Porch light"}, "call_off"]],
            },
            {"kind": "text", "text": "Done, it's off now."},
        )
        report["follow_up"] = await _say(
            ws, agent, "turn it off again", report["turn_on"]["conversation_id"]
        )
        report["follow_up"]["light"] = await _light(client)
        requests = await llm.requests()
        report["follow_up"]["sent_history"] = requests[-2]["messages"]

        # (d) the same through the satellite pipeline, to the TTS engine
        await llm.script(
            {
                "kind": "tool_calls",
                "calls": [[turn_on, {"name": "Porch light"}]],
                "text": "Sure.",
            },
            {
                "kind": "text",
                "text": "The porch light is on again, and it looks lovely tonight.",
            },
        )
        report["pipeline_turn_on"] = await _pipeline(
            client, ws, "turn on the porch light", session
        )
        report["pipeline_turn_on"]["light"] = await _light(client)
        # … and its follow-up, in the same conversation
        await llm.script(
            {"kind": "tool_calls", "calls": [[turn_off, {"name": "Porch light"}]]},
            {"kind": "text", "text": "It's off."},
        )
        report["pipeline_follow_up"] = await _pipeline(
            client,
            ws,
            "and off again",
            session,
            report["pipeline_turn_on"]["conversation_id"],
        )
        report["pipeline_follow_up"]["light"] = await _light(client)
        report["pipeline_follow_up"]["sent_history"] = (await llm.requests())[-2][
            "messages"
        ]

        # (f) an automation asks the AI task about the front door camera
        await ai_task_story(client, llm, report)

        # (e) a real restart: the conversation and what "it" was outlive it
        await llm.script(
            {"kind": "tool_calls", "calls": [[turn_on, {"name": "Porch light"}]]},
            {"kind": "text", "text": "On."},
        )
        before = await _say(ws, agent, "switch on the porch light")
    await restart()
    async with client.websocket() as ws:
        await llm.script(
            {"kind": "tool_calls", "calls": [[turn_off, {"name": "Porch light"}]]},
            {"kind": "text", "text": "Off."},
        )
        report["after_restart"] = {
            "light_before": await _light(client),
            **await _say(ws, agent, "turn it off", before["conversation_id"]),
            "light": await _light(client),
            "sent_history": (await llm.requests())[-2]["messages"],
        }

        # (c) the LLM server dies; the user still hears something, and HA goes on
        llm.kill()
        report["server_killed"] = await _say(ws, agent, "are you still there?")
        report["server_killed_pipeline"] = await _pipeline(
            client, ws, "turn on the porch light", session
        )
        report["server_killed_pipeline"]["light"] = await _light(client)
        report["still_running"] = (await client.rest("GET", "/api/"))["message"]

    # Our tools from any MCP client, through Home Assistant's MCP server
    await mcp_story(client, session, report)
    # A power cut: Home Assistant starts before the LLM server
    await boot_down_story(
        client,
        llm,
        agent,
        restart=restart,
        pipeline=lambda ws, text: _pipeline(client, ws, text, session),
        report=report,
    )


async def _llama_story(
    client: HomeAssistantClient, session: aiohttp.ClientSession, report: dict[str, Any]
) -> None:
    port = free_port()
    llama = start_llama_server(port)
    proxy = RecordingProxy(f"http://127.0.0.1:{port}", session)
    try:
        base_url = f"http://127.0.0.1:{port}/v1"
        await wait_for_models(session, base_url)
        await proxy.start()
        agent = await _set_up_home(client, proxy.base_url)
        # A 135M model sampled at 0.7 now and then says nothing at all: greedy
        # decoding makes the turn the same every run (the switch hides temperature).
        entry = next(
            e
            for e in await client.rest("GET", "/api/config/config_entries/entry")
            if e["domain"] == "agentic_conversation"
        )
        await async_set_agent_options(
            client, entry["entry_id"], recommended=False, temperature=0
        )
        for _ in range(100):  # the connection reloads with the new options
            async with client.websocket() as ws:
                if any(
                    s["entity_id"] == agent and s["state"] != "unavailable"
                    for s in await ws.call({"type": "get_states"})
                ):
                    break
            await asyncio.sleep(0.1)
        text = "Say hello in one short sentence."
        async with client.websocket() as ws:
            started = time.monotonic()
            report["llama_hello"] = await _say(ws, agent, text)
            report["llama_hello"]["seconds"] = round(time.monotonic() - started, 2)
        # What the agent sent for this turn (not the start-up endpoint check).
        report["llama_turn"] = [
            {
                "tools": [t["function"]["name"] for t in x["request"].get("tools", [])],
                "tool_choice": x["request"].get("tool_choice"),
                "users": [
                    m["content"]
                    for m in x["request"]["messages"]
                    if m["role"] == "user"
                ],
                "answer": x["answer"],
            }
            for x in proxy.exchanges
            if any(m.get("content") == text for m in x["request"]["messages"])
        ]
    finally:
        await proxy.close()
        llama.kill()
        llama.wait()


async def _frontend_story(
    client: HomeAssistantClient,
    session: aiohttp.ClientSession,
    report: dict[str, Any],
    shots: Path,
) -> None:
    llm = FakeLLMProcess(session)
    await llm.start()
    try:
        await frontend_story(client, llm, LOGIN, shots, report)
    finally:
        llm.kill()


async def main(report_path: Path, mode: str, shots: Path | None = None) -> None:
    """Run the story; write the report (also what went wrong, if anything did).

    mode: "scripted" (the scripted LLM server), "llama" (llama.cpp) or "frontend"
    (HA's frontend in Chromium, screenshots to `shots`).
    """
    report: dict[str, Any] = {}
    port = free_port()
    configuration = (CONFIGURATION + AUTOMATION).format(port=port)
    if mode == "frontend":
        configuration = configuration.replace(
            "onboarding:\n", "onboarding:\nfrontend:\n"
        )
    with tempfile.TemporaryDirectory(prefix="agentic-e2e-") as tmp:
        config = Path(tmp)
        (config / "configuration.yaml").write_text(configuration)
        custom = config / "custom_components"
        custom.mkdir()
        (custom / "agentic_conversation").symlink_to(
            REPO / "custom_components" / "agentic_conversation"
        )
        (custom / "recording_tts").symlink_to(RECORDING_TTS)
        (custom / "door_camera").symlink_to(DOOR_CAMERA)
        log = open(config / "hass.log", "wb")

        def start_hass() -> subprocess.Popen[bytes]:
            return subprocess.Popen(
                [sys.executable, "-m", "homeassistant", "--config", str(config)],
                stdout=log,
                stderr=subprocess.STDOUT,
                # Not the repository: its custom_components/ would shadow the config's.
                cwd=config,
                env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
            )

        def stop_hass(process: subprocess.Popen[bytes]) -> None:
            process.terminate()
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()

        hass = start_hass()
        started = time.monotonic()
        try:
            async with aiohttp.ClientSession() as session:
                client = HomeAssistantClient(f"http://127.0.0.1:{port}", session)

                async def restart() -> None:
                    nonlocal hass
                    stop_hass(hass)
                    report["restart_exit_code"] = hass.returncode
                    hass = start_hass()
                    await client.wait_until_up(180)
                    await client.wait_until_running()

                await client.wait_until_up(180)
                report["hass_up_seconds"] = round(time.monotonic() - started, 1)
                if mode == "llama":
                    await _llama_story(client, session, report)
                elif mode == "frontend":
                    assert shots is not None
                    await _frontend_story(client, session, report, shots)
                else:
                    await _scripted_story(client, session, report, restart)
        except Exception as err:  # noqa: BLE001 - the report says what broke
            report["error"] = repr(err)
        finally:
            report["hass_alive_at_end"] = hass.poll() is None
            stop_hass(hass)
            log.close()
            text = (config / "hass.log").read_text(errors="replace")
            report_path.with_suffix(".log").write_text(text)
            report["hass_errors"] = [
                line
                for line in text.splitlines()
                if " ERROR " in line and "agentic_conversation" in line
            ]
            report["hass_log_tail"] = text.splitlines()[-40:]
            report["hass_log_problems"] = [
                line
                for line in text.splitlines()
                if ("ERROR" in line or "rror" in line or "recording" in line)
                and "met.no" not in line
            ][:30]
    report_path.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    match sys.argv[2:]:
        case ["--llama"]:
            asyncio.run(main(Path(sys.argv[1]), "llama"))
        case ["--frontend", shots]:
            asyncio.run(main(Path(sys.argv[1]), "frontend", Path(shots)))
        case _:
            asyncio.run(main(Path(sys.argv[1]), "scripted"))
