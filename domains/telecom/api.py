"""The Kestrel Mobile care API: accounts, lines, bills, devices, usage and tickets; payments,
plan changes, new lines, top-ups, roaming passes, SIM replacements, unlocks, late-fee
waivers, payment arrangements, troubleshooting attempts and hand-offs.

Policy quantities are arguments: payment fees, top-up and pass prices, prorated upgrade
charges, SIM fees, waiver amounts, arrangement installments, whether a ticket is escalated.
Nothing here refuses what the policy forbids (a top-up on a suspended account, a downgrade
below the line count, a second waiver). The system keeps the books: ids, dates (the world
clock), bill and account status after a payment (the overdue rules of the billing system),
usage after a top-up or a plan change, pending plan changes at the next cycle.
"""
from __future__ import annotations

import datetime as dt
from typing import Any, Literal, Optional

from pydantic import Field

from domains.apikit import (ApiContext, Args, Catalog, Money, Result, conflict, invalid, next_id, not_found, owned,
                            projection, row)
from domains.records import CustomerArgs, record_handoff
from domains.seedkit import money

from . import model
from .rules import REGIONS, cycle_start, next_cycle, timeline

CATALOG = Catalog("telecom", title="Kestrel Mobile Care API",
                  description="Accounts, lines, bills, devices and support tickets of Kestrel Mobile.")

Plan = Literal["starter", "standard", "plus", "premium", "top"]
Region = Literal["canada_mexico", "caribbean", "europe", "asia_pacific", "latin_america", "middle_east_africa"]
Desk = Literal["human_agent", "billing_manager", "tier2"]


Autopay = projection(model.Autopay)
Customer = projection(model.Customer, autopay=Autopay, status=str, plan_changes=list[dict[str, Any]])
Sim = projection(model.Sim, type=str, status=str)
Line = projection(model.Line, "id customer_id number plan user activated_on status sim device_id parental_controls",
                  status=str, sim=Sim)


class LineList(Result):
    lines: list[Line]


BillItem = projection(model.BillItem, "type amount line_id for_bill_id", type=str)
Bill = projection(model.Bill, items=list[BillItem], status=str)


class BillList(Result):
    bills: list[Bill]


Device = projection(model.Device, "id line_id model imei price purchased_on financed monthly_installment "
                                  "installments_billed balance_remaining protection unlocked")
Usage = projection(model.Usage)
Ticket = projection(model.Ticket, attempts=list[dict[str, Any]], status=str)
PaymentRecord = projection(model.Payment, "id bill_id date amount method fee", title="PaymentRecord", method=str)
TopUp = projection(model.TopUp, "id line_id size_gb date price")
RoamingPass = projection(model.RoamingPass, "id line_id region date price included")


class Record(Result):
    id: str


# ------------------------------------------------------------------------------ helpers

def _refresh_status(ctx: ApiContext, db: dict, cid: str) -> None:
    """Account and line status after a payment, under the billing system's overdue rules."""
    bills = [b for b in db["bills"].values() if b["customer_id"] == cid]
    tl = timeline(bills, ctx.values, ctx.today)
    c = db["customers"][cid]
    if c["status"] == tl["status"]:
        return
    c["status"] = tl["status"]
    for ln in owned(db, "lines", cid):
        ln["status"] = tl["status"]
        ln["status_history"].append({"date": ctx.today.isoformat(), "status": tl["status"],
                                     "reason": "overdue balance paid" if tl["status"] == "active" else "non-payment"})
        if tl["status"] == "active" and ln["sim"]["status"] == "suspended":
            ln["sim"]["status"] = "active"


def _refresh_usage(ctx: ApiContext, db: dict, line_id: str) -> None:
    u = db["usage"].get(line_id)
    if u is None:
        return
    ln = db["lines"][line_id]
    c = db["customers"][ln["customer_id"]]
    start = cycle_start(ctx.today, c["cycle_day"]).isoformat()
    u["allowance_gb"] = ctx.values[f"data_gb_{c['plan']}"]
    u["top_up_gb"] = sum(t["size_gb"] for t in db["top_ups"].values() if t["line_id"] == line_id and t["date"] >= start)
    u["throttled"] = u["data_used_gb"] >= u["allowance_gb"] + u["top_up_gb"]


