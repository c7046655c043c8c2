"""Seed database for the telecom domain (Kestrel Mobile).

Customers with one plan per account, lines with SIMs, financed devices, monthly bills whose
items follow the plan table and the billing rules (additional-line prices, network access
fee, EasyPay discount, late fees, reconnection fees), payments, Tailwind top-ups, roaming
day passes, current-cycle usage and troubleshooting tickets. Account and line statuses
(active / suspended / cancelled) follow from the bills' due and payment dates under the
suspension rules. `check` recomputes all of that from the primitive records.
"""
from __future__ import annotations

import calendar
import datetime as dt
import random
from collections import defaultdict

from domains.contract import DomainCode, TestQuota
from domains.seedkit import merged_values as _merged

PLANS = ["starter", "standard", "plus", "premium", "top"]
REGIONS = {
    "canada_mexico": "Canada and Mexico",
    "caribbean": "Caribbean",
    "europe": "Europe",
    "asia_pacific": "Asia Pacific",
    "latin_america": "South and Central America",
    "middle_east_africa": "Middle East and Africa",
}
TOPUP_SIZES = [1, 3, 5, 10]
CREDIT_CLASSES = ["a", "b", "c"]
ISSUES = ["no_service", "slow_data", "mms"]

VALUES: dict[str, float | int] = {
    "plan_price_starter": 20, "plan_price_standard": 35, "plan_price_plus": 50,
    "plan_price_premium": 65, "plan_price_top": 80,
    "extra_line_price_starter": 15, "extra_line_price_standard": 25, "extra_line_price_plus": 35,
    "extra_line_price_premium": 45, "extra_line_price_top": 55,
    "data_gb_starter": 4, "data_gb_standard": 15, "data_gb_plus": 40, "data_gb_premium": 80, "data_gb_top": 150,
    "hotspot_gb_starter": 1, "hotspot_gb_standard": 5, "hotspot_gb_plus": 10, "hotspot_gb_premium": 25,
    "hotspot_gb_top": 50,
    "max_lines_starter": 2, "max_lines_standard": 4, "max_lines_plus": 5, "max_lines_premium": 6, "max_lines_top": 8,
    "included_passes_starter": 0, "included_passes_standard": 0, "included_passes_plus": 2,
    "included_passes_premium": 5, "included_passes_top": 10,
    "network_access_fee": 2.5,
    "due_days": 20,
    "easypay_discount_per_line": 5,
    "easypay_discount_cap": 20,
    "late_fee_grace_days": 5,
    "late_fee_minimum": 8,
    "late_fee_percent": 5,
    "agent_payment_fee": 4,
    "suspend_days": 30,
    "cancel_days": 60,
    "reconnection_fee": 15,
    "roaming_pass_canada_mexico": 5, "roaming_pass_caribbean": 9, "roaming_pass_europe": 10,
    "roaming_pass_asia_pacific": 12, "roaming_pass_latin_america": 11, "roaming_pass_middle_east_africa": 15,
    "roaming_min_active_days": 60,
    "roaming_max_paid_passes": 20,
    "topup_price_1gb": 10, "topup_price_3gb": 20, "topup_price_5gb": 30, "topup_price_10gb": 45,
    "topup_max_1gb": 4, "topup_max_3gb": 3, "topup_max_5gb": 2, "topup_max_10gb": 1,
    "topup_cap_per_cycle": 90,
    "installment_months": 24,
    "max_financed_per_line": 2,
    "max_financed_per_account": 5,
    "down_payment_pct_a": 0, "down_payment_pct_b": 15, "down_payment_pct_c": 30,
    "unlock_after_days": 60,
    "protection_fee": 11,
    "escalate_attempts": 3,
    "escalate_attempts_slow_data": 2,
    "max_plan_changes": 2,
    "parental_controls_age": 13,
    "sim_replacement_fee": 10,
    "arrangement_max_installments": 2,
    "arrangement_max_balance": 300,
    "arrangement_days": 30,
}

