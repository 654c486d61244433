"""The LLM provider of an agent: its options over the connection's shared client.

The primary model is retried once and backed by the agent's fallback model, on this
connection or another one of this integration, if one is set. Each request made is
counted (and held to the budget) on its own, at the prices of the model that served it.
"""

from collections.abc import Callable, Mapping
import re
from typing import Any

import openai

from homeassistant.config_entries import ConfigEntryState, ConfigSubentry
from homeassistant.const import CONF_API_KEY
from homeassistant.core import HomeAssistant
from homeassistant.helpers.selector import SelectOptionDict

from .agent import (
    Call,
    FallbackProvider,
    LLMAuthError,
    LLMConnectionError,
    LLMError,
    LLMProvider,
    LLMResponse,
    MeteredProvider,
    OpenAICompatibleProvider,
    RetryingProvider,
    RouteState,
    WrappedProvider,
)
from .const import (
    CONF_BASE_URL,
    CONF_EXTRA_BODY,
    CONF_EXTRA_HEADERS,
    CONF_FALLBACK_MODEL,
    CONF_FIRST_TOKEN_TIMEOUT,
    CONF_MAX_TOKENS,
    CONF_MODEL,
    CONF_STREAM,
    CONF_TASK_TIMEOUT,
    CONF_TEMPERATURE,
    CONF_TURN_TIMEOUT,
    DEFAULT_FIRST_TOKEN_TIMEOUT,
    DEFAULT_MAX_TOKENS,
    DEFAULT_STREAM,
    DEFAULT_TURN_TIMEOUT,
    DOMAIN,
    LOGGER,
)
from .runtime import AgenticConfigEntry
from .server.extras import ExtrasError, parse_body_extras, parse_header_extras
from .server.faults import async_note_outcome
from .usage.meter import UsageMeter
from .usage.prices import Prices, model_prices, prices_in

# Config entry ids are ULIDs; a typed model name ("qwen3:8b") is not mistaken for one.
_ENTRY_REF = re.compile(r"([0-9A-HJKMNP-TV-Z]{26}):(.+)")


def build_provider(
    hass: HomeAssistant, entry: AgenticConfigEntry, subentry: ConfigSubentry
) -> LLMProvider:
    """The provider for an agent's (or AI task's) options.

    It reports to the subentry's route state, and each request's usage to its meter
    and budget.
    """
    options = subentry.data
    fallback = split_fallback(options.get(CONF_FALLBACK_MODEL), entry.entry_id)
    # Without a fallback, a slow first token (a local model loading) is waited for.
    first_token = float(
        options.get(CONF_FIRST_TOKEN_TIMEOUT, DEFAULT_FIRST_TOKEN_TIMEOUT)
    )
    primary = _openai(
        entry,
        options[CONF_MODEL],
        options,
        first_token_timeout=first_token if fallback and first_token > 0 else None,
    )

    def on_primary_error(error: LLMError) -> None:
        # Also when the fallback answered: the key still needs replacing.
        if isinstance(error, LLMAuthError):
            entry.async_start_reauth(hass)

    routes = entry.runtime_data.routes

    # Every request is metered on its own (each retry, the fallback's at its prices):
    # each holds its estimate from the budget first, and counts what it spent.
    def metered(provider: LLMProvider, prices: Prices | None = None) -> LLMProvider:
        return _metered(entry, subentry, provider, prices)

    return FallbackProvider(
        RetryingProvider(metered(primary)),
        _ConnectionModel(hass, *fallback, options, metered) if fallback else None,
        routes.setdefault(subentry.subentry_id, RouteState()),
        on_primary_error=on_primary_error,
        # A server that is up but set up wrongly: a Repair naming the fix, until it
        # answers again.
        on_primary_outcome=lambda error: async_note_outcome(
            hass, entry, subentry, error
        ),
    )


def describer_provider(
    entry: AgenticConfigEntry, subentry: ConfigSubentry, model: str
) -> LLMProvider:
    """A model on the agent's connection, asked once (no retry: a tool waits on it).

    Counted in the agent's usage and held to its budget like its own model, at the
    prices the connection sets for it (the agent's when none).
    """
    return _metered(
        entry, subentry, _openai(entry, model, subentry.data), prices_in(entry, model)
    )


