"""Config flow for Agentic Conversation."""

from typing import Any

import probatio

from homeassistant.config_entries import ConfigFlow, ConfigFlowResult
from homeassistant.const import CONF_API_KEY

from .const import CONF_BASE_URL, DEFAULT_BASE_URL, DOMAIN

STEP_USER_DATA_SCHEMA = probatio.Schema(
    {
        probatio.Required(CONF_BASE_URL, default=DEFAULT_BASE_URL): str,
        probatio.Optional(CONF_API_KEY): str,
    }
)


class AgenticConversationConfigFlow(ConfigFlow, domain=DOMAIN):
    """Set up a connection to an OpenAI-compatible server."""

    VERSION = 1

    async def async_step_user(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        """Ask for the server's address and key."""
        if user_input is not None:
            self._async_abort_entries_match(user_input)
            return self.async_create_entry(
                title=user_input[CONF_BASE_URL], data=user_input
            )
        return self.async_show_form(step_id="user", data_schema=STEP_USER_DATA_SCHEMA)
