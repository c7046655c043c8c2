"""The built-in airline and retail domains: packs load, seed databases are deterministic,
consistent with their own policy values, and the consistency checks catch tampering and
value mismatches; VALUE_FACTS point at the policy text that states each value."""
from __future__ import annotations

import copy
import json
from types import SimpleNamespace

import pytest

from domains import get_pack
from domains.contract import import_pack_module
from domains.value_feeds import PLACEHOLDER, link_places, locate_link
from facts.errors import FactforgeError
from facts.surface import fmt_num
from facts.values import find_values

DOMAINS = ["airline", "retail"]


def seed_module(pack):
    """The pack's code as one namespace: `generate` (seed.py), `check` (check.py), `VALUES` and
    `VALUE_FACTS` (rules.py)."""
    seed, check, rules = (import_pack_module(pack.path, m) for m in ("seed", "check", "rules"))
    return SimpleNamespace(generate=seed.generate, check=check.check, VALUES=rules.VALUES,
                           VALUE_FACTS=rules.VALUE_FACTS)


@pytest.fixture(scope="module", params=DOMAINS)
def dom(request):
    pack = get_pack(request.param)
    mod = seed_module(pack)
    return pack, mod, mod.generate(pack, 0)


def canon(db) -> str:
    return json.dumps(db, sort_keys=True, ensure_ascii=False)


def test_packs_load_with_full_brands():
    air, ret = get_pack("airline"), get_pack("retail")
    assert air.brand.voice == "formal" and ret.brand.voice == "friendly"
    assert air.brand.company != ret.brand.company
    for pack in (air, ret):
        assert not pack.is_test
        assert pack.info.now.tzinfo is not None and pack.info.currency == "USD"
        assert len(pack.brand.agents) >= 6 and len(pack.brand.managers) >= 3
        assert len(set(pack.brand.customers)) >= 12
        assert pack.brand.id_prefixes and pack.brand.products
        assert pack.policy_files() == [pack.policy_path]


def test_generate_is_deterministic_and_seed_dependent(dom):
    pack, mod, db = dom
    assert canon(mod.generate(pack, 0)) == canon(db)
    assert canon(mod.generate(pack, 1)) != canon(db)
    assert canon(pack.database(0)) == canon(db)


def test_database_is_json_and_sized(dom):
    pack, _mod, db = dom
    json.dumps(db)  # only JSON types
    sizes = {name: len(table) for name, table in db.items()}
    assert all(n > 0 for n in sizes.values())
    assert 300 <= sum(sizes.values()) <= 2000, sizes
    for table in db.values():
        for key, rec in table.items():
            first_key = next(iter(rec))
            assert first_key.endswith(("_id", "_number")) and rec[first_key] == key


@pytest.mark.parametrize("seed", [0, 1, 7])
def test_generated_database_passes_its_checks(dom, seed):
    pack, mod, db = dom
    data = db if seed == 0 else mod.generate(pack, seed)
    assert mod.check(pack, data) == []
    assert pack.check_database(data) == []


def test_databases_use_brand_names_and_prefixes():
    air = get_pack("airline")
    db = seed_module(air).generate(air, 0)
    pre = air.brand.id_prefixes
    assert all(k.startswith(pre["reservation"]) for k in db["reservations"])
    assert all(k.startswith(pre["user"]) for k in db["users"])
    cabins = {r["cabin"] for r in db["reservations"].values()}
    assert cabins == {air.brand.products[g] for g in ("basic economy", "economy", "business")}
    names = {u["name"] for u in db["users"].values()}
    assert set(air.brand.customers) <= names
    ret = get_pack("retail")
    rdb = seed_module(ret).generate(ret, 0)
    assert all(k.startswith(ret.brand.id_prefixes["order"]) for k in rdb["orders"])
    tiers = {c["loyalty"]["tier"] for c in rdb["customers"].values()}
    assert tiers == {ret.brand.products[g] for g in ("base tier", "middle tier", "top tier")}


