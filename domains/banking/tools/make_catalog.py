"""Generate the product catalog tables of the banking domain (policy/*-catalog.md).

Deterministic: no randomness, no clock. Every product row starts from its tier's values
(basic < standard < enhanced < premium < elite: fees, waiver thresholds, limits and rates
rise with the tier) and applies a few product-specific overrides, so the catalog is
realistic and internally consistent (APY ladders rise with the term, loan APRs rise with
the term and fall with the credit score, premium products waive more fees).

    python domains/banking/tools/make_catalog.py          # rewrite the catalog files
    python domains/banking/tools/make_catalog.py --check  # exit 1 if a file is stale

The pack's rules (rules.py) load this file for the product families (`FAMILIES`), whose
rows are the product names and attributes the seed, check, API and scenarios use; the hand-written policy files (policy/NN-*.md without "catalog") hold the prose.
"""
from __future__ import annotations

import sys
from pathlib import Path

POLICY_DIR = Path(__file__).resolve().parents[1] / "policy"


# ------------------------------------------------------------------------- formatting

def money(v: float) -> str:
    if float(v).is_integer():
        return f"${int(v):,}"
    return f"${v:,.2f}"


def pct(v: float) -> str:
    """'3%', '0.45%', '21.49%', '6.375%' (at least 2 decimals once there is a fraction)."""
    if float(v).is_integer():
        return f"{int(v)}%"
    s = f"{v:.3f}"
    return (s[:-1] if s.endswith("0") else s) + "%"


def unit(n: float, one: str, many: str | None = None) -> str:
    many = many or one + "s"
    n = int(n) if float(n).is_integer() else n
    return f"{n:,} {one if n == 1 else many}"


def months(n: int) -> str:
    return unit(n, "month")


def years(n: int) -> str:
    return unit(n, "year")


def days(n: int) -> str:
    return unit(n, "day")


def bdays(n: int) -> str:
    return unit(n, "business day")


def plain(n: int) -> str:
    return f"{n}"


# A column: (key, header, formatter). A family: title, intro, columns, rows.
class Family:
    def __init__(self, key: str, file: str, title: str, intro: str, label: str, columns: list[tuple]):
        self.key, self.file, self.title, self.intro, self.label = key, file, title, intro, label
        self.columns = columns
        self.rows: list[tuple[str, dict]] = []

    def add(self, name: str, values: dict) -> None:
        missing = [k for k, _, _ in self.columns if k not in values]
        if missing:
            raise ValueError(f"{self.key}: {name}: missing {missing}")
        self.rows.append((name, values))

    def add_rows(self, rows: list[tuple]) -> None:
        """Rows of (name, a value per column in the columns' order)."""
        keys = [k for k, _, _ in self.columns]
        for name, *vals in rows:
            self.add(name, dict(zip(keys, vals)))

    def markdown(self) -> str:
        head = "| " + " | ".join([self.label] + [h for _, h, _ in self.columns]) + " |"
        sep = "| " + " | ".join(["---"] * (len(self.columns) + 1)) + " |"
        lines = [f"# {self.title}", "", self.intro, "", head, sep]
        for name, v in self.rows:
            lines.append("| " + " | ".join([name] + [fmt(v[k]) for k, _, fmt in self.columns]) + " |")
        return "\n".join(lines) + "\n"


def tiered(base: dict, tier: int, **over) -> dict:
    out = {k: v[tier] if isinstance(v, (list, tuple)) else v for k, v in base.items()}
    out.update(over)
    return out


def card_terms(v: dict) -> dict:
    """A card's values: without an intro period, the intro APR is the purchase APR."""
    if v["intro_months"] == 0:
        v["intro_apr"] = v["apr"]
    return v


# ---------------------------------------------------------------------------- checking

