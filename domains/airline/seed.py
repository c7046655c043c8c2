"""Seed database for the airline domain: users, flights and reservations obeying the policy.

Tables (dicts keyed by id): `flights` (schedule plus a per-date record of status, delay,
cause, seat prices and seats left per cabin), `users` (Larkspur Loop tier, qualifying
miles, address, stored payment methods including gift cards and travel certificates) and
`reservations` (passengers, flights with the price paid, bags and their fees, TripGuard,
changes, payment history, cancellation and refunds). Every fee, allowance, refund and
compensation amount follows the policy values in `VALUES`; `check` recomputes them.
"""
from __future__ import annotations

import datetime as dt
import random
from typing import Any

from domains.contract import DomainCode, TestQuota
from domains.seedkit import add_business_days as _add_business_days
from domains.seedkit import add_months as _add_months
from domains.seedkit import age_on as _age_on
from domains.seedkit import business_days_between as _business_days_between
from domains.seedkit import customer_names
from domains.seedkit import merged_values as _merged
from domains.seedkit import money as _m
from domains.seedkit import parse_ts as _parse
from facts.errors import FactforgeError

VALUES: dict[str, float | int] = {
    "max_passengers": 6,
    "max_flights_per_direction": 3,
    "booking_horizon_days": 330,
    "booking_close_minutes": 45,
    "minor_age": 14,
    "companion_age": 18,
    "max_credit_cards": 1,
    "max_gift_cards": 3,
    "max_certificates": 1,
    "max_reservation_total": 12000,
    "tier_miles_voyager": 25000,
    "tier_miles_navigator": 50000,
    "tier_miles_pinnacle": 90000,
    "insurance_per_passenger": 35,
    "free_bags_wayfarer_lite": 0,
    "free_bags_wayfarer_main": 1,
    "free_bags_wayfarer_premier": 2,
    "free_bags_voyager_lite": 1,
    "free_bags_voyager_main": 1,
    "free_bags_voyager_premier": 2,
    "free_bags_navigator_lite": 1,
    "free_bags_navigator_main": 2,
    "free_bags_navigator_premier": 3,
    "free_bags_pinnacle_lite": 2,
    "free_bags_pinnacle_main": 3,
    "free_bags_pinnacle_premier": 4,
    "extra_bag_fee": 45,
    "extra_bag_fee_premier": 30,
    "max_bags_per_passenger": 5,
    "change_fee_main_wayfarer": 99,
    "change_fee_main_voyager": 75,
    "change_fee_main_navigator": 40,
    "change_fee_main_pinnacle": 0,
    "change_fee_premier_wayfarer": 50,
    "change_fee_premier_voyager": 25,
    "change_fee_premier_navigator": 0,
    "change_fee_premier_pinnacle": 0,
    "change_cutoff_minutes": 60,
    "same_day_fee": 75,
    "name_correction_max_chars": 3,
    "risk_free_hours": 24,
    "risk_free_min_days": 7,
    "cancel_fee_main": 100,
    "premier_full_refund_hours": 72,
    "cancel_fee_premier_late": 150,
    "card_refund_max_business_days": 7,
    "gift_card_refund_hours": 24,
    "reissued_certificate_months": 12,
    "compensation_certificate_months": 12,
    "delay_threshold_hours": 3,
    "comp_delay_wayfarer": 50,
    "comp_delay_voyager": 75,
    "comp_delay_navigator": 100,
    "comp_delay_pinnacle": 150,
    "comp_cancel_wayfarer": 100,
    "comp_cancel_voyager": 150,
    "comp_cancel_navigator": 200,
    "comp_cancel_pinnacle": 300,
    "comp_premier_extra": 50,
    "goodwill_max": 50,
    "manager_approval_above": 400,
    "overweight_fee": 100,
    "meal_voucher": 20,
    "meal_delay_hours": 4,
    "hotel_max": 180,
}

VALUE_FACTS: dict[str, str] = {
    "max_passengers": "at most 6 passengers",
    "max_flights_per_direction": "may include at most 3 flights",
    "booking_horizon_days": "up to 330 days before departure",
    "booking_close_minutes": "Booking closes 45 minutes",
    "minor_age": "A passenger under 14 years old",
    "companion_age": "who is at least 18 years old",
    "max_credit_cards": "at most 1 credit card",
    "max_gift_cards": "at most 3 gift cards",
    "max_certificates": "at most 1 travel certificate",
    "max_reservation_total": "may not exceed $12,000",
    "tier_miles_voyager": "at least 25,000 qualifying miles",
    "tier_miles_navigator": "at least 50,000 qualifying miles",
    "tier_miles_pinnacle": "at least 90,000 qualifying miles",
    "insurance_per_passenger": "TripGuard costs $35 per passenger",
    "free_bags_wayfarer_lite": "| Wayfarer | 0 bags",
    "free_bags_wayfarer_main": "| Wayfarer | 0 bags | 1 bag",
    "free_bags_wayfarer_premier": "| Wayfarer | 0 bags | 1 bag | 2 bags",
    "free_bags_voyager_lite": "| Voyager | 1 bag",
    "free_bags_voyager_main": "| Voyager | 1 bag | 1 bag",
    "free_bags_voyager_premier": "| Voyager | 1 bag | 1 bag | 2 bags",
    "free_bags_navigator_lite": "| Navigator | 1 bag",
    "free_bags_navigator_main": "| Navigator | 1 bag | 2 bags",
    "free_bags_navigator_premier": "| Navigator | 1 bag | 2 bags | 3 bags",
    "free_bags_pinnacle_lite": "| Pinnacle | 2 bags",
    "free_bags_pinnacle_main": "| Pinnacle | 2 bags | 3 bags",
    "free_bags_pinnacle_premier": "| Pinnacle | 2 bags | 3 bags | 4 bags",
    "extra_bag_fee": "extra checked bag in Lite or Main costs $45",
    "extra_bag_fee_premier": "extra checked bag in Premier costs $30",
    "max_bags_per_passenger": "check at most 5 bags",
    "change_fee_main_wayfarer": "| Main | $99",
    "change_fee_main_voyager": "| Main | $99 | $75",
    "change_fee_main_navigator": "| Main | $99 | $75 | $40",
    "change_fee_main_pinnacle": "| Main | $99 | $75 | $40 | $0",
    "change_fee_premier_wayfarer": "| Premier | $50",
    "change_fee_premier_voyager": "| Premier | $50 | $25",
    "change_fee_premier_navigator": "| Premier | $50 | $25 | $0",
    "change_fee_premier_pinnacle": "| Premier | $50 | $25 | $0 | $0",
    "change_cutoff_minutes": "at least 60 minutes before the departure",
    "same_day_fee": "flat fee of $75 per passenger",
    "name_correction_max_chars": "up to 3 characters",
    "risk_free_hours": "cancelled within 24 hours of booking",
    "risk_free_min_days": "departs at least 7 days after",
    "cancel_fee_main": "cancellation fee of $100 per passenger",
    "premier_full_refund_hours": "cancelled at least 72 hours before departure",
    "cancel_fee_premier_late": "cancellation fee of $150 per passenger",
    "card_refund_max_business_days": "post within 5 to 7 business days",
    "gift_card_refund_hours": "credited within 24 hours",
    "reissued_certificate_months": "valid for 12 months from its new issue date",
    "compensation_certificate_months": "compensation are valid for 12 months",
    "delay_threshold_hours": "arrives at least 3 hours late",
    "comp_delay_wayfarer": "| Wayfarer | $50",
    "comp_delay_voyager": "| Voyager | $75",
    "comp_delay_navigator": "| Navigator | $100",
    "comp_delay_pinnacle": "| Pinnacle | $150",
    "comp_cancel_wayfarer": "| Wayfarer | $50 | $100",
    "comp_cancel_voyager": "| Voyager | $75 | $150",
    "comp_cancel_navigator": "| Navigator | $100 | $200",
    "comp_cancel_pinnacle": "| Pinnacle | $150 | $300",
    "comp_premier_extra": "extra $50 per passenger",
    "goodwill_max": "may not exceed $50 per reservation",
    "manager_approval_above": "Compensation above $400",
    "overweight_fee": "costs an extra $100",
    "meal_voucher": "meal voucher of $20",
    "meal_delay_hours": "delayed 4 hours",
    "hotel_max": "up to $180",
}

