"""Flight changes: change fees by cabin and tier, fare differences, same-day changes."""
from __future__ import annotations

import datetime as dt
from typing import Optional

from domains.seedkit import money
from domains.simtests import Scenario, amount_text

from ..rules import change_fee, departure_at
from .base import Air


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
    opens = [r for r in A.open_reservations(4) if r["reservation_id"] not in A.used and not r["changes"]]
    out = _fee_cells(A, opens)
    out += _refused(A, opens)
    return out + _same_day(A)


def _fee_cells(A: Air, opens: list[dict]) -> list[Optional[Scenario]]:
    """Move a reservation one day later once per cabin x tier: the change fee of the cell plus
    the fare difference."""
    v, F, out = A.v, A.F, []
    combos: set[tuple[str, str]] = set()
    for r in opens:
        u = A.owner(r)
        tier, cabin = A.tier(u), A.cabin(r)
        if cabin == "lite" or (cabin, tier) in combos or A.card(u) is None:
            continue
        new = _shift(A, r, 1)
        if new is None:
            continue
        combos.add((cabin, tier))
        A.used.add(r["reservation_id"])
        npax = len(r["passengers"])
        fee = money(change_fee(v, cabin, tier) * npax)
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
                          gold=[A.lookup(r),
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
    return out


def _refused(A: Air, opens: list[dict]) -> list[Optional[Scenario]]:
    """Changes the policy refuses: a Lite fare, past the cut-off, another route."""
    v, F, out = A.v, A.F, []
    lite = next((r for r in opens if A.cabin(r) == "lite" and r["reservation_id"] not in A.used
                 and _shift(A, r, 1)), None)
    if lite is not None:
        u = A.take(lite)
        new = _shift(A, lite, 1)
        out.append(A.base("change-lite-refused", "refuse", u, lite,
                          purpose="Flights on a Lite reservation cannot be changed.",
                          reason=f"You want to move {lite['reservation_id']} one day later.",
                          opening=f"I need to fly a day later on {lite['reservation_id']}, can you change it?",
                          gold=[A.lookup(lite)],
                          naive=[("change_flights", {"reservation_id": lite["reservation_id"],
                                                     "change_type": "flight_change",
                                                     "flights": [{"flight_number": x["flight_number"], "date": x["date"]}
                                                                 for x in new],
                                                     "change_fee": 0, "fare_difference": 0})],
                          communicate=[lite["cabin"]], facts=[F.find("Flights on a Lite reservation cannot be changed")]))
    soon = [r for r in A.open_reservations(0) if r["reservation_id"] not in A.used and A.cabin(r) != "lite"
            and A.dep(r["flights"][0]) - A.now < dt.timedelta(minutes=v["change_cutoff_minutes"])]
    for r in soon[:1]:
        u = A.take(r)
        new = _shift(A, r, 1)
        if new is None:
            continue
        out.append(A.base("change-too-late", "refuse", u, r,
                          purpose="A flight change must be done at least 60 minutes before departure.",
                          reason=f"You are running late for {r['reservation_id']} and want tomorrow's flight instead.",
                          opening=f"I'm stuck in traffic, can you move {r['reservation_id']} to tomorrow?",
                          gold=[A.lookup(r)],
                          naive=[("change_flights", {"reservation_id": r["reservation_id"], "change_type": "flight_change",
                                                     "flights": [{"flight_number": x["flight_number"], "date": x["date"]}
                                                                 for x in new],
                                                     "change_fee": 0, "fare_difference": 0})],
                          communicate=[str(int(v["change_cutoff_minutes"]))],
                          facts=[F.value("change_cutoff_minutes")], value_keys=["change_cutoff_minutes"]))
    route = next((r for r in opens if r["reservation_id"] not in A.used and A.cabin(r) == "main"
                  and r["trip_type"] == "one_way" and len(r["flights"]) == 1), None)
    if route is not None:
        u = A.take(route)
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
                              gold=[A.lookup(route)],
                              naive=[("change_flights", {"reservation_id": route["reservation_id"],
                                                         "change_type": "flight_change",
                                                         "flights": [{"flight_number": alt["flight_number"],
                                                                      "date": leg["date"]}],
                                                         "change_fee": 0, "fare_difference": 0})],
                              communicate=[A.db["flights"][leg["flight_number"]]["destination_city"]],
                              facts=[F.find("as long as the origin, the destination and the trip type stay the same")]))
    return out


def _same_day(A: Air) -> list[Optional[Scenario]]:
    """Another flight on the same route today: the flat same-day fee, free for the top tiers."""
    v, F, out = A.v, A.F, []
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
                and departure_at(g, today) > A.now + dt.timedelta(minutes=v["change_cutoff_minutes"] + 30)]
        if alts:
            sd.append((r, alts[0]))
    for r, g in sd[:3]:
        u = A.take(r)
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
                          gold=[A.lookup(r),
                                ("search_flights", {"origin": g["origin"], "destination": g["destination"], "date": today}),
                                ("change_flights", args)],
                          naive=[("change_flights", {**args, "change_fee": 0})],
                          communicate=[amount_text(fee)] if fee else [],
                          facts=[F.value("same_day_fee"), F.find("Same-day changes are free for Navigator"),
                                 F.find("Same-day changes do not charge a fare difference")],
                          value_keys=["same_day_fee"]))
    return out
