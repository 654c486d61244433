"""The optional prices per million tokens of an agent or AI task (the cost sensor).

The forms show them with the budget they price (flows/budget.py).
"""

from typing import Any

import probatio

from homeassistant.helpers.selector import (
    NumberSelector,
    NumberSelectorConfig,
    NumberSelectorMode,
)

from ..const import CONF_PRICE_INPUT, CONF_PRICE_OUTPUT
from .budget import budget_fields, tidy_budget


def price_fields() -> dict[Any, Any]:
    """The prices per million tokens (input, output), then the monthly budget."""
    price = NumberSelector(
        NumberSelectorConfig(min=0, max=10_000, step=0.001, mode=NumberSelectorMode.BOX)
    )
    return {
        probatio.Optional(CONF_PRICE_INPUT): price,
        probatio.Optional(CONF_PRICE_OUTPUT): price,
        **budget_fields(),
    }


def tidy_prices(options: dict[str, Any]) -> None:
    """No price (or 0) is not stored: no cost sensor then; the budget likewise."""
    for key in (CONF_PRICE_INPUT, CONF_PRICE_OUTPUT):
        if not options.get(key):
            options.pop(key, None)
    tidy_budget(options)
