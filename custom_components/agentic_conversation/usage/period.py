"""The budget's monthly period: from a day of the month, at local midnight.

A day the month does not have (the 31st in April, the 29th to 31st in February) is the
month's last day: the period still starts once a month.
"""

import calendar
from datetime import datetime, tzinfo


def _start_in(year: int, month: int, day: int, zone: tzinfo) -> datetime:
    """The period's start in that month: the day, or the month's last if shorter."""
    last = calendar.monthrange(year, month)[1]
    return datetime(year, month, min(day, last), tzinfo=zone)


def _shift(year: int, month: int, months: int) -> tuple[int, int]:
    index = year * 12 + month - 1 + months
    return index // 12, index % 12 + 1


def period_start(now: datetime, day: int) -> datetime:
    """When the period that holds `now` (aware, local) started."""
    zone = now.tzinfo
    assert zone is not None
    start = _start_in(now.year, now.month, day, zone)
    if now >= start:
        return start
    return _start_in(*_shift(now.year, now.month, -1), day, zone)


def next_start(start: datetime, day: int) -> datetime:
    """When the period after the one that started at `start` starts."""
    zone = start.tzinfo
    assert zone is not None
    return _start_in(*_shift(start.year, start.month, 1), day, zone)


def next_after(now: datetime, day: int) -> datetime:
    """The first period start after `now` (aware, local)."""
    return next_start(period_start(now, day), day)
