"""The Larkspur Airways API: customers, reservations, flights, bookings, changes,
cancellations, bags, passenger names, compensation and hand-offs.

Every policy quantity is an argument: fares come from the flight records, but bag fees,
free-bag allowances, TripGuard premiums, change fees, fare differences, refunds and where
they go, compensation amounts and approvals are what the caller says. Nothing here refuses
a request the policy forbids (a Lite flight change, a seventh passenger, TripGuard added
after booking). Book-keeping is the system's: ids, timestamps (the world clock), gift card
balances, certificates marked used, refunds recorded as pending with the card processor,
reissued and compensation certificates' expiry (their published validity).
"""
from __future__ import annotations

import datetime as dt
from typing import Any, Literal, Optional

from pydantic import Field

from domains import records
from domains.apikit import (ApiContext, Args, Catalog, Money, Result, SignedMoney, code_id, conflict, invalid,
                            next_id, not_found, projection, row)
from domains.payments import Ledger, MethodAmount, Payment
from domains.records import EmailArgs, find_by_email, record_handoff
from domains.seedkit import add_months, money

from . import model
from .rules import arrival_at, departure_at

CATALOG = Catalog("airline", title="Larkspur Airways Reservations API",
                  description="Customer profiles, flights and reservations of Larkspur Airways: search, book, "
                              "change, cancel, bags, names, compensation certificates and hand-offs to staff.")

Cabin = str
ChangeType = Literal["flight_change", "same_day_change", "rebooking"]
Desk = Literal["human_agent", "duty_manager", "baggage_services"]


# ------------------------------------------------------------------------------ results

Address = projection(records.Address)
Membership = projection(model.Membership)
PaymentMethod = projection(model.PaymentMethod, "id type brand last_four expires balance amount status issued_at "
                                                "expires_on",
                           status=Optional[str], issued_at=Optional[dt.datetime], expires_on=Optional[dt.date])
Person = projection(model.Person, date_of_birth=dt.date)
User = projection(model.User, "user_id name email phone date_of_birth address home_airport membership payment_methods "
                              "saved_passengers reservations",
                  date_of_birth=dt.date, address=Address, membership=Membership, payment_methods=list[PaymentMethod],
                  saved_passengers=list[Person])
UserRef = projection(model.User, "user_id name", title="UserRef")
Leg = projection(model.Leg, "flight_number date origin destination price", date=dt.date)
Cancellation = projection(model.Cancellation, "cancelled_at reason refund_amount", cancelled_at=dt.datetime, reason=str)
Reservation = projection(model.Reservation, "reservation_id user_id origin destination trip_type cabin created_at "
                                            "status flights passengers total_bags free_bags paid_bags bag_fee "
                                            "insurance insurance_fee fare_total changes payment_history cancellation",
                         created_at=dt.datetime, status=str, flights=list[Leg], passengers=list[Person],
                         changes=list[dict[str, Any]], payment_history=list[Payment],
                         cancellation=Optional[Cancellation])


class ReservationSummary(Result):
    reservation_id: str
    origin: str
    destination: str
    trip_type: str
    cabin: str
    status: str
    first_flight_date: dt.date


class ReservationList(Result):
    reservations: list[ReservationSummary]


class FlightOption(Result):
    flight_number: str
    origin: str
    destination: str
    date: dt.date
    scheduled_departure: dt.datetime
    scheduled_arrival: dt.datetime
    status: str
    prices: dict[str, float]
    seats_available: Optional[dict[str, int]] = None


class FlightList(Result):
    flights: list[FlightOption]


class Connection(Result):
    flights: list[FlightOption]
    layover_minutes: int


class ConnectionList(Result):
    itineraries: list[Connection]


class FlightStatus(Result):
    flight_number: str
    date: dt.date
    origin: str
    destination: str
    status: str
    delay_minutes: int
    cause: Optional[str] = None
    scheduled_departure: dt.datetime
    scheduled_arrival: dt.datetime


class Certificate(Result):
    id: str
    type: str
    amount: float
    status: str
    issued_at: dt.datetime
    expires_on: dt.date
    approved_by: Optional[str] = None


Voucher = projection(model.Voucher, date=dt.date, issued_at=dt.datetime)
Handoff = projection(model.Handoff, desk=str, at=dt.datetime)


# ------------------------------------------------------------------------------ helpers

LEDGER = Ledger("reservations", "reservation_id", "user_id", money, prefix="PY", start=100001,
                prefix_entity="payment", used_up=("travel_certificate",))


