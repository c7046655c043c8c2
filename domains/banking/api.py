"""The Merrowgate Bank staff API: customers, accounts, ledgers, statements, cards, transfers
and disputes; transfers, card payments, fee refunds, card replacements and blocks,
disputes, new accounts and certificates, loan applications, credit limit changes,
authorized users, stop payments and hand-offs.

Policy quantities are arguments: transfer fees (Premier or not), excess withdrawal fees,
whether a wire is released, fee refund amounts and approvals, card replacement fees,
opening deposits, certificate APYs, loan amounts, terms, APRs and fees, authorized-user
fees, stop-payment fees. Nothing here refuses what the policy forbids (a transfer over a
limit, a dispute past its deadline, a third fee refund). The core system keeps the books:
transaction ids and ledger balances, dates (the world clock), due dates that follow from a
chosen dispute type or delivery speed (the published timelines), card numbers and expiry,
a customer's Premier status, maturity dates from a certificate's term.
"""
from __future__ import annotations

import datetime as dt
from typing import Any, Literal, Optional

from pydantic import Field

from domains.apikit import (ApiContext, Args, Catalog, Money, Result, conflict, invalid, next_id, not_found, owned,
                            projection, row)
from domains.records import CustomerArgs, EmailArgs, find_by_email, record_handoff
from domains.seedkit import add_business_days, add_months, month_end

from . import model
from .rules import CODES, HOLIDAYS, PRODUCTS, ProductTerms, is_premier

CATALOG = Catalog("banking", title="Merrowgate Bank Staff API",
                  description="Customers, accounts, cards, transfers, disputes and lending of Merrowgate Bank.")

Desk = Literal["banker", "branch_manager", "legal_services", "fraud", "hardship", "advocacy_office"]
FEE_KINDS = ("overdraft_fee", "atm_fee", "excess_withdrawal_fee", "monthly_fee", "foreign_transaction_fee",
             "late_fee", "annual_fee", "transfer_fee", "card_fee", "stop_payment_fee")


Customer = projection(model.Customer)
CustomerRef = projection(model.Customer, "id name", title="CustomerRef")
Account = projection(model.Account, "id customer_id family product opened_on status balance overdraft_opt_in "
                                    "credit_limit principal apy term_months maturity_date authorized_users",
                     family=str, authorized_users=list[dict[str, Any]])


class AccountList(Result):
    accounts: list[Account]


Transaction = projection(model.Transaction, "id account_id date seq kind amount description status balance_after "
                                            "related_id channel", status=str)


class TransactionList(Result):
    transactions: list[Transaction]


Statement = projection(model.Statement, "id account_id period_start period_end opening_balance closing_balance "
                                        "monthly_fee interest minimum_payment due_date", interest=Optional[float])


class StatementList(Result):
    statements: list[Statement]


Card = projection(model.Card, "id account_id customer_id kind last4 issued_on expires status activated_on", status=str)


class CardList(Result):
    cards: list[Card]


Transfer = projection(model.Transfer, "id customer_id type from_account_id to_account_id payee amount fee date status")
Dispute = projection(model.Dispute, "id account_id transaction_id type amount reported_on documents_due_by "
                                    "provisional_credit_due_by investigation_due_by status outcome",
                     status=str, outcome=Optional[str])
Replacement = projection(model.CardReplacement, "id card_id new_card_id ordered_on delivery due_by expedited_fee "
                                                "replacement_fee", title="Replacement", delivery=str)


class Record(Result):
    id: str


# ------------------------------------------------------------------------------ helpers

def _open_account(db: dict, aid: str) -> dict:
    a = row(db, "accounts", aid, "account")
    if a["status"] != "open":
        raise conflict(f"account {aid} is {a['status']}", account_id=aid)
    return a


def _post(ctx: ApiContext, db: dict, acct: dict, kind: str, amount: float, desc: str, channel: str,
          **extra: Any) -> dict:
    """Append a posted transaction to an account's ledger and move its balance."""
    txns = db["transactions"]
    tid = next_id(txns, ctx.prefix("transaction", "TXN"), 90000001)
    seq = max([t["seq"] for t in txns.values() if t["account_id"] == acct["id"]], default=0) + 1
    bal = round(acct["balance"] + amount + (1e-9 if amount >= 0 else -1e-9), 2)
    t = {"id": tid, "account_id": acct["id"], "date": ctx.today.isoformat(), "seq": seq, "kind": kind,
         "amount": round(amount, 2), "description": desc, "status": "posted", "balance_after": bal,
         "channel": channel, **extra}
    txns[tid] = t
    acct["balance"] = bal
    return t


