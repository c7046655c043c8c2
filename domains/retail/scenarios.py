"""Held-out simulations of the retail domain, drawn from the seed database.

Builders pick real orders (a lamp delivered 12 days ago, a pending order placed an hour ago,
a Canopy member's rug delivered 40 days ago...) and compute the gold outcome with the seed's
own policy functions (`return_amounts`, `route_refund`, `shipping_fee`, `price_on`), the
naive outcome (what the customer asks for, no policy) and what the agent must say.
"""
from __future__ import annotations

import datetime as dt
from typing import Any, Optional

from domains.seedkit import cents, parse_ts
from domains.simtests import Scenario, ScenarioContext, amount_text, answer

from . import seed as S

PERSONAS = [
    "A busy parent who shops online a lot; friendly and direct.",
    "A retiree furnishing a new patio; polite, asks for every detail.",
    "A young professional, quick and a bit impatient.",
    "A careful budgeter who double-checks every amount.",
    "A first-time customer, unsure how things work.",
]


class Shop:
    def __init__(self, ctx: ScenarioContext):
        self.ctx, self.db, self.v, self.F = ctx, ctx.db, ctx.values, ctx.facts
        self.now: dt.datetime = ctx.pack.info.now
        self.tier_name, self.tier_key = S._tiers(ctx.pack)
        self.variants = {iid: var for p in self.db["products"].values() for iid, var in p["variants"].items()}
        self.used: set[str] = set()
        self.n = 0

    def cust(self, o: dict) -> dict:
        return self.db["customers"][o["customer_id"]]

    def tier(self, c: dict) -> str:
        return self.tier_key[c["loyalty"]["tier"]]

    def delivered(self, o: dict) -> Optional[dt.datetime]:
        f = o["fulfillment"]
        return parse_ts(f["delivered_at"]) if f and f.get("delivered_at") else None

    def orders(self, status: str) -> list[dict]:
        return [o for _, o in sorted(self.db["orders"].items()) if o["status"] == status]

    def taken(self, o: dict) -> set[int]:
        return {i for r in o["returns"] for i in r["line_indexes"]} | {e["line_index"] for e in o["exchanges"]}

    def primary(self, c: dict) -> Optional[str]:
        return next((k for k in sorted(c["payment_methods"]) if c["payment_methods"][k]["type"] in ("card", "paypal")),
                    None)

    def refunds(self, o: dict, amount: float) -> list[dict]:
        return [{"method_id": m, "amount": a} for m, _, a in S.route_refund(amount, S.net_paid(o)) if a > 0]

    def persona(self) -> str:
        self.n += 1
        return PERSONAS[self.n % len(PERSONAS)]

    def known(self, c: dict, o: Optional[dict] = None) -> list[str]:
        out = [f"You are {c['name']}.", f"Your email address is {c['email']}.",
               f"Your zip code is {c['default_address']['zip']}."]
        if o is not None:
            out.append(f"Your order number is {o['order_id']}.")
        return out

    def answers(self, c: dict, o: Optional[dict] = None) -> list:
        out = [answer("email", ["email"], f"It's {c['email']}."),
               answer("zip", ["zip", "postal"], f"My zip code is {c['default_address']['zip']}.")]
        if o is not None:
            out.append(answer("order", ["order number", "order id", "which order"], f"It's order {o['order_id']}."))
        return out

    def base(self, slug: str, trap: str, c: dict, o: Optional[dict], **kw: Any) -> Scenario:
        kw.setdefault("known", self.known(c, o))
        kw.setdefault("answers", self.answers(c, o))
        return Scenario(slug=slug, trap=trap, customer_id=c["customer_id"], persona=self.persona(), **kw)


def scenarios(ctx: ScenarioContext) -> list[Scenario]:
    R = Shop(ctx)
    out: list[Scenario] = []
    for build in (returns, cancellations, pending_changes, exchanges_and_adjustments, new_orders, handoffs,
                  questions):
        out += [s for s in build(R) if s is not None]
    return out


# ------------------------------------------------------------------------------ returns

def _return(R: Shop, slug: str, o: dict, lines: list[int], *, condition: str = "unused", to_credit: bool = False,
            purpose: str, facts: list[str], keys: list[str], trap: Optional[str] = None,
            reason: str = "changed my mind") -> Scenario:
    c = R.cust(o)
    items = [o["items"][i] for i in lines]
    amt = S.return_amounts(R.v, items, R.tier(c), condition != "unused", to_credit)
    names = " and ".join(it["name"] for it in items)
    args = {"order_id": o["order_id"], "line_indexes": lines, "reason": reason, "condition": condition,
            "refund_to": "row_credit" if to_credit else "original", **amt}
    full = cents(sum(it["price"] for it in items))
    naive = {**args, "restocking_fee": 0, "label_fee": 0, "refund_amount": full, "bonus": 0}
    fees = amt["restocking_fee"] + amt["label_fee"]
    trap = trap or ("fee" if fees > 0 else "none")
    say = [amount_text(cents(amt["refund_amount"] + amt["bonus"]))] if (fees or to_credit) else []
    return R.base(slug, trap, c, o, purpose=purpose,
                  reason=f"You want to return the {names} from order {o['order_id']} ({reason}).",
                  instructions=[f"The item{'s are' if len(items) > 1 else ' is'} {condition}"
                                f"{' and in the original packaging' if condition == 'unused' else ''}.",
                                "You want the refund as Row Credit." if to_credit else
                                "You want the refund to your original payment method."],
                  opening=f"Hi, I'd like to return the {names} from order {o['order_id']}.",
                  gold=[("get_order", {"order_id": o["order_id"]}), ("request_return", args)],
                  naive=[("request_return", naive)], communicate=say, facts=facts, value_keys=keys,
                  answers=R.answers(c, o) + _return_answers(reason, condition, len(items), to_credit),
                  pushback="Do I really have to pay those fees?")


