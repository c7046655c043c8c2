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

import datetime as dt
import random
from typing import Any, Optional

from domains.seedkit import money, parse_ts
from domains.simtests import Scenario, ScenarioContext, amount_text, answer

from . import seed as S

PERSONAS = [
    "A frequent business traveller: polite, brief, wants things done quickly.",
    "A retired teacher who likes to understand the reason for every charge.",
    "A parent travelling with family, a little stressed, friendly.",
    "A student on a tight budget who asks about every fee.",
    "A direct, slightly impatient consultant who flies every week.",
    "A calm, careful planner who reads back every detail.",
]


class Air:
    """Lookups shared by the builders."""

    def __init__(self, ctx: ScenarioContext):
        self.ctx, self.db, self.v, self.F = ctx, ctx.db, ctx.values, ctx.facts
        self.now: dt.datetime = ctx.pack.info.now
        self.cab, self.cab_key, self.tier_name, self.tier_key = S._names(ctx.pack)
        self.rng = random.Random(f"airline-tests:{ctx.seed}")
        self.used: set[str] = set()
        self.held: set[str] = set()
        self.n = 0

    # ---- records ---------------------------------------------------------------------
    def user(self, r: dict) -> dict:
        return self.db["users"][r["user_id"]]

    def tier(self, u: dict) -> str:
        return self.tier_key[u["membership"]["tier"]]

    def cabin(self, r: dict) -> str:
        return self.cab_key[r["cabin"]]

    def dep(self, leg: dict) -> dt.datetime:
        return S.departure_at(self.db["flights"][leg["flight_number"]], leg["date"])

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
            if self.card(self.user(r)) is not None:
                cells.setdefault((self.tier(self.user(r)), self.cabin(r)), []).append(r["reservation_id"])
        for (_, cabin), ids in cells.items():
            if len(ids) <= (1 if cabin == "lite" else 2):
                self.held.update(ids)
        meal = {r["reservation_id"] for r, _, i, k in _disrupted(self)
                if k == "delay" and i["delay_minutes"] >= self.v["meal_delay_hours"] * 60}
        if len(meal) <= 2:
            self.held.update(meal)

    def spare(self, cands: list, rid=lambda r: r["reservation_id"]) -> list:
        """`cands` in their order, held rows last."""
        return sorted(cands, key=lambda c: rid(c) in self.held)

    def persona(self) -> str:
        self.n += 1
        return PERSONAS[self.n % len(PERSONAS)]

    # ---- scenario text ---------------------------------------------------------------
    def known(self, u: dict, r: Optional[dict] = None) -> list[str]:
        out = [f"You are {u['name']}.", f"Your Larkspur Loop number is {u['user_id']}.",
               f"Your date of birth is {u['date_of_birth']}."]
        if r is not None:
            out.append(f"Your reservation number is {r['reservation_id']}.")
        return out

    def verify_answers(self, u: dict, r: Optional[dict] = None) -> list:
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

    def base(self, slug: str, trap: str, u: dict, r: Optional[dict], **kw: Any) -> Scenario:
        kw.setdefault("known", self.known(u, r))
        kw.setdefault("answers", self.verify_answers(u, r))
        return Scenario(slug=slug, trap=trap, customer_id=u["user_id"], persona=self.persona(), **kw)

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
        return [{"method_id": m, "amount": a} for m, _, a in S.split_refund(amount, self.net_methods(r)) if a > 0]

    def refund_due(self, r: dict, reason: str) -> tuple[float, str]:
        tmp = dict(r, cancellation={"cancelled_at": self.now.isoformat(), "reason": reason})
        return S.refund_due(self.v, tmp, self.tier(self.user(r)), self.cabin(r), self.dep(r["flights"][0]))

    def full_amount(self, r: dict) -> float:
        return money(sum(a for _, _, a in self.net_methods(r)))


def scenarios(ctx: ScenarioContext) -> list[Scenario]:
    A = Air(ctx)
    A.hold_scarce()
    out: list[Scenario] = []
    for build in (cancellations, bags, changes, names_and_passengers, compensation, transfers, booking,
                  questions):
        out += [s for s in build(A) if s is not None]
    return out


# ------------------------------------------------------------------------------ cancellations

def _cancel(A: Air, slug: str, trap: str, r: dict, reason: str, *, purpose: str, facts: list[str],
            user_reason: str, values: list[str], say_amount: bool = True, **kw) -> Scenario:
    u = A.user(r)
    due, _ = A.refund_due(r, reason)
    full = A.full_amount(r)
    gold = [("get_reservation", {"reservation_id": r["reservation_id"]}),
            ("cancel_reservation", {"reservation_id": r["reservation_id"], "reason": reason,
                                    "refunds": A.refunds(r, due)})]
    naive = [("cancel_reservation", {"reservation_id": r["reservation_id"], "reason": reason,
                                     "refunds": A.refunds(r, full)})]
    return A.base(slug, trap, u, r, purpose=purpose, reason=user_reason,
                  opening=f"Hi, I need to cancel my reservation {r['reservation_id']} and get my money back.",
                  instructions=["You want to cancel the whole reservation.",
                                "Accept the refund the agent offers after asking once whether you can get everything back."],
                  gold=gold, naive=naive, communicate=[amount_text(due)] if say_amount else [],
                  answers=A.verify_answers(u, r) + [answer("cancel_reason", ["reason", "why"],
                                                           "I was called for jury duty." if reason == "covered_reason"
                                                           else "My plans changed.")],
                  facts=facts, value_keys=values, pushback="Are you sure I can't get the full amount back?", **kw)


