"""The airline policy as code: the values the seed database depends on (`VALUES`, each
linked to the policy sentence that states it, `VALUE_FACTS`; a variant may override any of
them) and the rules computed from them: bag allowances and fees, change fees, Larkspur Loop
tiers, compensation, refunds and where they go, flight times. The seed, the check, the API
and the held-out tests all use these.
"""
from __future__ import annotations

import datetime as dt

from domains.seedkit import merged_values, money, parse_ts

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
    "max_passengers": "at most … passengers",
    "max_flights_per_direction": "may include at most … flights",
    "booking_horizon_days": "up to … before departure",
    "booking_close_minutes": "Booking closes …",
    "minor_age": "A passenger under … years old",
    "companion_age": "who is at least … years old",
    "max_credit_cards": "at most … credit card",
    "max_gift_cards": "at most … gift cards",
    "max_certificates": "at most … travel certificate",
    "max_reservation_total": "single reservation may not exceed …",
    "tier_miles_voyager": "Voyager status requires at least …",
    "tier_miles_navigator": "Navigator status requires at least …",
    "tier_miles_pinnacle": "Pinnacle status requires at least …",
    "insurance_per_passenger": "TripGuard costs … per passenger",
    "free_bags_wayfarer_lite": "| Wayfarer | … bags",
    "free_bags_wayfarer_main": "| Wayfarer | … bags | … bag",
    "free_bags_wayfarer_premier": "| Wayfarer | … bags | … bag | … bags",
    "free_bags_voyager_lite": "| Voyager | … bag",
    "free_bags_voyager_main": "| Voyager | … bag | … bag",
    "free_bags_voyager_premier": "| Voyager | … bag | … bag | … bags",
    "free_bags_navigator_lite": "| Navigator | … bag",
    "free_bags_navigator_main": "| Navigator | … bag | … bags",
    "free_bags_navigator_premier": "| Navigator | … bag | … bags | … bags",
    "free_bags_pinnacle_lite": "| Pinnacle | … bags",
    "free_bags_pinnacle_main": "| Pinnacle | … bags | … bags",
    "free_bags_pinnacle_premier": "| Pinnacle | … bags | … bags | … bags",
    "extra_bag_fee": "extra checked bag in Lite or Main costs …",
    "extra_bag_fee_premier": "extra checked bag in Premier costs …",
    "max_bags_per_passenger": "check at most … bags",
    "change_fee_main_wayfarer": "| Main | …",
    "change_fee_main_voyager": "| Main | … | …",
    "change_fee_main_navigator": "| Main | … | … | …",
    "change_fee_main_pinnacle": "| Main | … | … | … | …",
    "change_fee_premier_wayfarer": "| Premier | …",
    "change_fee_premier_voyager": "| Premier | … | …",
    "change_fee_premier_navigator": "| Premier | … | … | …",
    "change_fee_premier_pinnacle": "| Premier | … | … | … | …",
    "change_cutoff_minutes": "at least … before the departure",
    "same_day_fee": "flat fee of … per passenger",
    "name_correction_max_chars": "up to … characters",
    "risk_free_hours": "cancelled within … of booking",
    "risk_free_min_days": "departs at least … after",
    "cancel_fee_main": "A Main reservation is refunded minus a cancellation fee of …",
    "premier_full_refund_hours": "cancelled at least … before departure",
    "cancel_fee_premier_late": "before departure is refunded minus a cancellation fee of …",
    "card_refund_max_business_days": "post within …",
    "gift_card_refund_hours": "credited within …",
    "reissued_certificate_months": "valid for … from its new issue date",
    "compensation_certificate_months": "compensation are valid for …",
    "delay_threshold_hours": "arrives at least … late",
    "comp_delay_wayfarer": "| Wayfarer | $50",
    "comp_delay_voyager": "| Voyager | $75",
    "comp_delay_navigator": "| Navigator | $100",
    "comp_delay_pinnacle": "| Pinnacle | $150",
    "comp_cancel_wayfarer": "| Wayfarer | … | …",
    "comp_cancel_voyager": "| Voyager | … | …",
    "comp_cancel_navigator": "| Navigator | … | …",
    "comp_cancel_pinnacle": "| Pinnacle | … | …",
    "comp_premier_extra": "extra … per passenger",
    "goodwill_max": "may not exceed … per reservation",
    "manager_approval_above": "Compensation above …",
    "overweight_fee": "costs an extra …",
    "meal_voucher": "meal voucher of …",
    "meal_delay_hours": "delayed …",
    "hotel_max": "hotel room of up to …",
}

