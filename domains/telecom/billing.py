"""Telecom billing: what every bill of an account must hold under the fee schedule (plan and
additional-line prices, network access fee, device installments and protection, late fees,
reconnection fees, top-ups, roaming passes beyond the included ones, the EasyPay discount),
its total and status. The seed writes bills with it; the check recomputes them.
"""
from __future__ import annotations

import datetime as dt
from collections import defaultdict

from domains.seedkit import date_of

from .rules import cycle_start, first_bill_after, plan_on, rounded, timeline


def pass_charges(passes: list[dict], lines_by_id: dict, customers: dict, V: dict) -> dict[str, float]:
    """Charge of every roaming pass: the plan's included passes in a cycle are free (first
    by date, then id), later ones cost the region's day pass price."""
    out: dict[str, float] = {}
    used: dict[tuple, int] = defaultdict(int)
    for p in sorted(passes, key=lambda p: (p["date"], p["id"])):
        line = lines_by_id.get(p["line_id"])
        if line is None:
            continue
        cust = customers[line["customer_id"]]
        cyc = cycle_start(date_of(p["date"]), cust["cycle_day"])
        key = (p["line_id"], cyc)
        if used[key] < V[f"included_passes_{plan_on(cust, date_of(p['date']))}"]:
            out[p["id"]] = 0.0
        else:
            out[p["id"]] = float(V[f"roaming_pass_{p['region']}"])
        used[key] += 1
    return out


def expected_bills(cust: dict, lines: list[dict], devices: list[dict], bills: list[dict],
                    topups: list[dict], passes: list[dict], pass_charge: dict, V: dict, today: dt.date) -> dict:
    """Expected items, total and status of every bill of one account, in bill order."""
    bills = sorted(bills, key=lambda b: b["bill_date"])
    tl = timeline(bills, V, today)
    order = sorted(lines, key=lambda ln: (ln["activated_on"], ln["id"]))
    extra: dict[str, list] = defaultdict(list)
    for b in bills:  # late fees: on the first bill issued after the grace period ends
        due = date_of(b["due_date"])
        cutoff = due + dt.timedelta(days=V["late_fee_grace_days"])
        paid = date_of(b["paid_date"]) if b.get("paid_date") else None
        if paid is None or paid > cutoff:
            nb = first_bill_after(cutoff, bills)
            if nb is not None:
                extra[nb["id"]].append(("late_fee", b["id"]))
    for s, e in tl["suspensions"]:
        if e is not None and (tl["cancelled_on"] is None or e < tl["cancelled_on"]):
            nb = first_bill_after(e, bills)
            if nb is not None:
                extra[nb["id"]].append(("reconnection_fee", None))
    for t in topups:
        nb = first_bill_after(date_of(t["date"]), bills)
        if nb is not None:
            extra[nb["id"]].append(("top_up", t))
    for p in passes:
        nb = first_bill_after(date_of(p["date"]), bills)
        if nb is not None and pass_charge.get(p["id"], 0) > 0:
            extra[nb["id"]].append(("roaming_pass", p))
    totals: dict[str, float] = {}
    n_inst: dict[str, int] = defaultdict(int)
    out: dict[str, dict] = {}
    for b in bills:
        bd = date_of(b["bill_date"])
        plan = plan_on(cust, bd)
        billed = [ln for ln in order if date_of(ln["activated_on"]) <= bd]
        items = []
        for i, ln in enumerate(billed):
            price = V[f"plan_price_{plan}"] if i == 0 else V[f"extra_line_price_{plan}"]
            items.append({"type": "plan", "line_id": ln["id"], "amount": float(price)})
            items.append({"type": "network_access_fee", "line_id": ln["id"], "amount": float(V["network_access_fee"])})
        for dv in sorted(devices, key=lambda d: d["id"]):
            if dv["line_id"] not in {ln["id"] for ln in billed}:
                continue
            if (dv["financed"] and bd >= date_of(dv["purchased_on"])
                    and dv["installments_before_history"] + n_inst[dv["id"]] < V["installment_months"]):
                n_inst[dv["id"]] += 1
                items.append({"type": "device_installment", "line_id": dv["line_id"], "device_id": dv["id"],
                              "amount": dv["monthly_installment"]})
            if dv["protection"]:
                items.append({"type": "device_protection", "line_id": dv["line_id"], "device_id": dv["id"],
                              "amount": float(V["protection_fee"])})
        for kind, ref in extra[b["id"]]:
            if kind == "late_fee":
                amt = max(float(V["late_fee_minimum"]), rounded(totals[ref] * V["late_fee_percent"] / 100))
                items.append({"type": "late_fee", "for_bill_id": ref, "amount": rounded(amt)})
            elif kind == "reconnection_fee":
                items.append({"type": "reconnection_fee", "lines": len(billed),
                              "amount": rounded(V["reconnection_fee"] * len(billed))})
            elif kind == "top_up":
                items.append({"type": "top_up", "line_id": ref["line_id"], "top_up_id": ref["id"],
                              "amount": float(V[f"topup_price_{ref['size_gb']}gb"])})
            else:
                items.append({"type": "roaming_pass", "line_id": ref["line_id"], "roaming_pass_id": ref["id"],
                              "amount": pass_charge[ref["id"]]})
        if cust["autopay"]["enabled"] and cust["paperless"] and cust["autopay"]["method"] != "credit_card":
            disc = min(V["easypay_discount_per_line"] * len(billed), V["easypay_discount_cap"])
            items.append({"type": "autopay_discount", "amount": -float(disc)})
        total = rounded(sum(it["amount"] for it in items))
        totals[b["id"]] = total
        if b.get("paid_date"):
            status = "paid"
        elif tl["cancelled_on"] is not None:
            status = "collections"
        elif date_of(b["due_date"]) < today:
            status = "overdue"
        else:
            status = "open"
        out[b["id"]] = {"items": items, "total": total, "status": status}
    installments = {dv["id"]: dv["installments_before_history"] + n_inst[dv["id"]] for dv in devices if dv["financed"]}
    return {"bills": out, "timeline": tl, "installments": installments}



def by_customer(customers, lines, devices, bills, topups, passes) -> dict:
    """Customer id -> its lines, devices, bills, top-ups and roaming passes."""
    tables = {"lines": lines, "devices": devices, "bills": bills, "topups": topups, "passes": passes}
    g = {cid: {k: [] for k in tables} for cid in customers}
    for k, table in tables.items():
        for r in table.values():
            # a device, top-up or pass belongs to the customer of its line
            cid = r["customer_id"] if "customer_id" in r else lines.get(r["line_id"], {}).get("customer_id")
            if cid in g:
                g[cid][k].append(r)
    return g

