"""Held-out simulations of the retail domain, drawn from the seed database.

Builders pick real orders (a lamp delivered 12 days ago, a pending order placed an hour ago,
a Canopy member's rug delivered 40 days ago...) and compute the gold outcome with the policy's
rules (`rules.py`: `return_amounts`, `route_refund`, `shipping_fee`, `price_on`), the
naive outcome (what the customer asks for, no policy) and what the agent must say.
"""
from __future__ import annotations

from domains.simtests import Scenario, ScenarioContext

from .base import Shop
from .cancellations import cancellations
from .changes import pending_changes
from .exchanges import exchanges_and_adjustments
from .handoffs import handoffs
from .orders import new_orders
from .questions import questions
from .returns import returns


def scenarios(ctx: ScenarioContext) -> list[Scenario]:
    R = Shop(ctx)
    out: list[Scenario] = []
    for build in (returns, cancellations, pending_changes, exchanges_and_adjustments, new_orders, handoffs,
                  questions):
        out += [s for s in build(R) if s is not None]
    return out
