"""The LLM provider of an agent: its options over the connection's shared client."""

from homeassistant.config_entries import ConfigSubentry
from homeassistant.const import CONF_API_KEY

from . import AgenticConfigEntry
from .agent import OpenAICompatibleProvider
from .const import (
    CONF_BASE_URL,
    CONF_MAX_TOKENS,
    CONF_MODEL,
    CONF_STREAM,
    CONF_TEMPERATURE,
    CONF_TURN_TIMEOUT,
    DEFAULT_STREAM,
    DEFAULT_TURN_TIMEOUT,
)


def build_provider(
    entry: AgenticConfigEntry, subentry: ConfigSubentry
) -> OpenAICompatibleProvider:
    """The provider for an agent's options, over the entry's shared client."""
    options = subentry.data
    return OpenAICompatibleProvider(
        base_url=entry.data[CONF_BASE_URL],
        api_key=entry.data.get(CONF_API_KEY),
        model=options[CONF_MODEL],
        temperature=options.get(CONF_TEMPERATURE),
        max_tokens=options.get(CONF_MAX_TOKENS),
        timeout=float(options.get(CONF_TURN_TIMEOUT, DEFAULT_TURN_TIMEOUT)),
        stream=bool(options.get(CONF_STREAM, DEFAULT_STREAM)),
        client=entry.runtime_data.client,
    )
