"""A connection's secrets, kept out of titles, logs, diagnostics, the UI and speech.

`redactor(entry_data)` knows the entry's API key and base URL credentials and removes
them (and any URL credentials) from a text; `redact_url` only the URL credentials.
`our_secrets(hass)` knows every secret of this integration, for what a model says.
"""

from collections.abc import Iterator, Mapping
import re
from typing import Any

from homeassistant.const import CONF_API_KEY
from homeassistant.core import HomeAssistant

from .agent.credentials import REDACTED, Redactor, redact_url
from .const import CONF_BASE_URL, CONF_EXTRA_HEADERS, DOMAIN
from .server.extras import ExtrasError, parse_header_extras

__all__ = ["REDACTED", "Redactor", "our_secrets", "redact_url", "redactor"]

# Header names that carry a credential: X-Api-Key, X-Auth-Token, Cookie, …
_SECRET_HEADER = re.compile(
    r"key|token|secret|auth|pass|cookie|session|signature|credential", re.IGNORECASE
)
# A value that looks like a token whatever its header's name: long, one word, letters
# and digits (not "Home Assistant" or "https://my.site" for OpenRouter's X-Title).
_TOKEN_LIKE = re.compile(r"(?=\S*[A-Za-z])(?=\S*\d)\S{16,}")


def redactor(entry_data: Mapping[str, Any]) -> Redactor:
    """The redactor for a connection entry's secrets."""
    return Redactor.for_connection(
        str(entry_data.get(CONF_BASE_URL) or ""), entry_data.get(CONF_API_KEY)
    )


def our_secrets(hass: HomeAssistant) -> Redactor:
    """Every connection's key and URL credentials, every agent's secret headers.

    A model may repeat any of them (a fallback model is on another connection).
    """
    entries = hass.config_entries.async_entries(DOMAIN)
    return Redactor.joined(
        (redactor(entry.data) for entry in entries),
        (
            value
            for entry in entries
            for subentry in entry.subentries.values()
            for value in _secret_headers(subentry.data.get(CONF_EXTRA_HEADERS))
        ),
    )


def _secret_headers(text: Any) -> Iterator[str]:
    """The values of an agent's request-extras headers that are credentials."""
    try:
        headers = parse_header_extras(text if isinstance(text, str) else None)
    except ExtrasError:
        return
    for name, value in headers.items():
        if _SECRET_HEADER.search(name) or _TOKEN_LIKE.fullmatch(value):
            yield value
