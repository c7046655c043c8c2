"""`factforge new-domain`: the skeleton pack loads, its seed database obeys its policy, its
policy decomposes cleanly, and (when the pipeline is ready) it builds into a verified bundle."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from domains import BUILTIN_DIR, load_pack
from domains.contract import import_pack_module
from domains.scaffold import scaffold_domain
from facts.errors import FactforgeError

ROOT = Path(__file__).resolve().parents[1]


def run_cli(*args: str, timeout: int = 120) -> subprocess.CompletedProcess:
    env = {**os.environ, "FACTFORGE_DOMAINS_DIR": ""}
    return subprocess.run([sys.executable, "-m", "pipeline.cli", *args], capture_output=True, text=True, cwd=ROOT,
                          env=env, timeout=timeout)


@pytest.fixture()
def pack(tmp_path):
    return load_pack(scaffold_domain("harbor_fix", tmp_path))


def seed_module(pack):
    """The pack's code as one namespace: `generate` (seed.py), `check` (check.py), `VALUES` and
    `VALUE_FACTS` (rules.py)."""
    seed, check, rules = (import_pack_module(pack.path, m) for m in ("seed", "check", "rules"))
    return SimpleNamespace(generate=seed.generate, check=check.check, VALUES=rules.VALUES,
                           VALUE_FACTS=rules.VALUE_FACTS)


def test_skeleton_files_and_brand(pack, tmp_path):
    assert pack.path == (tmp_path / "harbor_fix").resolve()
    assert sorted(str(p.relative_to(pack.path)) for p in pack.path.rglob("*") if p.is_file()) == [
        "README.md", "check.py", "domain.py", "domain.toml", "policy.md", "rules.py", "seed.py", "variants/README.md"]
    assert pack.name == "harbor_fix" and pack.brand.company == "Harbor Fix Co."
    assert pack.brand.email_domain == "harbor-fix.example"
    assert len(pack.brand.agents) >= 6 and len(pack.brand.managers) >= 3 and len(pack.brand.customers) >= 12
    toml = (pack.path / "domain.toml").read_text()
    for line_no, line in enumerate(toml.splitlines()):
        if re.match(r"^[a-z_]+ = ", line):
            assert toml.splitlines()[line_no - 1].startswith("#"), f"field without a comment: {line}"
    assert not (BUILTIN_DIR / "_template" / "domain.toml").exists()


def test_skeleton_is_deterministic(pack, tmp_path):
    other = scaffold_domain("harbor_fix", tmp_path / "elsewhere" / "deeper")
    files = sorted(p.relative_to(pack.path) for p in pack.path.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(other) for p in other.rglob("*") if p.is_file())
    for f in files:
        assert (pack.path / f).read_bytes() == (other / f).read_bytes(), f


def test_seed_database_is_deterministic_and_consistent(pack):
    db = pack.database(0)
    assert db == pack.database(0) and db != pack.database(1)
    assert pack.check_database(db) == []
    assert sum(len(t) for t in db.values()) >= 200
    names = {c["name"] for c in db["customers"].values()}
    assert names == set(pack.brand.customers)
    assert {v["customer_id"] for v in db["visits"].values()} <= set(db["customers"])
    assert any(v["status"] == "cancelled" for v in db["visits"].values()) and db["refunds"]


def test_check_catches_broken_records_and_follows_values(pack):
    mod = seed_module(pack)
    db = pack.database(0)
    paid = next(v for v in db["visits"].values() if not v["free_visit"])
    paid["fee"] = 99
    problems = mod.check(pack, db)
    assert any(paid["id"] in p and "fee" in p for p in problems)
    db2 = mod.generate(pack, 0, {"callout_fee": 60, "free_visits_plus": 1})
    assert mod.check(pack, db2, {"callout_fee": 60, "free_visits_plus": 1}) == []
    assert mod.check(pack, db2) != []
    with pytest.raises(FactforgeError, match="unknown policy value"):
        mod.generate(pack, 0, {"no_such_value": 1})


def test_value_facts_point_at_the_policy(pack):
    """Each link names the one policy line stating its value, the number written `…`, and the
    value standing there is the pack's."""
    from domains.value_feeds import PLACEHOLDER, link_places, locate_link  # noqa: PLC0415
    from facts.values import find_values  # noqa: PLC0415

    mod = seed_module(pack)
    texts = {pack.policy_path: pack.policy_path.read_text()}
    assert set(mod.VALUE_FACTS) == set(mod.VALUES)
    for key, sub in mod.VALUE_FACTS.items():
        assert PLACEHOLDER in sub and not find_values(sub) and link_places(sub, texts) == 1, key
        _, _, _, (_, value, value_max, _, _, _) = locate_link(sub, texts)
        assert mod.VALUES[key] in (value, value_max), key


