"""Small calendar helpers for domain seed generators (`domains/<name>/seed.py` may import
them; a pack outside this repository can too, since factforge is installed)."""
from __future__ import annotations

import calendar
import datetime as dt
from typing import TypeVar

D = TypeVar("D", dt.date, dt.datetime)


def add_months(d: dt.date, months: int) -> dt.date:
    """Same day `months` later, clamped to the month's last day (Jan 31 + 1 -> Feb 28/29)."""
    y, m = divmod(d.month - 1 + months, 12)
    y, m = d.year + y, m + 1
    return dt.date(y, m, min(d.day, calendar.monthrange(y, m)[1]))


def business_days_between(a: dt.date, b: dt.date) -> int:
    """Weekdays after `a` up to and including `b`."""
    n, d = 0, a
    while d < b:
        d += dt.timedelta(days=1)
        if d.weekday() < 5:
            n += 1
    return n


def add_business_days(a: D, n: int) -> D:
    """`n` weekdays after `a` (a date or a datetime; the time of day is kept)."""
    d = a
    while n > 0:
        d += dt.timedelta(days=1)
        if d.weekday() < 5:
            n -= 1
    return d