def cancellations(A: Air) -> list[Optional[Scenario]]:
    v, F, out = A.v, A.F, []
    opens = A.spare(A.open_reservations())
    hours = v["risk_free_hours"]

    def booked_within(r, h):
        return A.now - parse_ts(r["created_at"]) <= dt.timedelta(hours=h)

    def far(r):
        return A.dep(r["flights"][0]) - parse_ts(r["created_at"]) >= dt.timedelta(days=v["risk_free_min_days"])

    risk_free = [r for r in opens if booked_within(r, hours) and far(r) and not r["changes"]]
    for r in risk_free[:2]:
        A.used.add(r["reservation_id"])
        out.append(_cancel(A, "cancel-risk-free", "none", r, "change_of_plans",
                           purpose="Cancel within the 24-hour risk-free window: everything is refunded.",
                           facts=[F.value("risk_free_hours"), F.value("risk_free_min_days"),
                                  F.find("offers a 24-hour risk-free window"),
                                  F.find("premium is refunded only"), F.find("Bag fees are refunded only")],
                           user_reason=f"You booked {r['reservation_id']} a few hours ago and your plans changed.",
                           values=["risk_free_hours", "risk_free_min_days"], say_amount=False))
    too_close = [r for r in opens if booked_within(r, hours) and not far(r)]
    for r in too_close[:2]:
        A.used.add(r["reservation_id"])
        cab = A.cabin(r)
        if cab == "lite":
            u = A.user(r)
            out.append(A.base("cancel-lite-inside-week", "refuse", u, r,
                              purpose="Booked hours ago but flying within a week: no risk-free refund, and Lite is "
                                      "not refundable, so the customer keeps the trip.",
                              reason=f"You booked {r['reservation_id']} this morning and want to cancel it for a refund.",
                              instructions=["You only want to cancel if you get a refund; otherwise keep the trip."],
                              opening=f"I booked {r['reservation_id']} just a few hours ago, please cancel it and refund me.",
                              gold=[("get_reservation", {"reservation_id": r["reservation_id"]})],
                              naive=[("cancel_reservation", {"reservation_id": r["reservation_id"],
                                                             "reason": "change_of_plans",
                                                             "refunds": A.refunds(r, A.full_amount(r))})],
                              communicate=[str(int(v["risk_free_min_days"]))],
                              facts=[F.value("risk_free_min_days"), F.find("A Lite fare is not refundable")],
                              value_keys=["risk_free_min_days"],
                              pushback="But I only booked it a few hours ago!"))
        else:
            out.append(_cancel(A, "cancel-inside-week-fee", "fee", r, "change_of_plans",
                               purpose="Booked hours ago but the first flight is within a week: the risk-free "
                                       "window does not apply and the normal cancellation rules do.",
                               facts=[F.value("risk_free_min_days"), F.value("cancel_fee_main"),
                                      F.find("Navigator and Pinnacle members pay no cancellation fee")],
                               user_reason=f"You booked {r['reservation_id']} today and want to cancel it.",
                               values=["risk_free_min_days", "cancel_fee_main"]))
    late = [r for r in opens if not booked_within(r, hours + 1)]
    main_fee = [r for r in late if A.cabin(r) == "main" and A.tier(A.user(r)) in ("wayfarer", "voyager")]
    for r in main_fee[:3]:
        out.append(_cancel(A, "cancel-main-fee", "fee", A.pick([r]) or r, "change_of_plans",
                           purpose="Cancel a Main reservation after the risk-free window: fares minus the "
                                   "per-passenger cancellation fee; bags and TripGuard are not refunded.",
                           facts=[F.value("cancel_fee_main"), F.find("Bag fees are refunded only"),
                                  F.value("card_refund_max_business_days")],
                           user_reason=f"You can no longer travel on {r['reservation_id']}.",
                           values=["cancel_fee_main"]))
    main_free = [r for r in late if A.cabin(r) == "main" and A.tier(A.user(r)) in ("navigator", "pinnacle")
                 and not r["bag_fee"] and not r["insurance"] and not r["changes"]]
    for r in main_free[:2]:
        A.used.add(r["reservation_id"])
        out.append(_cancel(A, "cancel-main-no-fee", "none", r, "change_of_plans",
                           purpose="A Navigator or Pinnacle member cancels a Main reservation: no cancellation fee.",
                           facts=[F.find("Navigator and Pinnacle members pay no cancellation fee")],
                           user_reason=f"You no longer need reservation {r['reservation_id']}.",
                           values=[], say_amount=False))
    prem = [r for r in late if A.cabin(r) == "premier"]
    early = [r for r in prem if A.dep(r["flights"][0]) - A.now >= dt.timedelta(hours=v["premier_full_refund_hours"])
             and (r["bag_fee"] or r["insurance"])]
    late_p = [r for r in prem if A.dep(r["flights"][0]) - A.now < dt.timedelta(hours=v["premier_full_refund_hours"])]
    for r in early[:1]:
        out.append(_cancel(A, "cancel-premier-early", "fee", A.pick([r]) or r, "change_of_plans",
                           purpose="Cancel Premier at least 72 hours out: the full fare back, but not bag fees "
                                   "or TripGuard.",
                           facts=[F.value("premier_full_refund_hours"), F.find("premium is refunded only")],
                           user_reason=f"Your trip on {r['reservation_id']} is off.", values=["premier_full_refund_hours"]))
    for r in late_p[:2]:
        out.append(_cancel(A, "cancel-premier-late", "fee", A.pick([r]) or r, "change_of_plans",
                           purpose="Cancel Premier less than 72 hours before departure: fares minus the late "
                                   "cancellation fee per passenger.",
                           facts=[F.value("cancel_fee_premier_late"), F.value("premier_full_refund_hours")],
                           user_reason=f"Something came up and you cannot fly on {r['reservation_id']}.",
                           values=["cancel_fee_premier_late"]))
    covered = [r for r in late if r["insurance"] and A.cabin(r) != "premier" and r["reservation_id"] not in A.used]
    for r in covered[:2]:
        A.used.add(r["reservation_id"])
        out.append(_cancel(A, "cancel-tripguard-covered", "fee", r, "covered_reason",
                           purpose="Cancel for jury duty with TripGuard: fares and bag fees back, the premium kept.",
                           facts=[F.find("jury duty or military orders"), F.find("refund of the fare and the bag fees"),
                                  F.find("premium is refunded only"), F.value("insurance_per_passenger")],
                           user_reason=f"You were called for jury duty and cannot take the trip {r['reservation_id']}.",
                           values=["insurance_per_passenger"]))
    lite_late = [r for r in late if A.cabin(r) == "lite" and r["reservation_id"] not in A.used]
    for r in lite_late[:2]:
        A.used.add(r["reservation_id"])
        u = A.user(r)
        out.append(A.base("cancel-lite-refused", "refuse", u, r,
                          purpose="A Lite fare after the risk-free window is not refundable; the customer keeps it.",
                          reason=f"You want to cancel {r['reservation_id']} and get a refund.",
                          instructions=["You only cancel if you get money back; otherwise keep the reservation."],
                          opening=f"Please cancel {r['reservation_id']} and refund my card.",
                          gold=[("get_reservation", {"reservation_id": r["reservation_id"]})],
                          naive=[("cancel_reservation", {"reservation_id": r["reservation_id"],
                                                         "reason": "change_of_plans",
                                                         "refunds": A.refunds(r, A.full_amount(r))})],
                          communicate=["Lite"], facts=[F.find("A Lite fare is not refundable"),
                                                       F.value("risk_free_hours")],
                          value_keys=["risk_free_hours"], pushback="Can't you make an exception?"))
    departed = A.spare([r for _, r in sorted(A.db["reservations"].items()) if r["cancellation"] is None
                        and r["trip_type"] == "round_trip" and A.dep(r["flights"][0]) < A.now < A.dep(r["flights"][-1])])
    for r in departed[:1]:
        u = A.user(r)
        out.append(A.base("cancel-after-departure", "refuse", u, r,
                          purpose="A reservation whose first flight has departed cannot be cancelled.",
                          reason=f"You flew out on {r['reservation_id']} and want to cancel the return for a refund.",
                          opening=f"I'd like to cancel the return part of {r['reservation_id']} and get a refund.",
                          gold=[("get_reservation", {"reservation_id": r["reservation_id"]})],
                          naive=[("cancel_reservation", {"reservation_id": r["reservation_id"],
                                                         "reason": "change_of_plans",
                                                         "refunds": A.refunds(r, A.full_amount(r))})],
                          communicate=[A.dep(r["flights"][0]).date().isoformat()],
                          facts=[F.find("cannot be cancelled after any of its flights"),
                                                   F.find("single flights cannot be cancelled")]))
    return out


# ------------------------------------------------------------------------------ bags