def checking() -> Family:
    f = Family("checking", "11-checking-catalog.md", "Personal checking catalog",
               "The table lists every personal checking product; each fee, rate and limit applies per account.",
               "Checking product", [
                   ("monthly_fee", "Monthly maintenance fee", money),
                   ("waiver_balance", "Minimum daily balance to waive the monthly fee", money),
                   ("opening_deposit", "Minimum opening deposit", money),
                   ("apy", "APY", pct),
                   ("atm_fee", "Out-of-network ATM fee", money),
                   ("atm_rebates", "ATM fee rebates per statement cycle", lambda n: unit(n, "rebate")),
                   ("fx_fee", "Foreign transaction fee", pct),
                   ("overdraft_fee", "Overdraft fee", money),
                   ("overdraft_max", "Maximum overdraft fees per day", lambda n: unit(n, "fee")),
                   ("atm_limit", "Daily ATM withdrawal limit", money),
                   ("debit_limit", "Daily debit card purchase limit", money),
                   ("transfer_limit", "Daily online transfer limit", money),
                   ("min_age", "Minimum age", years),
                   ("paper_fee", "Paper statement fee", money),
                   ("cashier_fee", "Cashier's check fee", money),
                   ("stop_fee", "Stop payment fee", money),
               ])
    base = {
        "monthly_fee": [6, 12, 18, 25, 35], "waiver_balance": [500, 1500, 5000, 15000, 75000],
        "opening_deposit": [25, 50, 100, 500, 2500], "apy": [0, 0, 0.10, 0.25, 0.45],
        "atm_fee": [3, 3, 2.5, 0, 0], "atm_rebates": [0, 0, 2, 6, 15], "fx_fee": [3, 3, 3, 1, 0],
        "overdraft_fee": [34, 34, 34, 29, 19], "overdraft_max": [3, 3, 3, 2, 2],
        "atm_limit": [500, 800, 1000, 1500, 3000], "debit_limit": [2000, 3500, 5000, 7500, 15000],
        "transfer_limit": [2500, 5000, 10000, 25000, 100000], "min_age": 18,
        "paper_fee": [3, 2, 2, 0, 0], "cashier_fee": [10, 10, 8, 0, 0], "stop_fee": [35, 32, 30, 20, 0],
    }
    f.add("Essential Checking", tiered(base, 0))
    f.add("Foundations Checking", tiered(base, 0, monthly_fee=5, waiver_balance=300, overdraft_fee=0, overdraft_max=0,
                                         atm_limit=400, debit_limit=1500))
    f.add("Fresh Start Checking", tiered(base, 0, monthly_fee=10, waiver_balance=2500, opening_deposit=50,
                                          overdraft_fee=0, overdraft_max=0, atm_limit=300, debit_limit=1000,
                                          transfer_limit=1000))
    f.add("Digital Checking", tiered(base, 0, monthly_fee=0, waiver_balance=0, opening_deposit=10, paper_fee=5,
                                      atm_rebates=2))
    f.add("Campus Checking", tiered(base, 0, monthly_fee=0, waiver_balance=0, opening_deposit=10, min_age=17,
                                     atm_rebates=2, overdraft_fee=15, overdraft_max=1))
    f.add("Junior Checking", tiered(base, 0, monthly_fee=0, waiver_balance=0, opening_deposit=10, min_age=13,
                                     overdraft_fee=0, overdraft_max=0, atm_limit=200, debit_limit=500,
                                     transfer_limit=500, paper_fee=0))
    f.add("Everyday Checking", tiered(base, 1))
    f.add("Greenleaf Checking", tiered(base, 1, monthly_fee=10, waiver_balance=1000, paper_fee=5))
    f.add("Service Member Checking", tiered(base, 1, monthly_fee=0, waiver_balance=0, atm_fee=0, atm_rebates=4,
                                             fx_fee=0, overdraft_fee=25, stop_fee=20))
    f.add("Silver Years Checking", tiered(base, 1, monthly_fee=8, waiver_balance=1000, min_age=62, paper_fee=0,
                                           cashier_fee=0, stop_fee=20))
    f.add("Cash Back Checking", tiered(base, 1, monthly_fee=15, waiver_balance=2000, opening_deposit=100,
                                        debit_limit=5000))
    f.add("Cornerstone Checking", tiered(base, 1, monthly_fee=14, waiver_balance=2500, atm_rebates=1))
    f.add("Interest Checking", tiered(base, 2))
    f.add("Relationship Checking", tiered(base, 2, monthly_fee=20, waiver_balance=7500, apy=0.15, atm_rebates=4))
    f.add("Heritage Checking", tiered(base, 2, monthly_fee=16, waiver_balance=4000, apy=0.05, cashier_fee=5))
    f.add("Globetrotter Checking", tiered(base, 2, monthly_fee=22, waiver_balance=10000, apy=0.05, atm_fee=0,
                                           atm_rebates=10, fx_fee=0, atm_limit=1500))
    f.add("Premier Checking", tiered(base, 3))
    f.add("Platinum Checking", tiered(base, 3, monthly_fee=30, waiver_balance=25000, apy=0.30, atm_rebates=8,
                                       atm_limit=2000, debit_limit=10000, transfer_limit=50000, opening_deposit=1000))
    f.add("Private Client Checking", tiered(base, 4))
    f.add("Prestige Checking", tiered(base, 4, monthly_fee=45, waiver_balance=150000, apy=0.55, atm_rebates=20,
                                       atm_limit=5000, debit_limit=25000, transfer_limit=250000,
                                       opening_deposit=5000, overdraft_fee=15))
    return f


# ----------------------------------------------------------------------------- savings

def savings() -> Family:
    f = Family("savings", "21-savings-catalog.md", "Savings and money market catalog",
               "The table lists every personal savings and money market product; "
               "rates are variable and apply per account.",
               "Savings product", [
                   ("monthly_fee", "Monthly maintenance fee", money),
                   ("waiver_balance", "Minimum daily balance to waive the monthly fee", money),
                   ("opening_deposit", "Minimum opening deposit", money),
                   ("apy", "Standard APY", pct),
                   ("rel_apy", "Relationship APY", pct),
                   ("interest_min", "Minimum balance to earn interest", money),
                   ("free_withdrawals", "Free withdrawals per statement cycle", lambda n: unit(n, "withdrawal")),
                   ("excess_fee", "Excess withdrawal fee", money),
                   ("transfer_limit", "Daily transfer limit", money),
                   ("min_age", "Minimum age", years),
                   ("apy_cap", "Maximum balance earning the stated APY", money),
                   ("closure_fee", "Early closure fee", money),
                   ("paper_fee", "Paper statement fee", money),
               ])
    base = {
        "monthly_fee": [4, 6, 10, 15, 25], "waiver_balance": [300, 500, 2500, 10000, 50000],
        "opening_deposit": [25, 25, 100, 1000, 10000], "apy": [0.05, 0.20, 1.10, 2.25, 3.10],
        "interest_min": [1, 1, 100, 1000, 10000], "free_withdrawals": [6, 6, 6, 8, 10],
        "excess_fee": [10, 10, 10, 8, 5], "transfer_limit": [2500, 5000, 10000, 25000, 50000], "min_age": 18,
        "apy_cap": [100000, 250000, 500000, 1000000, 5000000], "closure_fee": [25, 25, 25, 50, 50],
        "paper_fee": [2, 2, 2, 0, 0],
    }

    def add(name, tier, rel_bump=0.10, **over):
        v = tiered(base, tier, **over)
        v["rel_apy"] = round(v["apy"] + rel_bump, 2)
        f.add(name, v)

    add("Starter Savings", 0)
    add("Everyday Savings", 1)
    add("Junior Savers Account", 0, monthly_fee=0, waiver_balance=0, opening_deposit=5, min_age=0, apy=0.50,
        closure_fee=0, paper_fee=0, transfer_limit=500)
    add("Student Savings", 0, monthly_fee=0, waiver_balance=0, opening_deposit=10, min_age=16, apy=0.25)
    add("High-Yield Online Savings", 2, monthly_fee=0, waiver_balance=0, opening_deposit=1, apy=3.80, rel_bump=0.05,
        interest_min=1, paper_fee=5)
    add("Goal Saver Account", 1, monthly_fee=3, waiver_balance=250, apy=0.75, free_withdrawals=2, excess_fee=5)
    add("Holiday Club Savings", 0, monthly_fee=0, waiver_balance=0, opening_deposit=10, apy=0.40,
        free_withdrawals=1, excess_fee=15, closure_fee=10)
    add("Emergency Reserve Savings", 1, monthly_fee=5, waiver_balance=1000, apy=1.25, free_withdrawals=10,
        excess_fee=0)
    add("Round-Up Savings", 0, monthly_fee=0, waiver_balance=0, opening_deposit=0, apy=0.35, transfer_limit=1000)
    add("Silver Years Savings", 1, monthly_fee=0, waiver_balance=0, min_age=62, apy=0.60, paper_fee=0)
    add("Relationship Savings", 2, rel_bump=0.25)
    add("Premier Savings", 3, apy=2.00, rel_bump=0.25)
    add("Platinum Savings", 3, apy=2.40, rel_bump=0.30, monthly_fee=20, waiver_balance=25000, opening_deposit=5000)
    add("Private Client Savings", 4, apy=3.00, rel_bump=0.35)
    add("Money Market Select", 2, apy=1.60, monthly_fee=12, waiver_balance=5000, opening_deposit=1000,
        interest_min=1000)
    add("Money Market Premier", 3, apy=2.60, rel_bump=0.20, monthly_fee=18, waiver_balance=15000,
        opening_deposit=2500, interest_min=2500)
    add("Money Market Elite", 4, apy=3.40, rel_bump=0.25, monthly_fee=30, waiver_balance=100000,
        opening_deposit=25000, interest_min=25000)
    add("Tiered Money Market", 3, apy=2.15, rel_bump=0.15, monthly_fee=15, waiver_balance=10000)
    add("Health Savings Account", 1, monthly_fee=3, waiver_balance=1000, apy=0.90, free_withdrawals=30,
        excess_fee=0, closure_fee=25)
    add("Greenleaf Savings", 1, monthly_fee=5, waiver_balance=500, apy=0.85, paper_fee=5)
    return f


