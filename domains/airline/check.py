"""Every way an airline database breaks the policy: tiers against qualifying miles, fares,
bags and their fees, changes, payments, cancellations and refunds, compensation, gift
cards, travel certificates, vouchers and hand-offs, each recomputed from the rules."""
from __future__ import annotations

import datetime as dt

from domains.payments import entry_method
from domains.records import listed_owner
from domains.seedkit import add_months, age_on, business_days_between, money, parse_ts

from .rules import (NO_COMP_CAUSES, bag_fee_each, change_fee, compensation_per_passenger, departure_at,
                    free_bags, names, refund_due, split_refund, tier_for_miles, values_with)


def check(pack, db: dict, values: dict | None = None) -> list[str]:
    v = values_with(values)
    cab, cab_key, _, tier_key = names(pack)
    problems: list[str] = []
    P = problems.append
    flights, users, reservations = db.get("flights", {}), db.get("users", {}), db.get("reservations", {})
    for fn, f in sorted(flights.items()):
        for day, inst in sorted(f["dates"].items()):
            p = inst["prices"]
            if not (0 < p[cab["lite"]] < p[cab["main"]] < p[cab["premier"]]):
                P(f"flight {fn} {day}: cabin prices out of order {p}")
            if inst["status"] not in ("scheduled", "delayed", "departed", "landed", "cancelled"):
                P(f"flight {fn} {day}: unknown status {inst['status']}")
    for uid, u in sorted(users.items()):
        tier = tier_key.get(u["membership"]["tier"])
        if tier is None:
            P(f"user {uid}: unknown tier {u['membership']['tier']}")
        elif tier != tier_for_miles(v, u["membership"]["qualifying_miles"]):
            P(f"user {uid}: tier {u['membership']['tier']} does not match {u['membership']['qualifying_miles']} miles")
        for rid in u["reservations"]:
            if rid not in reservations or reservations[rid]["user_id"] != uid:
                P(f"user {uid}: reservation {rid} missing or owned by someone else")
    for rid, r in sorted(reservations.items()):
        _check_reservation(v, pack.info.now, cab_key, tier_key, flights, users, rid, r, P)
    _check_gift_cards_and_certificates(v, users, reservations, flights, cab_key, tier_key, P)
    _check_vouchers_and_handoffs(v, db, P)
    return problems


def _check_vouchers_and_handoffs(v, db, P) -> None:
    flights, users, reservations = db.get("flights", {}), db.get("users", {}), db.get("reservations", {})
    for vid, x in sorted(db.get("vouchers", {}).items()):
        r = reservations.get(x["reservation_id"])
        inst = flights.get(x["flight_number"], {}).get("dates", {}).get(x["date"])
        if r is None or inst is None or not any(f["flight_number"] == x["flight_number"] and f["date"] == x["date"]
                                                for f in r["flights"] + [o for c in r["changes"]
                                                                         for o in c.get("old_flights", [])]):
            P(f"voucher {vid}: not for a flight of reservation {x['reservation_id']}")
            continue
        npax = len(r["passengers"])
        if x["kind"] == "meal":
            if inst["delay_minutes"] < v["meal_delay_hours"] * 60:
                P(f"voucher {vid}: meal voucher for a delay of {inst['delay_minutes']} minutes")
            if abs(x["amount"] - v["meal_voucher"] * npax) > 0.005:
                P(f"voucher {vid}: meal voucher of {x['amount']} != {money(v['meal_voucher'] * npax)}")
        else:
            if inst["status"] != "cancelled":
                P(f"voucher {vid}: hotel voucher for a flight that was not cancelled")
            if x["amount"] > v["hotel_max"] + 0.005:
                P(f"voucher {vid}: hotel voucher of {x['amount']} above {v['hotel_max']}")
    for hid, h in sorted(db.get("handoffs", {}).items()):
        if h["user_id"] not in users:
            P(f"handoff {hid}: unknown user {h['user_id']}")
        elif h["reservation_id"] and reservations.get(h["reservation_id"], {}).get("user_id") != h["user_id"]:
            P(f"handoff {hid}: reservation {h['reservation_id']} is not the user's")


