"""The bank's ledgers replayed: the base items of an account (deposits, purchases, ATM
withdrawals, bill payments, transfers, card payments, dispute credits) posted day by day
under the catalog and the prose rules, deriving every fee, rebate, interest amount and
statement (monthly fee waiver balance, overdraft fee with its small-item and cushion
exemptions and daily maximum, out-of-network ATM fee and rebates, excess withdrawal fee,
daily-compounded interest; for credit cards the foreign transaction fee, annual fee, late
fee capped at the minimum payment, and interest when the previous balance was not paid in
full). The seed builds the ledgers with it; the check replays the recorded base items and
compares.
"""
from __future__ import annotations

import datetime as dt
from collections import defaultdict

from domains.seedkit import add_months, date_of, month_end

from .rules import DEBIT_KINDS, WINDOW_START, ProductTerms, days_between, rounded

# ------------------------------------------------------------------------ deposit replay

def replay_deposit(acct: dict, base: list[dict], cat: ProductTerms, V: dict,
                   today: dt.date) -> tuple[list[dict], list[dict]]:
    """Post the base items of a checking or savings account in order and derive its fees,
    rebates and interest. Returns (ledger items in posting order, statements).

    Ledger items are the base items (with status and balance_after set) and derived items
    {"kind", "date", "amount", "related", "balance_after"}; `related` is the key of the
    item that caused a per-item fee."""
    fam, prod = acct["family"], acct["product"]
    opened = date_of(acct["opened_on"])
    start = max(opened, WINDOW_START)
    bal = acct["opening_balance"] if opened < WINDOW_START else 0.0
    items = sorted(base, key=lambda b: (b["date"], b["seq"]))
    by_day: dict[str, list] = defaultdict(list)
    for b in items:
        by_day[b["date"]].append(b)
    out: list[dict] = []
    statements: list[dict] = []
    apy = cat(fam, prod, "apy")
    r = (1 + apy / 100) ** (1 / 365) - 1 if apy > 0 else 0.0
    r_low = (1 + 0.01 / 100) ** (1 / 365) - 1
    cap = cat(fam, prod, "apy_cap") if fam == "savings" else None
    interest_min = cat(fam, prod, "interest_min") if fam == "savings" else 0.01
    opted = acct.get("overdraft_opt_in", False)
    cyc_start, cyc_open_bal = start, bal
    eod_min: float | None = None
    accrued = 0.0
    od_today: dict[str, int] = defaultdict(int)
    withdrawals = 0
    out_of_network: list[float] = []

    def derived(kind, day, amount, related=None):
        nonlocal bal
        bal = rounded(bal + amount)
        out.append({"kind": kind, "date": day.isoformat(), "amount": rounded(amount), "related": related,
                    "balance_after": bal})

    for day in days_between(start, today):
        ds = day.isoformat()
        for b in by_day.get(ds, []):
            amt = b["amount"]
            would = rounded(bal + amt)
            if (amt < 0 and would < 0 and b["kind"] in ("purchase", "atm_withdrawal")
                    and (fam != "checking" or not opted)):
                b["status"], b["balance_after"] = "declined", None
                out.append(b)
                continue
            bal = would
            b["status"], b["balance_after"] = "posted", bal
            out.append(b)
            if fam == "checking" and b["kind"] == "atm_withdrawal" and b.get("atm_network") == "out":
                out_of_network.append(b.get("surcharge", 0.0))
            if fam == "checking" and amt < 0 and b["kind"] in DEBIT_KINDS:
                fee = cat(fam, prod, "overdraft_fee")
                if (bal < -V["overdraft_cushion"] and -amt > V["overdraft_small_item"] and fee > 0
                        and od_today[ds] < cat(fam, prod, "overdraft_max")):
                    od_today[ds] += 1
                    derived("overdraft_fee", day, -fee, b["key"])
            if fam == "checking" and b["kind"] == "atm_withdrawal" and b.get("atm_network") == "out":
                fee = cat(fam, prod, "atm_fee")
                if fee > 0:
                    derived("atm_fee", day, -fee, b["key"])
            if fam == "savings" and b["kind"] in ("withdrawal", "transfer_out") and b.get("channel") != "branch":
                withdrawals += 1
                if withdrawals > cat(fam, prod, "free_withdrawals") and cat(fam, prod, "excess_fee") > 0:
                    derived("excess_withdrawal_fee", day, -cat(fam, prod, "excess_fee"), b["key"])
        eod_min = bal if eod_min is None else min(eod_min, bal)
        if r and bal >= interest_min:
            base_part = bal if cap is None else min(bal, cap)
            accrued += base_part * r + (max(0.0, bal - cap) * r_low if cap is not None else 0.0)
        if day == month_end(day):
            rebate = 0.0
            if fam == "checking":
                rebate = rounded(sum(out_of_network[:cat(fam, prod, "atm_rebates")]))
                if rebate > 0:
                    derived("atm_rebate", day, rebate)
            interest = rounded(accrued)
            if interest > 0:
                derived("interest", day, interest)
            fee = cat(fam, prod, "monthly_fee")
            charged = 0.0
            # No fee in the cycle of opening, nor when the minimum daily balance met the waiver.
            if fee > 0 and cyc_start > opened and eod_min < cat(fam, prod, "waiver_balance"):
                charged = fee
                derived("monthly_fee", day, -fee)
            statements.append({"account_id": acct["id"], "period_start": cyc_start.isoformat(),
                               "period_end": ds, "opening_balance": cyc_open_bal, "closing_balance": bal,
                               "min_daily_balance": eod_min, "monthly_fee": charged, "interest": interest,
                               "atm_rebate": rebate, "withdrawals_counted": withdrawals if fam == "savings" else None,
                               "overdraft_fees": sum(v for k, v in od_today.items()
                                                     if cyc_start.isoformat() <= k <= ds)})
            cyc_start = day + dt.timedelta(days=1)
            cyc_open_bal, eod_min, accrued, withdrawals, out_of_network = bal, None, 0.0, 0, []
    return out, statements


