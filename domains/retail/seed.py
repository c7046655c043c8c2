"""Seed database for the retail domain: customers, a product catalogue with variants and price
history, and orders with their whole life: status history, shipping, item swaps, address and
payment changes, cancellations, returns (restocking and label fees), exchanges, price
adjustments, Row Credit and the payment/refund ledger. Every amount follows the policy values
(`rules.py`); `check.py` recomputes them from the records.
"""
from __future__ import annotations

import datetime as dt
import math
import unicodedata
from typing import Any

from domains.seedgen import SeedGen, price_scale_of
from domains.seedkit import add_business_days, add_months, cents, customer_names, parse_ts
from facts.errors import FactforgeError

from .rules import (CANCEL_REASONS, CATEGORY_LABEL, PLAIN_RETURN_REASONS, TIERS, net_paid, price_on, return_amounts,
                    return_window_days, route_refund, shipping_fee, tier_names, values_with)

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


# ---------------------------------------------------------------- generation

class _Gen(SeedGen):
    id_leading_zero = False

    def __init__(self, pack, seed: int, v: dict, price_scale: float):
        super().__init__(pack, seed, v, price_scale)
        self.tier_name, self.tier_key = tier_names(pack)
        self.products: dict[str, dict] = {}
        self.customers: dict[str, dict] = {}
        self.orders: dict[str, dict] = {}
        self.variants: dict[str, dict] = {}
        self._pay = 0
        self._ret = 0

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
            prod = {"product_id": pid, "name": name, "category": CATEGORY_LABEL[cat], "category_key": cat,
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
                                      "expires_on": add_months(at.astimezone(self.tz).date(), int(self.v["row_credit_months"])).isoformat(),
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
                   and parse_ts(pms[k]["issued_at"]) < at and dt.date.fromisoformat(pms[k]["expires_on"]) > at.date()]
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
        placed = parse_ts(order["placed_at"])
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
        last_change = max([processed] + [parse_ts(m["at"]) for m in order["modifications"]])
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
        new = self.line(prod["variants"][rng.choice(alts)], parse_ts(order["placed_at"]).date())
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
            at = max(at, parse_ts(order["returns"][-1]["requested_at"]) + dt.timedelta(hours=1))
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
        rid = f"{self.prefix('return', 'RT')}{5000 + self._ret}"
        ret = {"return_id": rid, "requested_at": self.ts(at), "line_indexes": pick,
               "item_ids": [it["item_id"] for it in items],
               "reason": rng.choice(["arrived damaged", "defective"]) if defective else rng.choice(PLAIN_RETURN_REASONS),
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
        placed = parse_ts(order["placed_at"])
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
    scale = price_scale_of(price_scale)
    g = _Gen(pack, seed, values_with(values), scale)
    g.build_products()
    g.build_customers(72)
    g.build_orders(260)
    return {"customers": g.customers, "orders": g.orders, "products": g.products}