def _check_reservation(v, now, cab_key, tier_key, flights, users, rid, r, P) -> None:
    u = listed_owner(users, rid, r, what="reservation", key="user_id", listing="reservations", P=P)
    if u is None:
        return
    tier = tier_key.get(u["membership"]["tier"], "wayfarer")
    cabin = cab_key.get(r["cabin"])
    if cabin is None:
        P(f"reservation {rid}: unknown cabin {r['cabin']}")
        return
    npax = len(r["passengers"])
    if not 1 <= npax <= v["max_passengers"]:
        P(f"reservation {rid}: {npax} passengers (limit {v['max_passengers']})")
    for leg in r["flights"]:
        if leg["flight_number"] not in flights or leg["date"] not in flights[leg["flight_number"]]["dates"]:
            P(f"reservation {rid}: unknown flight {leg['flight_number']} on {leg['date']}")
            return
    first = r["flights"][0]
    first_dep = departure_at(flights[first["flight_number"]], first["date"])
    day = first_dep.date()
    ages = [age_on(p["date_of_birth"], day) for p in r["passengers"]]
    if any(a < v["minor_age"] for a in ages) and not any(a >= v["companion_age"] for a in ages):
        P(f"reservation {rid}: minor without a companion aged {v['companion_age']}+")
    _check_itinerary(v, flights, rid, r, P)
    created = parse_ts(r["created_at"])
    stamps = [created] + [parse_ts(c["at"]) for c in r["changes"]] + [parse_ts(p["at"]) for p in r["payment_history"]]
    if r["cancellation"]:
        stamps.append(parse_ts(r["cancellation"]["cancelled_at"]))
    if max(stamps) > now:
        P(f"reservation {rid}: has events after the world clock {now.isoformat()}")
    initial = r["changes"][0]["old_flights"] if r["changes"] and "old_flights" in r["changes"][0] else r["flights"]
    ini_dep = departure_at(flights[initial[0]["flight_number"]], initial[0]["date"])
    if created < ini_dep - dt.timedelta(days=v["booking_horizon_days"]):
        P(f"reservation {rid}: booked more than {v['booking_horizon_days']} days ahead")
    if created > ini_dep - dt.timedelta(minutes=v["booking_close_minutes"]):
        P(f"reservation {rid}: booked after booking closed")
    for leg in initial:
        inst = flights[leg["flight_number"]]["dates"][leg["date"]]
        if "rebooked_from" not in leg and "same_day_from" not in leg and leg["price"] != inst["prices"][r["cabin"]]:
            P(f"reservation {rid}: price {leg['price']} for {leg['flight_number']} {leg['date']} != flight record {inst['prices'][r['cabin']]}")
    fares0 = money(sum(f["price"] for f in initial) * npax)
    if abs(fares0 - r["booking_charge"]["fares"]) > 0.005:
        P(f"reservation {rid}: booked fares {r['booking_charge']['fares']} != {fares0}")
    if abs(money(sum(f["price"] for f in r["flights"]) * npax) - r["fare_total"]) > 0.005:
        P(f"reservation {rid}: fare_total {r['fare_total']} does not match its flights")
    free = free_bags(v, tier, cabin) * npax
    each = bag_fee_each(v, cabin)
    if r["free_bags"] != free:
        P(f"reservation {rid}: free bags {r['free_bags']} != {free} ({u['membership']['tier']}, {r['cabin']})")
    if r["total_bags"] > v["max_bags_per_passenger"] * npax:
        P(f"reservation {rid}: {r['total_bags']} bags exceeds {v['max_bags_per_passenger']} per passenger")
    if r["paid_bags"] != max(0, r["total_bags"] - free):
        P(f"reservation {rid}: paid bags {r['paid_bags']} inconsistent with allowance")
    if abs(r["bag_fee"] - r["paid_bags"] * each) > 0.005:
        P(f"reservation {rid}: bag fee {r['bag_fee']} != {r['paid_bags']} x {each}")
    added = sum(c["bags_added"] for c in r["changes"] if c["type"] == "add_bags")
    bags0 = r["total_bags"] - added
    fee0 = money(max(0, bags0 - free) * each)
    if abs(r["booking_charge"]["bags"] - fee0) > 0.005:
        P(f"reservation {rid}: bag fee at booking {r['booking_charge']['bags']} != {fee0}")
    ins = money(v["insurance_per_passenger"] * npax) if r["insurance"] else 0
    if abs(r["insurance_fee"] - ins) > 0.005 or abs(r["booking_charge"]["insurance"] - ins) > 0.005:
        P(f"reservation {rid}: insurance fee {r['insurance_fee']} != {ins}")
    _check_payments(v, u, rid, r, P)
    _check_changes(v, flights, rid, r, tier, cabin, free, each, bags0, P)
    last = r["flights"][-1]
    done = departure_at(flights[last["flight_number"]], last["date"]) <= now
    want_status = "cancelled" if r["cancellation"] else "completed" if done else "confirmed"
    if not r["cancellation"]:
        for leg in r["flights"]:
            if flights[leg["flight_number"]]["dates"][leg["date"]]["status"] == "cancelled":
                P(f"reservation {rid}: still holds cancelled flight {leg['flight_number']} on {leg['date']}")
    if r["status"] != want_status:
        P(f"reservation {rid}: status {r['status']} should be {want_status}")
    if r["cancellation"]:
        _check_cancellation(v, flights, u, rid, r, tier, cabin, first_dep, P)


