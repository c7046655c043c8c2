"""Lookups and text shared by the retail scenario builders: the records a test draws on,
what the customer knows and answers."""
from __future__ import annotations

import datetime as dt
from typing import Optional

from domains.seedkit import parse_ts
from domains.scenariokit import Drafter
from domains.simtests import ScenarioContext, answer

from ..rules import net_paid, route_refund, tier_names

PERSONAS = (
    "A busy parent who shops online a lot; friendly and direct.",
    "A retiree furnishing a new patio; polite, asks for every detail.",
    "A young professional, quick and a bit impatient.",
    "A careful budgeter who double-checks every amount.",
    "A first-time customer, unsure how things work.",
)


class Shop(Drafter):
    """Lookups shared by the builders."""

    personas = PERSONAS
    lookup_op, record_key = "get_order", "order_id"

    def __init__(self, ctx: ScenarioContext):
        super().__init__(ctx)
        self.tier_name, self.tier_key = tier_names(ctx.pack)
        self.variants = {iid: var for p in self.db["products"].values() for iid, var in p["variants"].items()}

    def tier(self, c: dict) -> str:
        return self.tier_key[c["loyalty"]["tier"]]

    def delivered(self, o: dict) -> Optional[dt.datetime]:
        f = o["fulfillment"]
        return parse_ts(f["delivered_at"]) if f and f.get("delivered_at") else None

    def orders(self, status: str) -> list[dict]:
        return [o for _, o in sorted(self.db["orders"].items()) if o["status"] == status]

    def taken(self, o: dict) -> set[int]:
        return {i for r in o["returns"] for i in r["line_indexes"]} | {e["line_index"] for e in o["exchanges"]}

    def primary(self, c: dict) -> Optional[str]:
        return next((k for k in sorted(c["payment_methods"]) if c["payment_methods"][k]["type"] in ("card", "paypal")),
                    None)

    def refunds(self, o: dict, amount: float) -> list[dict]:
        return [{"method_id": m, "amount": a} for m, _, a in route_refund(amount, net_paid(o)) if a > 0]

    def full_return(self, o: dict, i: int, reason: str = "changed my mind", condition: str = "unused") -> tuple:
        """The call that returns line `i` of order `o` for its full price, without fees."""
        return ("request_return", {"order_id": o["order_id"], "line_indexes": [i], "reason": reason,
                                   "condition": condition, "refund_to": "original", "restocking_fee": 0,
                                   "label_fee": 0, "refund_amount": o["items"][i]["price"], "bonus": 0})

    def known(self, c: dict, o: Optional[dict] = None) -> list[str]:
        out = [f"You are {c['name']}.", f"Your email address is {c['email']}.",
               f"Your zip code is {c['default_address']['zip']}."]
        if o is not None:
            out.append(f"Your order number is {o['order_id']}.")
        return out

    def answers(self, c: dict, o: Optional[dict] = None) -> list:
        out = [answer("email", ["email"], f"It's {c['email']}."),
               answer("zip", ["zip", "postal"], f"My zip code is {c['default_address']['zip']}.")]
        if o is not None:
            out.append(answer("order", ["order number", "order id", "which order"], f"It's order {o['order_id']}."))
        return out

