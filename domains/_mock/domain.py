"""The _mock pack: a bike-rental shop with a one-page policy, the default test domain."""
from __future__ import annotations

from domains.contract import PackCode

from . import api, check, model, rules, scenarios, seed

DOMAIN = PackCode("_mock", values=rules.VALUES, value_facts=rules.VALUE_FACTS, generate=seed.generate,
                  check=check.check, database=model.Database, catalog=api.CATALOG, scenarios=scenarios.scenarios)
