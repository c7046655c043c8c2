"""Every way a telecom database breaks the Kestrel Mobile policy, by record family: references
between records, accounts, devices, bills (recomputed with `billing`), payments, top-ups,
roaming passes, usage, the records agents create, and troubleshooting tickets."""
from __future__ import annotations

import datetime as dt
from collections import defaultdict

from domains.records import unknown_refs
from domains.seedkit import date_of

from .billing import by_customer, expected_bills, pass_charges
from .rules import (PLANS, REGIONS, TOPUP_SIZES, cycle_start, next_cycle, prorated_upgrade, rounded, suspended_on,
                    ticket_status, today_of, values_with)


def check(pack, db: dict, values: dict | None = None) -> list[str]:
    """Every way `db` breaks the policy under `values` (empty when it obeys)."""
    V = values_with(values)
    today = today_of(pack)
    problems = _references(db)
    if problems:
        return problems
    groups = by_customer(db["customers"], db["lines"], db["devices"], db["bills"], db["top_ups"],
                         db["roaming_passes"])
    problems += _accounts(db, groups, V)
    problems += _devices(db, V, today)
    charges = pass_charges(list(db["roaming_passes"].values()), db["lines"], db["customers"], V)
    problems += _bills(db, groups, charges, V, today)
    problems += _payments(db, V)
    problems += _top_ups(db, V)
    problems += _roaming_passes(db, charges, V)
    problems += _usage(db, V)
    problems += _plan_changes(db, V)
    problems += _line_records(db, V, today)
    problems += _unlock_requests(db, V)
    problems += _fee_waivers(db)
    problems += _payment_arrangements(db, V)
    problems += _handoffs(db)
    problems += _tickets(db, V)
    return problems


def _references(db: dict) -> list[str]:
    """Records that name a customer, line, device or bill that does not exist (and the
    line, SIM and plan fields that must agree with their account)."""
    problems: list[str] = []
    cust, lines, devices, bills = db["customers"], db["lines"], db["devices"], db["bills"]
    topups, passes, payments = db["top_ups"], db["roaming_passes"], db["payments"]
    for lid, ln in lines.items():
        if ln["customer_id"] not in cust:
            problems.append(f"line {lid}: unknown customer {ln['customer_id']}")
        elif ln["plan"] != cust[ln["customer_id"]]["plan"]:
            problems.append(f"line {lid}: plan {ln['plan']} differs from the account's plan")
        if ln.get("device_id") not in devices:
            problems.append(f"line {lid}: unknown device {ln.get('device_id')}")
        sim = ln["sim"]
        if (sim["wrong_pin_attempts"] >= 3) != (sim["status"] == "pin_locked"):
            problems.append(f"line {lid}: SIM status {sim['status']} with {sim['wrong_pin_attempts']} "
                            "wrong PIN entries")
    for kind, table in (("device", devices), ("top-up", topups), ("roaming pass", passes), ("usage", db["usage"]),
                        ("ticket", db["tickets"])):
        problems += unknown_refs(table.items(), kind, "line_id", lines, "line")
    problems += unknown_refs(bills.items(), "bill", "customer_id", cust, "customer")
    problems += unknown_refs(payments.items(), "payment", "bill_id", bills, "bill")
    for cid, c in cust.items():
        if c["plan"] not in PLANS:
            problems.append(f"customer {cid}: unknown plan {c['plan']}")
    return problems


def _accounts(db: dict, groups: dict, V: dict) -> list[str]:
    """Lines per plan and financed devices per account."""
    problems: list[str] = []
    for cid, c in db["customers"].items():
        g = groups[cid]
        if len(g["lines"]) > V[f"max_lines_{c['plan']}"]:
            problems.append(f"customer {cid}: {len(g['lines'])} lines exceed the plan maximum")
        if sum(d["financed"] for d in g["devices"]) > V["max_financed_per_account"]:
            problems.append(f"customer {cid}: too many financed devices")
    return problems