def bags(A: Air) -> list[Optional[Scenario]]:
    v, F, out = A.v, A.F, []
    opens = [r for r in A.open_reservations(6) if r["reservation_id"] not in A.used]
    done_combo: set[tuple[str, str]] = set()
    for r in opens:
        u = A.user(r)
        tier, cabin = A.tier(u), A.cabin(r)
        if (tier, cabin) in done_combo or A.card(u) is None:
            continue
        npax = len(r["passengers"])
        room = int(v["max_bags_per_passenger"]) * npax - r["total_bags"]
        if room < 1:
            continue
        done_combo.add((tier, cabin))
        A.used.add(r["reservation_id"])
        free = r["free_bags"]
        add = 1 if r["total_bags"] < free else min(2, room)
        each = S.bag_fee_each(v, cabin)
        fee = money((max(0, r["total_bags"] + add - free) - max(0, r["total_bags"] - free)) * each)
        key = f"free_bags_{tier}_{cabin}"
        facts = [F.value(key)]
        vals = [key]
        if fee:
            fk = "extra_bag_fee_premier" if cabin == "premier" else "extra_bag_fee"
            facts.append(F.value(fk))
            vals.append(fk)
        card = A.card(u)
        gold = [("get_reservation", {"reservation_id": r["reservation_id"]}), ("get_user", {"user_id": u["user_id"]}),
                ("add_bags", {"reservation_id": r["reservation_id"], "bags": add, "bag_fee": fee,
                              **({"payment_method_id": card} if fee else {})})]
        naive = [("add_bags", {"reservation_id": r["reservation_id"], "bags": add, "bag_fee": 0})]
        out.append(A.base("add-bags-paid" if fee else "add-bags-free", "fee" if fee else "none", u, r,
                          purpose=f"Add {add} checked bag(s) to a {r['cabin']} reservation of a "
                                  f"{u['membership']['tier']} member: the allowance decides the fee.",
                          reason=f"You want to add {add} checked bag{'s' if add > 1 else ''} to {r['reservation_id']}.",
                          instructions=["Pay any fee with your credit card."],
                          opening=f"Hi, can I add {add} checked bag{'s' if add > 1 else ''} to reservation "
                                  f"{r['reservation_id']}?",
                          gold=gold, naive=naive, communicate=[amount_text(fee)] if fee else [],
                          facts=facts, value_keys=vals))
    opens = A.spare(opens)
    prem = next((x for x in opens if x["reservation_id"] not in A.used and A.cabin(x) == "premier" and A.card(A.user(x))
                 and x["free_bags"] - x["total_bags"] + 1 <= int(v["max_bags_per_passenger"]) * len(x["passengers"])
                 - x["total_bags"]), None)
    if prem is not None:
        A.used.add(prem["reservation_id"])
        u = A.user(prem)
        add = max(1, prem["free_bags"] - prem["total_bags"] + 1)
        fee = money((max(0, prem["total_bags"] + add - prem["free_bags"]) - max(0, prem["total_bags"] - prem["free_bags"]))
                    * v["extra_bag_fee_premier"])
        out.append(A.base("add-bags-premier-extra", "fee", u, prem,
                          purpose="Premier bags beyond the allowance cost the Premier extra-bag fee.",
                          reason=f"You want to add {add} checked bags to {prem['reservation_id']}.",
                          instructions=["Pay any fee with your credit card."],
                          opening=f"Please add {add} checked bags to {prem['reservation_id']}.",
                          gold=[("get_reservation", {"reservation_id": prem["reservation_id"]}),
                                ("add_bags", {"reservation_id": prem["reservation_id"], "bags": add, "bag_fee": fee,
                                              "payment_method_id": A.card(u)})],
                          naive=[("add_bags", {"reservation_id": prem["reservation_id"], "bags": add, "bag_fee": 0})],
                          communicate=[amount_text(fee)], facts=[F.value("extra_bag_fee_premier")],
                          value_keys=["extra_bag_fee_premier"]))
    # too many bags
    r = next((x for x in opens if x["reservation_id"] not in A.used and len(x["passengers"]) == 1), None)
    if r is not None:
        A.used.add(r["reservation_id"])
        u = A.user(r)
        want = int(v["max_bags_per_passenger"]) + 1 - r["total_bags"]
        out.append(A.base("add-bags-over-limit", "refuse", u, r,
                          purpose="A passenger may check at most 5 bags in total.",
                          reason=f"You are moving and want {want} more checked bags on {r['reservation_id']}.",
                          opening=f"I need to add {want} checked bags to {r['reservation_id']}, I'm moving house.",
                          gold=[("get_reservation", {"reservation_id": r["reservation_id"]})],
                          naive=[("add_bags", {"reservation_id": r["reservation_id"], "bags": want, "bag_fee": 0})],
                          communicate=[str(int(v["max_bags_per_passenger"]))],
                          facts=[F.value("max_bags_per_passenger")], value_keys=["max_bags_per_passenger"]))
    # overweight bag on Main / Lite, heavy bag on Premier, bag over the hard limits
    heavy = next((x for x in opens if x["reservation_id"] not in A.used and A.cabin(x) == "main"
                  and A.card(A.user(x)) and x["total_bags"] + 1 <= x["free_bags"]), None)
    if heavy is not None:
        A.used.add(heavy["reservation_id"])
        u = A.user(heavy)
        out.append(A.base("overweight-bag", "fee", u, heavy,
                          purpose="A 60 lb bag in Main is within the allowance but overweight: the overweight fee.",
                          reason=f"You want to add one checked bag weighing 60 lb to {heavy['reservation_id']}.",
                          known=A.known(u, heavy) + ["The bag weighs 60 lb and measures 58 linear inches."],
                          instructions=["Pay with your credit card."],
                          opening=f"Can I add a checked bag to {heavy['reservation_id']}? It's about 60 pounds.",
                          gold=[("get_reservation", {"reservation_id": heavy["reservation_id"]}),
                                ("add_bags", {"reservation_id": heavy["reservation_id"], "bags": 1,
                                              "overweight_bags": 1, "bag_fee": 0,
                                              "overweight_fee": v["overweight_fee"],
                                              "payment_method_id": A.card(u)})],
                          naive=[("add_bags", {"reservation_id": heavy["reservation_id"], "bags": 1, "bag_fee": 0})],
                          communicate=[amount_text(v["overweight_fee"])],
                          facts=[F.value("overweight_fee"), F.find("may weigh at most 50 lb")],
                          value_keys=["overweight_fee"]))
    prem = next((x for x in opens if x["reservation_id"] not in A.used and A.cabin(x) == "premier"
                 and x["total_bags"] + 1 <= x["free_bags"]), None)
    if prem is not None:
        A.used.add(prem["reservation_id"])
        u = A.user(prem)
        out.append(A.base("heavy-bag-premier", "none", u, prem,
                          purpose="A 65 lb bag in Premier is within the Premier weight limit and the allowance: free.",
                          reason=f"You want to add one 65 lb checked bag to {prem['reservation_id']}.",
                          known=A.known(u, prem) + ["The bag weighs 65 lb and measures 60 linear inches."],
                          opening=f"Please add one checked bag to {prem['reservation_id']}, it weighs 65 pounds.",
                          gold=[("get_reservation", {"reservation_id": prem["reservation_id"]}),
                                ("add_bags", {"reservation_id": prem["reservation_id"], "bags": 1, "bag_fee": 0})],
                          naive=[("add_bags", {"reservation_id": prem["reservation_id"], "bags": 1, "bag_fee": 0})],
                          facts=[F.find("in Premier may weigh at most 70 lb")]))
    for slug, what, say, fact in (("bag-too-heavy", "weighs 110 lb", "100", "heavier than 100 lb"),
                                  ("bag-too-large", "measures 70 linear inches", "62", "at most 62 linear inches")):
        r = next((x for x in opens if x["reservation_id"] not in A.used), None)
        if r is None:
            continue
        A.used.add(r["reservation_id"])
        u = A.user(r)
        out.append(A.base(slug, "refuse", u, r,
                          purpose=f"A checked bag that {what} is not accepted.",
                          reason=f"You want to check a crate that {what} on {r['reservation_id']}.",
                          known=A.known(u, r) + [f"The crate {what}."],
                          opening=f"I want to check a crate on {r['reservation_id']}; it {what}.",
                          gold=[("get_reservation", {"reservation_id": r["reservation_id"]})],
                          naive=[("add_bags", {"reservation_id": r["reservation_id"], "bags": 1, "bag_fee": 0})],
                          communicate=[say], facts=[F.find(fact)]))
    return out


# ------------------------------------------------------------------------------ changes

def _shift(A: Air, r: dict, days: int) -> Optional[list[dict]]:
    new = []
    for leg in r["flights"]:
        d = (dt.date.fromisoformat(leg["date"]) + dt.timedelta(days=days)).isoformat()
        inst = A.db["flights"][leg["flight_number"]]["dates"].get(d)
        if inst is None or inst["status"] != "scheduled":
            return None
        new.append({"flight_number": leg["flight_number"], "date": d, "price": inst["prices"][r["cabin"]]})
    return new


