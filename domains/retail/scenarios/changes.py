"""Changes to pending orders: items, address, payment method, and what is too late."""
from __future__ import annotations

from typing import Optional

from domains.seedkit import cents, parse_ts
from domains.simtests import Scenario, amount_text

from ..rules import net_paid, price_on, shipping_fee
from .base import Shop


def pending_changes(R: Shop) -> list[Optional[Scenario]]:
    pend = R.orders("pending")
    out = _addresses(R, pend, R.orders("processed"))
    out += _items(R, pend)
    return out + _payments(R, pend)


def _addresses(R: Shop, pend: list[dict], proc: list[dict]) -> list[Optional[Scenario]]:
    """A new street address for a pending or processed order; PO boxes, Hawaii, shipped orders refused."""
    F, out = R.F, []
    addr = {"line1": "88 Juniper Court", "line2": "", "city": "Madison", "state": "WI", "zip": "53703"}
    for slug, o in (("address-pending", pend[0] if pend else None), ("address-processed", proc[0] if proc else None)):
        if o is None:
            continue
        c = R.owner(o)
        args = {"order_id": o["order_id"], **addr}
        out.append(R.base(slug, "none", c, o,
                          purpose="A pending or processed order can get a new US street address.",
                          reason=f"You moved and want order {o['order_id']} shipped to {addr['line1']}, "
                                 f"{addr['city']}, {addr['state']} {addr['zip']}.",
                          opening=f"Can you ship order {o['order_id']} to my new address, {addr['line1']}, "
                                  f"{addr['city']}, {addr['state']} {addr['zip']}?",
                          gold=[R.lookup(o), ("modify_shipping_address", args)],
                          naive=[("modify_shipping_address", args)],
                          facts=[F.find("can still get a new shipping address")]))
    for slug, line1, state, say, fact in (
            ("address-po-box-refused", "PO Box 4471", "WI", "PO", "can't ship to PO boxes"),
            ("address-hawaii-refused", "12 Kahala Ave", "HI", "48", "48 contiguous US states")):
        o = pend[1] if len(pend) > 1 else (pend[0] if pend else None)
        if o is None:
            continue
        c = R.owner(o)
        args = {"order_id": o["order_id"], "line1": line1, "line2": "", "city": "Honolulu" if state == "HI" else "Madison",
                "state": state, "zip": "96816" if state == "HI" else "53703"}
        out.append(R.base(slug, "refuse", c, o,
                          purpose="Orders ship only to street addresses in the 48 contiguous states.",
                          reason=f"You want order {o['order_id']} sent to {line1}, {args['city']}, {state}.",
                          opening=f"Please change the address on {o['order_id']} to {line1}, {args['city']}, {state} "
                                  f"{args['zip']}.",
                          gold=[R.lookup(o)],
                          naive=[("modify_shipping_address", args)], communicate=[say], facts=[F.find(fact)]))
    shipped = R.orders("shipped")
    if shipped:
        o = shipped[1] if len(shipped) > 1 else shipped[0]
        c = R.owner(o)
        args = {"order_id": o["order_id"], **addr}
        out.append(R.base("address-shipped-refused", "refuse", c, o,
                          purpose="A shipped order cannot be changed.",
                          reason=f"You want order {o['order_id']} redirected to {addr['line1']}, {addr['city']}.",
                          opening=f"Order {o['order_id']} should go to {addr['line1']}, {addr['city']} instead.",
                          gold=[R.lookup(o)], naive=[("modify_shipping_address", args)],
                          communicate=[o["fulfillment"]["tracking_number"]],
                          facts=[F.find("A shipped order can't be cancelled or changed"),
                                 F.find("email the tracking number as soon as an order ships")]))
    return out


