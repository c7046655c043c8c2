"""Lookups and text shared by the airline scenario builders: the records a test draws on,
the rows held for the tests that need them, what the customer knows and answers."""
from __future__ import annotations

import datetime as dt
import random
from typing import Optional

from domains.seedkit import money
from domains.scenariokit import Drafter
from domains.simtests import ScenarioContext, answer

from ..rules import departure_at, names, refund_due, split_refund

PERSONAS = (
    "A frequent business traveller: polite, brief, wants things done quickly.",
    "A retired teacher who likes to understand the reason for every charge.",
    "A parent travelling with family, a little stressed, friendly.",
    "A student on a tight budget who asks about every fee.",
    "A direct, slightly impatient consultant who flies every week.",
    "A calm, careful planner who reads back every detail.",
)


class Air(Drafter):
    """Lookups shared by the builders."""

    personas = PERSONAS
    customer_key, owner_table = "user_id", "users"
    lookup_op, record_key = "get_reservation", "reservation_id"

    def __init__(self, ctx: ScenarioContext):
        super().__init__(ctx)
        self.cab, self.cab_key, self.tier_name, self.tier_key = names(ctx.pack)
        self.rng = random.Random(f"airline-tests:{ctx.seed}")
        self.held: set[str] = set()

    # ---- records ---------------------------------------------------------------------
    def tier(self, u: dict) -> str:
        return self.tier_key[u["membership"]["tier"]]

    def cabin(self, r: dict) -> str:
        return self.cab_key[r["cabin"]]

    def dep(self, leg: dict) -> dt.datetime:
        return departure_at(self.db["flights"][leg["flight_number"]], leg["date"])

    def card(self, u: dict) -> Optional[str]:
        return next((k for k in sorted(u["payment_methods"]) if u["payment_methods"][k]["type"] == "credit_card"), None)

    def open_reservations(self, min_hours: float = 3) -> list[dict]:
        out = []
        for _, r in sorted(self.db["reservations"].items()):
            if r["cancellation"] is None and self.dep(r["flights"][0]) > self.now + dt.timedelta(hours=min_hours):
                out.append(r)
        return out

    def pick(self, cands: list[dict], key: str = "reservation_id") -> Optional[dict]:
        """The first candidate not used by another scenario (so tests spread over records)."""
        for c in cands:
            if c[key] not in self.used:
                self.used.add(c[key])
                return c
        return cands[0] if cands else None

    def hold_scarce(self) -> None:
        """Hold the rows of the cells and the long delays that have no rows to spare."""
        cells: dict[tuple[str, str], list[str]] = {}
        for r in self.open_reservations(4):
            if self.card(self.owner(r)) is not None:
                cells.setdefault((self.tier(self.owner(r)), self.cabin(r)), []).append(r["reservation_id"])
        for (_, cabin), ids in cells.items():
            if len(ids) <= (1 if cabin == "lite" else 2):
                self.held.update(ids)
        meal = {r["reservation_id"] for r, _, i, k in disrupted(self)
                if k == "delay" and i["delay_minutes"] >= self.v["meal_delay_hours"] * 60}
        if len(meal) <= 2:
            self.held.update(meal)

    def spare(self, cands: list, rid=lambda r: r["reservation_id"]) -> list:
        """`cands` in their order, held rows last."""
        return sorted(cands, key=lambda c: rid(c) in self.held)

    # ---- scenario text ---------------------------------------------------------------
    def known(self, u: dict, r: Optional[dict] = None) -> list[str]:
        out = [f"You are {u['name']}.", f"Your Larkspur Loop number is {u['user_id']}.",
               f"Your date of birth is {u['date_of_birth']}."]
        if r is not None:
            out.append(f"Your reservation number is {r['reservation_id']}.")
        return out

    def answers(self, u: dict, r: Optional[dict] = None) -> list:
        out = [answer("loop_number", ["loop number", "member number", "membership number", "user id"],
                      f"My Loop number is {u['user_id']}."),
               answer("date_of_birth", ["date of birth", "birthday", "born"], f"It's {u['date_of_birth']}.")]
        if r is not None:
            out.append(answer("reservation", ["reservation", "booking", "confirmation"],
                              f"The reservation number is {r['reservation_id']}."))
        card = self.card(u)
        if card is not None:
            out.append(answer("payment", ["card", "payment", "pay"],
                              f"Please use my card ending in {u['payment_methods'][card]['last_four']}."))
        return out

    # ---- money ------------------------------------------------------------------------
    def net_methods(self, r: dict) -> list[tuple[str, str, float]]:
        net: dict[str, float] = {}
        types: dict[str, str] = {}
        for p in r["payment_history"]:
            types[p["method_id"]] = p["method_type"]
            net[p["method_id"]] = money(net.get(p["method_id"], 0) + (p["amount"] if p["kind"] == "charge"
                                                                      else -p["amount"]))
        return [(k, types[k], net[k]) for k in net]

    def refunds(self, r: dict, amount: float) -> list[dict]:
        return [{"method_id": m, "amount": a} for m, _, a in split_refund(amount, self.net_methods(r)) if a > 0]

    def refund_due(self, r: dict, reason: str) -> tuple[float, str]:
        tmp = dict(r, cancellation={"cancelled_at": self.now.isoformat(), "reason": reason})
        return refund_due(self.v, tmp, self.tier(self.owner(r)), self.cabin(r), self.dep(r["flights"][0]))

    def full_amount(self, r: dict) -> float:
        return money(sum(a for _, _, a in self.net_methods(r)))

    def cancellation(self, r: dict, amount: float, reason: str = "change_of_plans") -> tuple:
        """The call that cancels reservation `r` for `reason`, refunding `amount` to the methods
        that paid for it."""
        return ("cancel_reservation", {"reservation_id": r["reservation_id"], "reason": reason,
                                       "refunds": self.refunds(r, amount)})


def disrupted(A: Air) -> list[tuple[dict, dict, dict, str]]:
    """(reservation, leg, flight instance, kind) for legs of open or completed reservations
    on delayed or cancelled flights, without compensation yet."""
    out = []
    for _, r in sorted(A.db["reservations"].items()):
        if r["cancellation"] is not None and r["cancellation"]["reason"] != "flight_cancelled_by_airline":
            continue
        u = A.owner(r)
        comped = {(pm["origin"].get("flight_number"), pm["origin"].get("date")) for pm in u["payment_methods"].values()
                  if pm["type"] == "travel_certificate" and pm["origin"].get("reservation_id") == r["reservation_id"]}
        legs = r["flights"] + [o for c in r["changes"] if c["type"] == "rebooking" for o in c["old_flights"]]
        for leg in legs:
            inst = A.db["flights"][leg["flight_number"]]["dates"][leg["date"]]
            if (leg["flight_number"], leg["date"]) in comped:
                continue
            if inst["status"] == "landed" and inst["delay_minutes"]:
                out.append((r, leg, inst, "delay"))
            elif inst["status"] == "cancelled":
                out.append((r, leg, inst, "cancellation"))
    return out