# ----------------------------------------------------------------------------------- CDs

def certificates() -> Family:
    f = Family("cd", "22-certificate-catalog.md", "Certificate of deposit catalog",
               "The table lists every certificate of deposit; "
               "the APY is fixed for the whole term unless a rate bump-up is used.",
               "Certificate", [
                   ("term", "Term", months),
                   ("apy", "Standard APY", pct),
                   ("rel_apy", "Relationship APY", pct),
                   ("opening_deposit", "Minimum opening deposit", money),
                   ("max_deposit", "Maximum opening deposit", money),
                   ("penalty", "Early withdrawal penalty in days of interest", days),
                   ("bumps", "Rate bump-ups allowed", lambda n: unit(n, "bump-up")),
                   ("grace", "Grace period at maturity", days),
                   ("min_age", "Minimum age", years),
                   ("add_deposits", "Additional deposits allowed per term", lambda n: unit(n, "deposit")),
               ])
    ladder = {3: 1.50, 6: 2.75, 9: 3.00, 12: 3.35, 18: 3.45, 24: 3.55, 30: 3.60, 36: 3.70, 48: 3.80, 60: 3.90}

    def penalty(term: int) -> int:
        return 30 if term <= 3 else 90 if term <= 12 else 180 if term <= 24 else 270 if term <= 48 else 365

    def add(name, term, apy=None, rel=0.10, **over):
        apy = ladder[term] if apy is None else apy
        v = {"term": term, "apy": apy, "rel_apy": round(apy + rel, 2), "opening_deposit": 500 if term < 24 else 1000,
             "max_deposit": 250000, "penalty": penalty(term), "bumps": 0, "grace": 7 if term <= 6 else 10,
             "min_age": 18, "add_deposits": 0}
        v.update(over)
        f.add(name, v)

    for name, term in [("Sprint Certificate", 3), ("Pacer Certificate", 6), ("Stride Certificate", 9),
                       ("Anchor Certificate", 12), ("Keel Certificate", 18), ("Mast Certificate", 24),
                       ("Harbor Certificate", 30), ("Lighthouse Certificate", 36), ("Breakwater Certificate", 48),
                       ("Bedrock Certificate", 60)]:
        add(name, term)
    add("Jumbo Anchor Certificate", 12, apy=3.45, opening_deposit=100000, max_deposit=2000000)
    add("Jumbo Mast Certificate", 24, apy=3.65, opening_deposit=100000, max_deposit=2000000)
    add("Jumbo Bedrock Certificate", 60, apy=4.00, opening_deposit=100000, max_deposit=2000000)
    add("Rising Tide Certificate", 24, apy=3.30, bumps=1)
    add("Rising Tide Plus Certificate", 36, apy=3.45, bumps=2)
    add("Open Door Certificate", 11, apy=2.90, penalty=0, rel=0.05, opening_deposit=1000)
    add("Seasonal Special Certificate", 13, apy=4.10, rel=0.05, opening_deposit=5000)
    add("IRA Anchor Certificate", 12, opening_deposit=250)
    add("IRA Lighthouse Certificate", 36, opening_deposit=250)
    add("IRA Bedrock Certificate", 60, opening_deposit=250)
    add("Young Saver Certificate", 12, opening_deposit=100, max_deposit=25000, min_age=0)
    add("Add-On Certificate", 12, apy=3.00, add_deposits=12, opening_deposit=250)
    return f


# ------------------------------------------------------------------------ credit cards

CARD_COLUMNS = [
    ("annual_fee", "Annual fee", money),
    ("apr", "Purchase APR", pct),
    ("intro_apr", "Intro purchase APR", pct),
    ("intro_months", "Intro APR period", months),
    ("bt_fee", "Balance transfer fee", pct),
    ("cash_apr", "Cash advance APR", pct),
    ("cash_fee", "Cash advance fee", pct),
    ("cash_min", "Minimum cash advance fee", money),
    ("fx_fee", "Foreign transaction fee", pct),
    ("late_fee", "Late payment fee", money),
    ("returned_fee", "Returned payment fee", money),
    ("penalty_apr", "Penalty APR", pct),
    ("base_rewards", "Base rewards rate", pct),
    ("bonus_rewards", "Bonus category rewards rate", pct),
    ("bonus", "Sign-up bonus", money),
    ("bonus_spend", "Spend required for the sign-up bonus", money),
    ("min_score", "Minimum credit score", plain),
    ("min_limit", "Minimum credit limit", money),
]