def _open_res(db: dict, rid: str) -> tuple[dict, dict]:
    """A reservation that is not cancelled, and its user."""
    r = row(db, "reservations", rid, "reservation")
    if r["cancellation"] is not None:
        raise conflict(f"reservation {rid} is cancelled", reservation_id=rid)
    return r, db["users"][r["user_id"]]


def _instance(db: dict, fn: str, date: str) -> tuple[dict, dict]:
    f = row(db, "flights", fn, "flight")
    inst = f["dates"].get(date)
    if inst is None:
        raise not_found("flight date", f"{fn} {date}", flight_number=fn)
    return f, inst


def _option(f: dict, date: str) -> dict:
    inst = f["dates"][date]
    return {"flight_number": f["flight_number"], "origin": f["origin"], "destination": f["destination"],
            "date": date, "scheduled_departure": departure_at(f, date), "scheduled_arrival": arrival_at(f, date),
            "status": inst["status"], "prices": inst["prices"], "seats_available": inst["seats_available"]}


def _all_method_ids(db: dict) -> set[str]:
    return {k for u in db["users"].values() for k in u["payment_methods"]}


def _certificate(ctx: ApiContext, db: dict, user: dict, amount: float, origin: dict, months: int,
                 approved_by: Optional[str]) -> dict:
    cid = next_id(_all_method_ids(db), ctx.prefix("certificate", "TC"), 9000001)
    pm = {"id": cid, "type": "travel_certificate", "amount": money(amount), "issued_at": ctx.ts(),
          "expires_on": add_months(ctx.today, months).isoformat(), "status": "active", "origin": origin,
          "approved_by": approved_by}
    user["payment_methods"][cid] = pm
    return pm


def _refund(ctx: ApiContext, db: dict, user: dict, res: dict, mid: str, amount: float, purpose: str) -> None:
    """Record a refund: pending with the card processor or the gift card ledger; to a
    certificate, a new certificate is issued at once."""
    pm = user["payment_methods"][mid]
    entry = LEDGER.entry(ctx, db, pm, mid, "refund", amount, purpose)
    if pm["type"] == "credit_card":
        entry.update(status="pending", posted_on=None)
    elif pm["type"] == "gift_card":
        entry.update(status="pending", posted_at=None)
    else:
        new = _certificate(ctx, db, user, amount, {"kind": "reissue", "reservation_id": res["reservation_id"],
                                                    "original_certificate": mid},
                           int(ctx.values["reissued_certificate_months"]), None)
        entry.update(status="posted", reissued_as=new["id"])
    res["payment_history"].append(entry)


def _status(db: dict, ctx: ApiContext, res: dict) -> None:
    if res["cancellation"] is not None:
        res["status"] = "cancelled"
        return
    last = res["flights"][-1]
    f = db["flights"][last["flight_number"]]
    res["status"] = "completed" if departure_at(f, last["date"]) <= ctx.now else "confirmed"


# ------------------------------------------------------------------------------ reads

class UserArgs(Args):
    user_id: str


class ReservationArgs(Args):
    reservation_id: str


class SearchArgs(Args):
    origin: str = Field(min_length=3, max_length=3)
    destination: str = Field(min_length=3, max_length=3)
    date: dt.date


class FlightDateArgs(Args):
    flight_number: str
    date: dt.date


@CATALOG.read("/users/{user_id}", resource="user_id", tags=("customers",))
def get_user(ctx: ApiContext, db: dict, a: UserArgs) -> User:
    """Look up a Larkspur Loop member: profile, tier, stored payment methods, reservations."""
    return LEDGER.owner_view(row(db, "users", a.user_id, "user"))


@CATALOG.read("/users", tags=("customers",))
def find_user_by_email(ctx: ApiContext, db: dict, a: EmailArgs) -> UserRef:
    """Find the member whose profile has this email address."""
    uid, u = find_by_email(db, "users", a.email, "user")
    return {"user_id": uid, "name": u["name"]}


@CATALOG.read("/users/{user_id}/reservations", resource="user_id", collection="reservations",
              tags=("reservations",))
def list_user_reservations(ctx: ApiContext, db: dict, a: UserArgs) -> ReservationList:
    """The member's reservations (any status), in booking order."""
    u = row(db, "users", a.user_id, "user")
    out = []
    for rid in u["reservations"]:
        r = db["reservations"][rid]
        out.append({**r, "first_flight_date": r["flights"][0]["date"]})
    return {"reservations": out}


