"""The retail policy as code: the values the seed database depends on (`VALUES`, each
linked to the policy sentence that states it, `VALUE_FACTS`; a variant may override any of
them) and the rules computed from them: loyalty tiers, shipping fees, return windows,
restocking and label fees, the price in effect on a day, where a refund goes. The seed, the
check, the API and the held-out tests all use these.
"""
from __future__ import annotations

import datetime as dt
from decimal import Decimal

from domains.seedkit import cents, merged_values

CATEGORIES = ("furniture", "grills", "camping", "kitchen", "bedding", "lighting", "garden", "decor")
CATEGORY_LABEL = {"furniture": "Furniture", "grills": "Grills and outdoor cooking", "camping": "Camping and hiking",
                   "kitchen": "Kitchen and dining", "bedding": "Bedding and bath",
                   "lighting": "Lighting and electronics", "garden": "Garden and patio tools", "decor": "Rugs and decor"}
_WINDOWS = {"furniture": 30, "grills": 30, "camping": 60, "kitchen": 45, "bedding": 30, "lighting": 30,
            "garden": 45, "decor": 30}
_RESTOCK = {"furniture": 15, "grills": 10, "camping": 0, "kitchen": 0, "bedding": 0, "lighting": 10,
            "garden": 5, "decor": 5}
_LABEL = {"furniture": 49, "grills": 24.99, "camping": 7.99, "kitchen": 7.99, "bedding": 5.99, "lighting": 9.99,
          "garden": 12.99, "decor": 14.99}

VALUES: dict[str, float | int] = {
    "pending_hours": 2,
    "ship_within_business_days": 2,
    "standard_shipping_fee": 6.95,
    "free_shipping_threshold": 75,
    "express_shipping_fee": 14.95,
    "oversized_fee": 39,
    "standard_delivery_min_business_days": 3,
    "standard_delivery_max_business_days": 7,
    "express_delivery_min_business_days": 1,
    "express_delivery_max_business_days": 2,
    "processed_cancel_hours": 12,
    "max_item_changes": 2,
    **{f"return_window_days_{c}": _WINDOWS[c] for c in CATEGORIES},
    **{f"restocking_pct_{c}": _RESTOCK[c] for c in CATEGORIES},
    **{f"label_fee_{c}": _LABEL[c] for c in CATEGORIES},
    "max_return_requests": 2,
    "canopy_extra_return_days": 30,
    "damage_report_days": 7,
    "supervisor_refund_above": 1000,
    "inspection_business_days": 3,
    "max_payment_methods": 3,
    "max_card_or_paypal": 1,
    "max_gift_cards": 2,
    "row_credit_months": 12,
    "gift_card_max_balance": 2000,
    "row_credit_bonus_pct": 5,
    "card_refund_min_business_days": 3,
    "card_refund_max_business_days": 5,
    "paypal_refund_business_days": 2,
    "gift_card_refund_hours": 24,
    "row_credit_refund_hours": 1,
    "price_adjust_days": 14,
    "price_adjust_days_canopy": 30,
    "price_adjust_min": 1,
    "tier_spend_grove": 500,
    "tier_spend_canopy": 1500,
    "points_per_dollar_sprout": 1,
    "points_per_dollar_grove": 2,
    "points_per_dollar_canopy": 3,
    "birthday_credit_grove": 10,
    "birthday_credit_canopy": 25,
}

_ROW = {c: f"| {CATEGORY_LABEL[c]} |" for c in CATEGORIES}  # a category's row of the returns table
VALUE_FACTS: dict[str, str] = {
    "pending_hours": "stays pending for …",
    "ship_within_business_days": "ships within …",
    "standard_shipping_fee": "Standard shipping costs …",
    "free_shipping_threshold": "subtotal of … or more",
    "express_shipping_fee": "Express shipping costs …",
    "oversized_fee": "oversized handling charge of …",
    "standard_delivery_min_business_days": "Standard delivery takes …",
    "standard_delivery_max_business_days": "Standard delivery takes …",
    "express_delivery_min_business_days": "Express delivery takes …",
    "express_delivery_max_business_days": "Express delivery takes …",
    "processed_cancel_hours": "placed less than … ago",
    "max_item_changes": "changed at most …",
    **{f"return_window_days_{c}": f"{_ROW[c]} …" for c in CATEGORIES},
    **{f"restocking_pct_{c}": f"{_ROW[c]} … | …" for c in CATEGORIES},
    **{f"label_fee_{c}": f"{_ROW[c]} … | … | …" for c in CATEGORIES},
    "max_return_requests": "at most … return requests",
    "canopy_extra_return_days": "an extra …",
    "damage_report_days": "must be reported within … of delivery",
    "supervisor_refund_above": "above …",
    "inspection_business_days": "within … of their arrival",
    "max_payment_methods": "at most … payment methods",
    "max_card_or_paypal": "at most … card or PayPal account",
    "max_gift_cards": "at most … gift cards",
    "row_credit_months": "expires …",
    "gift_card_max_balance": "hold a balance of at most …",
    "row_credit_bonus_pct": "… bonus",
    "card_refund_min_business_days": "show up within …",
    "card_refund_max_business_days": "show up within …",
    "paypal_refund_business_days": "land within …",
    "gift_card_refund_hours": "credited within …",
    "row_credit_refund_hours": "available within …",
    "price_adjust_days": "within … after the order",
    "price_adjust_days_canopy": "for … after the order",
    "price_adjust_min": "smaller than …",
    "tier_spend_grove": "Grove status needs at least …",
    "tier_spend_canopy": "Canopy status needs at least …",
    "points_per_dollar_sprout": "earn … point per dollar",
    "points_per_dollar_grove": "Grove members earn …",
    "points_per_dollar_canopy": "Canopy members earn …",
    "birthday_credit_grove": "Grove members get a … Row Credit birthday",
    "birthday_credit_canopy": "Canopy members get a … Row Credit birthday",
}

