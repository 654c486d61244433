"""Fitting one request (system prompt, tools, history, this turn) into the context window.

Sizes are counted in characters of the messages' JSON, at about `CHARS_PER_TOKEN`
characters per token, since no model-specific tokenizer is at hand. When a request is
too big, in this order:

1. tool results of earlier exchanges are shortened to `HISTORY_RESULT_CHARS`;
2. this turn's tool results, if together they take more than half of the room left
   (after the system prompt, the tools and this turn's other messages), are shortened
   to fair shares of that half, the small ones staying whole;
3. the oldest exchanges are dropped, whole (an exchange starts at a user message, so a
   tool call keeps its results); the previous exchange goes last;
4. this turn's tool results get whatever room the kept history leaves, each at least
   `MIN_RESULT_CHARS`;
5. if even that does not fit, `ContextTooSmallError`.

This turn's messages are never dropped, and the caller's messages are never modified.
"""

from collections.abc import Sequence
import json
import logging

from .messages import Message
from .tool_calls import ToolSpec

_LOGGER = logging.getLogger(__name__)

# Rough size of a token in characters, to turn tokens into characters without a
# model-specific tokenizer.
CHARS_PER_TOKEN = 4
# Sizes of one tool message as JSON: what an earlier exchange's result keeps, and the
# least a shortened result of this turn keeps (below that it tells the model nothing).
HISTORY_RESULT_CHARS = 500
MIN_RESULT_CHARS = 300
# Each message is counted with the ", " that separates it from the next in the list.
_SEPARATOR = 2


class ContextTooSmallError(Exception):
    """Even the least this turn needs does not fit the context window."""

    def __init__(self, needed: int, budget: int) -> None:
        """Record the sizes, in characters."""
        super().__init__(
            f"the request needs at least {needed} characters (about"
            f" {-(-needed // CHARS_PER_TOKEN)} tokens) but the context window leaves"
            f" {budget} characters for it, after the room kept for the answer"
        )
        self.needed = needed
        self.budget = budget


def budget_chars(context_tokens: int, answer_tokens: int) -> int:
    """Characters a request may take: the window less the room kept for the answer."""
    return (context_tokens - answer_tokens) * CHARS_PER_TOKEN


def message_size(message: Message) -> int:
    """A message's size in characters, as counted against the budget."""
    return len(json.dumps(message, ensure_ascii=False)) + _SEPARATOR


def tools_size(tools: Sequence[ToolSpec]) -> int:
    """The `tools` list's size in characters."""
    if not tools:
        return 0
    return len(json.dumps([tool.to_openai() for tool in tools], ensure_ascii=False))


