"""Every way a banking database breaks the Merrowgate Bank policy: records that name unknown
accounts, eligibility at opening, certificates, the ledgers and statements (replayed with
`ledger` and compared), daily limits, transfers, disputes, card replacements, the records
staff create, and active cards per account. Product, card kind, transfer type and dispute
type names are read through their catalog codes, so a variant's renamed products still
check."""
from __future__ import annotations

import datetime as dt
from collections import defaultdict

from domains.records import unknown_refs
from domains.seedkit import add_business_days, add_months, age_on, date_of, month_end

from .ledger import long_negative_run, replay_card, replay_deposit
from .rules import BY_CODE, DERIVED, HOLIDAYS, PRODUCTS, WINDOW_START, ProductTerms, is_premier, rounded, values_with


def check(pack, db: dict, values: dict | None = None) -> list[str]:
    """Every way `db` breaks the policy under `values` (empty when it obeys)."""
    V = values_with(values)
    cat = ProductTerms(V)
    today = pack.info.now.date()
    db, P = _canonical(db)
    if P:
        return P
    P = _references(db)
    if P:
        return P
    P += _eligibility(db, cat, today)
    P += _ledgers(db, cat, V, today)
    P += _transfers(db, cat, V)
    P += _disputes(db, cat, today)
    P += _card_replacements(db, cat, today)
    P += _opening_deposits(db, cat)
    P += _fee_refunds(db, V, pack.brand.managers)
    P += _duplicate_disputes(db, V)
    P += _loan_applications(db, cat)
    P += _limit_requests(db, V)
    P += _authorized_users(db, V)
    P += _stop_payments(db, cat)
    P += _handoffs(db)
    P += _active_cards(db, cat)
    return P


def _references(db: dict) -> list[str]:
    """Records that name an account, customer or transaction that does not exist."""
    P: list[str] = []
    cust, accts, cards, txns = db["customers"], db["accounts"], db["cards"], db["transactions"]
    P += unknown_refs(accts.items(), "account", "customer_id", cust, "customer")
    P += unknown_refs(cards.items(), "card", "account_id", accts, "account")
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
    return P


def _eligibility(db: dict, cat: ProductTerms, today: dt.date) -> list[str]:
    """Age, credit score and limits at opening, certificate terms, the premier flag."""
    P: list[str] = []
    cust, accts = db["customers"], db["accounts"]
    for aid, a in accts.items():
        c = cust[a["customer_id"]]
        opened = date_of(a["opened_on"])
        age = age_on(date_of(c["date_of_birth"]), opened)
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
            P += _certificate(aid, a, accts, cat)
    for cid, c in cust.items():
        if c["premier_client"] != is_premier(cid, accts, today):
            P.append(f"customer {cid}: premier_client flag disagrees with the accounts held")
    return P


def _ledgers(db: dict, cat: ProductTerms, V: dict, today: dt.date) -> list[str]:
    """Each account's ledger and statements: replay the base items and compare."""
    P: list[str] = []
    by_acct: dict[str, list] = defaultdict(list)
    for t in db["transactions"].values():
        by_acct[t["account_id"]].append(t)
    st_by_acct: dict[str, list] = defaultdict(list)
    for s in db["statements"].values():
        st_by_acct[s["account_id"]].append(s)
    terms = repr((sorted(V.items()), today))
    for aid, a in sorted(db["accounts"].items()):
        if a["family"] not in ("checking", "savings", "credit_card"):
            continue
        recorded = sorted(by_acct.get(aid, []), key=lambda t: t["seq"])
        statements = st_by_acct.get(aid, [])
        # an account's verdict is a function of its own records and the terms: a test's gold
        # touches a few accounts, so checking a suite's outcomes replays only those again
        key = repr((aid, a, recorded, statements)) + terms
        if key not in _LEDGER_VERDICTS:
            if len(_LEDGER_VERDICTS) >= 20_000:
                _LEDGER_VERDICTS.clear()
            _LEDGER_VERDICTS[key] = tuple(_ledger(aid, a, recorded, statements, cat, V, today))
        P += _LEDGER_VERDICTS[key]
    return P


_LEDGER_VERDICTS: dict[str, tuple[str, ...]] = {}