# ------------------------------------------------------------------------------ reads

class PhoneArgs(Args):
    number: str


class LineArgs(Args):
    line_id: str


class BillArgs(Args):
    bill_id: str


class DeviceArgs(Args):
    device_id: str


class TicketArgs(Args):
    ticket_id: str


@CATALOG.read("/customers/{customer_id}", resource="customer_id", tags=("accounts",))
def get_customer(ctx: ApiContext, db: dict, a: CustomerArgs) -> Customer:
    """Look up an account: holder, plan, billing cycle day, EasyPay, status, plan changes."""
    return row(db, "customers", a.customer_id, "customer")


@CATALOG.read("/lines/by-number", tags=("accounts",))
def find_line_by_number(ctx: ApiContext, db: dict, a: PhoneArgs) -> Line:
    """Find the line with this phone number (digits compared, formatting ignored)."""
    digits = "".join(ch for ch in a.number if ch.isdigit())[-10:]
    for _, ln in sorted(db["lines"].items()):
        if "".join(ch for ch in ln["number"] if ch.isdigit())[-10:] == digits:
            return ln
    raise not_found("line with number", a.number)


@CATALOG.read("/customers/{customer_id}/lines", resource="customer_id", collection="lines", tags=("accounts",))
def list_lines(ctx: ApiContext, db: dict, a: CustomerArgs) -> LineList:
    """The account's lines."""
    row(db, "customers", a.customer_id, "customer")
    return {"lines": owned(db, "lines", a.customer_id)}


@CATALOG.read("/lines/{line_id}", resource="line_id", tags=("accounts",))
def get_line(ctx: ApiContext, db: dict, a: LineArgs) -> Line:
    """Look up a line: number, user, status, SIM, device."""
    return row(db, "lines", a.line_id, "line")


@CATALOG.read("/customers/{customer_id}/bills", resource="customer_id", collection="bills", tags=("billing",))
def list_bills(ctx: ApiContext, db: dict, a: CustomerArgs) -> BillList:
    """The account's bills, oldest first, with items, totals and status."""
    row(db, "customers", a.customer_id, "customer")
    return {"bills": sorted((b for b in db["bills"].values() if b["customer_id"] == a.customer_id),
                            key=lambda b: b["bill_date"])}


@CATALOG.read("/bills/{bill_id}", resource="bill_id", tags=("billing",))
def get_bill(ctx: ApiContext, db: dict, a: BillArgs) -> Bill:
    """Look up one bill."""
    return row(db, "bills", a.bill_id, "bill")


@CATALOG.read("/devices/{device_id}", resource="device_id", tags=("devices",))
def get_device(ctx: ApiContext, db: dict, a: DeviceArgs) -> Device:
    """Look up a device: financing, installments, protection, lock state."""
    return row(db, "devices", a.device_id, "device")


@CATALOG.read("/lines/{line_id}/usage", resource="line_id", tags=("usage",))
def get_usage(ctx: ApiContext, db: dict, a: LineArgs) -> Usage:
    """Current-cycle data use of a line against its allowance and top-ups."""
    return row(db, "usage", a.line_id, "usage of line")


@CATALOG.read("/tickets/{ticket_id}", resource="ticket_id", tags=("support",))
def get_ticket(ctx: ApiContext, db: dict, a: TicketArgs) -> Ticket:
    """Look up a troubleshooting ticket with its attempts."""
    return row(db, "tickets", a.ticket_id, "ticket")


# ------------------------------------------------------------------------------ writes

class PayArgs(Args):
    bill_id: str
    method: Literal["app", "online", "agent_phone"]
    amount: Money
    fee: Money


