"""Diagnostics: the connection and its agents, without secrets or prompts."""

from dataclasses import asdict
from typing import Any

from homeassistant.components.diagnostics import async_redact_data
from homeassistant.const import CONF_API_KEY, CONF_PROMPT
from homeassistant.core import HomeAssistant

from .const import CONF_BASE_URL, CONF_CONFIRM_PIN
from .redact import redactor
from .runtime import AgenticConfigEntry

TO_REDACT = {CONF_API_KEY, CONF_PROMPT, CONF_CONFIRM_PIN}


async def async_get_config_entry_diagnostics(
    hass: HomeAssistant, entry: AgenticConfigEntry
) -> dict[str, Any]:
    """What support needs to know about a connection."""
    runtime = getattr(entry, "runtime_data", None)
    redact = redactor(entry.data)
    data = {**entry.data, CONF_BASE_URL: redact(entry.data[CONF_BASE_URL])}
    return {
        "entry": async_redact_data(
            {"title": redact(entry.title), "data": data, "state": entry.state},
            TO_REDACT,
        ),
        "models": list(runtime.models) if runtime is not None else None,
        "endpoint_checks": {
            subentry_id: asdict(found)
            for subentry_id, found in (runtime.capabilities if runtime else {}).items()
        },
        # How each agent's last answer went; the words themselves stay private.
        "routes": {
            subentry_id: {
                "route": state.route.value,
                "reason": redact(state.reason or ""),
                "last_error": redact(state.last_error or ""),
                "breaker_open": state.breaker.is_open,
                "calls_as_text": state.calls_as_text,
                "repaired_calls": state.repaired_calls,
            }
            for subentry_id, state in (runtime.routes if runtime else {}).items()
        },
        "kept_conversations": {
            subentry.subentry_id: runtime.conversations.count(subentry.subentry_id)
            for subentry in entry.subentries.values()
        }
        if runtime is not None
        else None,
        "agents": {
            subentry.subentry_id: async_redact_data(
                {
                    "title": subentry.title,
                    "type": subentry.subentry_type,
                    "options": dict(subentry.data),
                },
                TO_REDACT,
            )
            for subentry in entry.subentries.values()
        },
    }
