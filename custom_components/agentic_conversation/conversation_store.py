"""Conversations we keep ourselves: they outlive HA's five idle minutes and a restart.

Per connection one HA `Store` file holds each agent's conversations (every turn's
user text, assistant text, tool calls and results), bounded per agent by a number of
conversations and the history budget, written debounced and on stop. A missing,
corrupt or foreign file means starting empty with one warning.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from homeassistant.core import HomeAssistant, callback
from homeassistant.helpers.storage import Store
from homeassistant.util import dt as dt_util

from .agent import Message, safe_data
from .chat_history import trim_to_budget
from .const import (
    CONF_CONVERSATION_EXPIRY,
    CONF_HISTORY_TOKENS,
    CONF_MAX_CONVERSATIONS,
    DEFAULT_CONVERSATION_EXPIRY,
    DEFAULT_HISTORY_TOKENS,
    DEFAULT_MAX_CONVERSATIONS,
    DOMAIN,
    LOGGER,
)

STORAGE_VERSION = 1
SAVE_DELAY = 10.0
_ROLES = {"user", "assistant", "tool"}


@dataclass(slots=True)
class Conversation:
    """One kept conversation."""

    messages: list[Message]
    updated: datetime
    device_id: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """The conversation as stored."""
        return {
            "messages": self.messages,
            "updated": self.updated.isoformat(),
            "device_id": self.device_id,
        }


@dataclass(frozen=True, slots=True)
class AgentLimits:
    """How long and how much an agent keeps."""

    expiry: timedelta | None
    """Idle time after which a conversation starts fresh; None: until pushed out."""
    max_conversations: int
    history_tokens: int


def limits_of(options: Mapping[str, Any]) -> AgentLimits:
    """An agent's limits from its options."""
    minutes = int(options.get(CONF_CONVERSATION_EXPIRY, DEFAULT_CONVERSATION_EXPIRY))
    return AgentLimits(
        expiry=timedelta(minutes=minutes) if minutes > 0 else None,
        max_conversations=int(
            options.get(CONF_MAX_CONVERSATIONS, DEFAULT_MAX_CONVERSATIONS)
        ),
        history_tokens=int(options.get(CONF_HISTORY_TOKENS, DEFAULT_HISTORY_TOKENS)),
    )


class ConversationStore:
    """The kept conversations of a connection's agents, by agent (subentry) id."""

    def __init__(self, hass: HomeAssistant, entry_id: str) -> None:
        """A store for one connection (config entry)."""
        self._store: Store[dict[str, Any]] = Store(
            hass, STORAGE_VERSION, f"{DOMAIN}.{entry_id}.conversations"
        )
        self._agents: dict[str, dict[str, Conversation]] = {}

    async def async_load(self, agent_ids: Sequence[str]) -> None:
        """Load what was kept; agents that no longer exist are forgotten."""
        try:
            data = await self._store.async_load()
        except Exception as err:  # noqa: BLE001 - a bad file must never fail setup
            LOGGER.warning(
                "Kept conversations could not be read (%s); starting empty", err
            )
            data = None
        self._agents = {}
        if data is None:
            return
        agents = data.get("agents") if isinstance(data, dict) else None
        if not isinstance(agents, dict):
            LOGGER.warning("Kept conversations are not ours; starting empty")
            return
        skipped = 0
        for agent_id, conversations in agents.items():
            if agent_id not in agent_ids or not isinstance(conversations, dict):
                continue
            kept = self._agents.setdefault(agent_id, {})
            for conversation_id, raw in conversations.items():
                if (conversation := _parse(raw)) is None:
                    skipped += 1
                else:
                    kept[str(conversation_id)] = conversation
        if skipped:
            LOGGER.warning("Skipped %d unreadable kept conversations", skipped)
        if set(agents) - set(agent_ids):
            self._schedule_save()  # removed agents' conversations go from the file

    def find(
        self,
        agent_id: str,
        conversation_ids: Sequence[str | None],
        device_id: str | None,
        limits: AgentLimits,
    ) -> tuple[str, Conversation] | None:
        """The first of these conversations we keep (else the device's last one).

        An expired conversation is forgotten, not found.
        """
        kept = self._agents.get(agent_id, {})
        self._expire(kept, limits)
        for conversation_id in conversation_ids:
            if conversation_id and conversation_id in kept:
                return conversation_id, kept[conversation_id]
        if device_id is None:
            return None
        mine = [(c.updated, i) for i, c in kept.items() if c.device_id == device_id]
        if not mine:
            return None
        _, conversation_id = max(mine)
        return conversation_id, kept[conversation_id]

    @callback
    def async_record(
        self,
        agent_id: str,
        conversation_id: str,
        messages: list[Message],
        *,
        device_id: str | None,
        limits: AgentLimits,
        replaces: str | None = None,
    ) -> None:
        """Keep a conversation's messages (under its current id), within the limits."""
        kept = self._agents.setdefault(agent_id, {})
        if replaces and replaces != conversation_id:
            kept.pop(replaces, None)
        kept.pop(conversation_id, None)  # re-inserted last: dicts keep insertion order
        kept[conversation_id] = Conversation(
            # Made safe where it entered; again here, as one bad string would stop
            # every later write of the file.
            safe_data(trim_to_budget(messages, limits.history_tokens)),
            dt_util.utcnow(),
            device_id,
        )
        while len(kept) > limits.max_conversations:
            oldest = min(kept, key=lambda i: kept[i].updated)
            del kept[oldest]
        self._schedule_save()

    def count(self, agent_id: str) -> int:
        """How many conversations an agent keeps (for diagnostics)."""
        return len(self._agents.get(agent_id, {}))

    async def async_flush(self) -> None:
        """Write now (unload)."""
        await self._store.async_save(self._data())

    async def async_remove(self) -> None:
        """Delete the file (the connection is removed)."""
        await self._store.async_remove()

    def _expire(self, kept: dict[str, Conversation], limits: AgentLimits) -> None:
        if limits.expiry is None:
            return
        cutoff = dt_util.utcnow() - limits.expiry
        for conversation_id in [i for i, c in kept.items() if c.updated < cutoff]:
            del kept[conversation_id]

    @callback
    def _schedule_save(self) -> None:
        self._store.async_delay_save(self._data, SAVE_DELAY)

    def _data(self) -> dict[str, Any]:
        return {
            "agents": {
                agent_id: {i: c.as_dict() for i, c in conversations.items()}
                for agent_id, conversations in self._agents.items()
            }
        }


def _parse(raw: Any) -> Conversation | None:
    """A stored conversation, or None if it is not one of ours."""
    if not isinstance(raw, Mapping):
        return None
    messages = raw.get("messages")
    updated = dt_util.parse_datetime(str(raw.get("updated", "")))
    device_id = raw.get("device_id")
    if (
        not isinstance(messages, list)
        or updated is None
        or not all(isinstance(m, dict) and m.get("role") in _ROLES for m in messages)
        or not (device_id is None or isinstance(device_id, str))
    ):
        return None
    return Conversation(messages, updated, device_id)
