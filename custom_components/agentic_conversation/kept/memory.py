"""Household memory: short facts an agent keeps, for the household or for one user.

One `Store` per connection holds pools of facts, newest first: one pool per agent (by
its subentry id) and one shared by the connection's agents that turn `memory_shared`
on. The memory tools (tools/memory.py), the system prompt and each agent's To-do list
(todo.py) all read and change the same pools, so an edit anywhere shows everywhere.
"""

from collections.abc import Iterable
from dataclasses import dataclass
import secrets
from typing import TYPE_CHECKING, Any

from homeassistant.config_entries import ConfigSubentry
from homeassistant.core import CALLBACK_TYPE, HomeAssistant, callback

from ..agent import safe_text
from ..const import CONF_MEMORY_SHARED, DEFAULT_MEMORY_SHARED, DOMAIN
from .store_file import KeptFile, KeptStore, async_load_kept, async_set_aside

if TYPE_CHECKING:
    from ..runtime import AgenticConfigEntry

STORAGE_VERSION = 1
SHARED_POOL = "shared"
MAX_FACT_CHARS = 200
MAX_FACTS = 100
# Starts the facts in the prompt, so a later turn can tell them from the caller's part.
MEMORY_HEADING = "# Memory"
# About 500 tokens of every request; older facts beyond it are left to `recall`.
PROMPT_BUDGET_CHARS = 2000


class MemoryLimitError(Exception):
    """A fact that cannot be kept; `key` names its translated message."""

    def __init__(self, key: str, message: str, **placeholders: str) -> None:
        """Say what is wrong, in English and as a translation key."""
        super().__init__(message)
        self.key = key
        self.placeholders = placeholders


@dataclass(frozen=True, slots=True)
class Fact:
    """One remembered fact."""

    id: str
    text: str
    user_id: str | None = None
    """The HA user it is about; None for the whole household."""

    def to_json(self) -> dict[str, str | None]:
        """As stored."""
        return {"id": self.id, "text": self.text, "user_id": self.user_id}


def clean_fact(text: str) -> str:
    """The fact on one line, trimmed; raises MemoryLimitError if empty or too long."""
    # One line: a fact must not look like a new section of the system prompt.
    cleaned = safe_text(" ".join(str(text).split()))
    if not cleaned:
        raise MemoryLimitError("memory_fact_empty", "The fact is empty.")
    if len(cleaned) > MAX_FACT_CHARS:
        raise MemoryLimitError(
            "memory_fact_too_long",
            f"The fact is {len(cleaned)} characters long; the limit is "
            f"{MAX_FACT_CHARS}. Nothing was stored: say it shorter.",
            length=str(len(cleaned)),
            limit=str(MAX_FACT_CHARS),
        )
    return cleaned


class HouseholdMemory:
    """The facts of one connection's agents, kept in HA's storage."""

    def __init__(self, hass: HomeAssistant, entry_id: str) -> None:
        """Nothing is read until async_load."""
        self._store = KeptStore(
            hass, STORAGE_VERSION, f"{DOMAIN}.memory.{entry_id}", private=True
        )
        self._entry_id = entry_id
        self._pools: dict[str, list[Fact]] = {}
        self._listeners: dict[str, list[CALLBACK_TYPE]] = {}

    async def async_load(self) -> None:
        """Read the facts; a file (or facts) we cannot read is copied aside first."""
        stored = await async_load_kept(self._store, KeptFile.MEMORY, self._entry_id)
        if stored is None:
            return
        pools, dropped = _parse(stored)
        self._pools = pools
        if dropped is None or dropped:
            await async_set_aside(
                self._store,
                KeptFile.MEMORY,
                self._entry_id,
                stored,
                "not the shape of our memory"
                if dropped is None
                else f"{dropped} unreadable facts",
            )

    async def async_remove(self) -> None:
        """Delete the stored facts (the connection is being removed)."""
        self._pools = {}
        await self._store.async_remove()

    async def async_keep_pools(self, pools: Iterable[str]) -> None:
        """Forget the pools of agents that no longer exist."""
        keep = set(pools)
        if gone := [pool for pool in self._pools if pool not in keep]:
            for pool in gone:
                del self._pools[pool]
            await self._async_save()

    def facts(self, pool: str) -> list[Fact]:
        """All facts of a pool, newest first."""
        return list(self._pools.get(pool, ()))

    async def async_add(
        self, pool: str, text: str, user_id: str | None
    ) -> tuple[Fact, bool]:
        """Keep a fact; the fact and whether it is new (not already known)."""
        text = clean_fact(text)
        facts = self._pools.setdefault(pool, [])
        for fact in facts:
            if fact.user_id == user_id and fact.text.casefold() == text.casefold():
                return fact, False
        if len(facts) >= MAX_FACTS:
            raise MemoryLimitError(
                "memory_full",
                f"The memory is full ({MAX_FACTS} facts). Nothing was stored: "
                "forget something first.",
                limit=str(MAX_FACTS),
            )
        known = {fact.id for fact in facts}
        while (fact_id := secrets.token_hex(4)) in known:
            pass
        fact = Fact(fact_id, text, user_id)
        facts.insert(0, fact)
        await self._async_changed(pool)
        return fact, True

    async def async_edit(self, pool: str, fact_id: str, text: str) -> Fact:
        """Change a fact's words, keeping its place and whom it is about."""
        text = clean_fact(text)
        facts = self._pools.get(pool, [])
        for index, fact in enumerate(facts):
            if fact.id == fact_id:
                facts[index] = Fact(fact_id, text, fact.user_id)
                await self._async_changed(pool)
                return facts[index]
        raise MemoryLimitError(
            "memory_fact_not_found", f"No fact has the id {fact_id}.", id=fact_id
        )

    async def async_remove_facts(self, pool: str, fact_ids: Iterable[str]) -> None:
        """Forget these facts (unknown ids are ignored)."""
        ids = set(fact_ids)
        facts = self._pools.get(pool, [])
        kept = [fact for fact in facts if fact.id not in ids]
        if len(kept) != len(facts):
            self._pools[pool] = kept
            await self._async_changed(pool)

    @callback
    def async_listen(self, pool: str, listener: CALLBACK_TYPE) -> CALLBACK_TYPE:
        """Call `listener` after each change of the pool; returns the unsubscriber."""
        listeners = self._listeners.setdefault(pool, [])
        listeners.append(listener)
        return lambda: listeners.remove(listener)

    async def _async_changed(self, pool: str) -> None:
        for listener in list(self._listeners.get(pool, ())):
            listener()
        await self._async_save()

    async def _async_save(self) -> None:
        await self._store.async_save(
            {
                "pools": {
                    pool: [fact.to_json() for fact in facts]
                    for pool, facts in self._pools.items()
                    if facts
                }
            }
        )