VALUE_FACTS: dict[str, str] = {
    "plan_price_starter": "| Hatch | $20",
    "plan_price_standard": "| Perch | $35",
    "plan_price_plus": "| Glide | $50",
    "plan_price_premium": "| Soar | $65",
    "plan_price_top": "| Summit | $80",
    "extra_line_price_starter": "| Hatch | $20 | $15",
    "extra_line_price_standard": "| Perch | $35 | $25",
    "extra_line_price_plus": "| Glide | $50 | $35",
    "extra_line_price_premium": "| Soar | $65 | $45",
    "extra_line_price_top": "| Summit | $80 | $55",
    "data_gb_starter": "| Hatch | $20 | $15 | 4 GB",
    "data_gb_standard": "| Perch | $35 | $25 | 15 GB",
    "data_gb_plus": "| Glide | $50 | $35 | 40 GB",
    "data_gb_premium": "| Soar | $65 | $45 | 80 GB",
    "data_gb_top": "| Summit | $80 | $55 | 150 GB",
    "hotspot_gb_starter": "| Hatch | $20 | $15 | 4 GB | 1 GB",
    "hotspot_gb_standard": "| Perch | $35 | $25 | 15 GB | 5 GB",
    "hotspot_gb_plus": "| Glide | $50 | $35 | 40 GB | 10 GB",
    "hotspot_gb_premium": "| Soar | $65 | $45 | 80 GB | 25 GB",
    "hotspot_gb_top": "| Summit | $80 | $55 | 150 GB | 50 GB",
    "max_lines_starter": "| Hatch | $20 | $15 | 4 GB | 1 GB | 2 lines",
    "max_lines_standard": "| Perch | $35 | $25 | 15 GB | 5 GB | 4 lines",
    "max_lines_plus": "| Glide | $50 | $35 | 40 GB | 10 GB | 5 lines",
    "max_lines_premium": "| Soar | $65 | $45 | 80 GB | 25 GB | 6 lines",
    "max_lines_top": "| Summit | $80 | $55 | 150 GB | 50 GB | 8 lines",
    "included_passes_starter": "| Hatch | $20 | $15 | 4 GB | 1 GB | 2 lines | 128 kbps | 0 passes",
    "included_passes_standard": "| Perch | $35 | $25 | 15 GB | 5 GB | 4 lines | 256 kbps | 0 passes",
    "included_passes_plus": "| Glide | $50 | $35 | 40 GB | 10 GB | 5 lines | 512 kbps | 2 passes",
    "included_passes_premium": "| Soar | $65 | $45 | 80 GB | 25 GB | 6 lines | 1 Mbps | 5 passes",
    "included_passes_top": "| Summit | $80 | $55 | 150 GB | 50 GB | 8 lines | 3 Mbps | 10 passes",
    "network_access_fee": "network access fee of $2.50 per billing cycle",
    "due_days": "A bill is due 20 days after the bill date",
    "easypay_discount_per_line": "The EasyPay discount is $5 per line",
    "easypay_discount_cap": "capped at $20 per account",
    "late_fee_grace_days": "still unpaid 5 days after its due date",
    "late_fee_minimum": "The late fee is $8",
    "late_fee_percent": "5% of the unpaid bill",
    "agent_payment_fee": "$4 agent-assisted payment fee",
    "suspend_days": "At 30 days past due",
    "cancel_days": "At 60 days past due",
    "reconnection_fee": "A reconnection fee of $15 per line",
    "roaming_pass_canada_mexico": "| Canada and Mexico | $5",
    "roaming_pass_caribbean": "| Caribbean | $9",
    "roaming_pass_europe": "| Europe | $10",
    "roaming_pass_asia_pacific": "| Asia Pacific | $12",
    "roaming_pass_latin_america": "| South and Central America | $11",
    "roaming_pass_middle_east_africa": "| Middle East and Africa | $15",
    "roaming_min_active_days": "active for at least 60 days",
    "roaming_max_paid_passes": "at most 20 paid day passes",
    "topup_price_1gb": "| Tailwind Breeze | 1 GB | $10",
    "topup_price_3gb": "| Tailwind Gust | 3 GB | $20",
    "topup_price_5gb": "| Tailwind Gale | 5 GB | $30",
    "topup_price_10gb": "| Tailwind Storm | 10 GB | $45",
    "topup_max_1gb": "| Tailwind Breeze | 1 GB | $10 | 4 purchases",
    "topup_max_3gb": "| Tailwind Gust | 3 GB | $20 | 3 purchases",
    "topup_max_5gb": "| Tailwind Gale | 5 GB | $30 | 2 purchases",
    "topup_max_10gb": "| Tailwind Storm | 10 GB | $45 | 1 purchase",
    "topup_cap_per_cycle": "capped at $90 per line",
    "installment_months": "paid in 24 monthly installments",
    "max_financed_per_line": "A line can have at most 2 financed devices",
    "max_financed_per_account": "An account can have at most 5 financed devices",
    "down_payment_pct_a": "0% for credit class A",
    "down_payment_pct_b": "15% for credit class B",
    "down_payment_pct_c": "30% for credit class C",
    "unlock_after_days": "unlocked automatically 60 days after",
    "protection_fee": "ShellGuard costs $11 per device",
    "escalate_attempts": "after 3 failed troubleshooting attempts",
    "escalate_attempts_slow_data": "after 2 failed attempts",
    "max_plan_changes": "change plans at most 2 times",
    "parental_controls_age": "under 13 years old",
    "sim_replacement_fee": "A replacement physical SIM costs $10",
    "arrangement_max_installments": "at most 2 installments",
    "arrangement_max_balance": "balances of up to $300",
    "arrangement_days": "within 30 days of setting it up",
}

DEVICE_MODELS = [("Nimbus 8", 699), ("Nimbus 8 Pro", 999), ("Pebble A5", 299), ("Orion X2", 849),
                 ("Lumo Flip 2", 129), ("Pebble A7", 399), ("Orion X2 Ultra", 1199), ("Vela Mini", 549)]
PHONE_AREAS = ["303", "720", "970", "719"]
FAMILY_FIRST_NAMES = ["Alex", "Sam", "Jordan", "Riley", "Casey", "Morgan"]
PROFILES = ["good", "good", "good", "good", "good", "good", "good", "good", "late_once", "late_once",
            "late_once", "overdue", "overdue", "restored", "restored", "suspended", "suspended",
            "cancelled", "good", "good"]


def merged_values(values: dict | None) -> dict[str, float | int]:
    return _merged(VALUES, values, "telecom")


# ---------------------------------------------------------------------------------- dates

def _d(s: str) -> dt.date:
    return dt.date.fromisoformat(s)


def _cycle_date(year: int, month: int, day: int) -> dt.date:
    return dt.date(year, month, min(day, calendar.monthrange(year, month)[1]))


def _cycle_start(day: dt.date, cycle_day: int) -> dt.date:
    """The most recent cycle day on or before `day`."""
    c = _cycle_date(day.year, day.month, cycle_day)
    if c <= day:
        return c
    y, m = (day.year, day.month - 1) if day.month > 1 else (day.year - 1, 12)
    return _cycle_date(y, m, cycle_day)


def _next_cycle(start: dt.date, cycle_day: int) -> dt.date:
    y, m = (start.year, start.month + 1) if start.month < 12 else (start.year + 1, 1)
    return _cycle_date(y, m, cycle_day)


def _today(pack) -> dt.date:
    return pack.info.now.date()


def _money(x: float) -> float:
    return round(x + 1e-9, 2)


# ------------------------------------------------------------------------- derivations

def _timeline(bills: list[dict], V: dict, today: dt.date) -> dict:
    """Suspension periods and cancellation of one account from its bills' dates.

    A bill that is unpaid `suspend_days` after its due date suspends the account until
    it is paid; one unpaid `cancel_days` after its due date cancels the account."""
    periods: list[list] = []
    cancelled_on = None
    for b in sorted(bills, key=lambda b: b["bill_date"]):
        due = _d(b["due_date"])
        paid = _d(b["paid_date"]) if b.get("paid_date") else None
        start = due + dt.timedelta(days=V["suspend_days"])
        if start <= today and (paid is None or paid > start):
            periods.append([start, paid])
        cancel = due + dt.timedelta(days=V["cancel_days"])
        if cancel <= today and (paid is None or paid > cancel):
            cancelled_on = cancel if cancelled_on is None else min(cancelled_on, cancel)
    periods.sort(key=lambda p: p[0])
    merged: list[list] = []
    for s, e in periods:
        if merged and (merged[-1][1] is None or s <= merged[-1][1]):
            if merged[-1][1] is not None:
                merged[-1][1] = None if e is None else max(merged[-1][1], e)
        else:
            merged.append([s, e])
    if cancelled_on is not None:
        merged = [[s, e] for s, e in merged if s < cancelled_on]
        if merged and (merged[-1][1] is None or merged[-1][1] > cancelled_on):
            merged[-1][1] = cancelled_on
    status = "active"
    if cancelled_on is not None:
        status = "cancelled"
    elif merged and merged[-1][1] is None:
        status = "suspended"
    return {"suspensions": merged, "cancelled_on": cancelled_on, "status": status}


