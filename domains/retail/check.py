"""Every way a retail database breaks the policy: loyalty tiers, wallets, order totals and
shipping, status histories, the payment and refund ledger, changes to pending orders,
returns, exchanges and price adjustments, each recomputed from the rules."""
from __future__ import annotations

import datetime as dt
import math

from domains.payments import entry_method
from domains.records import listed_owner, unknown_refs
from domains.seedkit import add_months, business_days_between, cents, parse_ts

from .rules import (CANCEL_REASONS, CATEGORIES, CONTIGUOUS_STATES, ORDER_STATUSES, RETURN_REASONS, net_paid, price_on,
                    return_amounts, return_window_days, route_refund, shipping_fee, tier_for_spend, tier_names,
                    values_with)


def check(pack, db: dict, values: dict | None = None) -> list[str]:
    v = values_with(values)
    _, tier_key = tier_names(pack)
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
    for problem in unknown_refs(sorted(db.get("handoffs", {}).items()), "handoff", "customer_id", customers,
                                "customer"):
        P(problem)
    for oid, o in sorted(orders.items()):
        c = listed_owner(customers, oid, o, what="order", key="customer_id", listing="orders", P=P)
        if c is None:
            continue
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
            issued = parse_ts(pm["issued_at"]).date()
            if pm["expires_on"] != add_months(issued, int(v["row_credit_months"])).isoformat():
                P(f"customer {cid}: Row Credit {mid} expiry {pm['expires_on']} is not {int(v['row_credit_months'])} months after issue")
            if pm["origin"]["kind"] == "birthday":
                want = v.get(f"birthday_credit_{tier}")
                if want is None or abs(pm["amount"] - want) > 0.005:
                    P(f"customer {cid}: birthday credit {pm['amount']} for tier {c['loyalty']['tier']} (policy {want})")
                if issued.month != dt.date.fromisoformat(c["birthday"]).month or issued.day != dt.date.fromisoformat(c["birthday"]).day:
                    P(f"customer {cid}: birthday credit not issued on the birthday")


def _check_order(v, now, tier, c, o, variants, products, P) -> None:
    oid = o["order_id"]
    placed = parse_ts(o["placed_at"])
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
        at = parse_ts(x["at"])
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
    times = [parse_ts(h["at"]) for h in o["status_history"]]
    if o["status"] not in ORDER_STATUSES or hist[-1] != o["status"]:
        P(f"order {oid}: status {o['status']} does not match its history")
    allowed = {"pending": {"processed", "cancelled"}, "processed": {"shipped", "cancelled"}, "shipped": {"delivered"}}
    for a, b in zip(hist, hist[1:]):
        if b not in allowed.get(a, set()):
            P(f"order {oid}: status {a} -> {b} is not allowed")
    if times != sorted(times) or times[-1] > now:
        P(f"order {oid}: status history out of order or in the future")
    placed = parse_ts(o["placed_at"])
    if "processed" in hist and times[hist.index("processed")] != placed + dt.timedelta(hours=v["pending_hours"]):
        P(f"order {oid}: processed at {times[hist.index('processed')]}, not {v['pending_hours']} hours after placing")
    if hist[-1] == "pending" and now - placed >= dt.timedelta(hours=v["pending_hours"]):
        P(f"order {oid}: still pending after {v['pending_hours']} hours")
    f = o["fulfillment"]
    if "shipped" in hist:
        shipped = parse_ts(f["shipped_at"])
        proc = times[hist.index("processed")]
        if business_days_between(proc.date(), shipped.date()) > v["ship_within_business_days"]:
            P(f"order {oid}: shipped more than {v['ship_within_business_days']} business days after processing")
    if "delivered" in hist:
        n = business_days_between(parse_ts(f["shipped_at"]).date(), parse_ts(f["delivered_at"]).date())
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
        pm = entry_method(pms, p, f"order {oid}", "on the account", P)
        if pm is None:
            return
        if p["kind"] == "charge" and p["method_id"] not in methods and p["method_id"] not in replaced:
            methods.append(p["method_id"])
        if p["kind"] == "charge" and pm["type"] == "store_credit":
            at = parse_ts(p["at"])
            if not parse_ts(pm["issued_at"]) <= at or at.date() >= dt.date.fromisoformat(pm["expires_on"]):
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
        at, posted = parse_ts(p["at"]), parse_ts(p["posted_at"])
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
    placed = parse_ts(o["placed_at"])
    processed = placed + dt.timedelta(hours=v["pending_hours"])
    shipped = parse_ts(o["fulfillment"]["shipped_at"]) if o["fulfillment"] else None
    n_items = 0
    for m in o["modifications"]:
        at = parse_ts(m["at"])
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
    delivered = parse_ts(o["fulfillment"]["delivered_at"])
    seen: set[int] = set()
    for r in o["returns"]:
        rid = r["return_id"]
        at = parse_ts(r["requested_at"])
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
        received, refunded = parse_ts(r["received_at"]), parse_ts(r["refunded_at"])
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
    delivered = parse_ts(o["fulfillment"]["delivered_at"])
    lines = [e["line_index"] for e in o["exchanges"]]
    if len(lines) != len(set(lines)):
        P(f"order {oid}: an item was exchanged more than once")
    returned = {i for r in o["returns"] for i in r["line_indexes"]}
    for e in o["exchanges"]:
        it = o["items"][e["line_index"]]
        at = parse_ts(e["at"])
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
    placed = parse_ts(o["placed_at"])
    days = v["price_adjust_days_canopy"] if tier == "canopy" else v["price_adjust_days"]
    lines = [a["line_index"] for a in o["price_adjustments"]]
    if len(lines) != len(set(lines)):
        P(f"order {oid}: an item got more than one price adjustment")
    for a in o["price_adjustments"]:
        it = o["items"][a["line_index"]]
        at = parse_ts(a["at"])
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
