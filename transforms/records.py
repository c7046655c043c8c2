"""Who and what a file talks about, from the seed database: the people (`db_people`,
`customers`, `staff`, their first names and handles), references to their records
(`record_refs`, `record_ref`), the brand's short name and id prefixes, and slugs."""
from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional

from .situations import db_tables, id_of, is_person, name_of
from .trace import db_view, view

if TYPE_CHECKING:  # pragma: no cover
    from domains import DomainPack

    from .base import RenderContext


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


@dataclass
class Person:
    name: str
    ref: str = ""  # customer/account id in the records, when known


@dataclass
class RecordRef:
    table: str
    id: str
    owner: str = ""  # a person's name linked to the record, when known


@db_view("people")
def db_people(db: dict[str, Any]) -> list[Person]:
    """The people of the seed database (customers, users, account holders): records with a
    person's name and a person's contact or birth field (`is_person`); a catalog entry with a
    two-word name is not a customer."""
    out, seen = [], set()
    for _name, recs in db_tables(db):
        for r in recs:
            n = name_of(r) if is_person(r) else None
            if n and n not in seen:
                seen.add(n)
                out.append(Person(n, id_of(r) or ""))
    return out


@db_view("records")
def record_refs(db: dict[str, Any]) -> list[RecordRef]:
    """Records that are not people (rentals, orders, reservations...), with their owner's
    name when a person id links them (a catalog entry with a name is neither a record nor
    an owner)."""
    people = {}
    for _name, recs in db_tables(db):
        for r in recs:
            n, i = (name_of(r) if is_person(r) else None), id_of(r)
            if n and i:
                people[i] = n
    out = []
    for table, recs in db_tables(db):
        for r in recs:
            if name_of(r) or isinstance(r.get("name"), str):  # a person, or a named catalog entry
                continue
            rid = id_of(r)
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
    ppl = view(ctx.db, "people")
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
    recs = view(ctx.db, "records")
    own = [r for r in recs if owner is not None and r.owner == owner.name] or recs
    if own:
        r = rng.choice(own)
        # "credit_card_transaction_history" -> "credit card transaction": a record, not its table
        return r.id, re.sub(r"_(history|log|records)$", "", r.table).rstrip("s").replace("_", " ")
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
