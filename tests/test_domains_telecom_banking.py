"""The telecom (Kestrel Mobile) and banking (Merrowgate Bank) built-in domains: packs load,
seed databases are deterministic and consistent with the policy, tampering is detected,
VALUE_FACTS address the policy, VALUES overrides flow through, and the policies decompose
into enough facts."""
from __future__ import annotations

import copy
import json
import re

import pytest

from domains import get_pack
from domains.contract import import_pack_module

DOMAINS = ["telecom", "banking"]


def _seed(pack):
    return import_pack_module(pack.path, "seed")


def _rules(pack):
    return import_pack_module(pack.path, "rules")


def _check(pack):
    return import_pack_module(pack.path, "check")


def _policy_text(pack) -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in pack.policy_files())


@pytest.fixture(scope="module")
def packs():
    return {name: get_pack(name) for name in DOMAINS}


@pytest.fixture(scope="module")
def dbs(packs):
    return {name: packs[name].database(0) for name in DOMAINS}


def test_packs_load_with_brand_and_clock(packs):
    tel, bank = packs["telecom"], packs["banking"]
    assert tel.info.business == "mobile carrier" and bank.info.business == "retail bank"
    assert tel.brand.voice == "friendly" and bank.brand.voice == "formal"
    for p in (tel, bank):
        assert p.info.currency == "USD"
        assert p.info.now.utcoffset() is not None
        assert len(p.brand.agents) >= 6 and len(p.brand.managers) >= 3 and len(p.brand.customers) >= 12
        assert not p.is_test
    assert [f.name for f in tel.policy_files()] == ["policy.md"]
    names = [f.name for f in bank.policy_files()]
    assert len(names) >= 9 and names == sorted(names) and "11-checking-catalog.md" in names


@pytest.mark.parametrize("name", DOMAINS)
def test_generate_is_deterministic_and_seed_dependent(packs, name):
    seed = _seed(packs[name])
    a = json.dumps(seed.generate(packs[name], 0), sort_keys=True)
    b = json.dumps(seed.generate(packs[name], 0), sort_keys=True)
    c = json.dumps(seed.generate(packs[name], 1), sort_keys=True)
    assert a == b
    assert a != c


@pytest.mark.parametrize("name", DOMAINS)
@pytest.mark.parametrize("s", [0, 1, 2, 5])
def test_seed_database_is_consistent(packs, name, s):
    db = packs[name].database(s)
    assert packs[name].check_database(db) == []


def test_database_sizes_and_shapes(dbs):
    tel, bank = dbs["telecom"], dbs["banking"]
    assert 300 <= sum(len(v) for v in tel.values()) <= 2000
    assert 1000 <= sum(len(v) for v in bank.values()) <= 5000
    statuses = {c["status"] for c in tel["customers"].values()}
    assert {"active", "suspended"} <= statuses
    kinds = {t["kind"] for t in bank["transactions"].values()}
    assert {"monthly_fee", "overdraft_fee", "atm_fee", "interest", "payment", "purchase"} <= kinds
    assert {a["family"] for a in bank["accounts"].values()} >= {"checking", "savings", "credit_card"}


def test_telecom_tampering_is_reported(packs, dbs):
    pack = packs["telecom"]
    db = copy.deepcopy(dbs["telecom"])
    bill = next(b for b in sorted(db["bills"].values(), key=lambda b: b["id"]) if b["items"])
    bill["items"][0]["amount"] += 5
    assert any(bill["id"] in p for p in pack.check_database(db))

    db = copy.deepcopy(dbs["telecom"])
    line = next(ln for ln in db["lines"].values() if ln["status"] == "suspended")
    line["status"] = "active"
    assert any(line["id"] in p for p in pack.check_database(db))

    db = copy.deepcopy(dbs["telecom"])
    tu = next(iter(sorted(db["top_ups"].values(), key=lambda t: t["id"])))
    tu["price"] = tu["price"] - 1
    assert any(tu["id"] in p for p in pack.check_database(db))

    db = copy.deepcopy(dbs["telecom"])
    first = sorted(db["lines"])[0]
    db["lines"][first]["customer_id"] = "KC0"
    assert any("unknown customer" in p for p in pack.check_database(db))


def test_banking_tampering_is_reported(packs, dbs):
    pack = packs["banking"]
    db = copy.deepcopy(dbs["banking"])
    fee = next(t for t in sorted(db["transactions"].values(), key=lambda t: t["id"]) if t["kind"] == "monthly_fee")
    fee["amount"] -= 1
    assert any(fee["account_id"] in p for p in pack.check_database(db))

    db = copy.deepcopy(dbs["banking"])
    dsp = next(iter(sorted(db["disputes"].values(), key=lambda d: d["id"])))
    dsp["reported_on"] = "2026-01-01"
    assert any(dsp["id"] in p for p in pack.check_database(db))

    db = copy.deepcopy(dbs["banking"])
    tr = next(t for t in sorted(db["transfers"].values(), key=lambda t: t["id"]) if t["fee"] > 0)
    tr["fee"] += 2
    assert any(tr["id"] in p for p in pack.check_database(db))

    db = copy.deepcopy(dbs["banking"])
    cd = next(a for a in db["accounts"].values() if a["family"] == "cd")
    cd["apy"] += 0.25
    assert any(cd["id"] in p for p in pack.check_database(db))


