"""Held-out simulations of the banking domain, drawn from the seed database and the catalog
tables: transfers priced and limited by the transfer catalog (Premier pricing, account age,
per-transfer and daily limits, wire callbacks, excess savings withdrawals), disputes under
the dispute timelines (types, reporting deadlines, what cannot be disputed), card
replacements, fee refunds, new accounts and certificates, loan applications, card
servicing, stop payments, and questions on the manual's rules.
"""
from __future__ import annotations

import datetime as dt
from typing import Optional

from domains.scenariokit import Drafter
from domains.seedkit import add_business_days, add_months, age_on, money, month_end
from domains.simtests import Scenario, ScenarioContext, amount_text, answer

from .rules import FAMILIES, HOLIDAYS, ProductTerms

PERSONAS = ["A careful retiree who reads every line of a statement.", "A young professional, brisk and polite.",
            "A small-business owner short on time.", "A parent managing the family's money.",
            "A graduate student on a tight budget."]
OUTGOING = ["Standard outgoing ACH transfer", "Next-day outgoing ACH transfer", "Same-day outgoing ACH transfer",
            "Outgoing domestic wire (online)", "Outgoing domestic wire (branch)",
            "Outgoing international wire in US dollars", "Outgoing international wire in foreign currency",
            "Person-to-person payment", "Online bill payment", "Transfer to another customer of the bank"]
PAYEES = ["Northfield Property Mgmt", "Riverside Tutoring", "Elena Petrova", "Granite State Roofing", "M. Okonjo"]


class Bank(Drafter):
    personas = PERSONAS
    customer_key = "id"

    def __init__(self, ctx: ScenarioContext):
        super().__init__(ctx)
        self.cat = ProductTerms(ctx.values)

    def customers(self) -> list[dict]:
        return [c for _, c in sorted(self.db["customers"].items())]

    def accounts(self, cid: str, family: Optional[str] = None) -> list[dict]:
        return [a for _, a in sorted(self.db["accounts"].items()) if a["customer_id"] == cid and a["status"] == "open"
                and (family is None or a["family"] == family)]

    def age(self, c: dict, on: Optional[dt.date] = None) -> int:
        return age_on(dt.date.fromisoformat(c["date_of_birth"]), on or self.today)

    def txns(self, aid: str) -> list[dict]:
        return sorted((t for t in self.db["transactions"].values() if t["account_id"] == aid), key=lambda t: t["seq"])

    def cell(self, family: str, product: str, col: str) -> str:
        """The fact of one catalog cell ("<product> — <column>: value")."""
        header = next(h for k, h, _ in FAMILIES[family].columns if k == col)
        return self.F.find(f"{product} — {header}:", product)

    def known(self, c: dict, rec: Optional[dict] = None) -> list[str]:
        return [f"You are {c['name']}.", f"Your customer number is {c['id']}.",
                f"Your date of birth is {c['date_of_birth']}."]

    def answers(self, c: dict, rec: Optional[dict] = None) -> list:
        """Identity: the customer number, the one-time passcode just received, the date of birth."""
        return [answer("customer", ["customer number", "customer id"], f"It's {c['id']}."),
                answer("passcode", ["passcode", "code"], "The code I just received is 731904."),
                answer("birth", ["date of birth", "birthday"], f"{c['date_of_birth']}.")]


def scenarios(ctx: ScenarioContext) -> list[Scenario]:
    B = Bank(ctx)
    out: list[Scenario] = []
    for build in (transfers, disputes, cards, fee_refunds, new_accounts, certificates, loans, card_services,
                  questions):
        out += [s for s in build(B) if s is not None]
    return out


# ------------------------------------------------------------------------------ transfers

def _used(B: Bank, cid: str, ttype: str) -> tuple[float, float]:
    day, month = B.today.isoformat(), B.today.strftime("%Y-%m")
    ts = [t for t in B.db["transfers"].values() if t["customer_id"] == cid and t["type"] == ttype
          and t["status"] == "completed"]
    return (sum(t["amount"] for t in ts if t["date"] == day), sum(t["amount"] for t in ts if t["date"][:7] == month))


def _transfer(B: Bank, c: dict, src: dict, ttype: str, amount: float, *, slug: str, purpose: str,
              dst: Optional[dict] = None, excess: float = 0, release: bool = True, trap: Optional[str] = None,
              facts: Optional[list[str]] = None, say: Optional[list[str]] = None) -> Scenario:
    premier = c["premier_client"]
    fee = float(B.cat("transfer", ttype, "premier_fee" if premier else "fee"))
    args = {"customer_id": c["id"], "from_account_id": src["id"], "type": ttype, "amount": amount, "fee": fee}
    if dst is not None:
        args["to_account_id"] = dst["id"]
    else:
        args["payee"] = PAYEES[B.n % len(PAYEES)]
    if excess:
        args["excess_withdrawal_fee"] = excess
    if not release:
        args["release"] = False
    naive = {**args, "fee": 0, "excess_withdrawal_fee": 0, "release": True}
    facts = facts or [B.cell("transfer", ttype, "premier_fee" if premier else "fee"),
                      B.cell("transfer", ttype, "per_tx"), B.cell("transfer", ttype, "delivery")]
    trap = trap or ("fee" if fee or excess else "none")
    where = f"to your {dst['product']}" if dst is not None else f"to {args['payee']}"
    return B.base(slug, trap, c, purpose=purpose,
                  reason=f"You want to send {amount_text(amount)} from your {src['product']} ({src['id']}) {where} "
                         f"by {ttype.lower()}.",
                  instructions=["Agree to any fee the agent quotes."],
                  opening=f"I need to send {amount_text(amount)} {where} from account {src['id']}, "
                          f"{ttype.lower()} please.",
                  gold=[("list_accounts", {"customer_id": c["id"]}), ("transfer_funds", args)],
                  naive=[("transfer_funds", naive)],
                  communicate=say if say is not None else ([amount_text(fee + excess)] if fee + excess else []),
                  facts=facts)


