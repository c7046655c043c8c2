"""The Merrowgate Bank policy as code: the product catalog (`PRODUCTS`, made by
tools/make_catalog.py, which also writes the catalog pages of the policy), the values the seed
depends on (`VALUES`: the catalog cells of `VALUE_CELLS` and the prose values; a variant may
override any of them), each linked to the policy sentence that states it, the stable codes of
catalog rows, the bank's calendar, and the rules the seed, the check, the API and the
scenarios share (premier status, catalog terms under the values).
"""
from __future__ import annotations

import datetime as dt
import importlib.util
from pathlib import Path

from domains import seedkit
from domains.seedkit import date_of
from domains.value_feeds import PLACEHOLDER
from facts.values import find_values

_HERE = Path(__file__).resolve().parent


def _load_catalog_tool():
    spec = importlib.util.spec_from_file_location("factforge_banking_make_catalog", _HERE / "tools" / "make_catalog.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return mod


#: tools/make_catalog.py: the product families, their rows and the policy pages made of them
CATALOG_TOOL = _load_catalog_tool()
FAMILIES = {f.key: f for f in (make() for make in CATALOG_TOOL.FAMILIES)}
#: the product catalog: family -> product name -> attributes
PRODUCTS: dict[str, dict[str, dict]] = {k: {n: dict(v) for n, v in f.rows} for k, f in FAMILIES.items()}

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
VALUES: dict[str, float | int] = {**{k: PRODUCTS[f][p][a] for k, (f, p, a) in VALUE_CELLS.items()}, **PROSE_VALUES}


def _row_prefix(family: str, product: str, attr: str) -> str:
    """The catalog table row of `product` up to and including the cell of `attr`, every value
    written `…` (no closing pipe, so the number of cells names the column)."""
    fam = FAMILIES[family]
    vals = PRODUCTS[family][product]
    cells = [product]
    for key, _, fmt in fam.columns:
        text = fmt(vals[key])
        for *_, a, b in reversed(find_values(text)):
            text = text[:a] + PLACEHOLDER + text[b:]
        cells.append(text)
        if key == attr:
            break
    return "| " + " | ".join(cells)


VALUE_FACTS: dict[str, str] = {
    **{k: _row_prefix(*cell) for k, cell in VALUE_CELLS.items()},
    "overdraft_small_item": "for an item of … or less",
    "overdraft_cushion": "overdrawn by … or less",
    "card_due_days": "The payment due date is … after",
    "card_min_payment": "the greater of …",
    "card_min_payment_percent": "… of the statement balance",
    "wire_callback_threshold": "An outgoing wire above … requires a callback",
    "fee_refund_without_manager": "refund a single fee of up to …",
    "fee_refunds_per_year": "refund at most … fees",
    "dispute_small_amount": "A dispute for a transaction of less than …",
    "limit_change_months": "open for …",
    "max_authorized_users": "at most … authorized users",
    "authorized_user_min_age": "An authorized user must be at least …",
    "private_client_user_fee": "costs … per year",
}
_CELL_KEYS = {cell: k for k, cell in VALUE_CELLS.items()}

# Stable opaque code of every catalog row ("chk07"): records carry it next to the display
# name, so `check` still finds the catalog row after a variant has renamed the products.
_CODE_PREFIX = {"checking": "chk", "savings": "sav", "cd": "cdt", "credit_card": "pcc", "business": "biz",
                "business_card": "bcc", "personal_loan": "pln", "auto_loan": "vln", "home_loan": "hln",
                "transfer": "xfr", "dispute": "dty", "card": "cdk"}
CODES: dict[tuple[str, str], str] = {(fam, name): f"{_CODE_PREFIX[fam]}{i + 1:02d}"
                                     for fam, f in FAMILIES.items() for i, (name, _) in enumerate(f.rows)}
BY_CODE: dict[str, tuple[str, str]] = {code: key for key, code in CODES.items()}

WINDOW_START = dt.date(2026, 2, 1)   # the first day of the ledgers
PREMIER_CHECKING = ("Premier Checking", "Platinum Checking", "Private Client Checking", "Prestige Checking")
DEBIT_KINDS = ("purchase", "atm_withdrawal", "bill_payment", "transfer_out", "withdrawal")
DERIVED = frozenset({"overdraft_fee", "atm_fee", "atm_rebate", "excess_withdrawal_fee", "monthly_fee", "interest",
                     "foreign_transaction_fee", "late_fee", "annual_fee", "interest_charge"})
# Federal holidays (business days exclude them).
HOLIDAYS = frozenset(dt.date.fromisoformat(s) for s in (
    "2025-11-11", "2025-11-27", "2025-12-25", "2026-01-01", "2026-01-19", "2026-02-16", "2026-05-25",
    "2026-06-19", "2026-07-03", "2026-09-07", "2026-10-12", "2026-11-11", "2026-11-26", "2026-12-25"))


def values_with(values: dict | None) -> dict[str, float | int]:
    """VALUES with a variant's `values` over them."""
    return seedkit.merged_values(VALUES, values, "banking")


class ProductTerms:
    """A product's catalog terms under the values `V`: `terms(family, product, attribute)`, where
    the cells listed in VALUE_CELLS take their value from `V`."""

    def __init__(self, V: dict):
        self.V = V

    def __call__(self, family: str, product: str, attr: str):
        key = _CELL_KEYS.get((family, product, attr))
        return self.V[key] if key is not None else PRODUCTS[family][product][attr]


def rounded(x: float) -> float:
    """An amount rounded to cents (a half cent away from zero), as a float."""
    return round(x + (1e-9 if x >= 0 else -1e-9), 2)


def next_business_day(d: dt.date) -> dt.date:
    """`d` if it is a business day of the bank, else the next one."""
    while not seedkit.is_business_day(d, HOLIDAYS):
        d += dt.timedelta(days=1)
    return d


def days_between(a: dt.date, b: dt.date):
    """Every day from `a` to `b`, both included."""
    d = a
    while d <= b:
        yield d
        d += dt.timedelta(days=1)


def is_premier(customer_id: str, accounts: dict, on: dt.date) -> bool:
    """Whether the customer holds an open premier checking account opened by `on`."""
    return any(a["customer_id"] == customer_id and a["family"] == "checking" and a["product"] in PREMIER_CHECKING
               and date_of(a["opened_on"]) <= on and a["status"] == "open" for a in accounts.values())
