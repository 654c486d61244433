"""The monthly spending budget of an agent or AI task.

What is spent this period (priced like the cost sensor, or in tokens without a price),
each request holding its estimate while it runs, kept across restarts; the 80 % and
100 % events; the Repair while it is used up. A new period, or a raised budget (saving
the options reloads the connection), clears it.
"""

from collections.abc import Callable
from datetime import datetime
from decimal import Decimal, InvalidOperation
import math
from typing import Any, TypedDict

from homeassistant.config_entries import ConfigSubentry
from homeassistant.const import EVENT_CORE_CONFIG_UPDATE
from homeassistant.core import CALLBACK_TYPE, Event, HomeAssistant, callback
from homeassistant.helpers import entity_registry as er, issue_registry as ir
from homeassistant.helpers.event import async_track_point_in_time
from homeassistant.helpers.storage import Store
from homeassistant.util import dt as dt_util

from ..agent import Usage
from ..const import (
    CONF_BUDGET_DAY,
    DEFAULT_BUDGET_DAY,
    DOMAIN,
    EVENT_BUDGET,
    LOGGER,
    SUBENTRY_CONVERSATION,
)
from .period import next_after, next_start, period_start
from .prices import Prices, cost, prices_of

ALERTS = (80, 100)
TOKENS = "tokens"
# Spending is saved this long after it changes (and when the connection unloads).
_SAVE_DELAY = 10


class _Saved(TypedDict, total=False):
    start: str
    resets: str
    unit: str
    limit: str
    spent: str
    alerted: list[int]
    used_up: bool


def budget_of(value: object) -> Decimal | None:
    """A stored budget; None for none (empty, 0) or one that is no amount at all."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return None
    try:
        limit = Decimal(str(value))
    except InvalidOperation:
        return None
    return limit if limit.is_finite() and limit > 0 else None


def start_day(value: object) -> int:
    """A stored start day, 1 to 31 (the form allows no other)."""
    if (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and math.isfinite(value)
    ):
        return min(max(int(value), 1), 31)
    return DEFAULT_BUDGET_DAY


def store(hass: HomeAssistant, subentry_id: str) -> Store[_Saved]:
    """Where an agent's (or AI task's) spending is saved."""
    return Store(hass, 1, f"{DOMAIN}.budget.{subentry_id}")


def issue_id(subentry_id: str) -> str:
    """The Repair of an agent's (or AI task's) used-up budget."""
    return f"budget_spent_{subentry_id}"


def shown(amount: Decimal) -> str:
    """An amount for people: up to four decimals, no trailing zeros."""
    text = f"{amount.quantize(Decimal('0.0001')):f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


class _Hold:
    """What one request may spend, held from the budget until its usage is known."""

    def __init__(self, budget: Budget, amount: Decimal, prices: Prices | None) -> None:
        self._budget = budget
        self.amount = amount
        self.prices = prices
        self._settled = False

    def settle(self, usage: Usage | None) -> None:
        """It spent `usage` (None: the estimate held); once."""
        if not self._settled:
            self._settled = True
            self._budget.settle(self, usage)


class _PricedSpending:
    """A budget as one model's requests see it: held and settled at its prices."""

    def __init__(self, budget: Budget, prices: Prices | None) -> None:
        self._budget = budget
        self._prices = prices

    def reserve(self, estimate: Usage) -> _Hold | None:
        return self._budget.reserve(estimate, self._prices)


