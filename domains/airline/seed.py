"""Seed database for the airline domain: users, flights and reservations obeying the policy.

Tables (dicts keyed by id): `flights` (schedule plus a per-date record of status, delay,
cause, seat prices and seats left per cabin), `users` (Larkspur Loop tier, qualifying
miles, address, stored payment methods including gift cards and travel certificates) and
`reservations` (passengers, flights with the price paid, bags and their fees, TripGuard,
changes, payment history, cancellation and refunds). Every fee, allowance, refund and
compensation amount follows the policy values (`rules.py`); `check.py` recomputes them.
"""
from __future__ import annotations

import datetime as dt
import random
from typing import Any

from domains.seedgen import SeedGen, price_scale_of
from domains.seedkit import add_business_days, add_months, age_on, customer_names, money, parse_ts
from facts.errors import FactforgeError

from .rules import (AIRPORTS, CABINS, NO_COMP_CAUSES, TIERS, arrival_at, bag_fee_each, change_fee,
                    compensation_per_passenger, departure_at, free_bags, names, refund_due, split_refund,
                    values_with)

# (airport a, airport b, block minutes, Main base fare, daily departures each way)
ROUTES: list[tuple[str, str, int, int, int]] = [
    ("DEN", "ORD", 150, 189, 3), ("DEN", "SEA", 165, 169, 2), ("DEN", "SFO", 160, 179, 2),
    ("DEN", "LAX", 150, 159, 2), ("DEN", "PHX", 105, 119, 1), ("DEN", "DFW", 120, 139, 2),
    ("DEN", "MSP", 125, 129, 1), ("ORD", "DFW", 150, 149, 1), ("ORD", "MSP", 85, 109, 2),
    ("ORD", "ATL", 120, 149, 2), ("ORD", "BOS", 135, 169, 2), ("ORD", "JFK", 140, 179, 2),
    ("ORD", "MIA", 185, 199, 1), ("LAX", "JFK", 330, 299, 1), ("SFO", "BOS", 335, 309, 1),
]

_STREETS = ["Aspen Ridge Rd", "Willow Bend Dr", "Harbor View Ln", "Juniper Ct", "Mill Creek Way",
            "Oak Hollow Ave", "Prairie Wind Blvd", "Sable Point Rd", "Cedar Knoll St", "Lantern Hill Dr",
            "Bluebird Ln", "Granite Pass Rd", "Maple Terrace", "Riverstone Pkwy", "Copper Leaf Ct"]
_CARD_BRANDS = ["visa", "mastercard", "amex", "discover"]
_MAIL_HOSTS = ["mailbox.example", "inbox.example", "postbox.example"]
_AIRCRAFT = ["A220-300", "A321neo", "737-800", "737 MAX 8", "E175"]


CELL_FLOOR = 2
CELL_MIN_HOURS = 12


def has_credit_card(user: dict) -> bool:
    return any(pm["type"] == "credit_card" for pm in user["payment_methods"].values())


def cell_rows(flights: dict, users: dict, reservations: dict, cab_key: dict, tier_key: dict,
              now: dt.datetime) -> dict[tuple[str, str], list[str]]:
    """(tier key, cabin key) -> ids, sorted, of the reservations that count toward CELL_FLOOR."""
    out: dict[tuple[str, str], list[str]] = {(t, c): [] for t in TIERS for c in CABINS}
    for rid in sorted(reservations):
        r = reservations[rid]
        u = users[r["user_id"]]
        first = r["flights"][0]
        if (r["cancellation"] is not None or r["changes"]
                or departure_at(flights[first["flight_number"]], first["date"]) <= now + dt.timedelta(hours=CELL_MIN_HOURS)
                or not has_credit_card(u)):
            continue
        out[(tier_key[u["membership"]["tier"]], cab_key[r["cabin"]])].append(rid)
    return out


# ---------------------------------------------------------------- generation

