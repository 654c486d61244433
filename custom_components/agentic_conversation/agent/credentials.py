"""A connection's secrets: kept out of request URLs and out of every text we write.

Credentials in a base URL (`http://user:pass@host/v1`) go as an Authorization header,
not in the URL the HTTP client logs. A `Redactor` knows a connection's API key and URL
credentials and removes them from any text, also one a server echoed back.
"""

import base64
from collections.abc import Iterable
from dataclasses import dataclass
import re
from urllib.parse import quote, unquote, urlsplit, urlunsplit

REDACTED = "***"
# Shorter "secrets" (a one-letter password) would garble every text, not hide much.
_MIN_SECRET = 3

# "user:password@" after the scheme (up to the last "@" before the path).
_USERINFO = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*://)[^/?#\s]*@")
# The value of key=, api_key=, apikey=, token=, access_token= in a query string.
_SECRET_PARAM = re.compile(
    r"([?&;](?:api[_-]?key|key|(?:access[_-]?)?token)=)[^&#;\s]*", re.IGNORECASE
)


def redact_url(text: str) -> str:
    """A URL, or a message holding URLs, with their credentials replaced by ***.

    >>> redact_url("https://user:pass@host/v1?key=abc&x=1")
    'https://***@host/v1?key=***&x=1'
    """
    text = _USERINFO.sub(rf"\1{REDACTED}@", text)
    return _SECRET_PARAM.sub(rf"\1{REDACTED}", text)


def split_credentials(url: str) -> tuple[str, dict[str, str]]:
    """The URL without user info, and the Basic Authorization header it carried.

    >>> split_credentials("http://me:p%40ss@host:8080/v1")
    ('http://host:8080/v1', {'Authorization': 'Basic bWU6cEBzcw=='})
    """
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url, {}
    userinfo, _, host = parts.netloc.rpartition("@")
    user, _, password = userinfo.partition(":")
    token = base64.b64encode(f"{unquote(user)}:{unquote(password)}".encode()).decode()
    return urlunsplit(parts._replace(netloc=host)), {"Authorization": f"Basic {token}"}


@dataclass(frozen=True, slots=True)
class Redactor:
    """Removes a connection's secrets (and any URL credentials) from text."""

    secrets: tuple[str, ...] = ()

    @classmethod
    def for_connection(cls, base_url: str, api_key: str | None) -> Redactor:
        """The redactor for a connection's API key and base URL credentials."""
        found: list[str] = [api_key or ""]
        userinfo = urlsplit(base_url).netloc.rpartition("@")[0]
        if userinfo:
            # The user name alone is no secret (and may be a common word).
            password = unquote(userinfo.partition(":")[2])
            found += [
                userinfo,
                password,
                quote(password, safe=""),
                split_credentials(base_url)[1]["Authorization"].removeprefix("Basic "),
            ]
        return cls(_longest_first(found))

    def __call__(self, text: str) -> str:
        """The text without the secrets."""
        text = redact_url(text)
        for secret in self.secrets:
            text = text.replace(secret, REDACTED)
        return text


def _longest_first(secrets: Iterable[str]) -> tuple[str, ...]:
    kept = {secret for secret in secrets if len(secret) >= _MIN_SECRET}
    return tuple(sorted(kept, key=len, reverse=True))
