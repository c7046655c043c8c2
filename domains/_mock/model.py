"""The _mock database, typed: what the seed writes and the API may add."""
from __future__ import annotations

from typing import Literal, Optional

from domains.contract import Row


class Customer(Row):
    id: str
    name: str
    age: int
    pass_holder: bool


class Rental(Row):
    id: str
    customer_id: str
    bikes: int
    deposit: float
    late_hours: int
    late_fee: float
    status: Literal["returned", "active"] = "returned"
    started_at: Optional[str] = None
    waived: float = 0
    waiver_approved_by: Optional[str] = None


class Handoff(Row):
    id: str
    customer_id: str
    reason: str
    at: str


class Database(Row):
    customers: dict[str, Customer]
    rentals: dict[str, Rental]
    handoffs: dict[str, Handoff] = {}