def _suspended_on(day: dt.date, tl: dict) -> bool:
    if tl["cancelled_on"] is not None and day >= tl["cancelled_on"]:
        return True
    return any(s <= day and (e is None or day < e) for s, e in tl["suspensions"])


def _first_bill_after(day: dt.date, bills: list[dict]) -> dict | None:
    for b in bills:
        if _d(b["bill_date"]) > day:
            return b
    return None


def plan_on(cust: dict, day: dt.date) -> str:
    """The plan in force on `day`: the account's plan, or the plan it had before a change
    that took effect after `day` (pending changes, effective in the future, do not count)."""
    plan = cust["plan"]
    for ch in sorted(cust.get("plan_changes", []), key=lambda c: c["effective_on"], reverse=True):
        if ch["status"] == "applied" and _d(ch["effective_on"]) > day:
            plan = ch["from_plan"]
    return plan


def prorated_upgrade(V: dict, cust: dict, n_lines: int, new_plan: str, today: dt.date) -> float:
    """The price difference of an upgrade for the rest of the current cycle, prorated by day."""
    start = _cycle_start(today, cust["cycle_day"])
    end = _next_cycle(start, cust["cycle_day"])
    old = plan_on(cust, today)

    def monthly(plan):
        return V[f"plan_price_{plan}"] + V[f"extra_line_price_{plan}"] * (n_lines - 1)
    return _money((monthly(new_plan) - monthly(old)) * (end - today).days / (end - start).days)


def _pass_charges(passes: list[dict], lines_by_id: dict, customers: dict, V: dict) -> dict[str, float]:
    """Charge of every roaming pass: the plan's included passes in a cycle are free (first
    by date, then id), later ones cost the region's day pass price."""
    out: dict[str, float] = {}
    used: dict[tuple, int] = defaultdict(int)
    for p in sorted(passes, key=lambda p: (p["date"], p["id"])):
        line = lines_by_id.get(p["line_id"])
        if line is None:
            continue
        cust = customers[line["customer_id"]]
        cyc = _cycle_start(_d(p["date"]), cust["cycle_day"])
        key = (p["line_id"], cyc)
        if used[key] < V[f"included_passes_{plan_on(cust, _d(p['date']))}"]:
            out[p["id"]] = 0.0
        else:
            out[p["id"]] = float(V[f"roaming_pass_{p['region']}"])
        used[key] += 1
    return out


def _expected_bills(cust: dict, lines: list[dict], devices: list[dict], bills: list[dict],
                    topups: list[dict], passes: list[dict], pass_charge: dict, V: dict, today: dt.date) -> dict:
    """Expected items, total and status of every bill of one account, in bill order."""
    bills = sorted(bills, key=lambda b: b["bill_date"])
    tl = _timeline(bills, V, today)
    order = sorted(lines, key=lambda ln: (ln["activated_on"], ln["id"]))
    extra: dict[str, list] = defaultdict(list)
    for b in bills:  # late fees: on the first bill issued after the grace period ends
        due = _d(b["due_date"])
        cutoff = due + dt.timedelta(days=V["late_fee_grace_days"])
        paid = _d(b["paid_date"]) if b.get("paid_date") else None
        if paid is None or paid > cutoff:
            nb = _first_bill_after(cutoff, bills)
            if nb is not None:
                extra[nb["id"]].append(("late_fee", b["id"]))
    for s, e in tl["suspensions"]:
        if e is not None and (tl["cancelled_on"] is None or e < tl["cancelled_on"]):
            nb = _first_bill_after(e, bills)
            if nb is not None:
                extra[nb["id"]].append(("reconnection_fee", None))
    for t in topups:
        nb = _first_bill_after(_d(t["date"]), bills)
        if nb is not None:
            extra[nb["id"]].append(("top_up", t))
    for p in passes:
        nb = _first_bill_after(_d(p["date"]), bills)
        if nb is not None and pass_charge.get(p["id"], 0) > 0:
            extra[nb["id"]].append(("roaming_pass", p))
    totals: dict[str, float] = {}
    n_inst: dict[str, int] = defaultdict(int)
    out: dict[str, dict] = {}
    for b in bills:
        bd = _d(b["bill_date"])
        plan = plan_on(cust, bd)
        billed = [ln for ln in order if _d(ln["activated_on"]) <= bd]
        items = []
        for i, ln in enumerate(billed):
            price = V[f"plan_price_{plan}"] if i == 0 else V[f"extra_line_price_{plan}"]
            items.append({"type": "plan", "line_id": ln["id"], "amount": float(price)})
            items.append({"type": "network_access_fee", "line_id": ln["id"], "amount": float(V["network_access_fee"])})
        for dv in sorted(devices, key=lambda d: d["id"]):
            if dv["line_id"] not in {ln["id"] for ln in billed}:
                continue
            if (dv["financed"] and bd >= _d(dv["purchased_on"])
                    and dv["installments_before_history"] + n_inst[dv["id"]] < V["installment_months"]):
                n_inst[dv["id"]] += 1
                items.append({"type": "device_installment", "line_id": dv["line_id"], "device_id": dv["id"],
                              "amount": dv["monthly_installment"]})
            if dv["protection"]:
                items.append({"type": "device_protection", "line_id": dv["line_id"], "device_id": dv["id"],
                              "amount": float(V["protection_fee"])})
        for kind, ref in extra[b["id"]]:
            if kind == "late_fee":
                amt = max(float(V["late_fee_minimum"]), _money(totals[ref] * V["late_fee_percent"] / 100))
                items.append({"type": "late_fee", "for_bill_id": ref, "amount": _money(amt)})
            elif kind == "reconnection_fee":
                items.append({"type": "reconnection_fee", "lines": len(billed),
                              "amount": _money(V["reconnection_fee"] * len(billed))})
            elif kind == "top_up":
                items.append({"type": "top_up", "line_id": ref["line_id"], "top_up_id": ref["id"],
                              "amount": float(V[f"topup_price_{ref['size_gb']}gb"])})
            else:
                items.append({"type": "roaming_pass", "line_id": ref["line_id"], "roaming_pass_id": ref["id"],
                              "amount": pass_charge[ref["id"]]})
        if cust["autopay"]["enabled"] and cust["paperless"] and cust["autopay"]["method"] != "credit_card":
            disc = min(V["easypay_discount_per_line"] * len(billed), V["easypay_discount_cap"])
            items.append({"type": "autopay_discount", "amount": -float(disc)})
        total = _money(sum(it["amount"] for it in items))
        totals[b["id"]] = total
        if b.get("paid_date"):
            status = "paid"
        elif tl["cancelled_on"] is not None:
            status = "collections"
        elif _d(b["due_date"]) < today:
            status = "overdue"
        else:
            status = "open"
        out[b["id"]] = {"items": items, "total": total, "status": status}
    installments = {dv["id"]: dv["installments_before_history"] + n_inst[dv["id"]] for dv in devices if dv["financed"]}
    return {"bills": out, "timeline": tl, "installments": installments}