CABINS = ("lite", "main", "premier")           # internal keys, lowest to highest
TIERS = ("wayfarer", "voyager", "navigator", "pinnacle")
_CABIN_PRODUCT = {"lite": ("basic economy", "Lite"), "main": ("economy", "Main"),
                  "premier": ("business", "Premier")}
_TIER_PRODUCT = {"wayfarer": ("base tier", "Wayfarer"), "voyager": ("second tier", "Voyager"),
                 "navigator": ("third tier", "Navigator"), "pinnacle": ("top tier", "Pinnacle")}
_NO_COMP_CAUSES = ("weather", "air_traffic_control")

# code: (city, state, airport name, UTC offset in May)
AIRPORTS: dict[str, tuple[str, str, str, int]] = {
    "DEN": ("Denver", "CO", "Denver International", -6),
    "ORD": ("Chicago", "IL", "Chicago O'Hare International", -5),
    "SEA": ("Seattle", "WA", "Seattle-Tacoma International", -7),
    "SFO": ("San Francisco", "CA", "San Francisco International", -7),
    "LAX": ("Los Angeles", "CA", "Los Angeles International", -7),
    "PHX": ("Phoenix", "AZ", "Phoenix Sky Harbor International", -7),
    "DFW": ("Dallas", "TX", "Dallas/Fort Worth International", -5),
    "MSP": ("Minneapolis", "MN", "Minneapolis-Saint Paul International", -5),
    "ATL": ("Atlanta", "GA", "Hartsfield-Jackson Atlanta International", -4),
    "BOS": ("Boston", "MA", "Logan International", -4),
    "JFK": ("New York", "NY", "John F. Kennedy International", -4),
    "MIA": ("Miami", "FL", "Miami International", -4),
}

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


# ---------------------------------------------------------------- shared helpers

def merged_values(values: dict | None) -> dict[str, float | int]:
    """VALUES with `values` overriding; unknown keys are a user error."""
    return _merged(VALUES, values, "airline",
                   increasing=[("tier_miles_voyager", "tier_miles_navigator"),
                               ("tier_miles_navigator", "tier_miles_pinnacle"), ("minor_age", "companion_age")],
                   at_least_one=["max_passengers", "max_flights_per_direction", "max_credit_cards",
                                 "max_bags_per_passenger", "card_refund_max_business_days",
                                 "gift_card_refund_hours", "risk_free_hours"])


def _names(pack) -> tuple[dict[str, str], dict[str, str], dict[str, str], dict[str, str]]:
    """cabin key -> display name, display -> key, tier key -> display, display -> key."""
    prod = pack.brand.products
    cab = {k: prod.get(g, d) for k, (g, d) in _CABIN_PRODUCT.items()}
    tier = {k: prod.get(g, d) for k, (g, d) in _TIER_PRODUCT.items()}
    return cab, {v: k for k, v in cab.items()}, tier, {v: k for k, v in tier.items()}


def free_bags(v: dict, tier: str, cabin: str) -> int:
    return int(v[f"free_bags_{tier}_{cabin}"])


def bag_fee_each(v: dict, cabin: str) -> float:
    return v["extra_bag_fee_premier"] if cabin == "premier" else v["extra_bag_fee"]


def change_fee(v: dict, cabin: str, tier: str) -> float:
    return v[f"change_fee_{cabin}_{tier}"]


def tier_for_miles(v: dict, miles: int) -> str:
    if miles >= v["tier_miles_pinnacle"]:
        return "pinnacle"
    if miles >= v["tier_miles_navigator"]:
        return "navigator"
    if miles >= v["tier_miles_voyager"]:
        return "voyager"
    return "wayfarer"


def compensation_per_passenger(v: dict, tier: str, cabin: str, kind: str) -> float:
    base = v[f"comp_{'delay' if kind == 'delay' else 'cancel'}_{tier}"]
    return base + (v["comp_premier_extra"] if cabin == "premier" else 0)


def departure_at(flight: dict, date: str) -> dt.datetime:
    off = AIRPORTS[flight["origin"]][3]
    hh, mm = map(int, flight["departure_local"].split(":"))
    d = dt.date.fromisoformat(date)
    return dt.datetime(d.year, d.month, d.day, hh, mm, tzinfo=dt.timezone(dt.timedelta(hours=off)))


def arrival_at(flight: dict, date: str) -> dt.datetime:
    return departure_at(flight, date) + dt.timedelta(minutes=flight["duration_minutes"])


