"""The banking database, typed: what the seed writes and the API may add (accounts and
certificates opened, fee refunds, card replacements, loan applications, credit limit
requests, authorized users, stop payments, hand-offs). Product, card kind, transfer type
and dispute type names are display names (a variant renames them); their `*_code` fields
name the catalog row."""
from __future__ import annotations

import datetime as dt
from typing import Literal, Optional

from domains.contract import Row
from domains.records import Handoff

Family = Literal["checking", "savings", "cd", "credit_card"]


class Customer(Row):
    id: str
    name: str
    date_of_birth: dt.date
    email: str
    phone: str
    state: str
    credit_score: int
    customer_since: Optional[dt.date]
    premier_client: bool


class AuthorizedUser(Row):
    name: str
    date_of_birth: dt.date
    added_on: dt.date
    annual_fee: float


class Account(Row):
    """An account of any family; the fields after `balance` belong to some families only."""
    id: str
    customer_id: str
    family: Family
    product: str
    product_code: str
    opened_on: dt.date
    status: str
    opening_balance: float
    balance: float
    initial_deposit: Optional[float] = None         # opened inside the ledger window
    overdraft_opt_in: Optional[bool] = None         # checking
    credit_limit: Optional[float] = None            # credit card
    autopay: Optional[str] = None                   # credit card
    authorized_users: list[AuthorizedUser] = []     # credit card
    principal: Optional[float] = None               # certificate
    term_months: Optional[int] = None
    relationship_apy: Optional[bool] = None
    apy: Optional[float] = None
    maturity_date: Optional[dt.date] = None
    maturity_instruction: Optional[Literal["renew", "transfer_to_checking", "mail_check"]] = None


class Card(Row):
    id: str
    account_id: str
    customer_id: str
    kind: str
    kind_code: str
    last4: str
    issued_on: dt.date
    expires: str
    status: Literal["active", "issued", "blocked", "closed"]
    activated_on: Optional[dt.date]


class Transaction(Row):
    id: str
    account_id: str
    date: dt.date
    seq: int
    kind: str
    amount: float
    description: str
    status: Literal["posted", "declined"]
    balance_after: Optional[float]
    channel: Optional[str] = None
    atm_network: Optional[Literal["in", "out"]] = None
    surcharge: Optional[float] = None
    foreign: Optional[bool] = None
    related_id: Optional[str] = None
    # a fee refund
    refund_of: Optional[str] = None
    reason: Optional[str] = None
    approved_by: Optional[str] = None


class Statement(Row):
    """A monthly statement: deposit accounts carry the fee and interest fields, credit cards
    the minimum payment and due date."""
    id: str
    account_id: str
    period_start: dt.date
    period_end: dt.date
    opening_balance: float
    closing_balance: float
    interest: float
    min_daily_balance: Optional[float] = None
    monthly_fee: Optional[float] = None
    atm_rebate: Optional[float] = None
    withdrawals_counted: Optional[int] = None
    overdraft_fees: Optional[int] = None
    fees: Optional[float] = None
    minimum_payment: Optional[float] = None
    due_date: Optional[dt.date] = None


class Transfer(Row):
    id: str
    customer_id: str
    type: str
    type_code: str
    from_account_id: str
    to_account_id: Optional[str]
    payee: Optional[str]
    amount: float
    fee: float
    date: dt.date
    status: str
    premier_pricing: bool
    debit_txn_id: Optional[str]
    credit_txn_id: Optional[str]
    fee_txn_id: Optional[str]
    callback_verified: bool


class CardReplacement(Row):
    id: str
    card_id: str
    new_card_id: str
    account_id: str
    reason: str
    ordered_on: dt.date
    delivery: Literal["standard", "expedited"]
    due_by: dt.date
    delivered_on: Optional[dt.date]
    expedited_fee: float
    replacement_fee: float
    fee_txn_id: Optional[str]
    premier_client: bool


class Dispute(Row):
    id: str
    customer_id: str
    account_id: str
    transaction_id: str
    type: str
    type_code: str
    amount: float
    transaction_date: dt.date
    statement_date: dt.date
    reported_on: dt.date
    documents_due_by: dt.date
    provisional_credit_due_by: dt.date
    provisional_credit_on: Optional[dt.date]
    provisional_txn_id: Optional[str]
    status: Literal["investigating", "resolved"]
    outcome: Optional[Literal["in_favor", "denied"]]
    resolved_on: Optional[dt.date]
    reversal_on: Optional[dt.date]
    reversal_txn_id: Optional[str]
    investigation_due_by: dt.date


class LoanApplication(Row):
    id: str
    customer_id: str
    family: Literal["personal_loan", "auto_loan", "home_loan"]
    product: str
    amount: float
    term_months: int
    apr: float
    fee: float
    submitted_on: dt.date
    status: str


class LimitRequest(Row):
    id: str
    account_id: str
    old_limit: float
    new_limit: float
    requested_on: dt.date


class StopPayment(Row):
    id: str
    account_id: str
    check_number: str
    amount: float
    fee: float
    fee_txn_id: Optional[str]
    placed_on: dt.date
    expires_on: dt.date


class Database(Row):
    customers: dict[str, Customer]
    accounts: dict[str, Account]
    cards: dict[str, Card]
    transactions: dict[str, Transaction]
    statements: dict[str, Statement]
    transfers: dict[str, Transfer]
    card_replacements: dict[str, CardReplacement]
    disputes: dict[str, Dispute]
    loan_applications: dict[str, LoanApplication] = {}
    limit_requests: dict[str, LimitRequest] = {}
    stop_payments: dict[str, StopPayment] = {}
    handoffs: dict[str, Handoff] = {}