def shorten(message: Message, limit: int) -> Message:
    """A copy of a tool message cut, with a marker, to at most `limit` characters.

    If even the marker alone is too big, the copy holds just the marker (and is bigger
    than `limit`; the caller's final check catches that).
    """
    content = str(message.get("content") or "")

    def cut(keep: int) -> Message:
        marker = (
            f"…[shortened to fit the context: {len(content) - keep} chars left out]"
        )
        return {**message, "content": content[:keep] + marker}

    base = message_size(cut(0))
    keep = min(len(content), limit - base)
    while keep > 0:
        candidate = cut(keep)
        size = message_size(candidate)
        if size <= limit:
            return candidate
        # Escaped characters (quotes, newlines) take more than one: guess again in
        # proportion, always at least one character less.
        keep = min(keep - 1, keep * (limit - base) // max(size - base, 1))
    return cut(0)


def fair_cap(sizes: Sequence[int], allowance: int) -> int | None:
    """The largest per-item cap that brings the sizes' sum within the allowance.

    None if they fit whole. Items under the cap stay whole; the others share the rest.
    """
    if not sizes or sum(sizes) <= allowance:
        return None
    remaining = allowance
    ordered = sorted(sizes)
    for index, size in enumerate(ordered):
        share = remaining // (len(ordered) - index)
        if size > share:
            return max(share, 0)
        remaining -= size
    return None  # pragma: no cover - the sum exceeds the allowance


def _exchanges(history: Sequence[Message]) -> list[list[Message]]:
    """History split into exchanges, each starting at a user message."""
    exchanges: list[list[Message]] = []
    for message in history:
        if message.get("role") == "user" or not exchanges:
            exchanges.append([])
        exchanges[-1].append(message)
    return exchanges


class ContextFitter:
    """Fits every request of one turn: the system prompt and history are fixed."""

    def __init__(
        self, prefix: Sequence[Message], tools: Sequence[ToolSpec], budget: int
    ) -> None:
        """Initialise.

        Args:
            prefix: The system prompt (leading system messages) and the history.
            tools: The tools offered; their definitions count against the budget.
            budget: Characters for messages and tools.
        """
        lead = 0
        while lead < len(prefix) and prefix[lead].get("role") == "system":
            lead += 1
        self.system = list(prefix[:lead])
        self.history = list(prefix[lead:])
        self.budget = budget
        # What every request of the turn sends besides history and the turn's messages.
        self.fixed = _list_size(self.system) + tools_size(tools)
        self.history_size = _list_size(self.history)
        self.exchanges = _exchanges(self.history)
        # Shortened exchanges with their sizes, newest first, made only as needed:
        # with a long history and a small window most are never looked at.
        self.shortened: list[tuple[list[Message], int]] = []

    def fit(self, current: Sequence[Message]) -> list[Message]:
        """The messages to send: system prompt, what fits of history, `current`.

        Raises:
            ContextTooSmallError: Not even the system prompt, the tools and `current`
                with its tool results at their shortest fit.
        """
        sizes = [message_size(m) for m in current]
        fixed = self.fixed + sum(sizes)
        if fixed + self.history_size <= self.budget:
            return [*self.system, *self.history, *current]
        kept, used = self._newest(self.budget - fixed)
        if len(kept) == len(self.exchanges) and fixed + used <= self.budget:
            return [*self.system, *(m for e in kept for m in e), *current]
        results = [i for i, m in enumerate(current) if m.get("role") == "tool"]
        result_sizes = [sizes[i] for i in results]
        # Room for this turn's tool results and the history.
        room = self.budget - fixed + sum(result_sizes)
        half = sum(_capped(result_sizes, fair_cap(result_sizes, room // 2)))
        kept, used = self._newest(room - half)
        # The results get all the room the kept history leaves.
        cap = fair_cap(result_sizes, room - used)
        fitted = list(current)
        if cap is not None:
            limit = max(cap, MIN_RESULT_CHARS)
            for i in results:
                if sizes[i] > limit:
                    fitted[i] = shorten(current[i], limit)
                    sizes[i] = message_size(fitted[i])
        total = self.fixed + used + sum(sizes)
        if total > self.budget:
            least = self.budget - room + sum(_capped(result_sizes, MIN_RESULT_CHARS))
            error = ContextTooSmallError(
                least if least > self.budget else total, self.budget
            )
            _LOGGER.warning("The context window is too small: %s", error)
            raise error
        return [*self.system, *(m for e in kept for m in e), *fitted]

    def _newest(self, room: int) -> tuple[list[list[Message]], int]:
        """The newest shortened exchanges that fit in `room`, oldest first; their size."""
        kept: list[list[Message]] = []
        used = 0
        for back in range(len(self.exchanges)):
            if back == len(self.shortened):
                exchange = self.exchanges[-1 - back]
                short = [
                    shorten(m, HISTORY_RESULT_CHARS)
                    if m.get("role") == "tool"
                    and message_size(m) > HISTORY_RESULT_CHARS
                    else m
                    for m in exchange
                ]
                self.shortened.append((short, _list_size(short)))
            short, size = self.shortened[back]
            if used + size > room:
                break
            kept.append(short)
            used += size
        kept.reverse()
        return kept, used


def _list_size(messages: Sequence[Message]) -> int:
    """The summed `message_size` of messages, in one JSON encoding (much faster)."""
    # "[" + ", ".join(...) + "]" is exactly the sizes plus 2 per message.
    return len(json.dumps(messages, ensure_ascii=False)) if messages else 0


def _capped(sizes: Sequence[int], cap: int | None) -> list[int]:
    """Sizes after shortening to `cap` (at least `MIN_RESULT_CHARS`)."""
    if cap is None:
        return list(sizes)
    limit = max(cap, MIN_RESULT_CHARS)
    return [min(size, limit) for size in sizes]


def fit_request(
    prefix: Sequence[Message],
    current: Sequence[Message],
    tools: Sequence[ToolSpec],
    budget: int,
) -> list[Message]:
    """`ContextFitter(prefix, tools, budget).fit(current)`, for a single request."""
    return ContextFitter(prefix, tools, budget).fit(current)
