"""Configure a running Home Assistant for our agent, the way a user would in the UI.

Creates our config entry through the config-flow REST API (and sets the agent's model
through the sub-entry reconfigure flow), exposes some demo entities to Assist and hides
others, puts them in areas, and makes our agent the preferred Assist pipeline's
conversation agent.
"""

from __future__ import annotations

import asyncio
from typing import Any

from .ha_api import HomeAssistantClient

DOMAIN = "agentic_conversation"
# Demo entities the agent may see and control, by area, and ones it must not.
EXPOSED = {
    "Living Room": ["light.living_room_rgbww_lights", "cover.living_room_window"],
    "Kitchen": ["light.kitchen_lights", "cover.kitchen_window"],
    "Bedroom": ["light.bed_light"],
    "Hall": ["lock.front_door", "cover.hall_window"],
    "Garage": ["cover.garage_door", "switch.decorative_lights"],
    # No area: the home's weather.
    "": ["weather.demo_weather_north"],
}
# Set up by HA's onboarding, useless without internet.
ONLINE_ONLY = ("met", "radio_browser")
HIDDEN = [
    "light.office_rgbw_lights",
    "light.ceiling_lights",
    "lock.kitchen_door",
    "switch.ac",
    "weather.demo_weather_south",
]


async def async_configure_agent(
    client: HomeAssistantClient,
    base_url: str,
    api_key: str | None = None,
    model: str | None = None,
    max_tokens: int | None = None,
) -> dict[str, Any]:
    """Create (or re-create) our connection pointed at `base_url`; returns the entry.

    `model`, `max_tokens`: set on its agent (the rest keeps a new agent's defaults).
    """
    for entry in await client.rest("GET", "/api/config/config_entries/entry"):
        if entry["domain"] != DOMAIN:
            continue
        if entry["title"] == base_url.rstrip("/") and entry["state"] == "loaded":
            break
        await client.rest(
            "DELETE", f"/api/config/config_entries/entry/{entry['entry_id']}"
        )
    else:
        step: dict[str, Any] = {"base_url": base_url}
        if api_key:
            step["api_key"] = api_key
        result = await client.flow(
            "/api/config/config_entries/flow", {"handler": DOMAIN}, step
        )
        if result.get("type") != "create_entry":
            raise RuntimeError(f"could not add the connection: {result}")
    entries = await client.rest("GET", "/api/config/config_entries/entry")
    entry = next(e for e in entries if e["domain"] == DOMAIN)
    changes: dict[str, Any] = {}
    if model:
        changes["model"] = model
    if max_tokens:
        changes["max_tokens"] = max_tokens
    if changes:
        await async_set_agent_options(client, entry["entry_id"], **changes)
    return dict(entry)


async def async_set_agent_options(
    client: HomeAssistantClient, entry_id: str, **changes: Any
) -> None:
    """Change the connection's first agent through its reconfigure flow."""
    async with client.websocket() as ws:
        subentries = await ws.call(
            {"type": "config_entries/subentries/list", "entry_id": entry_id}
        )
    agent = next(s for s in subentries if s["subentry_type"] == "conversation")
    form = await client.rest(
        "POST",
        "/api/config/config_entries/subentries/flow",
        {"handler": [entry_id, "conversation"], "subentry_id": agent["subentry_id"]},
    )
    # Turning "recommended settings" off shows the form again, now with the tuning
    # sections: the changes are applied to that form too.
    for _ in range(2):
        result = await client.rest(
            "POST",
            f"/api/config/config_entries/subentries/flow/{form['flow_id']}",
            _filled(form, changes),
        )
        if result.get("type") != "form":
            return
        form = result
    raise RuntimeError(f"the agent's form was not accepted: {result}")


