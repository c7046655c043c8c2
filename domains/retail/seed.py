"""Seed database for the retail domain: customers, a product catalogue with variants and price
history, and orders with their whole life: status history, shipping, item swaps, address and
payment changes, cancellations, returns (restocking and label fees), exchanges, price
adjustments, Row Credit and the payment/refund ledger. Every amount follows `VALUES`;
`check` recomputes them from the records.
"""
from __future__ import annotations

import datetime as dt
import math
import random
import unicodedata
from decimal import Decimal
from typing import Any

from domains.contract import DomainCode, TestQuota
from domains.seedkit import add_business_days, business_days_between, cents, customer_names
from domains.seedkit import add_months as _add_months
from domains.seedkit import merged_values as _merged
from domains.seedkit import parse_ts as _parse
from facts.errors import FactforgeError

CATEGORIES = ("furniture", "grills", "camping", "kitchen", "bedding", "lighting", "garden", "decor")
_CATEGORY_LABEL = {"furniture": "Furniture", "grills": "Grills and outdoor cooking", "camping": "Camping and hiking",
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

_ROW = {c: f"| {_CATEGORY_LABEL[c]} | {_WINDOWS[c]} days" for c in CATEGORIES}
VALUE_FACTS: dict[str, str] = {
    "pending_hours": "stays pending for 2 hours",
    "ship_within_business_days": "ships within 2 business days",
    "standard_shipping_fee": "Standard shipping costs $6.95",
    "free_shipping_threshold": "subtotal of $75 or more",
    "express_shipping_fee": "Express shipping costs $14.95",
    "oversized_fee": "oversized handling charge of $39",
    "standard_delivery_min_business_days": "Standard delivery takes 3 to 7 business days",
    "standard_delivery_max_business_days": "Standard delivery takes 3 to 7 business days",
    "express_delivery_min_business_days": "Express delivery takes 1 to 2 business days",
    "express_delivery_max_business_days": "Express delivery takes 1 to 2 business days",
    "processed_cancel_hours": "placed less than 12 hours ago",
    "max_item_changes": "changed at most 2 times",
    **{f"return_window_days_{c}": _ROW[c] for c in CATEGORIES},
    **{f"restocking_pct_{c}": f"{_ROW[c]} | {_RESTOCK[c]}%" for c in CATEGORIES},
    **{f"label_fee_{c}": f"{_ROW[c]} | {_RESTOCK[c]}% | ${_LABEL[c]}" for c in CATEGORIES},
    "max_return_requests": "at most 2 return requests",
    "canopy_extra_return_days": "an extra 30 days",
    "damage_report_days": "reported within 7 days",
    "supervisor_refund_above": "above $1,000",
    "inspection_business_days": "within 3 business days of their arrival",
    "max_payment_methods": "at most 3 payment methods",
    "max_card_or_paypal": "at most 1 card or PayPal account",
    "max_gift_cards": "at most 2 gift cards",
    "row_credit_months": "expires 12 months",
    "gift_card_max_balance": "at most $2,000",
    "row_credit_bonus_pct": "5% bonus",
    "card_refund_min_business_days": "show up within 3 to 5 business days",
    "card_refund_max_business_days": "show up within 3 to 5 business days",
    "paypal_refund_business_days": "land within 2 business days",
    "gift_card_refund_hours": "credited within 24 hours",
    "row_credit_refund_hours": "available within 1 hour",
    "price_adjust_days": "within 14 days after the order",
    "price_adjust_days_canopy": "for 30 days after the order",
    "price_adjust_min": "smaller than $1",
    "tier_spend_grove": "at least $500 of spending",
    "tier_spend_canopy": "at least $1,500 of spending",
    "points_per_dollar_sprout": "earn 1 point per dollar",
    "points_per_dollar_grove": "earn 2 points per dollar",
    "points_per_dollar_canopy": "earn 3 points per dollar",
    "birthday_credit_grove": "$10 Row Credit birthday",
    "birthday_credit_canopy": "$25 Row Credit birthday",
}

TIERS = ("sprout", "grove", "canopy")
CONTIGUOUS_STATES = frozenset(
    "AL AZ AR CA CO CT DE DC FL GA ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND OH OK OR PA "
    "RI SC SD TN TX UT VT VA WA WV WI WY".split())
_TIER_PRODUCT = {"sprout": ("base tier", "Sprout"), "grove": ("middle tier", "Grove"), "canopy": ("top tier", "Canopy")}
CANCEL_REASONS = ("no longer needed", "ordered by mistake", "found a better price", "delivery is too slow")
ORDER_STATUSES = ("pending", "processed", "shipped", "delivered", "cancelled")

# (category, product name, base price, option axes)
CATALOG: list[tuple[str, str, float, dict[str, list[str]]]] = [
    ("furniture", "Hollis Teak Dining Table", 649.0, {"size": ["6-seat", "8-seat"], "finish": ["natural", "weathered gray"]}),
    ("furniture", "Marlow Sling Patio Chair", 129.0, {"color": ["sand", "slate", "sage"]}),
    ("furniture", "Brae Reclaimed Bookshelf", 289.0, {"height": ["60 in", "72 in"], "finish": ["oak", "walnut"]}),
    ("furniture", "Tamsin Storage Bench", 179.0, {"color": ["white", "charcoal", "driftwood"]}),
    ("grills", "Emberline Kettle Grill", 219.0, {"size": ["18 in", "22 in"], "color": ["black", "copper"]}),
    ("grills", "Sawtooth Pellet Smoker", 599.0, {"hopper": ["20 lb", "30 lb"]}),
    ("grills", "Forge Cast-Iron Griddle", 64.0, {"size": ["17 in", "22 in"]}),
    ("grills", "Cinder Grill Tool Set", 39.5, {"pieces": ["3-piece", "5-piece"]}),
    ("camping", "Ridgecrest 2-Person Tent", 189.0, {"color": ["moss", "ember"], "season": ["3-season", "4-season"]}),
    ("camping", "Alder Down Sleeping Bag", 159.0, {"rating": ["20F", "35F"], "length": ["regular", "long"]}),
    ("camping", "Switchback Daypack 24L", 84.0, {"color": ["black", "teal", "rust"]}),
    ("camping", "Lumen Trail Headlamp", 34.0, {"lumens": ["300", "600"]}),
    ("camping", "Tarn Insulated Bottle", 28.0, {"size": ["20 oz", "32 oz"], "color": ["stone", "lake", "pine"]}),
    ("kitchen", "Hearthstone Dutch Oven", 119.0, {"size": ["5.5 qt", "7 qt"], "color": ["cream", "cobalt", "rust"]}),
    ("kitchen", "Fennel Stoneware Dinner Set", 96.0, {"pieces": ["12-piece", "16-piece"], "glaze": ["speckled", "sea green"]}),
    ("kitchen", "Quarry Chef Knife", 72.0, {"blade": ["6 in", "8 in"]}),
    ("kitchen", "Birchwood Cutting Board", 42.0, {"size": ["medium", "large"]}),
    ("bedding", "Linden Linen Duvet Cover", 148.0, {"size": ["full/queen", "king"], "color": ["oat", "fog", "clay"]}),
    ("bedding", "Cloudrest Pillow Pair", 68.0, {"firmness": ["soft", "medium", "firm"]}),
    ("bedding", "Harbor Waffle Bath Towels", 54.0, {"set": ["2-piece", "4-piece"], "color": ["white", "navy"]}),
    ("lighting", "Glowmere Solar Path Lights", 59.0, {"pack": ["6-pack", "12-pack"]}),
    ("lighting", "Beacon Smart String Lights", 79.0, {"length": ["24 ft", "48 ft"]}),
    ("lighting", "Orrin Ceramic Table Lamp", 110.0, {"color": ["ivory", "moss", "terracotta"]}),
    ("lighting", "Pioneer Bluetooth Lantern", 49.0, {"color": ["black", "olive"]}),
    ("garden", "Thornbury Pruning Shears", 36.0, {"grip": ["standard", "small"]}),
    ("garden", "Greenbank Raised Garden Bed", 159.0, {"size": ["4x4 ft", "4x8 ft"], "material": ["cedar", "steel"]}),
    ("garden", "Meadowlark Hose Reel Cart", 119.0, {"length": ["150 ft", "250 ft"]}),
    ("garden", "Fieldstone Compost Bin", 89.0, {"capacity": ["80 gal", "120 gal"]}),
    ("decor", "Kestrel Jute Area Rug", 229.0, {"size": ["5x8 ft", "8x10 ft"], "color": ["natural", "charcoal"]}),
    ("decor", "Saltmarsh Throw Blanket", 64.0, {"color": ["heather", "rust", "seafoam"]}),
    ("decor", "Wren Hanging Planter", 32.0, {"size": ["small", "large"]}),
    ("decor", "Cove Outdoor Pillow", 38.0, {"color": ["navy stripe", "citron", "coral"]}),
]

_STREETS = ["Larch Hollow Rd", "Pebble Creek Dr", "Foxglove Ln", "Old Quarry Rd", "Summit Ave", "Birch Lane",
            "Heron Point Way", "Cobblestone Ct", "Orchard Hill Rd", "Sycamore St", "Tidewater Blvd", "Pine Bluff Dr"]
_CITIES = [("Portland", "OR"), ("Asheville", "NC"), ("Burlington", "VT"), ("Boulder", "CO"), ("Madison", "WI"),
           ("Austin", "TX"), ("Sacramento", "CA"), ("Savannah", "GA"), ("Ann Arbor", "MI"), ("Bend", "OR"),
           ("Providence", "RI"), ("Tucson", "AZ"), ("Duluth", "MN"), ("Richmond", "VA"), ("Boise", "ID")]
_CARRIERS = ["UPS", "FedEx", "USPS"]
_MAIL = ["mailbox.example", "inbox.example", "postbox.example"]
_RETURN_REASONS = ("no longer needed", "did not fit the space", "not as pictured", "changed my mind")
RETURN_REASONS = (*_RETURN_REASONS, "arrived damaged", "defective")  # the return API's reasons (an enum)


# ---------------------------------------------------------------- shared helpers

def merged_values(values: dict | None) -> dict[str, float | int]:
    return _merged(VALUES, values, "retail",
                   increasing=[("tier_spend_grove", "tier_spend_canopy")],
                   not_above=[("standard_delivery_min_business_days", "standard_delivery_max_business_days"),
                              ("express_delivery_min_business_days", "express_delivery_max_business_days"),
                              ("card_refund_min_business_days", "card_refund_max_business_days")],
                   at_least_one=["max_payment_methods", "max_card_or_paypal", "pending_hours",
                                 "gift_card_refund_hours", "row_credit_refund_hours",
                                 "standard_delivery_min_business_days", "express_delivery_min_business_days",
                                 "card_refund_min_business_days", "paypal_refund_business_days"])


def _tiers(pack) -> tuple[dict[str, str], dict[str, str]]:
    prod = pack.brand.products
    t = {k: prod.get(g, d) for k, (g, d) in _TIER_PRODUCT.items()}
    return t, {v: k for k, v in t.items()}


def tier_for_spend(v: dict, spend: float) -> str:
    if spend >= v["tier_spend_canopy"]:
        return "canopy"
    if spend >= v["tier_spend_grove"]:
        return "grove"
    return "sprout"


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


# ---------------------------------------------------------------- generation

class _Gen:
    def __init__(self, pack, seed: int, v: dict):
        self.pack, self.v = pack, v
        self.rng = random.Random(f"{pack.name}:{seed}")
        self.pre = pack.brand.id_prefixes
        self.now = pack.info.now
        if self.now.tzinfo is None:
            raise FactforgeError("domain.toml [domain] now needs a UTC offset", pack.path / "domain.toml")
        self.tz = self.now.tzinfo
        self.today = self.now.date()
        self.tier_name, self.tier_key = _tiers(pack)
        self.products: dict[str, dict] = {}
        self.customers: dict[str, dict] = {}
        self.orders: dict[str, dict] = {}
        self.variants: dict[str, dict] = {}
        self._ids: set[str] = set()
        self._pay = 0
        self._ret = 0
        self.price_scale = 1.0

    def p(self, entity: str, default: str) -> str:
        return self.pre.get(entity, default)

    def ts(self, t: dt.datetime) -> str:
        return t.astimezone(self.tz).replace(microsecond=0).isoformat()

    def new_id(self, entity: str, default: str, digits: int) -> str:
        while True:
            i = self.p(entity, default) + "".join(self.rng.choice("0123456789") for _ in range(digits))
            if i not in self._ids and not i[len(self.p(entity, default))] == "0":
                self._ids.add(i)
                return i

    def pay_id(self) -> str:
        self._pay += 1
        return f"TX{200000 + self._pay}"

    # catalogue ------------------------------------------------------------
    def build_products(self) -> None:
        rng = self.rng
        start = self.today - dt.timedelta(days=150)
        for cat, name, base, axes in CATALOG:
            base = base * self.price_scale
            pid = self.new_id("product", "P", 5)
            prod = {"product_id": pid, "name": name, "category": _CATEGORY_LABEL[cat], "category_key": cat,
                    "final_sale": rng.random() < 0.1, "variants": {}}
            combos: list[dict[str, str]] = [{}]
            for axis, opts in axes.items():
                combos = [dict(c, **{axis: o}) for c in combos for o in opts]
            for j, opts in enumerate(combos):
                iid = self.new_id("item", "SKU", 7)
                price = cents(base * (1 + 0.08 * j) - 0.01 if base > 50 else base + j * 2)
                hist = [{"effective": start.isoformat(), "price": price}]
                if rng.random() < 0.3:
                    drop_day = self.today - dt.timedelta(days=rng.randint(1, 60))
                    hist.append({"effective": drop_day.isoformat(), "price": cents(price * rng.choice([0.8, 0.85, 0.9]))})
                    if rng.random() < 0.3:
                        back = drop_day + dt.timedelta(days=rng.randint(5, 20))
                        if back < self.today:
                            hist.append({"effective": back.isoformat(), "price": price})
                var = {"item_id": iid, "product_id": pid, "options": opts, "price": hist[-1]["price"],
                       "available": rng.random() < 0.88, "price_history": hist}
                prod["variants"][iid] = var
                self.variants[iid] = var
            self.products[pid] = prod

    # customers ------------------------------------------------------------
    def build_customers(self, n: int) -> None:
        rng, v = self.rng, self.v
        base = list(self.pack.brand.customers)
        if not base:
            raise FactforgeError("retail pack needs [brand] customers", self.pack.path / "domain.toml")
        names = customer_names(base, n, rng)
        for nm in names:
            cid = self.new_id("customer", "CU", 6)
            tier = rng.choices(TIERS, weights=[55, 30, 15])[0]
            lo, hi = {"sprout": (0, v["tier_spend_grove"] - 0.01),
                      "grove": (v["tier_spend_grove"], v["tier_spend_canopy"] - 0.01),
                      "canopy": (v["tier_spend_canopy"], v["tier_spend_canopy"] * 3)}[tier]
            spend = cents(rng.uniform(lo, hi))
            ascii_name = unicodedata.normalize("NFKD", nm).encode("ascii", "ignore").decode()
            first, last = ascii_name.split()[0].lower(), ascii_name.split()[-1].lower()
            city, state = rng.choice(_CITIES)
            addr = {"line1": f"{rng.randint(12, 9870)} {rng.choice(_STREETS)}",
                    "line2": rng.choice(["", "", "", f"Unit {rng.randint(1, 30)}"]),
                    "city": city, "state": state, "zip": f"{rng.randint(10000, 99899):05d}", "country": "US"}
            bday = dt.date(rng.randint(1958, 2004), rng.randint(1, 12), rng.randint(1, 28))
            c = {"customer_id": cid, "name": nm, "email": f"{first}.{last}{rng.randint(1, 99)}@{rng.choice(_MAIL)}",
                 "phone": f"+1-{rng.randint(201, 989)}-555-{rng.randint(100, 9999):04d}",
                 "birthday": bday.isoformat(), "default_address": addr,
                 "loyalty": {"program": self.pack.brand.products.get("loyalty program", "Row Rewards"),
                             "tier": self.tier_name[tier], "spend_last_12_months": spend,
                             "points_before_period": rng.randint(0, 4000), "points_balance": 0},
                 "payment_methods": {}, "orders": []}
            c["loyalty"]["points_balance"] = c["loyalty"]["points_before_period"]
            if rng.random() < 0.85:
                k = self.new_id("card", "CARD", 6)
                c["payment_methods"][k] = {"id": k, "type": "card", "brand": rng.choice(["visa", "mastercard", "amex", "discover"]),
                                           "last_four": f"{rng.randint(0, 9999):04d}"}
            if rng.random() < 0.35 or not c["payment_methods"]:
                k = self.new_id("paypal", "PP", 6)
                c["payment_methods"][k] = {"id": k, "type": "paypal", "email": c["email"]}
            for _ in range(rng.choice([0, 0, 1, 1, 2])):
                k = self.new_id("gift_card", "GC", 7)
                amt = float(rng.choice([25, 50, 75, 100, 150, 200, 250]))
                c["payment_methods"][k] = {"id": k, "type": "gift_card", "loaded_amount": amt, "balance": amt}
            this_year = dt.date(self.today.year, bday.month, bday.day)
            if tier != "sprout" and self.today - dt.timedelta(days=120) <= this_year < self.today:
                self.store_credit(c, v[f"birthday_credit_{tier}"],
                                  dt.datetime(this_year.year, this_year.month, this_year.day, 8, 0, tzinfo=self.tz),
                                  {"kind": "birthday"})
            self.customers[cid] = c

    def store_credit(self, cust: dict, amount: float, at: dt.datetime, origin: dict) -> str:
        k = self.new_id("store_credit", "RC", 7)
        cust["payment_methods"][k] = {"id": k, "type": "store_credit", "amount": cents(amount), "balance": cents(amount),
                                      "issued_at": self.ts(at),
                                      "expires_on": _add_months(at.astimezone(self.tz).date(), int(self.v["row_credit_months"])).isoformat(),
                                      "origin": origin}
        return k

    # orders ---------------------------------------------------------------
    def build_orders(self, n: int) -> None:
        made, tries = 0, 0
        while made < n and tries < n * 20:
            tries += 1
            made += bool(self.try_order())

    def pick_items(self) -> list[dict]:
        rng = self.rng
        k = rng.choices([1, 2, 3, 4], weights=[45, 30, 17, 8])[0]
        out = []
        for _ in range(k):
            prod = self.products[rng.choice(sorted(self.products))]
            avail = [i for i in sorted(prod["variants"]) if prod["variants"][i]["available"]]
            if avail:
                out.append(prod["variants"][rng.choice(avail)])
        return out

    def line(self, var: dict, when: dt.date) -> dict:
        prod = self.products[var["product_id"]]
        return {"item_id": var["item_id"], "product_id": prod["product_id"], "name": prod["name"],
                "category": prod["category"], "category_key": prod["category_key"], "options": var["options"],
                "price": price_on(var, when), "final_sale": prod["final_sale"]}

    def try_order(self) -> bool:
        rng, v = self.rng, self.v
        cid = rng.choice(sorted(self.customers))
        cust = self.customers[cid]
        tier = self.tier_key[cust["loyalty"]["tier"]]
        age_min = rng.choices([rng.randint(5, 119), rng.randint(120, 3 * 1440), rng.randint(1440, 75 * 1440)],
                              weights=[4, 14, 82])[0]
        placed = (self.now - dt.timedelta(minutes=age_min)).replace(second=0)
        vars_ = self.pick_items()
        if not vars_:
            return False
        items = [self.line(x, placed.date()) for x in vars_]
        subtotal = cents(sum(it["price"] for it in items))
        method = "express" if rng.random() < 0.2 else "standard"
        ship = cents(shipping_fee(v, tier, method, subtotal))
        oversized = cents(v["oversized_fee"] * sum(1 for it in items if it["category_key"] == "furniture"))
        total = cents(subtotal + ship + oversized)
        plan = self.payment_plan(cust, total, placed)
        if plan is None:
            return False
        oid = self.new_id("order", "#JR", 7)
        addr = dict(cust["default_address"])
        order = {"order_id": oid, "customer_id": cid, "placed_at": self.ts(placed), "status": "pending",
                 "shipping_method": method, "shipping_address": addr, "items": items, "subtotal": subtotal,
                 "shipping_fee": ship, "oversized_fee": oversized, "total": total, "points_earned": 0,
                 "status_history": [{"status": "pending", "at": self.ts(placed)}], "fulfillment": None,
                 "modifications": [], "cancellation": None, "returns": [], "exchanges": [], "price_adjustments": [],
                 "payment_history": []}
        for mid, amt in plan:
            self.charge(cust, order, mid, amt, "order", placed)
        self.orders[oid] = order
        cust["orders"].append(oid)
        self.lifecycle(order, cust, tier)
        if order["status"] != "cancelled":
            order["points_earned"] = int(math.floor(order["subtotal"])) * int(v[f"points_per_dollar_{tier}"])
            cust["loyalty"]["points_balance"] += order["points_earned"]
        return True

    def payment_plan(self, cust: dict, total: float, at: dt.datetime) -> list[tuple[str, float]] | None:
        rng, v = self.rng, self.v
        pms = cust["payment_methods"]
        plan: list[tuple[str, float]] = []
        left = total
        credits = [k for k in sorted(pms) if pms[k]["type"] == "store_credit" and pms[k]["balance"] > 0
                   and _parse(pms[k]["issued_at"]) < at and dt.date.fromisoformat(pms[k]["expires_on"]) > at.date()]
        gifts = [k for k in sorted(pms) if pms[k]["type"] == "gift_card" and pms[k]["balance"] > 0]
        primary = [k for k in sorted(pms) if pms[k]["type"] in ("card", "paypal")]
        if credits and rng.random() < 0.8:
            use = cents(min(pms[credits[0]]["balance"], left))
            plan.append((credits[0], use))
            left = cents(left - use)
        if gifts and left > 0 and rng.random() < 0.6:
            for g in gifts[: int(v["max_gift_cards"])]:
                if left <= 0 or len(plan) >= v["max_payment_methods"] - (0 if left <= pms[g]["balance"] else 1):
                    break
                use = cents(min(pms[g]["balance"], left))
                plan.append((g, use))
                left = cents(left - use)
        if left > 0:
            if not primary or len(plan) >= v["max_payment_methods"]:
                return None
            plan.append((rng.choice(primary), left))
        return plan

    def charge(self, cust, order, mid, amount, purpose, at: dt.datetime) -> None:
        pm = cust["payment_methods"][mid]
        if pm["type"] in ("gift_card", "store_credit"):
            pm["balance"] = cents(pm["balance"] - amount)
        order["payment_history"].append({"payment_id": self.pay_id(), "kind": "charge", "method_id": mid,
                                         "method_type": pm["type"], "amount": cents(amount), "purpose": purpose,
                                         "at": self.ts(at)})

    def refund(self, cust, order, mid, typ, amount, at: dt.datetime, purpose: str, bonus: float = 0.0) -> None:
        rng, v = self.rng, self.v
        e: dict[str, Any] = {"payment_id": self.pay_id(), "kind": "refund", "method_id": mid, "method_type": typ,
                             "amount": cents(amount), "purpose": purpose, "at": self.ts(at)}
        if typ == "card":
            posted = add_business_days(at, rng.randint(int(v["card_refund_min_business_days"]), int(v["card_refund_max_business_days"])))
        elif typ == "paypal":
            posted = add_business_days(at, rng.randint(1, int(v["paypal_refund_business_days"])))
        elif typ == "gift_card":
            posted = at + dt.timedelta(minutes=rng.randint(5, int(v["gift_card_refund_hours"] * 60) - 1))
        else:
            posted = at + dt.timedelta(minutes=rng.randint(1, max(1, int(v["row_credit_refund_hours"] * 60) - 1)))
        e["posted_at"] = self.ts(posted)
        e["status"] = "posted" if posted <= self.now else "pending"
        if bonus:
            e["bonus"] = cents(bonus)
        if typ in ("gift_card", "store_credit") and e["status"] == "posted" and purpose not in ("return_credit", "price_adjustment"):
            pm = cust["payment_methods"][mid]
            pm["balance"] = cents(pm["balance"] + amount)
        order["payment_history"].append(e)

    def set_status(self, order, status, at: dt.datetime) -> None:
        order["status"] = status
        order["status_history"].append({"status": status, "at": self.ts(at)})

    def lifecycle(self, order, cust, tier) -> None:
        rng, v = self.rng, self.v
        placed = _parse(order["placed_at"])
        processed = placed + dt.timedelta(hours=v["pending_hours"])
        if rng.random() < 0.12:
            hi = min(self.now, placed + dt.timedelta(hours=v["processed_cancel_hours"])) - dt.timedelta(minutes=2)
            if hi > placed + dt.timedelta(minutes=5):
                at = placed + dt.timedelta(minutes=rng.randint(5, int((hi - placed).total_seconds() // 60)))
                if rng.random() < 0.5 and at < processed:
                    self.pending_changes(order, cust, tier, placed, at)
                if at >= processed:
                    self.set_status(order, "processed", processed)
                self.cancel(order, cust, at)
                return
        if processed > self.now:
            if rng.random() < 0.6:
                self.pending_changes(order, cust, tier, placed, self.now - dt.timedelta(minutes=1))
            return
        if rng.random() < 0.3:
            self.pending_changes(order, cust, tier, placed, processed - dt.timedelta(minutes=1))
        self.set_status(order, "processed", processed)
        if rng.random() < 0.08:
            at = processed + dt.timedelta(minutes=rng.randint(10, 600))
            if at < self.now:
                new = dict(order["shipping_address"], line1=f"{rng.randint(12, 9870)} {rng.choice(_STREETS)}",
                           line2="")
                order["modifications"].append({"type": "address_change", "at": self.ts(at),
                                               "old_address": order["shipping_address"], "new_address": new})
                order["shipping_address"] = new
        shipped = add_business_days(processed, rng.randint(0, int(v["ship_within_business_days"])))
        shipped = shipped.replace(hour=rng.randint(9, 18), minute=rng.choice([0, 15, 30, 45]))
        last_change = max([processed] + [_parse(m["at"]) for m in order["modifications"]])
        if shipped <= last_change:
            shipped = last_change + dt.timedelta(hours=rng.randint(1, 4))
        if shipped > self.now:
            return
        lo, hi = (("express_delivery_min_business_days", "express_delivery_max_business_days") if order["shipping_method"] == "express"
                  else ("standard_delivery_min_business_days", "standard_delivery_max_business_days"))
        delivered = add_business_days(shipped, rng.randint(int(v[lo]), int(v[hi])))
        delivered = delivered.replace(hour=rng.randint(10, 19), minute=rng.choice([5, 20, 35, 50]))
        order["fulfillment"] = {"carrier": rng.choice(_CARRIERS),
                                "tracking_number": "1Z" + "".join(rng.choice("0123456789ABCDEFGHJK") for _ in range(14)),
                                "shipped_at": self.ts(shipped), "delivered_at": None}
        self.set_status(order, "shipped", shipped)
        if delivered > self.now:
            return
        order["fulfillment"]["delivered_at"] = self.ts(delivered)
        self.set_status(order, "delivered", delivered)
        self.after_delivery(order, cust, tier, delivered)

    def pending_changes(self, order, cust, tier, placed, until: dt.datetime) -> None:
        rng, v = self.rng, self.v
        if until <= placed + dt.timedelta(minutes=3):
            return
        t = placed
        kinds = rng.sample(["item_change", "item_change", "address_change", "payment_change"], rng.randint(1, 2))
        for kind in kinds:
            step = int((until - t).total_seconds() // 60)
            if step < 2:
                return
            t = t + dt.timedelta(minutes=rng.randint(1, step))
            if kind == "item_change":
                if sum(1 for m in order["modifications"] if m["type"] == "item_change") >= v["max_item_changes"]:
                    continue
                self.item_change(order, cust, tier, t)
            elif kind == "address_change":
                city, state = rng.choice(_CITIES)
                new = {"line1": f"{rng.randint(12, 9870)} {rng.choice(_STREETS)}", "line2": "", "city": city,
                       "state": state, "zip": f"{rng.randint(10000, 99899):05d}", "country": "US"}
                order["modifications"].append({"type": "address_change", "at": self.ts(t),
                                               "old_address": order["shipping_address"], "new_address": new})
                order["shipping_address"] = new
            else:
                self.payment_change(order, cust, t)

    def item_change(self, order, cust, tier, at: dt.datetime) -> None:
        rng = self.rng
        idx = rng.randrange(len(order["items"]))
        it = order["items"][idx]
        prod = self.products[it["product_id"]]
        alts = [i for i in sorted(prod["variants"]) if i != it["item_id"] and prod["variants"][i]["available"]]
        if not alts:
            return
        new = self.line(prod["variants"][rng.choice(alts)], _parse(order["placed_at"]).date())
        diff = cents(new["price"] - it["price"])
        if diff > 0:
            mid = self.cover(cust, order, diff)
            if mid is None:
                return
        old_sub, subtotal = order["subtotal"], cents(order["subtotal"] + diff)
        tier_ship = cents(shipping_fee(self.v, tier, order["shipping_method"], subtotal))
        ship_diff = cents(tier_ship - order["shipping_fee"])
        total_diff = cents(diff + ship_diff)
        order["items"][idx] = new
        order["subtotal"], order["shipping_fee"] = subtotal, tier_ship
        order["total"] = cents(order["total"] + total_diff)
        order["modifications"].append({"type": "item_change", "at": self.ts(at), "line_index": idx,
                                       "old_item_id": it["item_id"], "new_item_id": new["item_id"],
                                       "price_difference": diff, "shipping_difference": ship_diff,
                                       "old_subtotal": old_sub})
        self.settle(cust, order, total_diff, at, "item_change")

    def cover(self, cust, order, amount) -> str | None:
        pms = cust["payment_methods"]
        used = [p["method_id"] for p in order["payment_history"] if p["kind"] == "charge"]
        for k in used + sorted(pms):
            if pms[k]["type"] in ("card", "paypal") and self._may_add(order, cust, k):
                return k
        for k in used + sorted(pms):
            if pms[k]["type"] == "gift_card" and pms[k]["balance"] >= amount and self._may_add(order, cust, k):
                return k
        return None

    def _may_add(self, order, cust, mid) -> bool:
        methods = {p["method_id"] for p in order["payment_history"]}
        if mid in methods:
            return True
        pms, v = cust["payment_methods"], self.v
        kinds = [pms[m]["type"] for m in methods | {mid}]
        return (len(methods) + 1 <= v["max_payment_methods"]
                and sum(k in ("card", "paypal") for k in kinds) <= v["max_card_or_paypal"]
                and sum(k == "gift_card" for k in kinds) <= v["max_gift_cards"])

    def settle(self, cust, order, amount, at, purpose) -> None:
        if amount > 0:
            mid = self.cover(cust, order, amount)
            if mid is None:
                raise AssertionError("settle without a method")
            self.charge(cust, order, mid, amount, purpose, at)
        elif amount < 0:
            for mid, typ, part in route_refund(-amount, net_paid(order)):
                self.refund(cust, order, mid, typ, part, at, purpose)

    def payment_change(self, order, cust, at) -> None:
        rng = self.rng
        net = [x for x in net_paid(order) if x[2] > 0]
        if len(net) != 1:
            return
        old_id, old_type, amount = net[0]
        pms = cust["payment_methods"]
        opts = [k for k in sorted(pms) if k != old_id and (pms[k]["type"] in ("card", "paypal") or
                (pms[k]["type"] == "gift_card" and pms[k]["balance"] >= order["total"]))]
        if not opts or abs(amount - order["total"]) > 0.005:
            return
        new = rng.choice(opts)
        order["modifications"].append({"type": "payment_change", "at": self.ts(at), "old_method_id": old_id,
                                       "new_method_id": new})
        self.charge(cust, order, new, order["total"], "payment_change", at)
        self.refund(cust, order, old_id, old_type, amount, at, "payment_change")

    def cancel(self, order, cust, at) -> None:
        rng = self.rng
        order["cancellation"] = {"at": self.ts(at), "reason": rng.choice(CANCEL_REASONS),
                                 "refund_amount": order["total"]}
        for mid, typ, part in route_refund(order["total"], net_paid(order)):
            self.refund(cust, order, mid, typ, part, at, "cancellation")
        self.set_status(order, "cancelled", at)

    def after_delivery(self, order, cust, tier, delivered: dt.datetime) -> None:
        rng = self.rng
        roll = rng.random()
        if roll < 0.22:
            self.make_return(order, cust, tier, delivered)
            if rng.random() < 0.2:
                self.make_return(order, cust, tier, delivered)
        elif roll < 0.32:
            self.exchange(order, cust, tier, delivered)
        if rng.random() < 0.5:
            self.price_adjustment(order, cust, tier)

    def _window_ok(self, it, tier, delivered, at) -> bool:
        return at.date() <= delivered.date() + dt.timedelta(days=return_window_days(self.v, it["category_key"], tier))

    def _taken(self, order) -> set[int]:
        taken = {i for r in order["returns"] for i in r["line_indexes"]}
        taken |= {e["line_index"] for e in order["exchanges"]}
        return taken

    def make_return(self, order, cust, tier, delivered) -> None:
        rng, v = self.rng, self.v
        if len(order["returns"]) >= v["max_return_requests"]:
            return
        taken = self._taken(order)
        free = [i for i, it in enumerate(order["items"]) if i not in taken and not it["final_sale"]]
        if not free:
            return
        defective = rng.random() < 0.2
        horizon = v["damage_report_days"] if defective else 75
        latest = min(self.now - dt.timedelta(hours=1), delivered + dt.timedelta(days=horizon))
        if latest <= delivered + dt.timedelta(hours=2):
            return
        at = delivered + dt.timedelta(minutes=rng.randint(120, int((latest - delivered).total_seconds() // 60)))
        if order["returns"]:
            at = max(at, _parse(order["returns"][-1]["requested_at"]) + dt.timedelta(hours=1))
            if at >= self.now or (defective and at > delivered + dt.timedelta(days=v["damage_report_days"])):
                return
        pick = sorted(rng.sample(free, rng.randint(1, len(free))))
        pick = [i for i in pick if self._window_ok(order["items"][i], tier, delivered, at)
                and not (order["items"][i]["category_key"] == "bedding" and not defective and rng.random() < 0.5)]
        if not pick:
            return
        items = [order["items"][i] for i in pick]
        to_credit = rng.random() < 0.3
        amounts = return_amounts(v, items, tier, defective, to_credit)
        self._ret += 1
        rid = f"{self.p('return', 'RT')}{5000 + self._ret}"
        ret = {"return_id": rid, "requested_at": self.ts(at), "line_indexes": pick,
               "item_ids": [it["item_id"] for it in items],
               "reason": rng.choice(["arrived damaged", "defective"]) if defective else rng.choice(_RETURN_REASONS),
               "condition": "damaged" if defective else "unused", "refund_to": "row_credit" if to_credit else "original",
               **amounts, "status": "label_sent", "received_at": None, "refunded_at": None, "approved_by": None}
        order["returns"].append(ret)
        received = at + dt.timedelta(days=rng.randint(2, 8), hours=rng.randint(0, 8))
        if received > self.now:
            return
        ret["received_at"], ret["status"] = self.ts(received), "received"
        refunded = add_business_days(received, rng.randint(0, int(v["inspection_business_days"])))
        if refunded > self.now:
            return
        ret["refunded_at"], ret["status"] = self.ts(refunded), "refunded"
        if amounts["refund_amount"] > v["supervisor_refund_above"]:
            ret["approved_by"] = rng.choice(self.pack.brand.managers or ["Supervisor"])
        if to_credit:
            total = cents(amounts["refund_amount"] + amounts["bonus"])
            k = self.store_credit(cust, total, refunded, {"kind": "return", "order_id": order["order_id"], "return_id": rid})
            self.refund(cust, order, k, "store_credit", total, refunded, "return_credit", bonus=amounts["bonus"])
            order["payment_history"][-1]["return_id"] = rid
        else:
            for mid, typ, part in route_refund(amounts["refund_amount"], net_paid(order)):
                self.refund(cust, order, mid, typ, part, refunded, "return")
                order["payment_history"][-1]["return_id"] = rid

    def exchange(self, order, cust, tier, delivered) -> None:
        rng = self.rng
        taken = self._taken(order)
        free = [i for i, it in enumerate(order["items"]) if i not in taken and not it["final_sale"]]
        if not free:
            return
        i = rng.choice(free)
        it = order["items"][i]
        latest = min(self.now - dt.timedelta(hours=1),
                     delivered + dt.timedelta(days=return_window_days(self.v, it["category_key"], tier)))
        if latest <= delivered + dt.timedelta(hours=2):
            return
        at = delivered + dt.timedelta(minutes=rng.randint(120, int((latest - delivered).total_seconds() // 60)))
        prod = self.products[it["product_id"]]
        alts = [k for k in sorted(prod["variants"]) if k != it["item_id"] and prod["variants"][k]["available"]]
        if not alts:
            return
        new = prod["variants"][rng.choice(alts)]
        new_price = price_on(new, at.date())
        diff = cents(new_price - it["price"])
        if diff > 0 and self.cover(cust, order, diff) is None:
            return
        order["exchanges"].append({"line_index": i, "at": self.ts(at), "old_item_id": it["item_id"],
                                   "new_item_id": new["item_id"], "new_price": new_price, "price_difference": diff,
                                   "replacement_shipping": "standard", "replacement_shipping_fee": 0})
        self.settle(cust, order, diff, at, "exchange")

    def price_adjustment(self, order, cust, tier) -> None:
        rng, v = self.rng, self.v
        placed = _parse(order["placed_at"])
        days = v["price_adjust_days_canopy"] if tier == "canopy" else v["price_adjust_days"]
        taken = self._taken(order)
        for i, it in enumerate(order["items"]):
            if it["final_sale"] or i in taken:
                continue
            var = self.variants[it["item_id"]]
            for h in var["price_history"][1:]:
                d = dt.date.fromisoformat(h["effective"])
                drop = cents(it["price"] - h["price"])
                if d <= placed.date() or drop < v["price_adjust_min"]:
                    continue
                at = dt.datetime(d.year, d.month, d.day, rng.randint(9, 20), rng.choice([0, 10, 25, 40]), tzinfo=self.tz)
                at += dt.timedelta(days=rng.randint(0, 3))
                if at > self.now or at.date() > placed.date() + dt.timedelta(days=days) or price_on(var, at.date()) != h["price"]:
                    continue
                k = self.store_credit(cust, drop, at, {"kind": "price_adjustment", "order_id": order["order_id"]})
                order["price_adjustments"].append({"line_index": i, "item_id": it["item_id"], "at": self.ts(at),
                                                   "paid_price": it["price"], "new_price": h["price"], "amount": drop,
                                                   "store_credit_id": k})
                self.refund(cust, order, k, "store_credit", drop, at, "price_adjustment")
                break


def generate(pack, seed: int, values: dict | None = None, price_scale: float = 1.0) -> dict:
    """The seed database. `values` overrides VALUES; `price_scale` multiplies catalogue prices
    (a variant's price scaling, applied before totals, fees and refunds are derived)."""
    if isinstance(price_scale, bool) or not isinstance(price_scale, (int, float)) or price_scale <= 0:
        raise FactforgeError(f"price_scale must be a positive number, not {price_scale!r}")
    g = _Gen(pack, seed, merged_values(values))
    g.price_scale = float(price_scale)
    g.build_products()
    g.build_customers(72)
    g.build_orders(260)
    return {"customers": g.customers, "orders": g.orders, "products": g.products}


# ---------------------------------------------------------------- checks

def check(pack, db: dict, values: dict | None = None) -> list[str]:
    v = merged_values(values)
    _, tier_key = _tiers(pack)
    problems: list[str] = []
    P = problems.append
    products, customers, orders = db.get("products", {}), db.get("customers", {}), db.get("orders", {})
    variants = {iid: var for p in products.values() for iid, var in p["variants"].items()}
    for pid, p in sorted(products.items()):
        if p.get("category_key") not in CATEGORIES:
            P(f"product {pid}: unknown category {p.get('category_key')}")
        for iid, var in sorted(p["variants"].items()):
            if var["product_id"] != pid:
                P(f"variant {iid}: points to product {var['product_id']}")
            if abs(var["price"] - var["price_history"][-1]["price"]) > 0.005:
                P(f"variant {iid}: current price {var['price']} is not the latest price history entry")
    for cid, c in sorted(customers.items()):
        tier = tier_key.get(c["loyalty"]["tier"])
        if tier is None or tier != tier_for_spend(v, c["loyalty"]["spend_last_12_months"]):
            P(f"customer {cid}: tier {c['loyalty']['tier']} does not match spend {c['loyalty']['spend_last_12_months']}")
            tier = tier or "sprout"
        earned = sum(orders[o]["points_earned"] for o in c["orders"] if o in orders)
        if c["loyalty"]["points_balance"] != c["loyalty"]["points_before_period"] + earned:
            P(f"customer {cid}: points balance {c['loyalty']['points_balance']} != {c['loyalty']['points_before_period']} + {earned}")
        for oid in c["orders"]:
            if oid not in orders or orders[oid]["customer_id"] != cid:
                P(f"customer {cid}: order {oid} missing or owned by someone else")
        _check_wallet(v, c, tier, orders, P)
    for hid, h in sorted(db.get("handoffs", {}).items()):
        if h["customer_id"] not in customers:
            P(f"handoff {hid}: unknown customer {h['customer_id']}")
    for oid, o in sorted(orders.items()):
        c = customers.get(o["customer_id"])
        if c is None:
            P(f"order {oid}: unknown customer {o['customer_id']}")
            continue
        if oid not in c["orders"]:
            P(f"order {oid}: not listed on customer {o['customer_id']}")
        _check_order(v, pack.info.now, tier_key.get(c["loyalty"]["tier"], "sprout"), c, o, variants, products, P)
    return problems


def _check_wallet(v, c, tier, orders, P) -> None:
    cid = c["customer_id"]
    for mid, pm in sorted(c["payment_methods"].items()):
        if pm["type"] not in ("gift_card", "store_credit"):
            continue
        bal = pm["loaded_amount"] if pm["type"] == "gift_card" else pm["amount"]
        for oid in c["orders"]:
            for p in orders.get(oid, {}).get("payment_history", []):
                if p["method_id"] != mid:
                    continue
                if p["kind"] == "charge":
                    bal -= p["amount"]
                elif p["status"] == "posted" and p["purpose"] not in ("return_credit", "price_adjustment"):
                    bal += p["amount"]
        if abs(cents(bal) - pm["balance"]) > 0.005 or pm["balance"] < -0.005:
            P(f"customer {cid}: {pm['type']} {mid} balance {pm['balance']} != ledger {cents(bal)}")
        if pm["type"] == "gift_card" and max(pm["balance"], pm["loaded_amount"]) > v["gift_card_max_balance"]:
            P(f"customer {cid}: gift card {mid} holds more than {v['gift_card_max_balance']}")
        if pm["type"] == "store_credit":
            issued = _parse(pm["issued_at"]).date()
            if pm["expires_on"] != _add_months(issued, int(v["row_credit_months"])).isoformat():
                P(f"customer {cid}: Row Credit {mid} expiry {pm['expires_on']} is not {int(v['row_credit_months'])} months after issue")
            if pm["origin"]["kind"] == "birthday":
                want = v.get(f"birthday_credit_{tier}")
                if want is None or abs(pm["amount"] - want) > 0.005:
                    P(f"customer {cid}: birthday credit {pm['amount']} for tier {c['loyalty']['tier']} (policy {want})")
                if issued.month != dt.date.fromisoformat(c["birthday"]).month or issued.day != dt.date.fromisoformat(c["birthday"]).day:
                    P(f"customer {cid}: birthday credit not issued on the birthday")


def _check_order(v, now, tier, c, o, variants, products, P) -> None:
    oid = o["order_id"]
    placed = _parse(o["placed_at"])
    for i, it in enumerate(o["items"]):
        var = variants.get(it["item_id"])
        if var is None:
            P(f"order {oid}: unknown item {it['item_id']}")
            return
        if abs(it["price"] - price_on(var, placed.date())) > 0.005:
            P(f"order {oid}: line {i} price {it['price']} != catalogue price {price_on(var, placed.date())} on {placed.date()}")
        if products[var["product_id"]]["final_sale"] != it["final_sale"] or products[var["product_id"]]["category_key"] != it["category_key"]:
            P(f"order {oid}: line {i} product attributes differ from the catalogue")
    sub = cents(sum(it["price"] for it in o["items"]))
    if abs(sub - o["subtotal"]) > 0.005:
        P(f"order {oid}: subtotal {o['subtotal']} != {sub}")
    ship = cents(shipping_fee(v, tier, o["shipping_method"], o["subtotal"]))
    if abs(ship - o["shipping_fee"]) > 0.005:
        P(f"order {oid}: shipping fee {o['shipping_fee']} != {ship} ({o['shipping_method']}, {c['loyalty']['tier']})")
    over = cents(v["oversized_fee"] * sum(1 for it in o["items"] if it["category_key"] == "furniture"))
    if abs(over - o["oversized_fee"]) > 0.005:
        P(f"order {oid}: oversized fee {o['oversized_fee']} != {over}")
    if abs(cents(o["subtotal"] + o["shipping_fee"] + o["oversized_fee"]) - o["total"]) > 0.005:
        P(f"order {oid}: total {o['total']} != subtotal + shipping + oversized")
    pts = 0 if o["status"] == "cancelled" else int(math.floor(o["subtotal"])) * int(v[f"points_per_dollar_{tier}"])
    if o["points_earned"] != pts:
        P(f"order {oid}: points earned {o['points_earned']} != {pts}")
    _check_status(v, now, o, P)
    _check_payments(v, c, o, P)
    _check_modifications(v, tier, o, variants, P)
    if o["cancellation"]:
        x = o["cancellation"]
        at = _parse(x["at"])
        if x["reason"] not in CANCEL_REASONS:
            P(f"order {oid}: cancellation reason {x['reason']!r} is not accepted")
        processed = placed + dt.timedelta(hours=v["pending_hours"])
        if at >= processed and at - placed >= dt.timedelta(hours=v["processed_cancel_hours"]):
            P(f"order {oid}: processed order cancelled {at - placed} after it was placed")
        if abs(x["refund_amount"] - o["total"]) > 0.005:
            P(f"order {oid}: cancellation refund {x['refund_amount']} != order total {o['total']}")
        _check_refund_routing(o, "cancellation", x["refund_amount"], P)
    _check_returns(v, tier, c, o, P)
    _check_exchanges(v, tier, o, variants, P)
    _check_price_adjustments(v, tier, c, o, variants, P)


def _check_status(v, now, o, P) -> None:
    oid = o["order_id"]
    hist = [h["status"] for h in o["status_history"]]
    times = [_parse(h["at"]) for h in o["status_history"]]
    if o["status"] not in ORDER_STATUSES or hist[-1] != o["status"]:
        P(f"order {oid}: status {o['status']} does not match its history")
    allowed = {"pending": {"processed", "cancelled"}, "processed": {"shipped", "cancelled"}, "shipped": {"delivered"}}
    for a, b in zip(hist, hist[1:]):
        if b not in allowed.get(a, set()):
            P(f"order {oid}: status {a} -> {b} is not allowed")
    if times != sorted(times) or times[-1] > now:
        P(f"order {oid}: status history out of order or in the future")
    placed = _parse(o["placed_at"])
    if "processed" in hist and times[hist.index("processed")] != placed + dt.timedelta(hours=v["pending_hours"]):
        P(f"order {oid}: processed at {times[hist.index('processed')]}, not {v['pending_hours']} hours after placing")
    if hist[-1] == "pending" and now - placed >= dt.timedelta(hours=v["pending_hours"]):
        P(f"order {oid}: still pending after {v['pending_hours']} hours")
    f = o["fulfillment"]
    if "shipped" in hist:
        shipped = _parse(f["shipped_at"])
        proc = times[hist.index("processed")]
        if business_days_between(proc.date(), shipped.date()) > v["ship_within_business_days"]:
            P(f"order {oid}: shipped more than {v['ship_within_business_days']} business days after processing")
    if "delivered" in hist:
        n = business_days_between(_parse(f["shipped_at"]).date(), _parse(f["delivered_at"]).date())
        kind = "express" if o["shipping_method"] == "express" else "standard"
        if not v[f"{kind}_delivery_min_business_days"] <= n <= v[f"{kind}_delivery_max_business_days"]:
            P(f"order {oid}: {kind} delivery took {n} business days")
    if (o["returns"] or o["exchanges"] or o["price_adjustments"]) and o["status"] != "delivered":
        P(f"order {oid}: returns, exchanges or price adjustments on a {o['status']} order")


def _check_payments(v, c, o, P) -> None:
    oid = o["order_id"]
    pms = c["payment_methods"]
    replaced = {m["old_method_id"] for m in o["modifications"] if m["type"] == "payment_change"}
    methods = []
    first_charges = [p for p in o["payment_history"] if p["kind"] == "charge" and p["purpose"] == "order"]
    for p in o["payment_history"]:
        pm = pms.get(p["method_id"])
        if pm is None:
            P(f"order {oid}: payment {p['payment_id']} uses a method not on the account")
            return
        if pm["type"] != p["method_type"]:
            P(f"order {oid}: payment {p['payment_id']} method type mismatch")
        if p["kind"] == "charge" and p["method_id"] not in methods and p["method_id"] not in replaced:
            methods.append(p["method_id"])
        if p["kind"] == "charge" and pm["type"] == "store_credit":
            at = _parse(p["at"])
            if not _parse(pm["issued_at"]) <= at or at.date() >= dt.date.fromisoformat(pm["expires_on"]):
                P(f"order {oid}: Row Credit {p['method_id']} used outside its validity")
    kinds = [pms[m]["type"] for m in methods]
    if len(methods) > v["max_payment_methods"]:
        P(f"order {oid}: {len(methods)} payment methods (limit {v['max_payment_methods']})")
    if sum(k in ("card", "paypal") for k in kinds) > v["max_card_or_paypal"]:
        P(f"order {oid}: more than {v['max_card_or_paypal']} card or PayPal methods")
    if sum(k == "gift_card" for k in kinds) > v["max_gift_cards"]:
        P(f"order {oid}: more than {v['max_gift_cards']} gift cards")
    ftypes = [p["method_type"] for p in first_charges]
    if "store_credit" in ftypes and ftypes[0] != "store_credit":
        P(f"order {oid}: Row Credit was not applied first")
    booked = cents(sum(p["amount"] for p in first_charges))
    first_total = o["total"] - sum(m.get("price_difference", 0) + m.get("shipping_difference", 0)
                                   for m in o["modifications"] if m["type"] == "item_change")
    if abs(booked - cents(first_total)) > 0.005:
        P(f"order {oid}: order charges {booked} != original total {cents(first_total)}")
    for p in o["payment_history"]:
        if p["kind"] != "refund" or p["posted_at"] is None:
            continue  # a charge, or a refund still pending with the processor
        at, posted = _parse(p["at"]), _parse(p["posted_at"])
        t = p["method_type"]
        if t == "card" and not v["card_refund_min_business_days"] <= business_days_between(at.date(), posted.date()) <= v["card_refund_max_business_days"]:
            P(f"order {oid}: card refund {p['payment_id']} posts outside {v['card_refund_min_business_days']} to {v['card_refund_max_business_days']} business days")
        if t == "paypal" and business_days_between(at.date(), posted.date()) > v["paypal_refund_business_days"]:
            P(f"order {oid}: PayPal refund {p['payment_id']} later than {v['paypal_refund_business_days']} business days")
        if t == "gift_card" and posted - at > dt.timedelta(hours=v["gift_card_refund_hours"]):
            P(f"order {oid}: gift card refund {p['payment_id']} later than {v['gift_card_refund_hours']} hours")
        if t == "store_credit" and posted - at > dt.timedelta(hours=v["row_credit_refund_hours"]):
            P(f"order {oid}: Row Credit refund {p['payment_id']} later than {v['row_credit_refund_hours']} hours")


def _ledger_before(o, purpose: str, key: str | None = None) -> list[tuple[str, str, float]]:
    """Net paid per method before the first refund entry for `purpose` (and return id)."""
    hist = o["payment_history"]
    stop = next((i for i, p in enumerate(hist) if p["kind"] == "refund" and p["purpose"] == purpose
                 and (key is None or p.get("return_id") == key)), len(hist))
    return net_paid({"payment_history": hist[:stop]})


def _check_refund_routing(o, purpose, amount, P, key: str | None = None) -> None:
    got = [(p["method_id"], p["method_type"], p["amount"]) for p in o["payment_history"]
           if p["kind"] == "refund" and p["purpose"] == purpose and (key is None or p.get("return_id") == key)]
    want = route_refund(amount, _ledger_before(o, purpose, key))
    if sorted(got) != sorted(want):
        P(f"order {o['order_id']}: {purpose} refund routed as {got}, policy routes {want}")


def _check_modifications(v, tier, o, variants, P) -> None:
    oid = o["order_id"]
    placed = _parse(o["placed_at"])
    processed = placed + dt.timedelta(hours=v["pending_hours"])
    shipped = _parse(o["fulfillment"]["shipped_at"]) if o["fulfillment"] else None
    n_items = 0
    for m in o["modifications"]:
        at = _parse(m["at"])
        if at < placed:
            P(f"order {oid}: {m['type']} before the order was placed")
        if m["type"] == "address_change":
            if shipped and at >= shipped:
                P(f"order {oid}: address changed after shipping")
            a = m["new_address"]
            if a["state"] not in CONTIGUOUS_STATES or "po box" in f"{a['line1']} {a['line2']}".lower().replace(".", ""):
                P(f"order {oid}: new address {a['line1']}, {a['state']} is not a street address in the 48 "
                  "contiguous states")
            continue
        if at >= processed:
            P(f"order {oid}: {m['type']} on an order that was no longer pending")
        if m["type"] == "item_change":
            n_items += 1
            old, new = variants.get(m["old_item_id"]), variants.get(m["new_item_id"])
            if old is None or new is None or old["product_id"] != new["product_id"] or old is new:
                P(f"order {oid}: item change is not a different variant of the same product")
                continue
            diff = cents(price_on(new, placed.date()) - price_on(old, placed.date()))
            if abs(diff - m["price_difference"]) > 0.005:
                P(f"order {oid}: item change price difference {m['price_difference']} != {diff}")
            charged = sum(p["amount"] for p in o["payment_history"] if p["purpose"] == "item_change" and p["at"] == m["at"]
                          and p["kind"] == "charge")
            refunded = sum(p["amount"] for p in o["payment_history"] if p["purpose"] == "item_change" and p["at"] == m["at"]
                           and p["kind"] == "refund")
            if abs(cents(charged - refunded) - cents(m["price_difference"] + m["shipping_difference"])) > 0.005:
                P(f"order {oid}: item change settled {cents(charged - refunded)}, expected {cents(m['price_difference'] + m['shipping_difference'])}")
        elif m["type"] == "payment_change":
            new = [p for p in o["payment_history"] if p["purpose"] == "payment_change" and p["kind"] == "charge"]
            old = [p for p in o["payment_history"] if p["purpose"] == "payment_change" and p["kind"] == "refund"]
            if len(new) != 1 or len(old) != 1 or new[0]["method_id"] != m["new_method_id"] or old[0]["method_id"] != m["old_method_id"]:
                P(f"order {oid}: payment change not recorded as one charge and one full refund")
            elif abs(new[0]["amount"] - old[0]["amount"]) > 0.005:
                P(f"order {oid}: payment change moved {new[0]['amount']} but refunded {old[0]['amount']}")
    if n_items > v["max_item_changes"]:
        P(f"order {oid}: {n_items} item changes (limit {v['max_item_changes']})")


def _check_returns(v, tier, c, o, P) -> None:
    oid = o["order_id"]
    if len(o["returns"]) > v["max_return_requests"]:
        P(f"order {oid}: {len(o['returns'])} return requests (limit {v['max_return_requests']})")
    if not o["returns"]:
        return
    delivered = _parse(o["fulfillment"]["delivered_at"])
    seen: set[int] = set()
    for r in o["returns"]:
        rid = r["return_id"]
        at = _parse(r["requested_at"])
        items = [o["items"][i] for i in r["line_indexes"]]
        if seen & set(r["line_indexes"]):
            P(f"order {oid}: return {rid} repeats an already returned line")
        seen |= set(r["line_indexes"])
        if r["reason"] not in RETURN_REASONS:
            P(f"order {oid}: return {rid} gives the reason {r['reason']!r}, not one of the return reasons")
        defective = r["condition"] in ("damaged", "defective")
        if defective and at - delivered > dt.timedelta(days=v["damage_report_days"]):
            P(f"order {oid}: return {rid} reports damage after {v['damage_report_days']} days")
        for it in items:
            if it["final_sale"]:
                P(f"order {oid}: return {rid} includes final sale item {it['item_id']}")
            if at.date() > delivered.date() + dt.timedelta(days=return_window_days(v, it["category_key"], tier)):
                P(f"order {oid}: return {rid} of {it['item_id']} is outside the {it['category']} window")
        want = return_amounts(v, items, tier, defective, r["refund_to"] == "row_credit")
        for k in ("restocking_fee", "label_fee", "refund_amount", "bonus"):
            if abs(r[k] - want[k]) > 0.005:
                P(f"order {oid}: return {rid} {k} {r[k]} != {want[k]}")
        if r["status"] != "refunded":
            continue
        received, refunded = _parse(r["received_at"]), _parse(r["refunded_at"])
        if business_days_between(received.date(), refunded.date()) > v["inspection_business_days"]:
            P(f"order {oid}: return {rid} refunded more than {v['inspection_business_days']} business days after arrival")
        if r["refund_amount"] > v["supervisor_refund_above"] and not r.get("approved_by"):
            P(f"order {oid}: return {rid} refund {r['refund_amount']} lacks supervisor approval")
        if r["refund_to"] == "row_credit":
            es = [p for p in o["payment_history"] if p.get("return_id") == rid]
            total = cents(r["refund_amount"] + r["bonus"])
            if len(es) != 1 or es[0]["method_type"] != "store_credit" or abs(es[0]["amount"] - total) > 0.005:
                P(f"order {oid}: return {rid} Row Credit refund is not one credit of {total}")
            elif c["payment_methods"].get(es[0]["method_id"], {}).get("amount") != total:
                P(f"order {oid}: return {rid} Row Credit record does not hold {total}")
        else:
            _check_refund_routing(o, "return", r["refund_amount"], P, key=rid)


def _check_exchanges(v, tier, o, variants, P) -> None:
    oid = o["order_id"]
    if not o["exchanges"]:
        return
    delivered = _parse(o["fulfillment"]["delivered_at"])
    lines = [e["line_index"] for e in o["exchanges"]]
    if len(lines) != len(set(lines)):
        P(f"order {oid}: an item was exchanged more than once")
    returned = {i for r in o["returns"] for i in r["line_indexes"]}
    for e in o["exchanges"]:
        it = o["items"][e["line_index"]]
        at = _parse(e["at"])
        old, new = variants.get(e["old_item_id"]), variants.get(e["new_item_id"])
        if it["final_sale"] or e["line_index"] in returned:
            P(f"order {oid}: exchange of a final sale or returned item")
        if old is None or new is None or old["product_id"] != new["product_id"] or e["old_item_id"] == e["new_item_id"]:
            P(f"order {oid}: exchange is not a different variant of the same product")
            continue
        if at.date() > delivered.date() + dt.timedelta(days=return_window_days(v, it["category_key"], tier)):
            P(f"order {oid}: exchange outside the {it['category']} return window")
        if abs(e["new_price"] - price_on(new, at.date())) > 0.005 or abs(e["price_difference"] - cents(e["new_price"] - it["price"])) > 0.005:
            P(f"order {oid}: exchange price difference {e['price_difference']} is wrong")
        if e["replacement_shipping_fee"] != 0:
            P(f"order {oid}: exchange replacement shipping was charged")
        paid = sum((p["amount"] if p["kind"] == "charge" else -p["amount"]) for p in o["payment_history"]
                   if p["purpose"] == "exchange" and p["at"] == e["at"])
        if abs(cents(paid) - e["price_difference"]) > 0.005:
            P(f"order {oid}: exchange settled {cents(paid)}, expected {e['price_difference']}")


def _check_price_adjustments(v, tier, c, o, variants, P) -> None:
    oid = o["order_id"]
    placed = _parse(o["placed_at"])
    days = v["price_adjust_days_canopy"] if tier == "canopy" else v["price_adjust_days"]
    lines = [a["line_index"] for a in o["price_adjustments"]]
    if len(lines) != len(set(lines)):
        P(f"order {oid}: an item got more than one price adjustment")
    for a in o["price_adjustments"]:
        it = o["items"][a["line_index"]]
        at = _parse(a["at"])
        if it["final_sale"]:
            P(f"order {oid}: price adjustment on a final sale item")
        if at.date() > placed.date() + dt.timedelta(days=days):
            P(f"order {oid}: price adjustment {(at.date() - placed.date()).days} days after the order (limit {days})")
        now_price = price_on(variants[it["item_id"]], at.date())
        amount = cents(it["price"] - now_price)
        if abs(a["new_price"] - now_price) > 0.005 or abs(a["amount"] - amount) > 0.005 or a["paid_price"] != it["price"]:
            P(f"order {oid}: price adjustment {a['amount']} != {amount}")
        if amount < v["price_adjust_min"]:
            P(f"order {oid}: price adjustment of {amount} is below the {v['price_adjust_min']} minimum")
        sc = c["payment_methods"].get(a["store_credit_id"])
        if sc is None or sc["type"] != "store_credit" or abs(sc["amount"] - a["amount"]) > 0.005:
            P(f"order {oid}: price adjustment not paid as Row Credit of {a['amount']}")


# ---------------------------------------------------------------- contract

class Retail(DomainCode):
    """The retail pack's code: seed, check, API (api.py) and held-out tests (scenarios.py)."""

    values = VALUES
    value_facts = VALUE_FACTS
    scales_prices = True
    test_quota = TestQuota(min_tests=60, min_trap_share=0.4, full_value_coverage=True)

    def generate(self, pack, seed, values=None, price_scale=1.0):
        return generate(pack, seed, values, price_scale)

    def check(self, pack, db, values=None):
        return check(pack, db, values)

    def merged_values(self, values=None):
        return merged_values(values)

    def api(self, pack, values=None):
        from .api import CATALOG  # noqa: PLC0415
        return CATALOG.bind(pack, merged_values(values))

    def scenarios(self, ctx):
        from .scenarios import scenarios  # noqa: PLC0415
        return scenarios(ctx)


DOMAIN = Retail()