@CATALOG.read("/reservations/{reservation_id}", resource="reservation_id", tags=("reservations",))
def get_reservation(ctx: ApiContext, db: dict, a: ReservationArgs) -> Reservation:
    """Look up a reservation: flights, passengers, bags, TripGuard, payments, changes."""
    return row(db, "reservations", a.reservation_id, "reservation")


@CATALOG.read("/flights/search", collection="flights", tags=("flights",))
def search_flights(ctx: ApiContext, db: dict, a: SearchArgs) -> FlightList:
    """Direct flights between two airports on a date, with prices and seats per cabin."""
    d = a.date.isoformat()
    return {"flights": [_option(f, d) for _, f in sorted(db["flights"].items())
                        if f["origin"] == a.origin.upper() and f["destination"] == a.destination.upper()
                        and d in f["dates"]]}


@CATALOG.read("/flights/connections", collection="itineraries", tags=("flights",))
def search_connections(ctx: ApiContext, db: dict, a: SearchArgs) -> ConnectionList:
    """One-stop itineraries on a date (same-day connection of at least 45 minutes)."""
    d = a.date.isoformat()
    o, dest = a.origin.upper(), a.destination.upper()
    out = []
    for _, f1 in sorted(db["flights"].items()):
        if f1["origin"] != o or f1["destination"] == dest or d not in f1["dates"] or f1["arrival_day_offset"]:
            continue
        for _, f2 in sorted(db["flights"].items()):
            if f2["origin"] != f1["destination"] or f2["destination"] != dest or d not in f2["dates"]:
                continue
            gap = departure_at(f2, d) - arrival_at(f1, d)
            if gap >= dt.timedelta(minutes=45):
                out.append({"flights": [_option(f1, d), _option(f2, d)], "layover_minutes": int(gap.total_seconds() // 60)})
    return {"itineraries": out}


@CATALOG.read("/flights/{flight_number}/status", resource="flight_number", tags=("flights",))
def get_flight_status(ctx: ApiContext, db: dict, a: FlightDateArgs) -> FlightStatus:
    """Status of a flight on a date: scheduled, delayed (minutes, cause), departed, landed or cancelled."""
    d = a.date.isoformat()
    f, inst = _instance(db, a.flight_number, d)
    return {"flight_number": f["flight_number"], "date": d, "origin": f["origin"], "destination": f["destination"],
            "status": inst["status"], "delay_minutes": inst["delay_minutes"], "cause": inst["cause"],
            "scheduled_departure": departure_at(f, d), "scheduled_arrival": arrival_at(f, d)}


# ------------------------------------------------------------------------------ writes

class FlightRef(Args):
    flight_number: str
    date: dt.date


class PassengerIn(Args):
    first_name: str = Field(min_length=1)
    last_name: str = Field(min_length=1)
    date_of_birth: dt.date


class BookArgs(Args):
    user_id: str
    trip_type: Literal["one_way", "round_trip"]
    origin: str
    destination: str
    cabin: Cabin
    flights: list[FlightRef] = Field(min_length=1)
    passengers: list[PassengerIn] = Field(min_length=1)
    payments: list[MethodAmount] = Field(min_length=1)
    total_bags: int = Field(ge=0)
    free_bags: int = Field(ge=0)
    bag_fee: Money
    insurance: bool
    insurance_fee: Money


@CATALOG.write("/reservations", resource="user_id", tags=("reservations",))
def book_reservation(ctx: ApiContext, db: dict, a: BookArgs) -> Reservation:
    """Book a reservation. Fares are the flight records' prices for the cabin and date; the
    free-bag allowance, bag fee and TripGuard premium are the caller's; the payments must add
    up to fares + bag fee + premium."""
    u = row(db, "users", a.user_id, "user")
    legs = []
    for fr in a.flights:
        f, inst = _instance(db, fr.flight_number, fr.date.isoformat())
        if a.cabin not in inst["prices"]:
            raise invalid(f"unknown cabin {a.cabin!r}", cabins=sorted(inst["prices"]))
        legs.append({"flight_number": f["flight_number"], "date": fr.date.isoformat(), "origin": f["origin"],
                     "destination": f["destination"], "price": inst["prices"][a.cabin]})
    for p in a.payments:
        LEDGER.method(u, p.method_id)
    if len({p.method_id for p in a.payments}) != len(a.payments):
        raise invalid("a payment method appears twice")
    npax = len(a.passengers)
    fares = money(sum(leg["price"] for leg in legs) * npax)
    total = money(fares + a.bag_fee + a.insurance_fee)
    paid = money(sum(p.amount for p in a.payments))
    if abs(paid - total) > 0.005:
        raise invalid(f"payments add up to {paid}, the reservation costs {total} (fares {fares} + bags "
                      f"{a.bag_fee} + TripGuard {a.insurance_fee})", fares=fares, total=total, paid=paid)
    for p in a.payments:
        pm = u["payment_methods"][p.method_id]
        if pm["type"] == "gift_card" and p.amount > pm["balance"] + 0.005:
            raise invalid(f"gift card {p.method_id} holds {pm['balance']}", method_id=p.method_id)
        if pm["type"] == "travel_certificate" and pm["status"] != "active":
            raise conflict(f"travel certificate {p.method_id} is {pm['status']}", method_id=p.method_id)
    rid = code_id(set(db["reservations"]), ctx.prefix("reservation", "LK"),
                  [a.model_dump(mode="json"), len(db["reservations"])], length=5)
    paid_bags = max(0, a.total_bags - a.free_bags)
    res = {"reservation_id": rid, "user_id": a.user_id, "origin": a.origin.upper(),
           "destination": a.destination.upper(), "trip_type": a.trip_type, "cabin": a.cabin,
           "created_at": ctx.ts(), "status": "confirmed", "flights": legs,
           "passengers": [p.model_dump(mode="json") for p in a.passengers], "total_bags": a.total_bags,
           "free_bags": a.free_bags, "paid_bags": paid_bags, "bag_fee": money(a.bag_fee),
           "insurance": a.insurance, "insurance_fee": money(a.insurance_fee), "fare_total": fares,
           "booking_charge": {"fares": fares, "bags": money(a.bag_fee), "insurance": money(a.insurance_fee)},
           "changes": [], "payment_history": [], "cancellation": None}
    db["reservations"][rid] = res
    for p in a.payments:
        LEDGER.charge(ctx, db, u, res, p.method_id, p.amount, "booking")
    u["reservations"].append(rid)
    return res


class CancelArgs(Args):
    reservation_id: str
    reason: Literal["change_of_plans", "schedule_conflict", "covered_reason", "flight_cancelled_by_airline"]
    refunds: list[MethodAmount] = Field(default_factory=list)


@CATALOG.write("/reservations/{reservation_id}/cancel", resource="reservation_id", tags=("reservations",))
def cancel_reservation(ctx: ApiContext, db: dict, a: CancelArgs) -> Reservation:
    """Cancel a whole reservation, refunding the given amounts to the given payment methods
    (methods that paid for it). A refund to a travel certificate is reissued as a new
    certificate."""
    r, u = _open_res(db, a.reservation_id)
    LEDGER.check_refunds(r, a.refunds)
    amount = money(sum(x.amount for x in a.refunds))
    r["cancellation"] = {"cancelled_at": ctx.ts(), "reason": a.reason, "refund_amount": amount}
    for x in a.refunds:
        if x.amount > 0:
            _refund(ctx, db, u, r, x.method_id, x.amount, "cancellation")
    r["status"] = "cancelled"
    return r


class ChangeFlightsArgs(Args):
    reservation_id: str
    change_type: ChangeType
    flights: list[FlightRef] = Field(min_length=1)
    change_fee: Money
    fare_difference: SignedMoney
    payment_method_id: Optional[str] = None
    refunds: list[MethodAmount] = Field(default_factory=list)


@CATALOG.write("/reservations/{reservation_id}/flights", resource="reservation_id", tags=("reservations",))
def change_flights(ctx: ApiContext, db: dict, a: ChangeFlightsArgs) -> Reservation:
    """Replace a reservation's flights. A flight change reprices the new flights from the
    flight records; a same-day change and a rebooking keep the fares paid. The change fee
    plus a positive fare difference are charged to `payment_method_id`; a negative fare
    difference goes back as `refunds`."""
    r, u = _open_res(db, a.reservation_id)
    owed = money(a.change_fee + max(0.0, a.fare_difference))
    LEDGER.payer(u, a.payment_method_id, owed)
    LEDGER.check_refunds(r, a.refunds)
    if a.fare_difference < 0 and abs(sum(x.amount for x in a.refunds) + a.fare_difference) > 0.005:
        raise invalid("refunds must add up to the negative fare difference")
    if len(a.flights) != len(r["flights"]):
        raise invalid(f"the reservation has {len(r['flights'])} flights; give one replacement for each")
    new = []
    for old, fr in zip(r["flights"], a.flights):
        f, inst = _instance(db, fr.flight_number, fr.date.isoformat())
        leg = {"flight_number": f["flight_number"], "date": fr.date.isoformat(), "origin": f["origin"],
               "destination": f["destination"], "price": inst["prices"][r["cabin"]]}
        if a.change_type == "same_day_change":
            leg.update(price=old["price"], same_day_from=old["flight_number"])
        elif a.change_type == "rebooking":
            leg.update(price=old["price"], rebooked_from=old["date"])
        new.append(leg)
    old_legs = r["flights"]
    r["flights"] = new
    r["fare_total"] = money(sum(leg["price"] for leg in new) * len(r["passengers"]))
    r["changes"].append({"type": a.change_type, "at": ctx.ts(), "old_flights": old_legs, "new_flights": new,
                         "change_fee": money(a.change_fee), "fare_difference": money(a.fare_difference)})
    if owed > 0:
        LEDGER.charge(ctx, db, u, r, a.payment_method_id, owed, a.change_type)
    for x in a.refunds:
        if x.amount > 0:
            _refund(ctx, db, u, r, x.method_id, x.amount, "fare_difference")
    _status(db, ctx, r)
    return r


class AddBagsArgs(Args):
    reservation_id: str
    bags: int = Field(ge=1)
    overweight_bags: int = Field(0, ge=0)
    bag_fee: Money
    overweight_fee: Money = 0
    payment_method_id: Optional[str] = None


@CATALOG.write("/reservations/{reservation_id}/bags", resource="reservation_id", tags=("bags",))
def add_bags(ctx: ApiContext, db: dict, a: AddBagsArgs) -> Reservation:
    """Add checked bags to a reservation, charging the given bag fee and overweight fee."""
    r, u = _open_res(db, a.reservation_id)
    owed = money(a.bag_fee + a.overweight_fee)
    LEDGER.payer(u, a.payment_method_id, owed)
    if a.overweight_bags > a.bags:
        raise invalid("more overweight bags than bags added")
    r["total_bags"] += a.bags
    r["paid_bags"] = max(0, r["total_bags"] - r["free_bags"])
    r["bag_fee"] = money(r["bag_fee"] + a.bag_fee)
    change = {"type": "add_bags", "at": ctx.ts(), "bags_added": a.bags, "fee": money(a.bag_fee)}
    if a.overweight_bags or a.overweight_fee:
        change.update(overweight_bags=a.overweight_bags, overweight_fee=money(a.overweight_fee))
    r["changes"].append(change)
    if owed > 0:
        LEDGER.charge(ctx, db, u, r, a.payment_method_id, owed, "add_bags")
    return r


class NameArgs(Args):
    reservation_id: str
    passenger_index: int = Field(ge=0)
    first_name: str = Field(min_length=1)
    last_name: str = Field(min_length=1)


def _chars_changed(a: str, b: str) -> int:
    return sum(x != y for x, y in zip(a, b)) + abs(len(a) - len(b))


@CATALOG.write("/reservations/{reservation_id}/passengers/{passenger_index}/name", resource="reservation_id",
               tags=("passengers",))
def correct_passenger_name(ctx: ApiContext, db: dict, a: NameArgs) -> Reservation:
    """Correct a passenger's first and last name on a reservation (no charge)."""
    r, _ = _open_res(db, a.reservation_id)
    if a.passenger_index >= len(r["passengers"]):
        raise not_found("passenger", a.passenger_index, reservation_id=a.reservation_id)
    p = r["passengers"][a.passenger_index]
    for fld, new in (("first_name", a.first_name), ("last_name", a.last_name)):
        if p[fld] != new:
            r["changes"].append({"type": "name_correction", "at": ctx.ts(), "passenger_index": a.passenger_index,
                                 "field": fld, "old_value": p[fld], "new_value": new,
                                 "characters_changed": _chars_changed(p[fld], new), "fee": 0})
            p[fld] = new
    return r


class AddPassengerArgs(Args):
    reservation_id: str
    passenger: PassengerIn
    fare: Money
    payment_method_id: str


@CATALOG.write("/reservations/{reservation_id}/passengers", resource="reservation_id", tags=("passengers",))
def add_passenger(ctx: ApiContext, db: dict, a: AddPassengerArgs) -> Reservation:
    """Add a passenger to an existing reservation, charging the given fare."""
    r, u = _open_res(db, a.reservation_id)
    LEDGER.method(u, a.payment_method_id)
    r["passengers"].append(a.passenger.model_dump(mode="json"))
    r["changes"].append({"type": "add_passenger", "at": ctx.ts(), "fare": money(a.fare)})
    if a.fare > 0:
        LEDGER.charge(ctx, db, u, r, a.payment_method_id, a.fare, "add_passenger")
    return r


class InsuranceArgs(Args):
    reservation_id: str
    fee: Money
    payment_method_id: str


@CATALOG.write("/reservations/{reservation_id}/insurance", resource="reservation_id", tags=("reservations",))
def add_insurance(ctx: ApiContext, db: dict, a: InsuranceArgs) -> Reservation:
    """Add TripGuard to an existing reservation, charging the given premium."""
    r, u = _open_res(db, a.reservation_id)
    LEDGER.method(u, a.payment_method_id)
    if r["insurance"]:
        raise conflict("the reservation already has TripGuard")
    r["insurance"], r["insurance_fee"] = True, money(r["insurance_fee"] + a.fee)
    r["changes"].append({"type": "add_insurance", "at": ctx.ts(), "fee": money(a.fee)})
    if a.fee > 0:
        LEDGER.charge(ctx, db, u, r, a.payment_method_id, a.fee, "insurance")
    return r


class CertificateArgs(Args):
    user_id: str
    reservation_id: str
    amount: Money = Field(gt=0)
    kind: Literal["compensation", "goodwill"]
    disruption: Optional[Literal["delay", "cancellation"]] = None
    flight_number: Optional[str] = None
    date: Optional[dt.date] = None
    approved_by: Optional[str] = None


@CATALOG.write("/users/{user_id}/certificates", resource="user_id", tags=("compensation",))
def issue_certificate(ctx: ApiContext, db: dict, a: CertificateArgs) -> Certificate:
    """Issue a travel certificate of the given amount to a member (compensation for a
    disrupted flight of one of their reservations, or a goodwill gesture), valid for the
    published compensation validity."""
    u = row(db, "users", a.user_id, "user")
    r = row(db, "reservations", a.reservation_id, "reservation")
    if r["user_id"] != a.user_id:
        raise not_found("reservation", a.reservation_id, user_id=a.user_id)
    origin: dict[str, Any] = {"kind": a.kind, "reservation_id": a.reservation_id}
    if a.kind == "compensation":
        if a.disruption is None or a.flight_number is None or a.date is None:
            raise invalid("compensation needs disruption, flight_number and date")
        _instance(db, a.flight_number, a.date.isoformat())
        origin.update(flight_number=a.flight_number, date=a.date.isoformat(), disruption=a.disruption)
    pm = _certificate(ctx, db, u, a.amount, origin, int(ctx.values["compensation_certificate_months"]),
                      a.approved_by)
    return pm


class VoucherArgs(Args):
    reservation_id: str
    kind: Literal["meal", "hotel"]
    amount: Money = Field(gt=0)
    flight_number: str
    date: dt.date


@CATALOG.write("/reservations/{reservation_id}/vouchers", resource="reservation_id", tags=("compensation",))
def issue_voucher(ctx: ApiContext, db: dict, a: VoucherArgs) -> Voucher:
    """Issue a meal or hotel voucher of the given amount for a disrupted flight of a reservation."""
    row(db, "reservations", a.reservation_id, "reservation")
    _instance(db, a.flight_number, a.date.isoformat())
    vouchers = db.setdefault("vouchers", {})
    vid = next_id(vouchers, "VC", 1001)
    v = {"id": vid, "reservation_id": a.reservation_id, "kind": a.kind, "amount": money(a.amount),
         "flight_number": a.flight_number, "date": a.date.isoformat(), "issued_at": ctx.ts()}
    vouchers[vid] = v
    return v


class TransferArgs(Args):
    user_id: str
    desk: Desk
    reservation_id: Optional[str] = None
    summary: str = Field(min_length=1)


@CATALOG.write("/handoffs", resource="user_id", tags=("customers",))
def transfer_to_human(ctx: ApiContext, db: dict, a: TransferArgs) -> Handoff:
    """Transfer the customer to staff: a human agent, the duty manager or Baggage Services.
    The summary is passed to the colleague; the record keeps who, which desk and when."""
    row(db, "users", a.user_id, "user")
    if a.reservation_id is not None:
        row(db, "reservations", a.reservation_id, "reservation")
    return record_handoff(ctx, db, user_id=a.user_id, desk=a.desk, reservation_id=a.reservation_id)