def refund_due(v: dict, res: dict, tier: str, cabin: str, first_departure: dt.datetime) -> tuple[float, str]:
    """Refund owed for a cancelled reservation and the rule that applies."""
    c = res["cancellation"]
    at, created = _parse(c["cancelled_at"]), _parse(res["created_at"])
    pax = len(res["passengers"])
    fares, bags, ins = res["fare_total"], res["bag_fee"], res["insurance_fee"]
    risk_free = (at - created <= dt.timedelta(hours=v["risk_free_hours"])
                 and first_departure - created >= dt.timedelta(days=v["risk_free_min_days"]))
    if c["reason"] == "flight_cancelled_by_airline" or risk_free:
        return _m(fares + bags + ins), "full"
    if c["reason"] == "covered_reason" and res["insurance"]:
        return _m(fares + bags), "tripguard"
    if cabin == "lite":
        return 0, "lite_nonrefundable"
    if cabin == "main":
        fee = 0 if tier in ("navigator", "pinnacle") else v["cancel_fee_main"] * pax
        return _m(max(0.0, fares - fee)), "main_fee"
    if first_departure - at >= dt.timedelta(hours=v["premier_full_refund_hours"]):
        return _m(fares), "premier_early"
    return _m(max(0.0, fares - v["cancel_fee_premier_late"] * pax)), "premier_late"


def split_refund(amount: float, charges: list[tuple[str, str, float]]) -> list[tuple[str, str, float]]:
    """Route a refund over (method id, method type, amount charged): credit card first,
    then gift cards (in charge order), travel certificate last."""
    order = {"credit_card": 0, "gift_card": 1, "travel_certificate": 2}
    out, left = [], amount
    for mid, typ, paid in sorted(charges, key=lambda c: order[c[1]]):
        if left <= 0.004:
            break
        part = _m(min(paid, left))
        out.append((mid, typ, part))
        left = _m(left - part)
    return out


# Every tier x cabin cell of the bag-allowance and change-fee tables keeps at least CELL_FLOOR
# open, unchanged reservations departing more than CELL_MIN_HOURS out, held by a member with a
# credit card: the rows the held-out tests of that cell are drawn from (`generate` plants
# the missing ones).
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