# ---------------------------------------------------------------------------- generate

def generate(pack, seed: int, values: dict | None = None) -> dict:
    V = merged_values(values)
    rng = random.Random(f"{pack.name}:{seed}")
    pre = pack.brand.id_prefixes
    prod = pack.brand.products
    today = _today(pack)
    agents = list(pack.brand.agents)
    customers: dict[str, dict] = {}
    lines: dict[str, dict] = {}
    devices: dict[str, dict] = {}
    bills: dict[str, dict] = {}
    payments: dict[str, dict] = {}
    topups: dict[str, dict] = {}
    passes: dict[str, dict] = {}
    usage: dict[str, dict] = {}
    tickets: dict[str, dict] = {}
    counters = defaultdict(int)

    def nid(kind: str, base: int) -> str:
        counters[kind] += 1
        return f"{pre[kind]}{base + counters[kind]}"

    numbers = [f"({a}) 555-01{n:02d}" for a in PHONE_AREAS for n in range(100)]
    rng.shuffle(numbers)
    profiles = list(PROFILES)
    while len(profiles) < len(pack.brand.customers):
        profiles.append("good")
    rng.shuffle(profiles)
    email_dom = ["mailbox.example", "inbox.example", "post.example"]

    for ci, name in enumerate(pack.brand.customers):
        cid = nid("customer", 10000)
        plan = rng.choice(PLANS)
        n_lines = rng.randint(1, min(V[f"max_lines_{plan}"], 5))
        cycle_day = rng.choice([1, 8, 15, 22])
        method = rng.choice(["bank_account", "bank_account", "debit_card", "credit_card"])
        autopay = rng.random() < 0.6
        first, last = name.split(" ", 1)
        # Bill dates: the last 5 cycle days up to today; the account opened before them.
        bd = [_cycle_start(today, cycle_day)]
        for _ in range(4):
            prev = bd[0] - dt.timedelta(days=1)
            bd.insert(0, _cycle_start(prev, cycle_day))
        opened = bd[0] - dt.timedelta(days=rng.randint(40, 1400))
        customers[cid] = {
            "id": cid, "name": name,
            "email": f"{first.lower()}.{last.lower().replace(' ', '').replace('-', '')}@{rng.choice(email_dom)}",
            "zip": f"80{rng.randint(200, 699)}", "date_of_birth": dt.date(rng.randint(1950, 2004), rng.randint(1, 12),
                                                                        rng.randint(1, 28)).isoformat(),
            "credit_class": rng.choice(CREDIT_CLASSES), "plan": plan, "plan_name": prod[f"{plan} plan"],
            "cycle_day": cycle_day, "opened_on": opened.isoformat(), "paperless": autopay or rng.random() < 0.5,
            "autopay": {"enabled": autopay, "method": method}, "status": "active",
        }
        # Lines: the first at opening; one account may have a line added in the last 40 days.
        cust_lines = []
        for li in range(n_lines):
            lid = nid("line", 50000)
            act = opened if li == 0 else opened + dt.timedelta(days=rng.randint(0, (bd[0] - opened).days))
            if li == n_lines - 1 and n_lines > 1 and profiles[ci] == "good" and rng.random() < 0.4:
                act = today - dt.timedelta(days=rng.randint(5, 40))
            sim_type = rng.choice(["physical", "esim"])
            wrong_pin = rng.choice([0, 0, 0, 0, 1, 3])
            lines[lid] = {
                "id": lid, "customer_id": cid, "number": numbers.pop(), "plan": plan,
                "user": name if li == 0 else f"{rng.choice(FAMILY_FIRST_NAMES)} {last}",
                "activated_on": act.isoformat(), "status": "active",
                "sim": {"iccid": "8901" + "".join(str(rng.randint(0, 9)) for _ in range(15)), "type": sim_type,
                        "wrong_pin_attempts": wrong_pin, "status": "pin_locked" if wrong_pin >= 3 else "active"},
                "status_history": [{"date": act.isoformat(), "status": "active", "reason": "activation"}],
            }
            cust_lines.append(lines[lid])
        # Devices: one per line; financed devices obey the per-line and per-account limits.
        financed_count = 0
        for ln in cust_lines:
            model, price = rng.choice(DEVICE_MODELS)
            financed = rng.random() < 0.6 and financed_count < V["max_financed_per_account"]
            financed_count += financed
            bought = _d(ln["activated_on"])
            did = nid("device", 70000)
            down = _money(price * V[f"down_payment_pct_{customers[cid]['credit_class']}"] / 100) if financed else price
            fin_amt = _money(price - down) if financed else 0.0
            monthly = _money(fin_amt / V["installment_months"]) if financed else 0.0
            devices[did] = {
                "id": did, "line_id": ln["id"], "model": model,
                "imei": "35" + "".join(str(rng.randint(0, 9)) for _ in range(13)),
                "price": float(price), "purchased_on": bought.isoformat(), "financed": financed,
                "down_payment": float(down), "financed_amount": fin_amt, "monthly_installment": monthly,
                "installments_before_history": 0, "installments_billed": 0,
                "protection": rng.random() < 0.35, "unlocked": False,
            }
            ln["device_id"] = did
        # Bills: primitive dates first, then payments per the customer's profile.
        prof = profiles[ci]
        due = [b + dt.timedelta(days=V["due_days"]) for b in bd]
        paid: list[dt.date | None] = []
        for b, du in zip(bd, due):
            p = du if autopay else du - dt.timedelta(days=rng.randint(0, min(12, V["due_days"])))
            paid.append(p if p <= today else None)
        days_over = [(today - du).days for du in due]

        def pick(cands):
            return rng.choice(cands) if cands else None

        if prof == "late_once":
            u = pick([i for i in range(len(bd) - 1) if days_over[i] > V["suspend_days"]])
            if u is not None:
                late = due[u] + dt.timedelta(days=rng.randint(V["late_fee_grace_days"] + 1, V["suspend_days"] - 2))
                paid[u] = late if late <= today else None
        elif prof in ("overdue", "suspended", "cancelled"):
            lo, hi = {"overdue": (1, V["suspend_days"]), "suspended": (V["suspend_days"], V["cancel_days"]),
                      "cancelled": (V["cancel_days"], 10**6)}[prof]
            u = pick([i for i in range(len(bd)) if lo <= days_over[i] < hi])
            if u is not None:
                for i in range(u, len(bd)):
                    paid[i] = None
        elif prof == "restored":
            cands = [i for i in range(len(bd) - 1)
                     if due[i] + dt.timedelta(days=V["suspend_days"] + 8) < bd[-1]]
            u = pick(cands)
            if u is not None:
                r = due[u] + dt.timedelta(days=V["suspend_days"] + rng.randint(1, 8))
                for i in range(u, len(bd)):
                    if bd[i] <= r:
                        paid[i] = r
        cust_bills = []
        for b, du, p in zip(bd, due, paid):
            cust_bills.append({"id": "", "customer_id": cid, "bill_date": b.isoformat(), "due_date": du.isoformat(),
                               "paid_date": p.isoformat() if p else None})
        tl = _timeline(cust_bills, V, today)
        if tl["cancelled_on"] is not None:  # no bills are issued after cancellation
            cust_bills = [b for b in cust_bills if _d(b["bill_date"]) <= tl["cancelled_on"]]
        for b in cust_bills:
            b["id"] = nid("bill", 200000)
            bills[b["id"]] = b
        # Installments billed before the bills kept here (one per month since purchase).
        for dv in (devices[ln["device_id"]] for ln in cust_lines):
            if dv["financed"]:
                months_before = (_d(cust_bills[0]["bill_date"]) - _d(dv["purchased_on"])).days // 30
                dv["installments_before_history"] = max(0, min(months_before, V["installment_months"]))
        tl = _timeline(cust_bills, V, today)
        customers[cid]["status"] = tl["status"]
        for ln in cust_lines:
            for s, e in tl["suspensions"]:
                if s >= _d(ln["activated_on"]):
                    ln["status_history"].append({"date": s.isoformat(), "status": "suspended", "reason": "non-payment"})
                    if e is not None and (tl["cancelled_on"] is None or e < tl["cancelled_on"]):
                        ln["status_history"].append({"date": e.isoformat(), "status": "active",
                                                     "reason": "overdue balance paid"})
            if tl["cancelled_on"] is not None:
                ln["status_history"].append({"date": tl["cancelled_on"].isoformat(), "status": "cancelled",
                                             "reason": "non-payment"})
            ln["status"] = tl["status"]
            if ln["status"] != "active" and ln["sim"]["status"] == "active":
                ln["sim"]["status"] = "suspended"
        # Top-ups and roaming passes: only on lines that are not suspended at the time.
        for ln in cust_lines:
            act = _d(ln["activated_on"])
            for cyc_start in bd[-3:]:
                if rng.random() < 0.35:
                    cyc_end = _next_cycle(cyc_start, cycle_day)
                    spent = 0
                    count: dict[int, int] = defaultdict(int)
                    for _ in range(rng.randint(1, 3)):
                        size = rng.choice(TOPUP_SIZES)
                        price = V[f"topup_price_{size}gb"]
                        day = cyc_start + dt.timedelta(days=rng.randint(10, 27))
                        if (day >= cyc_end or day > today or day < act or _suspended_on(day, tl)
                                or count[size] >= V[f"topup_max_{size}gb"] or spent + price > V["topup_cap_per_cycle"]):
                            continue
                        count[size] += 1
                        spent += price
                        tid = nid("top_up", 300000)
                        topups[tid] = {"id": tid, "line_id": ln["id"], "size_gb": size, "date": day.isoformat(),
                                       "price": float(price), "bill_id": None}
            if rng.random() < 0.3:
                region = rng.choice(sorted(REGIONS))
                start = bd[-3] + dt.timedelta(days=rng.randint(0, 40))
                for k in range(rng.randint(2, 7)):
                    day = start + dt.timedelta(days=k)
                    if (day > today or (day - act).days < V["roaming_min_active_days"] or _suspended_on(day, tl)):
                        continue
                    pid = nid("roaming_pass", 400000)
                    passes[pid] = {"id": pid, "line_id": ln["id"], "region": region, "region_name": REGIONS[region],
                                   "date": day.isoformat(), "price": 0.0, "included": False, "bill_id": None}
    # Pass charges need every pass of a line in a cycle, so they are priced after the loop.
    pass_charge = _pass_charges(list(passes.values()), lines, customers, V)
    for pid, p in passes.items():
        p["price"] = pass_charge[pid]
        p["included"] = pass_charge[pid] == 0
    by_cust = _group(customers, lines, devices, bills, topups, passes)
    for cid, g in by_cust.items():
        exp = _expected_bills(customers[cid], g["lines"], g["devices"], g["bills"], g["topups"], g["passes"],
                              pass_charge, V, today)
        for did, n in exp["installments"].items():
            devices[did]["installments_billed"] = n
        for bid, e in exp["bills"].items():
            b = bills[bid]
            b["items"] = e["items"]
            b["total"] = e["total"]
            b["status"] = e["status"]
            for it in e["items"]:
                if it["type"] == "top_up":
                    topups[it["top_up_id"]]["bill_id"] = bid
                if it["type"] == "roaming_pass":
                    passes[it["roaming_pass_id"]]["bill_id"] = bid
            if b["paid_date"]:
                cust = customers[cid]
                if cust["autopay"]["enabled"] and b["paid_date"] <= b["due_date"]:
                    method = "autopay"
                else:
                    method = rng.choice(["app", "app", "online", "agent_phone"])
                pid = nid("payment", 600000)
                fee = float(V["agent_payment_fee"]) if method == "agent_phone" else 0.0
                payments[pid] = {"id": pid, "bill_id": bid, "customer_id": cid, "date": b["paid_date"],
                                 "amount": b["total"], "method": method, "fee": fee}
    for dv in devices.values():
        line = lines[dv["line_id"]]
        paid_off = (not dv["financed"]) or dv["installments_billed"] >= V["installment_months"]
        dv["unlocked"] = paid_off and (today - _d(line["activated_on"])).days >= V["unlock_after_days"]
        owed = dv["financed_amount"] - dv["monthly_installment"] * dv["installments_billed"]
        dv["balance_remaining"] = _money(owed) if dv["financed"] else 0.0
    # Current-cycle usage: some lines ran out of high-speed data (and maybe topped up).
    for lid, ln in sorted(lines.items()):
        cust = customers[ln["customer_id"]]
        cyc = _cycle_start(today, cust["cycle_day"])
        allowance = V[f"data_gb_{cust['plan']}"]
        extra_gb = sum(t["size_gb"] for t in topups.values() if t["line_id"] == lid and _d(t["date"]) >= cyc)
        frac = rng.choice([0.1, 0.3, 0.55, 0.8, 0.95, 1.0, 1.0])
        used = round((allowance + extra_gb) * frac, 1)
        hotspot = round(min(used, V[f"hotspot_gb_{cust['plan']}"]) * rng.choice([0, 0.2, 0.5]), 1)
        usage[lid] = {"line_id": lid, "cycle_start": cyc.isoformat(), "data_used_gb": used,
                      "hotspot_used_gb": hotspot, "allowance_gb": allowance, "top_up_gb": extra_gb,
                      "throttled": used >= allowance + extra_gb}
    # Tickets: troubleshooting on active lines; escalation per the attempt thresholds.
    active = sorted(lid for lid, ln in lines.items() if ln["status"] == "active")
    for lid in rng.sample(active, min(14, len(active))):
        issue = rng.choice(ISSUES)
        limit = V["escalate_attempts_slow_data"] if issue == "slow_data" else V["escalate_attempts"]
        n = rng.randint(1, limit + 1)
        opened = today - dt.timedelta(days=rng.randint(2, 60))
        attempts = []
        for k in range(n):
            day = opened + dt.timedelta(days=min(k * rng.randint(0, 2), 6))
            attempts.append({"date": day.isoformat(), "agent": rng.choice(agents), "result": "failed"})
            if len(attempts) >= limit:
                break
        if len(attempts) < limit and rng.random() < 0.7:
            attempts[-1]["result"] = "resolved"
        tid = nid("ticket", 800000)
        tickets[tid] = {"id": tid, "line_id": lid, "issue": issue, "opened_on": opened.isoformat(),
                        "attempts": attempts, **_ticket_status(attempts, limit)}
    return {"customers": customers, "lines": lines, "devices": devices, "bills": bills, "payments": payments,
            "top_ups": topups, "roaming_passes": passes, "usage": usage, "tickets": tickets}


