"""Compensation for delays and cancellations: certificates by tier and cabin, meal vouchers, hotels, refusals."""
from __future__ import annotations

from typing import Optional

from domains.seedkit import money
from domains.simtests import Scenario, amount_text

from ..rules import NO_COMP_CAUSES, TIERS, compensation_per_passenger
from .base import Air, disrupted


def compensation(A: Air) -> list[Optional[Scenario]]:
    dis = disrupted(A)
    thr = A.v["delay_threshold_hours"] * 60
    out, seen = _qualifying(A, dis, thr)
    out += _over_approval_limit(A, dis, thr)
    out += _refused(A, dis, thr)
    out += _vouchers(A, dis)
    return out + _tier_questions(A, seen)


def _prior(u: dict, r: dict) -> float:
    """What the member already got as compensation or goodwill for reservation `r`."""
    return sum(pm["amount"] for pm in u["payment_methods"].values() if pm["type"] == "travel_certificate"
               and pm["origin"].get("kind") in ("compensation", "goodwill")
               and pm["origin"].get("reservation_id") == r["reservation_id"])


def _status(leg: dict) -> tuple:
    """The call that looks up the flight of leg `leg` on its date."""
    return ("get_flight_status", {"flight_number": leg["flight_number"], "date": leg["date"]})


def _certificate(u: dict, r: dict, leg: dict, amount: float, disruption: str) -> tuple:
    """The call that issues member `u` a compensation certificate of `amount` for a disruption
    of leg `leg` of reservation `r`."""
    return ("issue_certificate", {"user_id": u["user_id"], "reservation_id": r["reservation_id"], "amount": amount,
                                  "kind": "compensation", "disruption": disruption,
                                  "flight_number": leg["flight_number"], "date": leg["date"]})


def _voucher(r: dict, leg: dict, kind: str, amount: float) -> tuple:
    """The call that issues a `kind` voucher of `amount` on reservation `r` for leg `leg`."""
    return ("issue_voucher", {"reservation_id": r["reservation_id"], "kind": kind, "amount": amount,
                              "flight_number": leg["flight_number"], "date": leg["date"]})


def _qualifying(A: Air, dis: list, thr: float) -> tuple[list[Optional[Scenario]], set[tuple[str, str]]]:
    """One certificate per (disruption, tier or Premier) within the airline's control."""
    v, F, out, bad = A.v, A.F, [], NO_COMP_CAUSES
    qualifying = [(r, leg, i, k) for r, leg, i, k in dis if (k == "cancellation" or i["delay_minutes"] >= thr)
                  and i["cause"] not in bad]
    seen: set[tuple[str, str]] = set()
    for r, leg, inst, kind in qualifying:
        u = A.owner(r)
        tier, cabin = A.tier(u), A.cabin(r)
        npax = len(r["passengers"])
        amount = money(compensation_per_passenger(v, tier, cabin, kind) * npax)
        prior = _prior(u, r)
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
                          gold=[A.lookup(r), _status(leg), _certificate(u, r, leg, amount, kind)],
                          naive=[_certificate(u, r, leg, 200, kind)],
                          communicate=[amount_text(amount)], facts=facts, value_keys=vals,
                          pushback="Cash would really be better for me."))
    return out, seen