@CATALOG.write("/bills/{bill_id}/payments", resource="bill_id", tags=("billing",))
def pay_bill(ctx: ApiContext, db: dict, a: PayArgs) -> PaymentRecord:
    """Take a payment of a bill (its full total) with the given payment fee. A suspended
    account whose overdue balance is paid is restored."""
    b = row(db, "bills", a.bill_id, "bill")
    if b["paid_date"] is not None:
        raise conflict("the bill is already paid", bill_id=a.bill_id)
    if abs(a.amount - b["total"]) > 0.005:
        raise invalid(f"a bill is paid in full: {b['total']}", total=b["total"])
    pid = next_id(db["payments"], ctx.prefix("payment", "PY"), 600001)
    p = {"id": pid, "bill_id": a.bill_id, "customer_id": b["customer_id"], "date": ctx.today.isoformat(),
         "amount": b["total"], "method": a.method, "fee": money(a.fee)}
    db["payments"][pid] = p
    b["paid_date"], b["status"] = ctx.today.isoformat(), "paid"
    _refresh_status(ctx, db, b["customer_id"])
    return p


class PlanArgs(Args):
    customer_id: str
    new_plan: Plan
    prorated_charge: Money


@CATALOG.write("/customers/{customer_id}/plan", resource="customer_id", tags=("plans",))
def change_plan(ctx: ApiContext, db: dict, a: PlanArgs) -> Customer:
    """Change the account's plan. A more expensive plan applies at once (with the given
    prorated charge); a cheaper one is scheduled for the start of the next cycle."""
    c = row(db, "customers", a.customer_id, "customer")
    if a.new_plan == c["plan"]:
        raise invalid("the account is already on this plan")
    up = ctx.values[f"plan_price_{a.new_plan}"] > ctx.values[f"plan_price_{c['plan']}"]
    start = cycle_start(ctx.today, c["cycle_day"])
    ch = {"requested_on": ctx.today.isoformat(), "from_plan": c["plan"], "to_plan": a.new_plan,
          "effective_on": (ctx.today if up else next_cycle(start, c["cycle_day"])).isoformat(),
          "prorated_charge": money(a.prorated_charge), "status": "applied" if up else "scheduled"}
    c.setdefault("plan_changes", []).append(ch)
    if up:
        c["plan"], c["plan_name"] = a.new_plan, ctx.pack.brand.products.get(f"{a.new_plan} plan", a.new_plan)
        for ln in owned(db, "lines", c["id"]):
            ln["plan"] = a.new_plan
            _refresh_usage(ctx, db, ln["id"])
    return c


class AddLineArgs(Args):
    customer_id: str
    user_name: str = Field(min_length=1)
    user_date_of_birth: dt.date
    parental_controls: bool
    sim_type: Literal["physical", "esim"]
    device_imei: str = Field(pattern=r"^\d{15}$")
    device_model: str = Field(min_length=1)


@CATALOG.write("/customers/{customer_id}/lines", resource="customer_id", tags=("accounts",))
def add_line(ctx: ApiContext, db: dict, a: AddLineArgs) -> Line:
    """Add a line on the account's plan with the customer's own device."""
    c = row(db, "customers", a.customer_id, "customer")
    lid = next_id(db["lines"], ctx.prefix("line", "LN"), 50001)
    did = next_id(db["devices"], ctx.prefix("device", "DV"), 70001)
    used = {ln["number"] for ln in db["lines"].values()}
    number = next(f"(720) 555-{n:04d}" for n in range(2000, 10000) if f"(720) 555-{n:04d}" not in used)
    db["devices"][did] = {"id": did, "line_id": lid, "model": a.device_model, "imei": a.device_imei, "price": 0.0,
                          "purchased_on": ctx.today.isoformat(), "financed": False, "down_payment": 0.0,
                          "financed_amount": 0.0, "monthly_installment": 0.0, "installments_before_history": 0,
                          "installments_billed": 0, "protection": False, "unlocked": False, "balance_remaining": 0.0}
    ln = {"id": lid, "customer_id": c["id"], "number": number, "plan": c["plan"], "user": a.user_name,
          "user_date_of_birth": a.user_date_of_birth.isoformat(), "parental_controls": a.parental_controls,
          "activated_on": ctx.today.isoformat(), "added_on": ctx.today.isoformat(), "status": c["status"],
          "sim": {"iccid": "8901" + f"{int(lid[len(ctx.prefix('line', 'LN')):]):015d}", "type": a.sim_type,
                  "wrong_pin_attempts": 0, "status": "active" if c["status"] == "active" else "suspended"},
          "status_history": [{"date": ctx.today.isoformat(), "status": c["status"], "reason": "activation"}],
          "device_id": did}
    db["lines"][lid] = ln
    return ln