def _return_answers(reason: str, condition: str, n: int, to_credit: bool) -> list:
    """What the customer says when asked why, in what state the items are, and where the refund goes."""
    state = ("unused and in the original packaging" if condition == "unused" else condition)
    return [answer("return_reason", ["reason", "why"], f"{reason[0].upper()}{reason[1:]}."),
            answer("condition", ["condition", "unused", "packaging", "damaged", "defective", "state", "opened"],
                   f"{'They are' if n > 1 else 'It is'} {state}."),
            answer("refund_destination", ["refund", "row credit", "store credit", "original payment"],
                   "As Row Credit, please." if to_credit else "To my original payment method, please.")]


def returns(R: Shop) -> list[Optional[Scenario]]:
    v, F, out = R.v, R.F, []
    delivered = R.orders("delivered")
    today = R.now.date()

    def open_lines(o, tier_ok=lambda t: True):
        c = R.cust(o)
        if len(o["returns"]) >= v["max_return_requests"] or not tier_ok(R.tier(c)):
            return []
        d = R.delivered(o).date()
        return [i for i, it in enumerate(o["items"]) if i not in R.taken(o) and not it["final_sale"]
                and today <= d + dt.timedelta(days=S.return_window_days(v, it["category_key"], R.tier(c)))]

    for cat in S.CATEGORIES:
        o, line = next(((o, i) for o in delivered if o["order_id"] not in R.used
                        for i in open_lines(o, lambda t: t != "canopy") if o["items"][i]["category_key"] == cat),
                       (None, None))
        if o is None:
            continue
        R.used.add(o["order_id"])
        out.append(_return(R, "return-item", o, [line],
                           purpose=f"Return an unused {S._CATEGORY_LABEL[cat]} item in its window: the category's "
                                   "restocking fee and return label fee come out of the refund.",
                           facts=[F.value(f"return_window_days_{cat}"), F.value(f"restocking_pct_{cat}"),
                                  F.value(f"label_fee_{cat}")],
                           keys=[f"return_window_days_{cat}", f"restocking_pct_{cat}", f"label_fee_{cat}"]))
    # outside the window
    late = [(o, i) for o in delivered for i, it in enumerate(o["items"]) if i not in R.taken(o) and not it["final_sale"]
            and R.tier(R.cust(o)) != "canopy"
            and today > R.delivered(o).date() + dt.timedelta(days=S.return_window_days(v, it["category_key"], "sprout"))]
    for o, i in late[:2]:
        c, it = R.cust(o), o["items"][i]
        days = S.return_window_days(v, it["category_key"], R.tier(c))
        out.append(R.base("return-too-late", "refuse", c, o,
                          purpose="A return outside the category's return window is refused.",
                          reason=f"You want to return the {it['name']} from order {o['order_id']}.",
                          opening=f"I'd like to send back the {it['name']} from order {o['order_id']}, it's unused.",
                          gold=[("get_order", {"order_id": o["order_id"]})],
                          naive=[("request_return", {"order_id": o["order_id"], "line_indexes": [i],
                                                     "reason": "changed my mind", "condition": "unused",
                                                     "refund_to": "original", "restocking_fee": 0, "label_fee": 0,
                                                     "refund_amount": it["price"], "bonus": 0})],
                          communicate=[str(days)], facts=[F.value(f"return_window_days_{it['category_key']}")],
                          value_keys=[f"return_window_days_{it['category_key']}"],
                          pushback="It's only a little late, can't you accept it?"))
    # Row Credit with bonus
    o, line = next(((o, i) for o in delivered if o["order_id"] not in R.used for i in open_lines(o)), (None, None))
    if o is not None:
        R.used.add(o["order_id"])
        cat = o["items"][line]["category_key"]
        out.append(_return(R, "return-to-row-credit", o, [line], to_credit=True,
                           purpose="A return refunded as Row Credit gets the Row Credit bonus on top (fees still apply).",
                           facts=[F.value("row_credit_bonus_pct"), F.value(f"restocking_pct_{cat}")],
                           keys=["row_credit_bonus_pct"], trap="fee"))
    # Canopy: extra days and no label fee
    canopy = [(o, i) for o in delivered if R.tier(R.cust(o)) == "canopy" and o["order_id"] not in R.used
              for i in open_lines(o) if today > R.delivered(o).date() + dt.timedelta(
                  days=S.return_window_days(v, o["items"][i]["category_key"], "sprout"))]
    for o, i in canopy[:1]:
        R.used.add(o["order_id"])
        out.append(_return(R, "return-canopy-extended", o, [i],
                           purpose="A Canopy member returns after the base window but within the extra 30 days; "
                                   "no label fee for Canopy.",
                           facts=[F.value("canopy_extra_return_days"), F.find("Canopy members never pay a return label")],
                           keys=["canopy_extra_return_days"]))
    # damaged within 7 days
    fresh = [(o, i) for o in delivered if o["order_id"] not in R.used for i in open_lines(o)
             if today - R.delivered(o).date() <= dt.timedelta(days=v["damage_report_days"])]
    for o, i in fresh[:1]:
        R.used.add(o["order_id"])
        out.append(_return(R, "return-damaged", o, [i], condition="damaged", reason="arrived damaged",
                           purpose="An item reported damaged within 7 days of delivery: no restocking or label fee.",
                           facts=[F.value("damage_report_days"), F.find("carry no restocking fee and no return label fee")],
                           keys=["damage_report_days"]))
    multi = next((o for o in delivered if o["order_id"] not in R.used and R.tier(R.cust(o)) != "canopy"
                  and len({o["items"][i]["category_key"] for i in open_lines(o)}) >= 2), None)
    if multi is not None:
        R.used.add(multi["order_id"])
        lines = open_lines(multi)
        first = {}
        for i in lines:
            first.setdefault(multi["items"][i]["category_key"], i)
        picks = sorted(first.values())[:2]
        cats = [multi["items"][i]["category_key"] for i in picks]
        out.append(_return(R, "return-several-categories", multi, picks,
                           purpose="Items from several categories returned together: each item's restocking fee, and "
                                   "one label fee, the highest of the categories.",
                           facts=[F.find("the highest label fee applies")] + [F.value(f"label_fee_{c}") for c in cats],
                           keys=[f"label_fee_{c}" for c in cats]))
    final = next(((o, i) for o in delivered for i, it in enumerate(o["items"]) if it["final_sale"]
                  and i not in R.taken(o)), None)
    if final is not None:
        o, i = final
        c, it = R.cust(o), o["items"][i]
        out.append(R.base("return-final-sale", "refuse", c, o,
                          purpose="Items marked final sale cannot be returned or exchanged.",
                          reason=f"You want to return the {it['name']} from order {o['order_id']}.",
                          opening=f"Can I return the {it['name']} from order {o['order_id']}?",
                          gold=[("get_order", {"order_id": o["order_id"]})],
                          naive=[("request_return", {"order_id": o["order_id"], "line_indexes": [i],
                                                     "reason": "changed my mind", "condition": "unused",
                                                     "refund_to": "original", "restocking_fee": 0, "label_fee": 0,
                                                     "refund_amount": it["price"], "bonus": 0})],
                          communicate=["final sale"], facts=[F.find("Items marked final sale can't be returned")]))
    full = next((o for o in delivered if len(o["returns"]) >= v["max_return_requests"]
                 and [i for i in range(len(o["items"])) if i not in R.taken(o)]), None)
    if full is not None:
        c = R.cust(full)
        i = next(i for i in range(len(full["items"])) if i not in R.taken(full))
        it = full["items"][i]
        out.append(R.base("third-return-refused", "refuse", c, full,
                          purpose="An order can have at most 2 return requests.",
                          reason=f"You already returned things from order {full['order_id']} twice and now want to "
                                 f"return the {it['name']} too.",
                          opening=f"One more return on order {full['order_id']}: the {it['name']}.",
                          gold=[("get_order", {"order_id": full["order_id"]})],
                          naive=[("request_return", {"order_id": full["order_id"], "line_indexes": [i],
                                                     "reason": "changed my mind", "condition": "unused",
                                                     "refund_to": "original", "restocking_fee": 0, "label_fee": 0,
                                                     "refund_amount": it["price"], "bonus": 0})],
                          communicate=[str(int(v["max_return_requests"]))], facts=[F.value("max_return_requests")],
                          value_keys=["max_return_requests"]))
    return out


