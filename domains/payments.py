"""The payment ledger a domain API keeps on its bookings (an airline's reservations, a shop's
orders): each booking has a `payment_history` of charges and refunds against the stored
payment methods of its owner (a user, a customer).

What differs between domains is a parameter of `Ledger`: the bookings' table and id key,
the owner's id key, how amounts are rounded, the payment id prefix and first number, which
payment methods carry a balance that a charge draws down, and which are used up whole by one
charge. What a refund record carries beyond the common fields (pending with the card
processor, a certificate reissued...) is the domain's: `Ledger.entry` is the common part.
A pack's check reads each entry's method with `entry_method`.
"""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any, Callable, Literal, Optional

from .apikit import ApiContext, Args, Money, Result, invalid, next_id, not_found
from .contract import Row


class MethodAmount(Args):
    method_id: str
    amount: Money


class Payment(Result):
    payment_id: str
    kind: Literal["charge", "refund"]
    method_id: str
    method_type: str
    amount: float
    purpose: str
    at: dt.datetime
    status: Optional[str] = None


class LedgerEntry(Row):
    """A ledger entry in the database (`model.py`): a charge or a refund against one of the
    owner's methods. A pack's model adds its method types and what its refunds carry."""
    payment_id: str
    kind: Literal["charge", "refund"]
    method_id: str
    amount: float
    purpose: str
    at: str
    status: Optional[Literal["pending", "posted"]] = None


@dataclass(frozen=True)
class Ledger:
    bookings: str                      # the table of bookings, e.g. "reservations"
    booking_key: str                   # a booking's id field, e.g. "reservation_id"
    owner_key: str                     # the owner's id field, e.g. "user_id"
    rounding: Callable[[float], float]  # how amounts are rounded to cents
    prefix: str                        # payment id prefix (the default, when `prefix_entity` is set)
    start: int                         # the first payment id number
    prefix_entity: Optional[str] = None  # id_prefixes entity whose brand prefix replaces `prefix`
    balances: tuple[str, ...] = ("gift_card",)  # method types whose balance a charge draws down
    used_up: tuple[str, ...] = ()      # method types a charge uses up whole (marked used on the booking)

    @property
    def what(self) -> str:
        """A booking's name in messages ("reservation", "order")."""
        return self.booking_key.removesuffix("_id")

    def pay_id(self, ctx: ApiContext, db: dict) -> str:
        """The next payment id, from the ids already in the database."""
        ids = [p["payment_id"] for b in db[self.bookings].values() for p in b["payment_history"]]
        prefix = ctx.prefix(self.prefix_entity, self.prefix) if self.prefix_entity else self.prefix
        return next_id(ids, prefix, self.start)

    def method(self, owner: dict, mid: str) -> dict:
        """The owner's stored payment method `mid`, or the API's not-found error."""
        pm = owner["payment_methods"].get(mid)
        if pm is None:
            raise not_found("payment method", mid, **{self.owner_key: owner[self.owner_key]})
        return pm

    def payer(self, owner: dict, mid: Optional[str], owed: float) -> None:
        """When something is owed, `mid` is required and must be one of the owner's methods."""
        if owed > 0:
            if mid is None:
                raise invalid(f"{self.rounding(owed)} is due: payment_method_id is required")
            self.method(owner, mid)

    def owner_view(self, owner: dict) -> dict:
        """The owner as the API shows it: stored payment methods as a list, by id."""
        return {**owner, "payment_methods": [owner["payment_methods"][k] for k in sorted(owner["payment_methods"])]}

    def entry(self, ctx: ApiContext, db: dict, pm: dict, mid: str, kind: str, amount: float,
              purpose: str) -> dict[str, Any]:
        """The fields every ledger entry has."""
        return {"payment_id": self.pay_id(ctx, db), "kind": kind, "method_id": mid, "method_type": pm["type"],
                "amount": self.rounding(amount), "purpose": purpose, "at": ctx.ts()}

    def charge(self, ctx: ApiContext, db: dict, owner: dict, booking: dict, mid: str, amount: float,
               purpose: str) -> None:
        """Charge `amount` to the owner's method `mid` for `booking`: a balance is drawn down, a
        method used up whole is marked used on the booking."""
        pm = owner["payment_methods"][mid]
        if pm["type"] in self.balances:
            pm["balance"] = self.rounding(pm["balance"] - amount)
        elif pm["type"] in self.used_up:
            pm["status"], pm["used_on"] = "used", booking[self.booking_key]
        booking["payment_history"].append(self.entry(ctx, db, pm, mid, "charge", amount, purpose))

    def net(self, booking: dict) -> dict[str, float]:
        """Method id -> charges minus refunds on `booking`."""
        net: dict[str, float] = {}
        for p in booking["payment_history"]:
            net[p["method_id"]] = self.rounding(net.get(p["method_id"], 0)
                                                + (p["amount"] if p["kind"] == "charge" else -p["amount"]))
        return net

    def check_refunds(self, booking: dict, refunds: list[MethodAmount]) -> None:
        """Refunds go only to methods that paid for `booking`, each method at most once."""
        net = self.net(booking)
        for r in refunds:
            if r.method_id not in net:
                raise invalid(f"{r.method_id} did not pay for this {self.what}", method_id=r.method_id)
        if len({r.method_id for r in refunds}) != len(refunds):
            raise invalid("a payment method appears twice in the refunds")


def entry_method(methods: dict, p: dict, where: str, kept: str, P: Callable[[str], Any]) -> Optional[dict]:
    """For a pack's check: the stored method that ledger entry `p` names, from the owner's
    `methods`, or None (reported through `P` as "<where>: payment <id> uses a method not
    <kept>"); an entry whose method type is not the method's is reported too."""
    pm = methods.get(p["method_id"])
    if pm is None:
        P(f"{where}: payment {p['payment_id']} uses a method not {kept}")
        return None
    if pm["type"] != p["method_type"]:
        P(f"{where}: payment {p['payment_id']} method type mismatch")
    return pm
