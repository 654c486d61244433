"""The agentic loop of an agent's turn, built from its options and the chat log."""

from homeassistant.components import conversation
from homeassistant.config_entries import ConfigSubentry

from ..agent import AgenticLoop, LLMProvider, LoopLimits
from ..const import (
    CONF_CONTEXT_WINDOW,
    CONF_LOCAL_FALLBACK,
    CONF_MAX_ITERATIONS,
    CONF_MAX_TOKENS,
    CONF_TOOL_TIMEOUT,
    CONF_TURN_TIMEOUT,
    DEFAULT_CONTEXT_WINDOW,
    DEFAULT_LOCAL_FALLBACK,
    DEFAULT_MAX_ITERATIONS,
    DEFAULT_MAX_TOKENS,
    DEFAULT_TOOL_TIMEOUT,
    DEFAULT_TURN_TIMEOUT,
    LOCAL_ROUTE_SECONDS,
)
from ..redact import our_secrets
from ..tool_dispatch import ChatLogToolDispatcher, no_tools


def build_loop(
    provider: LLMProvider,
    subentry: ConfigSubentry,
    chat_log: conversation.ChatLog,
    server_context: int | None = None,
) -> AgenticLoop:
    """The loop for this agent's options (fitted to the server's context if told)."""
    options = subentry.data
    context = int(options.get(CONF_CONTEXT_WINDOW, DEFAULT_CONTEXT_WINDOW))
    if server_context is not None and server_context < context:
        context = server_context
    turn_timeout = float(options.get(CONF_TURN_TIMEOUT, DEFAULT_TURN_TIMEOUT))
    if options.get(CONF_LOCAL_FALLBACK, DEFAULT_LOCAL_FALLBACK):
        # Home Assistant's own agent answers within the turn timeout, not after it.
        turn_timeout = max(turn_timeout - LOCAL_ROUTE_SECONDS, turn_timeout / 2)
    system = chat_log.content[0]
    return AgenticLoop(
        provider,
        ChatLogToolDispatcher(chat_log.llm_api) if chat_log.llm_api else no_tools,
        LoopLimits(
            max_iterations=int(
                options.get(CONF_MAX_ITERATIONS, DEFAULT_MAX_ITERATIONS)
            ),
            tool_timeout=float(options.get(CONF_TOOL_TIMEOUT, DEFAULT_TOOL_TIMEOUT)),
            turn_timeout=turn_timeout,
            context_tokens=context,
            answer_tokens=int(options.get(CONF_MAX_TOKENS, DEFAULT_MAX_TOKENS)),
        ),
        system_prompt=system.content
        if isinstance(system, conversation.SystemContent)
        else None,
        # A model that repeats our key must not get it spoken or kept.
        secrets=our_secrets(chat_log.hass),
    )