def _metered(
    entry: AgenticConfigEntry,
    subentry: ConfigSubentry,
    provider: LLMProvider,
    prices: Prices | None = None,
) -> LLMProvider:
    """Each request of the provider counted in the subentry's usage and budget.

    `prices`: the model's own, when it is not the subentry's (a fallback's).
    """
    options = subentry.data
    meter = entry.runtime_data.usage.setdefault(subentry.subentry_id, UsageMeter())
    budget = entry.runtime_data.budgets.get(subentry.subentry_id)
    return MeteredProvider(
        provider,
        lambda usage: meter.record(usage, prices),
        budget=budget.priced(prices) if budget is not None else None,
        answer_tokens=int(options.get(CONF_MAX_TOKENS) or DEFAULT_MAX_TOKENS),
    )


def split_fallback(value: object, own_entry_id: str) -> tuple[str, str] | None:
    """The (connection entry id, model) of a fallback option; None if unset."""
    if not isinstance(value, str) or not (value := value.strip()):
        return None
    if found := _ENTRY_REF.fullmatch(value):
        return found[1], found[2]
    return own_entry_id, value


def fallback_choices(hass: HomeAssistant) -> list[SelectOptionDict]:
    """Every model of every loaded connection, as "<connection title>: <model>"."""
    return [
        SelectOptionDict(
            label=f"{entry.title}: {model}", value=f"{entry.entry_id}:{model}"
        )
        for entry in hass.config_entries.async_loaded_entries(DOMAIN)
        for model in sorted(entry.runtime_data.models)
    ]


def _openai(
    entry: AgenticConfigEntry,
    model: str,
    options: Mapping[str, Any],
    *,
    first_token_timeout: float | None = None,
) -> OpenAICompatibleProvider:
    return OpenAICompatibleProvider(
        base_url=entry.data[CONF_BASE_URL],
        api_key=entry.data.get(CONF_API_KEY),
        model=model,
        temperature=options.get(CONF_TEMPERATURE),
        max_tokens=options.get(CONF_MAX_TOKENS),
        # An AI task's deadline is its own option.
        timeout=float(
            options.get(CONF_TASK_TIMEOUT)
            or options.get(CONF_TURN_TIMEOUT, DEFAULT_TURN_TIMEOUT)
        ),
        stream=bool(options.get(CONF_STREAM, DEFAULT_STREAM)),
        client=entry.runtime_data.client,
        first_token_timeout=first_token_timeout,
        # Checked when saved; one stored before that check counts as none.
        extra_body=_extras(parse_body_extras, options.get(CONF_EXTRA_BODY)),
        extra_headers=_extras(parse_header_extras, options.get(CONF_EXTRA_HEADERS)),
    )


def _extras[T](parse: Callable[[str | None], T], text: Any) -> T | None:
    try:
        return parse(text if isinstance(text, str) else None)
    except ExtrasError as err:
        LOGGER.warning("Ignoring the agent's request extras: %s", err.key)
        return None


class _ConnectionModel(WrappedProvider):
    """A model on a connection of this integration, found at each call.

    That connection may load after the agent's, or reload with a new client.
    """

    def __init__(
        self,
        hass: HomeAssistant,
        entry_id: str,
        model: str,
        options: Mapping[str, Any],
        metered: Callable[[LLMProvider, Prices | None], LLMProvider],
    ) -> None:
        self._hass = hass
        self._entry_id = entry_id
        self._model = model
        self._options = options
        self._metered = metered
        self._client: openai.AsyncOpenAI | None = None
        self._provider: RetryingProvider | None = None

    async def async_call(self, call: Call) -> LLMResponse:
        """Ask the model; its connection must be loaded."""
        entry: AgenticConfigEntry | None = self._hass.config_entries.async_get_entry(
            self._entry_id
        )
        if (
            entry is None
            or entry.domain != DOMAIN
            or entry.state is not ConfigEntryState.LOADED
        ):
            raise LLMConnectionError("the fallback model's connection is not loaded")
        if self._provider is None or self._client is not entry.runtime_data.client:
            self._client = entry.runtime_data.client
            # Priced at what its connection sets for it (read when it reloads).
            prices = model_prices(self._hass, self._entry_id, self._model)
            self._provider = RetryingProvider(
                self._metered(_openai(entry, self._model, self._options), prices)
            )
        return await call.ask(self._provider)