def test_airline_records_cover_the_policy_cases():
    pack = get_pack("airline")
    db = seed_module(pack).generate(pack, 0)
    res = list(db["reservations"].values())
    rules = {r["cancellation"]["rule"] for r in res if r["cancellation"]}
    assert {"full", "main_fee", "premier_early"} <= rules
    changes = {c["type"] for r in res for c in r["changes"]}
    assert {"flight_change", "add_bags", "name_correction"} <= changes
    assert {r["status"] for r in res} == {"confirmed", "completed", "cancelled"}
    certs = [pm for u in db["users"].values() for pm in u["payment_methods"].values() if pm["type"] == "travel_certificate"]
    assert any(c["origin"]["kind"] == "compensation" for c in certs)
    assert any(r["paid_bags"] > 0 for r in res) and any(r["insurance"] for r in res)


def test_retail_records_cover_the_policy_cases():
    pack = get_pack("retail")
    db = seed_module(pack).generate(pack, 0)
    orders = list(db["orders"].values())
    assert {o["status"] for o in orders} == {"pending", "processed", "shipped", "delivered", "cancelled"}
    rets = [r for o in orders for r in o["returns"]]
    assert any(r["restocking_fee"] > 0 for r in rets) and any(r["refund_to"] == "row_credit" for r in rets)
    assert any(r["condition"] == "damaged" and r["restocking_fee"] == 0 for r in rets)
    assert any(o["exchanges"] for o in orders) and any(o["price_adjustments"] for o in orders)
    kinds = {m["type"] for o in orders for m in o["modifications"]}
    assert kinds == {"item_change", "address_change", "payment_change"}
    assert sum(len(p["variants"]) for p in db["products"].values()) >= 80


def test_tampered_airline_bag_fee_is_reported():
    pack = get_pack("airline")
    mod = seed_module(pack)
    db = copy.deepcopy(mod.generate(pack, 0))
    rid = next(k for k, r in sorted(db["reservations"].items()) if r["paid_bags"] > 0)
    db["reservations"][rid]["bag_fee"] += 10
    problems = mod.check(pack, db)
    assert problems and all(rid in p for p in problems)
    assert any("bag fee" in p for p in problems)


def test_tampered_airline_refund_and_tier_are_reported():
    pack = get_pack("airline")
    mod = seed_module(pack)
    db = copy.deepcopy(mod.generate(pack, 0))
    rid = next(k for k, r in sorted(db["reservations"].items())
               if r["cancellation"] and r["cancellation"]["refund_amount"] > 0)
    db["reservations"][rid]["cancellation"]["refund_amount"] -= 1
    assert any(rid in p and "refund" in p for p in mod.check(pack, db))
    db = copy.deepcopy(mod.generate(pack, 0))
    uid = next(k for k, u in sorted(db["users"].items()) if u["membership"]["tier"] == "Wayfarer")
    db["users"][uid]["membership"]["tier"] = "Pinnacle"
    assert any(uid in p and "tier" in p for p in mod.check(pack, db))


def test_tampered_retail_records_are_reported():
    pack = get_pack("retail")
    mod = seed_module(pack)
    base = mod.generate(pack, 0)
    db = copy.deepcopy(base)
    oid = next(k for k, o in sorted(db["orders"].items()) if any(r["restocking_fee"] > 0 for r in o["returns"]))
    ret = next(r for r in db["orders"][oid]["returns"] if r["restocking_fee"] > 0)
    ret["restocking_fee"] = 0
    assert any(oid in p and "restocking_fee" in p for p in mod.check(pack, db))
    db = copy.deepcopy(base)
    oid = next(k for k, o in sorted(db["orders"].items()) if o["shipping_fee"] > 0)
    db["orders"][oid]["shipping_fee"] = 0
    assert any(oid in p and "shipping fee" in p for p in mod.check(pack, db))
    db = copy.deepcopy(base)
    oid = next(k for k, o in sorted(db["orders"].items()) if o["customer_id"])
    db["orders"][oid]["customer_id"] = "nobody"
    assert any("unknown customer" in p for p in mod.check(pack, db))


