"""One turn at a time per conversation, so no turn overwrites another's history.

Each turn reads the kept history at its start and writes it back, with its own
exchange, at its end: two turns of one conversation at once would each write what
they read, and one exchange would be lost. HA 2026.11 refuses the second turn
(`ConversationBusyError`), 2026.10 runs both; waiting for our turn works on both.
"""

import asyncio
from collections.abc import AsyncIterator, Hashable
from contextlib import asynccontextmanager


class ConversationTurns:
    """The turns of one agent's conversations, one at a time per conversation."""

    def __init__(self) -> None:
        """No conversation is busy yet."""
        self._locks: dict[Hashable, asyncio.Lock] = {}
        self._waiting: dict[Hashable, int] = {}

    @asynccontextmanager
    async def one_at_a_time(self, key: Hashable | None) -> AsyncIterator[None]:
        """Wait until no other turn of this conversation runs (None: a new one)."""
        if key is None:
            yield
            return
        lock = self._locks.setdefault(key, asyncio.Lock())
        self._waiting[key] = self._waiting.get(key, 0) + 1
        try:
            async with lock:
                yield
        finally:
            # The lock goes with its last user: the dict holds only busy conversations.
            self._waiting[key] -= 1
            if not self._waiting[key]:
                del self._waiting[key]
                del self._locks[key]
