"""Seed database for the banking domain (Merrowgate Bank).

Customers with checking, savings, certificate and credit card accounts of catalog products
(`rules.PRODUCTS`), debit and credit cards, four months of ledger transactions, monthly
statements, transfers, card replacements and disputes.

The seed writes the base items of each account (deposits, purchases, ATM withdrawals, bill
payments, transfers, card payments, dispute credits); every fee, interest amount, balance
and statement is derived from them by the ledger replay (`ledger`), which `check.py` runs
again on the recorded base items. Transfers, card replacements and disputes are made in
`events.py`.
"""
from __future__ import annotations

import datetime as dt
import random
from collections import defaultdict

from domains.seedgen import SeedGen
from domains.seedkit import add_months, date_of

from .events import issue_card, make_disputes, make_replacements, make_transfers, weighted
from .ledger import long_negative_run, replay_card, replay_deposit
from .rules import (CODES, PREMIER_CHECKING, WINDOW_START, ProductTerms, is_premier, next_business_day, rounded,
                    values_with)

CHECKING_PRODUCTS = [("Essential Checking", 5), ("Everyday Checking", 7), ("Premier Checking", 4),
                     ("Private Client Checking", 1), ("Interest Checking", 2), ("Digital Checking", 1),
                     ("Campus Checking", 1), ("Silver Years Checking", 1)]
SAVINGS_PRODUCTS = ["Everyday Savings", "Everyday Savings", "Money Market Premier", "High-Yield Online Savings",
                    "Premier Savings"]
CD_PRODUCTS = ["Anchor Certificate", "Mast Certificate", "Bedrock Certificate", "Pacer Certificate",
               "Lighthouse Certificate"]
CARD_PRODUCTS = ["Keystone Cash Rewards Card", "Keystone Cash Rewards Card", "Voyager Travel Card",
                 "Premier Rewards Card", "Clearpath Low Rate Card", "Keystone Classic Card", "Horizon Miles Card"]
MERCHANTS = ["Corner Grocer", "Bluebird Cafe", "Metro Transit", "Harbor Pharmacy", "Lumen Books", "Northside Fuel",
             "Parkview Market", "Copperleaf Bistro", "Streamline Video", "Ironwood Hardware", "Sunny Day Laundry",
             "Cedar & Sage Kitchen", "Tidewater Outfitters", "Quickstop Deli", "Elm Street Bakery"]
FOREIGN_MERCHANTS = ["Café Lumière Paris", "Hotel Alcántara Madrid", "Kyoto Rail Pass", "Lisboa Taxi", "Berlin Buch"]
BILLERS = ["Rent - Willowbrook Apartments", "City Power & Light", "Cascade Water Utility", "Brightline Internet",
           "Evergreen Auto Insurance", "Summit Fitness Club"]

DESCRIPTIONS = {"overdraft_fee": "Overdraft fee", "atm_fee": "Out-of-network ATM fee", "atm_rebate": "ATM fee rebate",
                "excess_withdrawal_fee": "Excess withdrawal fee", "monthly_fee": "Monthly maintenance fee",
                "interest": "Interest paid", "foreign_transaction_fee": "Foreign transaction fee",
                "late_fee": "Late payment fee", "annual_fee": "Annual fee",
                "interest_charge": "Interest charge on purchases"}
STATES = ["NY", "NJ", "CT", "MA", "PA", "VT", "ME", "RI"]


class _Seed(SeedGen):
    """One generation under way (`SeedGen`: the values, the random stream, the clock, the id
    counters), the catalog terms, the records written so far, each account's base items and
    each customer's and card account's spending profile."""

    def __init__(self, pack, seed: int, values: dict | None):
        super().__init__(pack, seed, values_with(values))
        self.cat = ProductTerms(self.v)
        self.customers: dict[str, dict] = {}
        self.accounts: dict[str, dict] = {}
        self.cards: dict[str, dict] = {}
        self.base: dict[str, list] = defaultdict(list)   # account id -> base items
        self.seq = 0
        self.profiles: dict[str, str] = {}

    def item(self, acct_id: str, day: dt.date, kind: str, amount: float, desc: str, **kw) -> dict:
        """A base item of an account's ledger (`key` names it until transactions get ids)."""
        self.seq += 1
        b = {"key": f"k{self.seq}", "account_id": acct_id, "date": day.isoformat(), "seq": self.seq, "kind": kind,
             "amount": rounded(amount), "description": desc, **kw}
        self.base[acct_id].append(b)
        return b


