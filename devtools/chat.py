"""`scripts/chat "text"`: talk to the dev server's agent and show what it did.

Sends the text through `conversation/process` (or an Assist pipeline with --pipeline)
over the websocket API with the dev user's token, then prints the reply and the tool
calls the agent made (from the conversation's chat log).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
from pathlib import Path
import sys
from typing import Any

import aiohttp

from .ha_api import HomeAssistantClient

CREDENTIALS = Path(__file__).resolve().parent.parent / "config" / ".agentic_dev.json"


async def _chat_log(ws: Any, conversation_id: str) -> list[dict[str, Any]]:
    """The conversation's chat log content (HA's chat_log subscription)."""
    msg_id = await ws.send(
        {"type": "conversation/chat_log/subscribe", "conversation_id": conversation_id}
    )
    content: list[dict[str, Any]] = []
    while True:
        message = await ws.receive(10)
        if message.get("id") != msg_id or message.get("type") != "event":
            continue
        event = message["event"]
        if event.get("event_type") == "initial_state":
            content = event["data"].get("content", [])
            break
    await ws.send({"type": "unsubscribe_events", "subscription": msg_id})
    return content


async def main() -> int:
    """Send, print, return non-zero if the reply was an error."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("text")
    parser.add_argument("--conversation-id", "-c")
    parser.add_argument(
        "--pipeline", action="store_true", help="run an Assist pipeline"
    )
    parser.add_argument("--language", default="en")
    args = parser.parse_args()
    if not CREDENTIALS.exists():
        print("No dev server credentials: run scripts/develop first.", file=sys.stderr)
        return 2
    creds = json.loads(CREDENTIALS.read_text())
    async with aiohttp.ClientSession() as session:
        client = HomeAssistantClient(creds["url"], session)
        client.token = creds["token"]
        async with client.websocket() as ws:
            if args.pipeline:
                pipeline = await ws.call({"type": "assist_pipeline/pipeline/get"})
                # Through text-to-speech when the pipeline has a TTS engine.
                events = await ws.run_pipeline(
                    args.text,
                    conversation_id=args.conversation_id,
                    end_stage="tts" if pipeline.get("tts_engine") else "intent",
                )
                steps = [
                    f"{kind} x{n}" if (n := len(list(same))) > 1 else kind
                    for kind, same in itertools.groupby(e["type"] for e in events)
                ]
                print(f"  pipeline {pipeline['name']!r}: {' '.join(steps)}")
                for event in events:
                    if event["type"] == "error":
                        print(f"  error {event['data']}")
                    elif event["type"] == "tts-end":
                        print(f"  tts   {event['data']['tts_output']['url']}")
                intent_end = next(
                    (e for e in events if e["type"] == "intent-end"), None
                )
                if intent_end is None:
                    return 1
                output = intent_end["data"]["intent_output"]
            else:
                output = await ws.call(
                    {
                        "type": "conversation/process",
                        "text": args.text,
                        "language": args.language,
                        "agent_id": creds["agent"],
                        **(
                            {"conversation_id": args.conversation_id}
                            if args.conversation_id
                            else {}
                        ),
                    }
                )
            conversation_id = output["conversation_id"]
            log = await _chat_log(ws, conversation_id)
    response = output["response"]
    # This turn: what follows the last user message.
    turn_start = max(
        (i for i, item in enumerate(log) if item.get("role") == "user"), default=-1
    )
    for item in log[turn_start + 1 :]:
        for call in item.get("tool_calls") or []:
            print(f"  tool  {call['tool_name']} {json.dumps(call['tool_args'])}")
        if item.get("role") == "tool_result":
            result = item.get("result") or {}
            mark = "error" if result.get("error") else "->"
            print(f"  {mark:5} {json.dumps(result.get('data'))[:200]}")
    speech = response.get("speech", {}).get("plain", {}).get("speech", "")
    print(f"agent: {speech}")
    if response.get("response_type") == "error":
        print(f"(error: {response.get('data', {}).get('code')})")
    print(f"conversation id: {conversation_id}  (continue with -c {conversation_id})")
    return 1 if response.get("response_type") == "error" else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
