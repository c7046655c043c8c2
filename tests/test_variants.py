"""Rebranded variants: spec loading and validation, derived facts and database, leak scan.

Most tests run on the `_mock` domain and its `spokewell` variant; the database value-flow
test and the shipped-variant checks use the built-in airline and retail packs."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from domains import get_pack
from domains.renaming import Renamer, Term, term_regex
from domains.safe_expr import safe_eval
from domains.variant_spec import load_variant, parse_variant
from domains.variants import list_variants, resolve
from facts.errors import FactforgeError

ROOT = Path(__file__).resolve().parents[1]
MOCK_VARIANT = ROOT / "domains" / "_mock" / "variants" / "spokewell.toml"


@pytest.fixture(scope="module")
def world():
    return resolve("_mock@spokewell")


def _snapshot(*dirs: Path) -> dict:
    return {str(p): p.stat().st_mtime_ns for d in dirs for p in sorted(d.rglob("*"))}


# --------------------------------------------------------------------------- loading

def test_mock_variant_is_listed_and_loads(mock_pack, world):
    assert "spokewell" in list_variants(mock_pack)
    assert world.key == "_mock@spokewell"
    assert world.pack.name == "_mock" and world.pack.path == mock_pack.path
    b = world.pack.brand
    assert (b.company, b.short_name, b.email_domain) == ("Spokewell Cycles", "Spokewell", "spokewell.example")
    assert b.products == {"rental": "CityLoop rental", "membership": "Spokewell Club"}
    assert b.id_prefixes == {"rental": "SW", "customer": "CL"}
    assert mock_pack.brand.company == "Pedalwise Rentals", "the base pack is not mutated"
    assert world.base.brand.customers == ["Jonah Pike", "Ruth Okafor", "Sam Delacroix"]


def test_spec_hash_is_content_based(mock_pack, tmp_path):
    a = load_variant(mock_pack, "spokewell")
    assert a.hash == load_variant(mock_pack, "spokewell").hash
    text = MOCK_VARIANT.read_text(encoding="utf-8")
    changed = tmp_path / "spokewell.toml"
    changed.write_text(text.replace('to = "$65"', 'to = "$70"'), encoding="utf-8")
    assert parse_variant(mock_pack, changed).hash != a.hash
    same = tmp_path / "same" / "spokewell.toml"
    same.parent.mkdir()
    same.write_text("# a comment changes nothing\n" + text, encoding="utf-8")
    assert parse_variant(mock_pack, same).hash == a.hash


def test_yaml_spec_equals_toml_spec(mock_pack, tmp_path):
    import tomllib

    import yaml

    data = tomllib.loads(MOCK_VARIANT.read_text(encoding="utf-8"))
    p = tmp_path / "spokewell.yaml"
    p.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    ys, ts = parse_variant(mock_pack, p), load_variant(mock_pack, "spokewell")
    assert ys.hash == ts.hash
    assert ys.apply_facts(mock_pack.facts).hash == ts.apply_facts(mock_pack.facts).hash


# --------------------------------------------------------------------------- facts

def test_variant_facts_carry_new_values_and_keep_ids(mock_pack, world):
    base = mock_pack.facts
    var = world.factset()
    assert var.hash != base.hash
    assert len(var.facts) == len(base.facts)
    base_ids = [f.id for f in base.facts]
    var_ids = [f.id for f in var.facts]
    # the value-masked hash part survives; only a slug naming the base brand is re-derived
    assert [i.rsplit(".", 1)[1] for i in base_ids] == [i.rsplit(".", 1)[1] for i in var_ids]
    changed = [(a, b) for a, b in zip(base_ids, var_ids) if a != b]
    assert changed == [("_mock.pedalwise-rental-policy.b35bd9609d", "_mock.spokewell-rental-policy.b35bd9609d")]

    by_stmt = {f.statement: f for f in var.facts}
    deposit = by_stmt["The security deposit is $65 per bike."]
    (slot,) = deposit.slots
    assert (slot.text, slot.value, slot.unit) == ("$65", 65, "USD")
    assert deposit.id == next(f.id for f in base.facts if "security deposit" in f.statement)
    assert "The late fee is $15 for each started hour after the rental ends." in by_stmt
    club = by_stmt["Club members get a 25% discount on late fees."]
    assert club.slots[0].value == 25 and {"club", "members"} <= set(club.anchors)
    refund = next(f for f in var.facts if f.statement.startswith("Refund the deposit"))
    assert refund.slots[0].text == "7 business days" and refund.slots[0].unit == "business_day"
    # untouched facts are untouched
    assert by_stmt["Agents must not waive a late fee above $60 without a manager."].slots[0].value == 60
    assert by_stmt["Spokewell rents city bikes and e-bikes to verified customers."].anchors[0] == "spokewell"
    rx = term_regex(world.spec.terms)
    for f in var.facts:
        assert not rx.search(" ".join([f.id.replace("-", " "), f.statement, *f.anchors, *f.section])), f.statement


def test_addressing_by_fact_id_and_slot_value(mock_pack, tmp_path):
    bikes = next(f for f in mock_pack.facts.facts if "at most 3 bikes" in f.statement)
    p = tmp_path / "v.toml"
    p.write_text(f'[variant]\nname = "v"\n\n[[values]]\nfact = "{bikes.id}"\nto = "4"\n\n'
                 '[[values]]\nslot_value = "$12"\nsection = "Rentals"\nto = "$14"\n', encoding="utf-8")
    with pytest.raises(FactforgeError, match=r"values\[1\]: slot_value = '\$12' matches no fact in section 'Rentals'"):
        parse_variant(mock_pack, p)
    p.write_text(p.read_text().replace('section = "Rentals"', 'section = "Late returns"'), encoding="utf-8")
    spec = parse_variant(mock_pack, p)
    by_id = spec.apply_facts(mock_pack.facts).by_id()
    assert by_id[bikes.id].statement == "A customer may rent at most 4 bikes at the same time."
    assert by_id[bikes.id].slots[0].qualifier == "at_most"
    late = next(f for f in by_id.values() if f.statement.startswith("The late fee is"))
    assert late.slots[0].text == "$14" and late.slots[0].value == 14
    assert spec.apply_pack(mock_pack).brand == mock_pack.brand, "no [brand]: brand unchanged"


def test_every_slot_text_stays_in_its_statement(world):
    for f in world.factset().facts:
        for s in f.slots:
            assert s.text in f.statement, (f.id, s.text)


# --------------------------------------------------------------------------- database

def test_mock_database_is_rebranded_and_consistent(world, mock_pack):
    db = world.database(0)
    assert world.check_database(db) == []
    names = {c["name"] for c in db["customers"].values()}
    assert names == {"Wren Hollis", "Dario Mensah", "Kit Aldana"}
    assert all(k.startswith("CL") for k in db["customers"]) and all(k.startswith("SW") for k in db["rentals"])
    assert all(r["customer_id"] in db["customers"] for r in db["rentals"].values())
    text = json.dumps(db)
    for base_term in ("Pedalwise", "Jonah Pike", "PW2000", "CU1000"):
        assert base_term not in text
    assert world.database(0) == db, "deterministic"


def test_mock_database_follows_new_values(world):
    db = world.database(0)
    assert {r["deposit"] for r in db["rentals"].values()} == {65}
    for r in db["rentals"].values():
        c = db["customers"][r["customer_id"]]
        assert abs(r["late_fee"] - r["late_hours"] * 15 * (0.75 if c["pass_holder"] else 1)) < 0.005


def test_speech_vocabulary_can_hear_a_leak(world):
    """Every base value is made of words of the fixed spoken-number vocabulary, and the base
    brand's words are in a variant file's vocabulary."""
    from audits.extraction import brand_words, speech_candidates
    from transforms.plan import ArtifactSpec, FactMention
    from transforms.extract.asr import FIXED_VOCABULARY, normalize

    facts = world.factset()
    fee = next(f for f in facts.facts if f.statement.startswith("The late fee is"))
    spec = ArtifactSpec(id="call-0001", kind="recordings/call_audio", path="evidence/call-0001.wav", seed=1,
                        date="2026-02-01", facts=[FactMention(fact_id=fee.id)])
    cands = speech_candidates(spec, facts.by_id(), brand_words(world))
    vocab = set(FIXED_VOCABULARY) | {w for c in cands for w in normalize(c).split()}
    for base_value in ("fifty dollars", "twelve dollars", "twenty percent", "sixty five dollars"):
        assert set(base_value.split()) <= vocab, base_value
    assert "pedalwise" in cands  # the base brand, which a leak would say


def test_database_check_flags_a_base_brand_string(world):
    db = world.database(0)
    first = sorted(db["customers"])[0]
    db["customers"][first]["name"] += " (moved over from Pedalwise)"  # a field the typed model has
    problems = world.check_database(db)
    assert len(problems) == 1 and "'Pedalwise'" in problems[0] and first in problems[0]


def test_a_variants_tests_name_the_variants_own_fact_ids(mock_pack):
    """Scenarios look facts up in the base policy; a variant's suite tags the variant's ids (a
    renamed section keeps each fact's hash), so its value facts count as covered and its
    tasks' learnability is judged on the facts the variant's kit states."""
    from domains.simtests import FactIndex
    from domains.value_feeds import resolve_value_facts
    world = resolve("_mock@spokewell")
    base_facts = mock_pack.facts
    idx = FactIndex(base_facts, resolve_value_facts(mock_pack, base_facts), world=world.factset())
    fid = idx.find("rents city bikes")
    assert fid == "_mock.spokewell-rental-policy.b35bd9609d"
    assert "Spokewell" in idx.statement(fid)
    assert idx.value("deposit") in world.factset().by_id()
    suite = world.test_suite(0)
    ids = set(world.factset().by_id())
    assert all(set(t.factforge.fact_ids) <= ids for t in suite.tests)
    assert not suite.summary.uncovered_numeric_facts


def test_a_base_person_the_writer_could_invent_is_not_watched_and_invented_names_are_heard():
    """A base agent whose full name is one the writer invents from its own name pools
    (airline's Amara Lindqvist) cannot be told from an invented person: the leak scan leaves
    that name out, and the strict hearing of a recording knows every invented name."""
    from audits.leaks import alternatives, generic_people
    from transforms.phrasebook import FIRST, LAST

    halcyon = resolve("airline@halcyon")
    assert generic_people(halcyon) == {"Amara Lindqvist"}
    assert generic_people(resolve("_mock@spokewell")) == set()
    alts = alternatives(halcyon)
    assert f"{FIRST[0]} {LAST[-1]}".lower() in alts and len(FIRST) * len(LAST) <= len(alts)


def test_brand_scan_fast_path_never_misses_a_leak():
    """The whole-tree pre-check answers "clean" only when the walk would find nothing: a term
    behind an escaped newline, in a key, in another case, or beside JSON's escapes is still found."""
    from domains.renaming import brand_leaks_in_tree
    terms = [Term(old="Pedalwise", new="Spokewell", mode="cs", origin="brand"),
             Term(old="PW", new="SW", mode="prefix", origin="code")]
    assert brand_leaks_in_tree({"a": ["clean", {"b": "nothing here", "n": 3}]}, terms) == []
    for db in ({"note": "line one\nPedalwise"}, {"Pedalwise": 1}, {"x": [{"y": 'said "Pedalwise"'}]},
               {"id": "PW123"}, {"t": "tab\tPedalwise\\"}):
        assert len(brand_leaks_in_tree(db, terms)) == 1, db
    assert brand_leaks_in_tree({"note": "pedalwise"}, terms) == []  # a case-sensitive term
    assert len(brand_leaks_in_tree({"n": "the PEDALWISE CLUB card"},
                                   [Term(old="Pedalwise Club", new="x", mode="ci", origin="product")])) == 1
    weird = [Term(old='Pedal"wise', new="x", mode="cs", origin="brand")]
    assert len(brand_leaks_in_tree({"n": 'a Pedal"wise b'}, weird)) == 1


@pytest.mark.parametrize("key", ["airline@halcyon", "retail@bramblewood"])
def test_shipped_variant_database_follows_new_values(key):
    w = resolve(key)
    code = w.base.code
    values = w.values()
    changed = {k for k in code.values if values[k] != code.values[k]}
    assert len(changed) >= 10
    db = w.database(0)
    assert w.check_database(db) == [], "consistent under the variant's values, no base brand left"
    assert code.check(w.pack, db), "the base values do not fit the variant database"
    if key.startswith("airline@"):
        fee = values["extra_bag_fee"]
        assert fee == 55 and code.values["extra_bag_fee"] == 45
        rows = [r for r in db["reservations"].values() if r["cabin"] in ("Saver", "Classic") and r["paid_bags"]]
        assert rows and all(abs(r["bag_fee"] - r["paid_bags"] * fee) < 0.005 for r in rows)
        assert values["goodwill_max"] == values["comp_delay_wayfarer"] == 60  # derived
        assert values["manager_approval_above"] == 450
    else:
        assert values["supervisor_refund_above"] == 1250 and values["birthday_credit_canopy"] == 30


def test_price_scaling_multiplies_prices(tmp_path):
    from domains.variant_spec import scale_prices

    db = {"items": {"P1": {"price": 10, "name": "x", "qty": 3}, "P2": {"price": 19.99}},
          "flights": [{"prices": {"a": 100, "b": 250}, "seats": 4}]}
    out = scale_prices(db, 1.15, ["price", "prices"])
    assert out == {"items": {"P1": {"price": 11.5, "name": "x", "qty": 3}, "P2": {"price": 22.99}},
                   "flights": [{"prices": {"a": 115, "b": 287.5}, "seats": 4}]}
    assert list(out["items"]) == ["P1", "P2"]


# --------------------------------------------------------------------------- invalid specs

BAD = {
    "no_fact": ('[[values]]\nmatch = "helmet rental"\nto = "$5"\n', "values[0]", "matches no fact", 5),
    "several": ('[[values]]\nmatch = "security deposit"\nto = "$60"\n\n[[values]]\nmatch = "late fee"\nto = "$20"\n',
                "values[1]", "matches 3 facts", 9),
    "wrong_type": ('[[values]]\nmatch = "security deposit"\nto = "48 hours"\n', "values[0]",
                   "to = '48 hours' is duration but slot 'deposit' ('$50')", 6),
    "no_slot_value": ('[[values]]\nslot_value = "$99"\nto = "$5"\n', "values[0]", "slot_value = '$99' matches no fact", 5),
    "unparsable": ('[[values]]\nmatch = "security deposit"\nto = "a lot"\n', "values[0]", "does not parse", 6),
    "collision": ('[brand]\nshort_name = "Spokewell"\n\n[renames]\n"city bikes" = "Spokewell"\n', "renames.city bikes",
                  "both become 'Spokewell'", 8),
    "base_name": ('[renames]\n"e-bikes" = "Pedalwise Pass"\n', "renames.e-bikes", "is an existing base name", 5),
    "still_leaks": ('[brand]\nshort_name = "Spokewell"\ncompany = "Pedalwise Global"\n', "brand.company",
                    "still contains the base term 'Pedalwise'", 6),
    "unknown_brand": ('[brand]\nmascot = "Owl"\n', "brand.mascot", "unknown brand field", 5),
    "unknown_value": ('[database]\nvalues = { late_fee = 15 }\n', "database.values.late_fee", "unknown seed VALUES key", 5),
    "unknown_field": ('[database]\nscale = 2\n', "database.scale", "Extra inputs are not permitted", 5),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_invalid_spec_names_file_entry_line_and_reason(case, mock_pack, tmp_path):
    body, entry, reason, line_no = BAD[case]
    text = '[variant]\nname = "bad"\n\n' + body
    p = tmp_path / "bad.toml"
    p.write_text(text, encoding="utf-8")
    before = _snapshot(tmp_path, mock_pack.path)
    with pytest.raises(FactforgeError) as ei:
        parse_variant(mock_pack, p)
    e = ei.value
    assert e.file == str(p)
    assert e.problem.startswith(entry + ":"), e.problem
    assert reason in e.problem, e.problem
    assert e.line == line_no, (e.line, text.splitlines()[e.line - 1] if e.line else None)
    assert _snapshot(tmp_path, mock_pack.path) == before, "nothing written"


def test_error_line_points_at_the_entry(mock_pack, tmp_path):
    text = ('[variant]\nname = "bad"\n\n[[values]]\nmatch = "security deposit"\nto = "$60"\n\n'
            '[[values]]\nmatch = "discount on late fees"\nto = "$20"\n')
    p = tmp_path / "bad.toml"
    p.write_text(text, encoding="utf-8")
    with pytest.raises(FactforgeError) as ei:
        parse_variant(mock_pack, p)
    assert ei.value.line == 10 and "values[1]" in str(ei.value) and "is money but slot" in str(ei.value)
    assert str(ei.value).startswith(f"{p}:10: values[1]:")


def test_yaml_errors_have_lines(mock_pack, tmp_path):
    p = tmp_path / "bad.yaml"
    p.write_text("variant:\n  name: bad\nvalues:\n  - match: security deposit\n    to: $60\n"
                 "  - match: no such rule\n    to: $5\n", encoding="utf-8")
    with pytest.raises(FactforgeError) as ei:
        parse_variant(mock_pack, p)
    assert ei.value.line == 6 and "values[1]" in str(ei.value)


def test_derived_expressions_are_checked():
    airline = get_pack("airline")
    cases = {
        'key = "goodwill_max"\nexpr = "__import__(\'os\').getcwd()"': "Call is not allowed",
        'key = "goodwill_max"\nexpr = "fare - 1"': "unknown value 'fare'",
        'key = "no_such_value"\nexpr = "1 + 1"': "not a seed VALUES key",
        'key = "goodwill_max"\nexpr = "extra_bag_fee / (max_gift_cards - 3)"': "division by zero",
    }
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        for body, reason in cases.items():
            p = Path(d) / "v.toml"
            p.write_text(f'[variant]\nname = "v"\n\n[[derived]]\n{body}\n', encoding="utf-8")
            with pytest.raises(FactforgeError) as ei:
                parse_variant(airline, p)
            assert "derived[0]" in str(ei.value) and reason in str(ei.value), str(ei.value)
            assert ei.value.line in (5, 6)


def test_derived_value_changes_the_fact_that_states_it():
    w = resolve("airline@halcyon")
    stmts = {f.statement for f in w.factset().facts}
    assert "A single goodwill gesture without a qualifying disruption may not exceed $60 per reservation." in stmts
    assert any(s.startswith("Compensation above $450 for a single reservation") for s in stmts)


# --------------------------------------------------------------------------- renaming, expressions

def test_renamer_single_pass_case_and_prefixes():
    r = Renamer([Term("Alpha Air", "Beta Air", "ci", "x"), Term("Beta Air", "Gamma Air", "ci", "y"),
                 Term("Main", "Classic", "cs", "z"), Term("AA", "BB", "prefix", "w")])
    assert r("Alpha Air and Beta Air") == "Beta Air and Gamma Air", "no chaining"
    assert r("ALPHA AIR, alpha air") == "BETA AIR, beta air"
    assert r("Main cabin, main reason, Mains") == "Classic cabin, main reason, Classics"
    assert r("AA123 AAA12 BAA1 AA") == "BB123 AAA12 BAA1 AA"
    assert r.tree({"AA1": ["Alpha Air", 3, None]}) == {"BB1": ["Beta Air", 3, None]}


def test_safe_eval():
    assert safe_eval("a - b * 2", {"a": 100, "b": 12.5}) == 75
    assert safe_eval("(a + 1) / 4", {"a": 9}) == 2.5
    for bad in ("a.real", "a if a else b", "a ** 2", "'x'", "f(a)", "[a]"):
        with pytest.raises(ValueError):
            safe_eval(bad, {"a": 1, "b": 2, "f": abs})


# --------------------------------------------------------------------------- leak scan

def _render(world_, facts_by_id, specs, tmp_path):
    from transforms.base import RenderContext
    from transforms.render import render_artifacts
    from transforms.writers import BuiltinWriter

    ctx = RenderContext(pack=world_.pack, facts=facts_by_id, writer=BuiltinWriter(world_.pack), db={},
                        workdir=tmp_path / "tmp")
    return render_artifacts(specs, ctx, tmp_path / "render")


def _have_kinds(*kinds):
    from transforms import registry

    missing = [k for k in kinds if k not in registry.kinds()]
    assert not missing, f"renderer kinds not registered: {missing}"


def test_leak_scan_clean_variant_and_caught_leak(world, mock_pack, tmp_path):
    chat, mail = "conversations/chat_transcript", "conversations/email_thread"
    _have_kinds(chat, mail)
    from audits.leaks import scan
    from transforms.plan import ArtifactSpec, FactMention
    from transforms.planner import PlanConfig, plan_evidence

    facts = world.factset()
    plan = plan_evidence(facts, 1, PlanConfig(kinds=[chat, mail], carriers_per_fact=2), now=world.pack.info.now,
                         variant=world.variant, banned=world.base_values())
    rendered = _render(world, facts.by_id(), plan.artifacts, tmp_path)
    rep = scan(world, facts, rendered, tmp_path)
    assert rep["schema_version"] == "1.1" and rep["variant"] == "_mock@spokewell"
    assert rep["summary"]["files_scanned"] == len(rendered) >= 4
    assert rep["summary"]["hits"] == 0, rep["leaks"]
    assert rep["summary"]["values_watched"] == 4

    # a file rendered from the *base* value of a substituted fact (the $50 deposit)
    var_dep = next(f for f in facts.facts if "security deposit" in f.statement)
    base_dep = mock_pack.facts.get(var_dep.id)
    leaky = var_dep.model_copy(update={"statement": base_dep.statement, "slots": base_dep.slots})
    spec = ArtifactSpec(id="leak-0001", kind=chat, path="evidence/conversations/chat_transcript/leak-0001.txt",
                        seed=5, date="2026-02-01", facts=[FactMention(fact_id=leaky.id)])
    bad = _render(world, {**facts.by_id(), leaky.id: leaky}, [spec], tmp_path)
    rep2 = scan(world, facts, rendered + bad, tmp_path)
    hits = [h for h in rep2["leaks"] if h["what"] == "value"]
    assert rep2["summary"]["hits"] == len(hits) >= 1
    assert {h["file"] for h in hits} == {"evidence/conversations/chat_transcript/leak-0001.txt"}
    assert {h["term"] for h in hits} == {"$50"} and hits[0]["fact_id"] == var_dep.id
    # the snippet shows the leaked figure in whatever form the writer used ("$50", "fifty dollars")
    from facts.surface import surface_forms
    forms = {f.lower() for sl in base_dep.slots for f in surface_forms(sl)}
    assert any(f in hits[0]["text"].lower() for f in forms) and hits[0]["extractor"], (forms, hits[0]["text"])

    # a file rendered with the base brand
    base_world = resolve("_mock")
    spec3 = spec.model_copy(update={"id": "brand-0001", "path": "evidence/conversations/chat_transcript/brand-0001.txt",
                                    "facts": [FactMention(fact_id=base_dep.id)]})
    brand = _render(base_world, mock_pack.facts.by_id(), [spec3], tmp_path)
    rep3 = scan(world, facts, brand, tmp_path)
    terms = {h["term"] for h in rep3["leaks"] if h["what"] == "brand"}
    assert terms & {"Pedalwise Rentals", "Pedalwise", "Mara Quill", "Tobin Reyes", "Jonah Pike", "Ruth Okafor",
                    "Sam Delacroix"}, rep3["leaks"]
    assert all(h["file"].endswith("brand-0001.txt") for h in rep3["leaks"])


def test_leak_scan_ignores_a_base_value_that_is_another_facts_value(world, tmp_path):
    """$12 was the base late fee; a file that only talks about something else priced $12
    (no late-fee anchors nearby) is not a leak."""
    chat = "conversations/chat_transcript"
    _have_kinds(chat)
    from audits.leaks import scan
    from transforms.render import Rendered

    f = tmp_path / "note.txt"
    f.write_text("Agent: The helmet hire is $12 per day, paid at the counter.\n"
                 "Agent: Late fees are charged for each started hour after the rental ends: $15.\n"
                 "\n" + "Customer: ok.\n" * 40 + "Agent: Earlier the late fee was $12 an hour, that was changed.\n",
                 encoding="utf-8")
    from facts.hashing import file_sha256

    r = Rendered(artifact_id="x", kind=chat, path="evidence/x.txt", file=str(f), sha256=file_sha256(f),
                 size=f.stat().st_size, fact_ids=())
    rep = scan(world, world.factset(), [r], tmp_path)
    assert rep["summary"]["hits"] == 0, rep["leaks"]
    assert rep["summary"]["hedged_base_values"] == 1 and rep["hedged"][0]["fact_id"] == next(
        f.id for f in world.factset().facts if f.statement.startswith("The late fee is"))


# --------------------------------------------------------------------------- shipped variants

@pytest.mark.parametrize("key", ["airline@halcyon", "retail@bramblewood"])
def test_shipped_variants_are_full_rebrands(key):
    w = resolve(key)
    b0, b1 = w.base.brand, w.pack.brand
    for fld in ("company", "short_name", "email_domain", "website", "tagline", "phone"):
        assert getattr(b1, fld) != getattr(b0, fld), fld
    for fld in ("agents", "managers", "customers"):
        assert not set(getattr(b1, fld)) & set(getattr(b0, fld)) and len(getattr(b1, fld)) >= len(getattr(b0, fld))
    assert all(b1.products[k] != v for k, v in b0.products.items())
    assert all(b1.id_prefixes[k] != v for k, v in b0.id_prefixes.items())
    spec = w.spec.spec
    assert len(spec.values) >= 10 and spec.derived and spec.database.scale_prices != 1
    subs = w.spec.substitutions(w.base.facts)
    grid = [s for s in subs if " — " in w.base.facts.get(s.fact_id).statement]
    assert len(grid) >= 6, "a tier grid replaced cell by cell"
    facts = w.factset()
    rx = term_regex(w.spec.terms)
    leaks = [f.statement for f in facts.facts if rx.search(f.statement + " " + f.id.replace("-", " "))]
    assert leaks == []


@pytest.mark.end_to_end
def test_halcyon_suite_exercises_every_value_fact_of_the_variant(sim_suite):
    """The rebrand's thin cells are topped up by the seed and its scarce rows held for the tests
    that need them, so every value fact (the Summit/Zenith change fee and bag allowance, the
    meal voucher...) has a test and the suite reaches the airline's quota."""
    from domains.airline import rules
    from domains.airline import seed as S

    w = resolve("airline@halcyon")
    db = w.database(0)
    _, cab_key, _, tier_key = rules.names(w.pack)
    cells = S.cell_rows(db["flights"], db["users"], db["reservations"], cab_key, tier_key, w.pack.info.now)
    assert min(len(ids) for ids in cells.values()) >= S.CELL_FLOOR
    suite = sim_suite("airline@halcyon", 0)  # on this seed database, generated once per run
    quota = w.base.code.test_quota
    assert suite.summary.uncovered_numeric_facts == []
    assert suite.summary.tests >= quota.min_tests and suite.summary.trap_share >= quota.min_trap_share
    slugs = {t.id.split(".")[1] for t in suite.tests}
    assert {"meal-voucher", "change-flights", "add-bags-free"} <= slugs


def test_the_airline_base_database_needs_no_planted_row():
    """The base seed already has CELL_FLOOR rows in every cell, so the top-up leaves it (and the
    test ids its task specs pin) exactly as generated."""
    from domains.airline import rules
    from domains.airline import seed as S

    w = resolve("airline")
    db = w.database(0)
    _, cab_key, _, tier_key = rules.names(w.pack)
    cells = S.cell_rows(db["flights"], db["users"], db["reservations"], cab_key, tier_key, w.pack.info.now)
    assert min(len(ids) for ids in cells.values()) >= S.CELL_FLOOR
    assert len(db["reservations"]) == 230  # 110 + 120 generated, none planted


# --------------------------------------------------------------------------- end to end

@pytest.mark.end_to_end
def test_cli_builds_the_mock_variant(tmp_path):
    ws, out = tmp_path / "ws", tmp_path / "out"
    r = subprocess.run([sys.executable, "-m", "pipeline.cli", "build", "--domain", "_mock@spokewell", "--out", str(out),
                        "--workspace", str(ws), "--seed", "3"], capture_output=True, text=True, cwd=ROOT,
                       env=dict(os.environ), timeout=900)
    assert r.returncode == 0, r.stdout + r.stderr
    (b,) = [p for p in (out / "bundles" / "_mock").iterdir() if p.is_dir() and not p.name.startswith(".")]
    man = json.loads((b / "manifest.json").read_text())
    assert man["variant"] == "spokewell" and man["base_domain"] == "_mock"
    assert man["variant_spec_hash"] == load_variant(get_pack("_mock"), "spokewell").hash
    leaks = json.loads((b / "reports" / "leaks.json").read_text())
    assert leaks["summary"]["hits"] == 0 and leaks["summary"]["files_scanned"] > 0
    facts = json.loads((b / "facts.json").read_text())["facts"]
    assert any(f["statement"] == "The security deposit is $65 per bike." for f in facts)
    rx = term_regex(resolve("_mock@spokewell").spec.terms)
    for p in b.rglob("*"):
        if p.is_file() and p.suffix in (".json", ".txt", ".eml", ".vtt", ".html", ".csv"):
            m = rx.search(p.read_text(encoding="utf-8", errors="ignore"))
            assert m is None, f"{p.relative_to(b)}: {m.group(0)}"
