"""The Juniper Row store API: customers, catalogue, orders, cancellations, changes to
pending orders, returns, exchanges, price adjustments, new orders and hand-offs.

Policy quantities are arguments: shipping and oversized charges, price and shipping
differences, restocking and label fees, refund amounts and where they go, Row Credit
bonuses, price adjustment amounts, replacement shipping charges. Nothing here refuses what
the policy forbids (a third return, an item swapped for another product, a cancelled
processed order). The system keeps the books: ids, timestamps (the world clock), status
history, loyalty points (by the published points rate of the customer's tier), gift card
and Row Credit balances, refunds pending with the processor, Row Credit expiry.
"""
from __future__ import annotations

import datetime as dt
import math
from typing import Any, Literal, Optional

from pydantic import Field

from domains import records
from domains.apikit import (ApiContext, Args, Catalog, Money, Result, SignedMoney, conflict, invalid, next_id,
                            not_found, projection, row)
from domains.payments import Ledger, MethodAmount, Payment
from domains.records import CustomerArgs, EmailArgs, find_by_email, record_handoff
from domains.seedkit import add_months, cents

from . import model
from .rules import price_on

CATALOG = Catalog("retail", title="Juniper Row Orders API",
                  description="Customers, products, orders, returns, exchanges and refunds of Juniper Row Home & "
                              "Outdoor.")

Desk = Literal["human_teammate", "product_care"]
CancelReason = Literal["no longer needed", "ordered by mistake", "found a better price", "delivery is too slow"]
ReturnReason = Literal["no longer needed", "changed my mind", "did not fit the space", "not as pictured",
                       "arrived damaged", "defective"]  # rules.RETURN_REASONS: a category, never the customer's words


# ------------------------------------------------------------------------------ results

Address = projection(records.Address, line2=(str, ""), country=(str, "US"))
Loyalty = projection(model.Loyalty, "program tier spend_last_12_months points_balance")
PaymentMethod = projection(model.PaymentMethod, "id type brand last_four email balance expires_on",
                           expires_on=Optional[dt.date])
Customer = projection(model.Customer, birthday=dt.date, default_address=Address, loyalty=Loyalty,
                      payment_methods=list[PaymentMethod])
CustomerRef = projection(model.Customer, "customer_id name", title="CustomerRef")
Line = projection(model.Line, "item_id product_id name category options price final_sale")
Fulfillment = projection(model.Fulfillment, shipped_at=dt.datetime, delivered_at=Optional[dt.datetime])
ReturnRequest = projection(model.Return, "return_id requested_at line_indexes reason condition refund_to "
                                         "restocking_fee label_fee refund_amount bonus status",
                           title="ReturnRequest", requested_at=dt.datetime, condition=str, refund_to=str, status=str)
Order = projection(model.Order, "order_id customer_id placed_at status shipping_method shipping_address items "
                                "subtotal shipping_fee oversized_fee total points_earned fulfillment modifications "
                                "returns exchanges price_adjustments payment_history",
                   placed_at=dt.datetime, status=str, shipping_method=str, shipping_address=Address, items=list[Line],
                   fulfillment=Optional[Fulfillment], modifications=list[dict[str, Any]],
                   returns=list[ReturnRequest], exchanges=list[dict[str, Any]],
                   price_adjustments=list[dict[str, Any]], payment_history=list[Payment])


class OrderSummary(Result):
    order_id: str
    placed_at: dt.datetime
    status: str
    total: float
    item_names: list[str]


class OrderList(Result):
    orders: list[OrderSummary]


Variant = projection(model.Variant, "item_id options price available")
Product = projection(model.Product, "product_id name category final_sale variants", variants=list[Variant])


class ProductList(Result):
    products: list[Product]


Handoff = projection(model.Handoff, desk=str, at=dt.datetime)


# ------------------------------------------------------------------------------ helpers

LEDGER = Ledger("orders", "order_id", "customer_id", cents, prefix="TX", start=200001,
                balances=("gift_card", "store_credit"))


def _variants(db: dict) -> dict[str, dict]:
    return {iid: var for p in db["products"].values() for iid, var in p["variants"].items()}


def _variant(db: dict, iid: str) -> dict:
    var = _variants(db).get(iid)
    if var is None:
        raise not_found("item", iid)
    return var


def _order_line(db: dict, oid: str, index: int) -> tuple[dict, dict, dict]:
    """An order, its line `index` and its customer; a line the order lacks is not found."""
    o = row(db, "orders", oid, "order")
    if index >= len(o["items"]):
        raise not_found("order line", index, order_id=oid)
    return o, o["items"][index], db["customers"][o["customer_id"]]


