"""Seed database for the _mock domain: customers and rentals obeying the policy."""
from __future__ import annotations

import random

from domains.contract import DomainCode
from domains.seedkit import merged_values

VALUES: dict[str, float | int] = {"deposit": 50, "late_fee_per_hour": 12, "pass_discount_pct": 20, "max_bikes": 3,
                                  "min_age": 16, "max_waiver": 60}
VALUE_FACTS: dict[str, str] = {
    "deposit": "The security deposit is $50",
    "late_fee_per_hour": "The late fee is $12",
    "pass_discount_pct": "get a 20% discount",
    "max_bikes": "at most 3 bikes",
    "min_age": "at least 16",
    "max_waiver": "a late fee above $60",
}


def _v(values: dict | None) -> dict:
    return merged_values(VALUES, values, "_mock")


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
        if c["age"] < v["min_age"]:
            problems.append(f"rental {r['id']}: customer younger than {v['min_age']}")
        waived = r.get("waived", 0)
        if waived > r["late_fee"] + 0.005:
            problems.append(f"rental {r['id']}: waived {waived}, more than the late fee")
        if waived > v["max_waiver"] and r.get("waiver_approved_by") not in pack.brand.managers:
            problems.append(f"rental {r['id']}: waiver of {waived} above {v['max_waiver']} without a manager")
    for h in db.get("handoffs", {}).values():
        if h["customer_id"] not in db["customers"]:
            problems.append(f"handoff {h['id']}: unknown customer {h['customer_id']}")
    return problems


class Mock(DomainCode):
    """The test domain's code: seed, check, a tiny API (api.py) and tests (scenarios.py)."""

    values = VALUES
    value_facts = VALUE_FACTS

    def generate(self, pack, seed, values=None, price_scale=1.0):
        if price_scale != 1:
            raise ValueError("the _mock seed does not scale prices itself")
        return generate(pack, seed, values)

    def check(self, pack, db, values=None):
        return check(pack, db, values)

    def merged_values(self, values=None):
        return _v(values)

    def api(self, pack, values=None):
        from .api import CATALOG  # noqa: PLC0415
        return CATALOG.bind(pack, _v(values))

    def scenarios(self, ctx):
        from .scenarios import scenarios  # noqa: PLC0415
        return scenarios(ctx)


DOMAIN = Mock()