def _devices(db: dict, V: dict, today: dt.date) -> list[str]:
    """Down payment by credit class, installments over the installment term, financed
    devices per line, the unlock rule."""
    problems: list[str] = []
    cust, lines = db["customers"], db["lines"]
    fin_per_line: dict[str, int] = defaultdict(int)
    for did, dv in db["devices"].items():
        c = cust[lines[dv["line_id"]]["customer_id"]]
        if dv["financed"]:
            fin_per_line[dv["line_id"]] += 1
            down = rounded(dv["price"] * V[f"down_payment_pct_{c['credit_class']}"] / 100)
            if abs(dv["down_payment"] - down) > 0.005:
                problems.append(f"device {did}: down payment {dv['down_payment']} != {down}")
            mi = rounded((dv["price"] - dv["down_payment"]) / V["installment_months"])
            if abs(dv["monthly_installment"] - mi) > 0.005:
                problems.append(f"device {did}: monthly installment {dv['monthly_installment']} != {mi}")
            if dv["installments_billed"] > V["installment_months"]:
                problems.append(f"device {did}: more installments billed than the installment term")
        line = lines[dv["line_id"]]
        paid_off = (not dv["financed"]) or dv["installments_billed"] >= V["installment_months"]
        unlock = paid_off and (today - date_of(line["activated_on"])).days >= V["unlock_after_days"]
        if dv["unlocked"] != unlock:
            problems.append(f"device {did}: unlocked={dv['unlocked']} but the unlock rule gives {unlock}")
    for lid, n in fin_per_line.items():
        if n > V["max_financed_per_line"]:
            problems.append(f"line {lid}: {n} financed devices")
    return problems


def _item_keys(items: list[dict]) -> list[tuple]:
    return sorted((it["type"], str(it.get("line_id", it.get("for_bill_id", ""))), round(it["amount"], 2))
                  for it in items)


def _bills(db: dict, groups: dict, charges: dict, V: dict, today: dt.date) -> list[str]:
    """Each account's bills recomputed (due dates, items, totals, statuses, installments
    billed) and the account, line and SIM statuses the overdue rules give; no top-up or
    roaming pass bought while the account was suspended."""
    problems: list[str] = []
    cust, bills, devices = db["customers"], db["bills"], db["devices"]
    for cid, g in groups.items():
        c = cust[cid]
        for b in g["bills"]:
            du = date_of(b["bill_date"]) + dt.timedelta(days=V["due_days"])
            if b["due_date"] != du.isoformat():
                problems.append(f"bill {b['id']}: due date {b['due_date']} != {du.isoformat()}")
        exp = expected_bills(c, g["lines"], g["devices"], g["bills"], g["topups"], g["passes"], charges, V, today)
        for bid, e in exp["bills"].items():
            b = bills[bid]
            got, want = _item_keys(b["items"]), _item_keys(e["items"])
            if got != want:
                diff = sorted(set(got) ^ set(want))[:3]
                problems.append(f"bill {bid}: items differ from the fee schedule: {diff}")
            if abs(b["total"] - rounded(sum(it["amount"] for it in b["items"]))) > 0.005:
                problems.append(f"bill {bid}: total {b['total']} is not the sum of its items")
            elif abs(b["total"] - e["total"]) > 0.005:
                problems.append(f"bill {bid}: total {b['total']} != {e['total']}")
            if b["status"] != e["status"]:
                problems.append(f"bill {bid}: status {b['status']} but the rules give {e['status']}")
        for did, n in exp["installments"].items():
            if devices[did]["installments_billed"] != n:
                problems.append(f"device {did}: {devices[did]['installments_billed']} installments recorded, "
                                f"{n} billed")
        tl = exp["timeline"]
        if c["status"] != tl["status"]:
            problems.append(f"customer {cid}: status {c['status']} but the overdue rules give {tl['status']}")
        for ln in g["lines"]:
            if ln["status"] != tl["status"]:
                problems.append(f"line {ln['id']}: status {ln['status']} but the account is {tl['status']}")
            if tl["status"] != "active" and ln["sim"]["status"] == "active":
                problems.append(f"line {ln['id']}: SIM active on a {tl['status']} line")
        for t in g["topups"]:
            if suspended_on(date_of(t["date"]), tl):
                problems.append(f"top-up {t['id']}: bought while the account was suspended")
        for p in g["passes"]:
            if suspended_on(date_of(p["date"]), tl):
                problems.append(f"roaming pass {p['id']}: bought while the account was suspended")
    return problems


def _payments(db: dict, V: dict) -> list[str]:
    """A payment pays its bill's total on its paid date, with the agent fee by phone."""
    problems: list[str] = []
    for pid, p in db["payments"].items():
        b = db["bills"][p["bill_id"]]
        if abs(p["amount"] - b["total"]) > 0.005 or p["date"] != b["paid_date"]:
            problems.append(f"payment {pid}: does not match bill {b['id']}")
        fee = float(V["agent_payment_fee"]) if p["method"] == "agent_phone" else 0.0
        if abs(p["fee"] - fee) > 0.005:
            problems.append(f"payment {pid}: fee {p['fee']} != {fee}")
    return problems


def _line_cycle(db: dict, rec: dict) -> tuple[str, dt.date]:
    """(line, start of its billing cycle) of a record dated on a line: a top-up, a pass."""
    c = db["customers"][db["lines"][rec["line_id"]]["customer_id"]]
    return rec["line_id"], cycle_start(date_of(rec["date"]), c["cycle_day"])


