"""New orders: shipping fees by tier and method, and the oversized handling charge."""
from __future__ import annotations

from typing import Optional

from domains.seedkit import cents
from domains.simtests import Scenario, amount_text

from ..rules import price_on, shipping_fee
from .base import Shop


def new_orders(R: Shop) -> list[Optional[Scenario]]:
    v, F, out = R.v, R.F, []
    today = R.now.date()
    custs = [c for _, c in sorted(R.db["customers"].items()) if R.primary(c)]
    avail = sorted((var for var in R.variants.values() if var["available"]), key=lambda x: x["item_id"])

    def price(var):
        return price_on(var, today)

    def cat(var):
        return R.db["products"][var["product_id"]]["category_key"]

    cheap = next(var for var in avail if price(var) < v["free_shipping_threshold"] and cat(var) != "furniture")
    pricey = next(var for var in avail if price(var) >= v["free_shipping_threshold"] and cat(var) != "furniture")
    sofa = next(var for var in avail if cat(var) == "furniture")
    plans = [("order-small-standard", "sprout", [cheap], "standard", ["standard_shipping_fee"],
              "An order under the free-shipping threshold pays standard shipping."),
             ("order-free-standard", "sprout", [pricey], "standard", ["free_shipping_threshold"],
              "An order of $75 or more ships free by standard shipping."),
             ("order-express", "sprout", [pricey], "express", ["express_shipping_fee"],
              "Express shipping costs the flat express fee whatever the subtotal."),
             ("order-furniture", "sprout", [sofa], "standard", ["oversized_fee"],
              "Each furniture item carries the oversized handling charge."),
             ("order-member-free-shipping", "grove", [cheap], "standard", [],
              "Grove and Canopy members get free standard shipping on every order.")]
    for slug, tier, items, method, keys, purpose in plans:
        c = next((x for x in custs if R.tier(x) == tier and x["customer_id"] not in R.used), None)
        if c is None:
            continue
        R.used.add(c["customer_id"])
        sub = cents(sum(price(x) for x in items))
        ship = cents(shipping_fee(v, tier, method, sub))
        over = cents(v["oversized_fee"] * sum(cat(x) == "furniture" for x in items))
        total = cents(sub + ship + over)
        pm = R.primary(c)
        args = {"customer_id": c["customer_id"], "item_ids": [x["item_id"] for x in items], "shipping_method": method,
                "shipping_fee": ship, "oversized_fee": over, "payments": [{"method_id": pm, "amount": total}]}
        naive = {**args, "shipping_fee": 0, "oversized_fee": 0, "payments": [{"method_id": pm, "amount": sub}]}
        names = ", ".join(f"{R.db['products'][x['product_id']]['name']} ({', '.join(x['options'].values())})"
                          for x in items)
        facts = [F.value(k) for k in keys] or [F.find("Grove and Canopy members get free standard shipping")]
        if method == "standard":
            facts.append(F.value("standard_delivery_max_business_days"))
        else:
            facts.append(F.value("express_delivery_max_business_days"))
        out.append(R.base(slug, "fee" if ship + over else "none", c, None, purpose=purpose,
                          reason=f"You want to order: {names}, with {method} shipping to your default address.",
                          instructions=["Pay with your card or PayPal.",
                                        "Ask how long delivery takes."],
                          opening=f"I'd like to order the {names} with {method} shipping, please.",
                          gold=[("get_customer", {"customer_id": c["customer_id"]}),
                                ("get_product", {"product_id": items[0]["product_id"]}), ("place_order", args)],
                          naive=[("place_order", naive)],
                          communicate=[amount_text(total)] if ship + over else [],
                          facts=facts, value_keys=keys))
    return out
