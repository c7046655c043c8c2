"""Every way a _mock database breaks the policy."""
from __future__ import annotations

from domains.records import unknown_refs

from .rules import late_fee, values_with


def check(pack, db: dict, values: dict | None = None) -> list[str]:
    v = values_with(values)
    problems = []
    for r in db["rentals"].values():
        c = db["customers"].get(r["customer_id"])
        if c is None:
            problems.append(f"rental {r['id']}: unknown customer {r['customer_id']}")
            continue
        fee = late_fee(r["late_hours"], c["pass_holder"], v)
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
    return problems + unknown_refs(db.get("handoffs", {}).items(), "handoff", "customer_id", db["customers"],
                                   "customer")