def _product_view(p: dict) -> dict:
    return {**p, "variants": [p["variants"][k] for k in sorted(p["variants"])]}


def _line(db: dict, var: dict, when: dt.date) -> dict:
    p = db["products"][var["product_id"]]
    return {"item_id": var["item_id"], "product_id": p["product_id"], "name": p["name"], "category": p["category"],
            "category_key": p["category_key"], "options": var["options"], "price": price_on(var, when),
            "final_sale": p["final_sale"]}


def _refund(ctx: ApiContext, db: dict, c: dict, o: dict, mid: str, amount: float, purpose: str) -> dict:
    """Record a refund, pending with the processor or the balance's ledger."""
    pm = c["payment_methods"][mid]
    e = {**LEDGER.entry(ctx, db, pm, mid, "refund", amount, purpose), "posted_at": None, "status": "pending"}
    o["payment_history"].append(e)
    return e


def _settle(ctx, db, c, o, amount: float, purpose: str, method_id: Optional[str], refunds: list[MethodAmount]) -> None:
    """Charge a positive `amount` to `method_id`, or pay out a negative one as `refunds`."""
    if amount > 0:
        LEDGER.charge(ctx, db, c, o, method_id, amount, purpose)
    for r in refunds:
        if r.amount > 0:
            _refund(ctx, db, c, o, r.method_id, r.amount, purpose)


def _validate_settlement(c: dict, o: dict, amount: float, method_id: Optional[str], refunds: list[MethodAmount]) -> None:
    LEDGER.payer(c, method_id, amount)
    LEDGER.check_refunds(o, refunds)
    if amount < 0 and abs(sum(r.amount for r in refunds) + amount) > 0.005:
        raise invalid(f"refunds must add up to {cents(-amount)}")


def _set_status(ctx: ApiContext, o: dict, status: str) -> None:
    o["status"] = status
    o["status_history"].append({"status": status, "at": ctx.ts()})


def _tier_key(ctx: ApiContext, c: dict) -> str:
    prod = ctx.pack.brand.products
    names = {prod.get("base tier", "Sprout"): "sprout", prod.get("middle tier", "Grove"): "grove",
             prod.get("top tier", "Canopy"): "canopy"}
    return names.get(c["loyalty"]["tier"], "sprout")


# ------------------------------------------------------------------------------ reads

class NameZipArgs(Args):
    name: str
    zip: str


class OrderArgs(Args):
    order_id: str


class ProductArgs(Args):
    product_id: str


class ProductsArgs(Args):
    category: Optional[str] = None


@CATALOG.read("/customers/{customer_id}", resource="customer_id", tags=("customers",))
def get_customer(ctx: ApiContext, db: dict, a: CustomerArgs) -> Customer:
    """Look up a customer: contact details, default address, Row Rewards, saved payment methods, orders."""
    return LEDGER.owner_view(row(db, "customers", a.customer_id, "customer"))


@CATALOG.read("/customers/by-email", tags=("customers",))
def find_customer_by_email(ctx: ApiContext, db: dict, a: EmailArgs) -> CustomerRef:
    """Find the customer with this email address."""
    cid, c = find_by_email(db, "customers", a.email, "customer")
    return {"customer_id": cid, "name": c["name"]}


@CATALOG.read("/customers/by-name", tags=("customers",))
def find_customer_by_name_zip(ctx: ApiContext, db: dict, a: NameZipArgs) -> CustomerRef:
    """Find the customer with this full name and default-address zip code."""
    for cid, c in sorted(db["customers"].items()):
        if c["name"].casefold() == a.name.strip().casefold() and c["default_address"]["zip"] == a.zip.strip():
            return {"customer_id": cid, "name": c["name"]}
    raise not_found("customer with name and zip", f"{a.name} {a.zip}")


@CATALOG.read("/customers/{customer_id}/orders", resource="customer_id", collection="orders", tags=("orders",))
def list_customer_orders(ctx: ApiContext, db: dict, a: CustomerArgs) -> OrderList:
    """The customer's orders, oldest first."""
    c = row(db, "customers", a.customer_id, "customer")
    return {"orders": [{**db["orders"][oid], "item_names": [it["name"] for it in db["orders"][oid]["items"]]}
                       for oid in c["orders"]]}


@CATALOG.read("/orders/{order_id}", resource="order_id", tags=("orders",))
def get_order(ctx: ApiContext, db: dict, a: OrderArgs) -> Order:
    """Look up an order: items, status, fulfillment, changes, returns, exchanges, payments."""
    return row(db, "orders", a.order_id, "order")


