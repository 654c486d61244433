"""What a model's tokens cost: the prices per million set on an agent or AI task."""

from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
import math
from typing import Any

from homeassistant.config_entries import ConfigEntry
from homeassistant.core import HomeAssistant

from ..agent import Usage
from ..const import CONF_MODEL, CONF_PRICE_INPUT, CONF_PRICE_OUTPUT, DOMAIN

type Prices = tuple[Decimal, Decimal]
"""Per million tokens: input, output."""

_MILLION = Decimal(1_000_000)


def _price(value: object) -> Decimal:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return Decimal(0)
    if isinstance(value, float) and not math.isfinite(value):
        return Decimal(0)
    try:
        price = Decimal(str(value))
    except InvalidOperation:
        return Decimal(0)
    return price if price.is_finite() and price > 0 else Decimal(0)


def prices_of(options: Mapping[str, Any]) -> Prices | None:
    """The prices an agent's or AI task's options set; None when they set none."""
    prices = (
        _price(options.get(CONF_PRICE_INPUT)),
        _price(options.get(CONF_PRICE_OUTPUT)),
    )
    return prices if any(prices) else None


def cost(usage: Usage, prices: Prices) -> Decimal:
    """What a call's tokens cost at these prices."""
    price_in, price_out = prices
    return (usage.input_tokens * price_in + usage.output_tokens * price_out) / _MILLION


def model_prices(hass: HomeAssistant, entry_id: str, model: str) -> Prices | None:
    """The prices a connection sets for one of its models (a fallback model's own)."""
    entry = hass.config_entries.async_get_entry(entry_id)
    if entry is None or entry.domain != DOMAIN:
        return None
    return prices_in(entry, model)


def prices_in(entry: ConfigEntry, model: str) -> Prices | None:
    """The prices a connection sets for one of its models.

    Read from its agents and AI tasks that use the model; when they differ, the
    highest of each. None when none of them sets a price.
    """
    found = [
        prices
        for subentry in entry.subentries.values()
        if subentry.data.get(CONF_MODEL) == model
        and (prices := prices_of(subentry.data)) is not None
    ]
    if not found:
        return None
    return max(p[0] for p in found), max(p[1] for p in found)