def credit_cards() -> Family:
    f = Family("credit_card", "31-credit-card-catalog.md", "Personal credit card catalog",
               "The table lists every personal credit card; APRs are variable and shown as the lowest rate offered.",
               "Card", CARD_COLUMNS)
    base = {
        "annual_fee": [0, 0, 95, 250, 550], "apr": [24.49, 22.99, 21.99, 20.99, 20.49], "intro_apr": 0,
        "intro_months": [0, 12, 0, 0, 0], "bt_fee": [5, 3, 3, 3, 3], "cash_apr": 29.99, "cash_fee": 5,
        "cash_min": 10, "fx_fee": [3, 3, 0, 0, 0], "late_fee": [32, 32, 35, 40, 40],
        "returned_fee": [32, 32, 35, 40, 40],
        "penalty_apr": 29.99, "base_rewards": [1, 1.5, 1.5, 2, 2], "bonus_rewards": [1, 3, 3, 4, 5],
        "bonus": [0, 200, 400, 600, 900], "bonus_spend": [0, 1000, 3000, 4000, 6000],
        "min_score": [580, 670, 700, 740, 760], "min_limit": [500, 1000, 3000, 7500, 15000],
    }

    def add(name, tier, **over):
        f.add(name, card_terms(tiered(base, tier, **over)))

    add("Keystone Classic Card", 0, base_rewards=1, bonus_rewards=1, min_score=640, min_limit=500)
    add("Keystone Cash Rewards Card", 1)
    add("Keystone Cash Rewards Plus Card", 2, annual_fee=39, base_rewards=2, bonus_rewards=3, bonus=300,
        fx_fee=3, intro_months=6)
    add("Clearpath Low Rate Card", 1, apr=17.99, intro_months=18, base_rewards=0, bonus_rewards=0, bonus=0,
        bonus_spend=0)
    add("Clearpath Balance Transfer Card", 1, apr=19.49, intro_months=21, bt_fee=5, base_rewards=0,
        bonus_rewards=0, bonus=0, bonus_spend=0)
    add("Foundation Secured Card", 0, annual_fee=0, apr=27.49, min_score=300, min_limit=200, base_rewards=0,
        bonus_rewards=0, late_fee=25, returned_fee=25, penalty_apr=0)
    add("Campus Card", 0, apr=21.49, min_score=600, min_limit=300, base_rewards=1, bonus_rewards=2, bonus=50,
        bonus_spend=300, late_fee=25, returned_fee=25)
    add("Credit Builder Card", 0, annual_fee=19, apr=26.99, min_score=500, min_limit=300, base_rewards=0,
        bonus_rewards=0, late_fee=25, returned_fee=25)
    add("Voyager Travel Card", 2, bonus_rewards=3, bonus=500)
    add("Voyager Travel Elite Card", 4, annual_fee=450, bonus_rewards=5, bonus=800, bonus_spend=5000)
    add("Horizon Miles Card", 1, fx_fee=0, base_rewards=1.25, bonus_rewards=2, bonus=250, intro_months=0)
    add("Horizon Miles Premier Card", 2, annual_fee=149, base_rewards=2, bonus_rewards=4, bonus=600,
        bonus_spend=4000)
    add("Table Rewards Card", 1, bonus_rewards=4, intro_months=0, bonus=250)
    add("Pantry Rewards Card", 1, bonus_rewards=3, base_rewards=1, intro_months=15)
    add("Fuel Rewards Card", 1, bonus_rewards=4, base_rewards=1, intro_months=9, bonus=150, bonus_spend=500)
    add("Commuter Rewards Card", 1, bonus_rewards=3, base_rewards=1, intro_months=12, bonus=150, bonus_spend=750)
    add("Homebase Rewards Card", 1, bonus_rewards=5, base_rewards=1, intro_months=15, bonus=200)
    add("Signature Cash Card", 2, annual_fee=0, base_rewards=2, bonus_rewards=2, fx_fee=3, bonus=200,
        bonus_spend=1500, min_score=700)
    add("Greenleaf Card", 1, bonus_rewards=3, base_rewards=1, intro_months=12, bonus=100, bonus_spend=500)
    add("Service Member Card", 1, apr=16.99, fx_fee=0, late_fee=0, returned_fee=0, penalty_apr=0,
        intro_months=12, base_rewards=1.5, bonus_rewards=2, bonus=150, min_score=620)
    add("Premier Rewards Card", 3, annual_fee=195)
    add("Summit Platinum Card", 3, annual_fee=250, bonus_rewards=4, bonus=700, bonus_spend=5000)
    add("Private Client Reserve Card", 4)
    add("Everyday Flex Card", 1, intro_months=15, base_rewards=1.5, bonus_rewards=1.5, bonus=100, bonus_spend=500)
    return f


# --------------------------------------------------------------------------- business