def _filled(form: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    """A form's current values with the changes, each where its field is.

    The form is in sections ("expandable" fields); only shown fields can change (the
    recommended switch hides some).
    """
    current: dict[str, Any] = {}
    where: dict[str, str] = {}
    for field in form["data_schema"]:
        if field.get("type") == "expandable":
            current[field["name"]] = _suggested(field["schema"])
            where.update(
                dict.fromkeys((f["name"] for f in field["schema"]), field["name"])
            )
        else:
            current.update(_suggested([field]))
    for key, value in changes.items():
        if key in where:
            current[where[key]][key] = value
        elif key in current or not where:
            current[key] = value
    return current


def _suggested(fields: list[dict[str, Any]]) -> dict[str, Any]:
    """The suggested values of a form's fields, by name."""
    return {
        field["name"]: field["description"]["suggested_value"]
        for field in fields
        if "suggested_value" in (field.get("description") or {})
    }


async def async_remove_cloud_integrations(client: HomeAssistantClient) -> None:
    """Remove what onboarding set up that needs the internet (met.no, Radio Browser).

    The demo has its own weather; offline (CI, this sandbox) those two only log errors,
    and met.no's retries hold up the next start by seconds.
    """
    entries = await client.rest("GET", "/api/config/config_entries/entry")
    # Together: each removal waits for that integration's failing setup to finish.
    await asyncio.gather(
        *(
            client.rest("DELETE", f"/api/config/config_entries/entry/{e['entry_id']}")
            for e in entries
            if e["source"] == "onboarding" and e["domain"] in ONLINE_ONLY
        )
    )


async def async_expose_demo_entities(client: HomeAssistantClient) -> None:
    """Areas for the demo entities; some exposed to Assist, some not."""
    async with client.websocket() as ws:
        areas = {
            a["name"]: a["area_id"]
            for a in await ws.call({"type": "config/area_registry/list"})
        }
        registry = await ws.call({"type": "config/entity_registry/list"})
        devices = {e["entity_id"]: e.get("device_id") for e in registry}
        # Some demo entities (the locks) have no unique id: no registry entry, no area,
        # but they can be exposed all the same.
        existing = {s["entity_id"] for s in await ws.call({"type": "get_states"})}
        for area, entity_ids in EXPOSED.items():
            if not area:
                continue
            if area not in areas:
                created = await ws.call(
                    {"type": "config/area_registry/create", "name": area}
                )
                areas[area] = created["area_id"]
            for entity_id in entity_ids:
                if entity_id not in devices:
                    continue
                # Demo entities take their name from their device: the area goes there.
                if device_id := devices[entity_id]:
                    update = {
                        "type": "config/device_registry/update",
                        "device_id": device_id,
                    }
                else:
                    update = {
                        "type": "config/entity_registry/update",
                        "entity_id": entity_id,
                    }
                await ws.call({**update, "area_id": areas[area]})
        for should_expose, entity_ids in (
            (True, [e for ids in EXPOSED.values() for e in ids]),
            (False, HIDDEN),
        ):
            await ws.call(
                {
                    "type": "homeassistant/expose_entity",
                    "assistants": ["conversation"],
                    "entity_ids": [e for e in entity_ids if e in existing],
                    "should_expose": should_expose,
                }
            )


async def async_use_agent_in_pipeline(client: HomeAssistantClient) -> str:
    """Make our agent the preferred pipeline's conversation agent; returns its id."""
    async with client.websocket() as ws:
        states = await ws.call({"type": "get_states"})
        agent = next(
            s["entity_id"]
            for s in states
            if s["entity_id"].startswith("conversation.")
            and s["entity_id"] != "conversation.home_assistant"
        )
        pipelines = await ws.call({"type": "assist_pipeline/pipeline/list"})
        preferred = next(
            p
            for p in pipelines["pipelines"]
            if p["id"] == pipelines["preferred_pipeline"]
        )
        fields = {k: v for k, v in preferred.items() if k != "id"}
        fields["conversation_engine"] = agent
        fields["conversation_language"] = fields.get("conversation_language") or "en"
        await ws.call(
            {
                "type": "assist_pipeline/pipeline/update",
                "pipeline_id": preferred["id"],
                **fields,
            }
        )
    return str(agent)
