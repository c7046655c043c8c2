"""The banking pack (Merrowgate Bank): a retail bank's checking, savings, certificate, credit
card and loan products, ledgers, statements, transfers, card servicing and disputes."""
from __future__ import annotations

from domains.contract import PackCode, TestQuota

from . import api, check, model, rules, scenarios, seed

DOMAIN = PackCode("banking", values=rules.VALUES, value_facts=rules.VALUE_FACTS, generate=seed.generate,
                  check=check.check, database=model.Database, catalog=api.CATALOG, scenarios=scenarios.scenarios,
                  test_quota=TestQuota(min_tests=150, min_trap_share=0.4))
