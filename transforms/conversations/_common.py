"""Helpers shared by the conversation and table renderers: the record clock (dates derived from
`spec.date` in the pack's timezone), brand id prefixes, people and records drawn from the seed
database, and the grouping of a spec's facts with the distractors that must precede them.

Nothing here reads the wall clock; every random choice comes from an rng the caller seeded
with `spec.rng(...)`.
"""
from __future__ import annotations

import datetime as dt
import random
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterator, Optional

from facts.errors import FactforgeError
from transforms.common import (  # noqa: F401  (re-exported for the kinds)
    _VOICED_CORRECTION_LEADS, Item, authoritative, hedged, items, section_of, tidy)

if TYPE_CHECKING:  # pragma: no cover
    from domains import DomainPack
    from facts.models import Fact
    from transforms.base import ArtifactSpec, Distractor, RenderContext

# Leads for the authoritative statement of a voiced fact that follows a wrong or old value.
# None of them contains a hedge marker (see transforms.writers.HEDGE_MARKERS).



# --- clock -------------------------------------------------------------------------------
def zone(pack: "DomainPack") -> dt.tzinfo:
    """The pack's timezone (IANA name), falling back to the world clock's fixed offset."""
    try:
        from zoneinfo import ZoneInfo  # noqa: PLC0415

        return ZoneInfo(pack.info.timezone)
    except Exception:  # unknown zone name or no tz database
        return pack.info.now.tzinfo or dt.timezone.utc


def record_day(spec: "ArtifactSpec") -> dt.date:
    try:
        return dt.date.fromisoformat(spec.date[:10])
    except ValueError:
        raise FactforgeError(f"artifact {spec.id}: date {spec.date!r} is not an ISO date") from None


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


# --- brand and records -------------------------------------------------------------------
def id_prefix(pack: "DomainPack", *keys: str) -> str:
    """The brand's identifier prefix for the first key it defines (e.g. "case", "ticket"), else
    an abbreviation of the short name."""
    pre = pack.brand.id_prefixes
    for k in keys:
        if pre.get(k):
            return pre[k]
    base = pack.brand.short_name or pack.brand.company
    letters = re.sub(r"[^A-Za-z]", "", base).upper()
    return letters[:3] or "CS"


def brand_short(pack: "DomainPack") -> str:
    return pack.brand.short_name or pack.brand.company.split()[0]


def slug(text: str, n: int = 40) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:n].strip("-") or "x"


def _name_of(rec: dict[str, Any]) -> Optional[str]:
    for key in ("name", "full_name", "customer_name", "cardholder_name"):
        v = rec.get(key)
        if isinstance(v, str) and re.fullmatch(r"[A-Za-z][A-Za-z .'-]+ [A-Za-z .'-]+", v.strip()):
            return v.strip().title() if v.isupper() else v.strip()
        if isinstance(v, dict) and v.get("first_name") and v.get("last_name"):
            return f"{v['first_name']} {v['last_name']}"
    if rec.get("first_name") and rec.get("last_name"):
        return f"{rec['first_name']} {rec['last_name']}"
    return None


def _id_of(rec: dict[str, Any]) -> Optional[str]:
    for key, v in rec.items():
        if (key == "id" or key.endswith("_id")) and isinstance(v, (str, int)) and not isinstance(v, bool):
            return str(v)
    return None


def db_tables(db: dict[str, Any]) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """(table name, records) for every table of the seed database that holds records
    (a dict of dicts or a list of dicts), in sorted table order."""
    for name in sorted(db or {}):
        tab = db[name]
        if isinstance(tab, dict):
            recs = [tab[k] for k in sorted(tab, key=str) if isinstance(tab[k], dict)]
        elif isinstance(tab, list):
            recs = [r for r in tab if isinstance(r, dict)]
        else:
            continue
        if recs:
            yield name, recs[:500]


@dataclass
class Person:
    name: str
    ref: str = ""  # customer/account id in the records, when known


@dataclass
class RecordRef:
    table: str
    id: str
    owner: str = ""  # a person's name linked to the record, when known


