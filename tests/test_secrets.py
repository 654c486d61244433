"""A connection's secrets stay out of everything we write, also when echoed.

URL credentials travel as an Authorization header, not in the URL httpx logs.
"""

import base64
import json
import logging
import random
from typing import Any

import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry

from homeassistant.components import conversation
from homeassistant.components.conversation import trace
from homeassistant.config_entries import ConfigSubentryData
from homeassistant.const import CONF_API_KEY, CONF_LLM_HASS_API
from homeassistant.core import Context, HomeAssistant
from homeassistant.helpers import llm

from custom_components.agentic_conversation.agent.credentials import (
    Redactor,
    split_credentials,
)
from custom_components.agentic_conversation.const import (
    CONF_BASE_URL,
    CONF_EXTRA_HEADERS,
    CONF_LOCAL_FALLBACK,
    CONF_MODEL,
    DOMAIN,
)
from custom_components.agentic_conversation.diagnostics import (
    async_get_config_entry_diagnostics,
)
from custom_components.agentic_conversation.redact import our_secrets, redactor
from tests.fake_llm import MODEL, FakeLLM, Reply

KEY = "sk-live-7f3a9c1e"
USER = "alice"
PASSWORD = "p@ss w0rd!"
QUOTED_PASSWORD = "p%40ss%20w0rd%21"
BASIC = base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
SECRETS = (KEY, PASSWORD, QUOTED_PASSWORD, BASIC)
# What a careless proxy answers: the key, the password (plain and URL-encoded), the
# header it was sent, and the URL it was called with.
ECHO = (
    f"invalid upstream key {KEY} for user {USER} with password {PASSWORD} "
    f"(Authorization: Basic {BASIC}) at http://{USER}:{QUOTED_PASSWORD}@proxy/v1"
)
SENSOR = "sensor.agent_route"


@pytest.fixture(autouse=True)
def _no_retry_wait(no_retry_wait: None) -> None:
    """Retries wait 0 s: no real sleeping."""


def _with_credentials(base_url: str) -> str:
    return base_url.replace("http://", f"http://{USER}:{QUOTED_PASSWORD}@", 1)


async def _connection(
    hass: HomeAssistant, server: FakeLLM, **options: Any
) -> MockConfigEntry:
    entry = MockConfigEntry(
        domain=DOMAIN,
        title="Proxy",
        data={CONF_BASE_URL: _with_credentials(server.base_url), CONF_API_KEY: KEY},
        subentries_data=[
            ConfigSubentryData(
                data={
                    CONF_MODEL: MODEL,
                    CONF_LLM_HASS_API: [llm.LLM_API_ASSIST],
                    **options,
                },
                subentry_type="conversation",
                title="Agent",
                unique_id=None,
            )
        ],
    )
    entry.add_to_hass(hass)
    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()
    return entry


def _assert_clean(where: str, text: str) -> None:
    for secret in SECRETS:
        assert secret not in text, f"{where} holds {secret!r}"


@pytest.mark.parametrize("local_fallback", [True, False], ids=["local", "spoken"])
async def test_an_echoed_key_and_password_are_written_nowhere(
    ha_core: HomeAssistant,
    fake_llm: FakeLLM,
    caplog: pytest.LogCaptureFixture,
    local_fallback: bool,
) -> None:
    """A server whose error echoes the secrets: none is written anywhere.

    Not in the trace, diagnostics, the sensor, logs or the spoken reply; and the
    server got the URL's credentials as a Basic header.
    """
    hass = ha_core
    caplog.set_level(logging.DEBUG)
    entry = await _connection(hass, fake_llm, **{CONF_LOCAL_FALLBACK: local_fallback})
    fake_llm.script([Reply.error(500, ECHO), Reply.error(500, ECHO)])

    result = await conversation.async_converse(
        hass, "hi", None, Context(), language="en", agent_id="conversation.agent"
    )

    speech = result.response.speech["plain"]["speech"]
    assert speech == (
        "The AI service isn't available, so I used the basic assistant: "
        "Hello from Home Assistant."
        if local_fallback
        else "The AI service had a problem answering. Please try again later."
    )
    _assert_clean("the spoken reply", json.dumps(result.as_dict()))
    # The server was asked, with the URL's credentials as a Basic header.
    assert len(fake_llm.requests) == 2
    assert fake_llm.headers[-1]["Authorization"] == f"Basic {BASIC}"
    # The route's reason, in the trace, the sensor and diagnostics: redacted.
    events = trace.async_get_traces()[-1].as_dict()["events"]
    _assert_clean("the trace", json.dumps(events, default=str))
    details = [
        e["data"]
        for e in events
        if e["event_type"] == trace.ConversationTraceEventType.AGENT_DETAIL
        and "reason" in e["data"]
    ]
    assert (
        "invalid upstream key *** for user alice with password ***"
        in (details[-1]["reason"])
    )
    state = hass.states.get(SENSOR)
    assert state is not None
    _assert_clean("the sensor", json.dumps(dict(state.attributes)))
    assert "password ***" in state.attributes["last_error"]
    diagnostics = await async_get_config_entry_diagnostics(hass, entry)
    _assert_clean("diagnostics", json.dumps(diagnostics, default=str))
    assert "password ***" in json.dumps(diagnostics, default=str)
    # Our log lines and the HTTP client's (it logs request URLs at INFO).
    _assert_clean("the log", caplog.text)
    assert f"{USER}:" not in caplog.text
    assert f"POST {fake_llm.base_url}/chat/completions" in caplog.text