def _items(R: Shop, pend: list[dict]) -> list[Optional[Scenario]]:
    """Swap an item for another variant (the price and shipping difference), at most twice;
    another product is refused."""
    v, F, out = R.v, R.F, []
    made = 0
    for o in pend:
        changes = sum(m["type"] == "item_change" for m in o["modifications"])
        c = R.owner(o)
        placed = parse_ts(o["placed_at"]).date()
        for i, it in enumerate(o["items"]):
            prod = R.db["products"][it["product_id"]]
            alt = next((k for k in sorted(prod["variants"]) if k != it["item_id"] and prod["variants"][k]["available"]),
                       None)
            if alt is None:
                continue
            if changes >= v["max_item_changes"]:
                out.append(R.base("item-change-limit-refused", "refuse", c, o,
                                  purpose="Items in a pending order can be changed at most 2 times.",
                                  reason=f"You want to swap the {it['name']} on {o['order_id']} for another option.",
                                  opening=f"Can I switch the {it['name']} on {o['order_id']} to a different option?",
                                  gold=[R.lookup(o)],
                                  naive=[("modify_order_item", {"order_id": o["order_id"], "line_index": i,
                                                                "new_item_id": alt, "price_difference": 0,
                                                                "shipping_difference": 0})],
                                  communicate=[str(int(v["max_item_changes"]))], facts=[F.value("max_item_changes")],
                                  value_keys=["max_item_changes"]))
                break
            diff = cents(price_on(prod["variants"][alt], placed) - it["price"])
            sub = cents(o["subtotal"] + diff)
            ship = cents(shipping_fee(v, R.tier(c), o["shipping_method"], sub) - o["shipping_fee"])
            amount = cents(diff + ship)
            args = {"order_id": o["order_id"], "line_index": i, "new_item_id": alt, "price_difference": diff,
                    "shipping_difference": ship}
            if amount > 0:
                pm = R.primary(c) or next(iter(net_paid(o)))[0]
                args["payment_method_id"] = pm
            elif amount < 0:
                args["refunds"] = R.refunds(o, -amount)
            opts = ", ".join(f"{k} {x}" for k, x in prod["variants"][alt]["options"].items())
            out.append(R.base("item-change", "fee" if amount > 0 else "none", c, o,
                              purpose="Swap an item of a pending order for another variant of the same product; the "
                                      "price difference (and any shipping change) is paid or refunded.",
                              reason=f"You want the {it['name']} on {o['order_id']} in {opts} instead.",
                              instructions=["Pay any difference with your card or PayPal."],
                              opening=f"Can I change the {it['name']} on order {o['order_id']} to {opts}?",
                              gold=[R.lookup(o),
                                    ("get_product", {"product_id": it["product_id"]}), ("modify_order_item", args)],
                              naive=[("modify_order_item", {"order_id": o["order_id"], "line_index": i,
                                                            "new_item_id": alt, "price_difference": 0,
                                                            "shipping_difference": 0})],
                              communicate=[amount_text(abs(amount))] if amount else [],
                              facts=[F.find("swapped for another variant of the same product"),
                                     F.find("When the new variant costs more, the customer pays the difference with")],
                              value_keys=[]))
            made += 1
            break
        if made >= 2:
            break
    o = pend[0] if pend else None
    if o is not None:
        c = R.owner(o)
        it = o["items"][0]
        other = next(var for iid, var in sorted(R.variants.items()) if var["product_id"] != it["product_id"]
                     and var["available"])
        out.append(R.base("swap-other-product-refused", "refuse", c, o,
                          purpose="An item can only be swapped for another variant of the same product.",
                          reason=f"You want to replace the {it['name']} on {o['order_id']} with a "
                                 f"{R.db['products'][other['product_id']]['name']}.",
                          opening=f"Instead of the {it['name']} on {o['order_id']}, I'd like a "
                                  f"{R.db['products'][other['product_id']]['name']}.",
                          gold=[R.lookup(o)],
                          naive=[("modify_order_item", {"order_id": o["order_id"], "line_index": 0,
                                                        "new_item_id": other["item_id"], "price_difference": 0,
                                                        "shipping_difference": 0})],
                          communicate=["new order"], facts=[F.find("can't add new products or change quantities")]))
    return out


def _payments(R: Shop, pend: list[dict]) -> list[Optional[Scenario]]:
    """Move a pending order's payment to another saved method; a gift card must cover the total."""
    F, out = R.F, []
    for o in pend:
        net = [x for x in net_paid(o) if x[2] > 0]
        c = R.owner(o)
        if len(net) != 1 or any(m["type"] == "payment_change" for m in o["modifications"]):
            continue
        gift = next((k for k in sorted(c["payment_methods"]) if c["payment_methods"][k]["type"] == "gift_card"
                     and 0 < c["payment_methods"][k]["balance"] < o["total"]), None)
        other = next((k for k in sorted(c["payment_methods"]) if k != net[0][0]
                      and c["payment_methods"][k]["type"] in ("card", "paypal")), None)
        if gift is not None:
            out.append(R.base("payment-to-small-gift-card-refused", "refuse", c, o,
                              purpose="A gift card can take over an order's payment only if it covers the whole total.",
                              reason=f"You want to pay order {o['order_id']} with your gift card instead.",
                              opening=f"Can you move the payment for {o['order_id']} to my gift card?",
                              gold=[R.lookup(o),
                                    ("get_customer", {"customer_id": c["customer_id"]})],
                              naive=[("change_payment_method", {"order_id": o["order_id"], "new_method_id": gift})],
                              communicate=[amount_text(c["payment_methods"][gift]["balance"])],
                              facts=[F.find("only if its balance covers the whole order total")]))
        elif other is not None:
            args = {"order_id": o["order_id"], "new_method_id": other}
            out.append(R.base("payment-change", "none", c, o,
                              purpose="A pending order's payment can move to another saved method; the old payment "
                                      "is refunded in full.",
                              reason=f"You want order {o['order_id']} charged to your other saved method.",
                              opening=f"Please charge order {o['order_id']} to my other saved payment method.",
                              gold=[("get_customer", {"customer_id": c["customer_id"]}), ("change_payment_method", args)],
                              naive=[("change_payment_method", args)],
                              facts=[F.find("payment can be moved to one other payment method")]))
    return out