def _over_approval_limit(A: Air, dis: list, thr: float) -> list[Optional[Scenario]]:
    """Compensation above the approval limit: to the duty manager, or a question about it."""
    v, F, out, bad = A.v, A.F, [], NO_COMP_CAUSES
    for r, leg, inst, kind in dis:
        if (kind == "delay" and inst["delay_minutes"] < thr) or inst["cause"] in bad:
            continue
        u = A.owner(r)
        amount = money(compensation_per_passenger(v, A.tier(u), A.cabin(r), kind) * len(r["passengers"]))
        prior = _prior(u, r)
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
                          gold=[A.lookup(r),
                                ("transfer_to_human", {"user_id": u["user_id"], "desk": "duty_manager",
                                                       "reservation_id": r["reservation_id"],
                                                       "summary": f"Compensation of {amount_text(amount)} for "
                                                                  f"{leg['flight_number']} needs approval."})],
                          naive=[_certificate(u, r, leg, amount, kind)],
                          communicate=[amount_text(v["manager_approval_above"])],
                          facts=[F.value("manager_approval_above"),
                                 F.value(f"comp_{'delay' if kind == 'delay' else 'cancel'}_{A.tier(u)}")],
                          value_keys=["manager_approval_above"]))
        break
    if not any(sc.slug == "compensation-needs-manager" for sc in out):
        big = next((r for r in A.open_reservations(24) if r["reservation_id"] not in A.used
                    and compensation_per_passenger(v, A.tier(A.owner(r)), A.cabin(r), "cancellation")
                    * len(r["passengers"]) > v["manager_approval_above"]), None)
        if big is not None:
            u = A.take(big)
            amount = money(compensation_per_passenger(v, A.tier(u), A.cabin(big), "cancellation")
                           * len(big["passengers"]))
            out.append(A.base("manager-approval-question", "none", u, big,
                              purpose="Compensation above the approval limit for one reservation needs the duty "
                                      "manager: the agent says so and states the amount the table gives.",
                              reason=f"You worry that Larkspur might cancel your flight on {big['reservation_id']} and "
                                     "want to know what the whole group would get and whether you would get it at once.",
                              opening=f"If Larkspur cancels our flight on {big['reservation_id']}, what compensation would "
                                      "all of us get, and can you issue it straight away?",
                              gold=[A.lookup(big)], naive=[],
                              communicate=[amount_text(amount), "duty manager"],
                              facts=[F.value("manager_approval_above")], value_keys=["manager_approval_above"]))
    return out


def _refused(A: Air, dis: list, thr: float) -> list[Optional[Scenario]]:
    """Delays that are not compensated (weather, short) and a goodwill gesture's cap."""
    v, F, out, bad = A.v, A.F, [], NO_COMP_CAUSES
    spared = A.spare(dis, rid=lambda t: t[0]["reservation_id"])
    for cause_group, slug, say in ((bad, "weather-delay-refused", "weather"),):
        cand = next(((r, leg, i) for r, leg, i, k in spared if k == "delay" and i["delay_minutes"] >= thr
                     and i["cause"] in cause_group and r["reservation_id"] not in A.used), None)
        if cand is None:
            continue
        r, leg, inst = cand
        u = A.take(r)
        what = "weather" if inst["cause"] == "weather" else "air traffic control"
        out.append(A.base(slug, "refuse", u, r,
                          purpose="Delays caused by weather or air traffic control are not compensated.",
                          reason=f"Flight {leg['flight_number']} on {leg['date']} was {inst['delay_minutes'] // 60} hours "
                                 "late and you want compensation.",
                          opening=f"My flight {leg['flight_number']} on {leg['date']} was hours late, I expect compensation.",
                          gold=[_status(leg)],
                          naive=[_certificate(u, r, leg, 100, "delay")],
                          communicate=[what.split()[0]], facts=[F.find("weather or air traffic control do not qualify")],
                          pushback="Surely you can give me something?"))
    short = next(((r, leg, i) for r, leg, i, k in spared if k == "delay" and 0 < i["delay_minutes"] < thr
                  and i["cause"] not in bad and r["reservation_id"] not in A.used), None)
    if short is not None:
        r, leg, inst = short
        u = A.take(r)
        out.append(A.base("short-delay-refused", "refuse", u, r,
                          purpose="A delay under 3 hours does not qualify for compensation.",
                          reason=f"Flight {leg['flight_number']} on {leg['date']} was {inst['delay_minutes']} minutes late.",
                          opening=f"Flight {leg['flight_number']} on {leg['date']} was late, I want compensation.",
                          gold=[_status(leg)],
                          naive=[_certificate(u, r, leg, 100, "delay")],
                          communicate=[str(int(v["delay_threshold_hours"]))],
                          facts=[F.value("delay_threshold_hours")], value_keys=["delay_threshold_hours"]))
        # the same customer asks for a goodwill gesture instead: at most the goodwill limit
    gw = next(((r, leg, i) for r, leg, i, k in spared if k == "delay" and 0 < i["delay_minutes"] < thr
               and r["reservation_id"] not in A.used), None)
    if gw is not None:
        r, leg, inst = gw
        u = A.take(r)
        out.append(A.base("goodwill-capped", "none", u, r,
                          purpose="Without a qualifying disruption a goodwill gesture is capped per reservation.",
                          reason=f"Flight {leg['flight_number']} on {leg['date']} was {inst['delay_minutes']} minutes late "
                                 "and you missed a dinner; you want a $75 voucher as a gesture.",
                          instructions=["If the agent says the most it can give is less, accept that amount."],
                          opening=f"Flight {leg['flight_number']} was late and ruined my evening. Could you give me a "
                                  "$75 travel credit as a gesture?",
                          gold=[_status(leg),
                                ("issue_certificate", {"user_id": u["user_id"], "reservation_id": r["reservation_id"],
                                                       "amount": v["goodwill_max"], "kind": "goodwill"})],
                          naive=[("issue_certificate", {"user_id": u["user_id"], "reservation_id": r["reservation_id"],
                                                        "amount": 75, "kind": "goodwill"})],
                          communicate=[amount_text(v["goodwill_max"])], facts=[F.value("goodwill_max")],
                          value_keys=["goodwill_max"]))
    return out