def changes(A: Air) -> list[Optional[Scenario]]:
    v, F, out = A.v, A.F, []
    opens = [r for r in A.open_reservations(4) if r["reservation_id"] not in A.used and not r["changes"]]
    combos: set[tuple[str, str]] = set()
    for r in opens:
        u = A.user(r)
        tier, cabin = A.tier(u), A.cabin(r)
        if cabin == "lite" or (cabin, tier) in combos or A.card(u) is None:
            continue
        new = _shift(A, r, 1)
        if new is None:
            continue
        combos.add((cabin, tier))
        A.used.add(r["reservation_id"])
        npax = len(r["passengers"])
        fee = money(S.change_fee(v, cabin, tier) * npax)
        diff = money((sum(x["price"] for x in new) - sum(x["price"] for x in r["flights"])) * npax)
        refunds = A.refunds(r, -diff) if diff < 0 else []
        flights = [{"flight_number": x["flight_number"], "date": x["date"]} for x in new]
        card = A.card(u)
        gold_args = {"reservation_id": r["reservation_id"], "change_type": "flight_change", "flights": flights,
                     "change_fee": fee, "fare_difference": diff, "refunds": refunds}
        if fee + max(0, diff) > 0:
            gold_args["payment_method_id"] = card
        key = f"change_fee_{cabin}_{tier}"
        say = [amount_text(fee)] if fee else []
        if diff:
            say.append(amount_text(abs(diff)))
        out.append(A.base("change-flights", "fee" if fee else "none", u, r,
                          purpose=f"Move a {r['cabin']} reservation of a {u['membership']['tier']} member one day "
                                  "later: change fee per passenger plus the fare difference.",
                          reason=f"You want to fly one day later than booked on {r['reservation_id']}, same flights.",
                          instructions=["Keep the same flight numbers, just one day later.",
                                        "Pay anything due with your credit card."],
                          opening=f"Can you move reservation {r['reservation_id']} to the same flights one day later?",
                          gold=[("get_reservation", {"reservation_id": r["reservation_id"]}),
                                *[("search_flights", {"origin": x["origin"], "destination": x["destination"],
                                                      "date": nx["date"]}) for x, nx in zip(r["flights"], new)],
                                ("change_flights", gold_args)],
                          naive=[("change_flights", {"reservation_id": r["reservation_id"],
                                                     "change_type": "flight_change", "flights": flights,
                                                     "change_fee": 0, "fare_difference": 0})],
                          communicate=say, facts=[F.value(key), F.find("When the new flights cost more")
                                                  if diff > 0 else F.find("When the new flights cost less")
                                                  if diff < 0 else F.value(key),
                                                  F.value("change_cutoff_minutes")],
                          value_keys=[key]))
    lite = next((r for r in opens if A.cabin(r) == "lite" and r["reservation_id"] not in A.used
                 and _shift(A, r, 1)), None)
    if lite is not None:
        A.used.add(lite["reservation_id"])
        u = A.user(lite)
        new = _shift(A, lite, 1)
        out.append(A.base("change-lite-refused", "refuse", u, lite,
                          purpose="Flights on a Lite reservation cannot be changed.",
                          reason=f"You want to move {lite['reservation_id']} one day later.",
                          opening=f"I need to fly a day later on {lite['reservation_id']}, can you change it?",
                          gold=[("get_reservation", {"reservation_id": lite["reservation_id"]})],
                          naive=[("change_flights", {"reservation_id": lite["reservation_id"],
                                                     "change_type": "flight_change",
                                                     "flights": [{"flight_number": x["flight_number"], "date": x["date"]}
                                                                 for x in new],
                                                     "change_fee": 0, "fare_difference": 0})],
                          communicate=[lite["cabin"]], facts=[F.find("Flights on a Lite reservation cannot be changed")]))
    soon = [r for r in A.open_reservations(0) if r["reservation_id"] not in A.used and A.cabin(r) != "lite"
            and A.dep(r["flights"][0]) - A.now < dt.timedelta(minutes=v["change_cutoff_minutes"])]
    for r in soon[:1]:
        A.used.add(r["reservation_id"])
        u = A.user(r)
        new = _shift(A, r, 1)
        if new is None:
            continue
        out.append(A.base("change-too-late", "refuse", u, r,
                          purpose="A flight change must be done at least 60 minutes before departure.",
                          reason=f"You are running late for {r['reservation_id']} and want tomorrow's flight instead.",
                          opening=f"I'm stuck in traffic, can you move {r['reservation_id']} to tomorrow?",
                          gold=[("get_reservation", {"reservation_id": r["reservation_id"]})],
                          naive=[("change_flights", {"reservation_id": r["reservation_id"], "change_type": "flight_change",
                                                     "flights": [{"flight_number": x["flight_number"], "date": x["date"]}
                                                                 for x in new],
                                                     "change_fee": 0, "fare_difference": 0})],
                          communicate=[str(int(v["change_cutoff_minutes"]))],
                          facts=[F.value("change_cutoff_minutes")], value_keys=["change_cutoff_minutes"]))
    route = next((r for r in opens if r["reservation_id"] not in A.used and A.cabin(r) == "main"
                  and r["trip_type"] == "one_way" and len(r["flights"]) == 1), None)
    if route is not None:
        A.used.add(route["reservation_id"])
        u = A.user(route)
        leg = route["flights"][0]
        alt = next((f for _, f in sorted(A.db["flights"].items()) if f["origin"] == leg["origin"]
                    and f["destination"] != leg["destination"] and leg["date"] in f["dates"]
                    and f["dates"][leg["date"]]["status"] == "scheduled"), None)
        if alt is not None:
            out.append(A.base("change-route-refused", "refuse", u, route,
                              purpose="A flight change must keep the origin, the destination and the trip type.",
                              reason=f"You want {route['reservation_id']} to go to {alt['destination_city']} instead.",
                              opening=f"Could you switch {route['reservation_id']} so I fly to {alt['destination_city']} "
                                      "instead, same day?",
                              gold=[("get_reservation", {"reservation_id": route["reservation_id"]})],
                              naive=[("change_flights", {"reservation_id": route["reservation_id"],
                                                         "change_type": "flight_change",
                                                         "flights": [{"flight_number": alt["flight_number"],
                                                                      "date": leg["date"]}],
                                                         "change_fee": 0, "fare_difference": 0})],
                              communicate=[A.db["flights"][leg["flight_number"]]["destination_city"]],
                              facts=[F.find("as long as the origin, the destination and the trip type stay the same")]))
    # same-day changes
    today = A.now.date().isoformat()
    sd = []
    for r in A.open_reservations(1.5):
        leg = r["flights"][0]
        if r["reservation_id"] in A.used or len(r["flights"]) != 1 or leg["date"] != today or A.cabin(r) == "lite":
            continue
        f = A.db["flights"][leg["flight_number"]]
        alts = [g for _, g in sorted(A.db["flights"].items()) if g["flight_number"] != f["flight_number"]
                and g["origin"] == f["origin"] and g["destination"] == f["destination"]
                and (g["dates"][today]["seats_available"] or {}).get(r["cabin"], 0) >= len(r["passengers"])
                and S.departure_at(g, today) > A.now + dt.timedelta(minutes=v["change_cutoff_minutes"] + 30)]
        if alts:
            sd.append((r, alts[0]))
    for r, g in sd[:3]:
        A.used.add(r["reservation_id"])
        u = A.user(r)
        tier = A.tier(u)
        npax = len(r["passengers"])
        fee = 0 if tier in ("navigator", "pinnacle") else money(v["same_day_fee"] * npax)
        card = A.card(u)
        args = {"reservation_id": r["reservation_id"], "change_type": "same_day_change",
                "flights": [{"flight_number": g["flight_number"], "date": today}], "change_fee": fee,
                "fare_difference": 0}
        if fee:
            args["payment_method_id"] = card
        out.append(A.base("same-day-change", "fee" if fee else "none", u, r,
                          purpose="Move to another flight on the same route today: flat same-day fee per passenger, "
                                  "free for Navigator and Pinnacle, no fare difference.",
                          reason=f"You want to take flight {g['flight_number']} today instead of "
                                 f"{r['flights'][0]['flight_number']}.",
                          instructions=["Pay any fee with your credit card."],
                          opening=f"Can I switch {r['reservation_id']} to flight {g['flight_number']} today?",
                          gold=[("get_reservation", {"reservation_id": r["reservation_id"]}),
                                ("search_flights", {"origin": g["origin"], "destination": g["destination"], "date": today}),
                                ("change_flights", args)],
                          naive=[("change_flights", {**args, "change_fee": 0})],
                          communicate=[amount_text(fee)] if fee else [],
                          facts=[F.value("same_day_fee"), F.find("Same-day changes are free for Navigator"),
                                 F.find("Same-day changes do not charge a fare difference")],
                          value_keys=["same_day_fee"]))
    return out


# ------------------------------------------------------------------------------ names and passengers

def names_and_passengers(A: Air) -> list[Optional[Scenario]]:
    v, F, out = A.v, A.F, []
    opens = [r for r in A.open_reservations(6) if r["reservation_id"] not in A.used]
    r = next((x for x in opens if x["reservation_id"] not in A.used), None)
    if r is not None:
        A.used.add(r["reservation_id"])
        u = A.user(r)
        p = r["passengers"][0]
        typo_first = p["first_name"][:-2] + p["first_name"][-1] + p["first_name"][-2] if len(p["first_name"]) > 2 else None
        if typo_first and typo_first != p["first_name"]:
            # the reservation carries a typo the customer wants fixed
            out.append(_name_fix(A, u, r, p, typo_first))
    r = next((x for x in opens if x["reservation_id"] not in A.used), None)
    if r is not None:
        A.used.add(r["reservation_id"])
        u = A.user(r)
        out.append(A.base("name-transfer-refused", "refuse", u, r,
                          purpose="A reservation cannot be transferred to a different person.",
                          reason=f"You cannot travel and want your colleague Jordan Whitfield to fly on "
                                 f"{r['reservation_id']} instead of {r['passengers'][0]['first_name']}.",
                          opening=f"Can you put my colleague Jordan Whitfield on {r['reservation_id']} in place of "
                                  f"{r['passengers'][0]['first_name']} {r['passengers'][0]['last_name']}?",
                          gold=[("get_reservation", {"reservation_id": r["reservation_id"]})],
                          naive=[("correct_passenger_name", {"reservation_id": r["reservation_id"],
                                                             "passenger_index": 0, "first_name": "Jordan",
                                                             "last_name": "Whitfield"})],
                          communicate=[f"{r['passengers'][0]['first_name']} {r['passengers'][0]['last_name']}"],
                          facts=[F.find("cannot be transferred to a different person")]))
    r = next((x for x in opens if x["reservation_id"] not in A.used and len(x["passengers"]) < v["max_passengers"]
              and A.card(A.user(x))), None)
    if r is not None:
        A.used.add(r["reservation_id"])
        u = A.user(r)
        fare = money(sum(x["price"] for x in r["flights"]))
        out.append(A.base("add-passenger-refused", "refuse", u, r,
                          purpose="Passengers cannot be added to a reservation after booking; a new booking is needed.",
                          reason=f"Your sister Ana Whitfield (born 1991-03-14) wants to join you on {r['reservation_id']}.",
                          opening=f"My sister wants to come along, can you add her to {r['reservation_id']}?",
                          gold=[("get_reservation", {"reservation_id": r["reservation_id"]})],
                          naive=[("add_passenger", {"reservation_id": r["reservation_id"],
                                                    "passenger": {"first_name": "Ana", "last_name": "Whitfield",
                                                                  "date_of_birth": "1991-03-14"},
                                                    "fare": fare, "payment_method_id": A.card(u)})],
                          communicate=["new reservation"],
                          facts=[F.find("Passengers cannot be added to or removed")]))
    r = next((x for x in opens if x["reservation_id"] not in A.used and not x["insurance"] and A.card(A.user(x))), None)
    if r is not None:
        A.used.add(r["reservation_id"])
        u = A.user(r)
        out.append(A.base("add-tripguard-refused", "refuse", u, r,
                          purpose="TripGuard can only be bought at booking, never added later.",
                          reason=f"You want to add TripGuard insurance to {r['reservation_id']}.",
                          opening=f"I'd like to add TripGuard to {r['reservation_id']}, how much is it?",
                          gold=[("get_reservation", {"reservation_id": r["reservation_id"]})],
                          naive=[("add_insurance", {"reservation_id": r["reservation_id"],
                                                    "fee": money(v["insurance_per_passenger"] * len(r["passengers"])),
                                                    "payment_method_id": A.card(u)})],
                          communicate=["booking"],
                          facts=[F.find("can be purchased only at the time of booking"),
                                 F.find("covers every passenger on the reservation or none")]))
    return out