def _check_itinerary(v, flights, rid, r, P) -> None:
    legs = r["flights"]
    for a, b in zip(legs, legs[1:]):
        if flights[a["flight_number"]]["destination"] != flights[b["flight_number"]]["origin"]:
            P(f"reservation {rid}: flights {a['flight_number']} and {b['flight_number']} do not connect")
    for leg in legs:
        f = flights[leg["flight_number"]]
        if (leg["origin"], leg["destination"]) != (f["origin"], f["destination"]):
            P(f"reservation {rid}: leg {leg['flight_number']} route mismatch")
    if legs[0]["origin"] != r["origin"]:
        P(f"reservation {rid}: first flight does not leave from {r['origin']}")
    if r["trip_type"] == "one_way":
        if legs[-1]["destination"] != r["destination"]:
            P(f"reservation {rid}: one-way trip does not end at {r['destination']}")
        n_out = len(legs)
    else:
        idx = [i for i, leg in enumerate(legs) if leg["destination"] == r["destination"]]
        if not idx or legs[-1]["destination"] != r["origin"]:
            P(f"reservation {rid}: round trip does not return to {r['origin']}")
            return
        n_out = idx[0] + 1
        if len(legs) - n_out > v["max_flights_per_direction"]:
            P(f"reservation {rid}: more than {v['max_flights_per_direction']} return flights")
    if n_out > v["max_flights_per_direction"]:
        P(f"reservation {rid}: more than {v['max_flights_per_direction']} outbound flights")


def _check_payments(v, u, rid, r, P) -> None:
    pms = u["payment_methods"]
    kinds: dict[str, set[str]] = {"credit_card": set(), "gift_card": set(), "travel_certificate": set()}
    total = 0.0
    for p in r["payment_history"]:
        pm = entry_method(pms, p, f"reservation {rid}", "in the profile", P)
        if pm is None:
            continue
        if p["kind"] == "charge":
            kinds[pm["type"]].add(p["method_id"])
            total += p["amount"]
            if pm["type"] == "travel_certificate" and p["purpose"] != "booking":
                P(f"reservation {rid}: travel certificate used for {p['purpose']}")
            if pm["type"] == "travel_certificate" and p["amount"] > pm["amount"] + 0.005:
                P(f"reservation {rid}: certificate {p['method_id']} charged more than its amount")
    if len(kinds["credit_card"]) > v["max_credit_cards"]:
        P(f"reservation {rid}: {len(kinds['credit_card'])} credit cards (limit {v['max_credit_cards']})")
    if len(kinds["gift_card"]) > v["max_gift_cards"]:
        P(f"reservation {rid}: {len(kinds['gift_card'])} gift cards (limit {v['max_gift_cards']})")
    if len(kinds["travel_certificate"]) > v["max_certificates"]:
        P(f"reservation {rid}: {len(kinds['travel_certificate'])} certificates (limit {v['max_certificates']})")
    if total > v["max_reservation_total"] + 0.005:
        P(f"reservation {rid}: total charged {total} exceeds {v['max_reservation_total']}")
    booking = sum(p["amount"] for p in r["payment_history"] if p["kind"] == "charge" and p["purpose"] == "booking")
    bc = r["booking_charge"]
    if abs(booking - (bc["fares"] + bc["bags"] + bc["insurance"])) > 0.005:
        P(f"reservation {rid}: booking charges {money(booking)} != fares + bags + insurance {money(bc['fares'] + bc['bags'] + bc['insurance'])}")