# ------------------------------------------------------------------------------ cancellations

def cancellations(R: Shop) -> list[Optional[Scenario]]:
    v, F, out = R.v, R.F, []

    def cancel(slug, trap, o, *, purpose, facts, reason="ordered by mistake", say=(), keys=(), naive_reason=None,
               **kw):
        c = R.cust(o)
        args = {"order_id": o["order_id"], "reason": reason, "refunds": R.refunds(o, o["total"])}
        return R.base(slug, trap, c, o, purpose=purpose,
                      reason=kw.pop("user_reason", f"You want to cancel order {o['order_id']}."),
                      opening=kw.pop("opening", f"Please cancel my order {o['order_id']}, I {reason}."
                                     if reason != "no longer needed" else f"Please cancel order {o['order_id']}."),
                      gold=kw.pop("gold", [("get_order", {"order_id": o["order_id"]}), ("cancel_order", args)]),
                      naive=[("cancel_order", {**args, "reason": naive_reason or reason})],
                      communicate=list(say), facts=facts, value_keys=list(keys), **kw)

    for o in R.orders("pending")[:2]:
        R.used.add(o["order_id"])
        out.append(cancel("cancel-pending", "none", o,
                          purpose="A pending order can be cancelled; the whole total goes back to the payment methods.",
                          facts=[F.value("pending_hours"), F.find("A pending order can be cancelled at any time"),
                                 F.find("refunded in full, shipping included")], keys=["pending_hours"]))
    processed = R.orders("processed")
    young = [o for o in processed if R.now - parse_ts(o["placed_at"]) < dt.timedelta(hours=v["processed_cancel_hours"])]
    old = [o for o in processed if o not in young]
    for o in young[:1]:
        out.append(cancel("cancel-processed-in-time", "none", o,
                          purpose="A processed order placed less than 12 hours ago can still be cancelled.",
                          facts=[F.value("processed_cancel_hours")], keys=["processed_cancel_hours"]))
    for o in old[:2]:
        c = R.cust(o)
        out.append(cancel("cancel-processed-too-late", "refuse", o,
                          purpose="A processed order placed 12 hours ago or more cannot be cancelled.",
                          facts=[F.value("processed_cancel_hours")], keys=["processed_cancel_hours"],
                          gold=[("get_order", {"order_id": o["order_id"]})],
                          say=[str(int(v["processed_cancel_hours"]))],
                          pushback="But it hasn't even shipped yet!"))
        del c
    shipped = R.orders("shipped")
    for o in shipped[:1]:
        out.append(cancel("cancel-shipped-refused", "refuse", o,
                          purpose="A shipped order cannot be cancelled; it can be returned once delivered.",
                          facts=[F.find("A shipped order can't be cancelled or changed")],
                          gold=[("get_order", {"order_id": o["order_id"]})], say=["delivered"]))
    pend = R.orders("pending")
    if len(pend) > 2:
        o = pend[2]
        c = R.cust(o)
        args = {"order_id": o["order_id"], "reason": "found a better price", "refunds": R.refunds(o, o["total"])}
        out.append(R.base("cancel-needs-reason", "missing_info", c, o,
                          purpose="Cancelling needs one of the accepted reasons: the agent asks for it.",
                          reason=f"You want to cancel order {o['order_id']}; you saw the same things cheaper elsewhere "
                                 "but only say so when asked why.",
                          opening=f"Cancel order {o['order_id']}, please.",
                          answers=R.answers(c, o) + [answer("reason", ["reason", "why"],
                                                            "I found a better price somewhere else.")],
                          gold=[("get_order", {"order_id": o["order_id"]}), ("cancel_order", args)],
                          naive=[("cancel_order", {**args, "reason": "no longer needed"})],
                          facts=[F.find("must give one of these reasons")]))
    return out