# ---------------------------------------------------------------------- credit card replay

def min_payment(balance: float, charges: float, V: dict) -> float:
    """The minimum payment of a statement: the whole balance below the minimum, else the
    greater of the minimum and the percentage of the balance plus the period's charges."""
    if balance <= 0:
        return 0.0
    if balance < V["card_min_payment"]:
        return rounded(balance)
    return rounded(min(balance, max(V["card_min_payment"], balance * V["card_min_payment_percent"] / 100 + charges)))


def replay_card(acct: dict, base: list[dict], cat: ProductTerms, V: dict, today: dt.date, pay_policy=None):
    """Post a credit card's purchases, payments and credits and derive its fees and
    interest. `pay_policy(statement) -> list[base item]` adds payments while generating."""
    prod = acct["product"]
    opened = date_of(acct["opened_on"])
    start = max(opened, WINDOW_START)
    bal = acct["opening_balance"] if opened < WINDOW_START else 0.0
    pending = sorted(base, key=lambda b: (b["date"], b["seq"]))
    out: list[dict] = []
    statements: list[dict] = []
    prev = None
    if opened < WINDOW_START:  # the statement closed the day before the window
        close = WINDOW_START - dt.timedelta(days=1)
        prev = {"period_end": close.isoformat(), "closing_balance": bal,
                "minimum_payment": min_payment(bal, 0.0, V),
                "due_date": (close + dt.timedelta(days=V["card_due_days"])).isoformat(), "carried": True}
        if pay_policy:
            pending = sorted(pending + pay_policy(prev), key=lambda b: (b["date"], b["seq"]))
    cyc_start, cyc_open = start, bal
    eod_sum, ndays, charges = 0.0, 0, 0.0
    prev_paid = 0.0   # payments since the previous statement closed
    fx = cat("credit_card", prod, "fx_fee")
    annual = cat("credit_card", prod, "annual_fee")

    def derived(kind, day, amount, related=None):
        nonlocal bal, charges
        bal = rounded(bal + amount)
        charges += amount
        out.append({"kind": kind, "date": day.isoformat(), "amount": rounded(amount), "related": related,
                    "balance_after": bal})

    for day in days_between(start, today):
        ds = day.isoformat()
        if annual > 0 and (day == opened or (day > opened and (day.month, day.day) == (opened.month, opened.day))):
            derived("annual_fee", day, float(annual))
        # Late fee on the day after the due date when the minimum payment did not arrive by then.
        if prev is not None and day == date_of(prev["due_date"]) + dt.timedelta(days=1):
            if prev_paid + 1e-9 < prev["minimum_payment"]:
                fee = min(cat("credit_card", prod, "late_fee"), prev["minimum_payment"])
                if fee > 0:
                    derived("late_fee", day, float(fee))
        while pending and pending[0]["date"] == ds:
            b = pending.pop(0)
            bal = rounded(bal + b["amount"])
            b["status"], b["balance_after"] = "posted", bal
            out.append(b)
            if b["kind"] == "payment":
                prev_paid += -b["amount"]
            if b["kind"] == "card_fee":
                charges += b["amount"]
            if b["kind"] == "purchase" and b.get("foreign") and fx > 0:
                derived("foreign_transaction_fee", day, rounded(b["amount"] * fx / 100), b["key"])
        eod_sum += max(0.0, bal)
        ndays += 1
        if day == month_end(day):
            interest = 0.0
            if prev is not None and paid_by_due(out, prev) + 1e-9 < prev["closing_balance"]:
                intro_end = add_months(opened, cat("credit_card", prod, "intro_months"))
                apr = cat("credit_card", prod, "intro_apr") if day < intro_end else cat("credit_card", prod, "apr")
                interest = rounded(eod_sum * apr / 100 / 365)  # average daily balance x APR x days / 365
                if interest > 0:
                    derived("interest_charge", day, interest)
            stmt = {"account_id": acct["id"], "period_start": cyc_start.isoformat(), "period_end": ds,
                    "opening_balance": cyc_open, "closing_balance": bal, "interest": interest,
                    "fees": rounded(charges - interest), "minimum_payment": min_payment(bal, charges, V),
                    "due_date": (day + dt.timedelta(days=V["card_due_days"])).isoformat()}
            statements.append(stmt)
            prev, prev_paid = stmt, 0.0
            if pay_policy:
                pending = sorted(pending + pay_policy(stmt), key=lambda b: (b["date"], b["seq"]))
            cyc_start, cyc_open, eod_sum, ndays, charges = day + dt.timedelta(days=1), bal, 0.0, 0, 0.0
    return out, statements


def paid_by_due(out: list[dict], stmt: dict) -> float:
    """What was paid on the card after the statement closed, up to its due date."""
    lo, hi = stmt["period_end"], stmt["due_date"]
    return sum(-b["amount"] for b in out if b.get("kind") == "payment" and lo < b["date"] <= hi)


def long_negative_run(out: list[dict], acct: dict, today: dt.date) -> dt.date | None:
    """Start of the first run of more than 30 days with a negative end-of-day balance."""
    eod: dict[str, float] = {}
    for it in out:
        if it["balance_after"] is not None:
            eod[it["date"]] = it["balance_after"]
    start = max(date_of(acct["opened_on"]), WINDOW_START)
    bal = acct["opening_balance"] if date_of(acct["opened_on"]) < WINDOW_START else 0.0
    run = None
    for day in days_between(start, today):
        bal = eod.get(day.isoformat(), bal)
        if bal < 0:
            run = run or day
            if (day - run).days > 30:
                return run
        else:
            run = None
    return None