def _parse(stored: Any) -> tuple[dict[str, list[Fact]], int | None]:
    """The pools in stored data, and how many facts were unreadable (None: all)."""
    raw_pools = stored.get("pools") if isinstance(stored, dict) else None
    if not isinstance(raw_pools, dict):
        return {}, None
    pools: dict[str, list[Fact]] = {}
    dropped = 0
    for pool, raw_facts in raw_pools.items():
        if not isinstance(raw_facts, list):
            dropped += 1
            continue
        facts: list[Fact] = []
        for raw in raw_facts:
            if (
                isinstance(raw, dict)
                and isinstance(fact_id := raw.get("id"), str)
                and isinstance(text := raw.get("text"), str)
                and isinstance(user_id := raw.get("user_id"), str | None)
                and fact_id not in {fact.id for fact in facts}
            ):
                facts.append(Fact(fact_id, text, user_id))
            else:
                dropped += 1
        pools[str(pool)] = facts[:MAX_FACTS]
    return pools, dropped


@dataclass(frozen=True, slots=True)
class AgentMemory:
    """The pool an agent remembers in, within its connection's memory."""

    memory: HouseholdMemory
    pool: str

    def visible(self, user_id: str | None) -> list[Fact]:
        """The facts a turn may see: the household's and its own user's."""
        return [
            fact
            for fact in self.memory.facts(self.pool)
            if fact.user_id is None or fact.user_id == user_id
        ]


def memory_pool(subentry: ConfigSubentry) -> str:
    """The pool an agent uses: its own, or the connection's shared one."""
    if subentry.data.get(CONF_MEMORY_SHARED, DEFAULT_MEMORY_SHARED):
        return SHARED_POOL
    return subentry.subentry_id


def agent_memory(entry: AgenticConfigEntry, subentry: ConfigSubentry) -> AgentMemory:
    """The memory of an agent of a loaded connection."""
    return AgentMemory(entry.runtime_data.memory, memory_pool(subentry))


HOUSEHOLD_HEADER = "What you remember about this household (newest first):"
PERSONAL_HEADER = "What you remember about the user you are talking to:"


def memory_prompt(
    entry: AgenticConfigEntry, subentry: ConfigSubentry, user_id: str | None
) -> str | None:
    """What the agent remembers, for the system prompt; None when nothing."""
    return facts_prompt(agent_memory(entry, subentry).visible(user_id))


def facts_prompt(facts: list[Fact]) -> str | None:
    """Facts as prompt text, newest first within the budget."""
    household: list[str] = []
    personal: list[str] = []
    used = 0
    for fact in facts:
        used += len(fact.text) + 3
        if used > PROMPT_BUDGET_CHARS:
            break
        (household if fact.user_id is None else personal).append(f"- {fact.text}")
    if not household and not personal:
        return None
    parts = [MEMORY_HEADING]
    if household:
        parts += [HOUSEHOLD_HEADER, *household]
    if personal:
        parts += [PERSONAL_HEADER, *personal]
    if left_out := len(facts) - len(household) - len(personal):
        parts.append(f"({left_out} older facts are not shown here.)")
    return "\n".join(parts)


def join_prompts(*parts: str | None) -> str | None:
    """Prompt parts one after another, or None when all are empty."""
    return "\n\n".join(part for part in parts if part) or None


def without_facts(prompt: str | None) -> str | None:
    """The caller's part of an extra prompt we joined with facts earlier."""
    if not prompt:
        return None
    if prompt.startswith(MEMORY_HEADING):
        return None
    return prompt.split(f"\n\n{MEMORY_HEADING}", 1)[0] or None