def generate(pack, seed: int, values: dict | None = None) -> dict:
    s = _Seed(pack, seed, values)
    for name in pack.brand.customers:
        _customer(s, name)
    for cid, c in s.customers.items():
        c["premier_client"] = is_premier(cid, s.accounts, s.today)
    _issue_cards(s)
    for aid, a in sorted(s.accounts.items()):
        if a["family"] == "checking":
            _checking_items(s, a)
        elif a["family"] == "savings":
            _savings_items(s, a)
        elif a["family"] == "credit_card":
            _card_purchases(s, a)
    transfers = make_transfers(s.rng, s.accounts, s.customers, s.cat, s.v, s.today, s.item, s.serial)
    replacements = make_replacements(s.rng, s.accounts, s.cards, s.customers, s.cat, s.today, s.item, s.serial)
    disputes = make_disputes(s.rng, s.accounts, s.base, s.cat, s.today, s.item, s.serial)
    ledgers, statements = _replay(s)
    txns = _transactions(s, ledgers, transfers, replacements, disputes)
    stmts: dict[str, dict] = {}
    for aid in sorted(statements):
        for st in statements[aid]:
            sid = s.serial("statement", 500000)
            stmts[sid] = {"id": sid, **st}
    for aid, a in s.accounts.items():
        led = [t for t in ledgers.get(aid, []) if t["balance_after"] is not None]
        if a["family"] in ("checking", "savings", "credit_card"):
            a["balance"] = led[-1]["balance_after"] if led else a["opening_balance"]
        else:
            a["balance"] = a["principal"]
    declined = [t for t in txns.values() if t["status"] == "declined"]
    assert all(t["kind"] in ("purchase", "atm_withdrawal") for t in declined)
    return {"customers": s.customers, "accounts": s.accounts, "cards": s.cards, "transactions": txns,
            "statements": stmts, "transfers": transfers, "card_replacements": replacements, "disputes": disputes}


# ------------------------------------------------------------------ customers, accounts

def _customer(s: _Seed, name: str) -> None:
    """A customer with a checking account and maybe savings, a certificate and a credit card."""
    rng, cat, today = s.rng, s.cat, s.today
    cid = s.serial("customer", 100000)
    product = weighted(rng, CHECKING_PRODUCTS)
    if product == "Campus Checking":
        age = rng.randint(19, 23)
    elif product == "Silver Years Checking":
        age = rng.randint(66, 82)
    else:
        age = rng.randint(24, 78)
    dob = add_months(today, -12 * (age + 1)) + dt.timedelta(days=rng.randint(1, 364))
    first = name.split()[0].lower()
    last = name.split()[-1].lower().replace("'", "")
    s.customers[cid] = {
        "id": cid, "name": name, "date_of_birth": dob.isoformat(),
        "email": f"{first}.{last}@{rng.choice(['mailhub.example', 'postbox.example', 'netmail.example'])}",
        "phone": f"({rng.choice([212, 646, 718, 917, 201, 860])}) 555-01{rng.randint(0, 99):02d}",
        "state": rng.choice(STATES), "credit_score": rng.randint(600, 815),
        "customer_since": None, "premier_client": False,
    }
    # Checking: most accounts predate the window; a few were opened inside it.
    in_window = rng.random() < 0.15
    opened = (WINDOW_START + dt.timedelta(days=rng.randint(3, 80))) if in_window else \
        WINDOW_START - dt.timedelta(days=rng.randint(120, 3000))
    opened = max(opened, add_months(dob, 12 * max(18, cat("checking", product, "min_age"))))
    waiver = cat("checking", product, "waiver_balance")
    profile = rng.choice(["comfortable", "comfortable", "near_waiver", "near_waiver", "tight"])
    if product in PREMIER_CHECKING:
        profile = rng.choice(["comfortable", "near_waiver"])
    s.profiles[cid] = profile
    start_bal = {"comfortable": max(waiver, 1000) * rng.uniform(1.3, 3.0),
                 "near_waiver": max(waiver, 400) * rng.uniform(0.85, 1.25),
                 "tight": rng.uniform(40, 400)}[profile]
    chk = open_account(s.accounts, s.serial("account", 4000000), cid, "checking", product, opened, rounded(start_bal))
    chk["overdraft_opt_in"] = profile == "tight" and rng.random() < 0.7 or rng.random() < 0.2
    s.customers[cid]["customer_since"] = opened.isoformat()
    if rng.random() < 0.65:
        _savings(s, cid, dob, opened, in_window)
    if rng.random() < 0.35:
        _certificate(s, cid, opened)
    if rng.random() < 0.65:
        _credit_card(s, cid, dob)