def business_accounts() -> Family:
    f = Family("business", "41-business-account-catalog.md", "Business deposit account catalog",
               "The table lists every business checking, savings and money market product; limits apply per account.",
               "Business account", [
                   ("monthly_fee", "Monthly maintenance fee", money),
                   ("waiver_balance", "Minimum daily balance to waive the monthly fee", money),
                   ("opening_deposit", "Minimum opening deposit", money),
                   ("apy", "APY", pct),
                   ("free_tx", "Free transactions per statement cycle", lambda n: unit(n, "transaction")),
                   ("tx_fee", "Fee per additional transaction", money),
                   ("free_cash", "Free cash deposits per statement cycle", money),
                   ("cash_fee", "Cash deposit fee above the free amount", pct),
                   ("wire_in", "Incoming wire fee", money),
                   ("wire_out", "Outgoing domestic wire fee", money),
                   ("ach_limit", "Daily ACH origination limit", money),
                   ("atm_limit", "Daily ATM withdrawal limit", money),
                   ("overdraft_fee", "Overdraft fee", money),
                   ("min_history", "Minimum time in business", months),
               ])
    base = {
        "monthly_fee": [10, 20, 30, 45, 75], "waiver_balance": [1500, 5000, 15000, 35000, 100000],
        "opening_deposit": [50, 100, 500, 2500, 10000], "apy": [0, 0, 0.05, 0.15, 0.25],
        "free_tx": [100, 200, 300, 500, 1000], "tx_fee": [0.50, 0.50, 0.45, 0.40, 0.35],
        "free_cash": [5000, 10000, 20000, 30000, 50000], "cash_fee": [0.30, 0.30, 0.25, 0.20, 0.15],
        "wire_in": [15, 15, 12, 10, 0], "wire_out": [30, 30, 27, 25, 20],
        "ach_limit": [10000, 25000, 50000, 100000, 250000], "atm_limit": [500, 1000, 1500, 2500, 5000],
        "overdraft_fee": [35, 35, 35, 32, 30], "min_history": [0, 0, 6, 12, 24],
    }
    rows = [
        ("Business Starter Checking", 0, {"monthly_fee": 0, "waiver_balance": 0, "free_tx": 50}),
        ("Sole Proprietor Checking", 0, {"monthly_fee": 8, "waiver_balance": 1000}),
        ("Business Essentials Checking", 1, {}),
        ("Business Advantage Checking", 2, {}),
        ("Business Growth Checking", 2, {"monthly_fee": 35, "waiver_balance": 20000, "free_tx": 400}),
        ("Business Interest Checking", 2, {"monthly_fee": 25, "waiver_balance": 10000, "apy": 0.10}),
        ("Professional Services Checking", 3, {"monthly_fee": 40, "waiver_balance": 25000, "apy": 0}),
        ("Merchant Services Checking", 2, {"free_cash": 40000, "cash_fee": 0.20}),
        ("Nonprofit Checking", 1, {"monthly_fee": 0, "waiver_balance": 0, "free_tx": 250, "wire_in": 10}),
        ("Business Analyzed Checking", 3, {"free_tx": 0, "tx_fee": 0.25, "waiver_balance": 50000}),
        ("Commercial Premier Checking", 4, {}),
        ("Agricultural Business Checking", 1, {"monthly_fee": 15, "waiver_balance": 3000, "free_cash": 15000}),
        ("Business Savings", 0, {"monthly_fee": 5, "waiver_balance": 500, "apy": 0.15, "free_tx": 6,
                                 "tx_fee": 10, "free_cash": 2000, "ach_limit": 5000}),
        ("Business Reserve Savings", 1, {"monthly_fee": 10, "waiver_balance": 2500, "apy": 0.60, "free_tx": 6,
                                         "tx_fee": 10, "free_cash": 5000, "ach_limit": 10000}),
        ("Nonprofit Savings", 0, {"monthly_fee": 0, "waiver_balance": 0, "apy": 0.40, "free_tx": 6, "tx_fee": 5,
                                  "free_cash": 5000, "ach_limit": 5000}),
        ("Tax Reserve Savings", 1, {"monthly_fee": 0, "waiver_balance": 0, "apy": 1.10, "free_tx": 4, "tx_fee": 10,
                                    "free_cash": 0, "ach_limit": 25000}),
        ("Payroll Reserve Account", 2, {"apy": 0.50, "free_tx": 20, "tx_fee": 2, "ach_limit": 150000}),
        ("Business Money Market", 2, {"monthly_fee": 15, "waiver_balance": 10000, "apy": 1.75, "free_tx": 6,
                                      "tx_fee": 10, "free_cash": 10000, "ach_limit": 50000}),
        ("Business Premier Money Market", 3, {"monthly_fee": 25, "waiver_balance": 50000, "apy": 2.70, "free_tx": 8,
                                              "tx_fee": 8, "ach_limit": 100000}),
        ("Business Sweep Account", 4, {"monthly_fee": 100, "waiver_balance": 250000, "apy": 3.05, "free_tx": 20,
                                       "tx_fee": 5}),
    ]
    for name, tier, over in rows:
        f.add(name, tiered(base, tier, **over))
    return f


def business_cards() -> Family:
    f = Family("business_card", "42-business-card-catalog.md", "Business credit card catalog",
               "The table lists every business credit card; the business owner guarantees every card on the account.",
               "Business card", [
                   ("annual_fee", "Annual fee", money),
                   ("apr", "Purchase APR", pct),
                   ("intro_apr", "Intro purchase APR", pct),
                   ("intro_months", "Intro APR period", months),
                   ("bt_fee", "Balance transfer fee", pct),
                   ("cash_fee", "Cash advance fee", pct),
                   ("fx_fee", "Foreign transaction fee", pct),
                   ("late_fee", "Late payment fee", money),
                   ("base_rewards", "Base rewards rate", pct),
                   ("bonus_rewards", "Bonus category rewards rate", pct),
                   ("bonus", "Sign-up bonus", money),
                   ("min_score", "Minimum credit score", plain),
                   ("free_cards", "Free employee cards", lambda n: unit(n, "card")),
                   ("card_fee", "Fee per additional employee card", money),
                   ("min_revenue", "Minimum annual business revenue", money),
               ])
    base = {
        "annual_fee": [0, 0, 95, 195, 395], "apr": [23.99, 22.49, 21.49, 20.49, 19.99], "intro_apr": 0,
        "intro_months": [0, 12, 0, 0, 0], "bt_fee": [5, 3, 3, 3, 3], "cash_fee": 5, "fx_fee": [3, 3, 0, 0, 0],
        "late_fee": [39, 39, 39, 49, 49], "base_rewards": [1, 1.5, 1.5, 2, 2], "bonus_rewards": [1, 3, 3, 4, 5],
        "bonus": [0, 300, 500, 750, 1000], "min_score": [640, 680, 700, 720, 740], "free_cards": [5, 10, 10, 20, 50],
        "card_fee": [0, 0, 0, 25, 0], "min_revenue": [0, 25000, 100000, 250000, 1000000],
    }
    rows = [
        ("Business Classic Card", 0, {}),
        ("Business Cash Card", 1, {}),
        ("Business Cash Plus Card", 2, {"base_rewards": 2, "fx_fee": 3}),
        ("Business Low Rate Card", 1, {"apr": 17.99, "intro_months": 15, "base_rewards": 0, "bonus_rewards": 0,
                                       "bonus": 0}),
        ("Business Secured Card", 0, {"apr": 25.99, "min_score": 550, "base_rewards": 0, "bonus_rewards": 0,
                                      "free_cards": 2}),
        ("Startup Business Card", 0, {"apr": 24.49, "min_score": 660, "bonus": 150, "bonus_rewards": 2,
                                      "intro_months": 9}),
        ("Contractor Business Card", 1, {"bonus_rewards": 4, "min_revenue": 50000}),
        ("Fleet Fuel Card", 1, {"bonus_rewards": 5, "base_rewards": 1, "free_cards": 25, "card_fee": 0}),
        ("Nonprofit Business Card", 1, {"annual_fee": 0, "late_fee": 29, "bonus": 0, "min_revenue": 0}),
        ("Business Travel Card", 2, {}),
        ("Business Travel Elite Card", 4, {}),
        ("Business Premier Rewards Card", 3, {}),
        ("Business Platinum Card", 3, {"annual_fee": 295, "bonus_rewards": 4.5, "bonus": 900, "card_fee": 50}),
        ("Corporate Purchasing Card", 4, {"annual_fee": 0, "base_rewards": 1, "bonus_rewards": 1, "bonus": 0,
                                          "free_cards": 250, "min_revenue": 10000000, "fx_fee": 1}),
    ]
    for name, tier, over in rows:
        f.add(name, card_terms(tiered(base, tier, **over)))
    return f