def _name_fix(A: Air, u: dict, r: dict, p: dict, typo: str) -> Scenario:
    """The reservation is (in the scenario) booked with a first-name typo of 2 characters;
    the gold corrects it to the right spelling, which is what the customer asks for."""
    return A.base("first-name-fix", "none", u, r,
                  purpose="Fix a 2-character typo in a passenger's first name: free of charge.",
                  reason=f"The first passenger's first name on {r['reservation_id']} should be {typo}, the way "
                         "it is written in the passport.",
                  known=A.known(u, r) + [f"The passport says {typo} {p['last_name']}."],
                  opening=f"The first name on {r['reservation_id']} should be {typo}, as in the passport. "
                          "Can you correct it?",
                  gold=[("get_reservation", {"reservation_id": r["reservation_id"]}),
                        ("correct_passenger_name", {"reservation_id": r["reservation_id"], "passenger_index": 0,
                                                    "first_name": typo, "last_name": p["last_name"]})],
                  naive=[("correct_passenger_name", {"reservation_id": r["reservation_id"], "passenger_index": 0,
                                                     "first_name": typo, "last_name": p["last_name"]})],
                  facts=[A.F.value("name_correction_max_chars"), A.F.find("at least 2 hours before departure")],
                  value_keys=["name_correction_max_chars"])


# ------------------------------------------------------------------------------ compensation

def _disrupted(A: Air) -> list[tuple[dict, dict, dict, str]]:
    """(reservation, leg, flight instance, kind) for legs of open or completed reservations
    on delayed or cancelled flights, without compensation yet."""
    out = []
    for _, r in sorted(A.db["reservations"].items()):
        if r["cancellation"] is not None and r["cancellation"]["reason"] != "flight_cancelled_by_airline":
            continue
        u = A.user(r)
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