@CATALOG.read("/products/{product_id}", resource="product_id", tags=("catalogue",))
def get_product(ctx: ApiContext, db: dict, a: ProductArgs) -> Product:
    """A product with its variants, current prices and availability."""
    p = row(db, "products", a.product_id, "product")
    return _product_view(p)


@CATALOG.read("/products", collection="products", tags=("catalogue",))
def list_products(ctx: ApiContext, db: dict, a: ProductsArgs) -> ProductList:
    """The catalogue, optionally one category (by its name)."""
    return {"products": [_product_view(p) for _, p in sorted(db["products"].items())
                         if a.category is None or p["category"].casefold() == a.category.casefold()]}


# ------------------------------------------------------------------------------ writes

class PlaceOrderArgs(Args):
    customer_id: str
    item_ids: list[str] = Field(min_length=1)
    shipping_method: Literal["standard", "express"]
    shipping_fee: Money
    oversized_fee: Money
    payments: list[MethodAmount] = Field(min_length=1)


@CATALOG.write("/orders", resource="customer_id", tags=("orders",))
def place_order(ctx: ApiContext, db: dict, a: PlaceOrderArgs) -> Order:
    """Place an order of catalogue items at today's prices to the customer's default address,
    with the given shipping and oversized charges; the payments must add up to the total."""
    c = row(db, "customers", a.customer_id, "customer")
    items = []
    for iid in a.item_ids:
        var = _variant(db, iid)
        if not var["available"]:
            raise conflict(f"item {iid} is not available", item_id=iid)
        items.append(_line(db, var, ctx.today))
    for p in a.payments:
        LEDGER.method(c, p.method_id)
    subtotal = cents(sum(it["price"] for it in items))
    total = cents(subtotal + a.shipping_fee + a.oversized_fee)
    if abs(cents(sum(p.amount for p in a.payments)) - total) > 0.005:
        raise invalid(f"payments must add up to the total {total}", subtotal=subtotal, total=total)
    oid = next_id(db["orders"], ctx.prefix("order", "#JR"), 9000001)
    rate = ctx.values[f"points_per_dollar_{_tier_key(ctx, c)}"]
    o = {"order_id": oid, "customer_id": c["customer_id"], "placed_at": ctx.ts(), "status": "pending",
         "shipping_method": a.shipping_method, "shipping_address": dict(c["default_address"]), "items": items,
         "subtotal": subtotal, "shipping_fee": cents(a.shipping_fee), "oversized_fee": cents(a.oversized_fee),
         "total": total, "points_earned": int(math.floor(subtotal)) * int(rate),
         "status_history": [{"status": "pending", "at": ctx.ts()}], "fulfillment": None, "modifications": [],
         "cancellation": None, "returns": [], "exchanges": [], "price_adjustments": [], "payment_history": []}
    db["orders"][oid] = o
    for p in a.payments:
        LEDGER.charge(ctx, db, c, o, p.method_id, p.amount, "order")
    c["orders"].append(oid)
    c["loyalty"]["points_balance"] += o["points_earned"]
    return o


class CancelArgs(Args):
    order_id: str
    reason: CancelReason
    refunds: list[MethodAmount] = Field(default_factory=list)


@CATALOG.write("/orders/{order_id}/cancel", resource="order_id", tags=("orders",))
def cancel_order(ctx: ApiContext, db: dict, a: CancelArgs) -> Order:
    """Cancel a whole order, refunding the given amounts to the given payment methods; the
    order's loyalty points are taken back."""
    o = row(db, "orders", a.order_id, "order")
    if o["status"] == "cancelled":
        raise conflict("the order is already cancelled")
    LEDGER.check_refunds(o, a.refunds)
    c = db["customers"][o["customer_id"]]
    o["cancellation"] = {"at": ctx.ts(), "reason": a.reason, "refund_amount": cents(sum(r.amount for r in a.refunds))}
    for r in a.refunds:
        if r.amount > 0:
            _refund(ctx, db, c, o, r.method_id, r.amount, "cancellation")
    c["loyalty"]["points_balance"] -= o["points_earned"]
    o["points_earned"] = 0
    _set_status(ctx, o, "cancelled")
    return o


class AddressArgs(Args):
    order_id: str
    line1: str = Field(min_length=1)
    line2: str = ""
    city: str = Field(min_length=1)
    state: str = Field(min_length=2, max_length=2)
    zip: str = Field(pattern=r"^\d{5}$")


