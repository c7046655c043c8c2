"""The record clock: a file's date (`spec_date`) and the domain's time zone (`zone`), office
hours and timestamps in it, dates written out and read back, and the earlier day a
superseded value was current."""
from __future__ import annotations

import datetime as dt
import random
import re
from typing import TYPE_CHECKING, Optional
from zoneinfo import ZoneInfo

from facts.errors import FactforgeError

if TYPE_CHECKING:  # pragma: no cover
    from domains import DomainPack

    from .plan import ArtifactSpec, Distractor


# --- clock -------------------------------------------------------------------------------
def zone(pack: "DomainPack") -> dt.tzinfo:
    """The pack's timezone (IANA name), falling back to the world clock's fixed offset."""
    try:

        return ZoneInfo(pack.info.timezone)
    except Exception:  # unknown zone name or no tz database
        return pack.info.now.tzinfo or dt.timezone.utc


def spec_date(spec: "ArtifactSpec") -> dt.date:
    """The day the record is dated (its spec's ISO date)."""
    try:
        return dt.date.fromisoformat(spec.date[:10])
    except ValueError:
        raise FactforgeError(f"artifact {spec.id}: date {spec.date!r} is not an ISO date", spec.path) from None


def fmt_date(d: dt.date, style: str = "long") -> str:
    if style == "long":
        return f"{d.strftime('%B')} {d.day}, {d.year}"
    if style == "short":
        return f"{d.strftime('%b')} {d.day}, {d.year}"
    return d.isoformat()


def at(pack: "DomainPack", day: dt.date, hour: int, minute: int = 0, second: int = 0) -> dt.datetime:
    return dt.datetime(day.year, day.month, day.day, hour, minute, second, tzinfo=zone(pack))


def office_time(pack: "DomainPack", day: dt.date, rng: random.Random, start: int = 8, end: int = 16) -> dt.datetime:
    return at(pack, day, rng.randint(start, end), rng.randint(0, 59), rng.randint(0, 59))


def tz_label(moment: dt.datetime) -> str:
    """'EST' when the zone has an abbreviation, else 'UTC-05:00'."""
    name = moment.tzname() or ""
    if re.fullmatch(r"[A-Z]{2,5}", name):
        return name
    off = moment.utcoffset() or dt.timedelta(0)
    mins = int(off.total_seconds() // 60)
    sign = "+" if mins >= 0 else "-"
    return f"UTC{sign}{abs(mins) // 60:02d}:{abs(mins) % 60:02d}"


def parse_day(text: Optional[str]) -> Optional[dt.date]:
    if not text:
        return None
    try:
        return dt.date.fromisoformat(str(text)[:10])
    except ValueError:
        return None


def earlier_day(d: "Distractor", day: dt.date, rng: random.Random, lo: int = 3, hi: int = 40) -> dt.date:
    """The date a superseded/distractor mention is dated: its own date when it is earlier than
    the record's, else some days before the record."""
    own = parse_day(d.date)
    if own is not None and own < day:
        return own
    return day - dt.timedelta(days=rng.randint(lo, hi))
