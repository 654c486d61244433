"""Credentials a base URL may carry, kept out of titles, logs and diagnostics."""

import re

REDACTED = "***"

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
