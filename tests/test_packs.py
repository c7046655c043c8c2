"""Task packs on the `_mock` domain (text-only evidence): specs, menu, phrasing, the client
edit of the plan, build, verify, export, incremental rebuild, kit scan and the tau2 export."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from facts.errors import FactforgeError

from .conftest import SHARED, tau2_data

ROOT = Path(__file__).resolve().parents[1]
MOCK_TASKS = ROOT / "domains" / "_mock" / "tasks"
CLIENT_TASK = "_mock-client-knows"
PLAIN_TASK = "_mock-records-only"


@pytest.fixture(scope="module")
def ws(mock_task_ws_copy):
    """This module's workspace: a copy of the one that built the run's `_mock` pack."""
    return mock_task_ws_copy


@pytest.fixture(scope="module")
def built(mock_task_pack_copy):
    """(path, index) of this module's copy of the run's `_mock` pack (seed 0, both tasks)."""
    from outputs.packs.store import Pack
    return mock_task_pack_copy, Pack(mock_task_pack_copy).index


def _spec_text(name: str) -> str:
    return (MOCK_TASKS / f"{name}.toml").read_text(encoding="utf-8")


def _write_spec(tmp_path: Path, text: str, name: str = "_mock-x") -> Path:
    p = tmp_path / f"{name}.toml"
    p.write_text(text, encoding="utf-8")
    return p


# --------------------------------------------------------------------------- specs

def test_builtin_mock_specs_load_with_their_levers():
    from outputs.packs.spec import load_spec
    ls = load_spec(MOCK_TASKS / f"{CLIENT_TASK}.toml")
    s = ls.spec
    assert s.client.enabled and s.client.held and s.client.contested and s.client.confirmable
    assert s.workspace.kind == "seeded" and s.phrasing.rules
    lv = s.levers()
    assert set(lv) == {"evidence", "client", "api", "workspace", "models", "ids", "phrasing"}
    assert lv["client"] == {"enabled": True, "held": 1, "confirmable": 1, "contested": 1, "turn_quota": 8}


def test_builtin_specs_meet_the_release_minimums_and_cover_every_lever():
    """The built-in domains' specs (strictly loaded: every id list pinned) give the release its
    minimums: at least 53 tasks (airline 6, retail 6, telecom 6, banking 35) moving all
    seven levers and the client's three (capabilities, fixes, stakeholders); the build resolves every reference (tests below and the pack build)."""
    from types import SimpleNamespace

    from domains import discover
    from outputs.packs.build import summarise
    from outputs.packs.spec import load_domain_specs
    specs = [ls.spec for _, p in sorted(discover().items()) for ls in load_domain_specs(p)]
    s = summarise([SimpleNamespace(domain=x.domain, levers=x.levers()) for x in specs])
    assert s["tasks"] >= 53, s
    for domain, least in {"airline": 6, "retail": 6, "telecom": 6, "banking": 35}.items():
        assert s["by_domain"].get(domain, 0) >= least, (domain, s["by_domain"])
    assert s["levers_covered"] == sorted(["api", "capabilities", "client", "evidence", "fixes", "ids", "models",
                                          "phrasing", "stakeholders", "workspace"])
    for x in specs:
        assert x.ids.test and x.ids.live and x.ids.training, x.id


def test_builtin_specs_name_deployments_the_api_server_loads():
    from domains import discover
    from domains.variants import resolve
    from outputs.api.deployment import load_deployment
    from outputs.packs.build import resolve_deployment
    from outputs.packs.spec import load_domain_specs
    named = set()
    for _, pack in sorted(discover().items()):
        for ls in load_domain_specs(pack):
            raw, sha = resolve_deployment(pack, ls)
            if raw is not None:
                named.add((ls.spec.evidence.bundle, pack.path / "deployments" / f"{ls.spec.api.deployment}.toml"))
    assert len(named) >= 10
    for bundle, path in sorted(named):
        load_deployment(path, resolve(bundle).api())


@pytest.mark.parametrize("edit, problem, line_has", [
    (('turn_quota = 8', 'turn_quota = 8\nmood = "sunny"'), "client.mood: Extra inputs are not permitted", "mood"),
    (('id = "_mock-client-knows"', 'id = "Mock Client"'), "lowercase words joined by dashes", None),
    (('test = [\n  "_mock.rent-one-bike.2263203269",', 'test = [\n  "_mock.deposit-refund-timing.26dc64d912",'),
     "live and test ids overlap", None),
    (('enabled = true', 'enabled = false'), "client is disabled but lists", None),
    (('kind = "seeded"', 'kind = "none"'), "workspace kind is none but gaps are listed", None),
    (('profile = "text-only"', 'profile = "smell-o-vision"'), "evidence.profile", "profile"),
])
def test_spec_errors_name_file_line_and_problem(tmp_path, edit, problem, line_has):
    from outputs.packs.spec import load_spec
    text = _spec_text(CLIENT_TASK).replace(*edit, 1)
    p = _write_spec(tmp_path, text, CLIENT_TASK)
    with pytest.raises(FactforgeError) as e:
        load_spec(p)
    assert problem in e.value.problem
    assert e.value.file == str(p)
    if line_has:
        assert line_has in text.splitlines()[e.value.line - 1]


def test_spec_id_must_match_file_name(tmp_path):
    from outputs.packs.spec import load_spec
    p = _write_spec(tmp_path, _spec_text(CLIENT_TASK), "_mock-other-name")
    with pytest.raises(FactforgeError, match="differs from the file name"):
        load_spec(p)


# --------------------------------------------------------------------------- menu, phrasing

