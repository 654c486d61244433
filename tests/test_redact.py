"""Credentials in a base URL are replaced before it is shown or logged."""

import pytest

from custom_components.agentic_conversation.redact import redact_url


@pytest.mark.parametrize(
    ("given", "shown"),
    [
        ("https://api.openai.com/v1", "https://api.openai.com/v1"),
        ("http://user:pass@host:8080/v1", "http://***@host:8080/v1"),
        ("https://sk-token@host/v1", "https://***@host/v1"),
        ("https://user:p@ss@host/v1", "https://***@host/v1"),
        ("https://host/v1?key=abc", "https://host/v1?key=***"),
        ("https://host/v1?api_key=abc&model=x", "https://host/v1?api_key=***&model=x"),
        ("https://host/v1?a=1&token=abc#top", "https://host/v1?a=1&token=***#top"),
        ("https://host/v1?API-KEY=abc", "https://host/v1?API-KEY=***"),
        ("https://host/v1?access_token=abc", "https://host/v1?access_token=***"),
        ("https://host/v1?monkey=1", "https://host/v1?monkey=1"),
        ("https://host/v1/@someone", "https://host/v1/@someone"),
        (
            "Cannot reach http://u:p@host/v1?token=t (refused), see https://x/?key=y",
            "Cannot reach http://***@host/v1?token=*** (refused), see https://x/?key=***",
        ),
    ],
)
def test_redact_url(given: str, shown: str) -> None:
    """User info and key/token query values go; everything else stays readable."""
    assert redact_url(given) == shown