def test_variant_example_in_readme_works(pack):
    from domains.variants import resolve

    readme = (pack.path / "variants" / "README.md").read_text()
    (example,) = re.findall(r"```toml\n(.*?)```", readme, re.S)
    (pack.path / "variants" / "tidewater.toml").write_text(example)
    world = resolve("harbor_fix@tidewater", [pack.path.parent])
    values = world.values()
    assert values["callout_fee"] == 55 and values["free_visits_plus"] == 8 and values["plan_price_plus"] == 19
    db = world.database(0)
    assert world.check_database(db) == []
    assert {p["amount"] for p in db["payments"].values()} == {55}
    statements = [f.statement for f in world.factset().facts]
    assert "The call-out fee for a service visit is $55." in statements
    assert not any("Harbor Fix" in s or "$45" in s for s in statements)


def test_policy_decomposes_without_unparsed_lines(pack):
    fs = pack.facts
    assert fs.unparsed == [], [u.text for u in fs.unparsed]
    assert len(fs.facts) >= 12
    kinds = {f.kind.value for f in fs.facts}
    assert "procedure_step" in kinds
    slot_values = {(s.type.value, s.value) for f in fs.facts for s in f.slots}
    mod = seed_module(pack)
    for key in ("callout_fee", "plan_price_basic", "plan_price_plus"):
        assert ("money", mod.VALUES[key]) in slot_values, key
    assert ("duration", 24) in slot_values and ("duration", 5) in slot_values
    assert ("count", 3) in slot_values and ("count", 6) in slot_values


def test_name_rules(tmp_path, monkeypatch):
    for bad in ("Harbor", "harbor-fix", "9lives", "_hidden", "", "a" * 41):
        with pytest.raises(FactforgeError, match="invalid domain name"):
            scaffold_domain(bad, tmp_path)
    scaffold_domain("harbor_fix", tmp_path / "one")
    with pytest.raises(FactforgeError, match="already exists"):
        scaffold_domain("harbor_fix", tmp_path / "one")
    monkeypatch.setenv("FACTFORGE_DOMAINS_DIR", str(tmp_path / "one"))
    with pytest.raises(FactforgeError, match="already used by the pack at"):
        scaffold_domain("harbor_fix", tmp_path / "two")
    (tmp_path / "one" / "harbor_fix" / "policy.md").write_text("# Changed\n")
    path = scaffold_domain("harbor_fix", tmp_path / "one", force=True)
    assert "call-out fee" in (path / "policy.md").read_text()
    assert sorted(p.name for p in (tmp_path / "one").iterdir()) == ["harbor_fix"], "no temporary folder left"
    (tmp_path / "one" / "not_a_pack").mkdir()
    with pytest.raises(FactforgeError, match="not a domain pack"):
        scaffold_domain("not_a_pack", tmp_path / "one", force=True)


def test_default_into(tmp_path, monkeypatch):
    monkeypatch.setenv("FACTFORGE_DOMAINS_DIR", os.pathsep.join([str(tmp_path / "a"), str(tmp_path / "b")]))
    assert scaffold_domain("first_dir") == (tmp_path / "a" / "first_dir").resolve()
    monkeypatch.setenv("FACTFORGE_DOMAINS_DIR", str(BUILTIN_DIR))
    with pytest.raises(FactforgeError, match="built-in domains folder"):
        scaffold_domain("never_here")
    assert not (BUILTIN_DIR / "never_here").exists()
    monkeypatch.delenv("FACTFORGE_DOMAINS_DIR")
    monkeypatch.chdir(tmp_path)
    assert scaffold_domain("cwd_default") == (tmp_path / "domains-imported" / "cwd_default").resolve()


def test_cli_new_domain(tmp_path):
    r = run_cli("new-domain", "harbor_fix", "--into", str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert "created" in r.stdout and (tmp_path / "harbor_fix" / "seed.py").is_file()
    r = run_cli("new-domain", "Harbor", "--into", str(tmp_path))
    assert r.returncode == 1 and "Traceback" not in r.stderr and "invalid domain name" in r.stderr
    r = run_cli("facts", "harbor_fix", "--domains-dir", str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert re.search(r"\d+ facts, 0 unparsed lines", r.stdout)


@pytest.mark.end_to_end
def test_scaffolded_domain_builds_and_verifies(tmp_path):
    from transforms.registry import kinds
    assert kinds(), "no artifact kinds registered (transforms families are empty)"
    domains = tmp_path / "domains"
    scaffold_domain("harbor_fix", domains)
    out = tmp_path / "out"
    r = run_cli("build", "--domain", "harbor_fix", "--domains-dir", str(domains), "--out", str(out),
                "--workspace", str(tmp_path / "ws"), timeout=900)
    assert r.returncode == 0, r.stdout + r.stderr
    (bundle,) = [p for p in (out / "bundles" / "harbor_fix").iterdir() if p.is_dir() and not p.name.startswith(".")]
    r = run_cli("verify", str(bundle))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "ok" in r.stdout