@pytest.mark.parametrize("name", DOMAINS)
def test_value_facts_address_the_policy(packs, name):
    """Each link names the one policy line (or table row) stating its value, without the
    number (`…` stands for it)."""
    from domains.value_feeds import PLACEHOLDER, link_places, locate_link  # noqa: PLC0415
    from facts.values import find_values  # noqa: PLC0415

    rules = _rules(packs[name])
    texts = {p: p.read_text(encoding="utf-8") for p in packs[name].policy_files()}
    assert set(rules.VALUES) == set(rules.VALUE_FACTS)
    assert 20 <= len(rules.VALUES) <= 80
    for key, sub in rules.VALUE_FACTS.items():
        assert PLACEHOLDER in sub and not find_values(sub), (key, sub)
        assert link_places(sub, texts) == 1 and locate_link(sub, texts) is not None, (key, sub)


@pytest.mark.parametrize("name", DOMAINS)
def test_value_facts_resolve_to_the_stating_fact(packs, name):
    from domains import variant_spec  # noqa: PLC0415

    pack = packs[name]
    rules = _rules(pack)
    fs = pack.factset()
    feeds = variant_spec.resolve_value_facts(pack, fs)
    assert set(feeds) == set(rules.VALUES)
    by_id = fs.by_id()
    for key, feed in feeds.items():
        assert feed.factor == pytest.approx(1.0), key
        if name == "banking" and key in rules.VALUE_CELLS:
            fam, product, attr = rules.VALUE_CELLS[key]
            header = next(h for k, h, _ in rules.FAMILIES[fam].columns if k == attr)
            assert {c.value for c in by_id[feed.fact_id].conditions} == {product, header}, key


def test_telecom_values_override_round_trip(packs):
    pack = packs["telecom"]
    seed = _seed(pack)
    over = {"plan_price_top": 95, "late_fee_minimum": 12, "suspend_days": 45, "cancel_days": 75,
            "topup_price_1gb": 12, "network_access_fee": 3.25}
    db = seed.generate(pack, 0, over)
    check = _check(pack)
    assert check.check(pack, db, over) == []
    assert check.check(pack, db) != []
    fees = {it["amount"] for b in db["bills"].values() for it in b["items"] if it["type"] == "network_access_fee"}
    assert fees == {3.25}
    assert seed.generate(pack, 0) == pack.database(0)


def test_banking_values_override_round_trip(packs):
    pack = packs["banking"]
    seed = _seed(pack)
    over = {"essential_checking_monthly_fee": 9, "everyday_checking_monthly_fee": 14,
            "premier_checking_monthly_fee": 28, "overdraft_cushion": 25, "card_due_days": 21,
            "anchor_certificate_apy": 3.5, "same_day_ach_fee": 12}
    db = seed.generate(pack, 0, over)
    check = _check(pack)
    assert check.check(pack, db, over) == []
    assert check.check(pack, db) != []
    by_product = {}
    for t in db["transactions"].values():
        if t["kind"] == "monthly_fee":
            by_product.setdefault(db["accounts"][t["account_id"]]["product"], set()).add(t["amount"])
    for product, fee in (("Essential Checking", 9), ("Everyday Checking", 14), ("Premier Checking", 28)):
        assert by_product.get(product, {-fee}) == {-fee}


@pytest.mark.parametrize("name,extra", [("telecom", ["Tailwind", "Wingspan", "Hatch", "Glide", "Summit"]),
                                        ("banking", ["Keystone", "Everyday Checking", "Voyager"])])
def test_check_survives_a_rebrand_of_the_database(packs, dbs, name, extra):
    """Variants rename every string of the generated database (keys too, case-insensitively
    for distinctive terms): internal enums must not contain brand words and check() must not
    depend on display names."""
    pack = packs[name]
    b = pack.brand
    terms = [b.company, b.short_name, *b.products.values(), *extra]
    text = json.dumps(dbs[name])
    for i, term in enumerate(sorted(set(terms), key=len, reverse=True)):
        text = re.sub(re.escape(term), f"Zq{i}x", text, flags=re.IGNORECASE)
    renamed = json.loads(text)
    assert renamed != dbs[name]
    assert pack.check_database(renamed) == []


def test_banking_catalog_files_are_generated_output():
    mc = _rules(get_pack("banking")).CATALOG_TOOL
    files = mc.files()
    assert len(files) == 12
    for name, text in files.items():
        assert (mc.POLICY_DIR / name).read_text(encoding="utf-8") == text, name
    cds = mc.catalog()["cd"]
    ladder = sorted((v["term"], v["apy"]) for n, v in cds.items() if n.split()[0] in (
        "Sprint", "Pacer", "Stride", "Anchor", "Keel", "Mast", "Harbor", "Lighthouse", "Breakwater", "Bedrock"))
    assert [a for _, a in ladder] == sorted(a for _, a in ladder)
    chk = mc.catalog()["checking"]
    assert chk["Essential Checking"]["waiver_balance"] < chk["Premier Checking"]["waiver_balance"] \
        < chk["Private Client Checking"]["waiver_balance"]


def test_telecom_fact_count():
    fs = get_pack("telecom").factset()
    assert len(fs.facts) >= 150
    assert len(fs.unparsed) <= 3
    price = [f for f in fs.facts if {c.value for c in f.conditions} >= {"Glide"} and f.slots
             and f.slots[0].type.value == "money" and f.slots[0].value == 50]
    assert price


def test_banking_fact_count_and_table_conditions():
    fs = get_pack("banking").factset()
    assert len(fs.facts) >= 2500
    assert len(fs.unparsed) <= 10
    files = {f.source.file for f in fs.facts}
    assert len(files) >= 20
    od = [f for f in fs.facts if {c.value for c in f.conditions} >= {"Premier Checking", "Overdraft fee"}]
    assert len(od) == 1 and od[0].slots[0].value == 29
