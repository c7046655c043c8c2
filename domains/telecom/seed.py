"""Seed database for the telecom domain (Kestrel Mobile).

Customers with one plan per account, lines with SIMs, financed devices, monthly bills whose
items follow the plan table and the billing rules (`billing`), payments, Tailwind top-ups,
roaming day passes, current-cycle usage and troubleshooting tickets. Account and line
statuses (active / suspended / cancelled) follow from the bills' due and payment dates under
the suspension rules (`rules.timeline`). `check.py` recomputes all of that from the
primitive records.
"""
from __future__ import annotations

import datetime as dt
from collections import defaultdict

from domains.seedgen import SeedGen
from domains.seedkit import date_of

from .billing import by_customer, expected_bills, pass_charges
from .rules import (CREDIT_CLASSES, ISSUES, PLANS, REGIONS, TOPUP_SIZES, cycle_start, next_cycle, rounded, suspended_on,
                    ticket_status, timeline, values_with)

DEVICE_MODELS = [("Nimbus 8", 699), ("Nimbus 8 Pro", 999), ("Pebble A5", 299), ("Orion X2", 849),
                 ("Lumo Flip 2", 129), ("Pebble A7", 399), ("Orion X2 Ultra", 1199), ("Vela Mini", 549)]
PHONE_AREAS = ["303", "720", "970", "719"]
FAMILY_FIRST_NAMES = ["Alex", "Sam", "Jordan", "Riley", "Casey", "Morgan"]
PROFILES = ["good", "good", "good", "good", "good", "good", "good", "good", "late_once", "late_once",
            "late_once", "overdue", "overdue", "restored", "restored", "suspended", "suspended",
            "cancelled", "good", "good"]
EMAIL_DOMAINS = ["mailbox.example", "inbox.example", "post.example"]
TABLES = ["customers", "lines", "devices", "bills", "payments", "top_ups", "roaming_passes", "usage", "tickets"]


class _Seed(SeedGen):
    """One generation under way (`SeedGen`: the values, the random stream, the clock, the id
    counters) and the tables written so far."""

    def __init__(self, pack, seed: int, values: dict | None):
        super().__init__(pack, seed, values_with(values))
        self.db: dict[str, dict[str, dict]] = {t: {} for t in TABLES}


def generate(pack, seed: int, values: dict | None = None) -> dict:
    s = _Seed(pack, seed, values)
    numbers = [f"({a}) 555-01{n:02d}" for a in PHONE_AREAS for n in range(100)]
    s.rng.shuffle(numbers)
    profiles = list(PROFILES)
    while len(profiles) < len(pack.brand.customers):
        profiles.append("good")
    s.rng.shuffle(profiles)
    for ci, name in enumerate(pack.brand.customers):
        _account(s, name, profiles[ci], numbers)
    _bill_items_and_payments(s)
    _device_balances(s)
    _usage(s)
    _tickets(s)
    return s.db


# ------------------------------------------------------------------------------ accounts

def _account(s: _Seed, name: str, profile: str, numbers: list[str]) -> None:
    """One customer with its lines, devices, bill dates and payments, statuses, top-ups and
    roaming passes."""
    c, n_lines, bd = _customer(s, name)
    cust_lines = _lines(s, c, n_lines, bd, profile, numbers)
    _devices(s, c, cust_lines)
    tl = _bills(s, c, cust_lines, bd, profile)
    _statuses(c, cust_lines, tl)
    for ln in cust_lines:
        _line_top_ups(s, ln, bd, c["cycle_day"], tl)
        _line_roaming(s, ln, bd, tl)