def test_menu_rates_budgets_and_pin():
    from outputs.packs.menu import load_menu
    m = load_menu("standard-1")
    assert {t: (v.input_per_mtok, v.output_per_mtok) for t, v in m.menu.tiers.items()} == {
        "frontier": (3.0, 15.0), "mid": (0.5, 3.2), "small": (0.25, 1.6)}
    assert m.menu.budget("airline", ["easy", "medium", "hard"]) == {"easy": 0.29, "medium": 0.047, "hard": 0.0067}
    assert m.menu.budget("banking", ["hard"]) == {"hard": 0.085}
    assert m.menu.credits("mid-fast", 1000, 500) == pytest.approx((1000 * 0.5 + 500 * 3.2) / 1e6)
    assert m.sha256 == _spec_text(CLIENT_TASK).split('menu_sha256 = "')[1][:64]


def test_menu_rejects_unknown_tier(tmp_path):
    from outputs.packs.menu import MENUS_DIR, load_menu
    text = (MENUS_DIR / "standard-1.toml").read_text().replace('tier = "small"', 'tier = "tiny"', 1)
    (tmp_path / "standard-1.toml").write_text(text)
    with pytest.raises(FactforgeError, match="unknown tier 'tiny'"):
        load_menu("standard-1", tmp_path)


def test_phrasing_check_and_comply():
    from outputs.packs import phrasing as ph
    cat, _ = ph.load_catalog()
    rules = [cat.get(r) for r in ("greet-with-brand", "close-with-offer", "money-two-decimals", "dates-iso",
                                  "no-promises", "concise-replies")]
    brand = {"company": "Pedalwise Rentals"}
    msgs = ["Hi! The deposit is $50, due 3/4/2026.", "I guarantee a refund of 24.99 dollars by March 9, 2026."]
    found = {v.rule for v in ph.check(rules, msgs, brand)}
    assert found == {"greet-with-brand", "close-with-offer", "money-two-decimals", "dates-iso", "no-promises"}
    fixed = ph.comply(rules, msgs, brand)
    assert fixed[0].startswith("Thank you for contacting Pedalwise Rentals")
    assert "$50.00" in fixed[0] and "2026-03-04" in fixed[0] and "$24.99" in fixed[1] and "2026-03-09" in fixed[1]
    assert {v.rule for v in ph.check(rules, fixed, brand)} == {"no-promises"}
    assert ph.check([cat.get("concise-replies")], ["word " * 121], brand)[0].rule == "concise-replies"


# --------------------------------------------------------------------------- the client edit

def _mock_plan():
    from domains.variants import resolve
    w = resolve("_mock")
    fs = w.factset()
    return w, fs, fs.by_id()


def test_withholding_edits_only_the_files_that_carried_the_fact(tmp_path):
    from transforms.planner import PlanConfig, plan_evidence
    from outputs.packs.withhold import CONTESTED_SUFFIX, withhold_and_contest
    w, fs, by_id = _mock_plan()
    plan = plan_evidence(fs, 0, PlanConfig(profile="text-only", distractor_rate=1.0), now=w.pack.info.now)
    held, contested = "_mock.late-returns.ea475b5c32", "_mock.late-returns.16c64e7b85"
    # every file that mentions the held fact in any role (carrier, echo, route hop...) or distracts it
    refs = {a.id for a in plan.artifacts if held in a.mentioned_ids}
    assert refs
    edit = withhold_and_contest(plan, by_id, [held], [contested], seed=0)
    before = {a.id: a for a in plan.artifacts}
    after = {a.id: a for a in edit.plan.artifacts}
    assert set(edit.edited) == refs and len(edit.added) == 1
    for aid, a in before.items():
        if aid in refs:
            assert held not in after[aid].mentioned_ids
        else:
            assert after[aid] == a  # unchanged spec: same render cache key
    host = after[edit.added[0]]
    assert host.fact_ids == [contested + CONTESTED_SUFFIX]
    # dated like the fact's first carrier (for a routed fact: the file naming it by its schedule code)
    firsts = [a for a in plan.artifacts if contested in a.fact_ids] or \
        [a for a in plan.artifacts if any(m.fact_id == contested and m.part == "key" for m in a.facts)]
    assert host.date == min(firsts, key=lambda a: (a.date, a.id)).date
    version = edit.versions[contested]
    assert version.slots[0].value != by_id[contested].slots[0].value
    assert set(after) - set(before) == set(edit.added)


def test_a_records_contested_fact_without_its_current_version_loses_its_rival_too(tmp_path):
    """A desk whose sections or kinds leave out every carrier of a records-contested fact would
    deliver only the conflicting version: the hosts lose it as well, and the fact leaves the
    delivered plan's contested list (banking desks: 'its current version is in no delivered
    file')."""
    from domains import get_pack
    from outputs.packs.build import BuildOptions, DomainBuild

    d = DomainBuild(get_pack("airline"), BuildOptions(seed=0, workspace=tmp_path))
    ev = d.evidence("airline")
    plan = ev.base("full", "standard")
    assert plan.contested
    fid = plan.contested[0]
    hosts = {a.id for a in plan.artifacts if any(x.fact_id == fid and x.role == "contested" for x in a.distractors)}
    assert hosts
    # the surface as a desk without the fact's carriers would see it
    cut = plan.model_copy(update={"artifacts": [a for a in plan.artifacts
                                                if a.id in hosts or fid not in {m.fact_id for m in a.facts}]})
    cut.artifacts[:] = [a.model_copy(update={"facts": [m for m in a.facts if m.fact_id != fid]}) if a.id in hosts else a
                        for a in cut.artifacts]
    out = ev.deliver(cut, [], [])
    assert fid not in out.contested and set(out.contested) == set(plan.contested) - {fid}
    for a in out.artifacts:
        assert not [x for x in a.distractors if x.fact_id == fid and x.role == "contested"], a.path
    untouched = {a.id: a for a in cut.artifacts if a.id not in hosts}
    assert all(untouched[a.id] == a for a in out.artifacts if a.id in untouched)
    # with its carriers delivered, nothing changes
    assert ev.deliver(plan, [], []).artifacts == plan.artifacts