def _ledger(aid: str, a: dict, recorded: list[dict], statements: list[dict], cat: ProductTerms, V: dict,
            today: dt.date) -> list[str]:
    """One account's recorded transactions (in posting order) and statements against the replay
    of its base items; its balance, daily limits and overdrawn runs."""
    P: list[str] = []
    base = [{**t, "key": t["id"], "seq": t["seq"]} for t in recorded if t["kind"] not in DERIVED]
    if a["family"] == "credit_card":
        exp, exp_st = replay_card(a, base, cat, V, today)
    else:
        exp, exp_st = replay_deposit(a, base, cat, V, today)
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
                    for s in statements)
    want_st = sorted((tuple(s[k] for k in keys), s.get("monthly_fee"), s.get("minimum_payment")) for s in exp_st)
    if got_st != want_st:
        P.append(f"account {aid}: statements differ from the recomputed statements")
    P += _daily_limits(aid, a, recorded, cat)
    if a["family"] != "credit_card" and long_negative_run(recorded, a, today) is not None:
        P.append(f"account {aid}: overdrawn for more than 30 days in a row")
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


def _certificate(aid: str, a: dict, accts: dict, cat: ProductTerms) -> list[str]:
    """Deposit limits, term, maturity date and (relationship) APY of a certificate."""
    P = []
    p = a["product"]
    opened = date_of(a["opened_on"])
    if not cat("cd", p, "opening_deposit") <= a["principal"] <= cat("cd", p, "max_deposit"):
        P.append(f"certificate {aid}: deposit {a['principal']} outside the {p} limits")
    if a["term_months"] != cat("cd", p, "term"):
        P.append(f"certificate {aid}: term {a['term_months']} months != catalog term")
    if a["maturity_date"] != add_months(opened, cat("cd", p, "term")).isoformat():
        P.append(f"certificate {aid}: maturity date {a['maturity_date']} is not the opening date plus the term")
    rel = any(x["customer_id"] == a["customer_id"] and x["family"] == "checking" and date_of(x["opened_on"]) <= opened
              for x in accts.values())
    apy = cat("cd", p, "rel_apy") if rel else cat("cd", p, "apy")
    if a["relationship_apy"] != rel or abs(a["apy"] - apy) > 1e-9:
        P.append(f"certificate {aid}: APY {a['apy']}% but the catalog gives {apy}%")
    return P


def _daily_limits(aid: str, a: dict, recorded: list[dict], cat: ProductTerms) -> list[str]:
    """A checking account's ATM withdrawals and debit card purchases within the daily limits."""
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


def _transfers(db: dict, cat: ProductTerms, V: dict) -> list[str]:
    """Fees, per-transfer, daily and monthly limits, account age, wire callbacks, and the
    transactions of a completed transfer."""
    P = []
    accts, txns = db["accounts"], db["transactions"]
    daily: dict[tuple, float] = defaultdict(float)
    monthly: dict[tuple, float] = defaultdict(float)
    for tid, t in sorted(db["transfers"].items()):
        ty = t["type"]
        if ty not in PRODUCTS["transfer"]:
            P.append(f"transfer {tid}: unknown transfer type {ty}")
            continue
        day = date_of(t["date"])
        premier = is_premier(t["customer_id"], accts, day)
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
        if (day - date_of(src["opened_on"])).days < cat("transfer", ty, "account_age"):
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