TIERS = ("sprout", "grove", "canopy")
CONTIGUOUS_STATES = frozenset(
    "AL AZ AR CA CO CT DE DC FL GA ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND OH OK OR PA "
    "RI SC SD TN TX UT VT VA WA WV WI WY".split())
TIER_PRODUCT = {"sprout": ("base tier", "Sprout"), "grove": ("middle tier", "Grove"), "canopy": ("top tier", "Canopy")}
CANCEL_REASONS = ("no longer needed", "ordered by mistake", "found a better price", "delivery is too slow")
ORDER_STATUSES = ("pending", "processed", "shipped", "delivered", "cancelled")

#: the reasons a customer gives for returning an item that is not faulty, and every reason
#: the return API takes (an enum)
PLAIN_RETURN_REASONS = ("no longer needed", "did not fit the space", "not as pictured", "changed my mind")
RETURN_REASONS = (*PLAIN_RETURN_REASONS, "arrived damaged", "defective")

#: pairs of values that must stay strictly increasing or in order, and values that must stay at least 1
INCREASING = (("tier_spend_grove", "tier_spend_canopy"),)
NOT_ABOVE = (("standard_delivery_min_business_days", "standard_delivery_max_business_days"),
             ("express_delivery_min_business_days", "express_delivery_max_business_days"),
             ("card_refund_min_business_days", "card_refund_max_business_days"))
AT_LEAST_ONE = ("max_payment_methods", "max_card_or_paypal", "pending_hours", "gift_card_refund_hours",
                "row_credit_refund_hours", "standard_delivery_min_business_days", "express_delivery_min_business_days",
                "card_refund_min_business_days", "paypal_refund_business_days")


def values_with(values: dict | None) -> dict[str, float | int]:
    """VALUES with `values` overriding; unknown keys are a user error."""
    return merged_values(VALUES, values, "retail", increasing=INCREASING, not_above=NOT_ABOVE,
                         at_least_one=AT_LEAST_ONE)


def tier_names(pack) -> tuple[dict[str, str], dict[str, str]]:
    """tier key -> display name, display name -> key."""
    prod = pack.brand.products
    t = {k: prod.get(g, d) for k, (g, d) in TIER_PRODUCT.items()}
    return t, {v: k for k, v in t.items()}


def tier_for_spend(v: dict, spend: float) -> str:
    return next((t for t in ("canopy", "grove") if spend >= v[f"tier_spend_{t}"]), "sprout")


def shipping_fee(v: dict, tier: str, method: str, subtotal: float) -> float:
    if method == "express":
        return v["express_shipping_fee"]
    if tier in ("grove", "canopy") or subtotal >= v["free_shipping_threshold"]:
        return 0.0
    return v["standard_shipping_fee"]


def return_window_days(v: dict, category: str, tier: str) -> int:
    return int(v[f"return_window_days_{category}"] + (v["canopy_extra_return_days"] if tier == "canopy" else 0))


def price_on(variant: dict, when: dt.date) -> float:
    """The variant's price in effect on a date (price history is sorted by date)."""
    p = variant["price_history"][0]["price"]
    for h in variant["price_history"]:
        if dt.date.fromisoformat(h["effective"]) <= when:
            p = h["price"]
    return p


def return_amounts(v: dict, items: list[dict], tier: str, defective: bool, to_credit: bool) -> dict[str, float]:
    """Restocking fees, label fee, refund and Row Credit bonus for one return request."""
    if defective:
        restock = 0.0
        label = 0.0
    else:
        restock = sum(cents(Decimal(str(it["price"])) * Decimal(str(v[f"restocking_pct_{it['category_key']}"])) / 100)
                      for it in items)
        label = 0.0 if tier == "canopy" else max(v[f"label_fee_{it['category_key']}"] for it in items)
    refund = cents(max(0.0, sum(it["price"] for it in items) - restock - label))
    bonus = cents(Decimal(str(refund)) * Decimal(str(v["row_credit_bonus_pct"])) / 100) if to_credit else 0.0
    return {"restocking_fee": cents(restock), "label_fee": cents(label), "refund_amount": refund, "bonus": bonus}


_REFUND_ORDER = {"card": 0, "paypal": 0, "gift_card": 1, "store_credit": 2}


def route_refund(amount: float, paid: list[tuple[str, str, float]]) -> list[tuple[str, str, float]]:
    """Split a refund over (method id, type, net amount paid): card or PayPal first, then gift
    cards, Row Credit last."""
    out, left = [], cents(amount)
    for mid, typ, net in sorted(paid, key=lambda p: _REFUND_ORDER[p[1]]):
        if left <= 0.004 or net <= 0.004:
            continue
        part = cents(min(net, left))
        out.append((mid, typ, part))
        left = cents(left - part)
    return out


def net_paid(order: dict) -> list[tuple[str, str, float]]:
    """Net amount per payment method (charges minus refunds), in first-charge order."""
    net: dict[str, list] = {}
    for p in order["payment_history"]:
        e = net.setdefault(p["method_id"], [p["method_type"], 0.0])
        e[1] = cents(e[1] + (p["amount"] if p["kind"] == "charge" else -p["amount"]))
    return [(k, t, a) for k, (t, a) in net.items()]