def compensation(A: Air) -> list[Optional[Scenario]]:
    v, F, out = A.v, A.F, []
    dis = _disrupted(A)
    bad = ("weather", "air_traffic_control")
    thr = v["delay_threshold_hours"] * 60
    qualifying = [(r, leg, i, k) for r, leg, i, k in dis if (k == "cancellation" or i["delay_minutes"] >= thr)
                  and i["cause"] not in bad]
    seen: set[tuple[str, str]] = set()
    for r, leg, inst, kind in qualifying:
        u = A.user(r)
        tier, cabin = A.tier(u), A.cabin(r)
        npax = len(r["passengers"])
        amount = money(S.compensation_per_passenger(v, tier, cabin, kind) * npax)
        prior = sum(pm["amount"] for pm in u["payment_methods"].values() if pm["type"] == "travel_certificate"
                    and pm["origin"].get("kind") in ("compensation", "goodwill")
                    and pm["origin"].get("reservation_id") == r["reservation_id"])
        key = (kind, tier if cabin != "premier" else "premier")
        if key in seen or prior + amount > v["manager_approval_above"] or r["reservation_id"] in A.used:
            continue
        seen.add(key)
        A.used.add(r["reservation_id"])
        table = f"comp_{'delay' if kind == 'delay' else 'cancel'}_{tier}"
        facts = [F.value(table), F.value("compensation_certificate_months"),
                 F.find("always issued as a Larkspur travel certificate"), F.find("compensated at most once")]
        vals = [table, "compensation_certificate_months"]
        if kind == "delay":
            facts.append(F.value("delay_threshold_hours"))
        if cabin == "premier":
            facts.append(F.value("comp_premier_extra"))
            vals.append("comp_premier_extra")
        what = f"was about {inst['delay_minutes'] // 60} hours late" if kind == "delay" else "was cancelled by Larkspur"
        out.append(A.base(f"{kind}-compensation", "none", u, r,
                          purpose="Compensate a disruption within the airline's control: a travel certificate per "
                                  "passenger by tier and disruption (plus the Premier extra), valid 12 months.",
                          reason=f"Flight {leg['flight_number']} on {leg['date']} ({r['reservation_id']}) {what} and "
                                 "you want compensation in cash, $200.",
                          instructions=["Ask for $200 in cash first; accept what the agent offers under the policy."],
                          opening=f"My flight {leg['flight_number']} on {leg['date']} {what}. "
                                  "I want $200 back for that.",
                          gold=[("get_reservation", {"reservation_id": r["reservation_id"]}),
                                ("get_flight_status", {"flight_number": leg["flight_number"], "date": leg["date"]}),
                                ("issue_certificate", {"user_id": u["user_id"], "reservation_id": r["reservation_id"],
                                                       "amount": amount, "kind": "compensation", "disruption": kind,
                                                       "flight_number": leg["flight_number"], "date": leg["date"]})],
                          naive=[("issue_certificate", {"user_id": u["user_id"], "reservation_id": r["reservation_id"],
                                                        "amount": 200, "kind": "compensation", "disruption": kind,
                                                        "flight_number": leg["flight_number"], "date": leg["date"]})],
                          communicate=[amount_text(amount)], facts=facts, value_keys=vals,
                          pushback="Cash would really be better for me."))
    # over the approval limit -> duty manager
    for r, leg, inst, kind in dis:
        if (kind == "delay" and inst["delay_minutes"] < thr) or inst["cause"] in bad:
            continue
        u = A.user(r)
        amount = money(S.compensation_per_passenger(v, A.tier(u), A.cabin(r), kind) * len(r["passengers"]))
        prior = sum(pm["amount"] for pm in u["payment_methods"].values() if pm["type"] == "travel_certificate"
                    and pm["origin"].get("kind") in ("compensation", "goodwill")
                    and pm["origin"].get("reservation_id") == r["reservation_id"])
        if prior + amount <= v["manager_approval_above"] or r["reservation_id"] in A.used:
            continue
        A.used.add(r["reservation_id"])
        out.append(A.base("compensation-needs-manager", "transfer", u, r,
                          purpose="Compensation above the approval limit for one reservation goes to the duty manager.",
                          reason=f"Flight {leg['flight_number']} on {leg['date']} of {r['reservation_id']} was "
                                 f"{'cancelled' if kind == 'cancellation' else 'badly delayed'} and you want compensation "
                                 "for everyone on the booking.",
                          opening=f"Flight {leg['flight_number']} on {leg['date']} was a disaster for all of us on "
                                  f"{r['reservation_id']}. What compensation do we get?",
                          gold=[("get_reservation", {"reservation_id": r["reservation_id"]}),
                                ("transfer_to_human", {"user_id": u["user_id"], "desk": "duty_manager",
                                                       "reservation_id": r["reservation_id"],
                                                       "summary": f"Compensation of {amount_text(amount)} for "
                                                                  f"{leg['flight_number']} needs approval."})],
                          naive=[("issue_certificate", {"user_id": u["user_id"], "reservation_id": r["reservation_id"],
                                                        "amount": amount, "kind": "compensation", "disruption": kind,
                                                        "flight_number": leg["flight_number"], "date": leg["date"]})],
                          communicate=[amount_text(v["manager_approval_above"])],
                          facts=[F.value("manager_approval_above"),
                                 F.value(f"comp_{'delay' if kind == 'delay' else 'cancel'}_{A.tier(u)}")],
                          value_keys=["manager_approval_above"]))
        break
    if not any(sc.slug == "compensation-needs-manager" for sc in out):
        big = next((r for r in A.open_reservations(24) if r["reservation_id"] not in A.used
                    and S.compensation_per_passenger(v, A.tier(A.user(r)), A.cabin(r), "cancellation")
                    * len(r["passengers"]) > v["manager_approval_above"]), None)
        if big is not None:
            A.used.add(big["reservation_id"])
            u = A.user(big)
            amount = money(S.compensation_per_passenger(v, A.tier(u), A.cabin(big), "cancellation")
                           * len(big["passengers"]))
            out.append(A.base("manager-approval-question", "none", u, big,
                              purpose="Compensation above the approval limit for one reservation needs the duty "
                                      "manager: the agent says so and states the amount the table gives.",
                              reason=f"You worry that Larkspur might cancel your flight on {big['reservation_id']} and "
                                     "want to know what the whole group would get and whether you would get it at once.",
                              opening=f"If Larkspur cancels our flight on {big['reservation_id']}, what compensation would "
                                      "all of us get, and can you issue it straight away?",
                              gold=[("get_reservation", {"reservation_id": big["reservation_id"]})], naive=[],
                              communicate=[amount_text(amount), "duty manager"],
                              facts=[F.value("manager_approval_above")], value_keys=["manager_approval_above"]))
    spared = A.spare(dis, rid=lambda t: t[0]["reservation_id"])
    for cause_group, slug, say in ((bad, "weather-delay-refused", "weather"),):
        cand = next(((r, leg, i) for r, leg, i, k in spared if k == "delay" and i["delay_minutes"] >= thr
                     and i["cause"] in cause_group and r["reservation_id"] not in A.used), None)
        if cand is None:
            continue
        r, leg, inst = cand
        A.used.add(r["reservation_id"])
        u = A.user(r)
        what = "weather" if inst["cause"] == "weather" else "air traffic control"
        out.append(A.base(slug, "refuse", u, r,
                          purpose="Delays caused by weather or air traffic control are not compensated.",
                          reason=f"Flight {leg['flight_number']} on {leg['date']} was {inst['delay_minutes'] // 60} hours "
                                 "late and you want compensation.",
                          opening=f"My flight {leg['flight_number']} on {leg['date']} was hours late, I expect compensation.",
                          gold=[("get_flight_status", {"flight_number": leg["flight_number"], "date": leg["date"]})],
                          naive=[("issue_certificate", {"user_id": u["user_id"], "reservation_id": r["reservation_id"],
                                                        "amount": 100, "kind": "compensation", "disruption": "delay",
                                                        "flight_number": leg["flight_number"], "date": leg["date"]})],
                          communicate=[what.split()[0]], facts=[F.find("weather or air traffic control do not qualify")],
                          pushback="Surely you can give me something?"))
    short = next(((r, leg, i) for r, leg, i, k in spared if k == "delay" and 0 < i["delay_minutes"] < thr
                  and i["cause"] not in bad and r["reservation_id"] not in A.used), None)
    if short is not None:
        r, leg, inst = short
        A.used.add(r["reservation_id"])
        u = A.user(r)
        out.append(A.base("short-delay-refused", "refuse", u, r,
                          purpose="A delay under 3 hours does not qualify for compensation.",
                          reason=f"Flight {leg['flight_number']} on {leg['date']} was {inst['delay_minutes']} minutes late.",
                          opening=f"Flight {leg['flight_number']} on {leg['date']} was late, I want compensation.",
                          gold=[("get_flight_status", {"flight_number": leg["flight_number"], "date": leg["date"]})],
                          naive=[("issue_certificate", {"user_id": u["user_id"], "reservation_id": r["reservation_id"],
                                                        "amount": 100, "kind": "compensation", "disruption": "delay",
                                                        "flight_number": leg["flight_number"], "date": leg["date"]})],
                          communicate=[str(int(v["delay_threshold_hours"]))],
                          facts=[F.value("delay_threshold_hours")], value_keys=["delay_threshold_hours"]))
        # the same customer asks for a goodwill gesture instead: at most the goodwill limit
    gw = next(((r, leg, i) for r, leg, i, k in spared if k == "delay" and 0 < i["delay_minutes"] < thr
               and r["reservation_id"] not in A.used), None)
    if gw is not None:
        r, leg, inst = gw
        A.used.add(r["reservation_id"])
        u = A.user(r)
        out.append(A.base("goodwill-capped", "none", u, r,
                          purpose="Without a qualifying disruption a goodwill gesture is capped per reservation.",
                          reason=f"Flight {leg['flight_number']} on {leg['date']} was {inst['delay_minutes']} minutes late "
                                 "and you missed a dinner; you want a $75 voucher as a gesture.",
                          instructions=["If the agent says the most it can give is less, accept that amount."],
                          opening=f"Flight {leg['flight_number']} was late and ruined my evening. Could you give me a "
                                  "$75 travel credit as a gesture?",
                          gold=[("get_flight_status", {"flight_number": leg["flight_number"], "date": leg["date"]}),
                                ("issue_certificate", {"user_id": u["user_id"], "reservation_id": r["reservation_id"],
                                                       "amount": v["goodwill_max"], "kind": "goodwill"})],
                          naive=[("issue_certificate", {"user_id": u["user_id"], "reservation_id": r["reservation_id"],
                                                        "amount": 75, "kind": "goodwill"})],
                          communicate=[amount_text(v["goodwill_max"])], facts=[F.value("goodwill_max")],
                          value_keys=["goodwill_max"]))
    meal = next(((r, leg, i) for r, leg, i, k in dis if k == "delay" and i["delay_minutes"] >= v["meal_delay_hours"] * 60
                 and r["reservation_id"] not in A.used), None)
    if meal is not None:
        r, leg, inst = meal
        A.used.add(r["reservation_id"])
        u = A.user(r)
        amount = money(v["meal_voucher"] * len(r["passengers"]))
        out.append(A.base("meal-voucher", "none", u, r,
                          purpose="Passengers delayed 4 hours or more get a meal voucher per passenger.",
                          reason=f"You sat at the airport {inst['delay_minutes'] // 60} hours waiting for "
                                 f"{leg['flight_number']} on {leg['date']} and want your meals covered: $60.",
                          instructions=["Ask for $60 for meals; accept the voucher the agent offers."],
                          opening=f"We waited hours for {leg['flight_number']} on {leg['date']}. I spent $60 on food, "
                                  "can you cover it?",
                          gold=[("get_flight_status", {"flight_number": leg["flight_number"], "date": leg["date"]}),
                                ("issue_voucher", {"reservation_id": r["reservation_id"], "kind": "meal",
                                                   "amount": amount, "flight_number": leg["flight_number"],
                                                   "date": leg["date"]})],
                          naive=[("issue_voucher", {"reservation_id": r["reservation_id"], "kind": "meal", "amount": 60,
                                                    "flight_number": leg["flight_number"], "date": leg["date"]})],
                          communicate=[amount_text(amount)],
                          facts=[F.value("meal_voucher"), F.value("meal_delay_hours")],
                          value_keys=["meal_voucher", "meal_delay_hours"]))
    hotel = next(((r, leg, i) for r, leg, i, k in dis if k == "cancellation" and r["reservation_id"] not in A.used), None)
    if hotel is not None:
        r, leg, inst = hotel
        A.used.add(r["reservation_id"])
        u = A.user(r)
        out.append(A.base("hotel-voucher-capped", "none", u, r,
                          purpose="A Larkspur cancellation that forces an overnight stay: a hotel room up to the cap.",
                          reason=f"Flight {leg['flight_number']} on {leg['date']} was cancelled and you had to stay "
                                 "overnight; your hotel cost $240.",
                          instructions=["Ask for the full $240; accept what the agent offers under the policy."],
                          opening=f"My flight {leg['flight_number']} on {leg['date']} was cancelled and I paid $240 for "
                                  "a hotel. Please reimburse it.",
                          gold=[("get_flight_status", {"flight_number": leg["flight_number"], "date": leg["date"]}),
                                ("issue_voucher", {"reservation_id": r["reservation_id"], "kind": "hotel",
                                                   "amount": v["hotel_max"], "flight_number": leg["flight_number"],
                                                   "date": leg["date"]})],
                          naive=[("issue_voucher", {"reservation_id": r["reservation_id"], "kind": "hotel", "amount": 240,
                                                    "flight_number": leg["flight_number"], "date": leg["date"]})],
                          communicate=[amount_text(v["hotel_max"])], facts=[F.value("hotel_max")],
                          value_keys=["hotel_max"]))
    covered = {k for k in seen}
    users = sorted(A.db["users"].values(), key=lambda x: x["user_id"])
    for tier in S.TIERS:
        for kind in ("delay", "cancellation"):
            if (kind, tier) in covered:
                continue
            u = next((x for x in users if A.tier(x) == tier and x["user_id"] not in A.used), None)
            if u is None:
                continue
            A.used.add(u["user_id"])
            key = f"comp_{'delay' if kind == 'delay' else 'cancel'}_{tier}"
            premier = tier == "pinnacle" and kind == "cancellation"
            per = money(S.compensation_per_passenger(v, tier, "premier" if premier else "main", kind))
            what = ("is delayed by more than 3 hours for a technical fault" if kind == "delay"
                    else "is cancelled by Larkspur for a crew shortage")
            out.append(A.base("compensation-question", "none", u, None,
                              purpose="State the compensation a member's tier gives for a disruption.",
                              reason=f"You want to know what you would get per passenger if a flight {what}.",
                              opening=f"As a {u['membership']['tier']} member, what compensation do I get per person if my "
                                      f"{'Premier ' if premier else ''}flight {what}?",
                              gold=[("get_user", {"user_id": u["user_id"]})], naive=[],
                              communicate=[amount_text(per)],
                              facts=[F.value(key)] + ([F.value("comp_premier_extra")] if premier else []),
                              value_keys=[key]))
    return out


# ------------------------------------------------------------------------------ transfers