def _customer(s: _Seed, name: str) -> tuple[dict, int, list[dt.date]]:
    """The customer record, its number of lines and its bill dates: the last 5 cycle days up
    to today (the account opened before them)."""
    rng, V, today = s.rng, s.v, s.today
    cid = s.serial("customer", 10000)
    plan = rng.choice(PLANS)
    n_lines = rng.randint(1, min(V[f"max_lines_{plan}"], 5))
    cycle_day = rng.choice([1, 8, 15, 22])
    method = rng.choice(["bank_account", "bank_account", "debit_card", "credit_card"])
    autopay = rng.random() < 0.6
    first, last = name.split(" ", 1)
    bd = [cycle_start(today, cycle_day)]
    for _ in range(4):
        prev = bd[0] - dt.timedelta(days=1)
        bd.insert(0, cycle_start(prev, cycle_day))
    opened = bd[0] - dt.timedelta(days=rng.randint(40, 1400))
    s.db["customers"][cid] = {
        "id": cid, "name": name,
        "email": f"{first.lower()}.{last.lower().replace(' ', '').replace('-', '')}@{rng.choice(EMAIL_DOMAINS)}",
        "zip": f"80{rng.randint(200, 699)}", "date_of_birth": dt.date(rng.randint(1950, 2004), rng.randint(1, 12),
                                                                    rng.randint(1, 28)).isoformat(),
        "credit_class": rng.choice(CREDIT_CLASSES), "plan": plan, "plan_name": s.pack.brand.products[f"{plan} plan"],
        "cycle_day": cycle_day, "opened_on": opened.isoformat(), "paperless": autopay or rng.random() < 0.5,
        "autopay": {"enabled": autopay, "method": method}, "status": "active",
    }
    return s.db["customers"][cid], n_lines, bd


def _lines(s: _Seed, c: dict, n_lines: int, bd: list[dt.date], profile: str, numbers: list[str]) -> list[dict]:
    """The account's lines: the first at opening; one account may have a line added in the
    last 40 days."""
    rng, today = s.rng, s.today
    opened = date_of(c["opened_on"])
    last = c["name"].split(" ", 1)[1]
    out = []
    for li in range(n_lines):
        lid = s.serial("line", 50000)
        act = opened if li == 0 else opened + dt.timedelta(days=rng.randint(0, (bd[0] - opened).days))
        if li == n_lines - 1 and n_lines > 1 and profile == "good" and rng.random() < 0.4:
            act = today - dt.timedelta(days=rng.randint(5, 40))
        sim_type = rng.choice(["physical", "esim"])
        wrong_pin = rng.choice([0, 0, 0, 0, 1, 3])
        s.db["lines"][lid] = {
            "id": lid, "customer_id": c["id"], "number": numbers.pop(), "plan": c["plan"],
            "user": c["name"] if li == 0 else f"{rng.choice(FAMILY_FIRST_NAMES)} {last}",
            "activated_on": act.isoformat(), "status": "active",
            "sim": {"iccid": "8901" + "".join(str(rng.randint(0, 9)) for _ in range(15)), "type": sim_type,
                    "wrong_pin_attempts": wrong_pin, "status": "pin_locked" if wrong_pin >= 3 else "active"},
            "status_history": [{"date": act.isoformat(), "status": "active", "reason": "activation"}],
        }
        out.append(s.db["lines"][lid])
    return out


def _devices(s: _Seed, c: dict, cust_lines: list[dict]) -> None:
    """One device per line; financed devices obey the per-line and per-account limits."""
    rng, V = s.rng, s.v
    financed_count = 0
    for ln in cust_lines:
        model, price = rng.choice(DEVICE_MODELS)
        financed = rng.random() < 0.6 and financed_count < V["max_financed_per_account"]
        financed_count += financed
        bought = date_of(ln["activated_on"])
        did = s.serial("device", 70000)
        down = rounded(price * V[f"down_payment_pct_{c['credit_class']}"] / 100) if financed else price
        fin_amt = rounded(price - down) if financed else 0.0
        monthly = rounded(fin_amt / V["installment_months"]) if financed else 0.0
        s.db["devices"][did] = {
            "id": did, "line_id": ln["id"], "model": model,
            "imei": "35" + "".join(str(rng.randint(0, 9)) for _ in range(13)),
            "price": float(price), "purchased_on": bought.isoformat(), "financed": financed,
            "down_payment": float(down), "financed_amount": fin_amt, "monthly_installment": monthly,
            "installments_before_history": 0, "installments_billed": 0,
            "protection": rng.random() < 0.35, "unlocked": False,
        }
        ln["device_id"] = did