def _ticket_status(attempts: list[dict], limit: int) -> dict:
    if attempts and attempts[-1]["result"] == "resolved":
        return {"status": "resolved", "tier": 1}
    failed = [a for a in attempts if a["result"] == "failed"]
    if len(failed) >= limit and (_d(failed[-1]["date"]) - _d(failed[-limit]["date"])).days <= 7:
        return {"status": "escalated", "tier": 2}
    return {"status": "open", "tier": 1}


def _group(customers, lines, devices, bills, topups, passes) -> dict:
    g = {cid: {"lines": [], "devices": [], "bills": [], "topups": [], "passes": []} for cid in customers}
    for ln in lines.values():
        if ln["customer_id"] in g:
            g[ln["customer_id"]]["lines"].append(ln)
    for dv in devices.values():
        ln = lines.get(dv["line_id"])
        if ln and ln["customer_id"] in g:
            g[ln["customer_id"]]["devices"].append(dv)
    for b in bills.values():
        if b["customer_id"] in g:
            g[b["customer_id"]]["bills"].append(b)
    for t in topups.values():
        ln = lines.get(t["line_id"])
        if ln and ln["customer_id"] in g:
            g[ln["customer_id"]]["topups"].append(t)
    for p in passes.values():
        ln = lines.get(p["line_id"])
        if ln and ln["customer_id"] in g:
            g[ln["customer_id"]]["passes"].append(p)
    return g


