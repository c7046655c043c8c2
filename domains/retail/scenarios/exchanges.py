"""Exchanges and price adjustments."""
from __future__ import annotations

import datetime as dt
from typing import Optional

from domains.seedkit import cents, parse_ts
from domains.simtests import Scenario, amount_text

from ..rules import net_paid, price_on, return_window_days
from .base import Shop


def exchanges_and_adjustments(R: Shop) -> list[Optional[Scenario]]:
    out = _exchanges(R)
    drops = _price_drops(R)
    out += _adjustments(R, drops)
    return out + _adjustments_refused(R, drops)


def _exchanges(R: Shop) -> list[Optional[Scenario]]:
    """Exchange a delivered item for another variant in its window; a second exchange refused."""
    v, F, out = R.v, R.F, []
    today = R.now.date()
    made = 0
    for o in R.orders("delivered"):
        if made >= 2 or o["order_id"] in R.used:
            continue
        c = R.owner(o)
        d = R.delivered(o).date()
        for i, it in enumerate(o["items"]):
            if i in R.taken(o) or it["final_sale"]:
                continue
            if today > d + dt.timedelta(days=return_window_days(v, it["category_key"], R.tier(c))):
                continue
            prod = R.db["products"][it["product_id"]]
            alt = next((k for k in sorted(prod["variants"]) if k != it["item_id"] and prod["variants"][k]["available"]),
                       None)
            if alt is None:
                continue
            diff = cents(price_on(prod["variants"][alt], today) - it["price"])
            args = {"order_id": o["order_id"], "line_index": i, "new_item_id": alt, "price_difference": diff,
                    "replacement_shipping_fee": 0}
            if diff > 0:
                args["payment_method_id"] = R.primary(c) or next(iter(net_paid(o)))[0]
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
                              gold=[R.lookup(o),
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
        c = R.owner(o)
        it = o["items"][e["line_index"]]
        out.append(R.base("second-exchange-refused", "refuse", c, o,
                          purpose="Each item can be exchanged only once.",
                          reason=f"You already exchanged the {it['name']} on {o['order_id']} and want to exchange it again.",
                          opening=f"The {it['name']} I got in exchange on {o['order_id']} isn't right either, can I "
                                  "exchange it again?",
                          gold=[R.lookup(o)],
                          naive=[("exchange_item", {"order_id": o["order_id"], "line_index": e["line_index"],
                                                    "new_item_id": e["old_item_id"], "price_difference": 0,
                                                    "replacement_shipping_fee": 0})],
                          communicate=["once"], facts=[F.find("Each item can be exchanged only once")]))
    return out


def _price_drops(R: Shop) -> list[tuple[dict, int, dict, float, int, str]]:
    """(order, line, item, drop, days since the order, tier) of every line now cheaper than paid."""
    today = R.now.date()
    cands = []
    for _, o in sorted(R.db["orders"].items()):
        if o["status"] == "cancelled":
            continue
        c = R.owner(o)
        placed = parse_ts(o["placed_at"]).date()
        done = {a["line_index"] for a in o["price_adjustments"]}
        for i, it in enumerate(o["items"]):
            now_price = price_on(R.variants[it["item_id"]], today)
            drop = cents(it["price"] - now_price)
            if drop > 0 and i not in done and i not in R.taken(o):
                cands.append((o, i, it, drop, (today - placed).days, R.tier(c)))
    return cands


def _adjustment(o: dict, i: int, amount: float) -> tuple:
    """The call that pays back `amount` of a price drop on line `i` of order `o`."""
    return "issue_price_adjustment", {"order_id": o["order_id"], "line_index": i, "amount": amount}


def _adjustments(R: Shop, cands: list) -> list[Optional[Scenario]]:
    """A price drop within the adjustment window, paid as Row Credit (one Canopy member at most)."""
    v, F, out = R.v, R.F, []
    ok = [x for x in cands if not x[2]["final_sale"] and x[3] >= v["price_adjust_min"]
          and x[4] <= (v["price_adjust_days_canopy"] if x[5] == "canopy" else v["price_adjust_days"])]
    seen_canopy = False
    for o, i, it, drop, age, tier in ok[:3]:
        if tier == "canopy":
            if seen_canopy:
                continue
            seen_canopy = True
        c = R.owner(o)
        adjust = _adjustment(o, i, drop)
        out.append(R.base("price-adjustment", "none", c, o,
                          purpose="A price drop within the adjustment window is paid back as Row Credit.",
                          reason=f"The {it['name']} you bought on {o['order_id']} {age} days ago is now "
                                 f"{amount_text(it['price'] - drop)}; you want the {amount_text(drop)} difference back.",
                          opening=f"The {it['name']} from order {o['order_id']} dropped in price by {amount_text(drop)}. "
                                  "Can I get the difference?",
                          gold=[R.lookup(o), adjust], naive=[adjust],
                          facts=[F.value("price_adjust_days_canopy" if tier == "canopy" else "price_adjust_days"),
                                 F.find("Price adjustments are paid as Row Credit"), F.value("row_credit_months")],
                          value_keys=["price_adjust_days"]))
    return out


def _adjustments_refused(R: Shop, cands: list) -> list[Optional[Scenario]]:
    """Price adjustments refused: too late, too small, a second one, a final-sale item."""
    v, F, out = R.v, R.F, []
    late = [x for x in cands if not x[2]["final_sale"] and x[3] >= v["price_adjust_min"] and x[5] != "canopy"
            and x[4] > v["price_adjust_days"]]
    for o, i, it, drop, age, tier in late[:1]:
        c = R.owner(o)
        out.append(R.base("price-adjustment-too-late", "refuse", c, o,
                          purpose="A price adjustment is possible only within 14 days after the order (30 for Canopy).",
                          reason=f"The {it['name']} from {o['order_id']} ({age} days ago) is cheaper now; you want the "
                                 f"{amount_text(drop)} back.",
                          opening=f"The {it['name']} from order {o['order_id']} is {amount_text(drop)} cheaper now, "
                                  "please refund the difference.",
                          gold=[R.lookup(o)],
                          naive=[_adjustment(o, i, drop)],
                          communicate=[str(int(v["price_adjust_days"]))],
                          facts=[F.value("price_adjust_days"), F.value("price_adjust_days_canopy")],
                          value_keys=["price_adjust_days"]))
    small = next((x for x in cands if x[3] < v["price_adjust_min"]), None)
    if small is not None:
        o, i, it, drop, age, tier = small
        c = R.owner(o)
        out.append(R.base("price-adjustment-too-small", "refuse", c, o,
                          purpose="Price drops smaller than $1 are not adjusted.",
                          reason=f"The {it['name']} on {o['order_id']} is {amount_text(drop)} cheaper now.",
                          opening=f"The {it['name']} on {o['order_id']} went down {amount_text(drop)}, I want it back.",
                          gold=[R.lookup(o)],
                          naive=[_adjustment(o, i, drop)],
                          communicate=[amount_text(v["price_adjust_min"])], facts=[F.value("price_adjust_min")],
                          value_keys=["price_adjust_min"]))
    again = next(((o, a) for _, o in sorted(R.db["orders"].items()) for a in o["price_adjustments"]), None)
    if again is not None:
        o, a = again
        c = R.owner(o)
        it = o["items"][a["line_index"]]
        out.append(R.base("second-price-adjustment-refused", "refuse", c, o,
                          purpose="Each item can get only one price adjustment.",
                          reason=f"You already got a price adjustment on the {it['name']} from {o['order_id']} and "
                                 "think it dropped again.",
                          opening=f"The {it['name']} on {o['order_id']} got cheaper again, I want another adjustment.",
                          gold=[R.lookup(o)],
                          naive=[_adjustment(o, a["line_index"], 5)],
                          communicate=["one"], facts=[F.find("Each item can get only one price adjustment")]))
    fs = next((x for x in cands if x[2]["final_sale"]), None)
    if fs is not None:
        o, i, it, drop, age, tier = fs
        c = R.owner(o)
        out.append(R.base("price-adjustment-final-sale", "refuse", c, o,
                          purpose="Final sale items get no price adjustment.",
                          reason=f"The {it['name']} on {o['order_id']} is cheaper now.",
                          opening=f"The {it['name']} I bought on {o['order_id']} is on sale now, can I get the difference?",
                          gold=[R.lookup(o)],
                          naive=[_adjustment(o, i, drop)],
                          communicate=["final sale"], facts=[F.find("Final sale items don't get price adjustments")]))
    return out