# --------------------------------------------------------------------------------- bills

def _paid_dates(s: _Seed, bd: list[dt.date], due: list[dt.date], autopay: bool, profile: str) -> list:
    """When each bill was paid (None: unpaid), per the customer's payment profile."""
    rng, V, today = s.rng, s.v, s.today
    paid: list[dt.date | None] = []
    for b, du in zip(bd, due):
        p = du if autopay else du - dt.timedelta(days=rng.randint(0, min(12, V["due_days"])))
        paid.append(p if p <= today else None)
    days_over = [(today - du).days for du in due]

    def pick(cands):
        return rng.choice(cands) if cands else None

    if profile == "late_once":
        u = pick([i for i in range(len(bd) - 1) if days_over[i] > V["suspend_days"]])
        if u is not None:
            late = due[u] + dt.timedelta(days=rng.randint(V["late_fee_grace_days"] + 1, V["suspend_days"] - 2))
            paid[u] = late if late <= today else None
    elif profile in ("overdue", "suspended", "cancelled"):
        lo, hi = {"overdue": (1, V["suspend_days"]), "suspended": (V["suspend_days"], V["cancel_days"]),
                  "cancelled": (V["cancel_days"], 10**6)}[profile]
        u = pick([i for i in range(len(bd)) if lo <= days_over[i] < hi])
        if u is not None:
            for i in range(u, len(bd)):
                paid[i] = None
    elif profile == "restored":
        cands = [i for i in range(len(bd) - 1)
                 if due[i] + dt.timedelta(days=V["suspend_days"] + 8) < bd[-1]]
        u = pick(cands)
        if u is not None:
            r = due[u] + dt.timedelta(days=V["suspend_days"] + rng.randint(1, 8))
            for i in range(u, len(bd)):
                if bd[i] <= r:
                    paid[i] = r
    return paid


def _bills(s: _Seed, c: dict, cust_lines: list[dict], bd: list[dt.date], profile: str) -> dict:
    """The account's bills (dates only: items come later), none after a cancellation, and
    the installments its devices had billed before them. Returns the account's timeline."""
    V, today = s.v, s.today
    due = [b + dt.timedelta(days=V["due_days"]) for b in bd]
    paid = _paid_dates(s, bd, due, c["autopay"]["enabled"], profile)
    cust_bills = []
    for b, du, p in zip(bd, due, paid):
        cust_bills.append({"id": "", "customer_id": c["id"], "bill_date": b.isoformat(), "due_date": du.isoformat(),
                           "paid_date": p.isoformat() if p else None})
    tl = timeline(cust_bills, V, today)
    if tl["cancelled_on"] is not None:  # no bills are issued after cancellation
        cust_bills = [b for b in cust_bills if date_of(b["bill_date"]) <= tl["cancelled_on"]]
    for b in cust_bills:
        b["id"] = s.serial("bill", 200000)
        s.db["bills"][b["id"]] = b
    # Installments billed before the bills kept here (one per month since purchase).
    for dv in (s.db["devices"][ln["device_id"]] for ln in cust_lines):
        if dv["financed"]:
            months_before = (date_of(cust_bills[0]["bill_date"]) - date_of(dv["purchased_on"])).days // 30
            dv["installments_before_history"] = max(0, min(months_before, V["installment_months"]))
    return timeline(cust_bills, V, today)


