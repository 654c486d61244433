"""Conversations we keep ourselves: they outlive HA's five idle minutes and a restart.

Per connection one HA `Store` file holds each agent's conversations (every turn's
user text, assistant text, tool calls and results), bounded per agent by a number of
conversations and the history budget, written debounced and on stop. A file (or a
conversation in it) we cannot read as ours is copied aside first (kept/store_file.py).
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from homeassistant.core import HomeAssistant, callback
from homeassistant.util import dt as dt_util

from ..agent import Message, safe_data
from ..const import (
    CONF_CONVERSATION_EXPIRY,
    CONF_HISTORY_TOKENS,
    CONF_MAX_CONVERSATIONS,
    DEFAULT_CONVERSATION_EXPIRY,
    DEFAULT_HISTORY_TOKENS,
    DEFAULT_MAX_CONVERSATIONS,
    DOMAIN,
)
from .chat_history import trim_to_budget
from .store_file import KeptFile, KeptStore, async_load_kept, async_set_aside

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
        self._store = KeptStore(
            hass, STORAGE_VERSION, f"{DOMAIN}.{entry_id}.conversations"
        )
        self._entry_id = entry_id
        self._agents: dict[str, dict[str, Conversation]] = {}

    async def async_load(self, agent_ids: Sequence[str]) -> None:
        """Load what was kept; agents that no longer exist are forgotten.

        A file we cannot read as ours, or a conversation in it, is copied aside first.
        """
        data = await async_load_kept(
            self._store, KeptFile.CONVERSATIONS, self._entry_id
        )
        self._agents = {}
        if data is None:
            return
        agents = data.get("agents") if isinstance(data, dict) else None
        if not isinstance(agents, dict):
            await async_set_aside(
                self._store,
                KeptFile.CONVERSATIONS,
                self._entry_id,
                data,
                "not the shape of our conversations",
            )
            return
        skipped = 0
        for agent_id, conversations in agents.items():
            if not isinstance(conversations, dict):
                skipped += 1
                continue
            if agent_id not in agent_ids:
                continue
            kept = self._agents.setdefault(agent_id, {})
            for conversation_id, raw in conversations.items():
                if (conversation := _parse(raw)) is None:
                    skipped += 1
                else:
                    kept[str(conversation_id)] = conversation
        if skipped:
            # One bad conversation costs only itself; the whole file is kept aside.
            await async_set_aside(
                self._store,
                KeptFile.CONVERSATIONS,
                self._entry_id,
                data,
                f"{skipped} unreadable conversations",
            )
        if skipped or set(agents) - set(agent_ids):
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