# ------------------------------------------------------------------------------- loans

def personal_loans() -> Family:
    f = Family("personal_loan", "51-personal-loan-catalog.md", "Personal loan and credit line catalog",
               "The table lists every personal loan and line of credit; "
               "the APR offered depends on credit score, income and term.",
               "Loan product", [
                   ("min_amount", "Minimum amount", money),
                   ("max_amount", "Maximum amount", money),
                   ("min_term", "Minimum term", months),
                   ("max_term", "Maximum term", months),
                   ("apr_min", "Starting APR", pct),
                   ("apr_max", "Maximum APR", pct),
                   ("origination", "Origination fee", pct),
                   ("late_fee", "Late fee", money),
                   ("grace", "Late fee grace period", days),
                   ("min_score", "Minimum credit score", plain),
                   ("min_income", "Minimum annual income", money),
                   ("autopay", "Autopay APR discount", pct),
               ])
    rows = [
        ("Debt Consolidation Loan", 2000, 50000, 24, 84, 8.99, 24.99, 2, 39, 15, 660, 30000, 0.25),
        ("Home Improvement Loan", 5000, 75000, 36, 120, 8.49, 22.99, 1, 39, 15, 680, 40000, 0.25),
        ("Major Purchase Loan", 2000, 35000, 12, 60, 9.49, 24.99, 2, 35, 15, 660, 25000, 0.25),
        ("Medical Expense Loan", 1000, 25000, 12, 60, 9.99, 25.99, 0, 29, 15, 640, 20000, 0.25),
        ("Family Milestone Loan", 2500, 40000, 24, 72, 9.49, 24.49, 1, 35, 15, 670, 30000, 0.25),
        ("Relocation Loan", 2000, 30000, 12, 60, 10.49, 25.49, 2, 35, 15, 660, 30000, 0.25),
        ("Green Energy Loan", 5000, 60000, 36, 144, 6.99, 18.99, 0, 39, 15, 680, 40000, 0.50),
        ("Education Refinance Loan", 5000, 150000, 60, 180, 5.49, 12.99, 0, 25, 15, 700, 50000, 0.25),
        ("Emergency Bridge Loan", 500, 5000, 6, 24, 14.99, 29.99, 0, 20, 10, 600, 15000, 0),
        ("Credit Builder Loan", 300, 3000, 6, 24, 6.99, 12.99, 0, 15, 10, 300, 12000, 0),
        ("Savings-Secured Loan", 500, 250000, 6, 120, 4.49, 7.49, 0, 20, 10, 300, 0, 0),
        ("Certificate-Secured Loan", 500, 250000, 6, 60, 4.99, 7.99, 0, 20, 10, 300, 0, 0),
        ("Personal Line of Credit", 2500, 25000, 12, 60, 11.49, 21.49, 0, 35, 15, 690, 35000, 0),
        ("Premier Line of Credit", 10000, 100000, 12, 120, 9.49, 17.49, 0, 35, 15, 740, 100000, 0),
        ("Overdraft Line of Credit", 500, 5000, 12, 12, 18.00, 18.00, 0, 25, 10, 640, 15000, 0),
        ("Vehicle Repair Loan", 500, 15000, 6, 48, 10.99, 24.99, 1, 29, 15, 620, 18000, 0.25),
    ]
    f.add_rows(rows)
    return f


