"""A connection's secrets: kept out of request URLs and out of every text we write.

Credentials in a base URL (`http://user:pass@host/v1`) go as an Authorization header,
not in the URL the HTTP client logs. A `Redactor` knows a connection's API key and URL
credentials and removes them from any text, also one a server echoed back, and from
what a model says (`in_words`, `StreamRedactor` for text that streams in pieces).
"""

import base64
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
import re
from typing import Any
from urllib.parse import quote, unquote, urlsplit, urlunsplit

REDACTED = "***"
# What a model's words say instead of a secret: spoken too, where markdown cleaning
# would leave nothing of "***".
SAID_REDACTED = "[redacted]"
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


@dataclass(frozen=True)
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

    @classmethod
    def joined(
        cls, redactors: Iterable[Redactor], more: Iterable[str] = ()
    ) -> Redactor:
        """One redactor for the secrets of all these (and `more` secrets)."""
        found = [secret for redactor in redactors for secret in redactor.secrets]
        return cls(_longest_first([*found, *more]))

    def __call__(self, text: str) -> str:
        """The text without the secrets."""
        text = redact_url(text)
        for secret in self.secrets:
            text = text.replace(secret, REDACTED)
        return text

    @cached_property
    def pattern(self) -> re.Pattern[str] | None:
        """Any secret; the longest first, where several start at one place."""
        if not self.secrets:
            return None
        return re.compile("|".join(re.escape(secret) for secret in self.secrets))

    def in_words(self, text: str) -> str:
        """A model's text with each secret as SAID_REDACTED."""
        if self.pattern is None:
            return text
        return self.pattern.sub(SAID_REDACTED, text)

    def in_data(self, value: Any) -> Any:
        """JSON-like data (a model's tool arguments) with each string's secrets out."""
        if isinstance(value, str):
            return self.in_words(value)
        if isinstance(value, dict):
            return {key: self.in_data(item) for key, item in value.items()}
        if isinstance(value, list | tuple):
            return [self.in_data(item) for item in value]
        return value

    def stream(self) -> StreamRedactor:
        """A redactor for one answer's text as it streams in."""
        return StreamRedactor(self)


@dataclass
class StreamRedactor:
    """`Redactor.in_words` over text that comes in pieces: a secret may be split.

    Text that may still be the start of a secret is held until the next piece tells
    (or `flush` at the end); everything before it is released at once.
    """

    redactor: Redactor
    _pending: str = field(default="", init=False)

    def feed(self, piece: str) -> str:
        """Take a piece; the redacted text that can be released now."""
        text = self._pending + piece
        pattern = self.redactor.pattern
        if pattern is None:
            return text
        hold = _secret_start(text, self.redactor.secrets)
        cut = len(text) - hold
        out: list[str] = []
        done = 0
        # A match starting before the cut is complete: no longer secret can start
        # there (its start would be held).
        for match in pattern.finditer(text):
            if match.start() >= cut:
                break
            out += [text[done : match.start()], SAID_REDACTED]
            done = match.end()
        released = max(done, cut)
        out.append(text[done:released])
        self._pending = text[released:]
        return "".join(out)

    def flush(self) -> str:
        """The rest, at the end of the answer."""
        rest, self._pending = self._pending, ""
        return self.redactor.in_words(rest)


def _secret_start(text: str, secrets: Iterable[str]) -> int:
    """The length of the longest end of `text` that some secret begins with."""
    longest = 0
    last = text[-1:]
    for secret in secrets:
        size = min(len(secret) - 1, len(text))
        while size > longest:
            # Only a start that ends in the text's last character can match.
            size = secret.rfind(last, 0, size) + 1 if last else 0
            if size > longest and text.endswith(secret[:size]):
                longest = size
                break
            size -= 1
    return longest


def _longest_first(secrets: Iterable[str]) -> tuple[str, ...]:
    kept = {secret for secret in secrets if len(secret) >= _MIN_SECRET}
    return tuple(sorted(kept, key=len, reverse=True))