class TopUpArgs(Args):
    line_id: str
    size_gb: Literal[1, 3, 5, 10]
    price: Money


@CATALOG.write("/lines/{line_id}/top-ups", resource="line_id", tags=("usage",))
def buy_top_up(ctx: ApiContext, db: dict, a: TopUpArgs) -> TopUp:
    """Add a Tailwind top-up to a line at the given price (billed on the next bill)."""
    row(db, "lines", a.line_id, "line")
    tid = next_id(db["top_ups"], ctx.prefix("top_up", "TU"), 300001)
    t = {"id": tid, "line_id": a.line_id, "size_gb": a.size_gb, "date": ctx.today.isoformat(),
         "price": float(money(a.price)), "bill_id": None}
    db["top_ups"][tid] = t
    _refresh_usage(ctx, db, a.line_id)
    return t


class PassArgs(Args):
    line_id: str
    region: Region
    price: Money


@CATALOG.write("/lines/{line_id}/roaming-passes", resource="line_id", tags=("roaming",))
def buy_roaming_pass(ctx: ApiContext, db: dict, a: PassArgs) -> RoamingPass:
    """Add a Wingspan Day Pass for a region to a line, at the given price (0 for an included pass)."""
    row(db, "lines", a.line_id, "line")
    pid = next_id(db["roaming_passes"], ctx.prefix("roaming_pass", "RP"), 400001)
    p = {"id": pid, "line_id": a.line_id, "region": a.region, "region_name": REGIONS[a.region],
         "date": ctx.today.isoformat(), "price": float(money(a.price)), "included": a.price == 0, "bill_id": None}
    db["roaming_passes"][pid] = p
    return p


class SimArgs(Args):
    line_id: str
    sim_type: Literal["physical", "esim"]
    reason: Literal["lost", "damaged", "failed", "pin_blocked"]
    fee: Money


@CATALOG.write("/lines/{line_id}/sim", resource="line_id", tags=("devices",))
def replace_sim(ctx: ApiContext, db: dict, a: SimArgs) -> Line:
    """Issue a replacement SIM or reissue the eSIM, charging the given fee on the next bill."""
    ln = row(db, "lines", a.line_id, "line")
    n = len(ln.get("sim_swaps", [])) + 1
    ln.setdefault("sim_swaps", []).append({"date": ctx.today.isoformat(), "sim_type": a.sim_type, "reason": a.reason,
                                           "fee": float(money(a.fee)), "old_iccid": ln["sim"]["iccid"]})
    ln["sim"] = {"iccid": ln["sim"]["iccid"][:-2] + f"{(int(ln['sim']['iccid'][-2:]) + n) % 100:02d}",
                 "type": a.sim_type, "wrong_pin_attempts": 0,
                 "status": "active" if ln["status"] == "active" else "suspended"}
    return ln


class UnlockArgs(Args):
    device_id: str


@CATALOG.write("/devices/{device_id}/unlock-requests", resource="device_id", tags=("devices",))
def request_unlock(ctx: ApiContext, db: dict, a: UnlockArgs) -> Record:
    """Record a device unlock request for processing."""
    row(db, "devices", a.device_id, "device")
    reqs = db.setdefault("unlock_requests", {})
    rid = next_id(reqs, "UR", 1)
    reqs[rid] = {"id": rid, "device_id": a.device_id, "requested_on": ctx.today.isoformat()}
    return reqs[rid]