def _check_changes(v, flights, rid, r, tier, cabin, free, each, bags0, P) -> None:
    npax = len(r["passengers"])
    pays: dict[str, float] = {}
    for p in r["payment_history"]:
        if p["kind"] == "charge" and p["purpose"] != "booking":
            pays[p["purpose"]] = money(pays.get(p["purpose"], 0) + p["amount"])
    want: dict[str, float] = {}
    bags = bags0
    for c in r["changes"]:
        at = parse_ts(c["at"])
        if at < parse_ts(r["created_at"]):
            P(f"reservation {rid}: change before booking")
        if c["type"] in ("flight_change", "same_day_change"):
            if c["type"] == "flight_change" and cabin == "lite":
                P(f"reservation {rid}: flights changed on a Lite reservation")
            o, n = c["old_flights"], c["new_flights"]
            if (o[0]["origin"], o[-1]["destination"]) != (n[0]["origin"], n[-1]["destination"]) or len(o) != len(n):
                P(f"reservation {rid}: {c['type']} changed the route")
            for leg in o:
                if departure_at(flights[leg["flight_number"]], leg["date"]) - at < dt.timedelta(minutes=v["change_cutoff_minutes"]):
                    P(f"reservation {rid}: {c['type']} later than {v['change_cutoff_minutes']} minutes before departure")
            if c["type"] == "flight_change":
                fee = money(change_fee(v, cabin, tier) * npax)
                diff = money((sum(f["price"] for f in n) - sum(f["price"] for f in o)) * npax)
                if abs(c["fare_difference"] - diff) > 0.005:
                    P(f"reservation {rid}: fare difference {c['fare_difference']} != {diff}")
            else:
                fee = 0 if tier in ("navigator", "pinnacle") else money(v["same_day_fee"] * npax)
                if o[0]["date"] != n[0]["date"] or n[0]["price"] != o[0]["price"] or c["fare_difference"] != 0:
                    P(f"reservation {rid}: same-day change moved the date or charged a fare difference")
            if abs(c["change_fee"] - fee) > 0.005:
                P(f"reservation {rid}: {c['type']} fee {c['change_fee']} != {fee}")
            want[c["type"]] = money(want.get(c["type"], 0) + c["change_fee"] + max(0, c["fare_difference"]))
        elif c["type"] == "rebooking":
            for old, new in zip(c["old_flights"], c["new_flights"]):
                if flights[old["flight_number"]]["dates"][old["date"]]["status"] != "cancelled":
                    P(f"reservation {rid}: rebooking from a flight that was not cancelled")
                if (old["origin"], old["destination"]) != (new["origin"], new["destination"]) or new["date"] < old["date"]:
                    P(f"reservation {rid}: rebooking is not on the same route")
            if c["change_fee"] or c["fare_difference"]:
                P(f"reservation {rid}: rebooking after a Larkspur cancellation was charged")
        elif c["type"] == "add_bags":
            fee = money((max(0, bags + c["bags_added"] - free) - max(0, bags - free)) * each)
            bags += c["bags_added"]
            if abs(c["fee"] - fee) > 0.005:
                P(f"reservation {rid}: added-bag fee {c['fee']} != {fee}")
            heavy = c.get("overweight_bags", 0) * (0 if cabin == "premier" else v["overweight_fee"])
            if abs(c.get("overweight_fee", 0) - heavy) > 0.005:
                P(f"reservation {rid}: overweight fee {c.get('overweight_fee', 0)} != {money(heavy)}")
            want["add_bags"] = money(want.get("add_bags", 0) + c["fee"] + c.get("overweight_fee", 0))
        elif c["type"] == "name_correction":
            if c["characters_changed"] > v["name_correction_max_chars"] or c["fee"] != 0:
                P(f"reservation {rid}: name correction of {c['characters_changed']} characters (fee {c['fee']})")
        elif c["type"] == "add_passenger":
            P(f"reservation {rid}: a passenger was added after booking")
        elif c["type"] == "add_insurance":
            P(f"reservation {rid}: TripGuard was added after booking")
        else:
            P(f"reservation {rid}: unknown change type {c['type']}")
    for k in sorted(set(want) | set(pays)):
        if abs(want.get(k, 0) - pays.get(k, 0)) > 0.005:
            P(f"reservation {rid}: {k} charges {pays.get(k, 0)} != {want.get(k, 0)}")