def transfers(A: Air) -> list[Optional[Scenario]]:
    F, out = A.F, []
    users = sorted(A.db["users"].values(), key=lambda u: u["user_id"])
    done = [r for _, r in sorted(A.db["reservations"].items()) if r["status"] == "completed"]
    if done:
        r = done[0]
        u = A.user(r)
        out.append(A.base("lost-bag-claim", "transfer", u, r,
                          purpose="Lost-baggage claims go to Baggage Services; agents do not settle them.",
                          reason=f"Your checked bag from {r['reservation_id']} never arrived and you want $500 for it.",
                          opening=f"My suitcase from reservation {r['reservation_id']} never showed up. I want the $500 "
                                  "TripGuard pays for lost bags.",
                          gold=[("get_reservation", {"reservation_id": r["reservation_id"]}),
                                ("transfer_to_human", {"user_id": u["user_id"], "desk": "baggage_services",
                                                       "reservation_id": r["reservation_id"],
                                                       "summary": "Lost checked bag claim."})],
                          naive=[("issue_certificate", {"user_id": u["user_id"], "reservation_id": r["reservation_id"],
                                                        "amount": 500, "kind": "goodwill"})],
                          communicate=["Baggage Services"],
                          facts=[F.find("Lost-baggage claims are handled by the Baggage Services desk"),
                                 F.find("reimburses up to $500 per passenger")]))
    u = users[1]
    out.append(A.base("human-on-request", "none", u, None,
                      purpose="Transfer to a human agent when the customer explicitly asks for one.",
                      reason="You want to talk to a person about a complaint.",
                      opening="I want to speak with a human agent, please.",
                      gold=[("get_user", {"user_id": u["user_id"]}),
                            ("transfer_to_human", {"user_id": u["user_id"], "desk": "human_agent",
                                                   "summary": "Customer asked for a human agent."})],
                      naive=[("transfer_to_human", {"user_id": u["user_id"], "desk": "human_agent",
                                                    "summary": "Customer asked for a human."})],
                      facts=[F.find("when the customer explicitly asks for one")]))
    u = users[2]
    out.append(A.base("outside-policy-transfer", "transfer", u, None,
                      purpose="A request the policy does not cover goes to a human agent, with a callback offer "
                              "when the wait is long.",
                      reason="You want to fly with your small dog in the cabin and ask how long the wait for a person is.",
                      opening="Can I bring my small dog in the cabin on my next flight? If you don't know, how long "
                              "will I wait for someone who does?",
                      gold=[("get_user", {"user_id": u["user_id"]}),
                            ("transfer_to_human", {"user_id": u["user_id"], "desk": "human_agent",
                                                   "summary": "Question about travelling with a pet."})],
                      naive=[], communicate=["20"],
                      facts=[F.find("when the request falls outside this policy"),
                             F.find("exceeds 20 minutes"), F.find("tells the customer that a transfer is taking place")]))
    return out


# ------------------------------------------------------------------------------ booking

def booking(A: Air) -> list[Optional[Scenario]]:
    v, F, out = A.v, A.F, []
    day = (A.now.date() + dt.timedelta(days=9)).isoformat()
    flights = [f for _, f in sorted(A.db["flights"].items()) if day in f["dates"]
               and f["dates"][day]["status"] == "scheduled" and (f["dates"][day]["seats_available"] or {}).get(
                   A.cab["main"], 0) >= 2]
    users = [u for _, u in sorted(A.db["users"].items()) if A.card(u)]
    for i, (tier_pick, ins) in enumerate((("voyager", True), ("navigator", False), ("wayfarer", False))):
        u = next((x for x in users if A.tier(x) == tier_pick and x["user_id"] not in A.used), None)
        if u is None or i >= len(flights):
            continue
        A.used.add(u["user_id"])
        f = flights[i * 3]
        price = f["dates"][day]["prices"][A.cab["main"]]
        free = S.free_bags(v, tier_pick, "main")
        bags_wanted = free + 1
        bag_fee = money((bags_wanted - free) * v["extra_bag_fee"])
        ins_fee = money(v["insurance_per_passenger"]) if ins else 0
        total = money(price + bag_fee + ins_fee)
        card = A.card(u)
        pax = {"first_name": u["first_name"], "last_name": u["last_name"], "date_of_birth": u["date_of_birth"]}
        args = {"user_id": u["user_id"], "trip_type": "one_way", "origin": f["origin"], "destination": f["destination"],
                "cabin": A.cab["main"], "flights": [{"flight_number": f["flight_number"], "date": day}],
                "passengers": [pax], "payments": [{"method_id": card, "amount": total}], "total_bags": bags_wanted,
                "free_bags": free, "bag_fee": bag_fee, "insurance": ins, "insurance_fee": ins_fee}
        naive_total = money(price)
        naive = dict(args, payments=[{"method_id": card, "amount": naive_total}], free_bags=bags_wanted, bag_fee=0,
                     insurance_fee=0)
        say = [amount_text(total), amount_text(bag_fee)]
        facts = [F.value(f"free_bags_{tier_pick}_main"), F.value("extra_bag_fee"),
                 F.find("Every payment method used for a booking must already be stored")]
        if ins:
            facts.append(F.value("insurance_per_passenger"))
        out.append(A.base("book-one-way", "fee", u, None,
                          purpose="Book a one-way Main trip: the fare from the flight record, bags beyond the tier's "
                                  "allowance charged, TripGuard per passenger when wanted.",
                          reason=f"You want to fly {f['origin_city']} to {f['destination_city']} on {day}, one way, "
                                 f"flight {f['flight_number']}, in Main.",
                          known=A.known(u) + [f"You travel alone with {bags_wanted} checked bags."],
                          instructions=[f"You {'want' if ins else 'do not want'} TripGuard insurance.",
                                        "Pay everything with your credit card."],
                          opening=f"I'd like to book flight {f['flight_number']} from {f['origin']} to {f['destination']} "
                                  f"on {day} in Main, just me, with {bags_wanted} checked bags.",
                          gold=[("get_user", {"user_id": u["user_id"]}),
                                ("search_flights", {"origin": f["origin"], "destination": f["destination"], "date": day}),
                                ("book_reservation", args)],
                          naive=[("book_reservation", naive)], communicate=say, facts=facts,
                          value_keys=[f"free_bags_{tier_pick}_main", "extra_bag_fee"]))
    if flights:
        f = flights[-1]
        u = next((x for x in users if x["user_id"] not in A.used), users[0])
        A.used.add(u["user_id"])
        n = int(v["max_passengers"]) + 1
        out.append(A.base("book-too-many-passengers", "refuse", u, None,
                          purpose="A single reservation may hold at most 6 passengers.",
                          reason=f"You want to book {n} people on flight {f['flight_number']} on {day}, on one reservation.",
                          instructions=["You insist on a single reservation for the whole group."],
                          opening=f"Please book {n} of us on flight {f['flight_number']} on {day}, all on one booking.",
                          gold=[], naive=[("book_reservation", {
                              "user_id": u["user_id"], "trip_type": "one_way", "origin": f["origin"],
                              "destination": f["destination"], "cabin": A.cab["main"],
                              "flights": [{"flight_number": f["flight_number"], "date": day}],
                              "passengers": [{"first_name": u["first_name"], "last_name": u["last_name"],
                                              "date_of_birth": u["date_of_birth"]}] * n,
                              "payments": [{"method_id": A.card(u),
                                            "amount": money(f["dates"][day]["prices"][A.cab["main"]] * n)}],
                              "total_bags": 0, "free_bags": 0, "bag_fee": 0, "insurance": False, "insurance_fee": 0})],
                          communicate=[str(int(v["max_passengers"]))], facts=[F.value("max_passengers")],
                          value_keys=["max_passengers"]))
        u = next((x for x in users if x["user_id"] not in A.used), users[1])
        A.used.add(u["user_id"])
        kid_dob = dt.date(A.now.year - 10, 5, 2).isoformat()
        out.append(A.base("book-minor-alone", "refuse", u, None,
                          purpose="A passenger under 14 must travel with a passenger aged 18 or more on the same "
                                  "reservation.",
                          reason=f"You want to book your 10-year-old son Leo (born {kid_dob}) alone on "
                                 f"{f['flight_number']} on {day} to visit his grandmother.",
                          opening=f"I'd like to book my 10-year-old on {f['flight_number']} on {day}, travelling alone.",
                          gold=[], naive=[("book_reservation", {
                              "user_id": u["user_id"], "trip_type": "one_way", "origin": f["origin"],
                              "destination": f["destination"], "cabin": A.cab["main"],
                              "flights": [{"flight_number": f["flight_number"], "date": day}],
                              "passengers": [{"first_name": "Leo", "last_name": u["last_name"], "date_of_birth": kid_dob}],
                              "payments": [{"method_id": A.card(u), "amount": f["dates"][day]["prices"][A.cab["main"]]}],
                              "total_bags": 0, "free_bags": 0, "bag_fee": 0, "insurance": False, "insurance_fee": 0})],
                          communicate=[str(int(v["companion_age"]))],
                          facts=[F.value("minor_age"), F.value("companion_age")],
                          value_keys=["minor_age", "companion_age"]))
        gifts_user = next((x for x in users if sum(pm["type"] == "gift_card" and pm["balance"] > 0
                                                   for pm in x["payment_methods"].values()) >= 2), None)
        if gifts_user is not None:
            u = gifts_user
            gcs = [k for k in sorted(u["payment_methods"]) if u["payment_methods"][k]["type"] == "gift_card"
                   and u["payment_methods"][k]["balance"] > 0]
            out.append(A.base("payment-limits-question", "none", u, None,
                              purpose="Explain how many credit cards, gift cards and certificates one reservation "
                                      "may use, and that a certificate's unused remainder is forfeited.",
                              reason="You have several gift cards and a certificate and want to know how you can "
                                     "combine them on one booking.",
                              opening="How many gift cards can I put on one booking? And if I use a travel certificate "
                                      "for less than its value, do I keep the rest?",
                              gold=[("get_user", {"user_id": u["user_id"]})], naive=[],
                              communicate=[str(int(v["max_gift_cards"]))],
                              facts=[F.value("max_gift_cards"), F.value("max_certificates"), F.value("max_credit_cards"),
                                     F.find("unused remainder of a certificate is forfeited"),
                                     F.find("accepts three kinds of payment")],
                              value_keys=["max_gift_cards"], notes=f"Gift cards on file: {', '.join(gcs)}"))
    pair, prem_day = None, ""
    for k in range(3, 21):
        d = (A.now.date() + dt.timedelta(days=k)).isoformat()
        fl = [f for _, f in sorted(A.db["flights"].items()) if d in f["dates"]]
        price = {f["flight_number"]: f["dates"][d]["prices"][A.cab["premier"]] for f in fl}
        for f in fl:
            g = next((x for x in fl if (x["origin"], x["destination"]) == (f["destination"], f["origin"])
                      and (price[f["flight_number"]] + price[x["flight_number"]]) * v["max_passengers"]
                      > v["max_reservation_total"]), None)
            if g is not None:
                pair, prem_day = (f, g), d
                break
        if pair is not None:
            break
    if pair is not None:
        f, g = pair
        u = next((x for x in users if x["user_id"] not in A.used), users[2])
        A.used.add(u["user_id"])
        n = int(v["max_passengers"])
        total = money((f["dates"][prem_day]["prices"][A.cab["premier"]] + g["dates"][prem_day]["prices"][A.cab["premier"]]) * n)
        if total > v["max_reservation_total"]:
            out.append(A.base("book-over-total", "refuse", u, None,
                              purpose="The total charged for one reservation may not exceed $12,000.",
                              reason=f"You want {n} Premier seats {f['origin']} to {f['destination']} and back on "
                                     f"{prem_day}, on one reservation.",
                              opening=f"Book {n} of us in Premier on {f['flight_number']} out and {g['flight_number']} "
                                      f"back, both on {prem_day}, one reservation please.",
                              gold=[("search_flights", {"origin": f["origin"], "destination": f["destination"],
                                                        "date": prem_day})],
                              naive=[("book_reservation", {
                                  "user_id": u["user_id"], "trip_type": "round_trip", "origin": f["origin"],
                                  "destination": f["destination"], "cabin": A.cab["premier"],
                                  "flights": [{"flight_number": f["flight_number"], "date": prem_day},
                                              {"flight_number": g["flight_number"], "date": prem_day}],
                                  "passengers": [{"first_name": u["first_name"], "last_name": u["last_name"],
                                                  "date_of_birth": u["date_of_birth"]}] * n,
                                  "payments": [{"method_id": A.card(u), "amount": total}], "total_bags": 0,
                                  "free_bags": 0, "bag_fee": 0, "insurance": False, "insurance_fee": 0})],
                              communicate=[amount_text(v["max_reservation_total"])],
                              facts=[F.value("max_reservation_total"), F.value("max_flights_per_direction")],
                              value_keys=["max_reservation_total"]))
    return out


