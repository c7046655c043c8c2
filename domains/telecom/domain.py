"""The telecom pack (Kestrel Mobile): a mobile carrier's plans, lines, devices, bills, top-ups,
roaming passes and support tickets."""
from __future__ import annotations

from domains.contract import PackCode, TestQuota

from . import api, check, model, rules, scenarios, seed

DOMAIN = PackCode("telecom", values=rules.VALUES, value_facts=rules.VALUE_FACTS, generate=seed.generate,
                  check=check.check, database=model.Database, catalog=api.CATALOG, scenarios=scenarios.scenarios,
                  test_quota=TestQuota(min_tests=60, min_trap_share=0.4, full_value_coverage=True))