def _refresh_premier(db: dict, cid: str, today: dt.date) -> None:
    db["customers"][cid]["premier_client"] = is_premier(cid, db["accounts"], today)


# ------------------------------------------------------------------------------ reads

class AccountArgs(Args):
    account_id: str


class TxnListArgs(Args):
    account_id: str
    start: Optional[dt.date] = None
    end: Optional[dt.date] = None


class CardArgs(Args):
    card_id: str


class IdArgs(Args):
    id: str


@CATALOG.read("/customers/{customer_id}", resource="customer_id", tags=("customers",))
def get_customer(ctx: ApiContext, db: dict, a: CustomerArgs) -> Customer:
    """Look up a customer: identity, contact details, credit score, Premier status."""
    return row(db, "customers", a.customer_id, "customer")


@CATALOG.read("/customers/by-email", tags=("customers",))
def find_customer_by_email(ctx: ApiContext, db: dict, a: EmailArgs) -> CustomerRef:
    """Find the customer with this email address."""
    return find_by_email(db, "customers", a.email, "customer")[1]


@CATALOG.read("/customers/{customer_id}/accounts", resource="customer_id", collection="accounts",
              tags=("accounts",))
def list_accounts(ctx: ApiContext, db: dict, a: CustomerArgs) -> AccountList:
    """The customer's accounts of every kind."""
    row(db, "customers", a.customer_id, "customer")
    return {"accounts": owned(db, "accounts", a.customer_id)}


@CATALOG.read("/accounts/{account_id}", resource="account_id", tags=("accounts",))
def get_account(ctx: ApiContext, db: dict, a: AccountArgs) -> Account:
    """Look up one account: product, status, balance (owed balance for a card), terms."""
    return row(db, "accounts", a.account_id, "account")


@CATALOG.read("/accounts/{account_id}/transactions", resource="account_id", collection="transactions",
              tags=("accounts",))
def list_transactions(ctx: ApiContext, db: dict, a: TxnListArgs) -> TransactionList:
    """An account's ledger in posting order, optionally between two dates."""
    row(db, "accounts", a.account_id, "account")
    lo, hi = (a.start or dt.date.min).isoformat(), (a.end or dt.date.max).isoformat()
    return {"transactions": sorted((t for t in db["transactions"].values() if t["account_id"] == a.account_id
                                    and lo <= t["date"] <= hi), key=lambda t: t["seq"])}


@CATALOG.read("/accounts/{account_id}/statements", resource="account_id", collection="statements",
              tags=("accounts",))
def list_statements(ctx: ApiContext, db: dict, a: AccountArgs) -> StatementList:
    """An account's monthly statements."""
    row(db, "accounts", a.account_id, "account")
    return {"statements": sorted((s for s in db["statements"].values() if s["account_id"] == a.account_id),
                                 key=lambda s: s["period_end"])}


@CATALOG.read("/customers/{customer_id}/cards", resource="customer_id", collection="cards", tags=("cards",))
def list_cards(ctx: ApiContext, db: dict, a: CustomerArgs) -> CardList:
    """The customer's debit and credit cards, any status."""
    row(db, "customers", a.customer_id, "customer")
    return {"cards": owned(db, "cards", a.customer_id)}


@CATALOG.read("/disputes/{id}", resource="id", tags=("disputes",))
def get_dispute(ctx: ApiContext, db: dict, a: IdArgs) -> Dispute:
    """Look up a dispute with its timeline."""
    return row(db, "disputes", a.id, "dispute")


@CATALOG.read("/transfers/{id}", resource="id", tags=("transfers",))
def get_transfer(ctx: ApiContext, db: dict, a: IdArgs) -> Transfer:
    """Look up a transfer."""
    return row(db, "transfers", a.id, "transfer")


# ------------------------------------------------------------------------------ writes

TransferType = Literal[
    "Transfer between own accounts", "Transfer to another customer of the bank", "Standard outgoing ACH transfer",
    "Next-day outgoing ACH transfer", "Same-day outgoing ACH transfer", "Outgoing domestic wire (online)",
    "Outgoing domestic wire (branch)", "Outgoing international wire in US dollars",
    "Outgoing international wire in foreign currency", "Person-to-person payment", "Online bill payment"]