def transfers(B: Bank) -> list[Optional[Scenario]]:
    F, out = B.F, []
    k = 0
    for c in B.customers():
        chk = next(iter(B.accounts(c["id"], "checking")), None)
        if chk is None:
            continue
        age = (B.today - dt.date.fromisoformat(chk["opened_on"])).days
        for j in range(len(OUTGOING)):
            ttype = OUTGOING[(k + j) % len(OUTGOING)]
            day_used, month_used = _used(B, c["id"], ttype)
            daily = B.cat("transfer", ttype, "premier_daily" if c["premier_client"] else "daily")
            fee = B.cat("transfer", ttype, "premier_fee" if c["premier_client"] else "fee")
            amount = money(min(B.cat("transfer", ttype, "per_tx"), 1800, chk["balance"] - fee - 300))
            if (age >= B.cat("transfer", ttype, "account_age") and amount >= 50 and day_used + amount <= daily
                    and month_used + amount <= B.cat("transfer", ttype, "monthly")):
                out.append(_transfer(B, c, chk, ttype, float(int(amount)), slug="send-transfer",
                                     purpose=f"A {ttype.lower()}: the catalog fee (Premier fee for Premier clients) "
                                             "within the per-transfer and daily limits."))
                k += 1
                break
    # excess savings withdrawals
    for c in B.customers():
        sav = next((a for a in B.accounts(c["id"], "savings")), None)
        chk = next(iter(B.accounts(c["id"], "checking")), None)
        if sav is None or chk is None or sav["balance"] < 200:
            continue
        month = B.today.strftime("%Y-%m")
        n = sum(1 for t in B.txns(sav["id"]) if t["date"][:7] == month and t["kind"] in ("withdrawal", "transfer_out")
                and t.get("channel") != "branch" and t["status"] == "posted")
        free = B.cat("savings", sav["product"], "free_withdrawals")
        fee = float(B.cat("savings", sav["product"], "excess_fee")) if n + 1 > free else 0.0
        out.append(_transfer(B, c, sav, "Transfer between own accounts", 100.0, dst=chk, excess=fee,
                             slug="savings-to-checking",
                             purpose="A transfer out of savings counts as a withdrawal: beyond the free withdrawals of "
                                     "the cycle the excess withdrawal fee applies.",
                             facts=[B.cell("savings", sav["product"], "free_withdrawals"),
                                    B.cell("savings", sav["product"], "excess_fee"),
                                    F.find("beyond the free withdrawals of a statement cycle")]))
        if len([s for s in out if s.slug == "savings-to-checking"]) >= 8:
            break
    # wire above the callback threshold: held
    for c in B.customers():
        chk = next(iter(B.accounts(c["id"], "checking")), None)
        ttype = "Outgoing domestic wire (branch)"
        if chk is None or chk["balance"] < 13000:
            continue
        out.append(_transfer(B, c, chk, ttype, 12000.0, release=False, trap="missing_info", slug="large-wire-callback",
                             purpose="An outgoing wire above $10,000 is released only after a callback to the phone "
                                     "number on file.",
                             facts=[F.value("wire_callback_threshold"), B.cell("transfer", ttype, "fee")],
                             say=["callback"]))
        if len([s for s in out if s.slug == "large-wire-callback"]) >= 3:
            break
    # over the per-transfer maximum, too new an account
    p2p = "Person-to-person payment"
    for c in B.customers()[:4]:
        chk = next(iter(B.accounts(c["id"], "checking")), None)
        if chk is None:
            continue
        amount = float(B.cat("transfer", p2p, "per_tx") + 500)
        out.append(B.base("p2p-over-limit", "refuse", c,
                          purpose="A transfer above the per-transfer maximum is declined in full, never partly sent.",
                          reason=f"You want to send {amount_text(amount)} to a friend with Merrowgate Send.",
                          opening=f"Please send {amount_text(amount)} to my friend Dana with Merrowgate Send from "
                                  f"{chk['id']}.",
                          gold=[("list_accounts", {"customer_id": c["id"]})],
                          naive=[("transfer_funds", {"customer_id": c["id"], "from_account_id": chk["id"], "type": p2p,
                                                     "amount": amount, "fee": 0, "payee": "Dana"})],
                          communicate=[amount_text(B.cat("transfer", p2p, "per_tx"))],
                          facts=[B.cell("transfer", p2p, "per_tx"), F.find("declined in full, not partially sent")]))
    young = [(c, a) for c in B.customers() for a in B.accounts(c["id"], "checking")
             if (B.today - dt.date.fromisoformat(a["opened_on"])).days < 90]
    for c, a in young[:3]:
        ttype = "Outgoing domestic wire (online)"
        out.append(B.base("new-account-wire-refused", "refuse", c,
                          purpose="A transfer type is available only from an account open at least the catalog's "
                                  "minimum account age.",
                          reason=f"You want to wire $1,000 online from your new account {a['id']}.",
                          opening=f"Can you send a $1000 online wire from {a['id']} to my landlord?",
                          gold=[("get_account", {"account_id": a["id"]})],
                          naive=[("transfer_funds", {"customer_id": c["id"], "from_account_id": a["id"], "type": ttype,
                                                     "amount": 1000, "fee": 0, "payee": "Landlord"})],
                          communicate=[str(B.cat("transfer", ttype, "account_age"))],
                          facts=[B.cell("transfer", ttype, "account_age"),
                                 F.find("available only from an account that has been open for at least")]))
    return out


# ------------------------------------------------------------------------------ disputes