class _Gen:
    def __init__(self, pack, seed: int, v: dict):
        self.pack, self.v, self.seed = pack, v, seed
        self.rng = random.Random(f"{pack.name}:{seed}")
        self.pre = pack.brand.id_prefixes
        self.now = pack.info.now
        if self.now.tzinfo is None:
            raise FactforgeError("domain.toml [domain] now needs a UTC offset", pack.path / "domain.toml")
        self.tz = self.now.tzinfo
        self.today = self.now.date()
        self.cab, _, self.tier_name, _ = _names(pack)
        self.flights: dict[str, dict] = {}
        self.users: dict[str, dict] = {}
        self.reservations: dict[str, dict] = {}
        self._ids: set[str] = set()
        self._pay_seq = 0
        self.price_scale = 1.0

    def pfx(self, entity: str, default: str) -> str:
        return self.pre.get(entity, default)

    def ts(self, t: dt.datetime) -> str:
        return t.astimezone(self.tz).replace(microsecond=0).isoformat()

    def new_id(self, entity: str, default: str, digits: int = 6, alpha: bool = False) -> str:
        chars = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789" if alpha else "0123456789"
        while True:
            i = self.pfx(entity, default) + "".join(self.rng.choice(chars) for _ in range(digits))
            if i not in self._ids:
                self._ids.add(i)
                return i

    def pay_id(self) -> str:
        self._pay_seq += 1
        return f"{self.pfx('payment', 'PY')}{100000 + self._pay_seq}"

    # flights -------------------------------------------------------------
    def build_flights(self) -> None:
        rng, pre = self.rng, self.pfx("flight", "LA")
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
        _, cab_key, _, tier_key = _names(self.pack)

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
        _, _, _, tier_key = _names(self.pack)
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
            if inst["status"] == "cancelled" and (i > 0 or _parse(inst["cancelled_at"]) <= created):
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
            grown = any(_age_on(x["date_of_birth"], fly_day) >= v["companion_age"] for x in pax)
            if grown and rng.random() < 0.3:
                kid = self.person(last_name=user["last_name"], min_age=2, max_age=int(v["minor_age"]) - 1)
                pax.append(kid)
            else:
                pax.append(self.person(min_age=int(v["companion_age"]), max_age=78))
        prices = [self.flights[fn]["dates"][day]["prices"][self.cab[cabin]] for fn, day in legs]
        fare_total = _m(sum(prices) * npax)
        free = free_bags(v, tier, cabin) * npax
        total_bags = min(sum(rng.choice([0, 0, 1, 1, 1, 2, 2, 3]) for _ in range(npax)),
                         int(v["max_bags_per_passenger"]) * npax)
        paid_bags = max(0, total_bags - free)
        bag_fee = _m(paid_bags * bag_fee_each(v, cabin))
        insurance = rng.random() < 0.3 and cell is None
        ins_fee = _m(v["insurance_per_passenger"] * npax) if insurance else 0
        total = _m(fare_total + bag_fee + ins_fee)
        if total > v["max_reservation_total"]:
            return False
        plan = self.payment_plan(user, total, created)
        if plan is None:
            return False
        rid = self.new_id("reservation", "LK", 5, alpha=True)
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
                 and _parse(pms[k]["issued_at"]) < at]
        plan: list[tuple[str, float]] = []
        left = total
        if certs and rng.random() < 0.7:
            c = certs[0]
            use = _m(min(pms[c]["amount"], left))
            plan.append((c, use))
            left = _m(left - use)
        if gifts and left > 0 and rng.random() < 0.5:
            for g in gifts[: int(self.v["max_gift_cards"])]:
                if left <= 0:
                    break
                use = _m(min(pms[g]["balance"], left))
                plan.append((g, use))
                left = _m(left - use)
        if left > 0:
            if not cards:
                return None
            plan.append((cards[0], left))
        return plan

    def charge(self, user, res, mid: str, amount: float, purpose: str, at: dt.datetime) -> None:
        pm = user["payment_methods"][mid]
        if pm["type"] == "gift_card":
            pm["balance"] = _m(pm["balance"] - amount)
        elif pm["type"] == "travel_certificate":
            pm["status"] = "used"
            pm["used_on"] = res["reservation_id"]
        res["payment_history"].append({"payment_id": self.pay_id(), "kind": "charge", "method_id": mid,
                                       "method_type": pm["type"], "amount": _m(amount), "purpose": purpose,
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
        created = _parse(res["created_at"])
        legs = res["flights"]
        inst = [self.flights[f["flight_number"]]["dates"][f["date"]] for f in legs]
        first_dep = departure_at(self.flights[legs[0]["flight_number"]], legs[0]["date"])
        cancelled = [i for i, x in enumerate(inst) if x["status"] == "cancelled"]
        if cancelled:
            i = cancelled[0]
            when = _parse(inst[i]["cancelled_at"]) + dt.timedelta(minutes=rng.randint(20, 300))
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
                if inst[i]["cause"] not in _NO_COMP_CAUSES and not self.needs_manager(res, tier, cabin, "cancellation"):
                    self.compensate(res, user, tier, cabin, fn, old["date"], "cancellation", when)
            else:
                self.cancel(res, user, tier, cabin, "flight_cancelled_by_airline", when)
                # Not every customer has claimed compensation yet (the rest may still call in); claims
                # above the approval limit wait for the duty manager.
                if (inst[i]["cause"] not in _NO_COMP_CAUSES and rng.random() < 0.4
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
                        and x["cause"] not in _NO_COMP_CAUSES and rng.random() < 0.45
                        and not self.needs_manager(res, tier, cabin, "delay")):
                    arr = arrival_at(self.flights[f["flight_number"]], f["date"]) + dt.timedelta(minutes=x["delay_minutes"])
                    when = min(arr + dt.timedelta(minutes=rng.randint(30, 2000)), self.now - dt.timedelta(minutes=5))
                    self.compensate(res, user, tier, cabin, f["flight_number"], f["date"], "delay", when)
            comp = any(pm["type"] == "travel_certificate" and pm["origin"].get("reservation_id") == res["reservation_id"]
                       for pm in user["payment_methods"].values())
            if not comp and rng.random() < 0.02 and _parse(res["created_at"]) < self.now - dt.timedelta(days=1):
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
            net[mid] = _m(net.get(mid, 0) + a)
        for mid, a in refunded:
            net[mid] = _m(net[mid] - a)
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
                 "amount": _m(amount), "purpose": purpose, "at": self.ts(at)}
        if typ == "credit_card":
            days = rng.randint(max(1, int(v["card_refund_max_business_days"]) - 2), int(v["card_refund_max_business_days"]))
            posted = _add_business_days(at.astimezone(self.tz).date(), days)
            entry["posted_on"] = posted.isoformat()
            entry["status"] = "posted" if posted <= self.today else "pending"
        elif typ == "gift_card":
            posted_at = at + dt.timedelta(minutes=rng.randint(1, int(v["gift_card_refund_hours"] * 60) - 1))
            entry["posted_at"] = self.ts(posted_at)
            entry["status"] = "posted" if posted_at <= self.now else "pending"
            if entry["status"] == "posted":
                pm = user["payment_methods"][mid]
                pm["balance"] = _m(pm["balance"] + amount)
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
        user["payment_methods"][cid] = {"id": cid, "type": "travel_certificate", "amount": _m(amount),
                                        "issued_at": self.ts(at), "expires_on": _add_months(issued, months).isoformat(),
                                        "status": "active", "origin": origin, "approved_by": approved_by}
        return cid

    def compensate(self, res, user, tier, cabin, fn, date, kind, at: dt.datetime) -> None:
        v = self.v
        amount = _m(compensation_per_passenger(v, tier, cabin, kind) * len(res["passengers"]))
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
        at = _parse(res["created_at"]) + dt.timedelta(hours=self.rng.randint(2, 20))
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
        created = _parse(res["created_at"])
        deps = [departure_at(self.flights[f["flight_number"]], f["date"]) for f in res["flights"] + new]
        latest = min(min(deps) - dt.timedelta(minutes=v["change_cutoff_minutes"] + 60), self.now - dt.timedelta(minutes=10))
        if latest <= created + dt.timedelta(hours=1):
            return
        at = created + dt.timedelta(minutes=rng.randint(60, int((latest - created).total_seconds() // 60)))
        npax = len(res["passengers"])
        fee = _m(change_fee(v, cabin, tier) * npax)
        diff = _m((sum(f["price"] for f in new) - sum(f["price"] for f in res["flights"])) * npax)
        pay = fee + max(0, diff)
        mid = self.card_or_gift(user, pay)
        if mid is None:
            return
        old = res["flights"]
        res["flights"] = new
        res["fare_total"] = _m(sum(f["price"] for f in new) * npax)
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
        created = _parse(res["created_at"])
        dep = departure_at(self.flights[res["flights"][0]["flight_number"]], res["flights"][0]["date"])
        latest = min(dep - dt.timedelta(hours=2), self.now - dt.timedelta(minutes=10))
        if latest <= created + dt.timedelta(minutes=30):
            return
        at = created + dt.timedelta(minutes=rng.randint(30, int((latest - created).total_seconds() // 60)))
        total = res["total_bags"] + added
        paid = max(0, total - res["free_bags"])
        fee = _m((paid - res["paid_bags"]) * bag_fee_each(v, cabin))
        mid = self.card_or_gift(user, fee)
        if mid is None:
            return
        res["changes"].append({"type": "add_bags", "at": self.ts(at), "bags_added": added, "fee": fee})
        res["total_bags"], res["paid_bags"], res["bag_fee"] = total, paid, _m(res["bag_fee"] + fee)
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
        lo = max(day_start, _parse(res["created_at"]) + dt.timedelta(minutes=30))
        hi = min(dep_old, dep_new, self.now) - dt.timedelta(minutes=v["change_cutoff_minutes"] + 5)
        if hi <= lo:
            return
        at = lo + dt.timedelta(minutes=rng.randint(0, int((hi - lo).total_seconds() // 60)))
        npax = len(res["passengers"])
        fee = 0 if tier in ("navigator", "pinnacle") else _m(v["same_day_fee"] * npax)
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
        created = _parse(res["created_at"])
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
    if isinstance(price_scale, bool) or not isinstance(price_scale, (int, float)) or price_scale <= 0:
        raise FactforgeError(f"price_scale must be a positive number, not {price_scale!r}")
    g = _Gen(pack, seed, merged_values(values))
    g.price_scale = float(price_scale)
    g.build_flights()
    g.build_users(64)
    g.build_reservations(110, phase=1)
    g.build_reservations(120, phase=2)
    g.top_up()
    g.approvals()
    return {"flights": g.flights, "reservations": g.reservations, "users": g.users}


# ---------------------------------------------------------------- checks

def check(pack, db: dict, values: dict | None = None) -> list[str]:
    v = merged_values(values)
    cab, cab_key, _, tier_key = _names(pack)
    problems: list[str] = []
    P = problems.append
    flights, users, reservations = db.get("flights", {}), db.get("users", {}), db.get("reservations", {})
    for fn, f in sorted(flights.items()):
        for day, inst in sorted(f["dates"].items()):
            p = inst["prices"]
            if not (0 < p[cab["lite"]] < p[cab["main"]] < p[cab["premier"]]):
                P(f"flight {fn} {day}: cabin prices out of order {p}")
            if inst["status"] not in ("scheduled", "delayed", "departed", "landed", "cancelled"):
                P(f"flight {fn} {day}: unknown status {inst['status']}")
    for uid, u in sorted(users.items()):
        tier = tier_key.get(u["membership"]["tier"])
        if tier is None:
            P(f"user {uid}: unknown tier {u['membership']['tier']}")
        elif tier != tier_for_miles(v, u["membership"]["qualifying_miles"]):
            P(f"user {uid}: tier {u['membership']['tier']} does not match {u['membership']['qualifying_miles']} miles")
        for rid in u["reservations"]:
            if rid not in reservations or reservations[rid]["user_id"] != uid:
                P(f"user {uid}: reservation {rid} missing or owned by someone else")
    for rid, r in sorted(reservations.items()):
        _check_reservation(v, pack.info.now, cab_key, tier_key, flights, users, rid, r, P)
    _check_gift_cards_and_certificates(v, users, reservations, flights, cab_key, tier_key, P)
    _check_vouchers_and_handoffs(v, db, P)
    return problems


def _check_vouchers_and_handoffs(v, db, P) -> None:
    flights, users, reservations = db.get("flights", {}), db.get("users", {}), db.get("reservations", {})
    for vid, x in sorted(db.get("vouchers", {}).items()):
        r = reservations.get(x["reservation_id"])
        inst = flights.get(x["flight_number"], {}).get("dates", {}).get(x["date"])
        if r is None or inst is None or not any(f["flight_number"] == x["flight_number"] and f["date"] == x["date"]
                                                for f in r["flights"] + [o for c in r["changes"]
                                                                         for o in c.get("old_flights", [])]):
            P(f"voucher {vid}: not for a flight of reservation {x['reservation_id']}")
            continue
        npax = len(r["passengers"])
        if x["kind"] == "meal":
            if inst["delay_minutes"] < v["meal_delay_hours"] * 60:
                P(f"voucher {vid}: meal voucher for a delay of {inst['delay_minutes']} minutes")
            if abs(x["amount"] - v["meal_voucher"] * npax) > 0.005:
                P(f"voucher {vid}: meal voucher of {x['amount']} != {_m(v['meal_voucher'] * npax)}")
        else:
            if inst["status"] != "cancelled":
                P(f"voucher {vid}: hotel voucher for a flight that was not cancelled")
            if x["amount"] > v["hotel_max"] + 0.005:
                P(f"voucher {vid}: hotel voucher of {x['amount']} above {v['hotel_max']}")
    for hid, h in sorted(db.get("handoffs", {}).items()):
        if h["user_id"] not in users:
            P(f"handoff {hid}: unknown user {h['user_id']}")
        elif h["reservation_id"] and reservations.get(h["reservation_id"], {}).get("user_id") != h["user_id"]:
            P(f"handoff {hid}: reservation {h['reservation_id']} is not the user's")


def _check_reservation(v, now, cab_key, tier_key, flights, users, rid, r, P) -> None:
    u = users.get(r["user_id"])
    if u is None:
        P(f"reservation {rid}: unknown user {r['user_id']}")
        return
    if rid not in u["reservations"]:
        P(f"reservation {rid}: not listed on user {r['user_id']}")
    tier = tier_key.get(u["membership"]["tier"], "wayfarer")
    cabin = cab_key.get(r["cabin"])
    if cabin is None:
        P(f"reservation {rid}: unknown cabin {r['cabin']}")
        return
    npax = len(r["passengers"])
    if not 1 <= npax <= v["max_passengers"]:
        P(f"reservation {rid}: {npax} passengers (limit {v['max_passengers']})")
    for leg in r["flights"]:
        if leg["flight_number"] not in flights or leg["date"] not in flights[leg["flight_number"]]["dates"]:
            P(f"reservation {rid}: unknown flight {leg['flight_number']} on {leg['date']}")
            return
    first = r["flights"][0]
    first_dep = departure_at(flights[first["flight_number"]], first["date"])
    day = first_dep.date()
    ages = [_age_on(p["date_of_birth"], day) for p in r["passengers"]]
    if any(a < v["minor_age"] for a in ages) and not any(a >= v["companion_age"] for a in ages):
        P(f"reservation {rid}: minor without a companion aged {v['companion_age']}+")
    _check_itinerary(v, flights, rid, r, P)
    created = _parse(r["created_at"])
    stamps = [created] + [_parse(c["at"]) for c in r["changes"]] + [_parse(p["at"]) for p in r["payment_history"]]
    if r["cancellation"]:
        stamps.append(_parse(r["cancellation"]["cancelled_at"]))
    if max(stamps) > now:
        P(f"reservation {rid}: has events after the world clock {now.isoformat()}")
    initial = r["changes"][0]["old_flights"] if r["changes"] and "old_flights" in r["changes"][0] else r["flights"]
    ini_dep = departure_at(flights[initial[0]["flight_number"]], initial[0]["date"])
    if created < ini_dep - dt.timedelta(days=v["booking_horizon_days"]):
        P(f"reservation {rid}: booked more than {v['booking_horizon_days']} days ahead")
    if created > ini_dep - dt.timedelta(minutes=v["booking_close_minutes"]):
        P(f"reservation {rid}: booked after booking closed")
    for leg in initial:
        inst = flights[leg["flight_number"]]["dates"][leg["date"]]
        if "rebooked_from" not in leg and "same_day_from" not in leg and leg["price"] != inst["prices"][r["cabin"]]:
            P(f"reservation {rid}: price {leg['price']} for {leg['flight_number']} {leg['date']} != flight record {inst['prices'][r['cabin']]}")
    fares0 = _m(sum(f["price"] for f in initial) * npax)
    if abs(fares0 - r["booking_charge"]["fares"]) > 0.005:
        P(f"reservation {rid}: booked fares {r['booking_charge']['fares']} != {fares0}")
    if abs(_m(sum(f["price"] for f in r["flights"]) * npax) - r["fare_total"]) > 0.005:
        P(f"reservation {rid}: fare_total {r['fare_total']} does not match its flights")
    free = free_bags(v, tier, cabin) * npax
    each = bag_fee_each(v, cabin)
    if r["free_bags"] != free:
        P(f"reservation {rid}: free bags {r['free_bags']} != {free} ({u['membership']['tier']}, {r['cabin']})")
    if r["total_bags"] > v["max_bags_per_passenger"] * npax:
        P(f"reservation {rid}: {r['total_bags']} bags exceeds {v['max_bags_per_passenger']} per passenger")
    if r["paid_bags"] != max(0, r["total_bags"] - free):
        P(f"reservation {rid}: paid bags {r['paid_bags']} inconsistent with allowance")
    if abs(r["bag_fee"] - r["paid_bags"] * each) > 0.005:
        P(f"reservation {rid}: bag fee {r['bag_fee']} != {r['paid_bags']} x {each}")
    added = sum(c["bags_added"] for c in r["changes"] if c["type"] == "add_bags")
    bags0 = r["total_bags"] - added
    fee0 = _m(max(0, bags0 - free) * each)
    if abs(r["booking_charge"]["bags"] - fee0) > 0.005:
        P(f"reservation {rid}: bag fee at booking {r['booking_charge']['bags']} != {fee0}")
    ins = _m(v["insurance_per_passenger"] * npax) if r["insurance"] else 0
    if abs(r["insurance_fee"] - ins) > 0.005 or abs(r["booking_charge"]["insurance"] - ins) > 0.005:
        P(f"reservation {rid}: insurance fee {r['insurance_fee']} != {ins}")
    _check_payments(v, u, rid, r, P)
    _check_changes(v, flights, rid, r, tier, cabin, free, each, bags0, P)
    last = r["flights"][-1]
    done = departure_at(flights[last["flight_number"]], last["date"]) <= now
    want_status = "cancelled" if r["cancellation"] else "completed" if done else "confirmed"
    if not r["cancellation"]:
        for leg in r["flights"]:
            if flights[leg["flight_number"]]["dates"][leg["date"]]["status"] == "cancelled":
                P(f"reservation {rid}: still holds cancelled flight {leg['flight_number']} on {leg['date']}")
    if r["status"] != want_status:
        P(f"reservation {rid}: status {r['status']} should be {want_status}")
    if r["cancellation"]:
        _check_cancellation(v, flights, u, rid, r, tier, cabin, first_dep, P)


def _check_itinerary(v, flights, rid, r, P) -> None:
    legs = r["flights"]
    for a, b in zip(legs, legs[1:]):
        if flights[a["flight_number"]]["destination"] != flights[b["flight_number"]]["origin"]:
            P(f"reservation {rid}: flights {a['flight_number']} and {b['flight_number']} do not connect")
    for leg in legs:
        f = flights[leg["flight_number"]]
        if (leg["origin"], leg["destination"]) != (f["origin"], f["destination"]):
            P(f"reservation {rid}: leg {leg['flight_number']} route mismatch")
    if legs[0]["origin"] != r["origin"]:
        P(f"reservation {rid}: first flight does not leave from {r['origin']}")
    if r["trip_type"] == "one_way":
        if legs[-1]["destination"] != r["destination"]:
            P(f"reservation {rid}: one-way trip does not end at {r['destination']}")
        n_out = len(legs)
    else:
        idx = [i for i, leg in enumerate(legs) if leg["destination"] == r["destination"]]
        if not idx or legs[-1]["destination"] != r["origin"]:
            P(f"reservation {rid}: round trip does not return to {r['origin']}")
            return
        n_out = idx[0] + 1
        if len(legs) - n_out > v["max_flights_per_direction"]:
            P(f"reservation {rid}: more than {v['max_flights_per_direction']} return flights")
    if n_out > v["max_flights_per_direction"]:
        P(f"reservation {rid}: more than {v['max_flights_per_direction']} outbound flights")


def _check_payments(v, u, rid, r, P) -> None:
    pms = u["payment_methods"]
    kinds: dict[str, set[str]] = {"credit_card": set(), "gift_card": set(), "travel_certificate": set()}
    total = 0.0
    for p in r["payment_history"]:
        pm = pms.get(p["method_id"])
        if pm is None:
            P(f"reservation {rid}: payment {p['payment_id']} uses a method not in the profile")
            continue
        if pm["type"] != p["method_type"]:
            P(f"reservation {rid}: payment {p['payment_id']} method type mismatch")
        if p["kind"] == "charge":
            kinds[pm["type"]].add(p["method_id"])
            total += p["amount"]
            if pm["type"] == "travel_certificate" and p["purpose"] != "booking":
                P(f"reservation {rid}: travel certificate used for {p['purpose']}")
            if pm["type"] == "travel_certificate" and p["amount"] > pm["amount"] + 0.005:
                P(f"reservation {rid}: certificate {p['method_id']} charged more than its amount")
    if len(kinds["credit_card"]) > v["max_credit_cards"]:
        P(f"reservation {rid}: {len(kinds['credit_card'])} credit cards (limit {v['max_credit_cards']})")
    if len(kinds["gift_card"]) > v["max_gift_cards"]:
        P(f"reservation {rid}: {len(kinds['gift_card'])} gift cards (limit {v['max_gift_cards']})")
    if len(kinds["travel_certificate"]) > v["max_certificates"]:
        P(f"reservation {rid}: {len(kinds['travel_certificate'])} certificates (limit {v['max_certificates']})")
    if total > v["max_reservation_total"] + 0.005:
        P(f"reservation {rid}: total charged {total} exceeds {v['max_reservation_total']}")
    booking = sum(p["amount"] for p in r["payment_history"] if p["kind"] == "charge" and p["purpose"] == "booking")
    bc = r["booking_charge"]
    if abs(booking - (bc["fares"] + bc["bags"] + bc["insurance"])) > 0.005:
        P(f"reservation {rid}: booking charges {_m(booking)} != fares + bags + insurance {_m(bc['fares'] + bc['bags'] + bc['insurance'])}")


def _check_changes(v, flights, rid, r, tier, cabin, free, each, bags0, P) -> None:
    npax = len(r["passengers"])
    pays: dict[str, float] = {}
    for p in r["payment_history"]:
        if p["kind"] == "charge" and p["purpose"] != "booking":
            pays[p["purpose"]] = _m(pays.get(p["purpose"], 0) + p["amount"])
    want: dict[str, float] = {}
    bags = bags0
    for c in r["changes"]:
        at = _parse(c["at"])
        if at < _parse(r["created_at"]):
            P(f"reservation {rid}: change before booking")
        if c["type"] in ("flight_change", "same_day_change"):
            if c["type"] == "flight_change" and cabin == "lite":
                P(f"reservation {rid}: flights changed on a Lite reservation")
            o, n = c["old_flights"], c["new_flights"]
            if (o[0]["origin"], o[-1]["destination"]) != (n[0]["origin"], n[-1]["destination"]) or len(o) != len(n):
                P(f"reservation {rid}: {c['type']} changed the route")
            for leg in o:
                if departure_at(flights[leg["flight_number"]], leg["date"]) - at < dt.timedelta(minutes=v["change_cutoff_minutes"]):
                    P(f"reservation {rid}: {c['type']} later than {v['change_cutoff_minutes']} minutes before departure")
            if c["type"] == "flight_change":
                fee = _m(change_fee(v, cabin, tier) * npax)
                diff = _m((sum(f["price"] for f in n) - sum(f["price"] for f in o)) * npax)
                if abs(c["fare_difference"] - diff) > 0.005:
                    P(f"reservation {rid}: fare difference {c['fare_difference']} != {diff}")
            else:
                fee = 0 if tier in ("navigator", "pinnacle") else _m(v["same_day_fee"] * npax)
                if o[0]["date"] != n[0]["date"] or n[0]["price"] != o[0]["price"] or c["fare_difference"] != 0:
                    P(f"reservation {rid}: same-day change moved the date or charged a fare difference")
            if abs(c["change_fee"] - fee) > 0.005:
                P(f"reservation {rid}: {c['type']} fee {c['change_fee']} != {fee}")
            want[c["type"]] = _m(want.get(c["type"], 0) + c["change_fee"] + max(0, c["fare_difference"]))
        elif c["type"] == "rebooking":
            for old, new in zip(c["old_flights"], c["new_flights"]):
                if flights[old["flight_number"]]["dates"][old["date"]]["status"] != "cancelled":
                    P(f"reservation {rid}: rebooking from a flight that was not cancelled")
                if (old["origin"], old["destination"]) != (new["origin"], new["destination"]) or new["date"] < old["date"]:
                    P(f"reservation {rid}: rebooking is not on the same route")
            if c["change_fee"] or c["fare_difference"]:
                P(f"reservation {rid}: rebooking after a Larkspur cancellation was charged")
        elif c["type"] == "add_bags":
            fee = _m((max(0, bags + c["bags_added"] - free) - max(0, bags - free)) * each)
            bags += c["bags_added"]
            if abs(c["fee"] - fee) > 0.005:
                P(f"reservation {rid}: added-bag fee {c['fee']} != {fee}")
            heavy = c.get("overweight_bags", 0) * (0 if cabin == "premier" else v["overweight_fee"])
            if abs(c.get("overweight_fee", 0) - heavy) > 0.005:
                P(f"reservation {rid}: overweight fee {c.get('overweight_fee', 0)} != {_m(heavy)}")
            want["add_bags"] = _m(want.get("add_bags", 0) + c["fee"] + c.get("overweight_fee", 0))
        elif c["type"] == "name_correction":
            if c["characters_changed"] > v["name_correction_max_chars"] or c["fee"] != 0:
                P(f"reservation {rid}: name correction of {c['characters_changed']} characters (fee {c['fee']})")
        elif c["type"] == "add_passenger":
            P(f"reservation {rid}: a passenger was added after booking")
        elif c["type"] == "add_insurance":
            P(f"reservation {rid}: TripGuard was added after booking")
        else:
            P(f"reservation {rid}: unknown change type {c['type']}")
    for k in sorted(set(want) | set(pays)):
        if abs(want.get(k, 0) - pays.get(k, 0)) > 0.005:
            P(f"reservation {rid}: {k} charges {pays.get(k, 0)} != {want.get(k, 0)}")


def _check_cancellation(v, flights, u, rid, r, tier, cabin, first_dep, P) -> None:
    c = r["cancellation"]
    at = _parse(c["cancelled_at"])
    if at >= first_dep:
        P(f"reservation {rid}: cancelled after its first flight departed")
    if c["reason"] == "flight_cancelled_by_airline" and not any(
            flights[f["flight_number"]]["dates"][f["date"]]["status"] == "cancelled" for f in r["flights"]):
        P(f"reservation {rid}: cancelled for an airline cancellation but no flight was cancelled")
    due, _rule = refund_due(v, r, tier, cabin, first_dep)
    if abs(c["refund_amount"] - due) > 0.005:
        P(f"reservation {rid}: refund {c['refund_amount']} != {due} under the cancellation rules")
    refunds = [p for p in r["payment_history"] if p["kind"] == "refund" and p["purpose"] == "cancellation"]
    if abs(sum(p["amount"] for p in refunds) - c["refund_amount"]) > 0.005:
        P(f"reservation {rid}: refunds paid {_m(sum(p['amount'] for p in refunds))} != refund amount {c['refund_amount']}")
    net: dict[str, list] = {}
    for p in r["payment_history"]:
        if p["purpose"] == "cancellation":
            continue
        e = net.setdefault(p["method_id"], [p["method_type"], 0.0])
        e[1] += p["amount"] if p["kind"] == "charge" else -p["amount"]
    expected = split_refund(c["refund_amount"], [(k, t, _m(a)) for k, (t, a) in net.items()])
    got = [(p["method_id"], p["method_type"], p["amount"]) for p in refunds]
    if sorted(expected) != sorted(got):
        P(f"reservation {rid}: refund routing {got} != {expected}")
    for p in refunds:
        if p["status"] == "pending" and p.get("posted_on", p.get("posted_at")) is None:
            continue  # with the card processor or the gift card ledger, not posted yet
        if p["method_type"] == "credit_card":
            n = _business_days_between(at.date(), dt.date.fromisoformat(p["posted_on"]))
            if n > v["card_refund_max_business_days"]:
                P(f"reservation {rid}: card refund posts after {n} business days")
        elif p["method_type"] == "gift_card":
            if _parse(p["posted_at"]) - at > dt.timedelta(hours=v["gift_card_refund_hours"]):
                P(f"reservation {rid}: gift card refund later than {v['gift_card_refund_hours']} hours")
        else:
            new = u["payment_methods"].get(p.get("reissued_as", ""))
            if new is None or abs(new["amount"] - p["amount"]) > 0.005 or new["origin"].get("kind") != "reissue":
                P(f"reservation {rid}: certificate refund not reissued as a certificate of {p['amount']}")


def _check_gift_cards_and_certificates(v, users, reservations, flights, cab_key, tier_key, P) -> None:
    for uid, u in sorted(users.items()):
        tier = tier_key.get(u["membership"]["tier"], "wayfarer")
        for mid, pm in sorted(u["payment_methods"].items()):
            if pm["type"] == "gift_card":
                bal = pm["loaded_amount"]
                for rid in u["reservations"]:
                    for p in reservations.get(rid, {}).get("payment_history", []):
                        if p["method_id"] == mid:
                            if p["kind"] == "charge":
                                bal -= p["amount"]
                            elif p.get("status") == "posted":
                                bal += p["amount"]
                if abs(_m(bal) - pm["balance"]) > 0.005 or pm["balance"] < -0.005:
                    P(f"user {uid}: gift card {mid} balance {pm['balance']} != ledger {_m(bal)}")
            if pm["type"] != "travel_certificate":
                continue
            o = pm["origin"]
            issued = _parse(pm["issued_at"])
            months = v["reissued_certificate_months"] if o["kind"] == "reissue" else v["compensation_certificate_months"]
            if pm["expires_on"] != _add_months(issued.date(), int(months)).isoformat():
                P(f"user {uid}: certificate {mid} expiry {pm['expires_on']} is not {int(months)} months after issue")
            res = reservations.get(o.get("reservation_id"))
            if res is None or res["user_id"] != uid:
                P(f"user {uid}: certificate {mid} refers to unknown reservation {o.get('reservation_id')}")
                continue
            npax = len(res["passengers"])
            cabin = cab_key[res["cabin"]]
            if o["kind"] == "compensation":
                inst = flights.get(o["flight_number"], {}).get("dates", {}).get(o["date"])
                if inst is None or not any(f["flight_number"] == o["flight_number"] and f["date"] == o["date"]
                                           for f in res["flights"] + [x for c in res["changes"] for x in c.get("old_flights", [])]):
                    P(f"user {uid}: certificate {mid} for a flight not on reservation {res['reservation_id']}")
                    continue
                if inst["cause"] in _NO_COMP_CAUSES:
                    P(f"user {uid}: certificate {mid} compensates a {inst['cause']} disruption")
                if o["disruption"] == "delay" and inst["delay_minutes"] < v["delay_threshold_hours"] * 60:
                    P(f"user {uid}: certificate {mid} for a delay of only {inst['delay_minutes']} minutes")
                if o["disruption"] == "cancellation" and inst["status"] != "cancelled":
                    P(f"user {uid}: certificate {mid} for a flight that was not cancelled")
                want = _m(compensation_per_passenger(v, tier, cabin, o["disruption"]) * npax)
                if abs(pm["amount"] - want) > 0.005:
                    P(f"user {uid}: compensation certificate {mid} is {pm['amount']}, policy gives {want}")
                same = [k for k, x in u["payment_methods"].items() if x["type"] == "travel_certificate"
                        and x["origin"].get("kind") == "compensation" and x["origin"].get("reservation_id") == o["reservation_id"]
                        and x["origin"].get("flight_number") == o["flight_number"] and x["origin"].get("date") == o["date"]]
                if len(same) > 1:
                    P(f"user {uid}: flight {o['flight_number']} {o['date']} compensated {len(same)} times")
            elif o["kind"] == "goodwill":
                if pm["amount"] > v["goodwill_max"]:
                    P(f"user {uid}: goodwill certificate {mid} of {pm['amount']} exceeds {v['goodwill_max']}")
            if o["kind"] in ("compensation", "goodwill"):
                upto = sum(x["amount"] for x in u["payment_methods"].values() if x["type"] == "travel_certificate"
                           and x["origin"].get("kind") in ("compensation", "goodwill")
                           and x["origin"].get("reservation_id") == o["reservation_id"]
                           and (x["issued_at"], x["id"]) <= (pm["issued_at"], mid))
                if upto > v["manager_approval_above"] and not pm.get("approved_by"):
                    P(f"user {uid}: compensation of {upto} on {o['reservation_id']} lacks manager approval")
            if pm["status"] == "used":
                uses = [p for p in reservations.get(pm.get("used_on"), {}).get("payment_history", [])
                        if p["method_id"] == mid and p["kind"] == "charge"]
                if len(uses) != 1:
                    P(f"user {uid}: used certificate {mid} has {len(uses)} charges")
                elif _parse(reservations[pm["used_on"]]["created_at"]) <= issued:
                    P(f"user {uid}: certificate {mid} used before it was issued")


# ---------------------------------------------------------------- contract

class Airline(DomainCode):
    """The airline pack's code: seed, check, API (api.py) and held-out tests (scenarios.py)."""

    values = VALUES
    value_facts = VALUE_FACTS
    scales_prices = True
    test_quota = TestQuota(min_tests=60, min_trap_share=0.4, full_value_coverage=True)

    def generate(self, pack, seed, values=None, price_scale=1.0):
        return generate(pack, seed, values, price_scale)

    def check(self, pack, db, values=None):
        return check(pack, db, values)

    def merged_values(self, values=None):
        return merged_values(values)

    def api(self, pack, values=None):
        from .api import CATALOG  # noqa: PLC0415
        return CATALOG.bind(pack, merged_values(values))

    def scenarios(self, ctx):
        from .scenarios import scenarios  # noqa: PLC0415
        return scenarios(ctx)


DOMAIN = Airline()