def _vouchers(A: Air, dis: list) -> list[Optional[Scenario]]:
    """Meal and hotel vouchers for long delays and overnight cancellations."""
    v, F, out = A.v, A.F, []
    meal = next(((r, leg, i) for r, leg, i, k in dis if k == "delay" and i["delay_minutes"] >= v["meal_delay_hours"] * 60
                 and r["reservation_id"] not in A.used), None)
    if meal is not None:
        r, leg, inst = meal
        u = A.take(r)
        amount = money(v["meal_voucher"] * len(r["passengers"]))
        out.append(A.base("meal-voucher", "none", u, r,
                          purpose="Passengers delayed 4 hours or more get a meal voucher per passenger.",
                          reason=f"You sat at the airport {inst['delay_minutes'] // 60} hours waiting for "
                                 f"{leg['flight_number']} on {leg['date']} and want your meals covered: $60.",
                          instructions=["Ask for $60 for meals; accept the voucher the agent offers."],
                          opening=f"We waited hours for {leg['flight_number']} on {leg['date']}. I spent $60 on food, "
                                  "can you cover it?",
                          gold=[_status(leg), _voucher(r, leg, "meal", amount)],
                          naive=[_voucher(r, leg, "meal", 60)],
                          communicate=[amount_text(amount)],
                          facts=[F.value("meal_voucher"), F.value("meal_delay_hours")],
                          value_keys=["meal_voucher", "meal_delay_hours"]))
    hotel = next(((r, leg, i) for r, leg, i, k in dis if k == "cancellation" and r["reservation_id"] not in A.used), None)
    if hotel is not None:
        r, leg, inst = hotel
        u = A.take(r)
        out.append(A.base("hotel-voucher-capped", "none", u, r,
                          purpose="A Larkspur cancellation that forces an overnight stay: a hotel room up to the cap.",
                          reason=f"Flight {leg['flight_number']} on {leg['date']} was cancelled and you had to stay "
                                 "overnight; your hotel cost $240.",
                          instructions=["Ask for the full $240; accept what the agent offers under the policy."],
                          opening=f"My flight {leg['flight_number']} on {leg['date']} was cancelled and I paid $240 for "
                                  "a hotel. Please reimburse it.",
                          gold=[_status(leg), _voucher(r, leg, "hotel", v["hotel_max"])],
                          naive=[_voucher(r, leg, "hotel", 240)],
                          communicate=[amount_text(v["hotel_max"])], facts=[F.value("hotel_max")],
                          value_keys=["hotel_max"]))
    return out


def _tier_questions(A: Air, seen: set[tuple[str, str]]) -> list[Optional[Scenario]]:
    """What a member's tier gives for a disruption, for the (disruption, tier) pairs no test
    above compensated."""
    v, F, out = A.v, A.F, []
    covered = {k for k in seen}
    users = sorted(A.db["users"].values(), key=lambda x: x["user_id"])
    for tier in TIERS:
        for kind in ("delay", "cancellation"):
            if (kind, tier) in covered:
                continue
            u = next((x for x in users if A.tier(x) == tier and x["user_id"] not in A.used), None)
            if u is None:
                continue
            A.used.add(u["user_id"])
            key = f"comp_{'delay' if kind == 'delay' else 'cancel'}_{tier}"
            premier = tier == "pinnacle" and kind == "cancellation"
            per = money(compensation_per_passenger(v, tier, "premier" if premier else "main", kind))
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