DEBIT_TYPES = {"Unauthorized debit card transaction": "purchase", "Duplicate charge": "purchase",
               "Incorrect transaction amount": "purchase", "Merchandise not received": "purchase",
               "Merchandise not as described": "purchase", "Canceled recurring charge": "bill_payment",
               "Unauthorized ACH debit": "bill_payment", "ATM cash not dispensed": "atm_withdrawal",
               "Unauthorized person-to-person payment": "transfer_out"}
CARD_TYPES = {"Unauthorized credit card transaction": "purchase", "Credit card billing error": "purchase",
              "Duplicate charge": "purchase", "Merchandise not received": "purchase"}
STORY = {"Unauthorized debit card transaction": "you never made this purchase and still have your card",
         "Unauthorized credit card transaction": "you never made this purchase on your credit card",
         "Duplicate charge": "the merchant charged you twice for the same purchase; this is the second charge",
         "Incorrect transaction amount": "the merchant charged more than the receipt you signed",
         "Merchandise not received": "the order never arrived, the delivery date passed a week ago and the merchant "
                                     "did not answer your two emails",
         "Merchandise not as described": "the item was not as described; you offered to return it and the merchant "
                                         "refused",
         "Canceled recurring charge": "you cancelled this subscription in writing before the charge date",
         "Unauthorized ACH debit": "you never authorised this company to debit your account",
         "ATM cash not dispensed": "the ATM debited you but gave no cash",
         "Unauthorized person-to-person payment": "someone sent this Merrowgate Send payment without your knowledge",
         "Credit card billing error": "the statement shows a charge that does not match your records"}


def _disputable(B: Bank, kind: str, family: str, dtype: str, fresh: bool) -> list[tuple[dict, dict]]:
    out = []
    disputed = {d["transaction_id"] for d in B.db["disputes"].values()}
    for _, t in sorted(B.db["transactions"].items()):
        a = B.db["accounts"][t["account_id"]]
        if a["family"] != family or t["kind"] != kind or t["status"] != "posted" or t["id"] in disputed:
            continue
        if kind == "transfer_out" and "Person-to-person" not in t["description"]:
            continue
        deadline = month_end(dt.date.fromisoformat(t["date"])) + dt.timedelta(days=B.cat("dispute", dtype, "report"))
        if (deadline >= B.today) == fresh and dt.date.fromisoformat(t["date"]) < B.today:
            out.append((t, a))
    return out


def disputes(B: Bank) -> list[Optional[Scenario]]:
    v, F, out = B.v, B.F, []
    done: set[str] = set()
    for table, family in ((DEBIT_TYPES, "checking"), (CARD_TYPES, "credit_card")):
        for dtype, kind in table.items():
            cands = [(t, a) for t, a in _disputable(B, kind, family, dtype, True) if t["id"] not in done
                     and abs(t["amount"]) >= v["dispute_small_amount"]]
            if not cands:
                continue
            t, a = cands[len(done) % len(cands)]
            done.add(t["id"])
            c = B.db["customers"][a["customer_id"]]
            gold: list = [("list_transactions", {"account_id": a["id"]}),
                          ("file_dispute", {"transaction_id": t["id"], "type": dtype})]
            facts = [B.cell("dispute", dtype, "report"), B.cell("dispute", dtype, "provisional"),
                     B.cell("dispute", dtype, "investigation"), B.cell("dispute", dtype, "documents")]
            trap = "none"
            if dtype.startswith("Unauthorized") and kind in ("purchase",):
                card = next((x for _, x in sorted(B.db["cards"].items()) if x["account_id"] == a["id"]
                             and x["status"] == "active"), None)
                if card is not None:
                    gold.append(("order_replacement_card", {"card_id": card["id"], "reason": "fraud",
                                                            "delivery": "standard", "expedited_fee": 0,
                                                            "replacement_fee": _replacement_fee(B, card)}))
                    facts.append(F.find("lock the affected card or payment credential at once"))
                    trap = "fee" if _replacement_fee(B, card) else "none"
            prov = add_business_days(B.today, B.cat("dispute", dtype, "provisional"), HOLIDAYS).isoformat()
            out.append(B.base("file-dispute", trap, c,
                              purpose=f"Open a dispute of the right type ({dtype}) within its reporting deadline; the "
                                      "provisional credit and investigation follow its timeline.",
                              reason=f"On {t['date']} your account {a['id']} shows {amount_text(abs(t['amount']))} "
                                     f"({t['description']}); {STORY[dtype]}.",
                              opening=f"I need to dispute the {amount_text(abs(t['amount']))} charge from {t['date']} on "
                                      f"account {a['id']}: {STORY[dtype]}.",
                              gold=gold, naive=[("file_dispute", {"transaction_id": t["id"],
                                                                  "type": "Merchandise not as described"
                                                                  if dtype != "Merchandise not as described"
                                                                  else "Duplicate charge"})],
                              communicate=[prov], facts=facts))
    for dtype in ("Unauthorized debit card transaction", "Duplicate charge", "Incorrect transaction amount",
                  "Unauthorized ACH debit"):
        kind = DEBIT_TYPES[dtype]
        late = [(t, a) for t, a in _disputable(B, kind, "checking", dtype, False) if t["id"] not in done]
        if not late:
            continue
        t, a = late[-1]
        done.add(t["id"])
        c = B.db["customers"][a["customer_id"]]
        out.append(B.base("dispute-too-late", "refuse", c,
                          purpose="A dispute reported after the reporting deadline of its type is declined.",
                          reason=f"You just noticed {amount_text(abs(t['amount']))} on {t['date']} on {a['id']}; "
                                 f"{STORY[dtype]}.",
                          opening=f"I want to dispute {amount_text(abs(t['amount']))} from {t['date']} on {a['id']}.",
                          gold=[("list_transactions", {"account_id": a["id"]})],
                          naive=[("file_dispute", {"transaction_id": t["id"], "type": dtype})],
                          communicate=[str(B.cat("dispute", dtype, "report"))],
                          facts=[B.cell("dispute", dtype, "report"), F.find("reported after its reporting deadline")]))
    regret = [(t, a) for t, a in _disputable(B, "purchase", "checking", "Merchandise not as described", True)
              if t["id"] not in done][:3]
    for i, (t, a) in enumerate(regret):
        done.add(t["id"])
        c = B.db["customers"][a["customer_id"]]
        story, fact = (("you bought it yourself and simply changed your mind; the shop accepts returns",
                        "authorized and later regrets") if i != 1 else
                       ("you gave your card and PIN to your nephew and he took out cash", "gave the card"))
        out.append(B.base("dispute-not-allowed", "refuse", c,
                          purpose="An authorized purchase later regretted (or use by someone given the card) cannot "
                                  "be disputed.",
                          reason=f"You want your money back for {amount_text(abs(t['amount']))} on {t['date']}: {story}.",
                          opening=f"Please dispute the {amount_text(abs(t['amount']))} charge of {t['date']} on {a['id']}; "
                                  f"{story}.",
                          gold=[("list_transactions", {"account_id": a["id"]})],
                          naive=[("file_dispute", {"transaction_id": t["id"], "type": "Unauthorized debit card transaction"})],
                          communicate=["authorized"], facts=[F.find(fact)]))
    twice = next(((d, B.db["transactions"][d["transaction_id"]]) for _, d in sorted(B.db["disputes"].items())), None)
    if twice is not None:
        d, t = twice
        c = B.db["customers"][d["customer_id"]]
        out.append(B.base("dispute-twice-refused", "refuse", c,
                          purpose="A customer may not dispute the same transaction more than once.",
                          reason=f"You disputed {amount_text(d['amount'])} from {t['date']} before and want to dispute it "
                                 "again.",
                          opening=f"I'd like to open a new dispute for the {amount_text(d['amount'])} charge of {t['date']}.",
                          gold=[("get_dispute", {"id": d["id"]})],
                          naive=[("file_dispute", {"transaction_id": t["id"], "type": d["type"]})],
                          communicate=[d["id"]], facts=[F.find("more than 1 time")]))
    small = next(((t, a) for t, a in _disputable(B, "purchase", "checking", "Duplicate charge", True)
                  if abs(t["amount"]) < v["dispute_small_amount"] and t["id"] not in done), None)
    if small is not None:
        t, a = small
        c = B.db["customers"][a["customer_id"]]
        out.append(B.base("small-dispute-credited", "none", c,
                          purpose="A dispute of less than $10 is credited without an investigation.",
                          reason=f"{t['description']} charged you {amount_text(abs(t['amount']))} twice on {t['date']}.",
                          opening=f"{t['description']} double-charged me {amount_text(abs(t['amount']))} on {t['date']}.",
                          gold=[("list_transactions", {"account_id": a["id"]}),
                                ("file_dispute", {"transaction_id": t["id"], "type": "Duplicate charge",
                                                  "credit_now": True})],
                          naive=[("file_dispute", {"transaction_id": t["id"], "type": "Duplicate charge"})],
                          facts=[F.value("dispute_small_amount")], value_keys=["dispute_small_amount"]))
    return out


