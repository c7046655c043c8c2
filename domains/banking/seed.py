"""Seed database for the banking domain (Merrowgate Bank).

Customers with checking, savings, certificate and credit card accounts of catalog products,
debit and credit cards, four months of ledger transactions, monthly statements, transfers,
card replacements and disputes.

Every fee, interest amount and status in the ledgers is *derived*: the base items
(deposits, purchases, ATM withdrawals, bill payments, transfers, card payments, dispute
credits) are replayed day by day under the catalog and the prose rules (monthly fee waiver
balance, overdraft fee with its small-item and cushion exemptions and daily maximum,
out-of-network ATM fee and rebates, excess withdrawal fee, daily-compounded interest,
credit card foreign transaction fee, annual fee, late fee capped at the minimum payment,
interest when the previous balance was not paid in full). `generate` builds the ledgers
with that replay and `check` replays the recorded base items again and compares, besides
checking eligibility, limits, certificate terms, transfer fees and limits, dispute
timelines and card replacement times.

Catalog values come from tools/make_catalog.py; `VALUES` is the subset the seed exposes for
overriding (a variant that changes one of those cells passes the new value in).
"""
from __future__ import annotations

import datetime as dt
import importlib.util
import random
from collections import defaultdict
from pathlib import Path

from domains.contract import DomainCode, TestQuota
from domains.seedkit import add_business_days as _add_bd
from domains.seedkit import add_months as _add_months
from domains.seedkit import age_on as _age
from domains.seedkit import is_business_day as _is_bd
from domains.seedkit import merged_values as _merged
from domains.seedkit import month_end as _month_end

_HERE = Path(__file__).resolve().parent


