"""The _mock policy's values: what the seed database depends on, each linked to the policy
sentence that states it (a variant may override any of them)."""
from __future__ import annotations

from domains.seedkit import merged_values

VALUES: dict[str, float | int] = {"deposit": 50, "late_fee_per_hour": 12, "pass_discount_pct": 20, "max_bikes": 3,
                                  "min_age": 16, "max_waiver": 60}
VALUE_FACTS: dict[str, str] = {
    "deposit": "The security deposit is …",
    "late_fee_per_hour": "The late fee is …",
    "pass_discount_pct": "get a … discount",
    "max_bikes": "at most … bikes",
    "min_age": "at least …",
    "max_waiver": "a late fee above …",
}


def values_with(values: dict | None) -> dict:
    """VALUES with a variant's `values` over them."""
    return merged_values(VALUES, values, "_mock")


def late_fee(hours: int, pass_holder: bool, v: dict) -> float:
    """The late fee of a rental returned `hours` late (the pass discount applied)."""
    fee = hours * v["late_fee_per_hour"]
    return round(fee * (1 - v["pass_discount_pct"] / 100), 2) if pass_holder else fee
