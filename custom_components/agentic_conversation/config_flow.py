"""Config flow: a connection to an OpenAI-compatible server, its agents and AI tasks.

The flows live in the `flows` package; Home Assistant imports this module.
"""

from .flows.agent_schema import default_agent_options
from .flows.connection import AgenticConversationConfigFlow, async_list_models

__all__ = [
    "AgenticConversationConfigFlow",
    "async_list_models",
    "default_agent_options",
]