def test_presence_attributes_a_shared_value_to_the_fact_that_owns_the_context():
    from facts.match import TextIndex
    from outputs.packs.presence import json_presence, present_as, rivals_of
    _, fs, by_id = _mock_plan()
    fee = by_id["_mock.late-returns.251f50901f"]      # late fee $12 per started hour
    idx_owned = TextIndex("Reminder: the late fee is $12 for each started hour after the rental ends.")
    assert present_as(fee, idx_owned, []) is not None
    bare = TextIndex("Invoice total: $12. Thanks for riding with us.")
    assert present_as(fee, bare, []) is None
    twin = fee.model_copy(update={"id": "_mock.twin", "anchors": ["helmet", "fee", "hour", "rental", "ends", "late"]})
    shared = TextIndex("The helmet late fee is $12 for each hour after the rental ends.")
    assert present_as(fee, shared, rivals_of(fee, [twin])) is None
    assert present_as(fee, shared, []) is not None
    assert json_presence(fee, {"rentals": {"PW1": {"late_fee": 12}}}) == "rentals/PW1/late_fee"
    assert json_presence(fee, {"rentals": {"PW1": {"bikes": 12}}}) is None


def test_in_speech_a_held_fee_is_not_present_beside_another_fee():
    """A call's transcript needs one anchor by the value, but one that names the fact: "an
    annual fee of twelve dollars" is not a $12 boat-loan documentation fee."""
    from facts.match import TextIndex
    from outputs.packs.presence import present_as
    _, _, by_id = _mock_plan()
    doc_fee = by_id["_mock.late-returns.251f50901f"].model_copy(update={"anchors": ["boat loan", "documentation", "fee"]})
    other = TextIndex("and the card has an annual fee of twelve dollars waived for the first year")
    assert present_as(doc_fee, other, [], speech=True) is None
    for said in ("the boat loan has a documentation fee of twelve dollars", "the documentation fee is twelve dollars"):
        assert present_as(doc_fee, TextIndex(said), [], speech=True) is not None, said


# --------------------------------------------------------------------------- build

def test_pack_builds_verifies_and_covers_the_levers(built):
    from outputs.packs.store import Pack, verify_pack
    path, index = built
    assert [t.id for t in index.tasks] == [CLIENT_TASK, PLAIN_TASK]
    assert verify_pack(path) == []
    assert set(index.summary["levers_covered"]) >= {"client", "workspace", "models", "phrasing", "ids", "evidence"}
    p = Pack(path)
    for t in index.tasks:
        kit = {f.path for f in p.manifest(t.id, "kit").files}
        sealed = {f.path for f in p.manifest(t.id, "sealed").files}
        assert {"task.json", "AGENT_CONTRACT.md", "api/openapi.json", "data/dev_db.json", "training/scenarios.json",
                "sdk/factforge_sdk.py", "models/menu.toml"} <= kit
        assert any(k.startswith("evidence/") for k in kit)
        assert not any(k.endswith(("facts.json", "plan.json")) for k in kit)
        assert {"tests.json", "live.json", "db.json", "client.json", "task.json", "kit_scan.json"} <= sealed
        assert p.json(t.id, "sealed", "kit_scan.json")["hits"] == []
        resolved = p.json(t.id, "sealed", "task.json")
        assert resolved["dev_db_hash"] != resolved["test_db_hash"]
        assert json.loads(p.read(t.id, "kit", "data/dev_db.json")) != p.json(t.id, "sealed", "db.json")


def test_every_sealed_gold_replays_to_its_expected_hash(built):
    from domains.apikit import db_hash
    from domains.simtests import SimTest
    from domains.variants import resolve
    from outputs.packs.spec import load_spec
    from outputs.packs.store import Pack
    path, index = built
    p = Pack(path)
    api = resolve("_mock").api()
    n = 0
    for t in index.tasks:
        db0 = p.json(t.id, "sealed", "db.json")
        for raw in p.json(t.id, "sealed", "tests.json") + p.json(t.id, "sealed", "live.json"):
            test = SimTest.model_validate(raw)
            db = json.loads(json.dumps(db0))
            assert all(o.ok for o in api.replay(db, test.gold_calls()))
            assert db_hash(db) == test.factforge.expected_db_hash
            n += 1
    assert n == sum(len(t.ids.test) + len(t.ids.live) for t in (load_spec(p).spec for p in
                                                                  sorted((ROOT / "domains/_mock/tasks").glob("*.toml"))))


def test_held_fact_is_absent_and_contested_fact_has_two_versions(built):
    from outputs.packs.store import Pack
    path, _ = built
    p = Pack(path)
    ev = p.json(CLIENT_TASK, "sealed", "evidence.json")
    held = ev["held"]["_mock.late-returns.ea475b5c32"]
    assert held["present_in"] == [] and held["files_checked"] == ev["files_delivered"]
    c = ev["contested"]["_mock.late-returns.16c64e7b85"]
    assert c["current_in"] and c["conflicting_in"] and not set(c["current_in"]) & set(c["conflicting_in"])
    kit = {f.path for f in p.manifest(CLIENT_TASK, "kit").files}
    assert set(c["current_in"]) | set(c["conflicting_in"]) <= kit
    # the same fact is present in the plain task's kit: the edit, not luck, removed it
    plain = p.json(PLAIN_TASK, "sealed", "evidence.json")
    # every fact but those the domain's own records contest (two official versions, nothing
    # resolving them): those only a client settles, so a records-only kit cannot teach them
    disputed = plain["records_contested"]
    assert disputed and all(v["current_in"] and v["conflicting_in"] for v in disputed.values())
    assert plain["facts_recovered"] == plain["facts_total"] - len(disputed)
    client = p.json(CLIENT_TASK, "sealed", "client.json")
    assert client["contested"][0]["conflicting_statement"] != client["contested"][0]["statement"]


