"""New bookings: fares, passengers, TripGuard, payment methods and their limits."""
from __future__ import annotations

import datetime as dt
from typing import Optional

from domains.seedkit import money
from domains.simtests import Scenario, amount_text

from ..rules import free_bags
from .base import Air


def booking(A: Air) -> list[Optional[Scenario]]:
    day = (A.now.date() + dt.timedelta(days=9)).isoformat()
    flights = [f for _, f in sorted(A.db["flights"].items()) if day in f["dates"]
               and f["dates"][day]["status"] == "scheduled" and (f["dates"][day]["seats_available"] or {}).get(
                   A.cab["main"], 0) >= 2]
    users = [u for _, u in sorted(A.db["users"].items()) if A.card(u)]
    out = _one_way(A, day, flights, users)
    if flights:
        out += _refused_and_limits(A, day, flights[-1], users)
    return out + _over_total(A, users)


def _one_way(A: Air, day: str, flights: list[dict], users: list[dict]) -> list[Optional[Scenario]]:
    """Book a one-way Main trip for three tiers: the fare, bags beyond the allowance, TripGuard."""
    v, F, out = A.v, A.F, []
    for i, (tier_pick, ins) in enumerate((("voyager", True), ("navigator", False), ("wayfarer", False))):
        u = next((x for x in users if A.tier(x) == tier_pick and x["user_id"] not in A.used), None)
        if u is None or i >= len(flights):
            continue
        A.used.add(u["user_id"])
        f = flights[i * 3]
        price = f["dates"][day]["prices"][A.cab["main"]]
        free = free_bags(v, tier_pick, "main")
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
    return out


def _refused_and_limits(A: Air, day: str, f: dict, users: list[dict]) -> list[Optional[Scenario]]:
    """Too many passengers, a minor alone, and how payment methods combine."""
    v, F, out = A.v, A.F, []
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
    return out


def _over_total(A: Air, users: list[dict]) -> list[Optional[Scenario]]:
    """Premier for the most passengers allowed, over the reservation total: refused."""
    v, F, out = A.v, A.F, []
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
