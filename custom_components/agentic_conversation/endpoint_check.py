"""What each agent's endpoint really supports, checked at setup or when it returns.

A server may accept `tools` and silently ignore them (llama.cpp with a model whose chat
template has no tool support). The agent would then talk but never act; a repair issue
says so instead of leaving the user to guess. A model that writes its calls as text
(the server's tool-call parser not set up for it) can act: no issue, and the Route
sensor's `calls_as_text` says so from the start.
"""

from dataclasses import replace
from datetime import datetime

from homeassistant.config_entries import ConfigSubentry
from homeassistant.const import CONF_LLM_HASS_API
from homeassistant.core import HomeAssistant, callback
from homeassistant.helpers import issue_registry as ir
from homeassistant.helpers.event import async_call_later

from .agent import OpenAICompatibleProvider, probe_endpoint
from .agents import agent_subentries
from .const import (
    CONF_BASE_URL,
    CONF_MODEL,
    CONF_STREAM,
    DEFAULT_STREAM,
    DOMAIN,
    LOGGER,
)
from .prompt_warmup import async_stop_warming, async_warm, wants_warming
from .redact import redact_url
from .runtime import AgenticConfigEntry

ISSUE_PREFIX = "tools_unsupported_"
PROBE_LIMIT = 20.0
# Seconds before probing again when a probe could not tell whether tools work.
RECHECK_AFTER = (30.0, 120.0, 600.0)


def issue_id(subentry_id: str) -> str:
    """The repair issue of one agent."""
    return f"{ISSUE_PREFIX}{subentry_id}"


def _probe_provider(entry: AgenticConfigEntry, model: str) -> OpenAICompatibleProvider:
    """A small client for one model of the connection, on its SDK client."""
    return OpenAICompatibleProvider(
        base_url=entry.data[CONF_BASE_URL],
        api_key=None,
        model=model,
        max_tokens=32,
        temperature=0,
        timeout=PROBE_LIMIT,
        client=entry.runtime_data.client,
    )


async def async_calls_tools(entry: AgenticConfigEntry, model: str) -> bool | None:
    """Whether a model of the connection calls a tool when asked (None: unknown)."""
    found = await probe_endpoint(
        _probe_provider(entry, model), tools=True, streaming=False, limit=PROBE_LIMIT
    )
    return found.tools


async def async_check_agent(
    hass: HomeAssistant,
    entry: AgenticConfigEntry,
    subentry: ConfigSubentry,
    attempt: int = 0,
) -> None:
    """Probe the agent's model on the server; record it; raise or clear the issue.

    A probe that could not tell (the server too busy to answer in time, a model still
    loading) is tried again later, a few times.
    """
    options = subentry.data
    wants_tools = bool(options.get(CONF_LLM_HASS_API))
    wants_stream = bool(options.get(CONF_STREAM, DEFAULT_STREAM))
    if not wants_tools and not wants_stream:
        return
    provider = _probe_provider(entry, options.get(CONF_MODEL, ""))
    found = await probe_endpoint(
        provider, tools=wants_tools, streaming=wants_stream, limit=PROBE_LIMIT
    )
    # Requests are fitted to the server's context where it tells it.
    found = replace(found, context_tokens=await provider.async_context_size())
    entry.runtime_data.capabilities[subentry.subentry_id] = found
    if found.reasoning_opened:
        # Only ever set, as the turns learn it too (turn/model_route.py).
        entry.runtime_data.reasoning_opened.add(subentry.subentry_id)
    if found.calls_as_text and (
        route := entry.runtime_data.routes.get(subentry.subentry_id)
    ):
        # Only ever set: a turn that ran meanwhile saw the model's real calls, and a
        # check finishing after it must not undo what that turn found.
        route.note_calls(from_text=True)
    LOGGER.info(
        "Endpoint check for agent %s (%s): tools %s, streaming %s, context %s (%s)",
        subentry.title,
        options.get(CONF_MODEL),
        "written as text" if found.calls_as_text else found.tools,
        found.streaming,
        found.context_tokens or "not told",
        found.detail,
    )
    if wants_tools and found.tools is False:
        ir.async_create_issue(
            hass,
            DOMAIN,
            issue_id(subentry.subentry_id),
            # repairs.py: switch to another model, or make the agent chat-only.
            is_fixable=True,
            data={"entry_id": entry.entry_id, "subentry_id": subentry.subentry_id},
            severity=ir.IssueSeverity.WARNING,
            translation_key="tools_unsupported",
            translation_placeholders={
                "agent": subentry.title,
                "model": str(options.get(CONF_MODEL)),
                # Shown in Repairs and in diagnostics: without credentials.
                "base_url": redact_url(entry.data[CONF_BASE_URL]),
            },
        )
    elif found.tools is not None or not wants_tools:
        ir.async_delete_issue(hass, DOMAIN, issue_id(subentry.subentry_id))
    if wants_tools and found.tools is None and attempt < len(RECHECK_AFTER):
        _async_check_later(hass, entry, subentry, attempt + 1)
    elif wants_warming(entry, subentry):
        # The probes are done: the server's cache gets the agent's own prompt now.
        entry.async_on_unload(lambda: async_stop_warming(subentry.subentry_id))
        await async_warm(hass, entry, subentry)


@callback
def _async_check_later(
    hass: HomeAssistant,
    entry: AgenticConfigEntry,
    subentry: ConfigSubentry,
    attempt: int,
) -> None:
    """Probe the agent again after a while (until the connection unloads)."""

    @callback
    def _fire(_now: datetime) -> None:
        entry.async_create_background_task(
            hass,
            async_check_agent(hass, entry, subentry, attempt),
            f"{DOMAIN} endpoint check {attempt + 1} for {subentry.title}",
        )

    entry.async_on_unload(async_call_later(hass, RECHECK_AFTER[attempt - 1], _fire))


def async_start_checks(
    hass: HomeAssistant, entry: AgenticConfigEntry, *, probe: bool = True
) -> None:
    """Check every agent in the background; forget issues of agents that are gone.

    `probe` False: the server is down; routes.py checks each agent when it answers.
    """
    agents = {subentry.subentry_id: subentry for subentry in agent_subentries(entry)}
    registry = ir.async_get(hass)
    for (domain, issue), _ in list(registry.issues.items()):
        if (
            domain == DOMAIN
            and issue.startswith(ISSUE_PREFIX)
            and issue.removeprefix(ISSUE_PREFIX) not in agents
            and _issue_belongs_to(registry, issue, entry)
        ):
            ir.async_delete_issue(hass, DOMAIN, issue)
    for subentry in agents.values() if probe else ():
        entry.async_create_background_task(
            hass,
            async_check_agent(hass, entry, subentry),
            f"{DOMAIN} endpoint check for {subentry.title}",
        )


def _issue_belongs_to(
    registry: ir.IssueRegistry, issue: str, entry: AgenticConfigEntry
) -> bool:
    """Whether an issue was raised for an agent of this connection."""
    found = registry.async_get_issue(DOMAIN, issue)
    placeholders = (found.translation_placeholders or {}) if found else {}
    base_url = entry.data[CONF_BASE_URL]
    # Earlier versions put the URL in unredacted.
    return placeholders.get("base_url") in (base_url, redact_url(base_url))