@CATALOG.write("/orders/{order_id}/address", resource="order_id", tags=("orders",))
def modify_shipping_address(ctx: ApiContext, db: dict, a: AddressArgs) -> Order:
    """Change an order's shipping address."""
    o = row(db, "orders", a.order_id, "order")
    new = {"line1": a.line1, "line2": a.line2, "city": a.city, "state": a.state.upper(), "zip": a.zip, "country": "US"}
    o["modifications"].append({"type": "address_change", "at": ctx.ts(), "old_address": o["shipping_address"],
                               "new_address": new})
    o["shipping_address"] = new
    return o


class ItemChangeArgs(Args):
    order_id: str
    line_index: int = Field(ge=0)
    new_item_id: str
    price_difference: SignedMoney
    shipping_difference: SignedMoney
    payment_method_id: Optional[str] = None
    refunds: list[MethodAmount] = Field(default_factory=list)


@CATALOG.write("/orders/{order_id}/items", resource="order_id", tags=("orders",))
def modify_order_item(ctx: ApiContext, db: dict, a: ItemChangeArgs) -> Order:
    """Swap one line of an order for another catalogue item at its price on the order date;
    the given price and shipping differences are charged to `payment_method_id` or refunded
    as `refunds`."""
    o, old, c = _order_line(db, a.order_id, a.line_index)
    var = _variant(db, a.new_item_id)
    amount = cents(a.price_difference + a.shipping_difference)
    _validate_settlement(c, o, amount, a.payment_method_id, a.refunds)
    new = _line(db, var, dt.datetime.fromisoformat(o["placed_at"]).date())
    o["items"][a.line_index] = new
    old_sub = o["subtotal"]
    o["subtotal"] = cents(sum(it["price"] for it in o["items"]))
    o["shipping_fee"] = cents(o["shipping_fee"] + a.shipping_difference)
    o["total"] = cents(o["total"] + amount)
    o["points_earned"] = int(math.floor(o["subtotal"])) * int(ctx.values[f"points_per_dollar_{_tier_key(ctx, c)}"])
    c["loyalty"]["points_balance"] += o["points_earned"] - int(math.floor(old_sub)) * int(
        ctx.values[f"points_per_dollar_{_tier_key(ctx, c)}"])
    o["modifications"].append({"type": "item_change", "at": ctx.ts(), "line_index": a.line_index,
                               "old_item_id": old["item_id"], "new_item_id": new["item_id"],
                               "price_difference": cents(a.price_difference),
                               "shipping_difference": cents(a.shipping_difference), "old_subtotal": old_sub})
    _settle(ctx, db, c, o, amount, "item_change", a.payment_method_id, a.refunds)
    return o


class PaymentChangeArgs(Args):
    order_id: str
    new_method_id: str


@CATALOG.write("/orders/{order_id}/payment", resource="order_id", tags=("orders",))
def change_payment_method(ctx: ApiContext, db: dict, a: PaymentChangeArgs) -> Order:
    """Move an order paid with one method to another saved method: the new method is charged
    the order total and the old one refunded in full."""
    o = row(db, "orders", a.order_id, "order")
    c = db["customers"][o["customer_id"]]
    pm = LEDGER.method(c, a.new_method_id)
    net = {k: v for k, v in LEDGER.net(o).items() if v > 0}
    if len(net) != 1:
        raise conflict("the order is paid with more than one method", methods=sorted(net))
    (old, amount), = net.items()
    if old == a.new_method_id:
        raise invalid("the order is already paid with this method")
    if pm["type"] in ("gift_card", "store_credit") and pm["balance"] + 0.005 < amount:
        raise conflict(f"{a.new_method_id} holds {pm['balance']}, the order needs {amount}")
    o["modifications"].append({"type": "payment_change", "at": ctx.ts(), "old_method_id": old,
                               "new_method_id": a.new_method_id})
    LEDGER.charge(ctx, db, c, o, a.new_method_id, amount, "payment_change")
    _refund(ctx, db, c, o, old, amount, "payment_change")
    return o


class ReturnArgs(Args):
    order_id: str
    line_indexes: list[int] = Field(min_length=1)
    reason: ReturnReason
    condition: Literal["unused", "damaged", "defective"]
    refund_to: Literal["original", "row_credit"]
    restocking_fee: Money
    label_fee: Money
    refund_amount: Money
    bonus: Money = 0