def _check_cancellation(v, flights, u, rid, r, tier, cabin, first_dep, P) -> None:
    c = r["cancellation"]
    at = parse_ts(c["cancelled_at"])
    if at >= first_dep:
        P(f"reservation {rid}: cancelled after its first flight departed")
    if c["reason"] == "flight_cancelled_by_airline" and not any(
            flights[f["flight_number"]]["dates"][f["date"]]["status"] == "cancelled" for f in r["flights"]):
        P(f"reservation {rid}: cancelled for an airline cancellation but no flight was cancelled")
    due, _rule = refund_due(v, r, tier, cabin, first_dep)
    if abs(c["refund_amount"] - due) > 0.005:
        P(f"reservation {rid}: refund {c['refund_amount']} != {due} under the cancellation rules")
    refunds = [p for p in r["payment_history"] if p["kind"] == "refund" and p["purpose"] == "cancellation"]
    if abs(sum(p["amount"] for p in refunds) - c["refund_amount"]) > 0.005:
        P(f"reservation {rid}: refunds paid {money(sum(p['amount'] for p in refunds))} != refund amount {c['refund_amount']}")
    net: dict[str, list] = {}
    for p in r["payment_history"]:
        if p["purpose"] == "cancellation":
            continue
        e = net.setdefault(p["method_id"], [p["method_type"], 0.0])
        e[1] += p["amount"] if p["kind"] == "charge" else -p["amount"]
    expected = split_refund(c["refund_amount"], [(k, t, money(a)) for k, (t, a) in net.items()])
    got = [(p["method_id"], p["method_type"], p["amount"]) for p in refunds]
    if sorted(expected) != sorted(got):
        P(f"reservation {rid}: refund routing {got} != {expected}")
    for p in refunds:
        if p["status"] == "pending" and p.get("posted_on", p.get("posted_at")) is None:
            continue  # with the card processor or the gift card ledger, not posted yet
        if p["method_type"] == "credit_card":
            n = business_days_between(at.date(), dt.date.fromisoformat(p["posted_on"]))
            if n > v["card_refund_max_business_days"]:
                P(f"reservation {rid}: card refund posts after {n} business days")
        elif p["method_type"] == "gift_card":
            if parse_ts(p["posted_at"]) - at > dt.timedelta(hours=v["gift_card_refund_hours"]):
                P(f"reservation {rid}: gift card refund later than {v['gift_card_refund_hours']} hours")
        else:
            new = u["payment_methods"].get(p.get("reissued_as", ""))
            if new is None or abs(new["amount"] - p["amount"]) > 0.005 or new["origin"].get("kind") != "reissue":
                P(f"reservation {rid}: certificate refund not reissued as a certificate of {p['amount']}")