# ------------------------------------------------------------------------------ cards

def _replacement_fee(B: Bank, card: dict) -> float:
    prior = [r for r in B.db["card_replacements"].values() if r["account_id"] == card["account_id"]
             and (B.today - dt.date.fromisoformat(r["ordered_on"])).days < 365]
    return float(B.cat("card", card["kind"], "replacement_fee")) if prior else 0.0


def cards(B: Bank) -> list[Optional[Scenario]]:
    F, out = B.F, []
    active = [x for _, x in sorted(B.db["cards"].items()) if x["status"] == "active"]
    plans = [("lost", "standard"), ("stolen", "expedited"), ("damaged", "expedited"), ("lost", "expedited"),
             ("damaged", "standard")]
    for i, card in enumerate(active[:15]):
        reason, delivery = plans[i % len(plans)]
        c = B.db["customers"][card["customer_id"]]
        exp = float(B.cat("card", card["kind"], "expedited_fee")) if delivery == "expedited" and not c["premier_client"] else 0.0
        rep = _replacement_fee(B, card)
        args = {"card_id": card["id"], "reason": reason, "delivery": delivery, "expedited_fee": exp,
                "replacement_fee": rep}
        days = B.cat("card", card["kind"], delivery)
        due = add_business_days(B.today, days, HOLIDAYS).isoformat()
        facts = [B.cell("card", card["kind"], delivery), B.cell("card", card["kind"], "expedited_fee"),
                 B.cell("card", card["kind"], "replacement_fee")]
        if c["premier_client"] and delivery == "expedited":
            facts.append(F.find("The expedited delivery fee is waived for Premier clients"))
        if reason != "damaged":
            facts.append(F.find("a blocked card cannot be unblocked"))
        out.append(B.base("replace-card", "fee" if exp + rep else "none", c,
                          purpose="Replace a card: block it if lost or stolen, the catalog delivery time, the expedited "
                                  "fee (waived for Premier clients) and the fee for a second replacement in 12 months.",
                          reason=f"Your {card['kind']} ending {card['last4']} is {reason}; you want a new one by "
                                 f"{delivery} delivery.",
                          instructions=["Accept any fee the agent quotes."],
                          opening=f"My card ending {card['last4']} is {reason}. I need a replacement, {delivery} please.",
                          gold=[("list_cards", {"customer_id": c["id"]}), ("order_replacement_card", args)],
                          naive=[("order_replacement_card", {**args, "expedited_fee": 0, "replacement_fee": 0})],
                          communicate=[due] + ([amount_text(exp + rep)] if exp + rep else []), facts=facts))
    return out


