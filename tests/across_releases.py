"""What tests ask of Home Assistant in a way that holds on every release we support.

- Tool names: when an agent uses several LLM APIs, HA renames tools to tell them apart,
  and how differs between releases (2026.10 prefixes every tool with its API, 2026.11
  only the ones whose names collide). Tests script the fake LLM with the names HA
  really offers.
- Chat sessions: HA 2026.11 opens one with the context of who asks (its user owns the
  conversation); 2026.10 takes no context.
"""

from contextlib import AbstractContextManager
import inspect
from typing import Any

from homeassistant.core import Context, HomeAssistant
from homeassistant.helpers import chat_session, llm

from custom_components.agentic_conversation.const import DOMAIN
from custom_components.agentic_conversation.offered_tools import original_tool


async def offered_name(hass: HomeAssistant, api_ids: list[str], tool: str) -> str:
    """The name of a tool (its own name, or its intent) as these APIs offer it."""
    llm_context = llm.LLMContext(
        platform=DOMAIN,
        context=Context(),
        language="en",
        assistant="conversation",
        device_id=None,
    )
    api = await llm.async_get_api(hass, api_ids, llm_context)
    for offered in api.tools:
        original = original_tool(offered)
        # HA's own tools may carry their platform in their name
        # (homeassistant__GetLiveContext); their classes are named after the tool.
        if tool in (
            original.name,
            getattr(original, "intent_type", None),
            type(original).__name__.removesuffix("Tool"),
        ):
            return offered.name
    raise AssertionError(f"{tool} is not offered by {api_ids}")


def open_chat_session(
    hass: HomeAssistant, context: Context
) -> AbstractContextManager[chat_session.ChatSession]:
    """A new chat session, opened for the user of `context` where HA asks for one."""
    kwargs: dict[str, Any] = {}
    if "context" in inspect.signature(chat_session.async_get_chat_session).parameters:
        kwargs["context"] = context
    return chat_session.async_get_chat_session(hass, **kwargs)
