"""`scripts/develop`: a real Home Assistant with our agent configured, ready to talk to.

Starts the built-in llama.cpp server unless OPENAI_BASE_URL names another one, starts
`hass` with config/, completes onboarding on the first start (a dev user), configures
our integration through the config-flow API, and keeps running until Ctrl+C.

Ctrl+C stops Home Assistant as a restart does: `hass` runs in its own process group, so
the terminal's SIGINT reaches only us; we send it one SIGTERM and wait until it has
finished (its final store writes included). A second Ctrl+C kills it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from pathlib import Path
import signal
import subprocess
import sys
from typing import Any

import aiohttp

from .ha_api import HomeAssistantClient, HomeAssistantError, Login
from .llama import MODEL_VARIABLE, built_in_max_tokens, model_alias, start_llama_server
from .setup_home import (
    async_configure_agent,
    async_expose_demo_entities,
    async_remove_cloud_integrations,
    async_use_agent_in_pipeline,
)

REPO = Path(__file__).resolve().parent.parent
CONFIG = REPO / "config"
CREDENTIALS = CONFIG / ".agentic_dev.json"
HA_URL = "http://127.0.0.1:8123"
LLAMA_PORT = int(os.environ.get("AGENTIC_LLAMA_PORT", "8081"))
DEV_LOGIN = Login(name="Developer", username="dev", password="agentic-dev")
# Home Assistant's own stop gives its stages up to 100 + 60 + 30 s before it gives up.
HASS_STOP_TIMEOUT = 200.0


def _say(text: str) -> None:
    print(f"\033[1m[develop]\033[0m {text}", file=sys.stderr, flush=True)


async def _wait_for_http(
    url: str, session: aiohttp.ClientSession, timeout: float
) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        with contextlib.suppress(aiohttp.ClientError):
            async with session.get(url) as response:
                if response.status < 500:
                    return
        if asyncio.get_running_loop().time() > deadline:
            raise TimeoutError(f"{url} did not answer")
        await asyncio.sleep(0.5)


def _start_llama() -> subprocess.Popen[bytes]:
    """The built-in llama.cpp server on loopback (AGENTIC_LLAMA_MODEL chooses the model)."""
    _say(f"starting llama-server ({model_alias()}) on 127.0.0.1:{LLAMA_PORT}")
    return start_llama_server(LLAMA_PORT)


def _built_in_note() -> str:
    """What the built-in model is good for, as the start message says it."""
    if os.environ.get(MODEL_VARIABLE, "smollm2") == "smollm2":
        return (
            "the built-in SmolLM2-135M: fine for trying the plumbing, too small to act"
            f" ({MODEL_VARIABLE}=qwen-1.5b for one that acts)"
        )
    return f"the built-in {model_alias()} (slow on a CPU: a turn may take a minute or more)"


async def _stored_token(client: HomeAssistantClient) -> str | None:
    """The long-lived token saved by an earlier start, if Home Assistant takes it."""
    try:
        token = str(json.loads(CREDENTIALS.read_text())["token"])
    except OSError, ValueError, KeyError:
        return None
    client.token = token
    try:
        async with client.websocket():
            return token
    except HomeAssistantError:
        return None
    finally:
        client.token = None


async def _remove_cloud_integrations(client: HomeAssistantClient) -> None:
    with contextlib.suppress(HomeAssistantError, aiohttp.ClientError):
        await async_remove_cloud_integrations(client)


async def _configure(
    client: HomeAssistantClient, llm_url: str, *, built_in: bool
) -> dict[str, Any]:
    token = None
    if not await client.onboarded():
        _say("first start: onboarding with a dev user")
        await client.onboard(DEV_LOGIN)
    elif token := await _stored_token(client):
        client.token = token  # no new login, no new token on every start
    else:
        await client.log_in(DEV_LOGIN)
    await client.wait_until_running()
    async with client.websocket() as ws:
        # HA 2026.10 moves the http: YAML into its own store on first start and reverts
        # it after 5 minutes unless confirmed: confirm it (we wrote it).
        with contextlib.suppress(HomeAssistantError):
            await ws.call({"type": "http/config/promote"})
        if token is None:
            token = await ws.call(
                {
                    "type": "auth/long_lived_access_token",
                    "client_name": f"scripts/chat {os.getpid()}",
                    "lifespan": 3650,
                }
            )
    entry = await async_configure_agent(
        client,
        llm_url,
        os.environ.get("OPENAI_API_KEY") or None,
        os.environ.get("AGENTIC_MODEL") or None,
        built_in_max_tokens() if built_in else None,
    )
    # The agent keeps a new agent's defaults, the built-in model too: Compact home
    # control (its request does not grow with the demo's entities) and local first
    # (commands Home Assistant understands, risky ones asked, never reach SmolLM2).
    await async_expose_demo_entities(client)
    agent = await async_use_agent_in_pipeline(client)
    CREDENTIALS.write_text(json.dumps({"url": HA_URL, "token": token, "agent": agent}))
    return {"entry": entry, "agent": agent}


def start_in_own_group(
    args: list[str], env: dict[str, str] | None = None
) -> subprocess.Popen[bytes]:
    """A child in its own process group: Ctrl+C in the terminal does not reach it."""
    return subprocess.Popen(args, env=env, process_group=0)


def start_hass(env: dict[str, str]) -> subprocess.Popen[bytes]:
    """Home Assistant with config/, stopped only by us (see stop_hass)."""
    return start_in_own_group(
        [sys.executable, "-m", "homeassistant", "--config", str(CONFIG)], env
    )


async def stop_hass(
    process: subprocess.Popen[bytes],
    *,
    timeout: float = HASS_STOP_TIMEOUT,
    force: asyncio.Event | None = None,
) -> int:
    """Stop Home Assistant as a restart does: one SIGTERM, then wait for it to finish.

    A second signal to Home Assistant mid-stop would kill it before its final writes;
    it is killed only after `timeout` or when `force` is set (a second Ctrl+C).
    """
    if process.poll() is None:
        _say("stopping Home Assistant (Ctrl+C again to kill it)")
        process.send_signal(signal.SIGTERM)
    deadline = asyncio.get_running_loop().time() + timeout
    while process.poll() is None:
        if asyncio.get_running_loop().time() > deadline or (force and force.is_set()):
            _say("Home Assistant did not stop: killing it")
            process.kill()
            break
        await asyncio.sleep(0.1)
    return process.wait()


async def main() -> int:
    """Run until hass exits or Ctrl+C."""
    llm_url = os.environ.get("OPENAI_BASE_URL", "").strip()
    built_in = not llm_url
    llama: subprocess.Popen[bytes] | None = None
    env = {
        **os.environ,
        "PYTHONPATH": f"{REPO}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
    }
    hass = start_hass(env)
    stop, force = asyncio.Event(), asyncio.Event()

    def _on_signal() -> None:
        (force if stop.is_set() else stop).set()

    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, _on_signal)
    try:
        if built_in:
            # Home Assistant starts meanwhile: on a cold machine building llama-server
            # takes minutes, and the UI/API should not wait for it.
            llama = await asyncio.to_thread(_start_llama)
            llm_url = f"http://127.0.0.1:{LLAMA_PORT}/v1"
        async with aiohttp.ClientSession() as session:
            if llama is not None:
                await _wait_for_http(f"{llm_url}/models", session, 120)
            client = HomeAssistantClient(HA_URL, session)
            await client.wait_until_up()
            done = await _configure(client, llm_url, built_in=built_in)
            # In the background: removing met.no waits for its (offline, failing) setup.
            cleanup = asyncio.create_task(_remove_cloud_integrations(client))
            model_note = _built_in_note() if built_in else llm_url
            _say(
                "\n\n"
                f"  Home Assistant: {HA_URL}   login: {DEV_LOGIN.username} / {DEV_LOGIN.password}\n"
                f"  Agent: {done['agent']} on {model_note}\n"
                '  Try:   scripts/chat "turn on the kitchen lights"\n'
                "  Stop with Ctrl+C.\n"
            )
            while hass.poll() is None and not stop.is_set():
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), 1)
            cleanup.cancel()
    finally:
        # Home Assistant first: a turn still running may need the model to finish.
        await stop_hass(hass, force=force)
        if llama is not None and llama.poll() is None:
            llama.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                llama.wait(30)
            if llama.poll() is None:
                llama.kill()
    return hass.returncode or 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
