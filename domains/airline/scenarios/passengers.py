"""Names and passengers: a name correction; a name transfer, an added passenger and TripGuard
after booking refused."""
from __future__ import annotations

from typing import Optional

from domains.seedkit import money
from domains.simtests import Scenario

from .base import Air


def names_and_passengers(A: Air) -> list[Optional[Scenario]]:
    v, F, out = A.v, A.F, []
    opens = [r for r in A.open_reservations(6) if r["reservation_id"] not in A.used]
    r = next((x for x in opens if x["reservation_id"] not in A.used), None)
    if r is not None:
        u = A.take(r)
        p = r["passengers"][0]
        typo_first = p["first_name"][:-2] + p["first_name"][-1] + p["first_name"][-2] if len(p["first_name"]) > 2 else None
        if typo_first and typo_first != p["first_name"]:
            # the reservation carries a typo the customer wants fixed
            out.append(_name_fix(A, u, r, p, typo_first))
    r = next((x for x in opens if x["reservation_id"] not in A.used), None)
    if r is not None:
        u = A.take(r)
        out.append(A.base("name-transfer-refused", "refuse", u, r,
                          purpose="A reservation cannot be transferred to a different person.",
                          reason=f"You cannot travel and want your colleague Jordan Whitfield to fly on "
                                 f"{r['reservation_id']} instead of {r['passengers'][0]['first_name']}.",
                          opening=f"Can you put my colleague Jordan Whitfield on {r['reservation_id']} in place of "
                                  f"{r['passengers'][0]['first_name']} {r['passengers'][0]['last_name']}?",
                          gold=[A.lookup(r)],
                          naive=[("correct_passenger_name", {"reservation_id": r["reservation_id"],
                                                             "passenger_index": 0, "first_name": "Jordan",
                                                             "last_name": "Whitfield"})],
                          communicate=[f"{r['passengers'][0]['first_name']} {r['passengers'][0]['last_name']}"],
                          facts=[F.find("cannot be transferred to a different person")]))
    r = next((x for x in opens if x["reservation_id"] not in A.used and len(x["passengers"]) < v["max_passengers"]
              and A.card(A.owner(x))), None)
    if r is not None:
        u = A.take(r)
        fare = money(sum(x["price"] for x in r["flights"]))
        out.append(A.base("add-passenger-refused", "refuse", u, r,
                          purpose="Passengers cannot be added to a reservation after booking; a new booking is needed.",
                          reason=f"Your sister Ana Whitfield (born 1991-03-14) wants to join you on {r['reservation_id']}.",
                          opening=f"My sister wants to come along, can you add her to {r['reservation_id']}?",
                          gold=[A.lookup(r)],
                          naive=[("add_passenger", {"reservation_id": r["reservation_id"],
                                                    "passenger": {"first_name": "Ana", "last_name": "Whitfield",
                                                                  "date_of_birth": "1991-03-14"},
                                                    "fare": fare, "payment_method_id": A.card(u)})],
                          communicate=["new reservation"],
                          facts=[F.find("Passengers cannot be added to or removed")]))
    r = next((x for x in opens if x["reservation_id"] not in A.used and not x["insurance"]
              and A.card(A.owner(x))), None)
    if r is not None:
        u = A.take(r)
        out.append(A.base("add-tripguard-refused", "refuse", u, r,
                          purpose="TripGuard can only be bought at booking, never added later.",
                          reason=f"You want to add TripGuard insurance to {r['reservation_id']}.",
                          opening=f"I'd like to add TripGuard to {r['reservation_id']}, how much is it?",
                          gold=[A.lookup(r)],
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
                  gold=[A.lookup(r),
                        ("correct_passenger_name", {"reservation_id": r["reservation_id"], "passenger_index": 0,
                                                    "first_name": typo, "last_name": p["last_name"]})],
                  naive=[("correct_passenger_name", {"reservation_id": r["reservation_id"], "passenger_index": 0,
                                                     "first_name": typo, "last_name": p["last_name"]})],
                  facts=[A.F.value("name_correction_max_chars"), A.F.find("at least 2 hours before departure")],
                  value_keys=["name_correction_max_chars"])