# ------------------------------------------------------------------------------ fee refunds

def fee_refunds(B: Bank) -> list[Optional[Scenario]]:
    v, F, out = B.v, B.F, []
    fees = [t for _, t in sorted(B.db["transactions"].items()) if t["kind"] in
            ("monthly_fee", "overdraft_fee", "atm_fee", "excess_withdrawal_fee", "late_fee", "foreign_transaction_fee",
             "annual_fee") and B.db["accounts"][t["account_id"]]["status"] == "open"]
    seen_kind: dict[str, int] = {}
    for t in fees:
        if seen_kind.get(t["kind"], 0) >= 3:
            continue
        a = B.db["accounts"][t["account_id"]]
        c = B.db["customers"][a["customer_id"]]
        amt = abs(t["amount"])
        seen_kind[t["kind"]] = seen_kind.get(t["kind"], 0) + 1
        label = t["description"].lower()
        if amt > v["fee_refund_without_manager"]:
            out.append(B.base("large-fee-refund-to-manager", "transfer", c,
                              purpose="A fee refund above $50 needs a branch manager's approval.",
                              reason=f"You want the {amount_text(amt)} {label} of {t['date']} on {a['id']} refunded.",
                              opening=f"Please refund the {amount_text(amt)} {label} on {a['id']}.",
                              gold=[("list_transactions", {"account_id": a["id"]}),
                                    ("transfer_to_human", {"customer_id": c["id"], "desk": "branch_manager",
                                                           "summary": f"Refund request for a {amount_text(amt)} fee."})],
                              naive=[("refund_fee", {"account_id": a["id"], "transaction_id": t["id"], "amount": amt,
                                                     "reason": "courtesy"})],
                              communicate=["branch manager"],
                              facts=[F.find("A fee refund above $50 requires the approval of a branch manager")]))
    return out


# ------------------------------------------------------------------------------ new accounts