def auto_loans() -> Family:
    f = Family("auto_loan", "52-auto-loan-catalog.md", "Vehicle loan catalog",
               "The table lists every vehicle loan product; "
               "the starting APR assumes an excellent credit score and autopay.",
               "Vehicle loan", [
                   ("max_term", "Maximum term", months),
                   ("apr_min", "Starting APR", pct),
                   ("min_amount", "Minimum amount", money),
                   ("max_amount", "Maximum amount", money),
                   ("ltv", "Maximum loan-to-value", pct),
                   ("vehicle_age", "Maximum vehicle age", years),
                   ("mileage", "Maximum mileage", lambda n: unit(n, "mile")),
                   ("doc_fee", "Documentation fee", money),
                   ("late_fee", "Late fee", money),
                   ("min_score", "Minimum credit score", plain),
                   ("autopay", "Autopay APR discount", pct),
               ])
    rows = [
        ("New Vehicle Express Loan", 36, 5.49, 5000, 100000, 120, 1, 5000, 75, 25, 620, 0.25),
        ("New Vehicle Standard Loan", 60, 5.89, 5000, 100000, 120, 1, 5000, 75, 25, 620, 0.25),
        ("New Vehicle Extended Loan", 72, 6.29, 10000, 100000, 115, 1, 5000, 75, 25, 660, 0.25),
        ("New Vehicle Maximum Loan", 84, 6.89, 15000, 100000, 110, 1, 5000, 75, 25, 700, 0.25),
        ("Used Vehicle Express Loan", 36, 6.19, 5000, 75000, 110, 7, 100000, 75, 25, 620, 0.25),
        ("Used Vehicle Standard Loan", 60, 6.59, 5000, 75000, 110, 7, 100000, 75, 25, 640, 0.25),
        ("Used Vehicle Extended Loan", 72, 7.19, 10000, 75000, 100, 5, 75000, 75, 25, 680, 0.25),
        ("Auto Refinance Standard Loan", 60, 6.39, 7500, 100000, 110, 8, 120000, 50, 25, 640, 0.25),
        ("Auto Refinance Extended Loan", 72, 6.99, 10000, 100000, 100, 6, 90000, 50, 25, 680, 0.25),
        ("Lease Buyout Loan", 60, 6.49, 5000, 80000, 100, 5, 60000, 75, 25, 660, 0.25),
        ("Electric Vehicle Loan", 72, 5.29, 10000, 120000, 120, 3, 45000, 50, 25, 660, 0.50),
        ("Motorcycle Loan", 60, 7.99, 3000, 40000, 100, 10, 50000, 75, 25, 660, 0.25),
        ("Recreational Vehicle Loan", 180, 7.49, 15000, 300000, 90, 12, 80000, 150, 35, 700, 0.25),
        ("Boat Loan", 180, 7.79, 15000, 250000, 90, 15, 1500, 150, 35, 700, 0.25),
    ]
    f.add_rows(rows)
    return f


def home_loans() -> Family:
    f = Family("home_loan", "53-home-loan-catalog.md", "Home loan catalog",
               "The table lists every mortgage and home equity product; "
               "rates are indicative starting rates for an excellent credit score.",
               "Home loan", [
                   ("term", "Term", months),
                   ("fixed", "Initial fixed-rate period", months),
                   ("rate", "Starting interest rate", pct),
                   ("apr", "Starting APR", pct),
                   ("down", "Minimum down payment or equity", pct),
                   ("min_score", "Minimum credit score", plain),
                   ("max_amount", "Maximum loan amount", money),
                   ("origination", "Origination fee", pct),
                   ("appraisal", "Appraisal fee", money),
                   ("lock", "Rate lock period", days),
                   ("late_fee", "Late fee as a share of the payment", pct),
                   ("dti", "Maximum debt-to-income ratio", pct),
               ])
    rows = [
        ("Classic Fixed Mortgage", 360, 360, 6.375, 6.52, 5, 620, 766550, 1, 650, 45, 5, 45),
        ("Midterm Fixed Mortgage", 240, 240, 6.125, 6.29, 5, 620, 766550, 1, 650, 45, 5, 45),
        ("Rapid Fixed Mortgage", 180, 180, 5.625, 5.81, 5, 620, 766550, 1, 650, 45, 5, 45),
        ("Sprint Fixed Mortgage", 120, 120, 5.500, 5.74, 10, 640, 766550, 1, 650, 45, 5, 43),
        ("Adjustable Starter Mortgage", 360, 60, 5.875, 6.71, 10, 660, 1500000, 1, 650, 60, 5, 43),
        ("Adjustable Midway Mortgage", 360, 84, 6.000, 6.68, 10, 660, 1500000, 1, 650, 60, 5, 43),
        ("Adjustable Long Mortgage", 360, 120, 6.125, 6.62, 10, 680, 1500000, 1, 650, 60, 5, 43),
        ("Jumbo Classic Mortgage", 360, 360, 6.500, 6.61, 20, 720, 3000000, 0.75, 900, 60, 5, 43),
        ("Jumbo Rapid Mortgage", 180, 180, 5.875, 6.02, 20, 720, 3000000, 0.75, 900, 60, 5, 43),
        ("FHA Classic Mortgage", 360, 360, 6.000, 6.95, 3.5, 580, 524225, 1, 600, 45, 4, 50),
        ("VA Classic Mortgage", 360, 360, 5.875, 6.14, 0, 580, 1500000, 1, 600, 45, 4, 50),
        ("First Home Mortgage", 360, 360, 6.250, 6.48, 3, 640, 766550, 0.5, 550, 45, 5, 45),
        ("Physician Mortgage", 360, 360, 6.250, 6.39, 0, 700, 2000000, 0.5, 750, 60, 5, 50),
        ("Construction-to-Permanent Loan", 360, 360, 6.750, 7.02, 20, 680, 2000000, 1.5, 900, 90, 5, 43),
        ("Bridge Loan", 12, 12, 8.500, 9.25, 20, 700, 1000000, 1.5, 650, 30, 5, 45),
        ("Home Equity Line of Credit", 360, 0, 7.990, 7.99, 15, 680, 500000, 0, 0, 0, 5, 43),
        ("Home Equity Installment Loan", 120, 120, 7.490, 7.59, 15, 680, 500000, 0, 450, 30, 5, 43),
        ("Home Equity Extended Loan", 240, 240, 7.740, 7.83, 15, 680, 500000, 0, 450, 30, 5, 43),
    ]
    f.add_rows(rows)
    return f


# ------------------------------------------------------------ transfers, disputes, cards