def test_only_edited_and_added_files_differ_from_the_domain_evidence(built):
    from outputs.packs.store import Pack
    path, _ = built
    p = Pack(path)
    ev = p.json(CLIENT_TASK, "sealed", "evidence.json")
    client = {f.path: f.sha256 for f in p.manifest(CLIENT_TASK, "kit").files if f.path.startswith("evidence/")}
    plain = {f.path: f.sha256 for f in p.manifest(PLAIN_TASK, "kit").files if f.path.startswith("evidence/")}
    changed = {path for path in client if client[path] != plain.get(path)}
    touched = {f["path"] for f in ev["files"] if f["artifact_id"] in set(ev["files_edited"]) | set(ev["files_added"])}
    assert changed == touched and changed


def test_tampered_kit_file_fails_verify_naming_it(built, tmp_path):
    from outputs.packs.store import Pack, object_path, verify_pack
    path, _ = built
    copy = tmp_path / "pack"
    shutil.copytree(path, copy)
    ref = next(f for f in Pack(copy).manifest(PLAIN_TASK, "kit").files if f.path == "api/openapi.json")
    obj = object_path(copy, ref.sha256)
    obj.write_bytes(obj.read_bytes().replace(b"3.1.0", b"3.0.0", 1))
    problems = verify_pack(copy)
    assert f"changed: task {PLAIN_TASK} kit file api/openapi.json (sha256 differs from the manifest)" in problems
    r = subprocess.run([sys.executable, "-m", "pipeline.cli", "pack", "verify", str(copy)], capture_output=True,
                       text=True, cwd=ROOT)
    assert r.returncode == 1 and "api/openapi.json" in r.stderr and "Traceback" not in r.stderr


def test_export_is_deterministic_and_parts_are_separate(built, tmp_path):
    from outputs.packs.store import Pack, export_task
    path, _ = built
    a = export_task(Pack(path), CLIENT_TASK, tmp_path / "a")
    b = export_task(Pack(path), CLIENT_TASK, tmp_path / "b")
    for part in ("kit", "sealed"):
        assert a[part].read_bytes() == b[part].read_bytes()
    with tarfile.open(a["kit"]) as t:
        names = set(t.getnames())
    assert "evidence" in {n.split("/")[0] for n in names} and "tests.json" not in names and "db.json" not in names
    with tarfile.open(a["sealed"]) as t:
        assert {"tests.json", "db.json", "client.json"} <= set(t.getnames())


def test_unchanged_rebuild_reuses_every_task_and_is_byte_identical(built, ws, tmp_path):
    from outputs.packs.build import BuildOptions, build_pack
    path, index = built
    copy = tmp_path / "pack"
    shutil.copytree(path, copy)
    before = (copy / "index.json").read_bytes()
    _, index2, results = build_pack(copy, ["_mock"], opts=BuildOptions(seed=0, workspace=ws))
    assert all(r.reused for r in results)
    assert (copy / "index.json").read_bytes() == before


def test_missing_id_fails_the_build_naming_the_spec_line(built, ws, tmp_path, monkeypatch):
    from domains import get_pack
    from outputs.packs.build import Builder, BuildOptions
    pack_dir = tmp_path / "domains" / "_mock"
    shutil.copytree(ROOT / "domains" / "_mock", pack_dir, ignore=shutil.ignore_patterns("__pycache__"))
    spec = pack_dir / "tasks" / f"{PLAIN_TASK}.toml"
    text = spec.read_text().replace("_mock.rent-2-bikes.635d0338d3", "_mock.rent-2-bikes.0000000000")
    spec.write_text(text)
    (pack_dir / "tasks" / f"{CLIENT_TASK}.toml").unlink()
    monkeypatch.setenv("FACTFORGE_DOMAINS_DIR", str(tmp_path / "domains"))
    pack = get_pack("_mock")
    assert pack.path == pack_dir
    with pytest.raises(FactforgeError) as e:
        Builder(tmp_path / "out", BuildOptions(seed=0, workspace=ws)).build([pack])
    assert "test id _mock.rent-2-bikes.0000000000 does not resolve" in e.value.problem
    assert e.value.file == str(spec) and "0000000000" in text.splitlines()[e.value.line - 1]
    assert not (tmp_path / "out").exists()


def _mock_copy(tmp_path, monkeypatch, keep: str, edit=None) -> Path:
    """A copy of the _mock domain with one task spec (`keep`, edited by `edit`), served as _mock."""
    pack_dir = tmp_path / "domains" / "_mock"
    shutil.copytree(ROOT / "domains" / "_mock", pack_dir, ignore=shutil.ignore_patterns("__pycache__"))
    for p in (pack_dir / "tasks").glob("*.toml"):
        if p.stem != keep:
            p.unlink()
    spec = pack_dir / "tasks" / f"{keep}.toml"
    if edit is not None:
        spec.write_text(edit(spec.read_text()))
    monkeypatch.setenv("FACTFORGE_DOMAINS_DIR", str(tmp_path / "domains"))
    return spec


def _learnable(text: str) -> str:
    return text.replace("test_seed = 1\n", 'test_seed = 1\nselect = "learnable"\n', 1)


