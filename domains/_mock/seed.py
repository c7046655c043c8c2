"""Seed database for the _mock domain: customers and rentals obeying the policy."""
from __future__ import annotations

import random

from .rules import late_fee, values_with


def generate(pack, seed: int, values: dict | None = None) -> dict:
    v = values_with(values)
    rng = random.Random(f"_mock:{seed}")
    pre = pack.brand.id_prefixes
    customers, rentals = {}, {}
    for i, name in enumerate(pack.brand.customers):
        cid = f"{pre['customer']}{1000 + i}"
        customers[cid] = {"id": cid, "name": name, "age": rng.randint(16, 70), "pass_holder": rng.random() < 0.5}
    for i in range(6):
        cid = sorted(customers)[i % len(customers)]
        late_hours = rng.choice([0, 0, 1, 2, 3])
        fee = late_fee(late_hours, customers[cid]["pass_holder"], v)
        rid = f"{pre['rental']}{2000 + i}"
        rentals[rid] = {"id": rid, "customer_id": cid, "bikes": rng.randint(1, int(v["max_bikes"])),
                        "deposit": v["deposit"], "late_hours": late_hours, "late_fee": fee}
    return {"customers": customers, "rentals": rentals}