# ------------------------------------------------------------------------------- check

def check(pack, db: dict, values: dict | None = None) -> list[str]:
    V = merged_values(values)
    today = _today(pack)
    problems: list[str] = []
    cust, lines, devices, bills = db["customers"], db["lines"], db["devices"], db["bills"]
    topups, passes, payments = db["top_ups"], db["roaming_passes"], db["payments"]
    for lid, ln in lines.items():
        if ln["customer_id"] not in cust:
            problems.append(f"line {lid}: unknown customer {ln['customer_id']}")
        elif ln["plan"] != cust[ln["customer_id"]]["plan"]:
            problems.append(f"line {lid}: plan {ln['plan']} differs from the account's plan")
        if ln.get("device_id") not in devices:
            problems.append(f"line {lid}: unknown device {ln.get('device_id')}")
        sim = ln["sim"]
        if (sim["wrong_pin_attempts"] >= 3) != (sim["status"] == "pin_locked"):
            problems.append(f"line {lid}: SIM status {sim['status']} with {sim['wrong_pin_attempts']} "
                            "wrong PIN entries")
    for kind, table, key in (("device", devices, "line_id"), ("top-up", topups, "line_id"),
                             ("roaming pass", passes, "line_id"), ("usage", db["usage"], "line_id"),
                             ("ticket", db["tickets"], "line_id")):
        for rid, r in table.items():
            if r[key] not in lines:
                problems.append(f"{kind} {rid}: unknown line {r[key]}")
    for bid, b in bills.items():
        if b["customer_id"] not in cust:
            problems.append(f"bill {bid}: unknown customer {b['customer_id']}")
    for pid, p in payments.items():
        if p["bill_id"] not in bills:
            problems.append(f"payment {pid}: unknown bill {p['bill_id']}")
    for cid, c in cust.items():
        if c["plan"] not in PLANS:
            problems.append(f"customer {cid}: unknown plan {c['plan']}")
    if problems:
        return problems
    by_cust = _group(cust, lines, devices, bills, topups, passes)
    for cid, c in cust.items():
        g = by_cust[cid]
        if len(g["lines"]) > V[f"max_lines_{c['plan']}"]:
            problems.append(f"customer {cid}: {len(g['lines'])} lines exceed the plan maximum")
        if sum(d["financed"] for d in g["devices"]) > V["max_financed_per_account"]:
            problems.append(f"customer {cid}: too many financed devices")
    # Devices: down payment by credit class, installments over the installment term.
    fin_per_line: dict[str, int] = defaultdict(int)
    for did, dv in devices.items():
        c = cust[lines[dv["line_id"]]["customer_id"]]
        if dv["financed"]:
            fin_per_line[dv["line_id"]] += 1
            down = _money(dv["price"] * V[f"down_payment_pct_{c['credit_class']}"] / 100)
            if abs(dv["down_payment"] - down) > 0.005:
                problems.append(f"device {did}: down payment {dv['down_payment']} != {down}")
            mi = _money((dv["price"] - dv["down_payment"]) / V["installment_months"])
            if abs(dv["monthly_installment"] - mi) > 0.005:
                problems.append(f"device {did}: monthly installment {dv['monthly_installment']} != {mi}")
            if dv["installments_billed"] > V["installment_months"]:
                problems.append(f"device {did}: more installments billed than the installment term")
        line = lines[dv["line_id"]]
        paid_off = (not dv["financed"]) or dv["installments_billed"] >= V["installment_months"]
        unlock = paid_off and (today - _d(line["activated_on"])).days >= V["unlock_after_days"]
        if dv["unlocked"] != unlock:
            problems.append(f"device {did}: unlocked={dv['unlocked']} but the unlock rule gives {unlock}")
    for lid, n in fin_per_line.items():
        if n > V["max_financed_per_line"]:
            problems.append(f"line {lid}: {n} financed devices")
    # Bills: recompute items, totals, statuses and line statuses.
    pass_charge = _pass_charges(list(passes.values()), lines, cust, V)
    for cid, g in by_cust.items():
        c = cust[cid]
        for b in g["bills"]:
            du = _d(b["bill_date"]) + dt.timedelta(days=V["due_days"])
            if b["due_date"] != du.isoformat():
                problems.append(f"bill {b['id']}: due date {b['due_date']} != {du.isoformat()}")
        exp = _expected_bills(c, g["lines"], g["devices"], g["bills"], g["topups"], g["passes"], pass_charge, V, today)
        for bid, e in exp["bills"].items():
            b = bills[bid]
            got = sorted((it["type"], str(it.get("line_id", it.get("for_bill_id", ""))), round(it["amount"], 2))
                         for it in b["items"])
            want = sorted((it["type"], str(it.get("line_id", it.get("for_bill_id", ""))), round(it["amount"], 2))
                          for it in e["items"])
            if got != want:
                diff = sorted(set(got) ^ set(want))[:3]
                problems.append(f"bill {bid}: items differ from the fee schedule: {diff}")
            if abs(b["total"] - _money(sum(it["amount"] for it in b["items"]))) > 0.005:
                problems.append(f"bill {bid}: total {b['total']} is not the sum of its items")
            elif abs(b["total"] - e["total"]) > 0.005:
                problems.append(f"bill {bid}: total {b['total']} != {e['total']}")
            if b["status"] != e["status"]:
                problems.append(f"bill {bid}: status {b['status']} but the rules give {e['status']}")
        for did, n in exp["installments"].items():
            if devices[did]["installments_billed"] != n:
                problems.append(f"device {did}: {devices[did]['installments_billed']} installments recorded, "
                                f"{n} billed")
        tl = exp["timeline"]
        if c["status"] != tl["status"]:
            problems.append(f"customer {cid}: status {c['status']} but the overdue rules give {tl['status']}")
        for ln in g["lines"]:
            if ln["status"] != tl["status"]:
                problems.append(f"line {ln['id']}: status {ln['status']} but the account is {tl['status']}")
            if tl["status"] != "active" and ln["sim"]["status"] == "active":
                problems.append(f"line {ln['id']}: SIM active on a {tl['status']} line")
        for t in g["topups"]:
            if _suspended_on(_d(t["date"]), tl):
                problems.append(f"top-up {t['id']}: bought while the account was suspended")
        for p in g["passes"]:
            if _suspended_on(_d(p["date"]), tl):
                problems.append(f"roaming pass {p['id']}: bought while the account was suspended")
    for pid, p in payments.items():
        b = bills[p["bill_id"]]
        if abs(p["amount"] - b["total"]) > 0.005 or p["date"] != b["paid_date"]:
            problems.append(f"payment {pid}: does not match bill {b['id']}")
        fee = float(V["agent_payment_fee"]) if p["method"] == "agent_phone" else 0.0
        if abs(p["fee"] - fee) > 0.005:
            problems.append(f"payment {pid}: fee {p['fee']} != {fee}")
    # Top-ups: price per size, per-cycle purchase limits and spending cap.
    per_cycle: dict[tuple, list] = defaultdict(list)
    for tid, t in topups.items():
        if t["size_gb"] not in TOPUP_SIZES:
            problems.append(f"top-up {tid}: unknown size {t['size_gb']} GB")
            continue
        if abs(t["price"] - V[f"topup_price_{t['size_gb']}gb"]) > 0.005:
            problems.append(f"top-up {tid}: price {t['price']} differs from the {t['size_gb']} GB top-up price")
        c = cust[lines[t["line_id"]]["customer_id"]]
        per_cycle[(t["line_id"], _cycle_start(_d(t["date"]), c["cycle_day"]))].append(t)
    for (lid, cyc), ts in per_cycle.items():
        if sum(t["price"] for t in ts) > V["topup_cap_per_cycle"] + 0.005:
            problems.append(f"line {lid}: top-ups in the cycle from {cyc} exceed the spending cap")
        for size in TOPUP_SIZES:
            if sum(t["size_gb"] == size for t in ts) > V[f"topup_max_{size}gb"]:
                problems.append(f"line {lid}: too many {size} GB top-ups in the cycle from {cyc}")
    # Roaming: region prices, included passes, minimum line age, paid pass limit.
    paid_per_cycle: dict[tuple, int] = defaultdict(int)
    for pid, p in passes.items():
        if p["region"] not in REGIONS:
            problems.append(f"roaming pass {pid}: unknown region {p['region']}")
            continue
        ln = lines[p["line_id"]]
        if abs(p["price"] - pass_charge[pid]) > 0.005:
            problems.append(f"roaming pass {pid}: price {p['price']} != {pass_charge[pid]}")
        if (_d(p["date"]) - _d(ln["activated_on"])).days < V["roaming_min_active_days"]:
            problems.append(f"roaming pass {pid}: line active for fewer than {V['roaming_min_active_days']} days")
        if pass_charge[pid] > 0:
            c = cust[ln["customer_id"]]
            paid_per_cycle[(p["line_id"], _cycle_start(_d(p["date"]), c["cycle_day"]))] += 1
    for (lid, cyc), n in paid_per_cycle.items():
        if n > V["roaming_max_paid_passes"]:
            problems.append(f"line {lid}: {n} paid day passes in the cycle from {cyc}")
    for lid, u in db["usage"].items():
        c = cust[lines[lid]["customer_id"]]
        allowance = V[f"data_gb_{c['plan']}"]
        if u["allowance_gb"] != allowance:
            problems.append(f"usage {lid}: allowance {u['allowance_gb']} GB != {allowance} GB")
        if u["throttled"] != (u["data_used_gb"] >= allowance + u["top_up_gb"]):
            problems.append(f"usage {lid}: throttled flag disagrees with the data used")
    problems += _check_agent_records(db, V, today)
    for tid, t in db["tickets"].items():
        limit = V["escalate_attempts_slow_data"] if t["issue"] == "slow_data" else V["escalate_attempts"]
        want = _ticket_status(t["attempts"], limit)
        if (t["status"], t["tier"]) != (want["status"], want["tier"]):
            problems.append(f"ticket {tid}: status {t['status']} but the escalation rule gives {want['status']}")
        if lines[t["line_id"]]["status"] != "active":
            problems.append(f"ticket {tid}: troubleshooting on a line that is not active")
    return problems