def _disputes(db: dict, cat: ProductTerms, today: dt.date) -> list[str]:
    """Reporting window, provisional credit, investigation and reversal timelines."""
    P = []
    txns = db["transactions"]
    for did, d in sorted(db["disputes"].items()):
        ty = d["type"]
        if ty not in PRODUCTS["dispute"]:
            P.append(f"dispute {did}: unknown dispute type {ty}")
            continue
        t = txns.get(d["transaction_id"])
        if t is None or t["account_id"] != d["account_id"] or abs(abs(t["amount"]) - d["amount"]) > 0.005:
            P.append(f"dispute {did}: disputed transaction does not match")
            continue
        rep = date_of(d["reported_on"])
        stmt = month_end(date_of(t["date"]))
        if d["statement_date"] != stmt.isoformat():
            P.append(f"dispute {did}: statement date {d['statement_date']} != {stmt.isoformat()}")
        if rep > stmt + dt.timedelta(days=cat("dispute", ty, "report")) or rep < date_of(t["date"]):
            P.append(f"dispute {did}: reported on {d['reported_on']}, outside the reporting window")
        prov_due = add_business_days(rep, cat("dispute", ty, "provisional"), HOLIDAYS)
        inv_due = rep + dt.timedelta(days=cat("dispute", ty, "investigation"))
        if d["provisional_credit_due_by"] != prov_due.isoformat() or d["investigation_due_by"] != inv_due.isoformat():
            P.append(f"dispute {did}: recorded due dates disagree with the dispute timelines")
        pc = date_of(d["provisional_credit_on"]) if d["provisional_credit_on"] else None
        res = date_of(d["resolved_on"]) if d["resolved_on"] else None
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
            earliest = add_business_days(res, cat("dispute", ty, "notice"), HOLIDAYS)
            if d["reversal_on"] is not None and date_of(d["reversal_on"]) < earliest:
                P.append(f"dispute {did}: provisional credit reversed before the notice period ended")
            if d["reversal_on"] is None and today >= earliest:
                P.append(f"dispute {did}: denied but the provisional credit was never reversed")
        elif d["reversal_on"] is not None:
            P.append(f"dispute {did}: reversal recorded on a dispute that was not denied")
    return P


def _card_replacements(db: dict, cat: ProductTerms, today: dt.date) -> list[str]:
    """Delivery times, expedited and repeat-replacement fees, blocked lost or stolen cards."""
    P = []
    cards, txns = db["cards"], db["transactions"]
    seen: dict[str, list] = defaultdict(list)
    for rid, r in sorted(db["card_replacements"].items(), key=lambda kv: (kv[1]["ordered_on"], kv[0])):
        card = cards.get(r["card_id"])
        new = cards.get(r["new_card_id"])
        if card is None or new is None:
            P.append(f"replacement {rid}: unknown card")
            continue
        ordered = date_of(r["ordered_on"])
        days = cat("card", card["kind"], "expedited" if r["delivery"] == "expedited" else "standard")
        due = add_business_days(ordered, days, HOLIDAYS)
        if r["due_by"] != due.isoformat():
            P.append(f"replacement {rid}: due date {r['due_by']} != {due.isoformat()}")
        if r["delivered_on"] and date_of(r["delivered_on"]) > due:
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
        if new["activated_on"] and date_of(new["activated_on"]) > date_of(new["issued_on"]) + dt.timedelta(days=90):
            P.append(f"replacement {rid}: new card activated more than 90 days after issue")
    return P


def _opening_deposits(db: dict, cat: ProductTerms) -> list[str]:
    """An account opened inside the ledger window starts with at least its opening deposit."""
    P: list[str] = []
    by_acct: dict[str, list] = defaultdict(list)
    for t in db["transactions"].values():
        by_acct[t["account_id"]].append(t)
    for aid, a in db["accounts"].items():
        if a["family"] in ("checking", "savings") and date_of(a["opened_on"]) >= WINDOW_START:
            first = min(by_acct[aid], key=lambda t: t["seq"], default=None)
            need = cat(a["family"], a["product"], "opening_deposit")
            if first is None or first["kind"] != "deposit" or first["amount"] + 0.005 < need:
                P.append(f"account {aid}: opening deposit below the {a['product']} minimum of {need}")
    return P


def _fee_refunds(db: dict, V: dict, managers: list[str]) -> list[str]:
    """A refund matches a fee of the account; courtesy refunds within the staff limit (else a
    branch manager) and at most so many a year."""
    P: list[str] = []
    txns = db["transactions"]
    courtesy: dict[str, list[dt.date]] = defaultdict(list)
    for t in sorted(txns.values(), key=lambda t: (t["date"], t["id"])):
        if t["kind"] != "fee_refund":
            continue
        fee = txns.get(t.get("refund_of", ""))
        if fee is None or fee["account_id"] != t["account_id"] or abs(t["amount"]) > abs(fee["amount"]) + 0.005:
            P.append(f"transaction {t['id']}: fee refund does not match a fee on the account")
            continue
        if t.get("reason") == "courtesy":
            day = date_of(t["date"])
            if abs(t["amount"]) > V["fee_refund_without_manager"] and t.get("approved_by") not in managers:
                P.append(f"transaction {t['id']}: fee refund of {abs(t['amount'])} without a branch manager")
            prior = [d for d in courtesy[t["account_id"]] if (day - d).days < 365]
            if len(prior) >= V["fee_refunds_per_year"]:
                P.append(f"transaction {t['id']}: more than {V['fee_refunds_per_year']} fee refunds in 12 months")
            courtesy[t["account_id"]].append(day)
    return P