@pytest.mark.slow
def test_learnable_selection_replaces_a_pinned_id_and_records_it(built, ws, tmp_path, monkeypatch):
    """Under `select = "learnable"` the pinned ids are preferences: an id that no longer resolves
    is replaced by the stable rule, the counts stay, and the pack records the replacement."""
    from domains import get_pack
    from outputs.packs.build import Builder, BuildOptions
    from outputs.packs.store import Pack
    _mock_copy(tmp_path, monkeypatch, PLAIN_TASK, lambda t: _learnable(t).replace(
        "_mock.rent-2-bikes.635d0338d3", "_mock.rent-2-bikes.0000000000"))
    path, index, results = Builder(tmp_path / "out", BuildOptions(seed=0, workspace=ws)).build([get_pack("_mock")])
    (r,) = results
    assert r.replaced == {"test": [{"pinned": "_mock.rent-2-bikes.0000000000", "chosen": r.replaced["test"][0]["chosen"],
                                    "why": "does not resolve"}]}
    task = json.loads(Pack(path).read(PLAIN_TASK, "sealed", "task.json"))
    assert task["ids"]["select"] == "learnable" and task["ids"]["replaced"] == r.replaced
    assert len(task["ids"]["test"]) == 3 and "_mock.rent-2-bikes.0000000000" not in task["ids"]["test"]
    chosen = r.replaced["test"][0]["chosen"]
    assert chosen in task["ids"]["test"] and chosen not in task["ids"]["live"]
    # the same inputs choose the same ids
    _, _, again = Builder(tmp_path / "out2", BuildOptions(seed=0, workspace=ws)).build([get_pack("_mock")])
    assert again[0].replaced == r.replaced


@pytest.mark.slow
def test_learnable_selection_replaces_an_unlearnable_training_id(ws, tmp_path, monkeypatch):
    """A training scenario whose gold would settle a held fact is replaced, not shipped."""
    from domains import get_pack
    from outputs.packs.build import Builder, BuildOptions
    _mock_copy(tmp_path, monkeypatch, CLIENT_TASK, lambda t: _learnable(t).replace(
        '"_mock.rent-one-bike.a2dd685d72"', '"_mock.explain-late-fee.f384a4e710"'))
    _, _, (r,) = Builder(tmp_path / "out", BuildOptions(seed=0, workspace=ws)).build([get_pack("_mock")])
    (rep,) = r.replaced["training"]
    assert rep["pinned"] == "_mock.explain-late-fee.f384a4e710" and rep["why"] == "not learnable"
    assert "explain-late-fee" not in rep["chosen"]


def test_learnable_selection_fails_when_too_few_simulations_are_learnable(ws, tmp_path, monkeypatch):
    from domains import get_pack
    from outputs.packs.build import Builder, BuildFailed, BuildOptions
    many = ",\n".join(f'  "_mock.none.{i:010d}"' for i in range(40))
    _mock_copy(tmp_path, monkeypatch, PLAIN_TASK,
               lambda t: _learnable(t).replace('test = [\n', f'test = [\n{many},\n', 1))
    with pytest.raises(BuildFailed) as e:
        Builder(tmp_path / "out", BuildOptions(seed=0, workspace=ws)).build([get_pack("_mock")])
    assert "check tests_learnable failed" in e.value.problem and "eligible simulations for the 43 test ids" in e.value.problem
    assert not (tmp_path / "out").exists()


@pytest.mark.slow
def test_training_scenario_that_would_settle_a_held_fact_fails_the_check(ws, tmp_path, monkeypatch):
    from domains import get_pack
    from outputs.packs.build import Builder, BuildFailed, BuildOptions
    pack_dir = tmp_path / "domains" / "_mock"
    shutil.copytree(ROOT / "domains" / "_mock", pack_dir, ignore=shutil.ignore_patterns("__pycache__"))
    spec = pack_dir / "tasks" / f"{CLIENT_TASK}.toml"
    spec.write_text(spec.read_text().replace('"_mock.rent-one-bike.a2dd685d72"', '"_mock.explain-late-fee.f384a4e710"'))
    (pack_dir / "tasks" / f"{PLAIN_TASK}.toml").unlink()
    monkeypatch.setenv("FACTFORGE_DOMAINS_DIR", str(tmp_path / "domains"))
    with pytest.raises(BuildFailed) as e:
        Builder(tmp_path / "out", BuildOptions(seed=0, workspace=ws)).build([get_pack("_mock")])
    msg = e.value.problem
    assert "check tests_learnable failed" in msg and "_mock.explain-late-fee.f384a4e710" in msg
    assert "check kit_scan_clean failed" in msg and "client_held_fact" in msg


# --------------------------------------------------------------------------- tau2

def _tau2_files() -> list[Path]:
    tau2_data("airline", "tasks.json")
    tau2_data("retail", "tasks.json")
    files = sorted(SHARED.glob("*/tasks.json")) + sorted(SHARED.glob("*/tasks/*.json"))
    assert {p.parent.name for p in files} >= {"airline", "retail"}
    return files


def test_real_tau2_tasks_pass_the_validator_and_broken_ones_fail():
    from outputs.packs.tau2_schema import validate_tasks
    for p in _tau2_files():
        data = json.loads(p.read_text(encoding="utf-8"))
        assert validate_tasks(data) == [], p
    data = json.loads(tau2_data("retail", "tasks.json").read_text(encoding="utf-8"))[:3]
    data[0]["evaluation_criteria"]["reward_basis"] = ["DB", "VIBES"]
    del data[1]["user_scenario"]
    data[2]["evaluation_criteria"]["actions"][0]["requestor"] = "robot"
    problems = validate_tasks(data)
    assert any(p.startswith("0.evaluation_criteria.reward_basis.1") for p in problems)
    assert any(p.startswith("1.user_scenario") for p in problems)
    assert any(p.startswith("2.evaluation_criteria.actions.0.requestor") for p in problems)


def test_export_tau2_validates_against_tau2s_task_model(built, tmp_path):
    from outputs.packs.store import Pack
    from outputs.packs.tau2 import export_tau2
    from outputs.packs.tau2_schema import unknown_keys, validate_splits, validate_tasks
    path, _ = built
    folders = export_tau2(Pack(path), tmp_path)
    assert {f.name for f in folders} == {CLIENT_TASK, PLAIN_TASK}
    for folder in folders:
        for sub in (folder, folder / "train"):
            tasks = json.loads((sub / "tasks.json").read_text())
            splits = json.loads((sub / "split_tasks.json").read_text())
            assert tasks and validate_tasks(tasks) == []
            assert validate_splits(splits, {t["id"] for t in tasks}) == []
            for t in tasks:
                assert unknown_keys(t) == ["factforge"]
                assert t["evaluation_criteria"]["reward_basis"] and "task_pack_id" in t["factforge"]
                assert isinstance(t["user_scenario"]["instructions"], dict)
    held = json.loads((tmp_path / CLIENT_TASK / "split_tasks.json").read_text())
    assert set(held) == {"live", "test", "live+test"} and len(held["test"]) == 4