# ---------------------------------------------------------------------------- contract

class Telecom(DomainCode):
    """The telecom pack's code: seed, check, API (api.py) and held-out tests (scenarios.py)."""

    values = VALUES
    value_facts = VALUE_FACTS
    test_quota = TestQuota(min_tests=60, min_trap_share=0.4, full_value_coverage=True)

    def generate(self, pack, seed, values=None, price_scale=1.0):
        if price_scale != 1:
            raise ValueError("the telecom seed does not scale prices itself")
        return generate(pack, seed, values)

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


DOMAIN = Telecom()


def _check_agent_records(db: dict, V: dict, today: dt.date) -> list[str]:
    """Records agents create: plan changes, new lines, SIM swaps, unlock requests, late-fee
    waivers, payment arrangements, hand-offs."""
    P: list[str] = []
    cust, lines, bills = db["customers"], db["lines"], db["bills"]
    for cid, c in cust.items():
        per_cycle: dict[dt.date, int] = defaultdict(int)
        n_lines = sum(ln["customer_id"] == cid for ln in lines.values())
        for ch in c.get("plan_changes", []):
            req = _d(ch["requested_on"])
            start = _cycle_start(req, c["cycle_day"])
            per_cycle[start] += 1
            if per_cycle[start] > V["max_plan_changes"]:
                P.append(f"customer {cid}: more than {V['max_plan_changes']} plan changes in the cycle from {start}")
            if c["status"] != "active":
                P.append(f"customer {cid}: plan changed on a {c['status']} account")
            up = V[f"plan_price_{ch['to_plan']}"] > V[f"plan_price_{ch['from_plan']}"]
            if up:
                if ch["effective_on"] != req.isoformat() or ch["status"] != "applied":
                    P.append(f"customer {cid}: an upgrade takes effect immediately")
                want = prorated_upgrade(V, {**c, "plan_changes": [x for x in c["plan_changes"] if x is not ch],
                                            "plan": ch["from_plan"]}, n_lines, ch["to_plan"], req)
                if abs(ch["prorated_charge"] - want) > 0.005:
                    P.append(f"customer {cid}: prorated upgrade charge {ch['prorated_charge']} != {want}")
            else:
                if ch["effective_on"] != _next_cycle(start, c["cycle_day"]).isoformat() or ch["prorated_charge"]:
                    P.append(f"customer {cid}: a downgrade takes effect at the next cycle, uncharged")
                if n_lines > V[f"max_lines_{ch['to_plan']}"]:
                    P.append(f"customer {cid}: downgrade to {ch['to_plan']} with {n_lines} lines")
    for lid, ln in lines.items():
        if ln.get("user_date_of_birth"):
            age = (today - _d(ln["user_date_of_birth"])).days // 365.25
            if age < V["parental_controls_age"] and not ln.get("parental_controls"):
                P.append(f"line {lid}: user under {V['parental_controls_age']} without parental controls")
        if "added_on" in ln and cust[ln["customer_id"]]["status"] != "active":
            P.append(f"line {lid}: added to a {cust[ln['customer_id']]['status']} account")
        for sw in ln.get("sim_swaps", []):
            free = sw["sim_type"] == "esim" or (sw["reason"] == "failed" and _d(sw["date"]) <= _d(ln["activated_on"])
                                                + dt.timedelta(days=365))
            want = 0.0 if free else float(V["sim_replacement_fee"])
            if abs(sw["fee"] - want) > 0.005:
                P.append(f"line {lid}: SIM replacement fee {sw['fee']} != {want}")
    for rid, r in db.get("unlock_requests", {}).items():
        dv = db["devices"][r["device_id"]]
        if dv["financed"] and dv["installments_billed"] < V["installment_months"]:
            P.append(f"unlock request {rid}: device {r['device_id']} is not paid off")
    waived: dict[str, list[dt.date]] = defaultdict(list)
    for wid, w in sorted(db.get("fee_waivers", {}).items(), key=lambda kv: kv[1]["date"]):
        b = bills[w["bill_id"]]
        fee = next((it for it in b["items"] if it["type"] == "late_fee"), None)
        if fee is None or abs(fee["amount"] - w["amount"]) > 0.005:
            P.append(f"fee waiver {wid}: bill {w['bill_id']} has no late fee of {w['amount']}")
        prior = [d for d in waived[b["customer_id"]] if (_d(w["date"]) - d).days < 365]
        if prior and not w.get("approved_by"):
            P.append(f"fee waiver {wid}: a second waiver within 12 months without a manager")
        waived[b["customer_id"]].append(_d(w["date"]))
    for aid, a in db.get("payment_arrangements", {}).items():
        due = sum(bills[b]["total"] for b in a["bill_ids"])
        if len(a["installments"]) > V["arrangement_max_installments"]:
            P.append(f"arrangement {aid}: more than {V['arrangement_max_installments']} installments")
        if due > V["arrangement_max_balance"]:
            P.append(f"arrangement {aid}: balance {due} above {V['arrangement_max_balance']}")
        if abs(sum(i["amount"] for i in a["installments"]) - due) > 0.005:
            P.append(f"arrangement {aid}: installments do not add up to {due}")
        if max(_d(i["due_on"]) for i in a["installments"]) > _d(a["created_on"]) + dt.timedelta(days=V["arrangement_days"]):
            P.append(f"arrangement {aid}: last installment later than {V['arrangement_days']} days")
    for hid, h in db.get("handoffs", {}).items():
        if h["customer_id"] not in cust:
            P.append(f"handoff {hid}: unknown customer {h['customer_id']}")
    return P
