"""A connection's secrets, kept out of titles, logs, diagnostics and the UI.

`redactor(entry_data)` knows the entry's API key and base URL credentials and removes
them (and any URL credentials) from a text; `redact_url` only the URL credentials.
"""

from collections.abc import Mapping
from typing import Any

from homeassistant.const import CONF_API_KEY

from .agent.credentials import REDACTED, Redactor, redact_url
from .const import CONF_BASE_URL

__all__ = ["REDACTED", "Redactor", "redact_url", "redactor"]


def redactor(entry_data: Mapping[str, Any]) -> Redactor:
    """The redactor for a connection entry's secrets."""
    return Redactor.for_connection(
        str(entry_data.get(CONF_BASE_URL) or ""), entry_data.get(CONF_API_KEY)
    )
