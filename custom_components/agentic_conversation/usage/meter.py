"""The usage of one agent or AI task, heard by its sensors and put in the trace."""

from collections.abc import Callable

from homeassistant.components.conversation.chat_log import current_chat_log
from homeassistant.core import callback

from ..agent import Usage
from .prices import Prices

type UsageListener = Callable[[Usage, Prices | None], None]
"""A call's usage, and the prices of the model that served it (None: the agent's)."""


class UsageMeter:
    """Tells its listeners (the sensors) the usage of each LLM call."""

    def __init__(self) -> None:
        """Start without listeners."""
        self._listeners: list[UsageListener] = []

    @callback
    def add_listener(self, listener: UsageListener) -> Callable[[], None]:
        """Hear each call's usage; returns the function that stops it."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    @callback
    def record(self, usage: Usage, prices: Prices | None = None) -> None:
        """One LLM call's usage: to the chat log's trace (as core does), the sensors.

        `prices`: the model's that served it, when it is not the agent's own.
        """
        if (chat_log := current_chat_log.get()) is not None:
            stats: dict[str, int | bool] = {
                "input_tokens": usage.input_tokens,
                "output_tokens": usage.output_tokens,
            }
            if usage.estimated:
                stats["estimated"] = True
            chat_log.async_trace({"stats": stats})
        for listener in list(self._listeners):
            listener(usage, prices)
