"""The AI task step of the e2e story: an automation describes a camera snapshot.

An AI task is added through the subentry flow; an automation (configuration.yaml,
AUTOMATION) calls `ai_task.generate_data` with a structure and the front door camera's
snapshot, and fires an event with the structured result.
"""

import asyncio
from typing import Any

from devtools.ha_api import HomeAssistantClient

# Added to the story's configuration.yaml (a format string: braces doubled).
AUTOMATION = """
camera:
  - platform: door_camera
automation:
  - alias: Who is at the door
    triggers:
      - trigger: event
        event_type: e2e_doorbell
    actions:
      - action: ai_task.generate_data
        data:
          entity_id: ai_task.door_watcher
          task_name: front door
          instructions: Who is at the door?
          structure:
            visitor:
              required: true
              selector:
                text:
            carries_parcel:
              required: true
              selector:
                boolean:
          attachments:
            - media_content_id: media-source://camera/camera.front_door
              media_content_type: image/jpeg
        response_variable: door
      - event: e2e_door_described
        event_data:
          visitor: "{{{{ door.data.visitor }}}}"
          carries_parcel: "{{{{ door.data.carries_parcel }}}}"
"""
ANSWER = '{"visitor": "a postman", "carries_parcel": true}'


async def ai_task_story(
    client: HomeAssistantClient, llm: Any, report: dict[str, Any]
) -> None:
    """Add the AI task, ring the doorbell, record the event and what the server got."""
    entries = await client.rest("GET", "/api/config/config_entries/entry")
    entry = next(e for e in entries if e["domain"] == "agentic_conversation")
    created = await client.flow(
        "/api/config/config_entries/subentries/flow",
        {"handler": [entry["entry_id"], "ai_task_data"]},
        {"name": "Door watcher", "model": "fake-model", "task_timeout": 60},
    )
    report["ai_task_created"] = created.get("type")
    # The connection reloads with its new subentry: wait for the entity.
    for _ in range(120):
        if await _exists(client, "ai_task.door_watcher"):
            break
        await asyncio.sleep(0.5)
    else:
        raise TimeoutError("ai_task.door_watcher did not appear")
    await llm.script({"kind": "text", "text": ANSWER, "usage": [900, 25]})
    sent_before = len(await llm.requests())
    async with client.websocket() as ws:
        await ws.call({"type": "subscribe_events", "event_type": "e2e_door_described"})
        await client.rest("POST", "/api/events/e2e_doorbell", {})
        while (message := await ws.receive(120))["type"] != "event":
            pass
    report["ai_task_event"] = message["event"]["data"]
    (request,) = (await llm.requests())[sent_before:]
    report["ai_task_request"] = {
        "user_content": request["messages"][-1]["content"],
        "response_format": request.get("response_format"),
    }
    report["ai_task_tokens"] = [
        (await client.rest("GET", f"/api/states/sensor.door_watcher_{kind}"))["state"]
        for kind in ("input_tokens", "output_tokens")
    ]


async def _exists(client: HomeAssistantClient, entity_id: str) -> bool:
    states = await client.rest("GET", "/api/states")
    return any(state["entity_id"] == entity_id for state in states)