def _top_ups(db: dict, V: dict) -> list[str]:
    """Price per size, per-cycle purchase limits and spending cap."""
    problems: list[str] = []
    per_cycle: dict[tuple, list] = defaultdict(list)
    for tid, t in db["top_ups"].items():
        if t["size_gb"] not in TOPUP_SIZES:
            problems.append(f"top-up {tid}: unknown size {t['size_gb']} GB")
            continue
        if abs(t["price"] - V[f"topup_price_{t['size_gb']}gb"]) > 0.005:
            problems.append(f"top-up {tid}: price {t['price']} differs from the {t['size_gb']} GB top-up price")
        per_cycle[_line_cycle(db, t)].append(t)
    for (lid, cyc), ts in per_cycle.items():
        if sum(t["price"] for t in ts) > V["topup_cap_per_cycle"] + 0.005:
            problems.append(f"line {lid}: top-ups in the cycle from {cyc} exceed the spending cap")
        for size in TOPUP_SIZES:
            if sum(t["size_gb"] == size for t in ts) > V[f"topup_max_{size}gb"]:
                problems.append(f"line {lid}: too many {size} GB top-ups in the cycle from {cyc}")
    return problems


def _roaming_passes(db: dict, charges: dict, V: dict) -> list[str]:
    """Region prices, included passes, minimum line age, paid pass limit."""
    problems: list[str] = []
    paid_per_cycle: dict[tuple, int] = defaultdict(int)
    for pid, p in db["roaming_passes"].items():
        if p["region"] not in REGIONS:
            problems.append(f"roaming pass {pid}: unknown region {p['region']}")
            continue
        ln = db["lines"][p["line_id"]]
        if abs(p["price"] - charges[pid]) > 0.005:
            problems.append(f"roaming pass {pid}: price {p['price']} != {charges[pid]}")
        if (date_of(p["date"]) - date_of(ln["activated_on"])).days < V["roaming_min_active_days"]:
            problems.append(f"roaming pass {pid}: line active for fewer than {V['roaming_min_active_days']} days")
        if charges[pid] > 0:
            paid_per_cycle[_line_cycle(db, p)] += 1
    for (lid, cyc), n in paid_per_cycle.items():
        if n > V["roaming_max_paid_passes"]:
            problems.append(f"line {lid}: {n} paid day passes in the cycle from {cyc}")
    return problems


def _usage(db: dict, V: dict) -> list[str]:
    """The plan's data allowance and the throttled flag."""
    problems: list[str] = []
    for lid, u in db["usage"].items():
        c = db["customers"][db["lines"][lid]["customer_id"]]
        allowance = V[f"data_gb_{c['plan']}"]
        if u["allowance_gb"] != allowance:
            problems.append(f"usage {lid}: allowance {u['allowance_gb']} GB != {allowance} GB")
        if u["throttled"] != (u["data_used_gb"] >= allowance + u["top_up_gb"]):
            problems.append(f"usage {lid}: throttled flag disagrees with the data used")
    return problems


def _plan_changes(db: dict, V: dict) -> list[str]:
    """Changes per cycle, only on active accounts; an upgrade at once with its prorated
    charge, a downgrade at the next cycle, uncharged, to a plan that holds the lines."""
    P: list[str] = []
    cust, lines = db["customers"], db["lines"]
    for cid, c in cust.items():
        per_cycle: dict[dt.date, int] = defaultdict(int)
        n_lines = sum(ln["customer_id"] == cid for ln in lines.values())
        for ch in c.get("plan_changes", []):
            req = date_of(ch["requested_on"])
            start = cycle_start(req, c["cycle_day"])
            per_cycle[start] += 1
            if per_cycle[start] > V["max_plan_changes"]:
                P.append(f"customer {cid}: more than {V['max_plan_changes']} plan changes in the cycle from {start}")
            if c["status"] != "active":
                P.append(f"customer {cid}: plan changed on a {c['status']} account")
            up = V[f"plan_price_{ch['to_plan']}"] > V[f"plan_price_{ch['from_plan']}"]
            if up:
                if ch["effective_on"] != req.isoformat() or ch["status"] != "applied":
                    P.append(f"customer {cid}: an upgrade takes effect immediately")
                want = prorated_upgrade(V, {**c, "plan_changes": [x for x in c["plan_changes"] if x is not ch],
                                            "plan": ch["from_plan"]}, n_lines, ch["to_plan"], req)
                if abs(ch["prorated_charge"] - want) > 0.005:
                    P.append(f"customer {cid}: prorated upgrade charge {ch['prorated_charge']} != {want}")
            else:
                if ch["effective_on"] != next_cycle(start, c["cycle_day"]).isoformat() or ch["prorated_charge"]:
                    P.append(f"customer {cid}: a downgrade takes effect at the next cycle, uncharged")
                if n_lines > V[f"max_lines_{ch['to_plan']}"]:
                    P.append(f"customer {cid}: downgrade to {ch['to_plan']} with {n_lines} lines")
    return P