def test_split_credentials_and_the_redactor() -> None:
    """The URL loses its user info to a Basic header; the redactor knows them all."""
    url = f"http://{USER}:{QUOTED_PASSWORD}@[::1]:8080/v1?x=1"

    assert split_credentials(url) == (
        "http://[::1]:8080/v1?x=1",
        {"Authorization": f"Basic {BASIC}"},
    )
    assert split_credentials("http://host/v1") == ("http://host/v1", {})
    redact = redactor({CONF_BASE_URL: url, CONF_API_KEY: KEY})
    assert redact(ECHO) == (
        "invalid upstream key *** for user alice with password *** "
        "(Authorization: Basic ***) at http://***@proxy/v1"
    )
    # No key, no URL credentials: only URL credentials in the text go.
    assert redactor({CONF_BASE_URL: "http://host/v1"})("a http://u:p@x b") == (
        "a http://***@x b"
    )


# --- what a model says ---------------------------------------------------------------

SAID = f"My key is {KEY}; the proxy password is {PASSWORD}, or {KEY[:-1]} (not quite)."
SAID_REDACTED = (
    "My key is [redacted]; the proxy password is [redacted], or sk-live-7f3a9c1 "
    "(not quite)."
)


def _redactor() -> Redactor:
    return redactor(
        {CONF_BASE_URL: _with_credentials("http://proxy/v1"), CONF_API_KEY: KEY}
    )


def test_a_models_words_lose_our_secrets_however_they_stream() -> None:
    """Split at every place, or a character at a time: the same words come out."""
    secrets = _redactor()
    assert secrets.in_words(SAID) == SAID_REDACTED
    for cut in range(len(SAID) + 1):
        stream = secrets.stream()
        released = stream.feed(SAID[:cut]) + stream.feed(SAID[cut:]) + stream.flush()
        assert released == SAID_REDACTED, cut
    stream = secrets.stream()
    pieces = [stream.feed(char) for char in SAID]
    assert "".join(pieces) + stream.flush() == SAID_REDACTED
    # Only what may still be a secret waits: the rest is released at once.
    assert pieces[:8] == list("My key i")
    assert pieces[8:10] == ["", "s "]  # "s" may begin the key, "s " does not
    assert pieces[10:12] == ["", ""]  # "sk" of the key, held


def test_a_secret_inside_a_longer_one_and_no_secrets() -> None:
    """The longer secret wins where both start; none: the text as it came."""
    secrets = Redactor.joined([], ["abc", "xxabcyy"])
    stream = secrets.stream()
    assert stream.feed("1 xxab") == "1 "
    assert stream.feed("cyy 2 xxabc") == "[redacted] 2 "
    assert stream.feed("zz") == "xx[redacted]zz"
    assert stream.flush() == ""
    assert Redactor().stream().feed("sk-live") == "sk-live"
    assert secrets.in_data({"a": ["abc", 3, {"b": "x abc"}]}) == {
        "a": ["[redacted]", 3, {"b": "x [redacted]"}]
    }


def test_any_text_in_any_pieces_comes_out_as_redacted_whole() -> None:
    """Texts made of secrets' fragments, cut at random: as if redacted in one go."""
    rng = random.Random(30)
    secrets = Redactor.joined([], ["abab", "abc", "bca", "aab", "cabcab"])
    for _ in range(2000):
        text = "".join(rng.choice("abc ") for _ in range(rng.randint(0, 24)))
        cuts = sorted(rng.sample(range(len(text) + 1), k=min(3, len(text) + 1)))
        pieces = [
            text[i:j] for i, j in zip([0, *cuts], [*cuts, len(text)], strict=True)
        ]
        stream = secrets.stream()
        released = "".join(stream.feed(piece) for piece in pieces) + stream.flush()
        assert released == secrets.in_words(text), (text, pieces)


async def test_our_secrets_are_every_connections_key_and_secret_headers(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """Keys, URL passwords and credential headers; not a header like X-Title."""
    hass = ha_core
    headers = {
        "X-Api-Key": "hdr-1",
        "X-Custom": "a1b2c3d4e5f6a7b8c9",  # token-like: kept out whatever its name
        "X-Title": "Home Assistant",
        "HTTP-Referer": "https://my.site",
    }
    await _connection(hass, fake_llm, **{CONF_EXTRA_HEADERS: json.dumps(headers)})
    other = MockConfigEntry(
        domain=DOMAIN, data={CONF_BASE_URL: "http://other/v1", CONF_API_KEY: "sk-other"}
    )
    other.add_to_hass(hass)

    secrets = our_secrets(hass)

    assert set(secrets.secrets) == {
        *SECRETS,
        f"{USER}:{QUOTED_PASSWORD}",
        "hdr-1",
        "a1b2c3d4e5f6a7b8c9",
        "sk-other",
    }
    assert secrets.in_words("Home Assistant at https://my.site") == (
        "Home Assistant at https://my.site"
    )