class TransferArgs(Args):
    customer_id: str
    from_account_id: str
    type: TransferType
    amount: Money = Field(gt=0)
    fee: Money
    to_account_id: Optional[str] = None
    payee: Optional[str] = None
    excess_withdrawal_fee: Money = 0
    release: bool = True


@CATALOG.write("/transfers", resource="from_account_id", tags=("transfers",))
def transfer_funds(ctx: ApiContext, db: dict, a: TransferArgs) -> Transfer:
    """Send money from one of the customer's accounts: to another own account (`to_account_id`)
    or to an outside payee. Posts the debit, the given transfer fee and excess withdrawal fee;
    a transfer not released is held (for example awaiting a callback)."""
    c = row(db, "customers", a.customer_id, "customer")
    src = _open_account(db, a.from_account_id)
    if src["customer_id"] != c["id"]:
        raise not_found("account", a.from_account_id, customer_id=c["id"])
    dst = None
    if a.to_account_id is not None:
        dst = _open_account(db, a.to_account_id)
    elif not a.payee:
        raise invalid("a transfer needs to_account_id or payee")
    tid = next_id(db["transfers"], ctx.prefix("transfer", "TRF"), 300001)
    rec = {"id": tid, "customer_id": c["id"], "type": a.type, "type_code": CODES[("transfer", a.type)],
           "from_account_id": src["id"], "to_account_id": a.to_account_id, "payee": a.payee, "amount": a.amount,
           "fee": a.fee, "date": ctx.today.isoformat(), "status": "completed" if a.release else "held_for_callback",
           "premier_pricing": c["premier_client"], "debit_txn_id": None, "credit_txn_id": None, "fee_txn_id": None,
           "callback_verified": False}
    if a.release:
        debit = _post(ctx, db, src, "transfer_out", -a.amount, f"{a.type} - {a.payee or 'to own account'}", "online")
        rec["debit_txn_id"] = debit["id"]
        if a.excess_withdrawal_fee:
            _post(ctx, db, src, "excess_withdrawal_fee", -a.excess_withdrawal_fee, "Excess withdrawal fee", "online",
                  related_id=debit["id"])
        if a.fee:
            rec["fee_txn_id"] = _post(ctx, db, src, "transfer_fee", -a.fee, f"{a.type} fee", "online")["id"]
        if dst is not None:
            kind = "payment" if dst["family"] == "credit_card" else "transfer_in"
            rec["credit_txn_id"] = _post(ctx, db, dst, kind, -a.amount if kind == "payment" else a.amount,
                                         f"Transfer from {src['id']}", "online")["id"]
    db["transfers"][tid] = rec
    return rec


class FeeRefundArgs(Args):
    account_id: str
    transaction_id: str
    amount: Money = Field(gt=0)
    reason: Literal["courtesy", "bank_error"]
    approved_by: Optional[str] = None


@CATALOG.write("/accounts/{account_id}/fee-refunds", resource="account_id", tags=("fees",))
def refund_fee(ctx: ApiContext, db: dict, a: FeeRefundArgs) -> Transaction:
    """Refund (part of) a fee charged to an account, with the approving manager if any."""
    acct = _open_account(db, a.account_id)
    fee = row(db, "transactions", a.transaction_id, "transaction")
    if fee["account_id"] != acct["id"] or fee["kind"] not in FEE_KINDS:
        raise invalid(f"{a.transaction_id} is not a fee on {a.account_id}", kind=fee["kind"])
    sign = -1 if acct["family"] == "credit_card" else 1
    return _post(ctx, db, acct, "fee_refund", sign * a.amount, f"Fee refund ({fee['description']})", "internal",
                 refund_of=fee["id"], reason=a.reason, approved_by=a.approved_by)


class ReplaceArgs(Args):
    card_id: str
    reason: Literal["lost", "stolen", "damaged", "fraud"]
    delivery: Literal["standard", "expedited"]
    expedited_fee: Money
    replacement_fee: Money