def db_people(db: dict[str, Any]) -> list[Person]:
    out, seen = [], set()
    for _name, recs in db_tables(db):
        for r in recs:
            n = _name_of(r)
            if n and n not in seen:
                seen.add(n)
                out.append(Person(n, _id_of(r) or ""))
    return out


def db_records(db: dict[str, Any]) -> list[RecordRef]:
    """Records that are not people (rentals, orders, reservations...), with their owner's
    name when a person id links them."""
    people = {}
    for _name, recs in db_tables(db):
        for r in recs:
            n, i = _name_of(r), _id_of(r)
            if n and i:
                people[i] = n
    out = []
    for table, recs in db_tables(db):
        for r in recs:
            if _name_of(r):
                continue
            rid = _id_of(r)
            if not rid:
                continue
            owner = ""
            for k, v in r.items():
                if k != "id" and k.endswith("_id") and str(v) in people:
                    owner = people[str(v)]
                    break
            out.append(RecordRef(table, rid, owner))
    return out


def customers(ctx: "RenderContext") -> list[Person]:
    """Customers for records: the seed database's people, else the brand's customer names."""
    ppl = db_people(ctx.db)
    if ppl:
        return ppl
    pre = id_prefix(ctx.pack, "customer", "account", "user")
    return [Person(n, f"{pre}{1000 + i}") for i, n in enumerate(ctx.pack.brand.customers)]


def pick_customer(ctx: "RenderContext", rng: random.Random) -> Person:
    ppl = customers(ctx)
    if ppl:
        return rng.choice(ppl)
    return Person(ctx.writer.person(rng, "customer"), f"{id_prefix(ctx.pack, 'customer')}{rng.randint(1000, 9999)}")


def record_ref(ctx: "RenderContext", rng: random.Random, owner: Optional[Person] = None) -> tuple[str, str]:
    """(record id, record kind) for a customer's booking/order/rental: one the customer owns in
    the seed database, else any record, else a made-up id with the brand prefix."""
    recs = db_records(ctx.db)
    own = [r for r in recs if owner is not None and r.owner == owner.name] or recs
    if own:
        r = rng.choice(own)
        return r.id, r.table.rstrip("s").replace("_", " ")
    return f"{id_prefix(ctx.pack, 'order', 'booking', 'reservation', 'rental')}{rng.randint(10000, 99999)}", "booking"


def staff(ctx: "RenderContext", rng: random.Random, role: str, n: int, exclude: tuple[str, ...] = ()) -> list[str]:
    """`n` distinct staff names of a role ("agent", "manager")."""
    b = ctx.pack.brand
    pool = [p for p in (b.agents if role == "agent" else b.managers) if p not in exclude]
    rng.shuffle(pool)
    out = pool[:n]
    tries = 0
    while len(out) < n and tries < 50:
        tries += 1
        cand = ctx.writer.person(rng, role)
        if cand not in out and cand not in exclude:
            out.append(cand)
    return out


def first(name: str) -> str:
    return name.split()[0] if name else name


def handle(name: str) -> str:
    parts = re.findall(r"[a-z]+", name.lower())
    return ".".join(parts) or "user"


def product(ctx: "RenderContext", rng: random.Random, default: str = "account") -> str:
    prods = list(ctx.pack.brand.products.values())
    return rng.choice(prods) if prods else default


# --- facts and their distractors -----------------------------------------------------------
def policy_ref(pack: "DomainPack", fact: "Fact") -> str:
    """A policy reference like 'POL-PW-LATE-RETURNS §14' (the source line)."""
    sec = re.sub(r"[^A-Z0-9]+", "-", section_of(fact).upper()).strip("-")[:18] or "GEN"
    return f"POL-{id_prefix(pack, 'policy', 'case', 'rental')}-{sec} §{fact.source.start_line}"


def chunks(seq: list, sizes: list[int]) -> list[list]:
    out, i = [], 0
    for n in sizes:
        if i >= len(seq):
            break
        out.append(seq[i:i + n])
        i += n
    if i < len(seq):
        out.append(seq[i:])
    return out


def split_groups(seq: list, rng: random.Random, lo: int = 1, hi: int = 3) -> list[list]:
    sizes, total = [], 0
    while total < len(seq):
        n = rng.randint(lo, hi)
        sizes.append(n)
        total += n
    return chunks(seq, sizes)
