"""The Pedalwise rentals API (test domain): look up customers and rentals, start a rental,
waive a late fee, hand over to a human. Policy decisions (deposit, waiver amount) are
arguments; nothing here refuses a request the policy forbids."""
from __future__ import annotations

from typing import Literal, Optional

from domains.apikit import (ApiContext, Args, Catalog, Money, Result, conflict, invalid, next_id, owned, projection,
                            row)
from domains.records import CustomerArgs, record_handoff

from . import model

CATALOG = Catalog("_mock", title="Pedalwise Rentals API",
                  description="Customers, bike rentals, late-fee waivers and hand-offs of Pedalwise Rentals.")


Customer = projection(model.Customer)
Rental = projection(model.Rental, "id customer_id bikes deposit late_hours late_fee status waived waiver_approved_by",
                    status=str)


class RentalList(Result):
    rentals: list[Rental]


Handoff = projection(model.Handoff)


class RentalArgs(Args):
    rental_id: str


@CATALOG.read("/customers/{customer_id}", resource="customer_id")
def get_customer(ctx: ApiContext, db: dict, a: CustomerArgs) -> Customer:
    """Look up a customer (age, Pedalwise Pass)."""
    return row(db, "customers", a.customer_id, "customer")


@CATALOG.read("/customers/{customer_id}/rentals", resource="customer_id", collection="rentals")
def list_customer_rentals(ctx: ApiContext, db: dict, a: CustomerArgs) -> RentalList:
    """The customer's rentals, oldest first."""
    row(db, "customers", a.customer_id, "customer")
    return {"rentals": owned(db, "rentals", a.customer_id)}


@CATALOG.read("/rentals/{rental_id}", resource="rental_id")
def get_rental(ctx: ApiContext, db: dict, a: RentalArgs) -> Rental:
    """Look up a rental (bikes, deposit, late hours and late fee)."""
    return row(db, "rentals", a.rental_id, "rental")


class StartRentalArgs(Args):
    customer_id: str
    bikes: int
    deposit: Money


@CATALOG.write("/rentals", resource="customer_id")
def start_rental(ctx: ApiContext, db: dict, a: StartRentalArgs) -> Rental:
    """Start a rental for a customer, taking the security deposit given."""
    row(db, "customers", a.customer_id, "customer")
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
    r = row(db, "rentals", a.rental_id, "rental")
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
    row(db, "customers", a.customer_id, "customer")
    if not a.summary.strip():
        raise invalid("the summary for the next agent is empty")
    return record_handoff(ctx, db, customer_id=a.customer_id, reason=a.reason)