class Budget:
    """What one agent or AI task may spend in a period, and what it spent."""

    def __init__(
        self, hass: HomeAssistant, subentry: ConfigSubentry, limit: Decimal
    ) -> None:
        """A budget of the subentry (`limit`: as read by `budget_of`), empty until loaded."""
        options = subentry.data
        self._hass = hass
        self._subentry = subentry
        self.limit = limit
        self.day = start_day(options.get(CONF_BUDGET_DAY))
        self._prices = prices_of(options)
        self.unit = hass.config.currency if self._prices else TOKENS
        self.start = period_start(dt_util.now(), self.day)
        self.resets = next_start(self.start, self.day)
        """When the next period starts."""
        self.spent = Decimal(0)
        self.held = Decimal(0)
        """What requests under way may still spend (their estimates)."""
        self._alerted: set[int] = set()
        self._used_up = False
        """A call was refused: the rest would not pay for the next request."""
        self._last: Decimal | None = None
        """The last request's estimate (not saved: a restart forgets it)."""
        self._listeners: list[Callable[[], None]] = []
        self._unsubscribe: CALLBACK_TYPE | None = None
        self._timer: CALLBACK_TYPE | None = None
        self._store = store(hass, subentry.subentry_id)

    @property
    def left(self) -> Decimal:
        """What is left this period (never below nothing)."""
        return max(self.limit - self.spent, Decimal(0))

    @property
    def is_spent(self) -> bool:
        """Spent, or too little left for a request (as last counted)."""
        return self._used_up or self.spent >= self.limit

    @callback
    def refuses_turn(self) -> bool:
        """Whether a new turn goes without the model: the budget is used up.

        It is also used up when the last request's estimate no longer fits what is
        left (the next one is as big, history included): then, not at the first call.
        """
        self._roll_if_due()
        if not self.is_spent and self._last is not None and not self._fits(self._last):
            self._use_up()
        return self.is_spent

    def amount(self, usage: Usage, prices: Prices | None = None) -> Decimal:
        """What a call's usage costs in the budget's unit (at `prices`, else its own)."""
        if self._prices is None:
            return Decimal(usage.input_tokens + usage.output_tokens)
        return cost(usage, prices or self._prices)

    def priced(self, prices: Prices | None) -> _PricedSpending:
        """The budget for one model's requests: at its prices (None: the budget's)."""
        return _PricedSpending(self, prices)

    @callback
    def reserve(self, estimate: Usage, prices: Prices | None = None) -> _Hold | None:
        """Hold what a request of this estimated usage may spend; None: refused.

        Requests under way count with what they hold. A refused request uses the
        budget up for the period (the event, the Repair).
        """
        self._roll_if_due()
        if self.is_spent:
            return None
        amount = self._last = self.amount(estimate, prices)
        if not self._fits(amount):
            self._use_up()
            return None
        self.held += amount
        return _Hold(self, amount, prices)

    @callback
    def settle(self, hold: _Hold, usage: Usage | None) -> None:
        """A request is over: what it spent (its estimate when unknown) is spent."""
        self.held -= hold.amount
        self._roll_if_due()
        self.spent += hold.amount if usage is None else self.amount(usage, hold.prices)
        self._alert()
        self._changed()

    def _fits(self, amount: Decimal) -> bool:
        return self.spent + self.held + amount <= self.limit

    @callback
    def _use_up(self) -> None:
        self._used_up = True
        self._alert()
        self._changed()

    @callback
    def add_listener(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Hear each change (the sensor); returns the function that stops it."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    async def async_start(self) -> None:
        """Go on from what was saved in this period; wait for the next."""
        saved = await self._store.async_load()
        # Spent in another unit (a price set or removed since) cannot be counted on.
        if saved is not None and saved.get("unit") == self.unit:
            try:
                self._restore(saved)
            except KeyError, TypeError, ValueError, InvalidOperation:
                LOGGER.warning(
                    "%s: the budget's saved spending is unreadable; from 0",
                    self._subentry.title,
                )
                self.start = period_start(dt_util.now(), self.day)
                self.resets = next_start(self.start, self.day)
                self.spent, self._alerted, self._used_up = Decimal(0), set(), False
        self._sync_issue()
        self._unsubscribe = self._hass.bus.async_listen(
            EVENT_CORE_CONFIG_UPDATE, self._zone_changed
        )
        self._schedule()

    def _restore(self, saved: _Saved) -> None:
        """Go on with the saved period while it runs, whatever the zone or day now.

        Its end moves to the first start of a period as now set (the day, HA's time
        zone): a new start day takes effect from the next period.
        """
        start = datetime.fromisoformat(saved["start"])
        ends = (
            datetime.fromisoformat(saved["resets"])
            if "resets" in saved
            else next_start(start, self.day)  # saved before its end was
        )
        now = dt_util.now()
        if start.tzinfo is None or ends.tzinfo is None or not start <= now < ends:
            return  # a period that is over: this one starts from nothing
        spent = Decimal(saved["spent"])
        if not spent.is_finite():
            raise InvalidOperation(saved["spent"])
        self.start, self.resets = start, next_after(now, self.day)
        self.spent = spent
        same_limit = saved.get("limit") == str(self.limit)
        # A raised budget: what it has not reached yet may be told again.
        self._alerted = {
            threshold
            for threshold in saved.get("alerted", ())
            if threshold in ALERTS
            and (same_limit or spent * 100 >= self.limit * threshold)
        }
        self._used_up = same_limit and bool(saved.get("used_up"))

    @callback
    def _zone_changed(self, event: Event) -> None:
        """HA's settings changed (its time zone?): the period ends as now set."""
        if self._timer is None:
            return
        self._timer()
        self.resets = next_after(dt_util.now(), self.day)
        self._schedule()
        self._changed()

    async def async_stop(self) -> None:
        """The connection unloads: save now, stop listening."""
        for unsubscribe in (self._unsubscribe, self._timer):
            if unsubscribe is not None:
                unsubscribe()
        self._unsubscribe = self._timer = None
        await self._store.async_save(self._saved())

    @callback
    def _alert(self) -> None:
        """The 80 % and 100 % events, once each per period; the Repair at 100 %."""
        for threshold in ALERTS:
            reached = self.spent * 100 >= self.limit * threshold or (
                threshold == 100 and self._used_up
            )
            if reached and threshold not in self._alerted:
                self._alerted.add(threshold)
                self._hass.bus.async_fire(EVENT_BUDGET, self._event(threshold))
        self._sync_issue()

    def _event(self, threshold: int) -> dict[str, Any]:
        subentry = self._subentry
        domain = (
            "conversation"
            if subentry.subentry_type == SUBENTRY_CONVERSATION
            else "ai_task"
        )
        return {
            "entity_id": er.async_get(self._hass).async_get_entity_id(
                domain, DOMAIN, subentry.subentry_id
            ),
            "name": subentry.title,
            "threshold": threshold,
            "spent": float(self.spent),
            "budget": float(self.limit),
            "left": float(self.left),
            "unit": self.unit,
            "resets": self.resets.isoformat(),
        }

    @callback
    def _sync_issue(self) -> None:
        """The Repair shows while the budget is used up, and only then."""
        if not self.is_spent:
            ir.async_delete_issue(
                self._hass, DOMAIN, issue_id(self._subentry.subentry_id)
            )
            return
        ir.async_create_issue(
            self._hass,
            DOMAIN,
            issue_id(self._subentry.subentry_id),
            is_fixable=False,
            is_persistent=False,
            severity=ir.IssueSeverity.WARNING,
            translation_key="budget_spent",
            translation_placeholders={
                "name": self._subentry.title,
                "spent": shown(self.spent),
                "budget": shown(self.limit),
                "unit": self.unit,
                "resets": dt_util.as_local(self.resets).date().isoformat(),
            },
        )

    @callback
    def _roll_if_due(self, now: datetime | None = None) -> None:
        """A new period (the timer may not have fired yet): nothing spent in it."""
        now = now or dt_util.now()
        if now < self.resets:
            return
        self.start = period_start(dt_util.as_local(now), self.day)
        self.resets = next_start(self.start, self.day)
        self.spent = Decimal(0)
        self._alerted.clear()
        self._used_up = False
        self._sync_issue()
        self._changed()

    @callback
    def _schedule(self) -> None:
        @callback
        def new_period(now: datetime) -> None:
            self._roll_if_due(now)
            self._schedule()

        self._timer = async_track_point_in_time(self._hass, new_period, self.resets)

    @callback
    def _changed(self) -> None:
        self._store.async_delay_save(self._saved, _SAVE_DELAY)
        for listener in list(self._listeners):
            listener()

    def _saved(self) -> _Saved:
        return {
            "start": self.start.isoformat(),
            "resets": self.resets.isoformat(),
            "unit": self.unit,
            "limit": str(self.limit),
            "spent": str(self.spent),
            "alerted": sorted(self._alerted),
            "used_up": self._used_up,
        }