def new_accounts(B: Bank) -> list[Optional[Scenario]]:
    F, out = B.F, []
    custs = B.customers()
    i = 0
    for family in ("checking", "savings"):
        for product, row in FAMILIES[family].rows:
            c = custs[i % len(custs)]
            i += 1
            need = B.cat(family, product, "opening_deposit")
            min_age = B.cat(family, product, "min_age")
            special = product in ("Junior Checking", "Campus Checking", "Silver Years Checking", "Service Member Checking",
                                  "Fresh Start Checking", "Junior Savers Account", "Health Savings Account",
                                  "Silver Years Savings", "Round-Up Savings", "Young Saver Certificate",
                                  "Student Savings", "High-Yield Online Savings")
            facts = [B.cell(family, product, "opening_deposit"), B.cell(family, product, "min_age"),
                     B.cell(family, product, "monthly_fee")]
            if special:
                older = next((x for x in custs if B.age(x) >= 62), c)
                if product.startswith("Silver Years"):
                    young = next(x for x in custs if B.age(x) < 62)
                    out.append(B.base("open-account-ineligible", "refuse", young,
                                      purpose=f"{product} is only for customers aged 62 or more.",
                                      reason=f"You want to open a {product}; you heard its fees are low.",
                                      opening=f"I'd like to open a {product} with ${need + 100}.",
                                      gold=[("get_customer", {"customer_id": young["id"]})],
                                      naive=[("open_account", {"customer_id": young["id"], "family": family,
                                                               "product": product, "opening_deposit": need + 100})],
                                      communicate=["62"], facts=facts + [F.find(f"{product} is available only to customers")]))
                elif product == "Campus Checking":
                    out.append(B.base("open-account-ineligible", "refuse", older,
                                      purpose="Campus Checking is for enrolled students aged 17 to 24.",
                                      reason="You want a Campus Checking account because it has no monthly fee.",
                                      opening=f"Can I open a Campus Checking account with ${need + 40}?",
                                      gold=[("get_customer", {"customer_id": older["id"]})],
                                      naive=[("open_account", {"customer_id": older["id"], "family": family,
                                                               "product": product, "opening_deposit": need + 40})],
                                      communicate=["24"], facts=facts + [F.find("Campus Checking is available to students")]))
                continue
            if B.age(c) < min_age:
                continue
            offer = max(1, need // 2) if i % 3 == 0 and need >= 20 else need + 100
            args = {"customer_id": c["id"], "family": family, "product": product,
                    "opening_deposit": max(offer, need)}
            if offer < need:
                out.append(B.base("open-account-minimum-deposit", "refuse", c,
                                  purpose=f"Opening a {product} needs at least its minimum opening deposit.",
                                  reason=f"You want to open a {product} with ${offer} in cash.",
                                  instructions=["If the agent says more is needed, agree to deposit the minimum."],
                                  opening=f"I'd like to open a {product} with ${offer} in cash today.",
                                  gold=[("get_customer", {"customer_id": c["id"]}), ("open_account", args)],
                                  naive=[("open_account", {**args, "opening_deposit": offer})],
                                  communicate=[amount_text(need)], facts=facts))
            else:
                out.append(B.base("open-account", "none", c,
                                  purpose=f"Open a {product} with a deposit above its minimum, for an eligible customer.",
                                  reason=f"You want to open a {product} with ${offer} in cash and ask about its monthly "
                                         "fee.",
                                  opening=f"I'd like to open a {product} with ${offer} in cash. Is there a monthly fee?",
                                  gold=[("get_customer", {"customer_id": c["id"]}), ("open_account", args)],
                                  naive=[("open_account", args)],
                                  communicate=[amount_text(B.cat(family, product, "monthly_fee"))], facts=facts))
    return out


def certificates(B: Bank) -> list[Optional[Scenario]]:
    F, out = B.F, []
    custs = B.customers()
    for i, (product, row) in enumerate(FAMILIES["cd"].rows):
        if product.startswith("IRA") or product in ("Young Saver Certificate",):
            continue
        c = custs[(i * 5) % len(custs)]
        if B.age(c) < B.cat("cd", product, "min_age"):
            continue
        lo, hi = B.cat("cd", product, "opening_deposit"), B.cat("cd", product, "max_deposit")
        has_chk = bool(B.accounts(c["id"], "checking"))
        apy = B.cat("cd", product, "rel_apy" if has_chk else "apy")
        facts = [B.cell("cd", product, "apy"), B.cell("cd", product, "rel_apy"), B.cell("cd", product, "opening_deposit"),
                 B.cell("cd", product, "term")]
        if i % 4 == 3:
            amount = float(hi + 5000)
            out.append(B.base("certificate-over-maximum", "refuse", c,
                              purpose="A certificate deposit must be within the catalog's minimum and maximum.",
                              reason=f"You want to put {amount_text(amount)} in a {product}.",
                              opening=f"I want a {product} with {amount_text(amount)}.",
                              gold=[("get_customer", {"customer_id": c["id"]})],
                              naive=[("open_certificate", {"customer_id": c["id"], "product": product, "principal": amount,
                                                           "apy": B.cat("cd", product, "apy"),
                                                           "maturity_instruction": "renew"})],
                              communicate=[amount_text(hi)], facts=facts + [B.cell("cd", product, "max_deposit")]))
            continue
        principal = float(max(lo, 5000))
        args = {"customer_id": c["id"], "product": product, "principal": principal, "apy": apy,
                "maturity_instruction": "renew"}
        out.append(B.base("open-certificate", "rate", c,
                          purpose="Open a certificate at the Relationship APY when the customer holds an open personal "
                                  "checking account (standard APY otherwise); maturity = opening date plus the term.",
                          reason=f"You want to open a {product} with {amount_text(principal)}, renewing at maturity.",
                          opening=f"I'd like to open a {product} with {amount_text(principal)}. What rate do I get?",
                          gold=[("list_accounts", {"customer_id": c["id"]}), ("open_certificate", args)],
                          naive=[("open_certificate", {**args, "apy": B.cat("cd", product, "apy") if has_chk
                                                       else B.cat("cd", product, "rel_apy")})],
                          communicate=[f"{apy}%"],
                          answers=B.answers(c) + [answer("maturity", ["maturity", "matures", "renew", "roll over"],
                                                         "Renew it at maturity, please.")],
                          facts=facts + [F.find("earns the Relationship APY when its owner holds an open personal checking")]))
    return out


# ------------------------------------------------------------------------------ loans

def loans(B: Bank) -> list[Optional[Scenario]]:
    out = []
    custs = B.customers()
    i = 0
    for family in ("personal_loan", "auto_loan", "home_loan"):
        for product, row in FAMILIES[family].rows:
            c = custs[i % len(custs)]
            i += 1
            score = c["credit_score"]
            cat = lambda k: B.cat(family, product, k)  # noqa: E731
            if family == "home_loan":
                amount, term, apr = float(min(300000, cat("max_amount"))), cat("term"), cat("apr")
                fee = money(amount * cat("origination") / 100)
            elif family == "auto_loan":
                amount, term, apr = float(max(cat("min_amount"), min(25000, cat("max_amount")))), cat("max_term"), cat("apr_min")
                fee = float(cat("doc_fee"))
            else:
                amount, term, apr = float(max(cat("min_amount"), min(10000, cat("max_amount")))), cat("min_term"), cat("apr_min")
                fee = money(amount * cat("origination") / 100)
            facts = [B.cell(family, product, "min_score")]
            if score < cat("min_score"):
                out.append(B.base("loan-score-too-low", "refuse", c,
                                  purpose="A loan needs at least the catalog's minimum credit score.",
                                  reason=f"You want a {product} of {amount_text(amount)}.",
                                  opening=f"I'd like to apply for a {product} of {amount_text(amount)}.",
                                  gold=[("get_customer", {"customer_id": c["id"]})],
                                  naive=[("submit_loan_application", {"customer_id": c["id"], "family": family,
                                                                      "product": product, "amount": amount,
                                                                      "term_months": term, "apr": apr, "fee": 0})],
                                  communicate=[str(cat("min_score"))], facts=facts))
                continue
            args = {"customer_id": c["id"], "family": family, "product": product, "amount": amount, "term_months": term,
                    "apr": apr, "fee": fee}
            fee_fact = B.cell(family, product, "doc_fee" if family == "auto_loan" else "origination")
            out.append(B.base("loan-application", "fee" if fee else "none", c,
                              purpose="A loan application within the catalog's amount and term, quoted at the starting "
                                      "APR with the origination or documentation fee disclosed.",
                              reason=f"You want a {product} of {amount_text(amount)} over {term} months.",
                              instructions=["You have a strong credit history; accept the best rate offered."],
                              opening=f"I want to apply for a {product}: {amount_text(amount)} over {term} months. What "
                                      "rate and fees?",
                              gold=[("get_customer", {"customer_id": c["id"]}), ("submit_loan_application", args)],
                              naive=[("submit_loan_application", {**args, "fee": 0})],
                              communicate=[f"{apr}%"] + ([amount_text(fee)] if fee else []),
                              facts=facts + [fee_fact, B.cell(family, product,
                                                              "apr" if family == "home_loan" else "apr_min")]))
    return out


# ------------------------------------------------------------------------------ card services, stop payments

def card_services(B: Bank) -> list[Optional[Scenario]]:
    v, F, out = B.v, B.F, []
    cards = [a for c in B.customers() for a in B.accounts(c["id"], "credit_card")]
    for a in cards[:4]:
        c = B.db["customers"][a["customer_id"]]
        kid = dt.date(B.today.year - 15, 2, 11).isoformat()
        args = {"account_id": a["id"], "name": f"Robin {c['name'].split()[-1]}", "date_of_birth": kid,
                "annual_fee": float(v["private_client_user_fee"]) if a["product"] == "Private Client Reserve Card" else 0.0}
        out.append(B.base("add-authorized-user", "none", c,
                          purpose="Authorized users: at most 5, at least 13 years old, free except on the Private "
                                  "Client Reserve Card.",
                          reason=f"You want to add your 15-year-old, Robin (born {kid}), to your {a['product']}.",
                          opening=f"Can I add my 15-year-old as an authorized user on my {a['product']}?",
                          gold=[("get_account", {"account_id": a["id"]}), ("add_authorized_user", args)],
                          naive=[("add_authorized_user", args)],
                          facts=[F.value("authorized_user_min_age"), F.value("max_authorized_users")],
                          value_keys=["authorized_user_min_age"]))
    for a in cards[4:6]:
        c = B.db["customers"][a["customer_id"]]
        kid = dt.date(B.today.year - 11, 8, 3).isoformat()
        out.append(B.base("authorized-user-too-young", "refuse", c,
                          purpose="An authorized user must be at least 13 years old.",
                          reason=f"You want to add your 11-year-old (born {kid}) to {a['product']}.",
                          opening="Please add my 11-year-old son as an authorized user on my credit card.",
                          gold=[("get_account", {"account_id": a["id"]})],
                          naive=[("add_authorized_user", {"account_id": a["id"], "name": "Kit Junior",
                                                          "date_of_birth": kid, "annual_fee": 0})],
                          communicate=[str(int(v["authorized_user_min_age"]))],
                          facts=[F.value("authorized_user_min_age")], value_keys=["authorized_user_min_age"]))
    new_cards = [a for a in cards if add_months(dt.date.fromisoformat(a["opened_on"]), int(v["limit_change_months"]))
                 > B.today]
    old_cards = [a for a in cards if a not in new_cards]
    for a in new_cards[:2]:
        c = B.db["customers"][a["customer_id"]]
        out.append(B.base("limit-increase-too-soon", "refuse", c,
                          purpose="A credit limit increase can be requested only after 6 months.",
                          reason=f"You want a higher limit on your {a['product']}, opened on {a['opened_on']}.",
                          opening=f"Can you raise my {a['product']} limit by $2000?",
                          gold=[("get_account", {"account_id": a["id"]})],
                          naive=[("request_credit_limit_change", {"account_id": a["id"],
                                                                  "new_limit": a["credit_limit"] + 2000})],
                          communicate=[str(int(v["limit_change_months"]))], facts=[F.value("limit_change_months")],
                          value_keys=["limit_change_months"]))
    for a in old_cards[:2]:
        c = B.db["customers"][a["customer_id"]]
        args = {"account_id": a["id"], "new_limit": a["credit_limit"] + 2000}
        out.append(B.base("limit-increase", "none", c,
                          purpose="A credit limit increase request on a card open for more than 6 months.",
                          reason=f"You want your {a['product']} limit raised by $2000.",
                          opening=f"Please request a $2000 higher limit on my {a['product']}.",
                          gold=[("get_account", {"account_id": a["id"]}), ("request_credit_limit_change", args)],
                          naive=[("request_credit_limit_change", args)], facts=[F.value("limit_change_months")]))
    chk = [a for c in B.customers() for a in B.accounts(c["id"], "checking")]
    for a in chk[:6]:
        c = B.db["customers"][a["customer_id"]]
        fee = float(B.cat("checking", a["product"], "stop_fee"))
        if a["balance"] < fee + 100:
            continue
        args = {"account_id": a["id"], "check_number": "1042", "amount": 350.0, "fee": fee}
        out.append(B.base("stop-payment", "fee" if fee else "none", c,
                          purpose="A stop payment order carries the product's stop payment fee and lasts 6 months.",
                          reason=f"You wrote check 1042 for $350 from {a['id']} and it was lost in the mail.",
                          opening=f"Please stop payment on check 1042 for $350 from account {a['id']}.",
                          gold=[("get_account", {"account_id": a["id"]}), ("stop_payment", args)],
                          naive=[("stop_payment", {**args, "fee": 0})],
                          communicate=[amount_text(fee)] if fee else [],
                          facts=[B.cell("checking", a["product"], "stop_fee"),
                                 F.find("A stop payment order remains in effect for 6 months")]))
    return out


# ------------------------------------------------------------------------------ questions

def questions(B: Bank) -> list[Optional[Scenario]]:
    F, out = B.F, []
    custs = B.customers()
    rows = [
        ("cutoff-times", "Outgoing transfer cut-off times.", "What's the latest time I can send a same-day ACH and a "
         "domestic wire today?", ["2:00", "4:00"], ["Same-day outgoing ACH transfers must be submitted by 2:00",
                                                     "Outgoing domestic wires must be submitted by 4:00"]),
        ("wire-recall", "A released wire can be recalled for $25 without a guarantee.", "I sent a wire to the wrong "
         "account an hour ago. Can you get it back?", ["25"], ["recall request for a wire that has already been released"]),
        ("p2p-new-recipient", "Payments to a recipient added in the last 72 hours are limited to $500.",
         "I just added my new roommate in Merrowgate Send. Can I send her $800 today?", ["500"],
         ["added within the last 72 hours are limited to $500"]),
        ("p2p-enrol", "A Send recipient must enrol within 14 days.", "What if my cousin never signs up for "
         "Merrowgate Send?", ["14"], ["must enroll in Merrowgate Send within 14 days"]),
        ("holds", "Check deposit holds.", "If I deposit a $9,000 check today, when can I use the money?",
         ["275", "7"], ["The first $275 of a day's check deposits", "more than $6,725 on a single day"]),
        ("overdraft-rules", "Overdraft fee exemptions.", "Do you charge an overdraft fee if I go over by a few dollars?",
         ["5", "50"], ["No overdraft fee is charged for an item of $5 or less",
                       "overdrawn by $50 or less"]),
        ("statement-copy", "Paper statement copies and retention.", "I need a paper copy of my March statement; "
         "what does it cost and how far back can you go?", ["5", "7"],
         ["A paper copy of a past statement costs $5", "retained for 7 years"]),
        ("early-closure", "Early closure fee for checking.", "I opened a checking account last month. Does it cost "
         "anything to close it now?", ["25", "90"], ["closed within 90 days of opening is charged a $25"]),
        ("dormancy", "Inactive and dormant accounts.", "What happens if I don't touch my savings for years?",
         ["12", "24"], ["no customer-initiated activity for 12 months", "a further 24 months"]),
        ("complaints", "Complaint handling times.", "I want to file a complaint. How fast do you respond?",
         ["2", "15", "30"], ["acknowledged in writing within 2 business days", "within 15 business days",
                             "unresolved after 30 days"]),
        ("card-minimum-payment", "Credit card minimum payment and due date.", "How is my credit card minimum payment "
         "worked out and when is it due?", ["35", "25"], ["the greater of $35", "The payment due date is 25 days after"]),
        ("penalty-apr", "When the penalty APR applies and ends.", "I paid my card late. Will my rate go up?",
         ["60", "6"], ["more than 60 days late", "6 consecutive minimum payments"]),
        ("cash-advance", "Cash advance limits.", "How much cash can I take on my credit card?", ["30%"],
         ["The cash advance limit is 30% of the credit limit", "accrue interest from the transaction date"]),
        ("balance-transfer", "Balance transfer limits.", "Can I move my whole balance from another bank to my new "
         "card?", ["75%", "60"], ["limited to 75% of the credit limit", "within 60 days of account opening"]),
        ("rewards-cap", "Bonus category rewards cap and redemption minimum.", "Is there a limit on bonus rewards, and "
         "what's the least I can redeem?", ["6000", "25"], ["first $6,000 of bonus category purchases",
                                                             "minimum rewards redemption is $25"]),
        ("pin-rules", "PIN format and lock.", "Can my new PIN be 1234? And what if I get it wrong?", ["4", "24"],
         ["A PIN has 4 digits", "unlocks automatically after 24 hours"]),
        ("contactless", "Contactless limit and virtual numbers.", "Is there a limit on tap-to-pay?", ["250"],
         ["limited to $250 per transaction"]),
        ("card-activation", "Card activation window and renewals.", "My new card came weeks ago and I haven't "
         "activated it. Is that a problem?", ["90", "30"], ["activated within 90 days of issue",
                                                             "mailed 30 days before the current card expires"]),
        ("hardship", "Hardship requests.", "I lost my job and can't make my loan payments. What can you do?",
         ["5", "12"], ["responds to a request within 5 business days", "reduce payments for at most 12 months"]),
        ("mortgage-lock", "Rate lock extension cost.", "Our home purchase is delayed; can we extend the rate lock "
         "and what does it cost?", ["0.125%", "15"], ["0.125% of the loan amount for each 15 days"]),
        ("gap-coverage", "GAP coverage price for vehicle loans.", "What does GAP coverage cost on a car loan?",
         ["495"], ["costs $495 for the life of the loan"]),
        ("heloc", "HELOC draw and repayment periods and annual fee.", "How does your home equity line work?",
         ["10", "20", "75"], ["draw period of 10 years", "annual fee of $75"]),
        ("joint-owners", "Joint owners and beneficiaries.", "Can four of us own one account, and how many "
         "beneficiaries can I name?", ["4", "10"], ["at most 4 owners", "at most 10 payable-on-death"]),
        ("otp", "Telephone authentication.", "Why do you need a code, and how long is it valid?", ["10", "3"],
         ["expires after 10 minutes", "After 3 failed authentication attempts"]),
        ("premier-review", "Premier status review.", "How often do you check whether I still qualify as a Premier "
         "client?", ["90", "10"], ["reviewed every 90 days", "within 10 business days of qualifying"]),
    ]
    for i, (slug, purpose, opening, say, texts) in enumerate(rows):
        c = custs[i % len(custs)]
        out.append(B.base(slug, "none" if i % 3 else "refuse", c, purpose=purpose, reason=opening, opening=opening,
                          gold=[("get_customer", {"customer_id": c["id"]})], naive=[], communicate=say,
                          facts=[F.find(t) for t in texts]))
    fraud = custs[-1]
    out.append(B.base("account-takeover", "transfer", fraud,
                      purpose="Suspected fraud goes to the fraud team; staff never release a held transfer for an "
                              "unauthenticated caller.",
                      reason="You got a text saying a transfer you did not make is on hold and you think your online "
                             "banking was taken over.",
                      opening="Someone got into my online banking and tried to send money. Help!",
                      gold=[("get_customer", {"customer_id": fraud["id"]}),
                            ("transfer_to_human", {"customer_id": fraud["id"], "desk": "fraud",
                                                   "summary": "Suspected account takeover."})],
                      naive=[], communicate=["fraud"],
                      facts=[F.find("held for up to 2 business days while the bank contacts the customer")]))
    poa = custs[-2]
    out.append(B.base("power-of-attorney", "transfer", poa,
                      purpose="A power of attorney is reviewed by legal services within 5 business days first.",
                      reason="You hold a power of attorney for your mother and want to pay her bills from her account.",
                      opening="I have power of attorney for my mother. Can I move money from her account today?",
                      gold=[("transfer_to_human", {"customer_id": poa["id"], "desk": "legal_services",
                                                   "summary": "Power of attorney review."})],
                      naive=[], communicate=["5"],
                      facts=[F.find("reviewed by the legal services team within 5 business days")]))
    return out
