"""The retail database, typed: what the seed writes and the API may add. Tables are dicts keyed
by id; timestamps and dates are ISO strings; amounts are dollars."""
from __future__ import annotations

from typing import Literal, Optional

from domains.contract import Row
from domains.payments import LedgerEntry
from domains.records import Address

OrderStatus = Literal["pending", "processed", "shipped", "delivered", "cancelled"]
MethodType = Literal["card", "paypal", "gift_card", "store_credit"]


class Loyalty(Row):
    program: str
    tier: str
    spend_last_12_months: float
    points_before_period: int
    points_balance: int


class CreditOrigin(Row):
    """Why Row Credit was issued: a birthday, a return, a price adjustment."""
    kind: Literal["birthday", "return", "price_adjustment"]
    order_id: Optional[str] = None
    return_id: Optional[str] = None


class PaymentMethod(Row):
    id: str
    type: MethodType
    brand: Optional[str] = None          # card
    last_four: Optional[str] = None      # card
    email: Optional[str] = None          # paypal
    loaded_amount: Optional[float] = None  # gift card
    balance: Optional[float] = None      # gift card, Row Credit
    amount: Optional[float] = None       # Row Credit: as issued
    issued_at: Optional[str] = None
    expires_on: Optional[str] = None
    origin: Optional[CreditOrigin] = None


class Customer(Row):
    customer_id: str
    name: str
    email: str
    phone: str
    birthday: str
    default_address: Address
    loyalty: Loyalty
    payment_methods: dict[str, PaymentMethod]
    orders: list[str]


class PricePoint(Row):
    effective: str
    price: float


class Variant(Row):
    item_id: str
    product_id: str
    options: dict[str, str]
    price: float
    available: bool
    price_history: list[PricePoint]


class Product(Row):
    product_id: str
    name: str
    category: str
    category_key: str
    final_sale: bool
    variants: dict[str, Variant]


class Line(Row):
    item_id: str
    product_id: str
    name: str
    category: str
    category_key: str
    options: dict[str, str]
    price: float
    final_sale: bool


class StatusChange(Row):
    status: OrderStatus
    at: str


class Fulfillment(Row):
    carrier: str
    tracking_number: str
    shipped_at: str
    delivered_at: Optional[str] = None


class Modification(Row):
    """A change to a pending order: its items, its address or its payment method."""
    type: Literal["item_change", "address_change", "payment_change"]
    at: str
    old_address: Optional[Address] = None
    new_address: Optional[Address] = None
    line_index: Optional[int] = None
    old_item_id: Optional[str] = None
    new_item_id: Optional[str] = None
    price_difference: Optional[float] = None
    shipping_difference: Optional[float] = None
    old_subtotal: Optional[float] = None
    old_method_id: Optional[str] = None
    new_method_id: Optional[str] = None


class Cancellation(Row):
    at: str
    reason: str
    refund_amount: float


class Return(Row):
    return_id: str
    requested_at: str
    line_indexes: list[int]
    item_ids: list[str]
    reason: str
    condition: Literal["unused", "damaged", "defective"]
    refund_to: Literal["original", "row_credit"]
    restocking_fee: float
    label_fee: float
    refund_amount: float
    bonus: float
    status: Literal["label_sent", "received", "refunded"]
    received_at: Optional[str] = None
    refunded_at: Optional[str] = None
    approved_by: Optional[str] = None


class Exchange(Row):
    line_index: int
    at: str
    old_item_id: str
    new_item_id: str
    new_price: float
    price_difference: float
    replacement_shipping: str
    replacement_shipping_fee: float


class PriceAdjustment(Row):
    line_index: int
    item_id: str
    at: str
    paid_price: float
    new_price: float
    amount: float
    store_credit_id: str


class Payment(LedgerEntry):
    method_type: MethodType
    posted_at: Optional[str] = None
    bonus: Optional[float] = None
    return_id: Optional[str] = None


class Order(Row):
    order_id: str
    customer_id: str
    placed_at: str
    status: OrderStatus
    shipping_method: Literal["standard", "express"]
    shipping_address: Address
    items: list[Line]
    subtotal: float
    shipping_fee: float
    oversized_fee: float
    total: float
    points_earned: int
    status_history: list[StatusChange]
    fulfillment: Optional[Fulfillment] = None
    modifications: list[Modification]
    cancellation: Optional[Cancellation] = None
    returns: list[Return]
    exchanges: list[Exchange]
    price_adjustments: list[PriceAdjustment]
    payment_history: list[Payment]


class Handoff(Row):
    id: str
    customer_id: str
    desk: Literal["human_teammate", "product_care"]
    order_id: Optional[str] = None
    at: str


class Database(Row):
    customers: dict[str, Customer]
    orders: dict[str, Order]
    products: dict[str, Product]
    handoffs: dict[str, Handoff] = {}