class WaiverArgs(Args):
    bill_id: str
    amount: Money = Field(gt=0)
    approved_by: Optional[str] = None


@CATALOG.write("/bills/{bill_id}/fee-waivers", resource="bill_id", tags=("billing",))
def waive_late_fee(ctx: ApiContext, db: dict, a: WaiverArgs) -> Record:
    """Credit back a bill's late fee (the credit appears on the next bill)."""
    row(db, "bills", a.bill_id, "bill")
    ws = db.setdefault("fee_waivers", {})
    wid = next_id(ws, "FW", 1)
    ws[wid] = {"id": wid, "bill_id": a.bill_id, "amount": money(a.amount), "date": ctx.today.isoformat(),
               "approved_by": a.approved_by}
    return ws[wid]


class Installment(Args):
    due_on: dt.date
    amount: Money


class ArrangementArgs(Args):
    customer_id: str
    bill_ids: list[str] = Field(min_length=1)
    installments: list[Installment] = Field(min_length=1)


@CATALOG.write("/customers/{customer_id}/payment-arrangements", resource="customer_id", tags=("billing",))
def create_payment_arrangement(ctx: ApiContext, db: dict, a: ArrangementArgs) -> Record:
    """Split overdue bills into the given installments."""
    row(db, "customers", a.customer_id, "customer")
    for b in a.bill_ids:
        if row(db, "bills", b, "bill")["customer_id"] != a.customer_id:
            raise not_found("bill", b, customer_id=a.customer_id)
    arr = db.setdefault("payment_arrangements", {})
    aid = next_id(arr, "PA", 1)
    arr[aid] = {"id": aid, "customer_id": a.customer_id, "bill_ids": a.bill_ids, "created_on": ctx.today.isoformat(),
                "installments": [i.model_dump(mode="json") for i in a.installments]}
    return arr[aid]


class OpenTicketArgs(Args):
    line_id: str
    issue: Literal["no_service", "slow_data", "mms"]


@CATALOG.write("/lines/{line_id}/tickets", resource="line_id", tags=("support",))
def open_ticket(ctx: ApiContext, db: dict, a: OpenTicketArgs) -> Ticket:
    """Open a troubleshooting ticket for a line."""
    row(db, "lines", a.line_id, "line")
    tid = next_id(db["tickets"], ctx.prefix("ticket", "TK"), 800001)
    t = {"id": tid, "line_id": a.line_id, "issue": a.issue, "opened_on": ctx.today.isoformat(), "attempts": [],
         "status": "open", "tier": 1}
    db["tickets"][tid] = t
    return t


class AttemptArgs(Args):
    ticket_id: str
    result: Literal["failed", "resolved"]
    escalate: bool


@CATALOG.write("/tickets/{ticket_id}/attempts", resource="ticket_id", tags=("support",))
def log_troubleshooting_attempt(ctx: ApiContext, db: dict, a: AttemptArgs) -> Ticket:
    """Log a troubleshooting attempt on a ticket and, when asked, escalate it to Tier 2."""
    t = row(db, "tickets", a.ticket_id, "ticket")
    t["attempts"].append({"date": ctx.today.isoformat(), "agent": ctx.pack.brand.agents[0], "result": a.result})
    if a.result == "resolved":
        t["status"], t["tier"] = "resolved", 1
    elif a.escalate:
        t["status"], t["tier"] = "escalated", 2
    return t


class TransferArgs(Args):
    customer_id: str
    desk: Desk
    summary: str = Field(min_length=1)


@CATALOG.write("/handoffs", resource="customer_id", tags=("accounts",))
def transfer_to_human(ctx: ApiContext, db: dict, a: TransferArgs) -> Record:
    """Hand the customer to a human agent, a billing manager or Tier 2 support."""
    row(db, "customers", a.customer_id, "customer")
    return record_handoff(ctx, db, dated=True, customer_id=a.customer_id, desk=a.desk)