def _statuses(c: dict, cust_lines: list[dict], tl: dict) -> None:
    """Account, line and SIM statuses and the lines' status history from the timeline."""
    c["status"] = tl["status"]
    for ln in cust_lines:
        for start, end in tl["suspensions"]:
            if start >= date_of(ln["activated_on"]):
                ln["status_history"].append({"date": start.isoformat(), "status": "suspended",
                                             "reason": "non-payment"})
                if end is not None and (tl["cancelled_on"] is None or end < tl["cancelled_on"]):
                    ln["status_history"].append({"date": end.isoformat(), "status": "active",
                                                 "reason": "overdue balance paid"})
        if tl["cancelled_on"] is not None:
            ln["status_history"].append({"date": tl["cancelled_on"].isoformat(), "status": "cancelled",
                                         "reason": "non-payment"})
        ln["status"] = tl["status"]
        if ln["status"] != "active" and ln["sim"]["status"] == "active":
            ln["sim"]["status"] = "suspended"


# ---------------------------------------------------------------------- top-ups, roaming

def _line_top_ups(s: _Seed, ln: dict, bd: list[dt.date], cycle_day: int, tl: dict) -> None:
    """Top-ups in the last three cycles, within the per-cycle limits, never while the
    account is suspended."""
    rng, V, today = s.rng, s.v, s.today
    act = date_of(ln["activated_on"])
    for cyc_start in bd[-3:]:
        if rng.random() < 0.35:
            cyc_end = next_cycle(cyc_start, cycle_day)
            spent = 0
            count: dict[int, int] = defaultdict(int)
            for _ in range(rng.randint(1, 3)):
                size = rng.choice(TOPUP_SIZES)
                price = V[f"topup_price_{size}gb"]
                day = cyc_start + dt.timedelta(days=rng.randint(10, 27))
                if (day >= cyc_end or day > today or day < act or suspended_on(day, tl)
                        or count[size] >= V[f"topup_max_{size}gb"] or spent + price > V["topup_cap_per_cycle"]):
                    continue
                count[size] += 1
                spent += price
                tid = s.serial("top_up", 300000)
                s.db["top_ups"][tid] = {"id": tid, "line_id": ln["id"], "size_gb": size, "date": day.isoformat(),
                                        "price": float(price), "bill_id": None}


def _line_roaming(s: _Seed, ln: dict, bd: list[dt.date], tl: dict) -> None:
    """A trip of a few days with a pass a day (priced once every pass is known), on a line
    active long enough and not suspended."""
    rng, V, today = s.rng, s.v, s.today
    act = date_of(ln["activated_on"])
    if rng.random() < 0.3:
        region = rng.choice(sorted(REGIONS))
        start = bd[-3] + dt.timedelta(days=rng.randint(0, 40))
        for k in range(rng.randint(2, 7)):
            day = start + dt.timedelta(days=k)
            if (day > today or (day - act).days < V["roaming_min_active_days"] or suspended_on(day, tl)):
                continue
            pid = s.serial("roaming_pass", 400000)
            s.db["roaming_passes"][pid] = {"id": pid, "line_id": ln["id"], "region": region,
                                           "region_name": REGIONS[region], "date": day.isoformat(), "price": 0.0,
                                           "included": False, "bill_id": None}


# ---------------------------------------------------------------- items, payments, usage

def _bill_items_and_payments(s: _Seed) -> None:
    """Roaming pass prices (they need every pass of a line in a cycle), then each bill's
    items, total and status, the installments billed, and a payment for each paid bill."""
    db, V = s.db, s.v
    customers, devices, bills, topups, passes = (db["customers"], db["devices"], db["bills"], db["top_ups"],
                                                 db["roaming_passes"])
    charges = pass_charges(list(passes.values()), db["lines"], customers, V)
    for pid, p in passes.items():
        p["price"] = charges[pid]
        p["included"] = charges[pid] == 0
    groups = by_customer(customers, db["lines"], devices, bills, topups, passes)
    for cid, g in groups.items():
        exp = expected_bills(customers[cid], g["lines"], g["devices"], g["bills"], g["topups"], g["passes"],
                             charges, V, s.today)
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
                _payment(s, customers[cid], b)


