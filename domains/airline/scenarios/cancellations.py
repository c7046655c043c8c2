"""Cancellations: the risk-free window, cancellation fees by cabin and tier, TripGuard, refusals."""
from __future__ import annotations

import datetime as dt
from typing import Optional

from domains.seedkit import parse_ts
from domains.simtests import Scenario, amount_text, answer

from .base import Air


def _cancel(A: Air, slug: str, trap: str, r: dict, reason: str, *, purpose: str, facts: list[str],
            user_reason: str, values: list[str], say_amount: bool = True, **kw) -> Scenario:
    u = A.owner(r)
    due, _ = A.refund_due(r, reason)
    full = A.full_amount(r)
    gold = [A.lookup(r), A.cancellation(r, due, reason)]
    naive = [A.cancellation(r, full, reason)]
    return A.base(slug, trap, u, r, purpose=purpose, reason=user_reason,
                  opening=f"Hi, I need to cancel my reservation {r['reservation_id']} and get my money back.",
                  instructions=["You want to cancel the whole reservation.",
                                "Accept the refund the agent offers after asking once whether you can get everything back."],
                  gold=gold, naive=naive, communicate=[amount_text(due)] if say_amount else [],
                  answers=A.answers(u, r) + [answer("cancel_reason", ["reason", "why"],
                                                           "I was called for jury duty." if reason == "covered_reason"
                                                           else "My plans changed.")],
                  facts=facts, value_keys=values, pushback="Are you sure I can't get the full amount back?", **kw)


def cancellations(A: Air) -> list[Optional[Scenario]]:
    opens = A.spare(A.open_reservations())
    out = _inside_window(A, opens)
    out += _after_window(A, [r for r in opens if not _booked_within(A, r, A.v["risk_free_hours"] + 1)])
    return out + _after_departure(A)


def _booked_within(A: Air, r: dict, hours: float) -> bool:
    return A.now - parse_ts(r["created_at"]) <= dt.timedelta(hours=hours)


def _inside_window(A: Air, opens: list[dict]) -> list[Optional[Scenario]]:
    """Booked within the risk-free hours: all back when the trip is far enough out, else the
    normal rules."""
    v, F, out = A.v, A.F, []
    hours = v["risk_free_hours"]

    def far(r):
        return A.dep(r["flights"][0]) - parse_ts(r["created_at"]) >= dt.timedelta(days=v["risk_free_min_days"])

    risk_free = [r for r in opens if _booked_within(A, r, hours) and far(r) and not r["changes"]]
    for r in risk_free[:2]:
        A.used.add(r["reservation_id"])
        out.append(_cancel(A, "cancel-risk-free", "none", r, "change_of_plans",
                           purpose="Cancel within the 24-hour risk-free window: everything is refunded.",
                           facts=[F.value("risk_free_hours"), F.value("risk_free_min_days"),
                                  F.find("offers a 24-hour risk-free window"),
                                  F.find("premium is refunded only"), F.find("Bag fees are refunded only")],
                           user_reason=f"You booked {r['reservation_id']} a few hours ago and your plans changed.",
                           values=["risk_free_hours", "risk_free_min_days"], say_amount=False))
    too_close = [r for r in opens if _booked_within(A, r, hours) and not far(r)]
    for r in too_close[:2]:
        A.used.add(r["reservation_id"])
        cab = A.cabin(r)
        if cab == "lite":
            u = A.owner(r)
            out.append(A.base("cancel-lite-inside-week", "refuse", u, r,
                              purpose="Booked hours ago but flying within a week: no risk-free refund, and Lite is "
                                      "not refundable, so the customer keeps the trip.",
                              reason=f"You booked {r['reservation_id']} this morning and want to cancel it for a refund.",
                              instructions=["You only want to cancel if you get a refund; otherwise keep the trip."],
                              opening=f"I booked {r['reservation_id']} just a few hours ago, please cancel it and refund me.",
                              gold=[A.lookup(r)],
                              naive=[A.cancellation(r, A.full_amount(r))],
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
    return out


def _after_window(A: Air, late: list[dict]) -> list[Optional[Scenario]]:
    """After the risk-free window: the cancellation fee by cabin and tier, TripGuard, Lite."""
    v, F, out = A.v, A.F, []
    main_fee = [r for r in late if A.cabin(r) == "main" and A.tier(A.owner(r)) in ("wayfarer", "voyager")]
    for r in main_fee[:3]:
        out.append(_cancel(A, "cancel-main-fee", "fee", A.pick([r]) or r, "change_of_plans",
                           purpose="Cancel a Main reservation after the risk-free window: fares minus the "
                                   "per-passenger cancellation fee; bags and TripGuard are not refunded.",
                           facts=[F.value("cancel_fee_main"), F.find("Bag fees are refunded only"),
                                  F.value("card_refund_max_business_days")],
                           user_reason=f"You can no longer travel on {r['reservation_id']}.",
                           values=["cancel_fee_main"]))
    main_free = [r for r in late if A.cabin(r) == "main" and A.tier(A.owner(r)) in ("navigator", "pinnacle")
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
        u = A.take(r)
        out.append(A.base("cancel-lite-refused", "refuse", u, r,
                          purpose="A Lite fare after the risk-free window is not refundable; the customer keeps it.",
                          reason=f"You want to cancel {r['reservation_id']} and get a refund.",
                          instructions=["You only cancel if you get money back; otherwise keep the reservation."],
                          opening=f"Please cancel {r['reservation_id']} and refund my card.",
                          gold=[A.lookup(r)],
                          naive=[A.cancellation(r, A.full_amount(r))],
                          communicate=["Lite"], facts=[F.find("A Lite fare is not refundable"),
                                                       F.value("risk_free_hours")],
                          value_keys=["risk_free_hours"], pushback="Can't you make an exception?"))
    return out


def _after_departure(A: Air) -> list[Optional[Scenario]]:
    """A round trip whose first flight has left cannot be cancelled."""
    F, out = A.F, []
    departed = A.spare([r for _, r in sorted(A.db["reservations"].items()) if r["cancellation"] is None
                        and r["trip_type"] == "round_trip" and A.dep(r["flights"][0]) < A.now < A.dep(r["flights"][-1])])
    for r in departed[:1]:
        u = A.owner(r)
        out.append(A.base("cancel-after-departure", "refuse", u, r,
                          purpose="A reservation whose first flight has departed cannot be cancelled.",
                          reason=f"You flew out on {r['reservation_id']} and want to cancel the return for a refund.",
                          opening=f"I'd like to cancel the return part of {r['reservation_id']} and get a refund.",
                          gold=[A.lookup(r)],
                          naive=[A.cancellation(r, A.full_amount(r))],
                          communicate=[A.dep(r["flights"][0]).date().isoformat()],
                          facts=[F.find("cannot be cancelled after any of its flights"),
                                                   F.find("single flights cannot be cancelled")]))
    return out