def _savings(s: _Seed, cid: str, dob: dt.date, chk_opened: dt.date, in_window: bool) -> None:
    rng, cat = s.rng, s.cat
    sp = rng.choice(SAVINGS_PRODUCTS)
    so = chk_opened + dt.timedelta(days=rng.randint(0, 400)) if not in_window else chk_opened
    so = max(min(so, s.today - dt.timedelta(days=20)), add_months(dob, 12 * cat("savings", sp, "min_age")))
    sw = cat("savings", sp, "waiver_balance")
    sb = rng.choice([sw * rng.uniform(1.1, 4), sw * rng.uniform(0.5, 0.95), sw * rng.uniform(0.9, 1.3)])
    open_account(s.accounts, s.serial("account", 4000000), cid, "savings", sp, so,
                 rounded(max(sb, cat("savings", sp, "opening_deposit") + 50)))


def _certificate(s: _Seed, cid: str, chk_opened: dt.date) -> None:
    """A certificate with the relationship APY when a checking account was open before it."""
    rng, cat = s.rng, s.cat
    cp = rng.choice(CD_PRODUCTS)
    term = cat("cd", cp, "term")
    co = s.today - dt.timedelta(days=rng.randint(10, term * 30 - 5))
    has_chk = chk_opened <= co
    principal = rounded(rng.choice([1000, 2500, 5000, 10000, 15000, 25000, 50000]) * rng.choice([1, 1, 1.2, 1.5]))
    principal = max(principal, cat("cd", cp, "opening_deposit"))
    acct = open_account(s.accounts, s.serial("account", 4000000), cid, "cd", cp, co, principal)
    acct.update({"principal": principal, "term_months": term,
                 "relationship_apy": has_chk,
                 "apy": cat("cd", cp, "rel_apy") if has_chk else cat("cd", cp, "apy"),
                 "maturity_date": add_months(co, term).isoformat(),
                 "maturity_instruction": rng.choice(["renew", "renew", "transfer_to_checking"])})


def _credit_card(s: _Seed, cid: str, dob: dt.date) -> None:
    """A credit card the customer's score qualifies for, with its limit, autopay and payment
    profile."""
    rng, cat = s.rng, s.cat
    score = s.customers[cid]["credit_score"]
    eligible = [p for p in CARD_PRODUCTS if score >= cat("credit_card", p, "min_score")]
    cp = rng.choice(eligible) if eligible else "Foundation Secured Card"
    co = (WINDOW_START + dt.timedelta(days=rng.randint(0, 70))) if rng.random() < 0.2 else \
        WINDOW_START - dt.timedelta(days=rng.randint(60, 2500))
    co = max(co, add_months(dob, 12 * 18))
    limit = max(cat("credit_card", cp, "min_limit"), rng.choice([2000, 3500, 5000, 8000, 12000, 20000]))
    acct = open_account(s.accounts, s.serial("account", 4000000), cid, "credit_card", cp, co,
                        rounded(rng.uniform(0, limit * 0.25)) if co < WINDOW_START else 0.0)
    acct["credit_limit"] = float(limit)
    acct["autopay"] = rng.choice(["statement_balance", "none", "none", "minimum"])
    s.profiles[acct["id"]] = rng.choice(["full", "full", "full", "partial", "minimum", "late"])