def _duplicate_disputes(db: dict, V: dict) -> list[str]:
    """A transaction is disputed once; only a small amount is credited without investigation."""
    P: list[str] = []
    seen: set[str] = set()
    for did, d in sorted(db["disputes"].items()):
        if d["transaction_id"] in seen:
            P.append(f"dispute {did}: transaction {d['transaction_id']} disputed more than once")
        seen.add(d["transaction_id"])
        instant = d["provisional_credit_on"] == d["reported_on"] == d["resolved_on"]
        if instant and d["amount"] >= V["dispute_small_amount"]:
            P.append(f"dispute {did}: credited without investigation although {d['amount']} is not small")
    return P


def _loan_applications(db: dict, cat: ProductTerms) -> list[str]:
    """Amount, term, credit score, APR and fee within the loan product's terms."""
    P: list[str] = []
    cust = db["customers"]
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
        fee = row("doc_fee") if fam == "auto_loan" else rounded(ap["amount"] * row("origination") / 100)
        if abs(ap["fee"] - fee) > 0.005:
            P.append(f"loan application {lid}: fee {ap['fee']} != {fee}")
    return P


def _limit_requests(db: dict, V: dict) -> list[str]:
    """No credit limit increase before the account has been open long enough."""
    P: list[str] = []
    accts = db["accounts"]
    for rid, r in sorted(db.get("limit_requests", {}).items()):
        a = accts[r["account_id"]]
        too_soon = add_months(date_of(a["opened_on"]), V["limit_change_months"]) > date_of(r["requested_on"])
        if too_soon and r["new_limit"] > r["old_limit"]:
            P.append(f"limit request {rid}: increase requested before {V['limit_change_months']} months")
    return P


def _authorized_users(db: dict, V: dict) -> list[str]:
    """How many, how old, and the fee of an authorized user."""
    P: list[str] = []
    accts = db["accounts"]
    for aid, a in accts.items():
        users = a.get("authorized_users", [])
        if len(users) > V["max_authorized_users"]:
            P.append(f"account {aid}: {len(users)} authorized users")
        for u in users:
            if age_on(date_of(u["date_of_birth"]), date_of(u["added_on"])) < V["authorized_user_min_age"]:
                P.append(f"account {aid}: authorized user {u['name']} younger than {V['authorized_user_min_age']}")
            want = V["private_client_user_fee"] if a["product"] == "Private Client Reserve Card" else 0
            if abs(u["annual_fee"] - want) > 0.005:
                P.append(f"account {aid}: authorized user fee {u['annual_fee']} != {want}")
    return P


def _stop_payments(db: dict, cat: ProductTerms) -> list[str]:
    """The checking product's stop payment fee (no stop payment on other accounts)."""
    P: list[str] = []
    accts = db["accounts"]
    for sid, sp in sorted(db.get("stop_payments", {}).items()):
        a = accts[sp["account_id"]]
        want = cat(a["family"], a["product"], "stop_fee") if a["family"] == "checking" else None
        if want is None or abs(sp["fee"] - want) > 0.005:
            P.append(f"stop payment {sid}: fee {sp['fee']} != {want}")
    return P


def _handoffs(db: dict) -> list[str]:
    return unknown_refs(sorted(db.get("handoffs", {}).items()), "handoff", "customer_id", db["customers"], "customer")


def _active_cards(db: dict, cat: ProductTerms) -> list[str]:
    """At most the catalog's number of active cards of a kind per account."""
    P: list[str] = []
    active: dict[str, int] = defaultdict(int)
    for c in db["cards"].values():
        if c["status"] == "active":
            active[(c["account_id"], c["kind"])] += 1
    for (aid, kind), n in active.items():
        if n > cat("card", kind, "max_cards"):
            P.append(f"account {aid}: {n} active {kind}s exceed the catalog maximum")
    return P