CABINS = ("lite", "main", "premier")           # internal keys, lowest to highest
TIERS = ("wayfarer", "voyager", "navigator", "pinnacle")
CABIN_PRODUCT = {"lite": ("basic economy", "Lite"), "main": ("economy", "Main"),
                  "premier": ("business", "Premier")}
TIER_PRODUCT = {"wayfarer": ("base tier", "Wayfarer"), "voyager": ("second tier", "Voyager"),
                 "navigator": ("third tier", "Navigator"), "pinnacle": ("top tier", "Pinnacle")}
NO_COMP_CAUSES = ("weather", "air_traffic_control")


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


#: pairs of values that must stay strictly increasing, and values that must stay at least 1
INCREASING = (("tier_miles_voyager", "tier_miles_navigator"), ("tier_miles_navigator", "tier_miles_pinnacle"),
              ("minor_age", "companion_age"))
AT_LEAST_ONE = ("max_passengers", "max_flights_per_direction", "max_credit_cards", "max_bags_per_passenger",
                "card_refund_max_business_days", "gift_card_refund_hours", "risk_free_hours")


def values_with(values: dict | None) -> dict[str, float | int]:
    """VALUES with `values` overriding; unknown keys are a user error."""
    return merged_values(VALUES, values, "airline", increasing=INCREASING, at_least_one=AT_LEAST_ONE)


def names(pack) -> tuple[dict[str, str], dict[str, str], dict[str, str], dict[str, str]]:
    """cabin key -> display name, display -> key, tier key -> display, display -> key."""
    prod = pack.brand.products
    cab = {k: prod.get(g, d) for k, (g, d) in CABIN_PRODUCT.items()}
    tier = {k: prod.get(g, d) for k, (g, d) in TIER_PRODUCT.items()}
    return cab, {v: k for k, v in cab.items()}, tier, {v: k for k, v in tier.items()}


def free_bags(v: dict, tier: str, cabin: str) -> int:
    return int(v[f"free_bags_{tier}_{cabin}"])


def bag_fee_each(v: dict, cabin: str) -> float:
    return v["extra_bag_fee_premier"] if cabin == "premier" else v["extra_bag_fee"]


def change_fee(v: dict, cabin: str, tier: str) -> float:
    return v[f"change_fee_{cabin}_{tier}"]


def tier_for_miles(v: dict, miles: int) -> str:
    return next((t for t in ("pinnacle", "navigator", "voyager") if miles >= v[f"tier_miles_{t}"]), "wayfarer")


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
    at, created = parse_ts(c["cancelled_at"]), parse_ts(res["created_at"])
    pax = len(res["passengers"])
    fares, bags, ins = res["fare_total"], res["bag_fee"], res["insurance_fee"]
    risk_free = (at - created <= dt.timedelta(hours=v["risk_free_hours"])
                 and first_departure - created >= dt.timedelta(days=v["risk_free_min_days"]))
    if c["reason"] == "flight_cancelled_by_airline" or risk_free:
        return money(fares + bags + ins), "full"
    if c["reason"] == "covered_reason" and res["insurance"]:
        return money(fares + bags), "tripguard"
    if cabin == "lite":
        return 0, "lite_nonrefundable"
    if cabin == "main":
        fee = 0 if tier in ("navigator", "pinnacle") else v["cancel_fee_main"] * pax
        return money(max(0.0, fares - fee)), "main_fee"
    if first_departure - at >= dt.timedelta(hours=v["premier_full_refund_hours"]):
        return money(fares), "premier_early"
    return money(max(0.0, fares - v["cancel_fee_premier_late"] * pax)), "premier_late"


def split_refund(amount: float, charges: list[tuple[str, str, float]]) -> list[tuple[str, str, float]]:
    """Route a refund over (method id, method type, amount charged): credit card first,
    then gift cards (in charge order), travel certificate last."""
    order = {"credit_card": 0, "gift_card": 1, "travel_certificate": 2}
    out, left = [], amount
    for mid, typ, paid in sorted(charges, key=lambda c: order[c[1]]):
        if left <= 0.004:
            break
        part = money(min(paid, left))
        out.append((mid, typ, part))
        left = money(left - part)
    return out


# Every tier x cabin cell of the bag-allowance and change-fee tables keeps at least CELL_FLOOR
# open, unchanged reservations departing more than CELL_MIN_HOURS out, held by a member with a
# credit card: the rows the held-out tests of that cell are drawn from (`generate` plants