@CATALOG.write("/orders/{order_id}/returns", resource="order_id", tags=("returns",))
def request_return(ctx: ApiContext, db: dict, a: ReturnArgs) -> ReturnRequest:
    """Open a return request for lines of a delivered order and email the prepaid label. The
    fees, the refund and the Row Credit bonus are recorded as given; the refund is issued
    after the items arrive and are inspected. `reason` is one of the return reasons (a
    category the customer's answer falls in, never their own words)."""
    o = row(db, "orders", a.order_id, "order")
    for i in a.line_indexes:
        if not 0 <= i < len(o["items"]):
            raise not_found("order line", i, order_id=a.order_id)
    if len(set(a.line_indexes)) != len(a.line_indexes):
        raise invalid("a line appears twice")
    rid = next_id([r["return_id"] for x in db["orders"].values() for r in x["returns"]],
                  ctx.prefix("return", "RT"), 5001)
    r = {"return_id": rid, "requested_at": ctx.ts(), "line_indexes": sorted(a.line_indexes),
         "item_ids": [o["items"][i]["item_id"] for i in sorted(a.line_indexes)], "reason": a.reason,
         "condition": a.condition, "refund_to": a.refund_to, "restocking_fee": cents(a.restocking_fee),
         "label_fee": cents(a.label_fee), "refund_amount": cents(a.refund_amount), "bonus": cents(a.bonus),
         "status": "label_sent", "received_at": None, "refunded_at": None, "approved_by": None}
    o["returns"].append(r)
    return r


class ExchangeArgs(Args):
    order_id: str
    line_index: int = Field(ge=0)
    new_item_id: str
    price_difference: SignedMoney
    replacement_shipping_fee: Money
    payment_method_id: Optional[str] = None
    refunds: list[MethodAmount] = Field(default_factory=list)


@CATALOG.write("/orders/{order_id}/exchanges", resource="order_id", tags=("returns",))
def exchange_item(ctx: ApiContext, db: dict, a: ExchangeArgs) -> Order:
    """Exchange a delivered line for another catalogue item (at today's price), settling the
    given price difference and replacement shipping charge."""
    o, it, c = _order_line(db, a.order_id, a.line_index)
    var = _variant(db, a.new_item_id)
    amount = cents(a.price_difference + a.replacement_shipping_fee)
    _validate_settlement(c, o, amount, a.payment_method_id, a.refunds)
    o["exchanges"].append({"line_index": a.line_index, "at": ctx.ts(), "old_item_id": it["item_id"],
                           "new_item_id": var["item_id"], "new_price": price_on(var, ctx.today),
                           "price_difference": cents(a.price_difference), "replacement_shipping": "standard",
                           "replacement_shipping_fee": cents(a.replacement_shipping_fee)})
    _settle(ctx, db, c, o, amount, "exchange", a.payment_method_id, a.refunds)
    return o


class PriceAdjustArgs(Args):
    order_id: str
    line_index: int = Field(ge=0)
    amount: Money = Field(gt=0)


@CATALOG.write("/orders/{order_id}/price-adjustments", resource="order_id", tags=("refunds",))
def issue_price_adjustment(ctx: ApiContext, db: dict, a: PriceAdjustArgs) -> Order:
    """Pay back a price drop on one line as Row Credit of the given amount."""
    o, it, c = _order_line(db, a.order_id, a.line_index)
    var = _variant(db, it["item_id"])
    k = next_id([m for x in db["customers"].values() for m in x["payment_methods"]], ctx.prefix("store_credit", "RC"),
                9000001)
    c["payment_methods"][k] = {"id": k, "type": "store_credit", "amount": cents(a.amount), "balance": cents(a.amount),
                               "issued_at": ctx.ts(),
                               "expires_on": add_months(ctx.today, int(ctx.values["row_credit_months"])).isoformat(),
                               "origin": {"kind": "price_adjustment", "order_id": o["order_id"]}}
    o["price_adjustments"].append({"line_index": a.line_index, "item_id": it["item_id"], "at": ctx.ts(),
                                   "paid_price": it["price"], "new_price": price_on(var, ctx.today),
                                   "amount": cents(a.amount), "store_credit_id": k})
    e = _refund(ctx, db, c, o, k, a.amount, "price_adjustment")
    e.update(status="posted", posted_at=ctx.ts())
    return o


class TransferArgs(Args):
    customer_id: str
    desk: Desk
    order_id: Optional[str] = None
    summary: str = Field(min_length=1)


@CATALOG.write("/handoffs", resource="customer_id", tags=("customers",))
def transfer_to_human(ctx: ApiContext, db: dict, a: TransferArgs) -> Handoff:
    """Hand the customer to a human teammate or to the Product Care team. The summary goes to
    the colleague; the record keeps who, which desk and when."""
    row(db, "customers", a.customer_id, "customer")
    if a.order_id is not None:
        row(db, "orders", a.order_id, "order")
    return record_handoff(ctx, db, customer_id=a.customer_id, desk=a.desk, order_id=a.order_id)