def open_account(accounts: dict, aid: str, cid: str, family: str, product: str, opened: dt.date,
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


def _issue_cards(s: _Seed) -> None:
    """A debit card per checking account, a credit card per credit card account."""
    for aid, a in sorted(s.accounts.items()):
        if a["family"] == "checking":
            kind = ("Private Client debit card" if a["product"] in ("Private Client Checking", "Prestige Checking")
                    else "Premier debit card" if a["product"] in PREMIER_CHECKING else "Standard debit card")
        elif a["family"] == "credit_card":
            kind = ("Secured credit card" if a["product"] == "Foundation Secured Card" else
                    "Premium credit card" if s.cat("credit_card", a["product"], "annual_fee") >= 95 else
                    "Standard credit card")
        else:
            continue
        issue_card(s.cards, s.serial("card", 7000000), a, kind, date_of(a["opened_on"]), s.rng, s.cat)


# --------------------------------------------------------------------------- base items

def _opening_deposit(s: _Seed, a: dict, start: dt.date) -> None:
    if date_of(a["opened_on"]) >= WINDOW_START:
        s.item(a["id"], start, "deposit", max(s.cat(a["family"], a["product"], "opening_deposit"),
                                              rounded(a["initial_deposit"])), "Opening deposit", channel="branch")


def _checking_items(s: _Seed, a: dict) -> None:
    """Payroll twice a month, two bills, card purchases and ATM withdrawals each month,
    scaled to the customer's profile."""
    rng, today, aid = s.rng, s.today, a["id"]
    start = max(date_of(a["opened_on"]), WINDOW_START)
    prof = s.profiles[a["customer_id"]]
    _opening_deposit(s, a, start)
    pay = rounded(rng.choice([1450, 1800, 2150, 2600, 3100, 3900, 5200])
                  * (2.2 if a["product"] in PREMIER_CHECKING else 1))
    m = start.replace(day=1)
    while m <= today:
        for payday in (m, m.replace(day=15)):
            pd = next_business_day(payday)
            if start <= pd <= today:
                s.item(aid, pd, "deposit", pay, "Payroll direct deposit - Employer", channel="ach")
        spend_scale = pay * 2 * {"comfortable": 0.75, "near_waiver": 0.92, "tight": 0.97}[prof]
        bills = rng.sample(BILLERS, 2)
        for k, bname in enumerate(bills):
            bd = m.replace(day=rng.randint(2, 27))
            if start <= bd <= today:
                s.item(aid, bd, "bill_payment", -rounded(spend_scale * (0.32 if k == 0 else 0.06)), bname,
                       channel="bill_pay")
        for _ in range(rng.randint(6, 11)):
            pday = m.replace(day=rng.randint(1, 28))
            if start <= pday <= today:
                amt = rng.choice([3.25, 4.5, 12.8, 18.4, 26.9, 41.15, 58.0, 73.6, 96.2, 134.75, 188.3])
                s.item(aid, pday, "purchase", -rounded(amt * (spend_scale / 4000 + 0.6)), rng.choice(MERCHANTS),
                       channel="card")
        _atm_withdrawals(s, a, m, start)
        m = add_months(m, 1)


def _atm_withdrawals(s: _Seed, a: dict, month: dt.date, start: dt.date) -> None:
    """Up to three ATM withdrawals in the month, at most one a day (so within the daily
    limit), some at other operators' ATMs with their surcharge."""
    rng = s.rng
    atm_days: set = set()
    for _ in range(rng.randint(0, 3)):
        aday = month.replace(day=rng.randint(1, 28))
        if start <= aday <= s.today and aday not in atm_days:
            atm_days.add(aday)
            cash = min(rng.choice([40, 60, 80, 100, 200, 300]), s.cat("checking", a["product"], "atm_limit"))
            if rng.random() < 0.4:
                sur = rng.choice([2.5, 3.0, 3.5])
                s.item(a["id"], aday, "atm_withdrawal", -(cash + sur), "ATM withdrawal - other operator",
                       channel="atm", atm_network="out", surcharge=sur)
            else:
                s.item(a["id"], aday, "atm_withdrawal", -cash, "ATM withdrawal - Merrowgate ATM",
                       channel="atm", atm_network="in", surcharge=0.0)


def _savings_items(s: _Seed, a: dict) -> None:
    rng, today = s.rng, s.today
    start = max(date_of(a["opened_on"]), WINDOW_START)
    _opening_deposit(s, a, start)
    m = start.replace(day=1)
    while m <= today:
        for _ in range(rng.choice([0, 1, 2, 4, 6, 8])):
            wd = m.replace(day=rng.randint(1, 28))
            if start <= wd <= today:
                ch = rng.choice(["online", "online", "atm", "branch"])
                s.item(a["id"], wd, "withdrawal", -rounded(rng.choice([20, 40, 60, 100, 150])), f"Withdrawal ({ch})",
                       channel=ch)
        m = add_months(m, 1)


def _card_purchases(s: _Seed, a: dict) -> None:
    rng, today = s.rng, s.today
    start = max(date_of(a["opened_on"]), WINDOW_START)
    m = start.replace(day=1)
    limit = a["credit_limit"]
    while m <= today:
        for _ in range(rng.randint(4, 9)):
            pday = m.replace(day=rng.randint(1, 28))
            if start <= pday <= today:
                foreign = rng.random() < 0.12
                amt = rounded(rng.choice([9.99, 23.5, 47.2, 64.0, 88.75, 121.4, 215.0, 342.6]) *
                              max(0.3, limit / 12000))
                s.item(a["id"], pday, "purchase", amt,
                       rng.choice(FOREIGN_MERCHANTS if foreign else MERCHANTS), channel="card", foreign=foreign)
        m = add_months(m, 1)


# ------------------------------------------------------------------------------- replay

def _replay(s: _Seed) -> tuple[dict[str, list], dict[str, list]]:
    """Ledgers and statements: deposit accounts (with a top-up deposit if an account would
    stay overdrawn for more than 30 days), then credit cards with their payment behaviour."""
    cat, V, today = s.cat, s.v, s.today
    ledgers: dict[str, list] = {}
    statements: dict[str, list] = {}
    for aid, a in sorted(s.accounts.items()):
        if a["family"] in ("checking", "savings"):
            for _ in range(6):
                out, st = replay_deposit(a, [dict(b) for b in s.base[aid]], cat, V, today)
                run_start = long_negative_run(out, a, today)
                if run_start is None:
                    break
                fix = run_start + dt.timedelta(days=20)
                low = min(o["balance_after"] for o in out
                          if o["balance_after"] is not None and o["date"] <= fix.isoformat())
                s.item(aid, fix, "deposit", rounded(-low + 300), "Cash deposit - branch", channel="branch")
            ledgers[aid], statements[aid] = out, st
        elif a["family"] == "credit_card":
            policy = _pay_policy(s.rng, a, s.profiles[aid], today, s.item)
            out, st = replay_card(a, [dict(b) for b in s.base[aid]], cat, V, today, policy)
            ledgers[aid], statements[aid] = out, st
    return ledgers, statements


def _pay_policy(rng: random.Random, acct: dict, profile: str, today: dt.date, item):
    """How a card account pays each statement, per its profile: in full, partly, the minimum,
    or once late."""
    state = {"late_done": False}

    def policy(stmt: dict) -> list[dict]:
        bal, mn, due = stmt["closing_balance"], stmt["minimum_payment"], date_of(stmt["due_date"])
        if bal <= 0:
            return []
        close = date_of(stmt["period_end"])
        if profile == "late" and not state["late_done"] and not stmt.get("carried"):
            state["late_done"] = True
            day, amt = due + dt.timedelta(days=rng.randint(3, 9)), mn
        elif profile == "minimum":
            day, amt = due - dt.timedelta(days=rng.randint(0, 3)), mn
        elif profile == "partial":
            day, amt = due - dt.timedelta(days=rng.randint(0, 8)), rounded(max(mn, bal * rng.uniform(0.3, 0.7)))
        else:
            day, amt = due - dt.timedelta(days=rng.randint(0, 10)), bal
        day = max(day, close + dt.timedelta(days=1))
        if day > today or amt <= 0:
            return []
        return [dict(item(acct["id"], day, "payment", -amt, "Payment - thank you", channel="online"))]
    return policy


def _transactions(s: _Seed, ledgers: dict[str, list], transfers: dict, replacements: dict,
                  disputes: dict) -> dict[str, dict]:
    """Transaction records with ids in posting order; derived items, transfers, replacements
    and disputes point at the transactions they name by id."""
    txns: dict[str, dict] = {}
    key_to_id: dict[str, str] = {}
    for aid in sorted(ledgers):
        pos = 0
        for it in ledgers[aid]:
            pos += 1
            tid = s.serial("transaction", 90000000)
            if "key" in it:
                key_to_id[it["key"]] = tid
            it["_id"], it["_pos"] = tid, pos
    for aid in sorted(ledgers):
        for it in ledgers[aid]:
            rec = {"id": it["_id"], "account_id": aid, "date": it["date"], "seq": it["_pos"], "kind": it["kind"],
                   "amount": it["amount"], "description": it.get("description") or DESCRIPTIONS[it["kind"]],
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
    return txns
