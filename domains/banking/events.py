"""The events of the bank's ledger window the seed makes besides everyday spending:
transfers (within the catalog's fees and daily and monthly limits), card replacements
(delivery times and fees) and disputes (reporting window, provisional credit, investigation
and reversal timelines). Each posts its base items through `item(account, day, kind,
amount, description, ...)` and names them by their key.
"""
from __future__ import annotations

import datetime as dt
import random
from collections import defaultdict

from domains.seedkit import add_business_days, add_months, date_of, is_business_day, month_end

from .rules import CODES, HOLIDAYS, WINDOW_START, is_premier, next_business_day, rounded

DISPUTE_TYPES_DEBIT = ["Unauthorized debit card transaction", "Duplicate charge", "Merchandise not received",
                       "Incorrect transaction amount"]
DISPUTE_TYPES_CREDIT = ["Unauthorized credit card transaction", "Duplicate charge", "Merchandise not as described",
                        "Merchandise not received"]


def weighted(rng: random.Random, pairs: list[tuple[str, int]]) -> str:
    """One of the names of `pairs` (name, weight), drawn by weight."""
    return rng.choices([p for p, _ in pairs], weights=[w for _, w in pairs])[0]


def issue_card(cards: dict, card_id: str, acct: dict, kind: str, issued: dt.date, rng: random.Random, cat) -> dict:
    """A new active card of `kind` on the account, valid for the catalog's validity."""
    exp = add_months(issued.replace(day=1), cat("card", kind, "validity"))
    cards[card_id] = {"id": card_id, "account_id": acct["id"], "customer_id": acct["customer_id"], "kind": kind,
                      "kind_code": CODES[("card", kind)],
                      "last4": f"{rng.randint(0, 9999):04d}", "issued_on": issued.isoformat(),
                      "expires": f"{exp.year}-{exp.month:02d}", "status": "active", "activated_on": issued.isoformat()}
    return cards[card_id]


def make_transfers(rng, accounts, customers, cat, V, today, item, nid) -> dict:
    """Outgoing transfers from checking (and to own savings) on business days, within the
    per-transfer, daily and monthly limits, with their catalog (or premier) fees."""
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
            if not is_business_day(day, HOLIDAYS) or day < date_of(chk["opened_on"]):
                continue
            internal = sav is not None and day >= date_of(sav["opened_on"]) and rng.random() < 0.45
            ttype = "Transfer between own accounts" if internal else weighted(rng, kinds)
            premier = is_premier(cid, accounts, day)
            if (day - date_of(chk["opened_on"])).days < cat("transfer", ttype, "account_age"):
                continue
            amount = rounded(rng.choice([50, 120, 250, 400, 750, 1200, 2500, 4000, 12500]))
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


def make_replacements(rng, accounts, cards, customers, cat, today, item, nid) -> dict:
    """Replacements of some cards: delivery within the business days of the delivery
    chosen, expedited and repeat-replacement fees, the old card blocked or closed."""
    out: dict[str, dict] = {}
    for cid in sorted(rng.sample(sorted(cards), min(10, len(cards)))):
        card = cards[cid]
        acct = accounts[card["account_id"]]
        ordered = WINDOW_START + dt.timedelta(days=rng.randint(5, (today - WINDOW_START).days - 1))
        ordered = next_business_day(ordered)
        if ordered > today or ordered < date_of(card["issued_on"]):
            continue
        reason = rng.choice(["lost", "stolen", "damaged", "damaged"])
        delivery = rng.choice(["standard", "standard", "expedited"])
        days = cat("card", card["kind"], "expedited" if delivery == "expedited" else "standard")
        due = add_business_days(ordered, days, HOLIDAYS)
        delivered = add_business_days(ordered, rng.randint(max(1, days - 2), days), HOLIDAYS)
        premier = customers[card["customer_id"]]["premier_client"]
        exp_fee = float(cat("card", card["kind"], "expedited_fee")) if delivery == "expedited" and not premier else 0.0
        prior = [r for r in out.values() if r["account_id"] == acct["id"]
                 and (ordered - date_of(r["ordered_on"])).days < 365]
        rep_fee = float(cat("card", card["kind"], "replacement_fee")) if prior else 0.0
        new_id = nid("card", 7000000)
        new = issue_card(cards, new_id, acct, card["kind"], ordered, rng, cat)
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


def make_disputes(rng, accounts, base, cat, today, item, nid) -> dict:
    """Disputes of some purchases, reported within the window, with provisional credit,
    resolution and (when denied) reversal on the dispute type's timelines."""
    out: dict[str, dict] = {}
    cands = []
    for aid, a in sorted(accounts.items()):
        if a["family"] == "credit_card" or (a["family"] == "checking" and a.get("overdraft_opt_in")):
            cands += [b for b in base[aid] if b["kind"] == "purchase" and b["amount"] != 0]
    for b in rng.sample(cands, min(16, len(cands))):
        a = accounts[b["account_id"]]
        credit = a["family"] == "credit_card"
        dtype = rng.choice(DISPUTE_TYPES_CREDIT if credit else DISPUTE_TYPES_DEBIT)
        tday = date_of(b["date"])
        stmt = month_end(tday)
        deadline = stmt + dt.timedelta(days=cat("dispute", dtype, "report"))
        reported = tday + dt.timedelta(days=rng.randint(1, 40))
        if reported > min(today, deadline):
            continue
        amount = abs(b["amount"])
        prov_due = add_business_days(reported, cat("dispute", dtype, "provisional"), HOLIDAYS)
        prov_day = add_business_days(reported, rng.randint(1, cat("dispute", dtype, "provisional")), HOLIDAYS)
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
                    rev = add_business_days(resolve_day, cat("dispute", dtype, "notice"), HOLIDAYS)
                    if rev <= today:
                        rec["reversal_on"] = rev.isoformat()
                        rec["reversal_txn_id"] = item(a["id"], rev, "dispute_reversal", -sign * amount,
                                                      f"Provisional credit reversal {did}", channel="internal")["key"]
        out[did] = rec
    return out