def transfers() -> Family:
    f = Family("transfer", "61-transfer-catalog.md", "Transfer fees and limits",
               "The table lists every way to move money; Premier clients are customers who hold Premier, Platinum, "
               "Private Client or Prestige Checking.",
               "Transfer type", [
                   ("fee", "Fee", money),
                   ("premier_fee", "Fee for Premier clients", money),
                   ("per_tx", "Maximum per transfer", money),
                   ("daily", "Daily limit", money),
                   ("premier_daily", "Daily limit for Premier clients", money),
                   ("monthly", "Monthly limit", money),
                   ("delivery", "Delivery time", lambda s: s),
                   ("account_age", "Minimum account age", days),
               ])
    rows = [
        ("Transfer between own accounts", 0, 0, 50000, 100000, 250000, 1000000, "5 minutes", 0),
        ("Transfer to another customer of the bank", 0, 0, 10000, 25000, 50000, 100000, "5 minutes", 0),
        ("Standard outgoing ACH transfer", 0, 0, 10000, 10000, 25000, 50000, "3 business days", 30),
        ("Next-day outgoing ACH transfer", 3, 0, 10000, 10000, 25000, 50000, "1 business day", 30),
        ("Same-day outgoing ACH transfer", 10, 5, 25000, 25000, 50000, 100000, "8 hours", 60),
        ("Incoming ACH transfer", 0, 0, 100000, 250000, 500000, 2000000, "2 business days", 0),
        ("Outgoing domestic wire (online)", 25, 0, 50000, 50000, 250000, 500000, "4 hours", 90),
        ("Outgoing domestic wire (branch)", 35, 0, 250000, 250000, 1000000, 2000000, "4 hours", 0),
        ("Incoming domestic wire", 15, 0, 1000000, 1000000, 5000000, 10000000, "2 hours", 0),
        ("Outgoing international wire in US dollars", 45, 20, 50000, 50000, 250000, 500000, "3 business days", 90),
        ("Outgoing international wire in foreign currency", 35, 10, 50000, 50000, 250000, 500000,
         "5 business days", 90),
        ("Incoming international wire", 16, 0, 1000000, 1000000, 5000000, 10000000, "2 business days", 0),
        ("Person-to-person payment", 0, 0, 2500, 2500, 5000, 20000, "15 minutes", 30),
        ("Online bill payment", 0, 0, 10000, 15000, 50000, 100000, "5 business days", 0),
        ("Mobile check deposit", 0, 0, 5000, 10000, 25000, 50000, "2 business days", 30),
    ]
    f.add_rows(rows)
    return f


def disputes() -> Family:
    f = Family("dispute", "71-dispute-timeline-catalog.md", "Dispute timelines by dispute type",
               "The table lists every type of dispute; each period starts on the day the customer reports the dispute, "
               "except the reporting deadline, which starts on the statement date that first shows the transaction.",
               "Dispute type", [
                   ("report", "Reporting deadline", days),
                   ("provisional", "Provisional credit issued within", bdays),
                   ("investigation", "Investigation completed within", days),
                   ("documents", "Customer documents due within", days),
                   ("liability", "Maximum customer liability", money),
                   ("notice", "Notice before a provisional credit is reversed", bdays),
               ])
    rows = [
        ("Unauthorized debit card transaction", 60, 10, 45, 10, 50, 5),
        ("Unauthorized credit card transaction", 60, 5, 60, 10, 0, 5),
        ("Unauthorized ACH debit", 60, 10, 45, 10, 50, 5),
        ("Unauthorized person-to-person payment", 60, 10, 45, 10, 50, 5),
        ("Duplicate charge", 60, 5, 30, 10, 0, 5),
        ("Incorrect transaction amount", 60, 10, 45, 15, 0, 5),
        ("Merchandise not received", 120, 10, 90, 20, 0, 10),
        ("Merchandise not as described", 120, 10, 90, 20, 0, 10),
        ("Canceled recurring charge", 120, 10, 60, 15, 0, 5),
        ("ATM cash not dispensed", 60, 5, 20, 10, 0, 5),
        ("Forged or altered check", 30, 10, 60, 15, 0, 10),
        ("Credit card billing error", 60, 10, 90, 15, 0, 5),
    ]
    f.add_rows(rows)
    return f


def card_servicing() -> Family:
    f = Family("card", "81-card-servicing-catalog.md", "Card replacement and servicing catalog",
               "The table lists every kind of card; replacement times count from the day the replacement is ordered.",
               "Card type", [
                   ("standard", "Standard replacement delivery", bdays),
                   ("expedited", "Expedited replacement delivery", bdays),
                   ("expedited_fee", "Expedited delivery fee", money),
                   ("replacement_fee", "Replacement card fee", money),
                   ("max_cards", "Maximum active cards per account", lambda n: unit(n, "card")),
                   ("validity", "Card validity", months),
                   ("pin_tries", "Wrong PIN entries before the card locks", lambda n: unit(n, "entry", "entries")),
               ])
    rows = [
        ("Standard debit card", 7, 2, 25, 0, 2, 48, 3),
        ("Premier debit card", 5, 1, 0, 0, 4, 48, 3),
        ("Private Client debit card", 3, 1, 0, 0, 4, 60, 4),
        ("Junior debit card", 7, 2, 25, 5, 1, 36, 3),
        ("ATM-only card", 7, 3, 20, 5, 2, 48, 3),
        ("Standard credit card", 7, 2, 25, 0, 3, 48, 3),
        ("Premium credit card", 5, 1, 0, 0, 5, 48, 3),
        ("Metal Private Client Reserve card", 5, 1, 0, 0, 5, 60, 4),
        ("Secured credit card", 10, 3, 25, 5, 1, 36, 3),
        ("Business debit card", 7, 2, 25, 0, 50, 48, 3),
        ("Business credit card", 7, 2, 25, 0, 250, 48, 3),
        ("Health savings debit card", 7, 3, 20, 5, 2, 36, 3),
    ]
    f.add_rows(rows)
    return f


FAMILIES = [checking, savings, certificates, credit_cards, business_accounts, business_cards, personal_loans,
            auto_loans, home_loans, transfers, disputes, card_servicing]


def catalog() -> dict[str, dict[str, dict]]:
    """{family key: {product name: {attribute: value}}} (numbers in the table's units)."""
    return {fam.key: {name: dict(v) for name, v in fam.rows} for fam in (make() for make in FAMILIES)}


def files() -> dict[str, str]:
    return {fam.file: fam.markdown() for fam in (make() for make in FAMILIES)}


def main(argv: list[str]) -> int:
    stale = []
    for name, text in files().items():
        path = POLICY_DIR / name
        if "--check" in argv:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(name)
        else:
            path.write_text(text, encoding="utf-8")
    if stale:
        print("stale catalog files: " + ", ".join(stale))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