def _check_gift_cards_and_certificates(v, users, reservations, flights, cab_key, tier_key, P) -> None:
    for uid, u in sorted(users.items()):
        tier = tier_key.get(u["membership"]["tier"], "wayfarer")
        for mid, pm in sorted(u["payment_methods"].items()):
            if pm["type"] == "gift_card":
                bal = pm["loaded_amount"]
                for rid in u["reservations"]:
                    for p in reservations.get(rid, {}).get("payment_history", []):
                        if p["method_id"] == mid:
                            if p["kind"] == "charge":
                                bal -= p["amount"]
                            elif p.get("status") == "posted":
                                bal += p["amount"]
                if abs(money(bal) - pm["balance"]) > 0.005 or pm["balance"] < -0.005:
                    P(f"user {uid}: gift card {mid} balance {pm['balance']} != ledger {money(bal)}")
            if pm["type"] != "travel_certificate":
                continue
            o = pm["origin"]
            issued = parse_ts(pm["issued_at"])
            months = v["reissued_certificate_months"] if o["kind"] == "reissue" else v["compensation_certificate_months"]
            if pm["expires_on"] != add_months(issued.date(), int(months)).isoformat():
                P(f"user {uid}: certificate {mid} expiry {pm['expires_on']} is not {int(months)} months after issue")
            res = reservations.get(o.get("reservation_id"))
            if res is None or res["user_id"] != uid:
                P(f"user {uid}: certificate {mid} refers to unknown reservation {o.get('reservation_id')}")
                continue
            npax = len(res["passengers"])
            cabin = cab_key[res["cabin"]]
            if o["kind"] == "compensation":
                inst = flights.get(o["flight_number"], {}).get("dates", {}).get(o["date"])
                if inst is None or not any(f["flight_number"] == o["flight_number"] and f["date"] == o["date"]
                                           for f in res["flights"] + [x for c in res["changes"] for x in c.get("old_flights", [])]):
                    P(f"user {uid}: certificate {mid} for a flight not on reservation {res['reservation_id']}")
                    continue
                if inst["cause"] in NO_COMP_CAUSES:
                    P(f"user {uid}: certificate {mid} compensates a {inst['cause']} disruption")
                if o["disruption"] == "delay" and inst["delay_minutes"] < v["delay_threshold_hours"] * 60:
                    P(f"user {uid}: certificate {mid} for a delay of only {inst['delay_minutes']} minutes")
                if o["disruption"] == "cancellation" and inst["status"] != "cancelled":
                    P(f"user {uid}: certificate {mid} for a flight that was not cancelled")
                want = money(compensation_per_passenger(v, tier, cabin, o["disruption"]) * npax)
                if abs(pm["amount"] - want) > 0.005:
                    P(f"user {uid}: compensation certificate {mid} is {pm['amount']}, policy gives {want}")
                same = [k for k, x in u["payment_methods"].items() if x["type"] == "travel_certificate"
                        and x["origin"].get("kind") == "compensation" and x["origin"].get("reservation_id") == o["reservation_id"]
                        and x["origin"].get("flight_number") == o["flight_number"] and x["origin"].get("date") == o["date"]]
                if len(same) > 1:
                    P(f"user {uid}: flight {o['flight_number']} {o['date']} compensated {len(same)} times")
            elif o["kind"] == "goodwill":
                if pm["amount"] > v["goodwill_max"]:
                    P(f"user {uid}: goodwill certificate {mid} of {pm['amount']} exceeds {v['goodwill_max']}")
            if o["kind"] in ("compensation", "goodwill"):
                upto = sum(x["amount"] for x in u["payment_methods"].values() if x["type"] == "travel_certificate"
                           and x["origin"].get("kind") in ("compensation", "goodwill")
                           and x["origin"].get("reservation_id") == o["reservation_id"]
                           and (x["issued_at"], x["id"]) <= (pm["issued_at"], mid))
                if upto > v["manager_approval_above"] and not pm.get("approved_by"):
                    P(f"user {uid}: compensation of {upto} on {o['reservation_id']} lacks manager approval")
            if pm["status"] == "used":
                uses = [p for p in reservations.get(pm.get("used_on"), {}).get("payment_history", [])
                        if p["method_id"] == mid and p["kind"] == "charge"]
                if len(uses) != 1:
                    P(f"user {uid}: used certificate {mid} has {len(uses)} charges")
                elif parse_ts(reservations[pm["used_on"]]["created_at"]) <= issued:
                    P(f"user {uid}: certificate {mid} used before it was issued")