def _load_catalog_module():
    spec = importlib.util.spec_from_file_location("factforge_banking_make_catalog", _HERE / "tools" / "make_catalog.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return mod


_MC = _load_catalog_module()
_FAMILIES = {f.key: f for f in (make() for make in _MC.FAMILIES)}
CATALOG: dict[str, dict[str, dict]] = {k: {n: dict(v) for n, v in f.rows} for k, f in _FAMILIES.items()}

# VALUES key -> catalog cell (family, product, attribute).
VALUE_CELLS: dict[str, tuple[str, str, str]] = {
    "essential_checking_monthly_fee": ("checking", "Essential Checking", "monthly_fee"),
    "essential_checking_waiver_balance": ("checking", "Essential Checking", "waiver_balance"),
    "essential_checking_atm_fee": ("checking", "Essential Checking", "atm_fee"),
    "essential_checking_overdraft_fee": ("checking", "Essential Checking", "overdraft_fee"),
    "everyday_checking_monthly_fee": ("checking", "Everyday Checking", "monthly_fee"),
    "everyday_checking_waiver_balance": ("checking", "Everyday Checking", "waiver_balance"),
    "everyday_checking_atm_fee": ("checking", "Everyday Checking", "atm_fee"),
    "everyday_checking_overdraft_fee": ("checking", "Everyday Checking", "overdraft_fee"),
    "premier_checking_monthly_fee": ("checking", "Premier Checking", "monthly_fee"),
    "premier_checking_waiver_balance": ("checking", "Premier Checking", "waiver_balance"),
    "premier_checking_overdraft_fee": ("checking", "Premier Checking", "overdraft_fee"),
    "everyday_savings_monthly_fee": ("savings", "Everyday Savings", "monthly_fee"),
    "everyday_savings_waiver_balance": ("savings", "Everyday Savings", "waiver_balance"),
    "everyday_savings_excess_withdrawal_fee": ("savings", "Everyday Savings", "excess_fee"),
    "money_market_premier_monthly_fee": ("savings", "Money Market Premier", "monthly_fee"),
    "money_market_premier_waiver_balance": ("savings", "Money Market Premier", "waiver_balance"),
    "money_market_premier_excess_withdrawal_fee": ("savings", "Money Market Premier", "excess_fee"),
    "anchor_certificate_apy": ("cd", "Anchor Certificate", "apy"),
    "mast_certificate_apy": ("cd", "Mast Certificate", "apy"),
    "bedrock_certificate_apy": ("cd", "Bedrock Certificate", "apy"),
    "cash_rewards_card_late_fee": ("credit_card", "Keystone Cash Rewards Card", "late_fee"),
    "cash_rewards_card_foreign_fee": ("credit_card", "Keystone Cash Rewards Card", "fx_fee"),
    "voyager_card_annual_fee": ("credit_card", "Voyager Travel Card", "annual_fee"),
    "voyager_card_late_fee": ("credit_card", "Voyager Travel Card", "late_fee"),
    "premier_rewards_card_annual_fee": ("credit_card", "Premier Rewards Card", "annual_fee"),
    "premier_rewards_card_late_fee": ("credit_card", "Premier Rewards Card", "late_fee"),
    "online_domestic_wire_fee": ("transfer", "Outgoing domestic wire (online)", "fee"),
    "same_day_ach_fee": ("transfer", "Same-day outgoing ACH transfer", "fee"),
    "p2p_daily_limit": ("transfer", "Person-to-person payment", "daily"),
    "debit_dispute_provisional_days": ("dispute", "Unauthorized debit card transaction", "provisional"),
    "debit_dispute_investigation_days": ("dispute", "Unauthorized debit card transaction", "investigation"),
    "debit_card_expedited_fee": ("card", "Standard debit card", "expedited_fee"),
}
PROSE_VALUES: dict[str, float | int] = {
    "overdraft_small_item": 5,
    "overdraft_cushion": 50,
    "card_due_days": 25,
    "card_min_payment": 35,
    "card_min_payment_percent": 1,
    "wire_callback_threshold": 10000,
    "fee_refund_without_manager": 50,
    "fee_refunds_per_year": 2,
    "dispute_small_amount": 10,
    "limit_change_months": 6,
    "max_authorized_users": 5,
    "authorized_user_min_age": 13,
    "private_client_user_fee": 75,
}
VALUES: dict[str, float | int] = {**{k: CATALOG[f][p][a] for k, (f, p, a) in VALUE_CELLS.items()}, **PROSE_VALUES}


def _row_prefix(family: str, product: str, attr: str) -> str:
    """The catalog table row of `product` up to and including the value of `attr` (no
    closing pipe, so the number of pipes before the end names the column)."""
    fam = _FAMILIES[family]
    vals = CATALOG[family][product]
    cells = [product]
    for key, _, fmt in fam.columns:
        cells.append(fmt(vals[key]))
        if key == attr:
            break
    return "| " + " | ".join(cells)


VALUE_FACTS: dict[str, str] = {
    **{k: _row_prefix(*cell) for k, cell in VALUE_CELLS.items()},
    "overdraft_small_item": "for an item of $5 or less",
    "overdraft_cushion": "overdrawn by $50 or less",
    "card_due_days": "The payment due date is 25 days after",
    "card_min_payment": "the greater of $35",
    "card_min_payment_percent": "1% of the statement balance",
    "wire_callback_threshold": "An outgoing wire above $10,000 requires a callback",
    "fee_refund_without_manager": "refund a single fee of up to $50",
    "fee_refunds_per_year": "refund at most 2 fees",
    "dispute_small_amount": "less than $10",
    "limit_change_months": "open for 6 months",
    "max_authorized_users": "at most 5 authorized users",
    "authorized_user_min_age": "at least 13 years old",
    "private_client_user_fee": "costs $75 per year",
}
_CELL_KEYS = {cell: k for k, cell in VALUE_CELLS.items()}

# Stable opaque code of every catalog row ("chk07"): records carry it next to the display
# name, so `check` still finds the catalog row after a variant has renamed the products.
_CODE_PREFIX = {"checking": "chk", "savings": "sav", "cd": "cdt", "credit_card": "pcc", "business": "biz",
                "business_card": "bcc", "personal_loan": "pln", "auto_loan": "vln", "home_loan": "hln",
                "transfer": "xfr", "dispute": "dty", "card": "cdk"}
CODES: dict[tuple[str, str], str] = {(fam, name): f"{_CODE_PREFIX[fam]}{i + 1:02d}"
                                     for fam, f in _FAMILIES.items() for i, (name, _) in enumerate(f.rows)}
BY_CODE: dict[str, tuple[str, str]] = {code: key for key, code in CODES.items()}

WINDOW_START = dt.date(2026, 2, 1)
PREMIER_CHECKING = ("Premier Checking", "Platinum Checking", "Private Client Checking", "Prestige Checking")
CHECKING_PRODUCTS = [("Essential Checking", 5), ("Everyday Checking", 7), ("Premier Checking", 4),
                     ("Private Client Checking", 1), ("Interest Checking", 2), ("Digital Checking", 1),
                     ("Campus Checking", 1), ("Silver Years Checking", 1)]
SAVINGS_PRODUCTS = ["Everyday Savings", "Everyday Savings", "Money Market Premier", "High-Yield Online Savings",
                    "Premier Savings"]
CD_PRODUCTS = ["Anchor Certificate", "Mast Certificate", "Bedrock Certificate", "Pacer Certificate",
               "Lighthouse Certificate"]
CARD_PRODUCTS = ["Keystone Cash Rewards Card", "Keystone Cash Rewards Card", "Voyager Travel Card",
                 "Premier Rewards Card", "Clearpath Low Rate Card", "Keystone Classic Card", "Horizon Miles Card"]
DEBIT_KINDS = ("purchase", "atm_withdrawal", "bill_payment", "transfer_out", "withdrawal")
DERIVED = frozenset({"overdraft_fee", "atm_fee", "atm_rebate", "excess_withdrawal_fee", "monthly_fee", "interest",
                     "foreign_transaction_fee", "late_fee", "annual_fee", "interest_charge"})
MERCHANTS = ["Corner Grocer", "Bluebird Cafe", "Metro Transit", "Harbor Pharmacy", "Lumen Books", "Northside Fuel",
             "Parkview Market", "Copperleaf Bistro", "Streamline Video", "Ironwood Hardware", "Sunny Day Laundry",
             "Cedar & Sage Kitchen", "Tidewater Outfitters", "Quickstop Deli", "Elm Street Bakery"]
FOREIGN_MERCHANTS = ["Café Lumière Paris", "Hotel Alcántara Madrid", "Kyoto Rail Pass", "Lisboa Taxi", "Berlin Buch"]
BILLERS = ["Rent - Willowbrook Apartments", "City Power & Light", "Cascade Water Utility", "Brightline Internet",
           "Evergreen Auto Insurance", "Summit Fitness Club"]
# Federal holidays (business days exclude them).
HOLIDAYS = frozenset(dt.date.fromisoformat(s) for s in (
    "2025-11-11", "2025-11-27", "2025-12-25", "2026-01-01", "2026-01-19", "2026-02-16", "2026-05-25",
    "2026-06-19", "2026-07-03", "2026-09-07", "2026-10-12", "2026-11-11", "2026-11-26", "2026-12-25"))


# ------------------------------------------------------------------------------- helpers

def merged_values(values: dict | None) -> dict[str, float | int]:
    return _merged(VALUES, values, "banking")


class _Cat:
    """Catalog lookup where the cells listed in VALUE_CELLS take their value from `V`."""

    def __init__(self, V: dict):
        self.V = V

    def __call__(self, family: str, product: str, attr: str):
        key = _CELL_KEYS.get((family, product, attr))
        return self.V[key] if key is not None else CATALOG[family][product][attr]


def _d(s: str) -> dt.date:
    return dt.date.fromisoformat(s)


def _m(x: float) -> float:
    return round(x + (1e-9 if x >= 0 else -1e-9), 2)


def is_business_day(d: dt.date) -> bool:
    return _is_bd(d, HOLIDAYS)


def add_business_days(d: dt.date, n: int) -> dt.date:
    return _add_bd(d, n, HOLIDAYS)


def _next_business_day(d: dt.date) -> dt.date:
    while not is_business_day(d):
        d += dt.timedelta(days=1)
    return d


def _days(a: dt.date, b: dt.date):
    d = a
    while d <= b:
        yield d
        d += dt.timedelta(days=1)


def _is_premier(customer_id: str, accounts: dict, on: dt.date) -> bool:
    return any(a["customer_id"] == customer_id and a["family"] == "checking" and a["product"] in PREMIER_CHECKING
               and _d(a["opened_on"]) <= on and a["status"] == "open" for a in accounts.values())


# ------------------------------------------------------------------------ deposit replay

def _replay_deposit(acct: dict, base: list[dict], cat: _Cat, V: dict, today: dt.date) -> tuple[list[dict], list[dict]]:
    """Post the base items of a checking or savings account in order and derive its fees,
    rebates and interest. Returns (ledger items in posting order, statements).

    Ledger items are the base items (with status and balance_after set) and derived items
    {"kind", "date", "amount", "related", "balance_after"}; `related` is the key of the
    item that caused a per-item fee."""
    fam, prod = acct["family"], acct["product"]
    opened = _d(acct["opened_on"])
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
        bal = _m(bal + amount)
        out.append({"kind": kind, "date": day.isoformat(), "amount": _m(amount), "related": related,
                    "balance_after": bal})

    for day in _days(start, today):
        ds = day.isoformat()
        for b in by_day.get(ds, []):
            amt = b["amount"]
            would = _m(bal + amt)
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
        if day == _month_end(day):
            rebate = 0.0
            if fam == "checking":
                rebate = _m(sum(out_of_network[:cat(fam, prod, "atm_rebates")]))
                if rebate > 0:
                    derived("atm_rebate", day, rebate)
            interest = _m(accrued)
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

def _min_payment(balance: float, charges: float, V: dict) -> float:
    if balance <= 0:
        return 0.0
    if balance < V["card_min_payment"]:
        return _m(balance)
    return _m(min(balance, max(V["card_min_payment"], balance * V["card_min_payment_percent"] / 100 + charges)))


def _replay_card(acct: dict, base: list[dict], cat: _Cat, V: dict, today: dt.date, pay_policy=None):
    """Post a credit card's purchases, payments and credits and derive its fees and
    interest. `pay_policy(statement) -> list[base item]` adds payments while generating."""
    prod = acct["product"]
    opened = _d(acct["opened_on"])
    start = max(opened, WINDOW_START)
    bal = acct["opening_balance"] if opened < WINDOW_START else 0.0
    pending = sorted(base, key=lambda b: (b["date"], b["seq"]))
    out: list[dict] = []
    statements: list[dict] = []
    prev = None
    if opened < WINDOW_START:  # the statement closed the day before the window
        close = WINDOW_START - dt.timedelta(days=1)
        prev = {"period_end": close.isoformat(), "closing_balance": bal,
                "minimum_payment": _min_payment(bal, 0.0, V),
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
        bal = _m(bal + amount)
        charges += amount
        out.append({"kind": kind, "date": day.isoformat(), "amount": _m(amount), "related": related,
                    "balance_after": bal})

    for day in _days(start, today):
        ds = day.isoformat()
        if annual > 0 and (day == opened or (day > opened and (day.month, day.day) == (opened.month, opened.day))):
            derived("annual_fee", day, float(annual))
        # Late fee on the day after the due date when the minimum payment did not arrive by then.
        if prev is not None and day == _d(prev["due_date"]) + dt.timedelta(days=1):
            if prev_paid + 1e-9 < prev["minimum_payment"]:
                fee = min(cat("credit_card", prod, "late_fee"), prev["minimum_payment"])
                if fee > 0:
                    derived("late_fee", day, float(fee))
        while pending and pending[0]["date"] == ds:
            b = pending.pop(0)
            bal = _m(bal + b["amount"])
            b["status"], b["balance_after"] = "posted", bal
            out.append(b)
            if b["kind"] == "payment":
                prev_paid += -b["amount"]
            if b["kind"] == "card_fee":
                charges += b["amount"]
            if b["kind"] == "purchase" and b.get("foreign") and fx > 0:
                derived("foreign_transaction_fee", day, _m(b["amount"] * fx / 100), b["key"])
        eod_sum += max(0.0, bal)
        ndays += 1
        if day == _month_end(day):
            interest = 0.0
            if prev is not None and _paid_by_due(out, prev) + 1e-9 < prev["closing_balance"]:
                intro_end = _add_months(opened, cat("credit_card", prod, "intro_months"))
                apr = cat("credit_card", prod, "intro_apr") if day < intro_end else cat("credit_card", prod, "apr")
                interest = _m(eod_sum * apr / 100 / 365)  # average daily balance x APR x days / 365
                if interest > 0:
                    derived("interest_charge", day, interest)
            stmt = {"account_id": acct["id"], "period_start": cyc_start.isoformat(), "period_end": ds,
                    "opening_balance": cyc_open, "closing_balance": bal, "interest": interest,
                    "fees": _m(charges - interest), "minimum_payment": _min_payment(bal, charges, V),
                    "due_date": (day + dt.timedelta(days=V["card_due_days"])).isoformat()}
            statements.append(stmt)
            prev, prev_paid = stmt, 0.0
            if pay_policy:
                pending = sorted(pending + pay_policy(stmt), key=lambda b: (b["date"], b["seq"]))
            cyc_start, cyc_open, eod_sum, ndays, charges = day + dt.timedelta(days=1), bal, 0.0, 0, 0.0
    return out, statements


def _paid_by_due(out: list[dict], stmt: dict) -> float:
    lo, hi = stmt["period_end"], stmt["due_date"]
    return sum(-b["amount"] for b in out if b.get("kind") == "payment" and lo < b["date"] <= hi)


# ------------------------------------------------------------------------------ generate

def generate(pack, seed: int, values: dict | None = None) -> dict:
    V = merged_values(values)
    cat = _Cat(V)
    rng = random.Random(f"{pack.name}:{seed}")
    pre = pack.brand.id_prefixes
    today = pack.info.now.date()
    counters: dict[str, int] = defaultdict(int)

    def nid(kind: str, base: int) -> str:
        counters[kind] += 1
        return f"{pre[kind]}{base + counters[kind]}"

    customers: dict[str, dict] = {}
    accounts: dict[str, dict] = {}
    cards: dict[str, dict] = {}
    base: dict[str, list] = defaultdict(list)   # account id -> base items
    seq = [0]
    profiles: dict[str, str] = {}

    def item(acct_id: str, day: dt.date, kind: str, amount: float, desc: str, **kw) -> dict:
        seq[0] += 1
        b = {"key": f"k{seq[0]}", "account_id": acct_id, "date": day.isoformat(), "seq": seq[0], "kind": kind,
             "amount": _m(amount), "description": desc, **kw}
        base[acct_id].append(b)
        return b

    states = ["NY", "NJ", "CT", "MA", "PA", "VT", "ME", "RI"]
    for i, name in enumerate(pack.brand.customers):
        cid = nid("customer", 100000)
        product = _weighted(rng, CHECKING_PRODUCTS)
        if product == "Campus Checking":
            age = rng.randint(19, 23)
        elif product == "Silver Years Checking":
            age = rng.randint(66, 82)
        else:
            age = rng.randint(24, 78)
        dob = _add_months(today, -12 * (age + 1)) + dt.timedelta(days=rng.randint(1, 364))
        first = name.split()[0].lower()
        last = name.split()[-1].lower().replace("'", "")
        customers[cid] = {
            "id": cid, "name": name, "date_of_birth": dob.isoformat(),
            "email": f"{first}.{last}@{rng.choice(['mailhub.example', 'postbox.example', 'netmail.example'])}",
            "phone": f"({rng.choice([212, 646, 718, 917, 201, 860])}) 555-01{rng.randint(0, 99):02d}",
            "state": rng.choice(states), "credit_score": rng.randint(600, 815),
            "customer_since": None, "premier_client": False,
        }
        # Checking: most accounts predate the window; a few were opened inside it.
        in_window = rng.random() < 0.15
        opened = (WINDOW_START + dt.timedelta(days=rng.randint(3, 80))) if in_window else \
            WINDOW_START - dt.timedelta(days=rng.randint(120, 3000))
        opened = max(opened, _add_months(dob, 12 * max(18, cat("checking", product, "min_age"))))
        waiver = cat("checking", product, "waiver_balance")
        profile = rng.choice(["comfortable", "comfortable", "near_waiver", "near_waiver", "tight"])
        if product in PREMIER_CHECKING:
            profile = rng.choice(["comfortable", "near_waiver"])
        profiles[cid] = profile
        start_bal = {"comfortable": max(waiver, 1000) * rng.uniform(1.3, 3.0),
                     "near_waiver": max(waiver, 400) * rng.uniform(0.85, 1.25),
                     "tight": rng.uniform(40, 400)}[profile]
        chk = _open_account(accounts, nid("account", 4000000), cid, "checking", product, opened, _m(start_bal))
        chk["overdraft_opt_in"] = profile == "tight" and rng.random() < 0.7 or rng.random() < 0.2
        customers[cid]["customer_since"] = opened.isoformat()
        if rng.random() < 0.65:
            sp = rng.choice(SAVINGS_PRODUCTS)
            so = opened + dt.timedelta(days=rng.randint(0, 400)) if not in_window else opened
            so = max(min(so, today - dt.timedelta(days=20)), _add_months(dob, 12 * cat("savings", sp, "min_age")))
            sw = cat("savings", sp, "waiver_balance")
            sb = rng.choice([sw * rng.uniform(1.1, 4), sw * rng.uniform(0.5, 0.95), sw * rng.uniform(0.9, 1.3)])
            _open_account(accounts, nid("account", 4000000), cid, "savings", sp, so,
                          _m(max(sb, cat("savings", sp, "opening_deposit") + 50)))
        if rng.random() < 0.35:
            cp = rng.choice(CD_PRODUCTS)
            term = cat("cd", cp, "term")
            co = today - dt.timedelta(days=rng.randint(10, term * 30 - 5))
            has_chk = opened <= co
            principal = _m(rng.choice([1000, 2500, 5000, 10000, 15000, 25000, 50000]) *
                           rng.choice([1, 1, 1.2, 1.5]))
            principal = max(principal, cat("cd", cp, "opening_deposit"))
            acct = _open_account(accounts, nid("account", 4000000), cid, "cd", cp, co, principal)
            acct.update({"principal": principal, "term_months": term,
                         "relationship_apy": has_chk,
                         "apy": cat("cd", cp, "rel_apy") if has_chk else cat("cd", cp, "apy"),
                         "maturity_date": _add_months(co, term).isoformat(),
                         "maturity_instruction": rng.choice(["renew", "renew", "transfer_to_checking"])})
        if rng.random() < 0.65:
            score = customers[cid]["credit_score"]
            eligible = [p for p in CARD_PRODUCTS if score >= cat("credit_card", p, "min_score")]
            cp = rng.choice(eligible) if eligible else "Foundation Secured Card"
            co = (WINDOW_START + dt.timedelta(days=rng.randint(0, 70))) if rng.random() < 0.2 else \
                WINDOW_START - dt.timedelta(days=rng.randint(60, 2500))
            co = max(co, _add_months(dob, 12 * 18))
            limit = max(cat("credit_card", cp, "min_limit"), rng.choice([2000, 3500, 5000, 8000, 12000, 20000]))
            acct = _open_account(accounts, nid("account", 4000000), cid, "credit_card", cp, co,
                                 _m(rng.uniform(0, limit * 0.25)) if co < WINDOW_START else 0.0)
            acct["credit_limit"] = float(limit)
            acct["autopay"] = rng.choice(["statement_balance", "none", "none", "minimum"])
            profiles[acct["id"]] = rng.choice(["full", "full", "full", "partial", "minimum", "late"])
    for cid, c in customers.items():
        c["premier_client"] = _is_premier(cid, accounts, today)

    # Cards: a debit card per checking account, a credit card per credit card account.
    for aid, a in sorted(accounts.items()):
        if a["family"] == "checking":
            kind = ("Private Client debit card" if a["product"] in ("Private Client Checking", "Prestige Checking")
                    else "Premier debit card" if a["product"] in PREMIER_CHECKING else "Standard debit card")
        elif a["family"] == "credit_card":
            kind = ("Secured credit card" if a["product"] == "Foundation Secured Card" else
                    "Premium credit card" if cat("credit_card", a["product"], "annual_fee") >= 95 else
                    "Standard credit card")
        else:
            continue
        _issue_card(cards, nid("card", 7000000), a, kind, _d(a["opened_on"]), rng, cat)

    # Base ledger items of deposit accounts and card purchases.
    for aid, a in sorted(accounts.items()):
        cid = a["customer_id"]
        start = max(_d(a["opened_on"]), WINDOW_START)
        if a["family"] == "checking":
            prof = profiles[cid]
            if _d(a["opened_on"]) >= WINDOW_START:
                item(aid, start, "deposit", max(cat("checking", a["product"], "opening_deposit"),
                                                 _m(a["initial_deposit"])), "Opening deposit", channel="branch")
            pay = _m(rng.choice([1450, 1800, 2150, 2600, 3100, 3900, 5200])
                     * (2.2 if a["product"] in PREMIER_CHECKING else 1))
            m = start.replace(day=1)
            while m <= today:
                for payday in (m, m.replace(day=15)):
                    pd = _next_business_day(payday)
                    if start <= pd <= today:
                        item(aid, pd, "deposit", pay, "Payroll direct deposit - Employer", channel="ach")
                spend_scale = pay * 2 * {"comfortable": 0.75, "near_waiver": 0.92, "tight": 0.97}[prof]
                bills = rng.sample(BILLERS, 2)
                for k, bname in enumerate(bills):
                    bd = m.replace(day=rng.randint(2, 27))
                    if start <= bd <= today:
                        item(aid, bd, "bill_payment", -_m(spend_scale * (0.32 if k == 0 else 0.06)), bname,
                             channel="bill_pay")
                for _ in range(rng.randint(6, 11)):
                    pday = m.replace(day=rng.randint(1, 28))
                    if start <= pday <= today:
                        amt = rng.choice([3.25, 4.5, 12.8, 18.4, 26.9, 41.15, 58.0, 73.6, 96.2, 134.75, 188.3])
                        item(aid, pday, "purchase", -_m(amt * (spend_scale / 4000 + 0.6)), rng.choice(MERCHANTS),
                             channel="card")
                atm_days: set = set()
                for _ in range(rng.randint(0, 3)):
                    aday = m.replace(day=rng.randint(1, 28))
                    if start <= aday <= today and aday not in atm_days:
                        atm_days.add(aday)  # at most one withdrawal a day keeps within the daily limit
                        cash = min(rng.choice([40, 60, 80, 100, 200, 300]), cat("checking", a["product"], "atm_limit"))
                        if rng.random() < 0.4:
                            sur = rng.choice([2.5, 3.0, 3.5])
                            item(aid, aday, "atm_withdrawal", -(cash + sur), "ATM withdrawal - other operator",
                                 channel="atm", atm_network="out", surcharge=sur)
                        else:
                            item(aid, aday, "atm_withdrawal", -cash, "ATM withdrawal - Merrowgate ATM",
                                 channel="atm", atm_network="in", surcharge=0.0)
                m = _add_months(m, 1)
        elif a["family"] == "savings":
            if _d(a["opened_on"]) >= WINDOW_START:
                item(aid, start, "deposit", max(cat("savings", a["product"], "opening_deposit"),
                                                 _m(a["initial_deposit"])), "Opening deposit", channel="branch")
            m = start.replace(day=1)
            while m <= today:
                for _ in range(rng.choice([0, 1, 2, 4, 6, 8])):
                    wd = m.replace(day=rng.randint(1, 28))
                    if start <= wd <= today:
                        ch = rng.choice(["online", "online", "atm", "branch"])
                        item(aid, wd, "withdrawal", -_m(rng.choice([20, 40, 60, 100, 150])), f"Withdrawal ({ch})",
                             channel=ch)
                m = _add_months(m, 1)
        elif a["family"] == "credit_card":
            m = start.replace(day=1)
            limit = a["credit_limit"]
            while m <= today:
                for _ in range(rng.randint(4, 9)):
                    pday = m.replace(day=rng.randint(1, 28))
                    if start <= pday <= today:
                        foreign = rng.random() < 0.12
                        amt = _m(rng.choice([9.99, 23.5, 47.2, 64.0, 88.75, 121.4, 215.0, 342.6]) *
                                 max(0.3, limit / 12000))
                        item(aid, pday, "purchase", amt,
                             rng.choice(FOREIGN_MERCHANTS if foreign else MERCHANTS), channel="card", foreign=foreign)
                m = _add_months(m, 1)

    transfers = _make_transfers(rng, accounts, customers, cat, V, today, item, nid)
    replacements = _make_replacements(rng, accounts, cards, customers, cat, today, item, nid)
    disputes = _make_disputes(rng, accounts, base, cat, today, item, nid)

    # Replay: deposit accounts (with a top-up deposit if an account would stay overdrawn
    # for more than 30 days), then credit cards with their payment behaviour.
    ledgers: dict[str, list] = {}
    statements: dict[str, list] = {}
    for aid, a in sorted(accounts.items()):
        if a["family"] in ("checking", "savings"):
            for _ in range(6):
                out, st = _replay_deposit(a, [dict(b) for b in base[aid]], cat, V, today)
                run_start = _long_negative_run(out, a, today)
                if run_start is None:
                    break
                fix = run_start + dt.timedelta(days=20)
                low = min(o["balance_after"] for o in out
                          if o["balance_after"] is not None and o["date"] <= fix.isoformat())
                item(aid, fix, "deposit", _m(-low + 300), "Cash deposit - branch", channel="branch")
            ledgers[aid], statements[aid] = out, st
        elif a["family"] == "credit_card":
            policy = _pay_policy(rng, a, profiles[aid], today, item)
            out, st = _replay_card(a, [dict(b) for b in base[aid]], cat, V, today, policy)
            ledgers[aid], statements[aid] = out, st

    # Ids in posting order; derived items point at their cause by id.
    txns: dict[str, dict] = {}
    key_to_id: dict[str, str] = {}
    for aid in sorted(ledgers):
        pos = 0
        for it in ledgers[aid]:
            pos += 1
            tid = nid("transaction", 90000000)
            if "key" in it:
                key_to_id[it["key"]] = tid
            it["_id"], it["_pos"] = tid, pos
    for aid in sorted(ledgers):
        for it in ledgers[aid]:
            rec = {"id": it["_id"], "account_id": aid, "date": it["date"], "seq": it["_pos"], "kind": it["kind"],
                   "amount": it["amount"], "description": it.get("description") or _DESCR[it["kind"]],
                   "status": it.get("status", "posted"), "balance_after": it["balance_after"]}
            for k in ("channel", "atm_network", "surcharge", "foreign"):
                if k in it:
                    rec[k] = it[k]
            rel = it.get("related")
            if rel is not None:
                rec["related_id"] = key_to_id.get(rel, rel)
            txns[rec["id"]] = rec
    for t in transfers.values():
        for k in ("debit_txn_id", "credit_txn_id", "fee_txn_id"):
            if t.get(k):
                t[k] = key_to_id[t[k]]
    for r in replacements.values():
        if r.get("fee_txn_id"):
            r["fee_txn_id"] = key_to_id[r["fee_txn_id"]]
    for dsp in disputes.values():
        for k in ("transaction_id", "provisional_txn_id", "reversal_txn_id"):
            if dsp.get(k):
                dsp[k] = key_to_id[dsp[k]]
    stmts: dict[str, dict] = {}
    for aid in sorted(statements):
        for s in statements[aid]:
            sid = nid("statement", 500000)
            stmts[sid] = {"id": sid, **s}
    for aid, a in accounts.items():
        led = [t for t in ledgers.get(aid, []) if t["balance_after"] is not None]
        if a["family"] in ("checking", "savings", "credit_card"):
            a["balance"] = led[-1]["balance_after"] if led else a["opening_balance"]
        else:
            a["balance"] = a["principal"]
    declined = [t for t in txns.values() if t["status"] == "declined"]
    assert all(t["kind"] in ("purchase", "atm_withdrawal") for t in declined)
    return {"customers": customers, "accounts": accounts, "cards": cards, "transactions": txns,
            "statements": stmts, "transfers": transfers, "card_replacements": replacements, "disputes": disputes}


_DESCR = {"overdraft_fee": "Overdraft fee", "atm_fee": "Out-of-network ATM fee", "atm_rebate": "ATM fee rebate",
          "excess_withdrawal_fee": "Excess withdrawal fee", "monthly_fee": "Monthly maintenance fee",
          "interest": "Interest paid", "foreign_transaction_fee": "Foreign transaction fee",
          "late_fee": "Late payment fee", "annual_fee": "Annual fee", "interest_charge": "Interest charge on purchases"}


def _weighted(rng: random.Random, pairs: list[tuple[str, int]]) -> str:
    return rng.choices([p for p, _ in pairs], weights=[w for _, w in pairs])[0]


def _open_account(accounts: dict, aid: str, cid: str, family: str, product: str, opened: dt.date,
                  balance: float) -> dict:
    """`opening_balance` is the balance on the first day of the ledger window (0 for accounts
    opened inside it, whose `initial_deposit` is posted as their first transaction)."""
    a = {"id": aid, "customer_id": cid, "family": family, "product": product,
         "product_code": CODES[(family, product)], "opened_on": opened.isoformat(), "status": "open",
         "opening_balance": balance}
    if family in ("checking", "savings", "credit_card") and opened >= WINDOW_START:
        a["opening_balance"], a["initial_deposit"] = 0.0, balance
    accounts[aid] = a
    return a


def _issue_card(cards: dict, card_id: str, acct: dict, kind: str, issued: dt.date, rng: random.Random, cat) -> dict:
    exp = _add_months(issued.replace(day=1), cat("card", kind, "validity"))
    cards[card_id] = {"id": card_id, "account_id": acct["id"], "customer_id": acct["customer_id"], "kind": kind,
                      "kind_code": CODES[("card", kind)],
                      "last4": f"{rng.randint(0, 9999):04d}", "issued_on": issued.isoformat(),
                      "expires": f"{exp.year}-{exp.month:02d}", "status": "active", "activated_on": issued.isoformat()}
    return cards[card_id]


def _long_negative_run(out: list[dict], acct: dict, today: dt.date) -> dt.date | None:
    """Start of the first run of more than 30 days with a negative end-of-day balance."""
    eod: dict[str, float] = {}
    for it in out:
        if it["balance_after"] is not None:
            eod[it["date"]] = it["balance_after"]
    start = max(_d(acct["opened_on"]), WINDOW_START)
    bal = acct["opening_balance"] if _d(acct["opened_on"]) < WINDOW_START else 0.0
    run = None
    for day in _days(start, today):
        bal = eod.get(day.isoformat(), bal)
        if bal < 0:
            run = run or day
            if (day - run).days > 30:
                return run
        else:
            run = None
    return None


def _pay_policy(rng: random.Random, acct: dict, profile: str, today: dt.date, item):
    state = {"late_done": False}

    def policy(stmt: dict) -> list[dict]:
        bal, mn, due = stmt["closing_balance"], stmt["minimum_payment"], _d(stmt["due_date"])
        if bal <= 0:
            return []
        close = _d(stmt["period_end"])
        if profile == "late" and not state["late_done"] and not stmt.get("carried"):
            state["late_done"] = True
            day, amt = due + dt.timedelta(days=rng.randint(3, 9)), mn
        elif profile == "minimum":
            day, amt = due - dt.timedelta(days=rng.randint(0, 3)), mn
        elif profile == "partial":
            day, amt = due - dt.timedelta(days=rng.randint(0, 8)), _m(max(mn, bal * rng.uniform(0.3, 0.7)))
        else:
            day, amt = due - dt.timedelta(days=rng.randint(0, 10)), bal
        day = max(day, close + dt.timedelta(days=1))
        if day > today or amt <= 0:
            return []
        return [dict(item(acct["id"], day, "payment", -amt, "Payment - thank you", channel="online"))]
    return policy


def _make_transfers(rng, accounts, customers, cat, V, today, item, nid) -> dict:
    transfers: dict[str, dict] = {}
    used: dict[tuple, float] = defaultdict(float)
    by_cust: dict[str, dict] = defaultdict(dict)
    for aid, a in sorted(accounts.items()):
        by_cust[a["customer_id"]].setdefault(a["family"], a)
    kinds = [("Standard outgoing ACH transfer", 4), ("Same-day outgoing ACH transfer", 2),
             ("Outgoing domestic wire (online)", 2), ("Person-to-person payment", 5),
             ("Outgoing international wire in US dollars", 1)]
    for cid in sorted(by_cust):
        accts = by_cust[cid]
        chk = accts.get("checking")
        if chk is None:
            continue
        sav = accts.get("savings")
        n = rng.randint(1, 5)
        for _ in range(n):
            day = WINDOW_START + dt.timedelta(days=rng.randint(0, (today - WINDOW_START).days))
            if not is_business_day(day) or day < _d(chk["opened_on"]):
                continue
            internal = sav is not None and day >= _d(sav["opened_on"]) and rng.random() < 0.45
            ttype = "Transfer between own accounts" if internal else _weighted(rng, kinds)
            premier = _is_premier(cid, accounts, day)
            if (day - _d(chk["opened_on"])).days < cat("transfer", ttype, "account_age"):
                continue
            amount = _m(rng.choice([50, 120, 250, 400, 750, 1200, 2500, 4000, 12500]))
            amount = min(amount, cat("transfer", ttype, "per_tx"))
            daily = cat("transfer", ttype, "premier_daily" if premier else "daily")
            month = day.strftime("%Y-%m")
            if used[(cid, ttype, day.isoformat())] + amount > daily or \
                    used[(cid, ttype, month)] + amount > cat("transfer", ttype, "monthly"):
                continue
            used[(cid, ttype, day.isoformat())] += amount
            used[(cid, ttype, month)] += amount
            fee = float(cat("transfer", ttype, "premier_fee" if premier else "fee"))
            tid = nid("transfer", 300000)
            payee = rng.choice(["Jordan Avery", "Northfield Property Mgmt", "Riverside Tutoring", "M. Okonjo",
                                "Granite State Roofing", "Elena Petrova"])
            debit = item(chk["id"], day, "transfer_out", -amount,
                         f"{ttype} - {payee if not internal else 'to savings'}", channel="online")
            rec = {"id": tid, "customer_id": cid, "type": ttype, "type_code": CODES[("transfer", ttype)],
                   "from_account_id": chk["id"],
                   "to_account_id": sav["id"] if internal else None, "payee": None if internal else payee,
                   "amount": amount, "fee": fee, "date": day.isoformat(), "status": "completed",
                   "premier_pricing": premier, "debit_txn_id": debit["key"], "credit_txn_id": None,
                   "fee_txn_id": None,
                   "callback_verified": ("wire" in ttype and amount > V["wire_callback_threshold"])}
            if internal:
                rec["credit_txn_id"] = item(sav["id"], day, "transfer_in", amount, "Transfer from checking",
                                            channel="online")["key"]
            if fee > 0:
                rec["fee_txn_id"] = item(chk["id"], day, "transfer_fee", -fee, f"{ttype} fee", channel="online")["key"]
            transfers[tid] = rec
    return transfers


def _make_replacements(rng, accounts, cards, customers, cat, today, item, nid) -> dict:
    out: dict[str, dict] = {}
    for cid in sorted(rng.sample(sorted(cards), min(10, len(cards)))):
        card = cards[cid]
        acct = accounts[card["account_id"]]
        ordered = WINDOW_START + dt.timedelta(days=rng.randint(5, (today - WINDOW_START).days - 1))
        ordered = _next_business_day(ordered)
        if ordered > today or ordered < _d(card["issued_on"]):
            continue
        reason = rng.choice(["lost", "stolen", "damaged", "damaged"])
        delivery = rng.choice(["standard", "standard", "expedited"])
        days = cat("card", card["kind"], "expedited" if delivery == "expedited" else "standard")
        due = add_business_days(ordered, days)
        delivered = add_business_days(ordered, rng.randint(max(1, days - 2), days))
        premier = customers[card["customer_id"]]["premier_client"]
        exp_fee = float(cat("card", card["kind"], "expedited_fee")) if delivery == "expedited" and not premier else 0.0
        prior = [r for r in out.values() if r["account_id"] == acct["id"]
                 and (ordered - _d(r["ordered_on"])).days < 365]
        rep_fee = float(cat("card", card["kind"], "replacement_fee")) if prior else 0.0
        new_id = nid("card", 7000000)
        new = _issue_card(cards, new_id, acct, card["kind"], ordered, rng, cat)
        if delivered > today:
            delivered = None
            new["status"], new["activated_on"] = "issued", None
        else:
            act = delivered + dt.timedelta(days=rng.randint(0, 3))
            if act > today:
                new["status"], new["activated_on"] = "issued", None
            else:
                new["activated_on"] = act.isoformat()
        if reason in ("lost", "stolen"):
            card["status"] = "blocked"
        else:
            card["status"] = "closed" if new["activated_on"] else "active"
        rid = nid("replacement", 600000)
        fee = exp_fee + rep_fee
        fee_key = None
        if fee > 0:
            sign = 1 if acct["family"] == "credit_card" else -1
            fee_key = item(acct["id"], ordered, "card_fee", sign * fee, "Card replacement fee", channel="branch")["key"]
        out[rid] = {"id": rid, "card_id": card["id"], "new_card_id": new_id, "account_id": acct["id"],
                    "reason": reason, "ordered_on": ordered.isoformat(), "delivery": delivery,
                    "due_by": due.isoformat(), "delivered_on": delivered.isoformat() if delivered else None,
                    "expedited_fee": exp_fee, "replacement_fee": rep_fee, "fee_txn_id": fee_key,
                    "premier_client": premier}
    return out


_DISPUTE_TYPES_DEBIT = ["Unauthorized debit card transaction", "Duplicate charge", "Merchandise not received",
                        "Incorrect transaction amount"]
_DISPUTE_TYPES_CREDIT = ["Unauthorized credit card transaction", "Duplicate charge", "Merchandise not as described",
                         "Merchandise not received"]


def _make_disputes(rng, accounts, base, cat, today, item, nid) -> dict:
    out: dict[str, dict] = {}
    cands = []
    for aid, a in sorted(accounts.items()):
        if a["family"] == "credit_card" or (a["family"] == "checking" and a.get("overdraft_opt_in")):
            cands += [b for b in base[aid] if b["kind"] == "purchase" and b["amount"] != 0]
    for b in rng.sample(cands, min(16, len(cands))):
        a = accounts[b["account_id"]]
        credit = a["family"] == "credit_card"
        dtype = rng.choice(_DISPUTE_TYPES_CREDIT if credit else _DISPUTE_TYPES_DEBIT)
        tday = _d(b["date"])
        stmt = _month_end(tday)
        deadline = stmt + dt.timedelta(days=cat("dispute", dtype, "report"))
        reported = tday + dt.timedelta(days=rng.randint(1, 40))
        if reported > min(today, deadline):
            continue
        amount = abs(b["amount"])
        prov_due = add_business_days(reported, cat("dispute", dtype, "provisional"))
        prov_day = add_business_days(reported, rng.randint(1, cat("dispute", dtype, "provisional")))
        inv_days = cat("dispute", dtype, "investigation")
        resolve_day = reported + dt.timedelta(days=rng.randint(5, inv_days))
        did = nid("dispute", 800000)
        rec = {"id": did, "customer_id": a["customer_id"], "account_id": a["id"], "transaction_id": b["key"],
               "type": dtype, "type_code": CODES[("dispute", dtype)], "amount": amount,
               "transaction_date": b["date"], "statement_date": stmt.isoformat(),
               "reported_on": reported.isoformat(), "documents_due_by": (reported + dt.timedelta(
                   days=cat("dispute", dtype, "documents"))).isoformat(),
               "provisional_credit_due_by": prov_due.isoformat(), "provisional_credit_on": None,
               "provisional_txn_id": None, "status": "investigating", "outcome": None, "resolved_on": None,
               "reversal_on": None, "reversal_txn_id": None,
               "investigation_due_by": (reported + dt.timedelta(days=inv_days)).isoformat()}
        sign = -1 if credit else 1
        if resolve_day <= today and resolve_day < prov_day and rng.random() < 0.3:
            rec.update(status="resolved", outcome="in_favor", resolved_on=resolve_day.isoformat())
            rec["provisional_txn_id"] = item(a["id"], resolve_day, "dispute_credit", sign * amount,
                                             f"Dispute credit {did}", channel="internal")["key"]
            rec["provisional_credit_on"] = resolve_day.isoformat()
        else:
            if prov_day <= today:
                rec["provisional_credit_on"] = prov_day.isoformat()
                rec["provisional_txn_id"] = item(a["id"], prov_day, "dispute_credit", sign * amount,
                                                 f"Provisional credit {did}", channel="internal")["key"]
            resolve_day = max(resolve_day, prov_day)
            if resolve_day <= min(today, reported + dt.timedelta(days=inv_days)) and rec["provisional_credit_on"]:
                outcome = rng.choice(["in_favor", "in_favor", "denied"])
                rec.update(status="resolved", outcome=outcome, resolved_on=resolve_day.isoformat())
                if outcome == "denied":
                    rev = add_business_days(resolve_day, cat("dispute", dtype, "notice"))
                    if rev <= today:
                        rec["reversal_on"] = rev.isoformat()
                        rec["reversal_txn_id"] = item(a["id"], rev, "dispute_reversal", -sign * amount,
                                                      f"Provisional credit reversal {did}", channel="internal")["key"]
        out[did] = rec
    return out


# --------------------------------------------------------------------------------- check

def check(pack, db: dict, values: dict | None = None) -> list[str]:
    V = merged_values(values)
    cat = _Cat(V)
    today = pack.info.now.date()
    db, P = _canonical(db)
    if P:
        return P
    cust, accts, cards, txns = db["customers"], db["accounts"], db["cards"], db["transactions"]
    for aid, a in accts.items():
        if a["customer_id"] not in cust:
            P.append(f"account {aid}: unknown customer {a['customer_id']}")
    for cid, c in cards.items():
        if c["account_id"] not in accts:
            P.append(f"card {cid}: unknown account {c['account_id']}")
    for tid, t in txns.items():
        if t["account_id"] not in accts:
            P.append(f"transaction {tid}: unknown account {t['account_id']}")
        if t.get("related_id") and t["related_id"] not in txns:
            P.append(f"transaction {tid}: unknown related transaction {t['related_id']}")
    for table, fields in (("transfers", ("from_account_id", "to_account_id")), ("disputes", ("account_id",)),
                          ("card_replacements", ("account_id",)), ("statements", ("account_id",))):
        for rid, r in db[table].items():
            for f in fields:
                if r.get(f) and r[f] not in accts:
                    P.append(f"{table} {rid}: unknown account {r[f]}")
    if P:
        return P
    # Eligibility at opening.
    for aid, a in accts.items():
        c = cust[a["customer_id"]]
        opened = _d(a["opened_on"])
        age = _age(_d(c["date_of_birth"]), opened)
        if a["family"] in ("checking", "savings", "cd") and age < cat(a["family"], a["product"], "min_age"):
            P.append(f"account {aid}: owner aged {age} is below the minimum age of {a['product']}")
        if a["product"] == "Campus Checking" and not 17 <= age <= 24:
            P.append(f"account {aid}: Campus Checking opened at age {age}")
        if a["family"] == "credit_card":
            if age < 18:
                P.append(f"account {aid}: credit card opened for an owner aged {age}")
            if c["credit_score"] < cat("credit_card", a["product"], "min_score"):
                P.append(f"account {aid}: credit score {c['credit_score']} below the {a['product']} minimum")
            if a["credit_limit"] < cat("credit_card", a["product"], "min_limit"):
                P.append(f"account {aid}: credit limit below the {a['product']} minimum")
        if a["family"] == "cd":
            P += _check_cd(aid, a, accts, cat)
    for cid, c in cust.items():
        if c["premier_client"] != _is_premier(cid, accts, today):
            P.append(f"customer {cid}: premier_client flag disagrees with the accounts held")
    # Ledgers and statements: replay the base items and compare.
    by_acct: dict[str, list] = defaultdict(list)
    for t in txns.values():
        by_acct[t["account_id"]].append(t)
    st_by_acct: dict[str, list] = defaultdict(list)
    for s in db["statements"].values():
        st_by_acct[s["account_id"]].append(s)
    for aid, a in sorted(accts.items()):
        if a["family"] not in ("checking", "savings", "credit_card"):
            continue
        recorded = sorted(by_acct.get(aid, []), key=lambda t: t["seq"])
        base = [{**t, "key": t["id"], "seq": t["seq"]} for t in recorded if t["kind"] not in DERIVED]
        if a["family"] == "credit_card":
            exp, exp_st = _replay_card(a, base, cat, V, today)
        else:
            exp, exp_st = _replay_deposit(a, base, cat, V, today)
        want = [(e["kind"], e["date"], e["amount"], e.get("status", "posted"), e["balance_after"],
                 e.get("related")) for e in exp]
        got = [(t["kind"], t["date"], t["amount"], t["status"], t["balance_after"], t.get("related_id"))
               for t in recorded]
        if want != got:
            diff = next((i for i, (x, y) in enumerate(zip(want, got)) if x != y), min(len(want), len(got)))
            w = want[diff] if diff < len(want) else None
            g = got[diff] if diff < len(got) else None
            P.append(f"account {aid}: ledger differs from the fee schedule at entry {diff + 1}: "
                     f"expected {w}, recorded {g}")
        last = [t for t in recorded if t["balance_after"] is not None]
        bal = last[-1]["balance_after"] if last else a["opening_balance"]
        if abs(a["balance"] - bal) > 0.005:
            P.append(f"account {aid}: balance {a['balance']} != ledger balance {bal}")
        keys = ("period_start", "period_end", "opening_balance", "closing_balance")
        got_st = sorted((tuple(s[k] for k in keys), s.get("monthly_fee"), s.get("minimum_payment"))
                        for s in st_by_acct.get(aid, []))
        want_st = sorted((tuple(s[k] for k in keys), s.get("monthly_fee"), s.get("minimum_payment")) for s in exp_st)
        if got_st != want_st:
            P.append(f"account {aid}: statements differ from the recomputed statements")
        P += _check_daily_limits(aid, a, recorded, cat)
        if a["family"] != "credit_card" and _long_negative_run(recorded, a, today) is not None:
            P.append(f"account {aid}: overdrawn for more than 30 days in a row")
    P += _check_transfers(db, cat, V)
    P += _check_disputes(db, cat, today)
    P += _check_replacements(db, cat, today)
    P += _check_agent_records(db, cat, V, today, pack.brand.managers)
    active: dict[str, int] = defaultdict(int)
    for c in cards.values():
        if c["status"] == "active":
            active[(c["account_id"], c["kind"])] += 1
    for (aid, kind), n in active.items():
        if n > cat("card", kind, "max_cards"):
            P.append(f"account {aid}: {n} active {kind}s exceed the catalog maximum")
    return P


def _canonical(db: dict) -> tuple[dict, list[str]]:
    """A copy of `db` whose product, card kind, transfer type and dispute type names are the
    base catalog names of their codes (records keep the display names of a variant)."""
    P: list[str] = []
    out = dict(db)
    for table, field, fams in (("accounts", "product", ("checking", "savings", "cd", "credit_card")),
                               ("cards", "kind", ("card",)), ("transfers", "type", ("transfer",)),
                               ("disputes", "type", ("dispute",))):
        recs = {}
        for rid, r in db[table].items():
            code = r.get(f"{field}_code" if field != "product" else "product_code")
            fam_name = BY_CODE.get(code)
            want = r.get("family") if table == "accounts" else fams[0]
            if fam_name is None or fam_name[0] != want:
                P.append(f"{table} {rid}: code {code!r} is not a {want} catalog row")
                continue
            recs[rid] = {**r, field: fam_name[1]}
        out[table] = recs
    return out, P


def _check_cd(aid: str, a: dict, accts: dict, cat) -> list[str]:
    P = []
    p = a["product"]
    opened = _d(a["opened_on"])
    if not cat("cd", p, "opening_deposit") <= a["principal"] <= cat("cd", p, "max_deposit"):
        P.append(f"certificate {aid}: deposit {a['principal']} outside the {p} limits")
    if a["term_months"] != cat("cd", p, "term"):
        P.append(f"certificate {aid}: term {a['term_months']} months != catalog term")
    if a["maturity_date"] != _add_months(opened, cat("cd", p, "term")).isoformat():
        P.append(f"certificate {aid}: maturity date {a['maturity_date']} is not the opening date plus the term")
    rel = any(x["customer_id"] == a["customer_id"] and x["family"] == "checking" and _d(x["opened_on"]) <= opened
              for x in accts.values())
    apy = cat("cd", p, "rel_apy") if rel else cat("cd", p, "apy")
    if a["relationship_apy"] != rel or abs(a["apy"] - apy) > 1e-9:
        P.append(f"certificate {aid}: APY {a['apy']}% but the catalog gives {apy}%")
    return P


def _check_daily_limits(aid: str, a: dict, recorded: list[dict], cat) -> list[str]:
    if a["family"] != "checking":
        return []
    P = []
    atm: dict[str, float] = defaultdict(float)
    buy: dict[str, float] = defaultdict(float)
    for t in recorded:
        if t["status"] != "posted":
            continue
        if t["kind"] == "atm_withdrawal":
            atm[t["date"]] += -t["amount"] - t.get("surcharge", 0.0)
        elif t["kind"] == "purchase":
            buy[t["date"]] += -t["amount"]
    for day, v in atm.items():
        if v > cat("checking", a["product"], "atm_limit") + 0.005:
            P.append(f"account {aid}: ATM withdrawals of {v} on {day} exceed the daily limit")
    for day, v in buy.items():
        if v > cat("checking", a["product"], "debit_limit") + 0.005:
            P.append(f"account {aid}: debit card purchases of {v} on {day} exceed the daily limit")
    return P


def _check_transfers(db: dict, cat, V: dict) -> list[str]:
    P = []
    accts, txns = db["accounts"], db["transactions"]
    daily: dict[tuple, float] = defaultdict(float)
    monthly: dict[tuple, float] = defaultdict(float)
    for tid, t in sorted(db["transfers"].items()):
        ty = t["type"]
        if ty not in CATALOG["transfer"]:
            P.append(f"transfer {tid}: unknown transfer type {ty}")
            continue
        day = _d(t["date"])
        premier = _is_premier(t["customer_id"], accts, day)
        fee = cat("transfer", ty, "premier_fee" if premier else "fee")
        if abs(t["fee"] - fee) > 0.005:
            P.append(f"transfer {tid}: fee {t['fee']} != catalog fee {fee}")
        if t["amount"] > cat("transfer", ty, "per_tx"):
            P.append(f"transfer {tid}: amount exceeds the per-transfer maximum")
        if t["status"] != "completed":
            continue
        daily[(t["customer_id"], ty, t["date"])] += t["amount"]
        monthly[(t["customer_id"], ty, t["date"][:7])] += t["amount"]
        lim = cat("transfer", ty, "premier_daily" if premier else "daily")
        if daily[(t["customer_id"], ty, t["date"])] > lim + 0.005:
            P.append(f"transfer {tid}: daily {ty} total exceeds {lim}")
        if monthly[(t["customer_id"], ty, t["date"][:7])] > cat("transfer", ty, "monthly") + 0.005:
            P.append(f"transfer {tid}: monthly {ty} total exceeds the monthly limit")
        src = accts[t["from_account_id"]]
        if (day - _d(src["opened_on"])).days < cat("transfer", ty, "account_age"):
            P.append(f"transfer {tid}: account too new for {ty}")
        if "wire" in ty and t["amount"] > V["wire_callback_threshold"] and not t["callback_verified"]:
            P.append(f"transfer {tid}: wire above the callback threshold released without a callback")
        if t["status"] != "completed":
            continue  # held (for example for a callback): nothing has moved
        deb = txns.get(t["debit_txn_id"])
        if deb is None or abs(deb["amount"] + t["amount"]) > 0.005 or deb["date"] != t["date"]:
            P.append(f"transfer {tid}: debit transaction does not match the transfer")
        if fee > 0:
            ft = txns.get(t.get("fee_txn_id") or "")
            if ft is None or abs(ft["amount"] + fee) > 0.005:
                P.append(f"transfer {tid}: fee transaction does not match the fee")
    return P


def _check_disputes(db: dict, cat, today: dt.date) -> list[str]:
    P = []
    txns = db["transactions"]
    for did, d in sorted(db["disputes"].items()):
        ty = d["type"]
        if ty not in CATALOG["dispute"]:
            P.append(f"dispute {did}: unknown dispute type {ty}")
            continue
        t = txns.get(d["transaction_id"])
        if t is None or t["account_id"] != d["account_id"] or abs(abs(t["amount"]) - d["amount"]) > 0.005:
            P.append(f"dispute {did}: disputed transaction does not match")
            continue
        rep = _d(d["reported_on"])
        stmt = _month_end(_d(t["date"]))
        if d["statement_date"] != stmt.isoformat():
            P.append(f"dispute {did}: statement date {d['statement_date']} != {stmt.isoformat()}")
        if rep > stmt + dt.timedelta(days=cat("dispute", ty, "report")) or rep < _d(t["date"]):
            P.append(f"dispute {did}: reported on {d['reported_on']}, outside the reporting window")
        prov_due = add_business_days(rep, cat("dispute", ty, "provisional"))
        inv_due = rep + dt.timedelta(days=cat("dispute", ty, "investigation"))
        if d["provisional_credit_due_by"] != prov_due.isoformat() or d["investigation_due_by"] != inv_due.isoformat():
            P.append(f"dispute {did}: recorded due dates disagree with the dispute timelines")
        pc = _d(d["provisional_credit_on"]) if d["provisional_credit_on"] else None
        res = _d(d["resolved_on"]) if d["resolved_on"] else None
        if pc is not None and pc > prov_due:
            P.append(f"dispute {did}: provisional credit on {pc} after the {prov_due} deadline")
        if pc is None and today > prov_due and (res is None or res > prov_due):
            P.append(f"dispute {did}: provisional credit overdue since {prov_due}")
        if res is not None and res > inv_due:
            P.append(f"dispute {did}: resolved on {res} after the investigation deadline {inv_due}")
        if res is None and today > inv_due:
            P.append(f"dispute {did}: investigation overdue since {inv_due}")
        if (d["status"] == "resolved") != (res is not None) or (res is not None) != (d["outcome"] is not None):
            P.append(f"dispute {did}: status {d['status']} disagrees with its resolution")
        if pc is not None:
            pt = txns.get(d["provisional_txn_id"] or "")
            if pt is None or pt["date"] != d["provisional_credit_on"] or abs(abs(pt["amount"]) - d["amount"]) > 0.005:
                P.append(f"dispute {did}: provisional credit transaction does not match")
        if d["outcome"] == "denied" and pc is not None:
            earliest = add_business_days(res, cat("dispute", ty, "notice"))
            if d["reversal_on"] is not None and _d(d["reversal_on"]) < earliest:
                P.append(f"dispute {did}: provisional credit reversed before the notice period ended")
            if d["reversal_on"] is None and today >= earliest:
                P.append(f"dispute {did}: denied but the provisional credit was never reversed")
        elif d["reversal_on"] is not None:
            P.append(f"dispute {did}: reversal recorded on a dispute that was not denied")
    return P


def _check_replacements(db: dict, cat, today: dt.date) -> list[str]:
    P = []
    cards, txns = db["cards"], db["transactions"]
    seen: dict[str, list] = defaultdict(list)
    for rid, r in sorted(db["card_replacements"].items(), key=lambda kv: (kv[1]["ordered_on"], kv[0])):
        card = cards.get(r["card_id"])
        new = cards.get(r["new_card_id"])
        if card is None or new is None:
            P.append(f"replacement {rid}: unknown card")
            continue
        ordered = _d(r["ordered_on"])
        days = cat("card", card["kind"], "expedited" if r["delivery"] == "expedited" else "standard")
        due = add_business_days(ordered, days)
        if r["due_by"] != due.isoformat():
            P.append(f"replacement {rid}: due date {r['due_by']} != {due.isoformat()}")
        if r["delivered_on"] and _d(r["delivered_on"]) > due:
            P.append(f"replacement {rid}: delivered after {due.isoformat()}")
        if r["delivered_on"] is None and today > due:
            P.append(f"replacement {rid}: delivery overdue since {due.isoformat()}")
        exp = float(cat("card", card["kind"], "expedited_fee")) if (r["delivery"] == "expedited"
                                                                    and not r["premier_client"]) else 0.0
        prior = [o for o in seen[r["account_id"]] if (ordered - o).days < 365]
        rep = float(cat("card", card["kind"], "replacement_fee")) if prior else 0.0
        seen[r["account_id"]].append(ordered)
        if abs(r["expedited_fee"] - exp) > 0.005 or abs(r["replacement_fee"] - rep) > 0.005:
            P.append(f"replacement {rid}: fees {r['expedited_fee']}+{r['replacement_fee']} != {exp}+{rep}")
        if exp + rep > 0:
            ft = txns.get(r["fee_txn_id"] or "")
            if ft is None or abs(abs(ft["amount"]) - (exp + rep)) > 0.005:
                P.append(f"replacement {rid}: fee transaction does not match")
        if r["reason"] in ("lost", "stolen") and card["status"] != "blocked":
            P.append(f"replacement {rid}: a {r['reason']} card must be blocked")
        if new["activated_on"] and _d(new["activated_on"]) > _d(new["issued_on"]) + dt.timedelta(days=90):
            P.append(f"replacement {rid}: new card activated more than 90 days after issue")
    return P


# ------------------------------------------------------------------------------ contract

class Banking(DomainCode):
    """The banking pack's code: seed, check, API (api.py) and held-out tests (scenarios.py)."""

    values = VALUES
    value_facts = VALUE_FACTS
    test_quota = TestQuota(min_tests=150, min_trap_share=0.4)

    def generate(self, pack, seed, values=None, price_scale=1.0):
        if price_scale != 1:
            raise ValueError("the banking seed does not scale prices itself")
        return generate(pack, seed, values)

    def check(self, pack, db, values=None):
        return check(pack, db, values)

    def merged_values(self, values=None):
        return merged_values(values)

    def api(self, pack, values=None):
        from .api import CATALOG as API  # noqa: PLC0415
        return API.bind(pack, merged_values(values))

    def scenarios(self, ctx):
        from .scenarios import scenarios  # noqa: PLC0415
        return scenarios(ctx)


DOMAIN = Banking()


def _check_agent_records(db: dict, cat, V: dict, today: dt.date, managers: list[str]) -> list[str]:
    """Records staff create: opening deposits, fee refunds, duplicate disputes, loan
    applications, credit limit requests, authorized users, stop payments, hand-offs."""
    P: list[str] = []
    accts, txns, cust = db["accounts"], db["transactions"], db["customers"]
    by_acct: dict[str, list] = defaultdict(list)
    for t in txns.values():
        by_acct[t["account_id"]].append(t)
    for aid, a in accts.items():
        if a["family"] in ("checking", "savings") and _d(a["opened_on"]) >= WINDOW_START:
            first = min(by_acct[aid], key=lambda t: t["seq"], default=None)
            need = cat(a["family"], a["product"], "opening_deposit")
            if first is None or first["kind"] != "deposit" or first["amount"] + 0.005 < need:
                P.append(f"account {aid}: opening deposit below the {a['product']} minimum of {need}")
    courtesy: dict[str, list[dt.date]] = defaultdict(list)
    for t in sorted(txns.values(), key=lambda t: (t["date"], t["id"])):
        if t["kind"] != "fee_refund":
            continue
        fee = txns.get(t.get("refund_of", ""))
        if fee is None or fee["account_id"] != t["account_id"] or abs(t["amount"]) > abs(fee["amount"]) + 0.005:
            P.append(f"transaction {t['id']}: fee refund does not match a fee on the account")
            continue
        if t.get("reason") == "courtesy":
            day = _d(t["date"])
            if abs(t["amount"]) > V["fee_refund_without_manager"] and t.get("approved_by") not in managers:
                P.append(f"transaction {t['id']}: fee refund of {abs(t['amount'])} without a branch manager")
            prior = [d for d in courtesy[t["account_id"]] if (day - d).days < 365]
            if len(prior) >= V["fee_refunds_per_year"]:
                P.append(f"transaction {t['id']}: more than {V['fee_refunds_per_year']} fee refunds in 12 months")
            courtesy[t["account_id"]].append(day)
    seen: set[str] = set()
    for did, d in sorted(db["disputes"].items()):
        if d["transaction_id"] in seen:
            P.append(f"dispute {did}: transaction {d['transaction_id']} disputed more than once")
        seen.add(d["transaction_id"])
        if d["provisional_credit_on"] == d["reported_on"] == d["resolved_on"] and d["amount"] >= V["dispute_small_amount"]:
            P.append(f"dispute {did}: credited without investigation although {d['amount']} is not small")
    for lid, ap in sorted(db.get("loan_applications", {}).items()):
        fam, prod = ap["family"], ap["product"]
        row = lambda k: cat(fam, prod, k)  # noqa: E731
        score = cust[ap["customer_id"]]["credit_score"]
        lo = row("min_amount") if fam != "home_loan" else 0
        if not lo <= ap["amount"] <= row("max_amount"):
            P.append(f"loan application {lid}: amount {ap['amount']} outside the {prod} range")
        if fam == "personal_loan" and not row("min_term") <= ap["term_months"] <= row("max_term"):
            P.append(f"loan application {lid}: term {ap['term_months']} outside the {prod} range")
        if fam == "auto_loan" and ap["term_months"] > row("max_term"):
            P.append(f"loan application {lid}: term {ap['term_months']} above the {prod} maximum")
        if fam == "home_loan" and ap["term_months"] != row("term"):
            P.append(f"loan application {lid}: term {ap['term_months']} is not the {prod} term")
        if score < row("min_score"):
            P.append(f"loan application {lid}: credit score {score} below the {prod} minimum")
        apr_lo = row("apr_min") if fam != "home_loan" else row("apr")
        if ap["apr"] < apr_lo - 1e-9 or (fam == "personal_loan" and ap["apr"] > row("apr_max") + 1e-9):
            P.append(f"loan application {lid}: APR {ap['apr']} outside the {prod} range")
        fee = row("doc_fee") if fam == "auto_loan" else _m(ap["amount"] * row("origination") / 100)
        if abs(ap["fee"] - fee) > 0.005:
            P.append(f"loan application {lid}: fee {ap['fee']} != {fee}")
    for rid, r in sorted(db.get("limit_requests", {}).items()):
        a = accts[r["account_id"]]
        if _add_months(_d(a["opened_on"]), V["limit_change_months"]) > _d(r["requested_on"]) and r["new_limit"] > r["old_limit"]:
            P.append(f"limit request {rid}: increase requested before {V['limit_change_months']} months")
    for aid, a in accts.items():
        users = a.get("authorized_users", [])
        if len(users) > V["max_authorized_users"]:
            P.append(f"account {aid}: {len(users)} authorized users")
        for u in users:
            if _age(_d(u["date_of_birth"]), _d(u["added_on"])) < V["authorized_user_min_age"]:
                P.append(f"account {aid}: authorized user {u['name']} younger than {V['authorized_user_min_age']}")
            want = V["private_client_user_fee"] if a["product"] == "Private Client Reserve Card" else 0
            if abs(u["annual_fee"] - want) > 0.005:
                P.append(f"account {aid}: authorized user fee {u['annual_fee']} != {want}")
    for sid, sp in sorted(db.get("stop_payments", {}).items()):
        a = accts[sp["account_id"]]
        want = cat(a["family"], a["product"], "stop_fee") if a["family"] == "checking" else None
        if want is None or abs(sp["fee"] - want) > 0.005:
            P.append(f"stop payment {sid}: fee {sp['fee']} != {want}")
    for hid, h in sorted(db.get("handoffs", {}).items()):
        if h["customer_id"] not in cust:
            P.append(f"handoff {hid}: unknown customer {h['customer_id']}")
    return P