# ------------------------------------------------------------------------------ questions

def questions(A: Air) -> list[Optional[Scenario]]:
    v, F, out = A.v, A.F, []
    users = sorted(A.db["users"].values(), key=lambda u: u["user_id"])

    def q(slug, trap, u, purpose, opening, say, facts, keys=(), gold=None, naive=None, **kw):
        return A.base(slug, trap, u, None, purpose=purpose, reason=opening, opening=opening,
                      gold=gold or [("get_user", {"user_id": u["user_id"]})], naive=naive or [],
                      communicate=say, facts=facts, value_keys=list(keys), **kw)

    out.append(q("tier-thresholds", "none", users[3],
                 "Explain the Larkspur Loop tiers, their mileage thresholds and how long a tier lasts.",
                 "How many qualifying miles do I need for Navigator and for Pinnacle, and how long does a tier last "
                 "once I earn it?",
                 [str(int(v["tier_miles_navigator"])), str(int(v["tier_miles_pinnacle"])), "13"],
                 [F.value("tier_miles_voyager"), F.value("tier_miles_navigator"), F.value("tier_miles_pinnacle"),
                  F.find("remains valid for 13 months"), F.find("has four tiers"), F.find("starts at the Wayfarer tier")],
                 ["tier_miles_navigator", "tier_miles_pinnacle"]))
    out.append(q("lite-inclusions", "none", users[4],
                 "Explain the cabins and what a Lite fare includes, with the carry-on size limit.",
                 "What do I get with a Lite fare? Can I bring a carry-on, and how big can it be?",
                 ["45"], [F.find("sells three cabins"), F.find("one personal item and one carry-on bag"),
                          F.find("carry-on bag may measure at most 45")]))
    out.append(q("tripguard-delay-cover", "none", users[5],
                 "Explain what TripGuard pays for a long delay.",
                 "If my flight is delayed a long time, what does TripGuard reimburse for meals and a hotel?",
                 ["150", "6"], [F.find("reimburses up to $150 per passenger")]))
    out.append(q("booking-window", "none", users[6],
                 "Explain how far ahead a flight can be booked and when booking closes.",
                 "How far in advance can I book a flight, and how late before departure can I still book?",
                 [str(int(v["booking_horizon_days"])), str(int(v["booking_close_minutes"]))],
                 [F.value("booking_horizon_days"), F.value("booking_close_minutes")],
                 ["booking_horizon_days", "booking_close_minutes"]))
    out.append(q("refund-timing", "none", users[7],
                 "Explain when refunds arrive by payment method and how long a reissued certificate is valid.",
                 "If I get a refund, how long until it's back on my credit card or my gift card? And a refunded "
                 "certificate, how long is it good for?",
                 ["5 to 7", "24", "12"],
                 [F.value("card_refund_max_business_days"), F.value("gift_card_refund_hours"),
                  F.value("reissued_certificate_months"), F.find("never refunds in cash")],
                 ["card_refund_max_business_days", "gift_card_refund_hours", "reissued_certificate_months"]))
    u = users[8]
    card = A.card(u)
    if card:
        out.append(q("full-card-number-refused", "refuse", u,
                     "Agents never read out a full card number, only the last 4 digits.",
                     "Can you read me the full number of the credit card on my profile? I lost the card.",
                     [u["payment_methods"][card]["last_four"]],
                     [F.find("never read out a full card number")]))
    u = users[9]
    out.append(q("verification-lockout", "none", u,
                 "Explain identity verification and the lock after failed attempts.",
                 "I got my date of birth wrong a couple of times on the phone. How many tries do I get before I'm "
                 "locked out, and for how long? And if I don't know my Loop number?",
                 ["3", "30"], [F.find("After 3 failed verification attempts"),
                               F.find("last 4 digits of a stored credit card")],
                 answers=A.verify_answers(u) + [answer("email", ["email"], f"My email is {u['email']}.")]))
    u = next(x for x in users[11:] if A.tier(x) in ("wayfarer", "voyager"))
    out.append(q("same-day-fee-question", "none", u,
                 "State the flat same-day change fee (free for Navigator and Pinnacle).",
                 "If on the day I fly I want to hop on an earlier flight on the same route, what does that cost me?",
                 [amount_text(v["same_day_fee"])], [F.value("same_day_fee")], ["same_day_fee"]))
    u = users[12]
    out.append(q("four-flights-refused", "refuse", u,
                 "Each direction of a trip may include at most 3 flights.",
                 "I want a cheap trip with four connections on the way out, can you book something like that?",
                 [str(int(v["max_flights_per_direction"]))], [F.value("max_flights_per_direction")],
                 ["max_flights_per_direction"]))
    friend = next((r for r in A.open_reservations(6) if r["user_id"] != users[10]["user_id"]), None)
    if friend is not None:
        u = users[10]
        fu = A.user(friend)
        out.append(A.base("friends-reservation-refused", "refuse", u, None,
                          purpose="An agent serves one verified customer per conversation and only the booking "
                                  "customer may change a reservation.",
                          reason=f"Your friend {fu['name']} asked you to cancel their reservation {friend['reservation_id']}.",
                          opening=f"Hi, I'm calling for my friend {fu['name']}, please cancel {friend['reservation_id']} "
                                  "for them.",
                          gold=[("get_user", {"user_id": u["user_id"]})],
                          naive=[("cancel_reservation", {"reservation_id": friend["reservation_id"],
                                                         "reason": "change_of_plans", "refunds": []})],
                          communicate=[fu["name"].split()[0]],
                          facts=[F.find("only one verified customer per conversation"),
                                 F.find("only the booking customer may change or cancel")]))
    return out
