"""The retail pack: Juniper Row Home & Outdoor, its orders and its policy."""
from __future__ import annotations

from domains.contract import PackCode, TestQuota

from . import api, check, model, rules, scenarios, seed

DOMAIN = PackCode("retail", values=rules.VALUES, value_facts=rules.VALUE_FACTS, generate=seed.generate,
                  check=check.check, database=model.Database, catalog=api.CATALOG, scenarios=scenarios.scenarios,
                  scales_prices=True, test_quota=TestQuota(min_tests=60, min_trap_share=0.4, full_value_coverage=True),
                  increasing=rules.INCREASING, not_above=rules.NOT_ABOVE, at_least_one=rules.AT_LEAST_ONE)
