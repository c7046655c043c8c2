"""Scaffolding shared by domain seed generators (`domains/<name>/seed.py`) and the domain
code built on them (APIs, scenarios): merging policy values, money rounding, timestamps,
calendar arithmetic, customer names. A pack outside this repository can import it too,
since factforge is installed.
"""
from __future__ import annotations

import calendar
import datetime as dt
import random
from decimal import ROUND_HALF_UP, Decimal
from typing import Iterable, Mapping, Optional, TypeVar

from facts.errors import FactforgeError

D = TypeVar("D", dt.date, dt.datetime)
Number = float | int


def merged_values(defaults: Mapping[str, Number], values: Optional[Mapping[str, Number]], domain: str,
                  increasing: Iterable[tuple[str, str]] = (), not_above: Iterable[tuple[str, str]] = (),
                  at_least_one: Iterable[str] = ()) -> dict[str, Number]:
    """`values` over `defaults`. An unknown key, a non-number, a pair of `increasing` keys
    not strictly increasing, a pair of `not_above` keys where the first exceeds the second,
    or an `at_least_one` key below 1 is a user error naming the domain and the key."""
    out = dict(defaults)
    for k, v in (values or {}).items():
        if k not in defaults:
            raise FactforgeError(f"unknown policy value {k!r} of {domain}; known: {', '.join(sorted(defaults))}")
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise FactforgeError(f"{domain} policy value {k!r} must be a number, not {v!r}")
        out[k] = v
    for a, b in increasing:
        if not out[a] < out[b]:
            raise FactforgeError(f"{domain} policy values: {a} ({out[a]}) must be below {b} ({out[b]})")
    for a, b in not_above:
        if out[a] > out[b]:
            raise FactforgeError(f"{domain} policy values: {a} ({out[a]}) must not exceed {b} ({out[b]})")
    for k in at_least_one:
        if out[k] < 1:
            raise FactforgeError(f"{domain} policy value {k} must be at least 1, not {out[k]}")
    return out


def money(x: float) -> float | int:
    """Money rounded to cents (round half to even on the float); whole amounts become ints,
    so the JSON of a database is stable."""
    r = round(float(x) + 0.0, 2)
    return int(r) if r.is_integer() else r


def cents(x: float | Decimal) -> float:
    """Round half up to cents (a policy's 'nearest cent'), as a float."""
    return float(Decimal(str(x)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


def parse_ts(ts: str) -> dt.datetime:
    return dt.datetime.fromisoformat(ts)


def date_of(s: str) -> dt.date:
    """The date of an ISO date string."""
    return dt.date.fromisoformat(s)


def iso(t: dt.datetime, tz: dt.tzinfo) -> str:
    """A timestamp in `tz`, to the second."""
    return t.astimezone(tz).replace(microsecond=0).isoformat()


def customer_names(base: list[str], n: int, rng: random.Random) -> list[str]:
    """`n` distinct names: the brand's customers first, then first/last name combinations
    of them in a seeded order."""
    firsts = [x.split()[0] for x in base]
    lasts = [x.split()[-1] for x in base]
    combos = [f"{a} {b}" for a in firsts for b in lasts]
    rng.shuffle(combos)
    names: list[str] = []
    seen: set[str] = set()
    for nm in base + combos:
        if len(names) >= n:
            break
        if nm not in seen:
            seen.add(nm)
            names.append(nm)
    return names


def age_on(dob: str | dt.date, day: dt.date) -> int:
    """Age in whole years on `day`."""
    b = dt.date.fromisoformat(dob) if isinstance(dob, str) else dob
    return day.year - b.year - ((day.month, day.day) < (b.month, b.day))


def add_months(d: dt.date, months: int) -> dt.date:
    """Same day `months` later, clamped to the month's last day (Jan 31 + 1 -> Feb 28/29)."""
    y, m = divmod(d.month - 1 + months, 12)
    y, m = d.year + y, m + 1
    return dt.date(y, m, min(d.day, calendar.monthrange(y, m)[1]))


def month_end(d: dt.date) -> dt.date:
    return dt.date(d.year, d.month, calendar.monthrange(d.year, d.month)[1])


def is_business_day(d: dt.date, holidays: frozenset[dt.date] = frozenset()) -> bool:
    return d.weekday() < 5 and d not in holidays


def business_days_between(a: dt.date, b: dt.date, holidays: frozenset[dt.date] = frozenset()) -> int:
    """Business days after `a` up to and including `b`."""
    n, d = 0, a
    while d < b:
        d += dt.timedelta(days=1)
        if is_business_day(d, holidays):
            n += 1
    return n


def add_business_days(a: D, n: int, holidays: frozenset[dt.date] = frozenset()) -> D:
    """`n` business days after `a` (a date or a datetime; the time of day is kept)."""
    d = a
    while n > 0:
        d += dt.timedelta(days=1)
        day = d.date() if isinstance(d, dt.datetime) else d
        if is_business_day(day, holidays):
            n -= 1
    return d
