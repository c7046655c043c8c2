"""The telecom database, typed: what the seed writes and the API may add (plan changes, added
lines, SIM swaps, unlock requests, late-fee waivers, payment arrangements, hand-offs)."""
from __future__ import annotations

import datetime as dt
from typing import Literal, Optional

from domains.contract import Row
from domains.records import Handoff

Status = Literal["active", "suspended", "cancelled"]


class Autopay(Row):
    enabled: bool
    method: str


class PlanChange(Row):
    requested_on: dt.date
    from_plan: str
    to_plan: str
    effective_on: dt.date
    prorated_charge: float
    status: Literal["applied", "scheduled"]


class Customer(Row):
    id: str
    name: str
    email: str
    zip: str
    date_of_birth: dt.date
    credit_class: str
    plan: str
    plan_name: str
    cycle_day: int
    opened_on: dt.date
    paperless: bool
    autopay: Autopay
    status: Status
    plan_changes: list[PlanChange] = []


class Sim(Row):
    iccid: str
    type: Literal["physical", "esim"]
    wrong_pin_attempts: int
    status: Literal["active", "suspended", "pin_locked"]


class StatusChange(Row):
    date: dt.date
    status: Status
    reason: str


class SimSwap(Row):
    date: dt.date
    sim_type: Literal["physical", "esim"]
    reason: str
    fee: float
    old_iccid: str


class Line(Row):
    id: str
    customer_id: str
    number: str
    plan: str
    user: str
    activated_on: dt.date
    status: Status
    sim: Sim
    status_history: list[StatusChange]
    device_id: str
    # a line added by an agent
    user_date_of_birth: Optional[dt.date] = None
    parental_controls: Optional[bool] = None
    added_on: Optional[dt.date] = None
    sim_swaps: list[SimSwap] = []


class Device(Row):
    id: str
    line_id: str
    model: str
    imei: str
    price: float
    purchased_on: dt.date
    financed: bool
    down_payment: float
    financed_amount: float
    monthly_installment: float
    installments_before_history: int
    installments_billed: int
    protection: bool
    unlocked: bool
    balance_remaining: float


class BillItem(Row):
    type: Literal["plan", "network_access_fee", "device_installment", "device_protection", "late_fee",
                  "reconnection_fee", "top_up", "roaming_pass", "autopay_discount"]
    amount: float
    line_id: Optional[str] = None
    device_id: Optional[str] = None
    for_bill_id: Optional[str] = None
    lines: Optional[int] = None
    top_up_id: Optional[str] = None
    roaming_pass_id: Optional[str] = None


class Bill(Row):
    id: str
    customer_id: str
    bill_date: dt.date
    due_date: dt.date
    paid_date: Optional[dt.date]
    items: list[BillItem]
    total: float
    status: Literal["paid", "collections", "overdue", "open"]


class Payment(Row):
    id: str
    bill_id: str
    customer_id: str
    date: dt.date
    amount: float
    method: Literal["autopay", "app", "online", "agent_phone"]
    fee: float


class TopUp(Row):
    id: str
    line_id: str
    size_gb: int
    date: dt.date
    price: float
    bill_id: Optional[str]


class RoamingPass(Row):
    id: str
    line_id: str
    region: str
    region_name: str
    date: dt.date
    price: float
    included: bool
    bill_id: Optional[str]


class Usage(Row):
    line_id: str
    cycle_start: dt.date
    data_used_gb: float
    hotspot_used_gb: float
    allowance_gb: float
    top_up_gb: float
    throttled: bool


class Attempt(Row):
    date: dt.date
    agent: str
    result: Literal["failed", "resolved"]


class Ticket(Row):
    id: str
    line_id: str
    issue: str
    opened_on: dt.date
    attempts: list[Attempt]
    status: Literal["open", "resolved", "escalated"]
    tier: int


class UnlockRequest(Row):
    id: str
    device_id: str
    requested_on: dt.date


class FeeWaiver(Row):
    id: str
    bill_id: str
    amount: float
    date: dt.date
    approved_by: Optional[str]


class Installment(Row):
    due_on: dt.date
    amount: float


class PaymentArrangement(Row):
    id: str
    customer_id: str
    bill_ids: list[str]
    created_on: dt.date
    installments: list[Installment]


class Database(Row):
    customers: dict[str, Customer]
    lines: dict[str, Line]
    devices: dict[str, Device]
    bills: dict[str, Bill]
    payments: dict[str, Payment]
    top_ups: dict[str, TopUp]
    roaming_passes: dict[str, RoamingPass]
    usage: dict[str, Usage]
    tickets: dict[str, Ticket]
    unlock_requests: dict[str, UnlockRequest] = {}
    fee_waivers: dict[str, FeeWaiver] = {}
    payment_arrangements: dict[str, PaymentArrangement] = {}
    handoffs: dict[str, Handoff] = {}
