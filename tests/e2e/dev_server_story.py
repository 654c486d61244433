"""The README's sentences on the dev server's own configuration, in its own process.

    python -m tests.e2e.dev_server_story REPORT.json

Starts `hass` with a copy of config/ (the demo home, on a free port) and the built-in
llama.cpp server with SmolLM2 (chat-only: it cannot call tools), sets the agent up as
`scripts/develop` does (devtools/setup_home.py), and asks over the websocket API what
the README and docs/quickstart.md show, and what a new user tries. The report holds
each reply and the kitchen lights' state after it.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
import subprocess
import sys
import tempfile
from typing import Any

import aiohttp

from devtools.ha_api import HomeAssistantClient, Login
from devtools.llama import built_in_max_tokens, start_llama_server
from devtools.setup_home import (
    async_configure_agent,
    async_expose_demo_entities,
    async_use_agent_in_pipeline,
)
from tests.e2e.story import free_port, wait_for_models

REPO = Path(__file__).resolve().parents[2]
LOGIN = Login(name="Developer", username="dev", password="agentic-dev")
SENTENCES = (
    "hello",
    "turn on the kitchen lights",
    "what time is it",
    "tell me a joke",
    "turn off the kitchen lights",
)


async def _story(client: HomeAssistantClient, base_url: str) -> dict[str, Any]:
    """Set the agent up like scripts/develop, then ask each sentence in turn."""
    await client.onboard(LOGIN)
    await client.wait_until_running()
    # As scripts/develop does: a new agent's defaults, SmolLM2's answer length aside.
    await async_configure_agent(client, base_url, max_tokens=built_in_max_tokens())
    await async_expose_demo_entities(client)
    agent = await async_use_agent_in_pipeline(client)
    replies: list[dict[str, Any]] = []
    async with client.websocket() as ws:
        # The start-up check finds that the model cannot call tools and raises a repair
        # issue saying so; from then on HA's own agent takes the commands.
        for _ in range(600):
            issues = (await ws.call({"type": "repairs/list_issues"}))["issues"]
            if any(i["domain"] == "agentic_conversation" for i in issues):
                break
            await asyncio.sleep(0.2)
        else:
            raise TimeoutError("the endpoint check raised no repair issue")
        for text in SENTENCES:
            output = await ws.call(
                {
                    "type": "conversation/process",
                    "text": text,
                    "language": "en",
                    "agent_id": agent,
                },
                timeout=120,
            )
            response = output["response"]
            lights = await client.rest("GET", "/api/states/light.kitchen_lights")
            replies.append(
                {
                    "text": text,
                    "speech": response["speech"]["plain"]["speech"],
                    "response_type": response["response_type"],
                    "conversation_id": output.get("conversation_id"),
                    "lights": lights["state"],
                }
            )
        pipeline = await ws.run_pipeline(
            "turn on the kitchen lights", end_stage="intent"
        )
    intent_end = next(e for e in pipeline if e["type"] == "intent-end")
    return {
        "agent": agent,
        "replies": replies,
        "pipeline_events": [e["type"] for e in pipeline],
        "pipeline_output": intent_end["data"]["intent_output"],
    }


async def main(report_path: Path) -> None:
    """Run the story; the report says what happened, or what broke."""
    report: dict[str, Any] = {}
    port, llama_port = free_port(), free_port()
    configuration = (REPO / "config" / "configuration.yaml").read_text()
    configuration = configuration.replace("server_port: 8123", f"server_port: {port}")
    llama = start_llama_server(llama_port)
    with tempfile.TemporaryDirectory(prefix="agentic-devserver-") as tmp:
        config = Path(tmp)
        (config / "configuration.yaml").write_text(configuration)
        (config / "custom_components").mkdir()
        (config / "custom_components" / "agentic_conversation").symlink_to(
            REPO / "custom_components" / "agentic_conversation"
        )
        with (config / "hass.log").open("wb") as log:
            hass = subprocess.Popen(
                [sys.executable, "-m", "homeassistant", "--config", str(config)],
                stdout=log,
                stderr=subprocess.STDOUT,
                cwd=config,
                env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
            )
            try:
                async with aiohttp.ClientSession() as session:
                    base_url = f"http://127.0.0.1:{llama_port}/v1"
                    await wait_for_models(session, base_url)
                    client = HomeAssistantClient(f"http://127.0.0.1:{port}", session)
                    await client.wait_until_up(180)
                    report.update(await _story(client, base_url))
            except Exception as err:  # noqa: BLE001 - the report says what broke
                report["error"] = repr(err)
            finally:
                for process in (hass, llama):
                    process.terminate()
                    try:
                        process.wait(30)
                    except subprocess.TimeoutExpired:
                        process.kill()
        text = (config / "hass.log").read_text(errors="replace")
        # Ours only: onboarding sets up met.no and Radio Browser, which fail offline
        # (HA 2026.11's Radio Browser logs a traceback when stopped while retrying).
        report["tracebacks"] = [
            block.splitlines()[0]
            for block in _traceback_blocks(text)
            if "agentic_conversation" in block
        ]
        report["hass_errors"] = [
            line
            for line in text.splitlines()
            if " ERROR " in line and "agentic_conversation" in line
        ]
        report["hass_log_tail"] = text.splitlines()[-40:]
        report["agent_log"] = [
            line
            for line in text.splitlines()
            if "agentic_conversation" in line
            and (" WARNING " in line or " INFO " in line)
        ][-40:]
    report_path.write_text(json.dumps(report, indent=2))


def _traceback_blocks(log: str) -> list[str]:
    """Each traceback in a log, up to the next timestamped line."""
    blocks: list[str] = []
    current: list[str] | None = None
    for line in log.splitlines():
        if line.startswith("Traceback"):
            current = [line]
            blocks.append("")
        elif current is not None and line[:4].isdigit():
            current = None
        if current is not None:
            if line is not current[0]:
                current.append(line)
            blocks[-1] = "\n".join(current)
    return blocks


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1])))
