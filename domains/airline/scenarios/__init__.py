"""Held-out simulations of the airline domain, drawn from the seed database.

Each builder picks records that make its situation real (a reservation booked a few hours
ago, a Voyager customer on a Main fare, a flight that landed 5 hours late for a mechanical
fault...) and writes the gold outcome with the policy applied, the naive outcome (what the
customer asks for, no policy applied) and what the agent must say. Amounts are computed
with the seed's own policy functions (`refund_due`, `split_refund`, `free_bags`...), so the
gold outcome passes the domain check by construction and a change of a policy value moves
the tests with it.

Scarce rows are held for the tests that cannot do without them: the open reservations of a
tier x cabin cell (departing 4 hours out or later, the member holding a credit card) when the
cell has no more of them than its bag and change-fee tests need (two, one for Lite), and the
long uncompensated delays when there are at most two (the meal voucher and the weather
refusal draw on them). Every other test that could use any row looks at held rows last
(`Air.spare`), so a database with few such rows still covers the policy values that only
they exercise.
"""
from __future__ import annotations

from domains.simtests import Scenario, ScenarioContext

from .bags import bags
from .base import Air
from .booking import booking
from .cancellations import cancellations
from .changes import changes
from .compensation import compensation
from .passengers import names_and_passengers
from .questions import questions
from .transfers import transfers


def scenarios(ctx: ScenarioContext) -> list[Scenario]:
    A = Air(ctx)
    A.hold_scarce()
    out: list[Scenario] = []
    for build in (cancellations, bags, changes, names_and_passengers, compensation, transfers, booking,
                  questions):
        out += [s for s in build(A) if s is not None]
    return out
