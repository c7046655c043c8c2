"""Seed database for the _mock domain: customers and rentals obeying the policy."""
from __future__ import annotations

import random

VALUES: dict[str, float | int] = {"deposit": 50, "late_fee_per_hour": 12, "pass_discount_pct": 20, "max_bikes": 3}
VALUE_FACTS: dict[str, str] = {
    "deposit": "The security deposit is $50",
    "late_fee_per_hour": "The late fee is $12",
    "pass_discount_pct": "get a 20% discount",
    "max_bikes": "at most 3 bikes",
}


def _v(values: dict | None) -> dict:
    out = dict(VALUES)
    out.update(values or {})
    return out


def generate(pack, seed: int, values: dict | None = None) -> dict:
    v = _v(values)
    rng = random.Random(f"_mock:{seed}")
    pre = pack.brand.id_prefixes
    customers, rentals = {}, {}
    for i, name in enumerate(pack.brand.customers):
        cid = f"{pre['customer']}{1000 + i}"
        customers[cid] = {"id": cid, "name": name, "age": rng.randint(16, 70), "pass_holder": rng.random() < 0.5}
    for i in range(6):
        cid = sorted(customers)[i % len(customers)]
        late_hours = rng.choice([0, 0, 1, 2, 3])
        fee = late_hours * v["late_fee_per_hour"]
        if customers[cid]["pass_holder"]:
            fee = round(fee * (1 - v["pass_discount_pct"] / 100), 2)
        rid = f"{pre['rental']}{2000 + i}"
        rentals[rid] = {"id": rid, "customer_id": cid, "bikes": rng.randint(1, int(v["max_bikes"])),
                        "deposit": v["deposit"], "late_hours": late_hours, "late_fee": fee}
    return {"customers": customers, "rentals": rentals}


def check(pack, db: dict, values: dict | None = None) -> list[str]:
    v = _v(values)
    problems = []
    for r in db["rentals"].values():
        c = db["customers"].get(r["customer_id"])
        if c is None:
            problems.append(f"rental {r['id']}: unknown customer {r['customer_id']}")
            continue
        fee = r["late_hours"] * v["late_fee_per_hour"] * ((1 - v["pass_discount_pct"] / 100) if c["pass_holder"] else 1)
        if abs(fee - r["late_fee"]) > 0.005:
            problems.append(f"rental {r['id']}: late fee {r['late_fee']} != {fee}")
        if r["deposit"] != v["deposit"]:
            problems.append(f"rental {r['id']}: deposit {r['deposit']} != {v['deposit']}")
        if r["bikes"] > v["max_bikes"]:
            problems.append(f"rental {r['id']}: more than {v['max_bikes']} bikes")
    return problems