def test_value_facts_point_at_unique_policy_text(dom):
    """Each link names the one policy line stating its value, without the number (`…`); only
    the compensation table's rows, whose tier labels an earlier table repeats, keep theirs."""
    pack, mod, _db = dom
    policy = pack.policy_path.read_text(encoding="utf-8")
    texts = {pack.policy_path: policy}
    assert set(mod.VALUE_FACTS) == set(mod.VALUES)
    for key, sub in mod.VALUE_FACTS.items():
        if PLACEHOLDER in sub:
            assert not find_values(sub) and link_places(sub, texts) == 1, (key, sub)
            assert locate_link(sub, texts) is not None, (key, sub)
        else:
            assert pack.name == "airline" and key.startswith("comp_delay_"), (key, sub)
            assert policy.count(sub) == 1 and fmt_num(mod.VALUES[key]) in sub, (key, sub)


CHANGED = {"airline": ("extra_bag_fee", 52), "retail": ("restocking_pct_furniture", 20)}


def test_changed_values_flow_through_generate_and_check(dom):
    pack, mod, db = dom
    key, new = CHANGED[pack.name]
    assert mod.VALUES[key] != new
    changed = mod.generate(pack, 0, values={key: new})
    assert canon(changed) != canon(db)
    assert mod.check(pack, changed, values={key: new}) == []
    mismatches = mod.check(pack, changed)
    assert mismatches
    assert mod.check(pack, db, values={key: new})


def test_price_scale_keeps_the_database_consistent(dom):
    pack, mod, db = dom
    scaled = mod.generate(pack, 0, price_scale=1.5)
    assert mod.check(pack, scaled) == []
    if pack.name == "airline":
        fn = sorted(db["flights"])[0]
        day = sorted(db["flights"][fn]["dates"])[0]
        a, b = db["flights"][fn]["dates"][day]["prices"], scaled["flights"][fn]["dates"][day]["prices"]
    else:
        a = [v["price"] for p in db["products"].values() for v in p["variants"].values()]
        b = [v["price"] for p in scaled["products"].values() for v in p["variants"].values()]
    assert a != b


def test_bad_values_are_user_errors(dom):
    pack, mod, _db = dom
    with pytest.raises(FactforgeError, match="unknown"):
        mod.generate(pack, 0, values={"no_such_value": 1})
    with pytest.raises(FactforgeError, match="number"):
        mod.check(pack, {}, values={next(iter(mod.VALUES)): "ten"})
    with pytest.raises(FactforgeError, match="price_scale"):
        mod.generate(pack, 0, price_scale=0)


MIN_FACTS = {"airline": 80, "retail": 100}


def test_policies_decompose_into_enough_facts(dom):
    pack, _mod, _db = dom
    fs = pack.facts
    assert len(fs.facts) >= MIN_FACTS[pack.name], len(fs.facts)
    assert fs.unparsed == [], [(u.line, u.reason) for u in fs.unparsed]
    numeric = [f for f in fs.facts if f.slots]
    assert len(numeric) >= len(fs.facts) // 2


def test_every_value_fact_resolves_to_a_policy_slot(dom):
    from domains import variant_spec as vs  # noqa: PLC0415

    pack, mod, _db = dom
    feeds = vs.resolve_value_facts(pack, pack.facts)
    assert set(feeds) == set(mod.VALUES)
    by_id = pack.facts.by_id()
    for key, feed in feeds.items():
        slot = next(s for s in by_id[feed.fact_id].slots if s.name == feed.slot)
        got = slot.value if feed.component == "value" else slot.value_max
        assert abs(float(got) * feed.factor - float(mod.VALUES[key])) < 1e-9, (key, feed)
