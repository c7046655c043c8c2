"""The Pedalwise rentals API (test domain): look up customers and rentals, start a rental,
waive a late fee, hand over to a human. Policy decisions (deposit, waiver amount) are
arguments; nothing here refuses a request the policy forbids."""
from __future__ import annotations

from typing import Literal, Optional

from domains.apikit import ApiContext, Args, Catalog, Money, Result, conflict, invalid, next_id, not_found

CATALOG = Catalog("_mock", title="Pedalwise Rentals API",
                  description="Customers, bike rentals, late-fee waivers and hand-offs of Pedalwise Rentals.")


class Customer(Result):
    id: str
    name: str
    age: int
    pass_holder: bool


class Rental(Result):
    id: str
    customer_id: str
    bikes: int
    deposit: float
    late_hours: int
    late_fee: float
    status: str = "returned"
    waived: float = 0
    waiver_approved_by: Optional[str] = None


class RentalList(Result):
    rentals: list[Rental]


class Handoff(Result):
    id: str
    customer_id: str
    reason: str
    at: str


class CustomerArgs(Args):
    customer_id: str


class RentalArgs(Args):
    rental_id: str


def _customer(db: dict, cid: str) -> dict:
    c = db["customers"].get(cid)
    if c is None:
        raise not_found("customer", cid)
    return c


def _rental(db: dict, rid: str) -> dict:
    r = db["rentals"].get(rid)
    if r is None:
        raise not_found("rental", rid)
    return r


@CATALOG.read("/customers/{customer_id}", resource="customer_id")
def get_customer(ctx: ApiContext, db: dict, a: CustomerArgs) -> Customer:
    """Look up a customer (age, Pedalwise Pass)."""
    return _customer(db, a.customer_id)


@CATALOG.read("/customers/{customer_id}/rentals", resource="customer_id", collection="rentals")
def list_customer_rentals(ctx: ApiContext, db: dict, a: CustomerArgs) -> RentalList:
    """The customer's rentals, oldest first."""
    _customer(db, a.customer_id)
    return {"rentals": [r for _, r in sorted(db["rentals"].items()) if r["customer_id"] == a.customer_id]}


@CATALOG.read("/rentals/{rental_id}", resource="rental_id")
def get_rental(ctx: ApiContext, db: dict, a: RentalArgs) -> Rental:
    """Look up a rental (bikes, deposit, late hours and late fee)."""
    return _rental(db, a.rental_id)


class StartRentalArgs(Args):
    customer_id: str
    bikes: int
    deposit: Money


@CATALOG.write("/rentals", resource="customer_id")
def start_rental(ctx: ApiContext, db: dict, a: StartRentalArgs) -> Rental:
    """Start a rental for a customer, taking the security deposit given."""
    _customer(db, a.customer_id)
    if a.bikes < 1:
        raise invalid("a rental needs at least one bike", bikes=a.bikes)
    rid = next_id(db["rentals"], ctx.prefix("rental", "PW"), 2000)
    r = {"id": rid, "customer_id": a.customer_id, "bikes": a.bikes, "deposit": a.deposit, "late_hours": 0,
         "late_fee": 0, "status": "active", "started_at": ctx.ts()}
    db["rentals"][rid] = r
    return r


class WaiveArgs(Args):
    rental_id: str
    amount: Money
    approved_by: Optional[str] = None


@CATALOG.write("/rentals/{rental_id}/waive-late-fee", resource="rental_id")
def waive_late_fee(ctx: ApiContext, db: dict, a: WaiveArgs) -> Rental:
    """Waive part or all of a rental's late fee (with the approving manager, if any)."""
    r = _rental(db, a.rental_id)
    if r.get("waived"):
        raise conflict("this rental's late fee was already waived", rental_id=a.rental_id)
    if a.amount > r["late_fee"] + 1e-9:
        raise invalid("cannot waive more than the late fee", late_fee=r["late_fee"], amount=a.amount)
    r["waived"] = a.amount
    r["waiver_approved_by"] = a.approved_by
    return r


class TransferArgs(Args):
    customer_id: str
    reason: Literal["customer_request", "manager_approval", "outside_policy"]
    summary: str


@CATALOG.write("/handoffs", resource="customer_id")
def transfer_to_human(ctx: ApiContext, db: dict, a: TransferArgs) -> Handoff:
    """Hand the conversation to a human colleague. The summary goes to the colleague; the
    record keeps who, why and when."""
    _customer(db, a.customer_id)
    if not a.summary.strip():
        raise invalid("the summary for the next agent is empty")
    handoffs = db.setdefault("handoffs", {})
    hid = next_id(handoffs, "HO", 1)
    h = {"id": hid, "customer_id": a.customer_id, "reason": a.reason, "at": ctx.ts()}
    handoffs[hid] = h
    return h
