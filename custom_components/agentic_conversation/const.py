"""Constants for the Agentic Conversation integration."""

import logging
from typing import Final

DOMAIN: Final = "agentic_conversation"
LOGGER = logging.getLogger(__package__)

CONF_BASE_URL: Final = "base_url"

DEFAULT_BASE_URL: Final = "https://api.openai.com/v1"