class _Gen(SeedGen):
    def __init__(self, pack, seed: int, v: dict, price_scale: float):
        super().__init__(pack, seed, v, price_scale)
        self.cab, _, self.tier_name, _ = names(pack)
        self.flights: dict[str, dict] = {}
        self.users: dict[str, dict] = {}
        self.reservations: dict[str, dict] = {}
        self._pay_seq = 0

    def pay_id(self) -> str:
        self._pay_seq += 1
        return f"{self.prefix('payment', 'PY')}{100000 + self._pay_seq}"

    # flights -------------------------------------------------------------
    def build_flights(self) -> None:
        rng, pre = self.rng, self.prefix("flight", "LA")
        num = 101
        dates = [self.today + dt.timedelta(days=d) for d in range(-10, 22)]
        for a, b, minutes, base, daily in ROUTES:
            for o, d in ((a, b), (b, a)):
                hub_out = o in ("DEN", "ORD") and d not in ("DEN", "ORD")
                slots = sorted(rng.sample(range(0, 12), daily))
                for s in slots:
                    if hub_out:
                        hh = 12 + s // 2
                    elif d in ("DEN", "ORD") and o not in ("DEN", "ORD"):
                        hh = 6 + s // 3
                    else:
                        hh = 7 + s
                    dep = f"{hh:02d}:{rng.choice(range(0, 60, 5)):02d}"
                    fn = f"{pre}{num}"
                    num += rng.choice([2, 3, 4])
                    f = {"flight_number": fn, "origin": o, "destination": d,
                         "origin_city": AIRPORTS[o][0], "destination_city": AIRPORTS[d][0],
                         "departure_local": dep, "duration_minutes": minutes + rng.choice([-5, 0, 5, 10]),
                         "aircraft": rng.choice(_AIRCRAFT), "dates": {}}
                    arr = arrival_at(f, dates[0].isoformat()).astimezone(
                        dt.timezone(dt.timedelta(hours=AIRPORTS[d][3])))
                    f["arrival_local"] = arr.strftime("%H:%M")
                    f["arrival_day_offset"] = (arr.date() - dates[0]).days
                    for day in dates:
                        f["dates"][day.isoformat()] = self._instance(f, day, base)
                    self.flights[fn] = f

    def _instance(self, f: dict, day: dt.date, base: int) -> dict:
        rng = self.rng
        dep = departure_at(f, day.isoformat())
        arr = dep + dt.timedelta(minutes=f["duration_minutes"])
        factor = rng.uniform(0.8, 1.45)
        main = int(round(base * factor * self.price_scale))
        prices = {self.cab["lite"]: int(round(main * 0.72)), self.cab["main"]: main,
                  self.cab["premier"]: int(round(main * 2.6 + 40))}
        rec: dict[str, Any] = {"status": "scheduled", "delay_minutes": 0, "cause": None,
                               "cancelled_at": None, "prices": prices, "seats_available": None}
        roll = rng.random()
        if roll < 0.02 and day <= self.today + dt.timedelta(days=3):
            rec["status"] = "cancelled"
            rec["cause"] = rng.choice(["mechanical", "crew", "weather", "mechanical"])
            latest = min(dep - dt.timedelta(hours=3), self.now - dt.timedelta(hours=1))
            rec["cancelled_at"] = self.ts(latest - dt.timedelta(minutes=rng.randint(0, 36 * 60)))
            return rec
        if roll < 0.12:
            rec["delay_minutes"] = rng.choice([35, 50, 75, 95, 120, 150])
            rec["cause"] = rng.choice(["weather", "air_traffic_control", "crew", "mechanical"])
        elif roll < 0.22:
            rec["delay_minutes"] = rng.choice([185, 200, 230, 255, 290, 340])
            rec["cause"] = rng.choice(["weather", "air_traffic_control", "crew", "mechanical", "mechanical"])
        actual_dep = dep + dt.timedelta(minutes=rec["delay_minutes"])
        actual_arr = arr + dt.timedelta(minutes=rec["delay_minutes"])
        if actual_arr <= self.now:
            rec["status"] = "landed"
        elif actual_dep <= self.now:
            rec["status"] = "departed"
        elif rec["delay_minutes"] and dep - self.now < dt.timedelta(days=1):
            rec["status"] = "delayed"
        else:
            rec["delay_minutes"], rec["cause"] = 0, None
            rec["seats_available"] = {self.cab[c]: rng.randint(0, n) for c, n in
                                      (("lite", 30), ("main", 90), ("premier", 16))}
        if rec["status"] == "delayed":
            rec["seats_available"] = {self.cab[c]: rng.randint(0, n) for c, n in
                                      (("lite", 10), ("main", 30), ("premier", 6))}
        return rec

    def itineraries(self) -> list[list[str]]:
        """Direct flights and one-stop connections (same day, at least 45 minutes)."""
        its = [[fn] for fn in sorted(self.flights)]
        day = self.today.isoformat()
        for f1 in sorted(self.flights):
            a = self.flights[f1]
            if a["arrival_day_offset"]:
                continue
            for f2 in sorted(self.flights):
                b = self.flights[f2]
                if b["origin"] != a["destination"] or b["destination"] == a["origin"]:
                    continue
                if departure_at(b, day) - arrival_at(a, day) >= dt.timedelta(minutes=45):
                    its.append([f1, f2])
        return its

    # users ---------------------------------------------------------------
    def build_users(self, n: int) -> None:
        rng, v = self.rng, self.v
        base = list(self.pack.brand.customers)
        if not base:
            raise FactforgeError("airline pack needs [brand] customers", self.pack.path / "domain.toml")
        lasts = [x.split()[-1] for x in base]
        names = customer_names(base, n, rng)
        for i, nm in enumerate(names):
            uid = self.new_id("user", "LU", 6)
            first, last = nm.split()[0], nm.split()[-1]
            tier = rng.choices(TIERS, weights=[45, 25, 18, 12])[0]
            bounds = {"wayfarer": (0, v["tier_miles_voyager"] - 1),
                      "voyager": (v["tier_miles_voyager"], v["tier_miles_navigator"] - 1),
                      "navigator": (v["tier_miles_navigator"], v["tier_miles_pinnacle"] - 1),
                      "pinnacle": (v["tier_miles_pinnacle"], int(v["tier_miles_pinnacle"] * 1.8))}[tier]
            miles = rng.randint(int(bounds[0]), int(bounds[1]))
            dob = dt.date(rng.randint(1950, 2003), rng.randint(1, 12), rng.randint(1, 28))
            city = rng.choice(sorted(AIRPORTS))
            u = {"user_id": uid, "name": nm, "first_name": first, "last_name": last,
                 "email": f"{first.lower()}.{last.lower()}{rng.randint(1, 99)}@{rng.choice(_MAIL_HOSTS)}",
                 "phone": f"+1-{rng.randint(201, 989)}-555-{rng.randint(100, 9999):04d}",
                 "date_of_birth": dob.isoformat(),
                 "address": {"line1": f"{rng.randint(10, 9899)} {rng.choice(_STREETS)}",
                             "line2": rng.choice(["", "", "", f"Apt {rng.randint(1, 40)}"]),
                             "city": AIRPORTS[city][0], "state": AIRPORTS[city][1],
                             "zip": f"{rng.randint(10000, 99899):05d}", "country": "US"},
                 "home_airport": city,
                 "membership": {"program": self.pack.brand.products.get("loyalty program", "Larkspur Loop"),
                                "tier": self.tier_name[tier], "qualifying_miles": miles},
                 "payment_methods": {}, "saved_passengers": [], "reservations": []}
            for _ in range(rng.choice([1, 1, 2])):
                cid = self.new_id("credit_card", "CC", 6)
                u["payment_methods"][cid] = {"id": cid, "type": "credit_card", "brand": rng.choice(_CARD_BRANDS),
                                             "last_four": f"{rng.randint(0, 9999):04d}",
                                             "expires": f"{rng.randint(1, 12):02d}/{rng.randint(27, 31)}"}
            for _ in range(rng.choice([0, 0, 1, 1, 2, 3])):
                gid = self.new_id("gift_card", "GC", 6)
                amt = rng.choice([100, 150, 200, 250, 300, 400, 500, 750])
                u["payment_methods"][gid] = {"id": gid, "type": "gift_card", "loaded_amount": amt, "balance": amt}
            for _ in range(rng.choice([0, 0, 0, 1, 2])):
                sp = self.person(last_name=rng.choice([last, rng.choice(lasts)]))
                u["saved_passengers"].append(sp)
            self.users[uid] = u

    def person(self, last_name: str | None = None, min_age: int = 18, max_age: int = 80) -> dict:
        rng = self.rng
        base = self.pack.brand.customers
        first = rng.choice(base).split()[0]
        last = last_name or rng.choice(base).split()[-1]
        age = rng.randint(min_age, max_age)
        dob = dt.date(self.today.year - age - 1, rng.randint(1, 12), rng.randint(1, 28))
        return {"first_name": first, "last_name": last, "date_of_birth": dob.isoformat()}

    # reservations --------------------------------------------------------
    def routes(self) -> tuple[list[list[str]], dict[tuple[str, str], list[list[str]]]]:
        """Every itinerary, and the itineraries by (origin, destination)."""
        its = self.itineraries()
        back: dict[tuple[str, str], list[list[str]]] = {}
        for it in its:
            o, d = self.flights[it[0]]["origin"], self.flights[it[-1]]["destination"]
            back.setdefault((o, d), []).append(it)
        return its, back

    def build_reservations(self, n: int, phase: int) -> None:
        its, back = self.routes()
        made, tries = 0, 0
        while made < n and tries < n * 40:
            tries += 1
            if self.try_reservation(its, back, phase):
                made += 1

    def top_up(self) -> None:
        """Plant reservations in every tier x cabin cell short of CELL_FLOOR rows, drawn from a
        random stream of their own, so a database that already has them is left as it is."""
        _, cab_key, _, tier_key = names(self.pack)

        def short() -> list[tuple[str, str]]:
            rows = cell_rows(self.flights, self.users, self.reservations, cab_key, tier_key, self.now)
            return [cell for cell, ids in rows.items() if len(ids) < CELL_FLOOR]

        missing = short()
        if not missing:
            return
        its, back = self.routes()
        main_rng, self.rng = self.rng, random.Random(f"{self.pack.name}:{self.seed}:cell-floor")
        try:
            for cell in missing:
                for _ in range(200):
                    if cell not in short():
                        break
                    self.try_reservation(its, back, 2, cell=cell)
        finally:
            self.rng = main_rng

    def try_reservation(self, its, back, phase: int, cell: tuple[str, str] | None = None) -> bool:
        """Book one random reservation. With `cell` (tier, cabin): a plain reservation of that
        cell for a member with a credit card, on scheduled flights 2 to 14 days out, booked
        before the risk-free window, without TripGuard, and left as booked (no later change,
        cancellation or disruption), so it adds a row to its cell and no other situation."""
        rng, v = self.rng, self.v
        _, _, _, tier_key = names(self.pack)
        if cell is None:
            uid = rng.choice(sorted(self.users))
        else:
            members = [k for k in sorted(self.users) if tier_key[self.users[k]["membership"]["tier"]] == cell[0]
                       and has_credit_card(self.users[k])]
            if not members:
                return False
            uid = rng.choice(members)
        user = self.users[uid]
        tier = tier_key[user["membership"]["tier"]]
        direct = [it for it in its if len(it) == 1]
        out = rng.choice(direct if rng.random() < 0.6 else its)
        o, d = self.flights[out[0]]["origin"], self.flights[out[-1]]["destination"]
        lo, hi = ((-10 if phase == 1 else 1), (21 if phase == 2 else 5)) if cell is None else (2, 14)
        day0 = self.today + dt.timedelta(days=rng.randint(lo, hi))
        legs = [(fn, day0.isoformat()) for fn in out]
        trip = "one_way"
        if rng.random() < 0.55 and (d, o) in back:
            rday = day0 + dt.timedelta(days=rng.randint(2, 8))
            if rday <= self.today + dt.timedelta(days=21):
                trip = "round_trip"
                legs += [(fn, rday.isoformat()) for fn in rng.choice(back[(d, o)])]
        first_dep = departure_at(self.flights[legs[0][0]], legs[0][1])
        booked_by = self.now - dt.timedelta(hours=1 if cell is None else v["risk_free_hours"] + 2)
        latest = min(first_dep - dt.timedelta(minutes=v["booking_close_minutes"] + 30), booked_by)
        earliest = first_dep - dt.timedelta(days=min(60, v["booking_horizon_days"]))
        if latest <= earliest:
            return False
        created = earliest + dt.timedelta(minutes=rng.randint(0, int((latest - earliest).total_seconds() // 60)))
        for i, (fn, day) in enumerate(legs):
            inst = self.flights[fn]["dates"][day]
            if inst["status"] == "cancelled" and (i > 0 or parse_ts(inst["cancelled_at"]) <= created):
                return False
            if cell is not None and inst["status"] != "scheduled":
                return False
        cabin = rng.choices(CABINS, weights=[30, 50, 20])[0] if cell is None else cell[1]
        npax = rng.choices([1, 2, 3, 4, 5, 6], weights=[52, 28, 9, 6, 2, 1])[0]
        npax = min(npax, int(v["max_passengers"]))
        pax = []
        if rng.random() < 0.75:
            pax.append({"first_name": user["first_name"], "last_name": user["last_name"],
                        "date_of_birth": user["date_of_birth"]})
        fly_day = first_dep.date()
        while len(pax) < npax:
            grown = any(age_on(x["date_of_birth"], fly_day) >= v["companion_age"] for x in pax)
            if grown and rng.random() < 0.3:
                kid = self.person(last_name=user["last_name"], min_age=2, max_age=int(v["minor_age"]) - 1)
                pax.append(kid)
            else:
                pax.append(self.person(min_age=int(v["companion_age"]), max_age=78))
        prices = [self.flights[fn]["dates"][day]["prices"][self.cab[cabin]] for fn, day in legs]
        fare_total = money(sum(prices) * npax)
        free = free_bags(v, tier, cabin) * npax
        total_bags = min(sum(rng.choice([0, 0, 1, 1, 1, 2, 2, 3]) for _ in range(npax)),
                         int(v["max_bags_per_passenger"]) * npax)
        paid_bags = max(0, total_bags - free)
        bag_fee = money(paid_bags * bag_fee_each(v, cabin))
        insurance = rng.random() < 0.3 and cell is None
        ins_fee = money(v["insurance_per_passenger"] * npax) if insurance else 0
        total = money(fare_total + bag_fee + ins_fee)
        if total > v["max_reservation_total"]:
            return False
        plan = self.payment_plan(user, total, created)
        if plan is None:
            return False
        rid = self.new_id("reservation", "LK", 5, chars="ABCDEFGHJKLMNPQRSTUVWXYZ23456789")
        res = {"reservation_id": rid, "user_id": uid, "origin": o, "destination": d, "trip_type": trip,
               "cabin": self.cab[cabin], "created_at": self.ts(created), "status": "confirmed",
               "flights": [{"flight_number": fn, "date": day, "origin": self.flights[fn]["origin"],
                            "destination": self.flights[fn]["destination"], "price": p}
                           for (fn, day), p in zip(legs, prices)],
               "passengers": pax, "total_bags": total_bags, "free_bags": free, "paid_bags": paid_bags,
               "bag_fee": bag_fee, "insurance": insurance, "insurance_fee": ins_fee,
               "fare_total": fare_total, "booking_charge": {"fares": fare_total, "bags": bag_fee, "insurance": ins_fee},
               "changes": [], "payment_history": [], "cancellation": None}
        for mid, amt in plan:
            self.charge(user, res, mid, amt, "booking", created)
        user["reservations"].append(rid)
        self.reservations[rid] = res
        if cell is None:
            self.after_booking(res, user, tier, cabin)
        else:
            self.finish(res)
        return True

    def payment_plan(self, user: dict, total: float, at: dt.datetime) -> list[tuple[str, float]] | None:
        rng = self.rng
        pms = user["payment_methods"]
        cards = [k for k in sorted(pms) if pms[k]["type"] == "credit_card"]
        gifts = [k for k in sorted(pms) if pms[k]["type"] == "gift_card" and pms[k]["balance"] > 0]
        certs = [k for k in sorted(pms) if pms[k]["type"] == "travel_certificate" and pms[k]["status"] == "active"
                 and parse_ts(pms[k]["issued_at"]) < at]
        plan: list[tuple[str, float]] = []
        left = total
        if certs and rng.random() < 0.7:
            c = certs[0]
            use = money(min(pms[c]["amount"], left))
            plan.append((c, use))
            left = money(left - use)
        if gifts and left > 0 and rng.random() < 0.5:
            for g in gifts[: int(self.v["max_gift_cards"])]:
                if left <= 0:
                    break
                use = money(min(pms[g]["balance"], left))
                plan.append((g, use))
                left = money(left - use)
        if left > 0:
            if not cards:
                return None
            plan.append((cards[0], left))
        return plan

    def charge(self, user, res, mid: str, amount: float, purpose: str, at: dt.datetime) -> None:
        pm = user["payment_methods"][mid]
        if pm["type"] == "gift_card":
            pm["balance"] = money(pm["balance"] - amount)
        elif pm["type"] == "travel_certificate":
            pm["status"] = "used"
            pm["used_on"] = res["reservation_id"]
        res["payment_history"].append({"payment_id": self.pay_id(), "kind": "charge", "method_id": mid,
                                       "method_type": pm["type"], "amount": money(amount), "purpose": purpose,
                                       "at": self.ts(at)})

    def card_or_gift(self, user, amount: float) -> str | None:
        pms = user["payment_methods"]
        for k in sorted(pms):
            if pms[k]["type"] == "credit_card":
                return k
        for k in sorted(pms):
            if pms[k]["type"] == "gift_card" and pms[k]["balance"] >= amount:
                return k
        return None

    def after_booking(self, res: dict, user: dict, tier: str, cabin: str) -> None:
        rng, v = self.rng, self.v
        created = parse_ts(res["created_at"])
        legs = res["flights"]
        inst = [self.flights[f["flight_number"]]["dates"][f["date"]] for f in legs]
        first_dep = departure_at(self.flights[legs[0]["flight_number"]], legs[0]["date"])
        cancelled = [i for i, x in enumerate(inst) if x["status"] == "cancelled"]
        if cancelled:
            i = cancelled[0]
            when = parse_ts(inst[i]["cancelled_at"]) + dt.timedelta(minutes=rng.randint(20, 300))
            when = min(when, self.now - dt.timedelta(minutes=5), first_dep - dt.timedelta(minutes=30))
            nxt = (dt.date.fromisoformat(legs[i]["date"]) + dt.timedelta(days=1)).isoformat()
            fn = legs[i]["flight_number"]
            can_rebook = (nxt in self.flights[fn]["dates"] and self.flights[fn]["dates"][nxt]["status"] != "cancelled"
                          and len(cancelled) == 1 and len(legs) == 1)
            if can_rebook and rng.random() < 0.6:
                old = dict(legs[i])
                legs[i] = dict(old, date=nxt, rebooked_from=old["date"])
                res["changes"].append({"type": "rebooking", "at": self.ts(when), "old_flights": [old],
                                       "new_flights": [legs[i]], "change_fee": 0, "fare_difference": 0})
                if inst[i]["cause"] not in NO_COMP_CAUSES and not self.needs_manager(res, tier, cabin, "cancellation"):
                    self.compensate(res, user, tier, cabin, fn, old["date"], "cancellation", when)
            else:
                self.cancel(res, user, tier, cabin, "flight_cancelled_by_airline", when)
                # Not every customer has claimed compensation yet (the rest may still call in); claims
                # above the approval limit wait for the duty manager.
                if (inst[i]["cause"] not in NO_COMP_CAUSES and rng.random() < 0.4
                        and not self.needs_manager(res, tier, cabin, "cancellation")):
                    self.compensate(res, user, tier, cabin, fn, legs[i]["date"], "cancellation", when)
            self.finish(res)
            return
        roll = rng.random()
        if roll < 0.06 and first_dep - created >= dt.timedelta(days=v["risk_free_min_days"]):
            at = created + dt.timedelta(minutes=rng.randint(10, int(v["risk_free_hours"] * 60) - 10))
            if at < self.now:
                self.cancel(res, user, tier, cabin, rng.choice(["change_of_plans", "schedule_conflict"]), at)
        elif roll < 0.16:
            lo = created + dt.timedelta(hours=v["risk_free_hours"] + 2)
            hi = min(first_dep - dt.timedelta(hours=2), self.now - dt.timedelta(minutes=30))
            if hi > lo:
                at = lo + dt.timedelta(minutes=rng.randint(0, int((hi - lo).total_seconds() // 60)))
                reason = "covered_reason" if res["insurance"] and rng.random() < 0.6 else "change_of_plans"
                self.cancel(res, user, tier, cabin, reason, at)
        elif roll < 0.28 and cabin != "lite":
            self.flight_change(res, user, tier, cabin)
        elif roll < 0.38:
            self.add_bags(res, user, tier, cabin)
        elif roll < 0.50:
            self.same_day_change(res, user, tier, cabin)
        elif roll < 0.56:
            self.name_correction(res)
        if res["cancellation"] is None:
            for f in res["flights"]:
                x = self.flights[f["flight_number"]]["dates"][f["date"]]
                if (x["status"] == "landed" and x["delay_minutes"] >= v["delay_threshold_hours"] * 60
                        and x["cause"] not in NO_COMP_CAUSES and rng.random() < 0.45
                        and not self.needs_manager(res, tier, cabin, "delay")):
                    arr = arrival_at(self.flights[f["flight_number"]], f["date"]) + dt.timedelta(minutes=x["delay_minutes"])
                    when = min(arr + dt.timedelta(minutes=rng.randint(30, 2000)), self.now - dt.timedelta(minutes=5))
                    self.compensate(res, user, tier, cabin, f["flight_number"], f["date"], "delay", when)
            comp = any(pm["type"] == "travel_certificate" and pm["origin"].get("reservation_id") == res["reservation_id"]
                       for pm in user["payment_methods"].values())
            if not comp and rng.random() < 0.02 and parse_ts(res["created_at"]) < self.now - dt.timedelta(days=1):
                self.goodwill(res, user)
        self.finish(res)

    def needs_manager(self, res: dict, tier: str, cabin: str, kind: str) -> bool:
        """Whether compensating one disruption of `res` goes above the duty manager's limit."""
        amount = compensation_per_passenger(self.v, tier, cabin, kind) * len(res["passengers"])
        return amount > self.v["manager_approval_above"]

    def finish(self, res: dict) -> None:
        if res["cancellation"] is not None:
            res["status"] = "cancelled"
            return
        last = res["flights"][-1]
        if departure_at(self.flights[last["flight_number"]], last["date"]) <= self.now:
            res["status"] = "completed"

    def cancel(self, res, user, tier, cabin, reason: str, at: dt.datetime) -> None:
        v = self.v
        legs = res["flights"]
        first_dep = departure_at(self.flights[legs[0]["flight_number"]], legs[0]["date"])
        if at >= first_dep:
            return
        res["cancellation"] = {"cancelled_at": self.ts(at), "reason": reason, "refund_amount": 0, "rule": ""}
        amount, rule = refund_due(v, res, tier, cabin, first_dep)
        res["cancellation"].update(refund_amount=amount, rule=rule)
        charges = [(p["method_id"], p["method_type"], p["amount"]) for p in res["payment_history"] if p["kind"] == "charge"]
        refunded = [(p["method_id"], p["amount"]) for p in res["payment_history"] if p["kind"] == "refund"]
        net: dict[str, float] = {}
        for mid, _, a in charges:
            net[mid] = money(net.get(mid, 0) + a)
        for mid, a in refunded:
            net[mid] = money(net[mid] - a)
        seen, merged = set(), []
        for mid, typ, _ in charges:
            if mid not in seen:
                seen.add(mid)
                merged.append((mid, typ, net[mid]))
        for mid, typ, part in split_refund(amount, merged):
            self.refund(res, user, mid, typ, part, at, "cancellation")

    def refund(self, res, user, mid, typ, amount, at: dt.datetime, purpose: str) -> None:
        rng, v = self.rng, self.v
        entry = {"payment_id": self.pay_id(), "kind": "refund", "method_id": mid, "method_type": typ,
                 "amount": money(amount), "purpose": purpose, "at": self.ts(at)}
        if typ == "credit_card":
            days = rng.randint(max(1, int(v["card_refund_max_business_days"]) - 2), int(v["card_refund_max_business_days"]))
            posted = add_business_days(at.astimezone(self.tz).date(), days)
            entry["posted_on"] = posted.isoformat()
            entry["status"] = "posted" if posted <= self.today else "pending"
        elif typ == "gift_card":
            posted_at = at + dt.timedelta(minutes=rng.randint(1, int(v["gift_card_refund_hours"] * 60) - 1))
            entry["posted_at"] = self.ts(posted_at)
            entry["status"] = "posted" if posted_at <= self.now else "pending"
            if entry["status"] == "posted":
                pm = user["payment_methods"][mid]
                pm["balance"] = money(pm["balance"] + amount)
        else:
            cid = self.certificate(user, amount, at, {"kind": "reissue", "reservation_id": res["reservation_id"],
                                                      "original_certificate": mid},
                                   int(v["reissued_certificate_months"]))
            entry["reissued_as"] = cid
            entry["status"] = "posted"
        res["payment_history"].append(entry)

    def certificate(self, user, amount, at: dt.datetime, origin: dict, months: int, approved_by=None) -> str:
        cid = self.new_id("certificate", "TC", 7)
        issued = at.astimezone(self.tz).date()
        user["payment_methods"][cid] = {"id": cid, "type": "travel_certificate", "amount": money(amount),
                                        "issued_at": self.ts(at), "expires_on": add_months(issued, months).isoformat(),
                                        "status": "active", "origin": origin, "approved_by": approved_by}
        return cid

    def compensate(self, res, user, tier, cabin, fn, date, kind, at: dt.datetime) -> None:
        v = self.v
        amount = money(compensation_per_passenger(v, tier, cabin, kind) * len(res["passengers"]))
        self.certificate(user, amount, at, {"kind": "compensation", "reservation_id": res["reservation_id"],
                                            "flight_number": fn, "date": date, "disruption": kind},
                         int(v["compensation_certificate_months"]))

    def approvals(self) -> None:
        """Compensation for one reservation above the approval limit carries a manager's name
        on every certificate issued once the running total passes the limit."""
        for uid in sorted(self.users):
            pms = self.users[uid]["payment_methods"]
            by_res: dict[str, list[dict]] = {}
            for pm in pms.values():
                if pm["type"] == "travel_certificate" and pm["origin"]["kind"] in ("compensation", "goodwill"):
                    by_res.setdefault(pm["origin"]["reservation_id"], []).append(pm)
            for rid in sorted(by_res):
                run = 0.0
                for pm in sorted(by_res[rid], key=lambda x: (x["issued_at"], x["id"])):
                    run += pm["amount"]
                    if run > self.v["manager_approval_above"]:
                        pm["approved_by"] = self.rng.choice(self.pack.brand.managers or ["Duty Manager"])

    def goodwill(self, res, user) -> None:
        amt = self.rng.choice([25, 30, 40, 50])
        amt = min(amt, self.v["goodwill_max"])
        at = parse_ts(res["created_at"]) + dt.timedelta(hours=self.rng.randint(2, 20))
        self.certificate(user, amt, at, {"kind": "goodwill", "reservation_id": res["reservation_id"]},
                         int(self.v["compensation_certificate_months"]))

    def flight_change(self, res, user, tier, cabin) -> None:
        rng, v = self.rng, self.v
        shift = rng.choice([1, 2, 3, -1])
        new = []
        for f in res["flights"]:
            nd = (dt.date.fromisoformat(f["date"]) + dt.timedelta(days=shift)).isoformat()
            inst = self.flights[f["flight_number"]]["dates"].get(nd)
            if inst is None or inst["status"] == "cancelled":
                return
            new.append(dict(f, date=nd, price=inst["prices"][self.cab[cabin]]))
        created = parse_ts(res["created_at"])
        deps = [departure_at(self.flights[f["flight_number"]], f["date"]) for f in res["flights"] + new]
        latest = min(min(deps) - dt.timedelta(minutes=v["change_cutoff_minutes"] + 60), self.now - dt.timedelta(minutes=10))
        if latest <= created + dt.timedelta(hours=1):
            return
        at = created + dt.timedelta(minutes=rng.randint(60, int((latest - created).total_seconds() // 60)))
        npax = len(res["passengers"])
        fee = money(change_fee(v, cabin, tier) * npax)
        diff = money((sum(f["price"] for f in new) - sum(f["price"] for f in res["flights"])) * npax)
        pay = fee + max(0, diff)
        mid = self.card_or_gift(user, pay)
        if mid is None:
            return
        old = res["flights"]
        res["flights"] = new
        res["fare_total"] = money(sum(f["price"] for f in new) * npax)
        res["changes"].append({"type": "flight_change", "at": self.ts(at), "old_flights": old, "new_flights": new,
                               "change_fee": fee, "fare_difference": diff})
        if pay > 0:
            self.charge(user, res, mid, pay, "flight_change", at)
        if diff < 0:
            charges = [(p["method_id"], p["method_type"], p["amount"]) for p in res["payment_history"] if p["kind"] == "charge"]
            for m_id, typ, part in split_refund(-diff, charges):
                self.refund(res, user, m_id, typ, part, at, "fare_difference")

    def add_bags(self, res, user, tier, cabin) -> None:
        rng, v = self.rng, self.v
        npax = len(res["passengers"])
        room = int(v["max_bags_per_passenger"]) * npax - res["total_bags"]
        if room <= 0:
            return
        added = rng.randint(1, min(2, room))
        created = parse_ts(res["created_at"])
        dep = departure_at(self.flights[res["flights"][0]["flight_number"]], res["flights"][0]["date"])
        latest = min(dep - dt.timedelta(hours=2), self.now - dt.timedelta(minutes=10))
        if latest <= created + dt.timedelta(minutes=30):
            return
        at = created + dt.timedelta(minutes=rng.randint(30, int((latest - created).total_seconds() // 60)))
        total = res["total_bags"] + added
        paid = max(0, total - res["free_bags"])
        fee = money((paid - res["paid_bags"]) * bag_fee_each(v, cabin))
        mid = self.card_or_gift(user, fee)
        if mid is None:
            return
        res["changes"].append({"type": "add_bags", "at": self.ts(at), "bags_added": added, "fee": fee})
        res["total_bags"], res["paid_bags"], res["bag_fee"] = total, paid, money(res["bag_fee"] + fee)
        if fee > 0:
            self.charge(user, res, mid, fee, "add_bags", at)

    def same_day_change(self, res, user, tier, cabin) -> None:
        rng, v = self.rng, self.v
        if len(res["flights"]) != 1:
            return
        f = res["flights"][0]
        fl = self.flights[f["flight_number"]]
        alts = [k for k in sorted(self.flights) if k != f["flight_number"] and self.flights[k]["origin"] == fl["origin"]
                and self.flights[k]["destination"] == fl["destination"]]
        if not alts:
            return
        alt = rng.choice(alts)
        inst = self.flights[alt]["dates"][f["date"]]
        if inst["status"] == "cancelled":
            return
        dep_old, dep_new = departure_at(fl, f["date"]), departure_at(self.flights[alt], f["date"])
        day_start = dep_old.replace(hour=0, minute=0)
        lo = max(day_start, parse_ts(res["created_at"]) + dt.timedelta(minutes=30))
        hi = min(dep_old, dep_new, self.now) - dt.timedelta(minutes=v["change_cutoff_minutes"] + 5)
        if hi <= lo:
            return
        at = lo + dt.timedelta(minutes=rng.randint(0, int((hi - lo).total_seconds() // 60)))
        npax = len(res["passengers"])
        fee = 0 if tier in ("navigator", "pinnacle") else money(v["same_day_fee"] * npax)
        mid = self.card_or_gift(user, fee)
        if mid is None:
            return
        new = dict(f, flight_number=alt, same_day_from=f["flight_number"])
        res["flights"] = [new]
        res["changes"].append({"type": "same_day_change", "at": self.ts(at), "old_flights": [f], "new_flights": [new],
                               "change_fee": fee, "fare_difference": 0})
        if fee > 0:
            self.charge(user, res, mid, fee, "same_day_change", at)

    def name_correction(self, res) -> None:
        rng, v = self.rng, self.v
        i = rng.randrange(len(res["passengers"]))
        p = res["passengers"][i]
        dep = departure_at(self.flights[res["flights"][0]["flight_number"]], res["flights"][0]["date"])
        created = parse_ts(res["created_at"])
        latest = min(dep - dt.timedelta(hours=3), self.now - dt.timedelta(minutes=5))
        if latest <= created:
            return
        at = created + dt.timedelta(minutes=rng.randint(0, int((latest - created).total_seconds() // 60)))
        n = rng.randint(1, int(v["name_correction_max_chars"]))
        name = p["last_name"]
        typo = name[:-n] + name[-n:][::-1] if len(name) > n else name + "x"
        res["changes"].append({"type": "name_correction", "at": self.ts(at), "passenger_index": i,
                               "field": "last_name", "old_value": typo, "new_value": name,
                               "characters_changed": n, "fee": 0})


def generate(pack, seed: int, values: dict | None = None, price_scale: float = 1.0) -> dict:
    """The seed database. `values` overrides VALUES; `price_scale` multiplies every fare
    (a variant's price scaling, applied before fees and refunds are derived)."""
    scale = price_scale_of(price_scale)
    g = _Gen(pack, seed, values_with(values), scale)
    g.build_flights()
    g.build_users(64)
    g.build_reservations(110, phase=1)
    g.build_reservations(120, phase=2)
    g.top_up()
    g.approvals()
    return {"flights": g.flights, "reservations": g.reservations, "users": g.users}


# ---------------------------------------------------------------- checks
