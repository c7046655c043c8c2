"""Records a domain API shares beyond `domains.apikit.row`: the arguments naming a customer
(by id, by email), finding a customer by email,
recording a hand-off to staff (the `handoffs` table), and the postal address and dated
hand-off a database model uses; for a pack's check, the records that name one that does
not exist and the owner who must list a booking."""
from __future__ import annotations

import datetime as dt
from typing import Any, Callable, Container, Iterable, Optional

from .apikit import ApiContext, Args, next_id, not_found
from .contract import Row


class Address(Row):
    """A postal address in the database (`model.py`)."""
    line1: str
    line2: str
    city: str
    state: str
    zip: str
    country: str


# A hand-off to a desk, on a day (`record_handoff(..., dated=True)`), in the database (`model.py`).
class Handoff(Row):
    id: str
    customer_id: str
    desk: str
    date: dt.date


class CustomerArgs(Args):
    customer_id: str


class EmailArgs(Args):
    email: str


def find_by_email(db: dict, table: str, email: str, what: str) -> tuple[str, dict]:
    """(key, record) of the first record of `table`, by key, whose email is `email` (case and
    surrounding spaces ignored), or the API's not-found error naming `what`."""
    for key, r in sorted(db.get(table, {}).items()):
        if r["email"].casefold() == email.strip().casefold():
            return key, r
    raise not_found(f"{what} with email", email)


def record_handoff(ctx: ApiContext, db: dict, dated: bool = False, **fields: Any) -> dict:
    """Record a hand-off to staff in the `handoffs` table: id HO<n>, `fields`, and the time
    (`at`), or the day (`date`) when `dated`."""
    handoffs = db.setdefault("handoffs", {})
    hid = next_id(handoffs, "HO", 1)
    h = {"id": hid, **fields, **({"date": ctx.today.isoformat()} if dated else {"at": ctx.ts()})}
    handoffs[hid] = h
    return h


def unknown_refs(items: Iterable[tuple[str, dict]], what: str, field: str, known: Container[str],
                 named: str) -> list[str]:
    """A check's problem for each (id, record) of `items` whose `field` is not in `known`:
    "<what> <id>: unknown <named> <value>"."""
    return [f"{what} {rid}: unknown {named} {r[field]}" for rid, r in items if r[field] not in known]


def listed_owner(owners: dict, bid: str, booking: dict, *, what: str, key: str, listing: str,
                 P: Callable[[str], Any]) -> Optional[dict]:
    """For a pack's check: the owner (in `owners`, by the booking's `key`) of booking `bid`
    (named `what` in problems), or None, reported through `P` as "<what> <bid>: unknown <owner>
    <id>"; an owner whose `listing` does not hold `bid` is reported as not listing it."""
    who, oid = key.removesuffix("_id"), booking[key]
    owner = owners.get(oid)
    if owner is None:
        P(f"{what} {bid}: unknown {who} {oid}")
        return None
    if bid not in owner[listing]:
        P(f"{what} {bid}: not listed on {who} {oid}")
    return owner