@CATALOG.write("/cards/{card_id}/replacements", resource="card_id", tags=("cards",))
def order_replacement_card(ctx: ApiContext, db: dict, a: ReplaceArgs) -> Replacement:
    """Order a replacement card with a new number. A lost, stolen or compromised card is
    blocked at once; a damaged one stays active until the new card is activated. The given
    fees are charged to the account."""
    card = row(db, "cards", a.card_id, "card")
    acct = row(db, "accounts", card["account_id"], "account")
    cat = ProductTerms(ctx.values)
    new_id = next_id(db["cards"], ctx.prefix("card", "CRD"), 7000001)
    exp = add_months(ctx.today.replace(day=1), cat("card", card["kind"], "validity"))
    used = {c["last4"] for c in db["cards"].values()}
    last4 = next(f"{(int(card['last4']) + k * 1733) % 10000:04d}" for k in range(1, 100)
                 if f"{(int(card['last4']) + k * 1733) % 10000:04d}" not in used)
    db["cards"][new_id] = {"id": new_id, "account_id": acct["id"], "customer_id": card["customer_id"],
                           "kind": card["kind"], "kind_code": card["kind_code"], "last4": last4,
                           "issued_on": ctx.today.isoformat(), "expires": f"{exp.year}-{exp.month:02d}",
                           "status": "issued", "activated_on": None}
    if a.reason != "damaged":
        card["status"] = "blocked"
    days = cat("card", card["kind"], "expedited" if a.delivery == "expedited" else "standard")
    rid = next_id(db["card_replacements"], ctx.prefix("replacement", "RPL"), 600001)
    fee = a.expedited_fee + a.replacement_fee
    fee_txn = None
    if fee > 0:
        sign = 1 if acct["family"] == "credit_card" else -1
        fee_txn = _post(ctx, db, acct, "card_fee", sign * fee, "Card replacement fee", "internal")["id"]
    r = {"id": rid, "card_id": card["id"], "new_card_id": new_id, "account_id": acct["id"], "reason": a.reason,
         "ordered_on": ctx.today.isoformat(), "delivery": a.delivery,
         "due_by": add_business_days(ctx.today, days, HOLIDAYS).isoformat(), "delivered_on": None,
         "expedited_fee": a.expedited_fee, "replacement_fee": a.replacement_fee, "fee_txn_id": fee_txn,
         "premier_client": db["customers"][card["customer_id"]]["premier_client"]}
    db["card_replacements"][rid] = r
    return r


@CATALOG.write("/cards/{card_id}/block", resource="card_id", tags=("cards",))
def block_card(ctx: ApiContext, db: dict, a: CardArgs) -> Card:
    """Block a card permanently (a blocked card cannot be unblocked)."""
    card = row(db, "cards", a.card_id, "card")
    card["status"] = "blocked"
    return card


DisputeType = Literal[
    "Unauthorized debit card transaction", "Unauthorized credit card transaction", "Unauthorized ACH debit",
    "Unauthorized person-to-person payment", "Duplicate charge", "Incorrect transaction amount",
    "Merchandise not received", "Merchandise not as described", "Canceled recurring charge",
    "ATM cash not dispensed", "Forged or altered check", "Credit card billing error"]


class DisputeArgs(Args):
    transaction_id: str
    type: DisputeType
    credit_now: bool = False


@CATALOG.write("/disputes", resource="transaction_id", tags=("disputes",))
def file_dispute(ctx: ApiContext, db: dict, a: DisputeArgs) -> Dispute:
    """Open a dispute of a transaction under the given dispute type, reported today; its due
    dates follow the dispute timeline of the type. With `credit_now` the disputed amount is
    credited at once and the dispute closed in the customer's favour."""
    t = row(db, "transactions", a.transaction_id, "transaction")
    acct = row(db, "accounts", t["account_id"], "account")
    cat = ProductTerms(ctx.values)
    did = next_id(db["disputes"], ctx.prefix("dispute", "DSP"), 800001)
    rep = ctx.today
    d = {"id": did, "customer_id": acct["customer_id"], "account_id": acct["id"], "transaction_id": t["id"],
         "type": a.type, "type_code": CODES[("dispute", a.type)], "amount": abs(t["amount"]),
         "transaction_date": t["date"], "statement_date": month_end(dt.date.fromisoformat(t["date"])).isoformat(),
         "reported_on": rep.isoformat(),
         "documents_due_by": (rep + dt.timedelta(days=cat("dispute", a.type, "documents"))).isoformat(),
         "provisional_credit_due_by": add_business_days(rep, cat("dispute", a.type, "provisional"),
                                                       HOLIDAYS).isoformat(),
         "provisional_credit_on": None, "provisional_txn_id": None, "status": "investigating", "outcome": None,
         "resolved_on": None, "reversal_on": None, "reversal_txn_id": None,
         "investigation_due_by": (rep + dt.timedelta(days=cat("dispute", a.type, "investigation"))).isoformat()}
    if a.credit_now:
        sign = -1 if acct["family"] == "credit_card" else 1
        txn = _post(ctx, db, acct, "dispute_credit", sign * abs(t["amount"]), f"Dispute credit {did}", "internal")
        d.update(provisional_credit_on=rep.isoformat(), provisional_txn_id=txn["id"], status="resolved",
                 outcome="in_favor", resolved_on=rep.isoformat())
    db["disputes"][did] = d
    return d