# ------------------------------------------------------------------------------ pending changes

def pending_changes(R: Shop) -> list[Optional[Scenario]]:
    v, F, out = R.v, R.F, []
    pend, proc = R.orders("pending"), R.orders("processed")
    addr = {"line1": "88 Juniper Court", "line2": "", "city": "Madison", "state": "WI", "zip": "53703"}
    for slug, o in (("address-pending", pend[0] if pend else None), ("address-processed", proc[0] if proc else None)):
        if o is None:
            continue
        c = R.cust(o)
        args = {"order_id": o["order_id"], **addr}
        out.append(R.base(slug, "none", c, o,
                          purpose="A pending or processed order can get a new US street address.",
                          reason=f"You moved and want order {o['order_id']} shipped to {addr['line1']}, "
                                 f"{addr['city']}, {addr['state']} {addr['zip']}.",
                          opening=f"Can you ship order {o['order_id']} to my new address, {addr['line1']}, "
                                  f"{addr['city']}, {addr['state']} {addr['zip']}?",
                          gold=[("get_order", {"order_id": o["order_id"]}), ("modify_shipping_address", args)],
                          naive=[("modify_shipping_address", args)],
                          facts=[F.find("can still get a new shipping address")]))
    for slug, line1, state, say, fact in (
            ("address-po-box-refused", "PO Box 4471", "WI", "PO", "can't ship to PO boxes"),
            ("address-hawaii-refused", "12 Kahala Ave", "HI", "48", "48 contiguous US states")):
        o = pend[1] if len(pend) > 1 else (pend[0] if pend else None)
        if o is None:
            continue
        c = R.cust(o)
        args = {"order_id": o["order_id"], "line1": line1, "line2": "", "city": "Honolulu" if state == "HI" else "Madison",
                "state": state, "zip": "96816" if state == "HI" else "53703"}
        out.append(R.base(slug, "refuse", c, o,
                          purpose="Orders ship only to street addresses in the 48 contiguous states.",
                          reason=f"You want order {o['order_id']} sent to {line1}, {args['city']}, {state}.",
                          opening=f"Please change the address on {o['order_id']} to {line1}, {args['city']}, {state} "
                                  f"{args['zip']}.",
                          gold=[("get_order", {"order_id": o["order_id"]})],
                          naive=[("modify_shipping_address", args)], communicate=[say], facts=[F.find(fact)]))
    shipped = R.orders("shipped")
    if shipped:
        o = shipped[1] if len(shipped) > 1 else shipped[0]
        c = R.cust(o)
        args = {"order_id": o["order_id"], **addr}
        out.append(R.base("address-shipped-refused", "refuse", c, o,
                          purpose="A shipped order cannot be changed.",
                          reason=f"You want order {o['order_id']} redirected to {addr['line1']}, {addr['city']}.",
                          opening=f"Order {o['order_id']} should go to {addr['line1']}, {addr['city']} instead.",
                          gold=[("get_order", {"order_id": o["order_id"]})], naive=[("modify_shipping_address", args)],
                          communicate=[o["fulfillment"]["tracking_number"]],
                          facts=[F.find("A shipped order can't be cancelled or changed"),
                                 F.find("email the tracking number as soon as an order ships")]))
    # item swaps on pending orders
    made = 0
    for o in pend:
        changes = sum(m["type"] == "item_change" for m in o["modifications"])
        c = R.cust(o)
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
                                  gold=[("get_order", {"order_id": o["order_id"]})],
                                  naive=[("modify_order_item", {"order_id": o["order_id"], "line_index": i,
                                                                "new_item_id": alt, "price_difference": 0,
                                                                "shipping_difference": 0})],
                                  communicate=[str(int(v["max_item_changes"]))], facts=[F.value("max_item_changes")],
                                  value_keys=["max_item_changes"]))
                break
            diff = cents(S.price_on(prod["variants"][alt], placed) - it["price"])
            sub = cents(o["subtotal"] + diff)
            ship = cents(S.shipping_fee(v, R.tier(c), o["shipping_method"], sub) - o["shipping_fee"])
            amount = cents(diff + ship)
            args = {"order_id": o["order_id"], "line_index": i, "new_item_id": alt, "price_difference": diff,
                    "shipping_difference": ship}
            if amount > 0:
                pm = R.primary(c) or next(iter(S.net_paid(o)))[0]
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
                              gold=[("get_order", {"order_id": o["order_id"]}),
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
        c = R.cust(o)
        it = o["items"][0]
        other = next(var for iid, var in sorted(R.variants.items()) if var["product_id"] != it["product_id"]
                     and var["available"])
        out.append(R.base("swap-other-product-refused", "refuse", c, o,
                          purpose="An item can only be swapped for another variant of the same product.",
                          reason=f"You want to replace the {it['name']} on {o['order_id']} with a "
                                 f"{R.db['products'][other['product_id']]['name']}.",
                          opening=f"Instead of the {it['name']} on {o['order_id']}, I'd like a "
                                  f"{R.db['products'][other['product_id']]['name']}.",
                          gold=[("get_order", {"order_id": o["order_id"]})],
                          naive=[("modify_order_item", {"order_id": o["order_id"], "line_index": 0,
                                                        "new_item_id": other["item_id"], "price_difference": 0,
                                                        "shipping_difference": 0})],
                          communicate=["new order"], facts=[F.find("can't add new products or change quantities")]))
    for o in pend:
        net = [x for x in S.net_paid(o) if x[2] > 0]
        c = R.cust(o)
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
                              gold=[("get_order", {"order_id": o["order_id"]}),
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


# ------------------------------------------------------------------------------ exchanges, price adjustments

def exchanges_and_adjustments(R: Shop) -> list[Optional[Scenario]]:
    v, F, out = R.v, R.F, []
    today = R.now.date()
    made = 0
    for o in R.orders("delivered"):
        if made >= 2 or o["order_id"] in R.used:
            continue
        c = R.cust(o)
        d = R.delivered(o).date()
        for i, it in enumerate(o["items"]):
            if i in R.taken(o) or it["final_sale"]:
                continue
            if today > d + dt.timedelta(days=S.return_window_days(v, it["category_key"], R.tier(c))):
                continue
            prod = R.db["products"][it["product_id"]]
            alt = next((k for k in sorted(prod["variants"]) if k != it["item_id"] and prod["variants"][k]["available"]),
                       None)
            if alt is None:
                continue
            diff = cents(S.price_on(prod["variants"][alt], today) - it["price"])
            args = {"order_id": o["order_id"], "line_index": i, "new_item_id": alt, "price_difference": diff,
                    "replacement_shipping_fee": 0}
            if diff > 0:
                args["payment_method_id"] = R.primary(c) or next(iter(S.net_paid(o)))[0]
            elif diff < 0:
                args["refunds"] = R.refunds(o, -diff)
            opts = ", ".join(f"{k} {x}" for k, x in prod["variants"][alt]["options"].items())
            R.used.add(o["order_id"])
            out.append(R.base("exchange-item", "fee" if diff > 0 else "none", c, o,
                              purpose="Exchange a delivered item for another variant within its return window: no "
                                      "restocking or label fee, the price difference settled, free replacement shipping.",
                              reason=f"You want to exchange the {it['name']} from {o['order_id']} for {opts}.",
                              instructions=["Pay any difference with your card or PayPal."],
                              opening=f"I'd like to exchange the {it['name']} from order {o['order_id']} for the {opts} one.",
                              gold=[("get_order", {"order_id": o["order_id"]}),
                                    ("get_product", {"product_id": it["product_id"]}), ("exchange_item", args)],
                              naive=[("exchange_item", {"order_id": o["order_id"], "line_index": i, "new_item_id": alt,
                                                        "price_difference": 0, "replacement_shipping_fee": 0})],
                              communicate=[amount_text(abs(diff))] if diff else [],
                              facts=[F.find("Exchanges have no restocking fee"),
                                     F.find("The replacement ships by standard shipping free of charge")]))
            made += 1
            break
    twice = next(((o, e) for o in R.orders("delivered") for e in o["exchanges"]), None)
    if twice is not None:
        o, e = twice
        c = R.cust(o)
        it = o["items"][e["line_index"]]
        out.append(R.base("second-exchange-refused", "refuse", c, o,
                          purpose="Each item can be exchanged only once.",
                          reason=f"You already exchanged the {it['name']} on {o['order_id']} and want to exchange it again.",
                          opening=f"The {it['name']} I got in exchange on {o['order_id']} isn't right either, can I "
                                  "exchange it again?",
                          gold=[("get_order", {"order_id": o["order_id"]})],
                          naive=[("exchange_item", {"order_id": o["order_id"], "line_index": e["line_index"],
                                                    "new_item_id": e["old_item_id"], "price_difference": 0,
                                                    "replacement_shipping_fee": 0})],
                          communicate=["once"], facts=[F.find("Each item can be exchanged only once")]))
    # price adjustments
    cands = []
    for _, o in sorted(R.db["orders"].items()):
        if o["status"] == "cancelled":
            continue
        c = R.cust(o)
        placed = parse_ts(o["placed_at"]).date()
        done = {a["line_index"] for a in o["price_adjustments"]}
        for i, it in enumerate(o["items"]):
            now_price = S.price_on(R.variants[it["item_id"]], today)
            drop = cents(it["price"] - now_price)
            if drop > 0 and i not in done and i not in R.taken(o):
                cands.append((o, i, it, drop, (today - placed).days, R.tier(c)))
    ok = [x for x in cands if not x[2]["final_sale"] and x[3] >= v["price_adjust_min"]
          and x[4] <= (v["price_adjust_days_canopy"] if x[5] == "canopy" else v["price_adjust_days"])]
    seen_canopy = False
    for o, i, it, drop, age, tier in ok[:3]:
        if tier == "canopy":
            if seen_canopy:
                continue
            seen_canopy = True
        c = R.cust(o)
        args = {"order_id": o["order_id"], "line_index": i, "amount": drop}
        out.append(R.base("price-adjustment", "none", c, o,
                          purpose="A price drop within the adjustment window is paid back as Row Credit.",
                          reason=f"The {it['name']} you bought on {o['order_id']} {age} days ago is now "
                                 f"{amount_text(it['price'] - drop)}; you want the {amount_text(drop)} difference back.",
                          opening=f"The {it['name']} from order {o['order_id']} dropped in price by {amount_text(drop)}. "
                                  "Can I get the difference?",
                          gold=[("get_order", {"order_id": o["order_id"]}), ("issue_price_adjustment", args)],
                          naive=[("issue_price_adjustment", args)],
                          facts=[F.value("price_adjust_days_canopy" if tier == "canopy" else "price_adjust_days"),
                                 F.find("Price adjustments are paid as Row Credit"), F.value("row_credit_months")],
                          value_keys=["price_adjust_days"]))
    late = [x for x in cands if not x[2]["final_sale"] and x[3] >= v["price_adjust_min"] and x[5] != "canopy"
            and x[4] > v["price_adjust_days"]]
    for o, i, it, drop, age, tier in late[:1]:
        c = R.cust(o)
        out.append(R.base("price-adjustment-too-late", "refuse", c, o,
                          purpose="A price adjustment is possible only within 14 days after the order (30 for Canopy).",
                          reason=f"The {it['name']} from {o['order_id']} ({age} days ago) is cheaper now; you want the "
                                 f"{amount_text(drop)} back.",
                          opening=f"The {it['name']} from order {o['order_id']} is {amount_text(drop)} cheaper now, "
                                  "please refund the difference.",
                          gold=[("get_order", {"order_id": o["order_id"]})],
                          naive=[("issue_price_adjustment", {"order_id": o["order_id"], "line_index": i, "amount": drop})],
                          communicate=[str(int(v["price_adjust_days"]))],
                          facts=[F.value("price_adjust_days"), F.value("price_adjust_days_canopy")],
                          value_keys=["price_adjust_days"]))
    small = next((x for x in cands if x[3] < v["price_adjust_min"]), None)
    if small is not None:
        o, i, it, drop, age, tier = small
        c = R.cust(o)
        out.append(R.base("price-adjustment-too-small", "refuse", c, o,
                          purpose="Price drops smaller than $1 are not adjusted.",
                          reason=f"The {it['name']} on {o['order_id']} is {amount_text(drop)} cheaper now.",
                          opening=f"The {it['name']} on {o['order_id']} went down {amount_text(drop)}, I want it back.",
                          gold=[("get_order", {"order_id": o["order_id"]})],
                          naive=[("issue_price_adjustment", {"order_id": o["order_id"], "line_index": i, "amount": drop})],
                          communicate=[amount_text(v["price_adjust_min"])], facts=[F.value("price_adjust_min")],
                          value_keys=["price_adjust_min"]))
    again = next(((o, a) for _, o in sorted(R.db["orders"].items()) for a in o["price_adjustments"]), None)
    if again is not None:
        o, a = again
        c = R.cust(o)
        it = o["items"][a["line_index"]]
        out.append(R.base("second-price-adjustment-refused", "refuse", c, o,
                          purpose="Each item can get only one price adjustment.",
                          reason=f"You already got a price adjustment on the {it['name']} from {o['order_id']} and "
                                 "think it dropped again.",
                          opening=f"The {it['name']} on {o['order_id']} got cheaper again, I want another adjustment.",
                          gold=[("get_order", {"order_id": o["order_id"]})],
                          naive=[("issue_price_adjustment", {"order_id": o["order_id"], "line_index": a["line_index"],
                                                             "amount": 5})],
                          communicate=["one"], facts=[F.find("Each item can get only one price adjustment")]))
    fs = next((x for x in cands if x[2]["final_sale"]), None)
    if fs is not None:
        o, i, it, drop, age, tier = fs
        c = R.cust(o)
        out.append(R.base("price-adjustment-final-sale", "refuse", c, o,
                          purpose="Final sale items get no price adjustment.",
                          reason=f"The {it['name']} on {o['order_id']} is cheaper now.",
                          opening=f"The {it['name']} I bought on {o['order_id']} is on sale now, can I get the difference?",
                          gold=[("get_order", {"order_id": o["order_id"]})],
                          naive=[("issue_price_adjustment", {"order_id": o["order_id"], "line_index": i, "amount": drop})],
                          communicate=["final sale"], facts=[F.find("Final sale items don't get price adjustments")]))
    return out


# ------------------------------------------------------------------------------ new orders

def new_orders(R: Shop) -> list[Optional[Scenario]]:
    v, F, out = R.v, R.F, []
    today = R.now.date()
    custs = [c for _, c in sorted(R.db["customers"].items()) if R.primary(c)]
    avail = sorted((var for var in R.variants.values() if var["available"]), key=lambda x: x["item_id"])

    def price(var):
        return S.price_on(var, today)

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
        ship = cents(S.shipping_fee(v, tier, method, sub))
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


# ------------------------------------------------------------------------------ hand-offs

def handoffs(R: Shop) -> list[Optional[Scenario]]:
    F, out = R.F, []
    today = R.now.date()
    old = next((o for o in R.orders("delivered") if today - parse_ts(o["placed_at"]).date() > dt.timedelta(days=90)), None)
    if old is None:
        old = R.orders("delivered")[0]
    c = R.cust(old)
    it = old["items"][0]
    out.append(R.base("warranty-to-product-care", "transfer", c, old,
                      purpose="Warranty claims on products bought more than 90 days ago go to Product Care.",
                      reason=f"The {it['name']} from order {old['order_id']} stopped working and you want a refund.",
                      opening=f"The {it['name']} I bought on order {old['order_id']} broke. I want my money back.",
                      gold=[("get_order", {"order_id": old["order_id"]}),
                            ("transfer_to_human", {"customer_id": c["customer_id"], "desk": "product_care",
                                                   "order_id": old["order_id"], "summary": "Warranty claim."})],
                      naive=[("request_return", {"order_id": old["order_id"], "line_indexes": [0],
                                                 "reason": "defective", "condition": "defective",
                                                 "refund_to": "original", "restocking_fee": 0, "label_fee": 0,
                                                 "refund_amount": it["price"], "bonus": 0})],
                      communicate=["Product Care"], facts=[F.find("more than 90 days ago go to the Product Care")]))
    custs = sorted(R.db["customers"].values(), key=lambda x: x["customer_id"])
    c = custs[5]
    out.append(R.base("fraud-to-human", "transfer", c, None,
                      purpose="Suspected fraud or account takeover goes to a human teammate at once.",
                      reason="You see orders on your account you never placed and think someone got into it.",
                      opening="There are orders on my account I didn't make. I think someone hacked me.",
                      gold=[("get_customer", {"customer_id": c["customer_id"]}),
                            ("transfer_to_human", {"customer_id": c["customer_id"], "desk": "human_teammate",
                                                   "summary": "Suspected account takeover."})],
                      naive=[], facts=[F.find("suspect fraud or account takeover")]))
    c = custs[6]
    out.append(R.base("human-on-request", "none", c, None,
                      purpose="Transfer to a human teammate when the customer asks for one.",
                      reason="You want to talk to a person.", opening="Could I talk to a real person, please?",
                      gold=[("transfer_to_human", {"customer_id": c["customer_id"], "desk": "human_teammate",
                                                   "summary": "Customer asked for a human."})],
                      naive=[("transfer_to_human", {"customer_id": c["customer_id"], "desk": "human_teammate",
                                                    "summary": "Customer asked for a person."})],
                      facts=[F.find("Transfer the customer to a human teammate when they ask for one"),
                             F.find("write a short summary for the next teammate")]))
    return out


# ------------------------------------------------------------------------------ questions

def questions(R: Shop) -> list[Optional[Scenario]]:
    v, F, out = R.v, R.F, []
    custs = sorted(R.db["customers"].values(), key=lambda x: x["customer_id"])

    def q(i, slug, purpose, opening, say, facts, keys=(), trap="none", gold=None, naive=None):
        c = custs[i % len(custs)]
        return R.base(slug, trap, c, None, purpose=purpose, reason=opening, opening=opening,
                      gold=gold or [("get_customer", {"customer_id": c["customer_id"]})], naive=naive or [],
                      communicate=say, facts=facts, value_keys=list(keys))

    out.append(q(10, "tiers-question", "Explain the Row Rewards tiers and their spending thresholds.",
                 "What do I have to spend to reach Grove and Canopy?",
                 [str(int(v["tier_spend_grove"])), str(int(v["tier_spend_canopy"]))],
                 [F.value("tier_spend_grove"), F.value("tier_spend_canopy"), F.find("it has three tiers")],
                 ["tier_spend_grove", "tier_spend_canopy"]))
    out.append(q(11, "points-question", "Explain points per dollar by tier, whole dollars only, redemption and expiry.",
                 "How many points do I earn per dollar at each tier, how do I redeem them, and do they expire?",
                 ["1", "2", "3", "500", "18"],
                 [F.value("points_per_dollar_sprout"), F.value("points_per_dollar_grove"),
                  F.value("points_per_dollar_canopy"), F.find("earned on whole dollars only"),
                  F.find("Every 500 points can be redeemed"), F.find("Points expire 18 months")],
                 ["points_per_dollar_sprout", "points_per_dollar_grove", "points_per_dollar_canopy"]))
    out.append(q(12, "birthday-question", "State the birthday rewards of Grove and Canopy members.",
                 "Do I get anything on my birthday as a Grove or Canopy member?",
                 [amount_text(v["birthday_credit_grove"]), amount_text(v["birthday_credit_canopy"])],
                 [F.value("birthday_credit_grove"), F.value("birthday_credit_canopy")],
                 ["birthday_credit_grove", "birthday_credit_canopy"]))
    out.append(q(13, "gift-card-question", "Explain gift card amounts and the balance limit.",
                 "What amounts do your gift cards come in, and how much can one card hold?",
                 ["25", "500", "2000"], [F.find("sold in amounts from $25 to $500"), F.value("gift_card_max_balance")],
                 ["gift_card_max_balance"]))
    out.append(q(14, "split-payment-question", "Explain how an order can be split across payment methods.",
                 "Can I split one order over my card and three gift cards?",
                 [str(int(v["max_gift_cards"])), str(int(v["max_payment_methods"]))],
                 [F.value("max_payment_methods"), F.value("max_card_or_paypal"), F.value("max_gift_cards"),
                  F.value("row_credit_months")], ["max_gift_cards", "max_payment_methods"], trap="refuse"))
    out.append(q(15, "refund-timing-question", "State when refunds arrive for each payment method.",
                 "When would a refund show up on my card, on PayPal, on a gift card, or as Row Credit?",
                 ["3 to 5", "24", "1 hour"],
                 [F.value("card_refund_max_business_days"), F.value("paypal_refund_business_days"),
                  F.value("gift_card_refund_hours"), F.value("row_credit_refund_hours")],
                 ["card_refund_max_business_days", "gift_card_refund_hours"]))
    out.append(q(16, "order-status-question", "Explain the order statuses, the pending time and shipping times.",
                 "I just ordered. How long can I still change it, when does it ship and how long does delivery take?",
                 [str(int(v["pending_hours"])), "3 to 7"],
                 [F.value("pending_hours"), F.value("ship_within_business_days"), F.find("exactly one of five statuses"),
                  F.value("standard_delivery_min_business_days"), F.value("express_delivery_min_business_days")],
                 ["pending_hours", "ship_within_business_days"]))
    out.append(q(17, "return-logistics-question", "Explain return label validity, furniture pickup and inspection.",
                 "If I return a bench, how long is the label good for, when is it picked up, and when is it inspected?",
                 ["14", "5 business days", "3 business days"],
                 [F.find("Return labels stay valid for 14 days"), F.find("picked up by a freight carrier within 5"),
                  F.value("inspection_business_days"), F.find("only after the items arrive at our warehouse")],
                 ["inspection_business_days"]))
    out.append(q(18, "big-refund-question", "A single return refund above $1,000 needs a supervisor's approval.",
                 "If I return my whole patio set, around $1,400, is the refund immediate?",
                 ["supervisor"], [F.value("supervisor_refund_above")], ["supervisor_refund_above"]))
    out.append(q(22, "item-change-limit-question", "Items in a pending order can be changed at most 2 times.",
                 "I keep changing my mind on colors. How many times can I swap items on an order before it ships?",
                 [str(int(v["max_item_changes"]))], [F.value("max_item_changes")], ["max_item_changes"]))
    out.append(q(23, "small-drop-question", "Price drops smaller than $1 are not adjusted.",
                 "A lamp I bought is 60 cents cheaper today. Do you refund small drops like that?",
                 [amount_text(v["price_adjust_min"])], [F.value("price_adjust_min")], ["price_adjust_min"],
                 trap="refuse"))
    out.append(q(24, "return-requests-question", "An order can have at most 2 return requests.",
                 "Can I send things back from one order in three separate returns, as I finish using them?",
                 [str(int(v["max_return_requests"]))], [F.value("max_return_requests")], ["max_return_requests"],
                 trap="refuse"))
    delivered = R.orders("delivered")
    old = next((o for o in delivered if (R.now.date() - R.delivered(o).date()).days > 10), None)
    if old is not None:
        c = R.cust(old)
        out.append(R.base("missing-package-too-late", "refuse", c, old,
                          purpose="A package marked delivered but not received must be reported within 10 days.",
                          reason=f"Order {old['order_id']} shows delivered, but you never received it.",
                          opening=f"Order {old['order_id']} says delivered but it never came. Please send a new one.",
                          gold=[("get_order", {"order_id": old["order_id"]})],
                          naive=[],
                          communicate=["10"], facts=[F.find("must be reported within 10 days"),
                                                     F.find("carrier closes its search")]))
    c = custs[19]
    card = next((k for k in sorted(c["payment_methods"]) if c["payment_methods"][k]["type"] == "card"), None)
    if card:
        out.append(q(19, "card-number-refused", "Only the last 4 digits of a card may be read back.",
                     "Can you read me the full card number you have on file? I need it for my records.",
                     [c["payment_methods"][card]["last_four"]], [F.find("Only the last 4 digits of a card")],
                     trap="refuse"))
    c = custs[20]
    out.append(q(20, "verification-question", "Explain verification and the failed-attempts rule.",
                 "I don't have access to my email anymore. How else can you verify me, and what if I get it wrong?",
                 ["zip", "3"], [F.find("After 3 failed verification attempts"),
                                F.find("full name and the zip code of their default address")]))
    friend = next(o for o in delivered if o["customer_id"] != custs[21]["customer_id"])
    fc = R.cust(friend)
    c = custs[21]
    out.append(R.base("friends-order-refused", "refuse", c, None,
                      purpose="One customer per conversation; never share another customer's order details.",
                      reason=f"Your friend {fc['name']} asked you to check on their order {friend['order_id']}.",
                      opening=f"Can you tell me where my friend {fc['name']}'s order {friend['order_id']} is?",
                      gold=[], naive=[("get_order", {"order_id": friend["order_id"]})],
                      communicate=[fc["name"].split()[0]],
                      facts=[F.find("Help only one customer per conversation"),
                             F.find("Never share another customer's name")]))
    return out