def _payment(s: _Seed, cust: dict, b: dict) -> None:
    if cust["autopay"]["enabled"] and b["paid_date"] <= b["due_date"]:
        method = "autopay"
    else:
        method = s.rng.choice(["app", "app", "online", "agent_phone"])
    pid = s.serial("payment", 600000)
    fee = float(s.v["agent_payment_fee"]) if method == "agent_phone" else 0.0
    s.db["payments"][pid] = {"id": pid, "bill_id": b["id"], "customer_id": cust["id"], "date": b["paid_date"],
                             "amount": b["total"], "method": method, "fee": fee}


def _device_balances(s: _Seed) -> None:
    """Whether each device is unlocked and what is left to pay on it."""
    V = s.v
    for dv in s.db["devices"].values():
        line = s.db["lines"][dv["line_id"]]
        paid_off = (not dv["financed"]) or dv["installments_billed"] >= V["installment_months"]
        dv["unlocked"] = paid_off and (s.today - date_of(line["activated_on"])).days >= V["unlock_after_days"]
        owed = dv["financed_amount"] - dv["monthly_installment"] * dv["installments_billed"]
        dv["balance_remaining"] = rounded(owed) if dv["financed"] else 0.0


def _usage(s: _Seed) -> None:
    """Current-cycle usage: some lines ran out of high-speed data (and maybe topped up)."""
    rng, V = s.rng, s.v
    for lid, ln in sorted(s.db["lines"].items()):
        cust = s.db["customers"][ln["customer_id"]]
        cyc = cycle_start(s.today, cust["cycle_day"])
        allowance = V[f"data_gb_{cust['plan']}"]
        extra_gb = sum(t["size_gb"] for t in s.db["top_ups"].values()
                       if t["line_id"] == lid and date_of(t["date"]) >= cyc)
        frac = rng.choice([0.1, 0.3, 0.55, 0.8, 0.95, 1.0, 1.0])
        used = round((allowance + extra_gb) * frac, 1)
        hotspot = round(min(used, V[f"hotspot_gb_{cust['plan']}"]) * rng.choice([0, 0.2, 0.5]), 1)
        s.db["usage"][lid] = {"line_id": lid, "cycle_start": cyc.isoformat(), "data_used_gb": used,
                              "hotspot_used_gb": hotspot, "allowance_gb": allowance, "top_up_gb": extra_gb,
                              "throttled": used >= allowance + extra_gb}


def _tickets(s: _Seed) -> None:
    """Troubleshooting on active lines; escalation per the attempt thresholds."""
    rng, V = s.rng, s.v
    agents = list(s.pack.brand.agents)
    active = sorted(lid for lid, ln in s.db["lines"].items() if ln["status"] == "active")
    for lid in rng.sample(active, min(14, len(active))):
        issue = rng.choice(ISSUES)
        limit = V["escalate_attempts_slow_data"] if issue == "slow_data" else V["escalate_attempts"]
        n = rng.randint(1, limit + 1)
        opened = s.today - dt.timedelta(days=rng.randint(2, 60))
        attempts = []
        for k in range(n):
            day = opened + dt.timedelta(days=min(k * rng.randint(0, 2), 6))
            attempts.append({"date": day.isoformat(), "agent": rng.choice(agents), "result": "failed"})
            if len(attempts) >= limit:
                break
        if len(attempts) < limit and rng.random() < 0.7:
            attempts[-1]["result"] = "resolved"
        tid = s.serial("ticket", 800000)
        s.db["tickets"][tid] = {"id": tid, "line_id": lid, "issue": issue, "opened_on": opened.isoformat(),
                                "attempts": attempts, **ticket_status(attempts, limit)}