class OpenAccountArgs(Args):
    customer_id: str
    family: Literal["checking", "savings"]
    product: str
    opening_deposit: Money = Field(gt=0)
    from_account_id: Optional[str] = None


@CATALOG.write("/customers/{customer_id}/accounts", resource="customer_id", tags=("accounts",))
def open_account(ctx: ApiContext, db: dict, a: OpenAccountArgs) -> Account:
    """Open a personal checking or savings account of a catalog product, funded with the
    given opening deposit (in cash at a branch, or moved from another own account)."""
    c = row(db, "customers", a.customer_id, "customer")
    if a.product not in PRODUCTS[a.family]:
        raise invalid(f"no {a.family} product {a.product!r}", products=sorted(PRODUCTS[a.family]))
    src = None
    if a.from_account_id is not None:
        src = _open_account(db, a.from_account_id)
        if src["customer_id"] != c["id"]:
            raise not_found("account", a.from_account_id, customer_id=c["id"])
    aid = next_id(db["accounts"], ctx.prefix("account", "ACC"), 4000001)
    acct = {"id": aid, "customer_id": c["id"], "family": a.family, "product": a.product,
            "product_code": CODES[(a.family, a.product)], "opened_on": ctx.today.isoformat(), "status": "open",
            "opening_balance": 0.0, "initial_deposit": a.opening_deposit, "balance": 0.0}
    if a.family == "checking":
        acct["overdraft_opt_in"] = False
    db["accounts"][aid] = acct
    if src is not None:
        _post(ctx, db, src, "transfer_out", -a.opening_deposit, f"Transfer to {aid}", "online")
    _post(ctx, db, acct, "deposit", a.opening_deposit, "Opening deposit", "branch" if src is None else "online")
    _refresh_premier(db, c["id"], ctx.today)
    return acct


class CertificateArgs(Args):
    customer_id: str
    product: str
    principal: Money = Field(gt=0)
    apy: float = Field(ge=0)
    maturity_instruction: Literal["renew", "transfer_to_checking", "mail_check"]


@CATALOG.write("/customers/{customer_id}/certificates", resource="customer_id", tags=("accounts",))
def open_certificate(ctx: ApiContext, db: dict, a: CertificateArgs) -> Account:
    """Open a certificate of a catalog product with the given principal and APY; the maturity
    date is the opening date plus the product's term."""
    c = row(db, "customers", a.customer_id, "customer")
    if a.product not in PRODUCTS["cd"]:
        raise invalid(f"no certificate product {a.product!r}", products=sorted(PRODUCTS["cd"]))
    term = ProductTerms(ctx.values)("cd", a.product, "term")
    has_checking = any(x["customer_id"] == c["id"] and x["family"] == "checking" and x["status"] == "open"
                       for x in db["accounts"].values())
    aid = next_id(db["accounts"], ctx.prefix("account", "ACC"), 4000001)
    acct = {"id": aid, "customer_id": c["id"], "family": "cd", "product": a.product,
            "product_code": CODES[("cd", a.product)], "opened_on": ctx.today.isoformat(), "status": "open",
            "opening_balance": a.principal, "principal": a.principal, "term_months": term,
            "relationship_apy": has_checking, "apy": a.apy,
            "maturity_date": add_months(ctx.today, term).isoformat(), "maturity_instruction": a.maturity_instruction,
            "balance": a.principal}
    db["accounts"][aid] = acct
    return acct