def test_cli_build_error_is_one_clean_line(tmp_path):
    r = subprocess.run([sys.executable, "-m", "pipeline.cli", "pack", "build", "--domain", "nosuchdomain",
                        "--out", str(tmp_path / "p")], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 1 and "unknown domain 'nosuchdomain'" in r.stderr and "Traceback" not in r.stderr


def test_suite_cache_gives_the_same_suite_and_recomputes_a_bad_entry(tmp_path):
    from domains import get_pack
    from outputs.packs.build import BuildOptions, DomainBuild
    opts = BuildOptions(seed=0, workspace=tmp_path)
    first = DomainBuild(get_pack("_mock"), opts).suite("_mock", 3)
    (entry,) = (tmp_path / "cache" / "suites").iterdir()
    cached = DomainBuild(get_pack("_mock"), opts).suite("_mock", 3)
    assert cached is not first and cached.hash == first.hash
    entry.write_text('{"truncated": ', encoding="utf-8")
    assert DomainBuild(get_pack("_mock"), opts).suite("_mock", 3).hash == first.hash
    assert json.loads(entry.read_text(encoding="utf-8"))["db_hash"] == first.db_hash
    other = DomainBuild(get_pack("_mock"), opts).suite("_mock", 1)
    assert other.db_hash != first.db_hash and len(list(entry.parent.iterdir())) == 2


@pytest.mark.slow
def test_task_pack_asset_builds_the_domain_pack_with_its_checks(ws, tmp_path):
    import dagster as dg
    from pipeline import assets as A
    from pipeline.resources import BuildSettings, Execution, Workspace, WriterResource
    from outputs.packs.build import CHECKS
    from outputs.packs.store import verify_pack
    out = tmp_path / "out"
    resources = {"settings": BuildSettings(profile="text-only"),
                 "workspace": Workspace(root=str(ws), out=str(out)), "writer": WriterResource(), "execution": Execution(),
                 "io_manager": dg.FilesystemIOManager(base_dir=str(tmp_path / "storage"))}
    result = dg.materialize([*A.ALL_ASSETS, *A.ALL_CHECKS], partition_key="_mock", resources=resources,
                            instance=dg.DagsterInstance.ephemeral(), raise_on_error=False)
    assert result.success
    evals = {e.check_name: e.passed for e in result.get_asset_check_evaluations()
             if e.asset_key == A.task_pack.key}
    assert evals == {c: True for c in CHECKS}
    md = result.asset_materializations_for_node("task_pack")[-1].metadata
    assert md["tasks"].value == 2 and md["written"].value is True
    assert verify_pack(out / "packs" / "_mock") == []
    build_only = dg.materialize([*A.ALL_ASSETS, *A.ALL_CHECKS], selection=A.BUNDLE_ASSETS, partition_key="_mock",
                                resources=resources, instance=dg.DagsterInstance.ephemeral(), raise_on_error=False)
    assert build_only.success and not build_only.asset_materializations_for_node("task_pack")
    assert {e.check_name for e in build_only.get_asset_check_evaluations()} >= {"all_facts_recoverable", "no_leaks"}


@pytest.mark.slow
def test_pin_ids_writes_learnable_disjoint_ids_that_build(ws, tmp_path, monkeypatch):
    from domains import get_pack
    from outputs.packs.build import Builder, BuildOptions
    from outputs.packs.pin import pin_ids
    from outputs.packs.spec import load_spec
    pack_dir = tmp_path / "domains" / "_mock"
    shutil.copytree(ROOT / "domains" / "_mock", pack_dir, ignore=shutil.ignore_patterns("__pycache__"))
    spec = pack_dir / "tasks" / f"{CLIENT_TASK}.toml"
    text = spec.read_text()
    head, _, rest = text.partition("[ids]")
    spec.write_text(head + "[ids]\ntest_seed = 1\ntest = []\n\n[phrasing]" + rest.split("[phrasing]", 1)[1])
    (pack_dir / "tasks" / f"{PLAIN_TASK}.toml").unlink()
    monkeypatch.setenv("FACTFORGE_DOMAINS_DIR", str(tmp_path / "domains"))
    opts = BuildOptions(seed=0, workspace=ws)
    rows, failed = pin_ids(get_pack("_mock"), opts, n_live=50)
    assert not rows and len(failed) == 1 and str(spec) in str(failed[0]) and "only 7 learnable" in str(failed[0])
    assert spec.read_text() == head + "[ids]\ntest_seed = 1\ntest = []\n\n[phrasing]" + rest.split("[phrasing]", 1)[1]
    (row,), failed = pin_ids(get_pack("_mock"), opts, n_training=3, n_live=1)
    assert row[1:] == (3, 1, 5) and not failed
    s = load_spec(spec).spec
    assert "[phrasing]" in spec.read_text() and s.phrasing.rules
    assert not any("explain-late-fee" in t for t in s.ids.training), "training never settles the held fact"
    assert any("explain-late-fee" in t for t in s.ids.live + s.ids.test), "tests of the held fact stay"
    path, index, _ = Builder(tmp_path / "out", BuildOptions(seed=0, workspace=ws)).build([get_pack("_mock")])
    assert [t.id for t in index.tasks] == [CLIENT_TASK]
    # a spec that selects learnable ids is pinned with spares: one of its five eligible tests
    # stays unpinned, for a later change to the records to draw on
    pinned = load_spec(spec).spec.ids.test
    spec.write_text(spec.read_text().replace("[ids]\ntest_seed = 1\n", '[ids]\ntest_seed = 1\nselect = "learnable"\n', 1))
    (row,), failed = pin_ids(get_pack("_mock"), opts, n_training=3, n_live=1)
    assert row[1:] == (3, 1, 4) and not failed
    s = load_spec(spec).spec
    assert s.ids.select == "learnable" and s.ids.test == pinned[:4]


@pytest.mark.slow
def test_pin_ids_repair_keeps_good_ids_and_replaces_only_the_broken_one(ws, tmp_path, monkeypatch):
    """`pack pin-ids --repair`: a learnable spec keeps every id that still holds, in its place;
    an id that no longer resolves is replaced as a build would replace it, and written down; a
    spec whose ids all hold is not touched, and a spec that pins its ids is not repaired."""
    from domains import get_pack
    from outputs.packs.build import BuildOptions
    from outputs.packs.pin import pin_ids
    from outputs.packs.spec import load_spec
    pack_dir = tmp_path / "domains" / "_mock"
    shutil.copytree(ROOT / "domains" / "_mock", pack_dir, ignore=shutil.ignore_patterns("__pycache__"))
    spec = pack_dir / "tasks" / f"{CLIENT_TASK}.toml"
    before = load_spec(spec).spec.ids
    broken = before.test[0]
    spec.write_text(spec.read_text().replace("[ids]\ntest_seed = 1\n", '[ids]\ntest_seed = 1\nselect = "learnable"\n', 1)
                    .replace(f'"{broken}"', '"_mock.gone.0000000000"', 1))
    monkeypatch.setenv("FACTFORGE_DOMAINS_DIR", str(tmp_path / "domains"))
    opts = BuildOptions(seed=0, workspace=ws)
    rows, failed = pin_ids(get_pack("_mock"), opts, [CLIENT_TASK], repair=True)
    assert [r[0] for r in rows] == [spec] and not failed
    after = load_spec(spec).spec.ids
    assert after.select == "learnable" and after.training == before.training and after.live == before.live
    assert after.test[:-1] == before.test[1:] and len(after.test) == len(before.test)
    assert "_mock.gone.0000000000" not in after.test
    text = spec.read_text()
    rows, failed = pin_ids(get_pack("_mock"), opts, [CLIENT_TASK], repair=True)
    assert not rows and not failed and spec.read_text() == text          # nothing left to mend
    rows, failed = pin_ids(get_pack("_mock"), opts, [PLAIN_TASK], repair=True)
    assert not rows and len(failed) == 1 and "learnable" in str(failed[0])


@pytest.mark.end_to_end
def test_kit_scan_reads_pixels_and_speech_of_a_full_kit(mock_full_ws_copy, tmp_path, monkeypatch):
    """Full modality profile: screenshots are read by OCR and call audio by speech recognition,
    and the held fact is proven absent from those readings too. The workspace holds the run's
    full `_mock` renders and readings: the client's kit renders and reads again the files that
    stated the held fact, the others are the bundle's own (the same bytes a cold build makes)."""
    ws = mock_full_ws_copy
    from domains import get_pack
    from outputs.packs.build import Builder, BuildOptions
    from outputs.packs.store import Pack
    pack_dir = tmp_path / "domains" / "_mock"
    shutil.copytree(ROOT / "domains" / "_mock", pack_dir, ignore=shutil.ignore_patterns("__pycache__"))
    spec = pack_dir / "tasks" / f"{CLIENT_TASK}.toml"
    spec.write_text(spec.read_text().replace('profile = "text-only"', 'profile = "full"'))
    (pack_dir / "tasks" / f"{PLAIN_TASK}.toml").unlink()
    monkeypatch.setenv("FACTFORGE_DOMAINS_DIR", str(tmp_path / "domains"))
    path, index, _ = Builder(tmp_path / "out", BuildOptions(seed=0, workspace=ws)).build([get_pack("_mock")])
    p = Pack(path)
    scan = p.json(CLIENT_TASK, "sealed", "kit_scan.json")
    assert scan["hits"] == []
    assert scan["readers"].get("png:extraction", 0) >= 1
    assert scan["readers"].get("wav:extraction", 0) + scan["readers"].get("mp4:extraction", 0) >= 1
    ev = p.json(CLIENT_TASK, "sealed", "evidence.json")
    extractors = {f["extractor"] for f in ev["files"]}
    assert any("ocr" in e for e in extractors) and any("asr" in e for e in extractors)
    assert ev["held"]["_mock.late-returns.ea475b5c32"]["present_in"] == []


def test_pack_readers_import_no_dagster_and_no_media():
    code = ("import sys\n"
            "import outputs.packs.store, outputs.packs.menu, outputs.packs.phrasing, outputs.packs.spec\n"
            "import outputs.packs.tau2, outputs.packs.tau2_schema\n"
            "heavy = ('dagster', 'PIL', 'moviepy', 'pytesseract', 'pocketsphinx', 'reportlab', 'matplotlib',\n"
            "         'litellm', 'numpy', 'pandas', 'transforms', 'audits')\n"
            "print(sorted({m.split('.')[0] for m in sys.modules} & set(heavy)))\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"


# --------------------------------------------------------------------------- the seeded workspace

class _Servers:
    """The domain API over HTTP (the real catalog, on the kit's development data) and a model
    gateway that answers from a script, each on a loopback port."""

    def __init__(self, api, db, script, throttle_first: int = 0):
        import http.server
        import threading
        self.calls, self.prompts = [], []
        outer = self

        class ApiHandler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def _send(self, status, body, headers=None):
                data = json.dumps(body).encode()
                self.send_response(status)
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _route(self, method):
                from urllib.parse import parse_qsl, urlparse
                from domains.apikit import ApiError
                u = urlparse(self.path)
                for op in api.operations():
                    parts, segs = op.path.strip("/").split("/"), u.path.strip("/").split("/")
                    if op.method != method or len(parts) != len(segs):
                        continue
                    args = {}
                    if all(p == s or (p.startswith("{") and not args.update({p[1:-1]: s})) for p, s in zip(parts, segs)):
                        if method == "GET":
                            args.update(dict(parse_qsl(u.query)))
                        else:
                            n = int(self.headers.get("Content-Length") or 0)
                            args.update(json.loads(self.rfile.read(n) or b"{}"))
                        outer.calls.append((op.name, args))
                        if len(outer.calls) <= throttle_first:
                            return self._send(429, {"error": {"code": "rate_limited", "message": "slow down",
                                                              "details": {}}}, {"Retry-After": "0"})
                        try:
                            return self._send(200, api.call(db, op.name, args))
                        except ApiError as e:
                            return self._send(e.status, e.envelope())
                self._send(404, {"error": {"code": "unknown_operation", "message": self.path, "details": {}}})

            def do_GET(self):
                self._route("GET")

            def do_POST(self):
                self._route("POST")

        class GatewayHandler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_POST(self):
                n = int(self.headers.get("Content-Length") or 0)
                outer.prompts.append(json.loads(self.rfile.read(n)))
                body = json.dumps(script.pop(0)).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.servers = [http.server.ThreadingHTTPServer(("127.0.0.1", 0), h) for h in (ApiHandler, GatewayHandler)]
        for s in self.servers:
            threading.Thread(target=s.serve_forever, daemon=True).start()
        self.api_url, self.gateway_url = (f"http://127.0.0.1:{s.server_address[1]}" for s in self.servers)

    def close(self):
        for s in self.servers:
            s.shutdown()
            s.server_close()


def _completion(content=None, tool=None, args=None):
    msg = {"role": "assistant", "content": content}
    if tool:
        msg["tool_calls"] = [{"id": "call_1", "type": "function",
                              "function": {"name": tool, "arguments": json.dumps(args)}}]
    return {"choices": [{"message": msg, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}}


def _run_agent(kit: Path, workspace: Path, servers, monkeypatch, message: str):
    import importlib
    monkeypatch.setenv("FACTFORGE_API_URL", servers.api_url)
    monkeypatch.setenv("FACTFORGE_GATEWAY_URL", servers.gateway_url)
    monkeypatch.setenv("FACTFORGE_KIT", str(kit))
    monkeypatch.syspath_prepend(str(kit / "sdk"))
    monkeypatch.syspath_prepend(str(workspace))
    for name in ("agent", "factforge_sdk"):
        sys.modules.pop(name, None)
    agent = importlib.import_module("agent").create_agent()
    state = agent.get_init_state()
    reply, state = agent.generate_next_message(message, state)
    json.dumps(state)
    return reply, state


def test_seeded_agent_follows_the_contract_and_has_its_gaps(built, tmp_path, monkeypatch):
    from domains.variants import resolve
    from outputs.packs.store import Pack
    path, _ = built
    kit = Pack(path).materialize(CLIENT_TASK, "kit", tmp_path / "kit")
    db = json.loads((kit / "data" / "dev_db.json").read_text())
    cid = sorted(db["customers"])[0]
    script = [_completion(tool="get_customer", args={"customer_id": cid}), _completion(content="You are all set.")]
    servers = _Servers(resolve("_mock").api(), db, script, throttle_first=1)
    try:
        reply, state = _run_agent(kit, kit / "workspace", servers, monkeypatch, "Hi, can I rent a bike?")
    finally:
        servers.close()
    assert reply == "You are all set."
    assert servers.calls == [("get_customer", {"customer_id": cid})]
    tool_result = next(m for m in state["messages"] if m["role"] == "tool")
    assert json.loads(tool_result["content"])["error"]["code"] == "rate_limited", "gap: no retry on 429"
    sent = servers.prompts[0]
    assert sent["model"] == "small-fast" and sent["messages"][0]["content"].startswith("# Pedalwise Rentals")
    tools = {t["function"]["name"] for t in sent["tools"]}
    assert "get_customer" in tools and "transfer_to_human" not in tools, "gap: no transfer tool"
    assert "$38" in sent["messages"][0]["content"], "gap: stale deposit in the notes"
    assert "20%" not in sent["messages"][0]["content"], "the held discount is not in the notes"


def test_agent_without_the_retry_gap_waits_and_retries(built, tmp_path, monkeypatch):
    from domains.variants import resolve
    from outputs.packs.store import Pack
    from outputs.packs.workspace import templates
    path, _ = built
    kit = Pack(path).materialize(CLIENT_TASK, "kit", tmp_path / "kit")
    ws = tmp_path / "fixed"
    ws.mkdir()
    (ws / "agent.py").write_text(templates().get_template("agent.py.j2").render(
        company="Pedalwise Rentals", model="small-fast", gaps=set(), transfer_ops=[]))
    (ws / "prompt.md").write_text("# notes\n")
    db = json.loads((kit / "data" / "dev_db.json").read_text())
    cid = sorted(db["customers"])[0]
    script = [_completion(tool="get_customer", args={"customer_id": cid}), _completion(content="Done.")]
    servers = _Servers(resolve("_mock").api(), db, script, throttle_first=1)
    try:
        reply, state = _run_agent(kit, ws, servers, monkeypatch, "Hello")
    finally:
        servers.close()
    assert [c[0] for c in servers.calls] == ["get_customer", "get_customer"]
    tool_result = next(m for m in state["messages"] if m["role"] == "tool")
    assert json.loads(tool_result["content"])["id"] == cid
    assert "transfer_to_human" in {t["function"]["name"] for t in servers.prompts[0]["tools"]}
