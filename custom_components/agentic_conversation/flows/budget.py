"""The optional monthly budget of an agent or AI task, in the forms' usage fields."""

from typing import Any

import probatio

from homeassistant.helpers.selector import (
    NumberSelector,
    NumberSelectorConfig,
    NumberSelectorMode,
)

from ..const import (
    CONF_BUDGET,
    CONF_BUDGET_DAY,
    CONF_PRICE_INPUT,
    CONF_PRICE_OUTPUT,
    DEFAULT_BUDGET_DAY,
)
from .form import whole_number


def budget_fields() -> dict[Any, Any]:
    """The budget (currency with a price, else tokens) and its period's first day.

    A negative budget is refused by the box; day 29 to 31 is the month's last day in
    a shorter month (usage/period.py).
    """
    return {
        probatio.Optional(CONF_BUDGET): NumberSelector(
            NumberSelectorConfig(
                min=0, max=1_000_000_000_000, step=0.01, mode=NumberSelectorMode.BOX
            )
        ),
        probatio.Optional(CONF_BUDGET_DAY, default=DEFAULT_BUDGET_DAY): whole_number(
            low=1, high=31
        ),
    }


def tidy_budget(options: dict[str, Any]) -> None:
    """No budget (or 0) is not stored; one in tokens (no price) is a whole number."""
    budget = options.get(CONF_BUDGET) or 0
    if not any(options.get(key) for key in (CONF_PRICE_INPUT, CONF_PRICE_OUTPUT)):
        budget = round(budget)
    if budget:
        options[CONF_BUDGET] = budget
    else:
        options.pop(CONF_BUDGET, None)
        options.pop(CONF_BUDGET_DAY, None)