class LoanArgs(Args):
    customer_id: str
    family: Literal["personal_loan", "auto_loan", "home_loan"]
    product: str
    amount: Money = Field(gt=0)
    term_months: int = Field(gt=0)
    apr: float = Field(ge=0)
    fee: Money


@CATALOG.write("/customers/{customer_id}/loan-applications", resource="customer_id", tags=("lending",))
def submit_loan_application(ctx: ApiContext, db: dict, a: LoanArgs) -> Record:
    """Submit a loan application of a catalog product with the quoted amount, term, APR and
    origination or documentation fee."""
    row(db, "customers", a.customer_id, "customer")
    if a.product not in PRODUCTS[a.family]:
        raise invalid(f"no {a.family} product {a.product!r}", products=sorted(PRODUCTS[a.family]))
    apps = db.setdefault("loan_applications", {})
    lid = next_id(apps, "LAP", 100001)
    apps[lid] = {"id": lid, **a.model_dump(mode="json"), "submitted_on": ctx.today.isoformat(), "status": "submitted"}
    return apps[lid]


class LimitArgs(Args):
    account_id: str
    new_limit: Money = Field(gt=0)


@CATALOG.write("/accounts/{account_id}/credit-limit", resource="account_id", tags=("cards",))
def request_credit_limit_change(ctx: ApiContext, db: dict, a: LimitArgs) -> Record:
    """Record a customer's request to raise or lower a card's credit limit."""
    acct = _open_account(db, a.account_id)
    if acct["family"] != "credit_card":
        raise invalid("not a credit card account")
    reqs = db.setdefault("limit_requests", {})
    rid = next_id(reqs, "CLR", 1)
    reqs[rid] = {"id": rid, "account_id": acct["id"], "old_limit": acct["credit_limit"], "new_limit": a.new_limit,
                 "requested_on": ctx.today.isoformat()}
    return reqs[rid]


class AuthUserArgs(Args):
    account_id: str
    name: str = Field(min_length=1)
    date_of_birth: dt.date
    annual_fee: Money


@CATALOG.write("/accounts/{account_id}/authorized-users", resource="account_id", tags=("cards",))
def add_authorized_user(ctx: ApiContext, db: dict, a: AuthUserArgs) -> Account:
    """Add an authorized user to a credit card account, with the given yearly fee."""
    acct = _open_account(db, a.account_id)
    if acct["family"] != "credit_card":
        raise invalid("not a credit card account")
    acct.setdefault("authorized_users", []).append({"name": a.name, "date_of_birth": a.date_of_birth.isoformat(),
                                                    "added_on": ctx.today.isoformat(), "annual_fee": a.annual_fee})
    return acct


class StopArgs(Args):
    account_id: str
    check_number: str = Field(min_length=1)
    amount: Money
    fee: Money


@CATALOG.write("/accounts/{account_id}/stop-payments", resource="account_id", tags=("accounts",))
def stop_payment(ctx: ApiContext, db: dict, a: StopArgs) -> Record:
    """Place a stop payment on a check, charging the given fee; it lasts 6 months."""
    acct = _open_account(db, a.account_id)
    stops = db.setdefault("stop_payments", {})
    sid = next_id(stops, "STP", 1)
    fee_txn = _post(ctx, db, acct, "stop_payment_fee", -a.fee, "Stop payment fee", "internal")["id"] if a.fee else None
    stops[sid] = {"id": sid, "account_id": acct["id"], "check_number": a.check_number, "amount": a.amount,
                  "fee": a.fee, "fee_txn_id": fee_txn, "placed_on": ctx.today.isoformat(),
                  "expires_on": add_months(ctx.today, 6).isoformat()}
    return stops[sid]


class HandoffArgs(Args):
    customer_id: str
    desk: Desk
    summary: str = Field(min_length=1)


@CATALOG.write("/handoffs", resource="customer_id", tags=("customers",))
def transfer_to_human(ctx: ApiContext, db: dict, a: HandoffArgs) -> Record:
    """Refer the customer to another desk: a banker, the branch manager, legal services, the
    fraud team, the hardship team or the Customer Advocacy Office."""
    row(db, "customers", a.customer_id, "customer")
    return record_handoff(ctx, db, dated=True, customer_id=a.customer_id, desk=a.desk)
