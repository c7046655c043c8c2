"""The airline database, typed: what the seed writes and the API may add. Tables are dicts keyed
by id; timestamps and dates are ISO strings; amounts are dollars. Cabin and tier names are
the brand's (a variant renames them), so they are plain strings here."""
from __future__ import annotations

from typing import Literal, Optional

from domains.contract import Row
from domains.payments import LedgerEntry
from domains.records import Address

MethodType = Literal["credit_card", "gift_card", "travel_certificate"]


class FlightDate(Row):
    """A flight on one date: its status, any delay or cancellation, prices and seats per cabin."""
    status: Literal["scheduled", "delayed", "departed", "landed", "cancelled"]
    delay_minutes: int
    cause: Optional[str] = None
    cancelled_at: Optional[str] = None
    prices: dict[str, float]
    seats_available: Optional[dict[str, int]] = None


class Flight(Row):
    flight_number: str
    origin: str
    destination: str
    origin_city: str
    destination_city: str
    departure_local: str
    duration_minutes: int
    aircraft: str
    dates: dict[str, FlightDate]
    arrival_local: str
    arrival_day_offset: int


class Membership(Row):
    program: str
    tier: str
    qualifying_miles: int


class CertificateOrigin(Row):
    """Why a travel certificate was issued: compensation, goodwill, or a refund reissued."""
    kind: Literal["compensation", "goodwill", "reissue"]
    reservation_id: str
    flight_number: Optional[str] = None
    date: Optional[str] = None
    disruption: Optional[Literal["delay", "cancellation"]] = None
    original_certificate: Optional[str] = None


class PaymentMethod(Row):
    id: str
    type: MethodType
    brand: Optional[str] = None          # credit card
    last_four: Optional[str] = None      # credit card
    expires: Optional[str] = None        # credit card
    loaded_amount: Optional[float] = None  # gift card
    balance: Optional[float] = None      # gift card
    amount: Optional[float] = None       # travel certificate
    issued_at: Optional[str] = None
    expires_on: Optional[str] = None
    status: Optional[Literal["active", "used"]] = None
    origin: Optional[CertificateOrigin] = None
    approved_by: Optional[str] = None
    used_on: Optional[str] = None


class Person(Row):
    first_name: str
    last_name: str
    date_of_birth: str


class User(Row):
    user_id: str
    name: str
    first_name: str
    last_name: str
    email: str
    phone: str
    date_of_birth: str
    address: Address
    home_airport: str
    membership: Membership
    payment_methods: dict[str, PaymentMethod]
    saved_passengers: list[Person]
    reservations: list[str]


class Leg(Row):
    flight_number: str
    date: str
    origin: str
    destination: str
    price: float
    rebooked_from: Optional[str] = None
    same_day_from: Optional[str] = None


class Change(Row):
    """A change to a reservation: flights, bags, TripGuard, a passenger or a name."""
    type: Literal["flight_change", "same_day_change", "rebooking", "add_bags", "add_insurance", "add_passenger",
                  "name_correction"]
    at: str
    old_flights: Optional[list[Leg]] = None
    new_flights: Optional[list[Leg]] = None
    change_fee: Optional[float] = None
    fare_difference: Optional[float] = None
    passenger_index: Optional[int] = None
    field: Optional[str] = None
    old_value: Optional[str] = None
    new_value: Optional[str] = None
    characters_changed: Optional[int] = None
    fee: Optional[float] = None
    bags_added: Optional[int] = None
    overweight_bags: Optional[int] = None
    overweight_fee: Optional[float] = None
    fare: Optional[float] = None


class BookingCharge(Row):
    fares: float
    bags: float
    insurance: float


class Payment(LedgerEntry):
    method_type: MethodType
    posted_on: Optional[str] = None      # credit card refunds
    posted_at: Optional[str] = None      # gift card refunds
    reissued_as: Optional[str] = None    # certificate refunds


class Cancellation(Row):
    cancelled_at: str
    reason: Literal["change_of_plans", "schedule_conflict", "covered_reason", "flight_cancelled_by_airline"]
    refund_amount: float
    rule: Optional[str] = None


class Reservation(Row):
    reservation_id: str
    user_id: str
    origin: str
    destination: str
    trip_type: Literal["one_way", "round_trip"]
    cabin: str
    created_at: str
    status: Literal["confirmed", "completed", "cancelled"]
    flights: list[Leg]
    passengers: list[Person]
    total_bags: int
    free_bags: int
    paid_bags: int
    bag_fee: float
    insurance: bool
    insurance_fee: float
    fare_total: float
    booking_charge: BookingCharge
    changes: list[Change]
    payment_history: list[Payment]
    cancellation: Optional[Cancellation] = None


class Voucher(Row):
    id: str
    reservation_id: str
    kind: Literal["meal", "hotel"]
    amount: float
    flight_number: str
    date: str
    issued_at: str


class Handoff(Row):
    id: str
    user_id: str
    desk: Literal["human_agent", "duty_manager", "baggage_services"]
    reservation_id: Optional[str] = None
    at: str


class Database(Row):
    flights: dict[str, Flight]
    reservations: dict[str, Reservation]
    users: dict[str, User]
    vouchers: dict[str, Voucher] = {}
    handoffs: dict[str, Handoff] = {}
