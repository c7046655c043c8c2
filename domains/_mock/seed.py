"""Seed database for the _mock domain: customers and rentals obeying the policy."""
from __future__ import annotations

import random

DEPOSIT = 50
LATE_FEE_PER_HOUR = 12


def generate(pack, seed: int) -> dict:
    rng = random.Random(f"_mock:{seed}")
    pre = pack.brand.id_prefixes
    customers, rentals = {}, {}
    for i, name in enumerate(pack.brand.customers):
        cid = f"{pre['customer']}{1000 + i}"
        customers[cid] = {"id": cid, "name": name, "age": rng.randint(16, 70), "pass_holder": rng.random() < 0.5}
    for i in range(6):
        cid = sorted(customers)[i % len(customers)]
        late_hours = rng.choice([0, 0, 1, 2, 3])
        fee = late_hours * LATE_FEE_PER_HOUR
        if customers[cid]["pass_holder"]:
            fee = round(fee * 0.8, 2)
        rid = f"{pre['rental']}{2000 + i}"
        rentals[rid] = {"id": rid, "customer_id": cid, "bikes": rng.randint(1, 3), "deposit": DEPOSIT,
                        "late_hours": late_hours, "late_fee": fee}
    return {"customers": customers, "rentals": rentals}


def check(pack, db: dict) -> list[str]:
    problems = []
    for r in db["rentals"].values():
        c = db["customers"].get(r["customer_id"])
        if c is None:
            problems.append(f"rental {r['id']}: unknown customer {r['customer_id']}")
            continue
        fee = r["late_hours"] * LATE_FEE_PER_HOUR * (0.8 if c["pass_holder"] else 1)
        if abs(fee - r["late_fee"]) > 0.005:
            problems.append(f"rental {r['id']}: late fee {r['late_fee']} != {fee}")
        if r["bikes"] > 3:
            problems.append(f"rental {r['id']}: more than 3 bikes")
    return problems
