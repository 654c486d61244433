"""Logbook entries for risky actions: held, confirmed, refused or expired."""

from collections.abc import Callable
from typing import Any

from homeassistant.components.logbook.const import (
    LOGBOOK_ENTRY_ENTITY_ID,
    LOGBOOK_ENTRY_MESSAGE,
    LOGBOOK_ENTRY_NAME,
)
from homeassistant.components.logbook.models import LazyEventPartialState
from homeassistant.core import HomeAssistant, callback

from .const import DOMAIN
from .safety.confirmation import EVENT_ACTION

_OUTCOMES = {
    "held": "waits for confirmation to",
    "confirmed": "was confirmed to",
    "refused": "was not allowed to",
    "expired": "was not confirmed in time to",
}


@callback
def async_describe_events(
    hass: HomeAssistant,
    async_describe_event: Callable[
        [str, str, Callable[[LazyEventPartialState], dict[str, Any]]], None
    ],
) -> None:
    """Describe our action events (the user who asked is the event's context)."""

    @callback
    def describe(event: LazyEventPartialState) -> dict[str, Any]:
        data = event.data
        names = [
            state.name if (state := hass.states.get(entity_id)) else entity_id
            for entity_id in data.get("entity_ids", [])
        ]
        actions = ", ".join(data.get("actions", []))
        outcome = _OUTCOMES.get(data.get("outcome", ""), data.get("outcome", ""))
        return {
            LOGBOOK_ENTRY_NAME: "Agentic Conversation",
            LOGBOOK_ENTRY_MESSAGE: f"{outcome} {actions} {', '.join(names)}".strip(),
            LOGBOOK_ENTRY_ENTITY_ID: data.get("agent_id"),
        }

    async_describe_event(DOMAIN, EVENT_ACTION, describe)