def _line_records(db: dict, V: dict, today: dt.date) -> list[str]:
    """Parental controls for young users, lines added only to active accounts, SIM
    replacement fees."""
    P: list[str] = []
    cust = db["customers"]
    for lid, ln in db["lines"].items():
        if ln.get("user_date_of_birth"):
            age = (today - date_of(ln["user_date_of_birth"])).days // 365.25
            if age < V["parental_controls_age"] and not ln.get("parental_controls"):
                P.append(f"line {lid}: user under {V['parental_controls_age']} without parental controls")
        if "added_on" in ln and cust[ln["customer_id"]]["status"] != "active":
            P.append(f"line {lid}: added to a {cust[ln['customer_id']]['status']} account")
        for sw in ln.get("sim_swaps", []):
            free = sw["sim_type"] == "esim" or (sw["reason"] == "failed" and date_of(sw["date"])
                                                <= date_of(ln["activated_on"]) + dt.timedelta(days=365))
            want = 0.0 if free else float(V["sim_replacement_fee"])
            if abs(sw["fee"] - want) > 0.005:
                P.append(f"line {lid}: SIM replacement fee {sw['fee']} != {want}")
    return P


def _unlock_requests(db: dict, V: dict) -> list[str]:
    """Only a paid-off device may be unlocked."""
    P: list[str] = []
    for rid, r in db.get("unlock_requests", {}).items():
        dv = db["devices"][r["device_id"]]
        if dv["financed"] and dv["installments_billed"] < V["installment_months"]:
            P.append(f"unlock request {rid}: device {r['device_id']} is not paid off")
    return P


def _fee_waivers(db: dict) -> list[str]:
    """A waiver matches a late fee; a second one within 12 months needs a manager."""
    P: list[str] = []
    bills = db["bills"]
    waived: dict[str, list[dt.date]] = defaultdict(list)
    for wid, w in sorted(db.get("fee_waivers", {}).items(), key=lambda kv: kv[1]["date"]):
        b = bills[w["bill_id"]]
        fee = next((it for it in b["items"] if it["type"] == "late_fee"), None)
        if fee is None or abs(fee["amount"] - w["amount"]) > 0.005:
            P.append(f"fee waiver {wid}: bill {w['bill_id']} has no late fee of {w['amount']}")
        prior = [d for d in waived[b["customer_id"]] if (date_of(w["date"]) - d).days < 365]
        if prior and not w.get("approved_by"):
            P.append(f"fee waiver {wid}: a second waiver within 12 months without a manager")
        waived[b["customer_id"]].append(date_of(w["date"]))
    return P


def _payment_arrangements(db: dict, V: dict) -> list[str]:
    """Installments, balance and term within the arrangement limits, adding up to the bills."""
    P: list[str] = []
    bills = db["bills"]
    for aid, a in db.get("payment_arrangements", {}).items():
        due = sum(bills[b]["total"] for b in a["bill_ids"])
        if len(a["installments"]) > V["arrangement_max_installments"]:
            P.append(f"arrangement {aid}: more than {V['arrangement_max_installments']} installments")
        if due > V["arrangement_max_balance"]:
            P.append(f"arrangement {aid}: balance {due} above {V['arrangement_max_balance']}")
        if abs(sum(i["amount"] for i in a["installments"]) - due) > 0.005:
            P.append(f"arrangement {aid}: installments do not add up to {due}")
        last = max(date_of(i["due_on"]) for i in a["installments"])
        if last > date_of(a["created_on"]) + dt.timedelta(days=V["arrangement_days"]):
            P.append(f"arrangement {aid}: last installment later than {V['arrangement_days']} days")
    return P


def _handoffs(db: dict) -> list[str]:
    return unknown_refs(db.get("handoffs", {}).items(), "handoff", "customer_id", db["customers"], "customer")


def _tickets(db: dict, V: dict) -> list[str]:
    """Escalation per the attempt thresholds; troubleshooting only on active lines."""
    problems: list[str] = []
    for tid, t in db["tickets"].items():
        limit = V["escalate_attempts_slow_data"] if t["issue"] == "slow_data" else V["escalate_attempts"]
        want = ticket_status(t["attempts"], limit)
        if (t["status"], t["tier"]) != (want["status"], want["tier"]):
            problems.append(f"ticket {tid}: status {t['status']} but the escalation rule gives {want['status']}")
        if db["lines"][t["line_id"]]["status"] != "active":
            problems.append(f"ticket {tid}: troubleshooting on a line that is not active")
    return problems
