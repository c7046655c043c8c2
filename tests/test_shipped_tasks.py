"""The guard before a change lands: every built-in task spec can still build.

`outputs.packs.guard` checks, from the evidence plan and the simulation suites (no rendering,
no kit written), that each task's tests are learnable, that enough simulations are eligible
for its id counts, that the sealing gate admits its tests (the reference agents' means on them
are checked here too) and that no held fact is left in its delivered plan. A change to the
planner, the policies or the scenarios that would make a shipped task unbuildable fails here.
(`pack build` proves the same on the rendered files; `benchmarks/bench_packs.py` builds the
whole built-in pack.)
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BUILT_IN = ["airline", "retail", "telecom", "banking"]


@pytest.fixture(scope="module")
def opts(tmp_path_factory):
    from outputs.packs.build import BuildOptions
    return BuildOptions(seed=0, workspace=tmp_path_factory.mktemp("guard-ws"), workers=1)


@pytest.mark.end_to_end
@pytest.mark.parametrize("domain", BUILT_IN)
def test_every_built_in_task_can_build(domain, sim_suite, suite_workspace):
    """The guard of every task spec of a built-in domain, on the run's shared suite cache: the
    simulations its tasks draw from (each world's on the build seed and on each spec's test
    seed) are generated once per run, whichever test needs them first."""
    from domains import get_pack
    from outputs.packs.build import BuildOptions
    from outputs.packs.guard import check_domain
    from outputs.packs.spec import load_domain_specs
    pack = get_pack(domain)
    opts = BuildOptions(seed=0, workspace=suite_workspace, workers=1)
    for ls in load_domain_specs(pack, set()):
        for seed in (opts.seed, ls.spec.ids.test_seed):
            sim_suite(ls.spec.evidence.bundle, seed)
    verdicts = check_domain(pack, opts)
    assert verdicts, f"{domain} ships no task"
    broken = {v.task_id: v.problems for v in verdicts if v.problems}
    assert not broken, broken
    # the reference agents on each task's sealed tests (the sealing gate's in-process runs, which
    # equal `factforge eval`'s: tests/test_adversaries.py): only doing the job scores
    for v in verdicts:
        r = v.reference
        assert v.tests >= 10 and r["oracle"] == 1.0 and r["null"] == 0.0 and r["reciter"] == 0.0, (v.task_id, r)
        assert 0.0 < r["naive"] <= 0.10 and r["guesser"] <= 0.10, (v.task_id, r)


def _mock_domain(tmp_path, monkeypatch, select: str | None = None) -> Path:
    pack_dir = tmp_path / "domains" / "_mock"
    shutil.copytree(ROOT / "domains" / "_mock", pack_dir, ignore=shutil.ignore_patterns("__pycache__"))
    if select:
        for p in (pack_dir / "tasks").glob("*.toml"):
            p.write_text(p.read_text().replace("test_seed = 1\n", f'test_seed = 1\nselect = "{select}"\n', 1))
    monkeypatch.setenv("FACTFORGE_DOMAINS_DIR", str(tmp_path / "domains"))
    return pack_dir


def _drop_carriers_of(monkeypatch, fact_slug: str) -> None:
    """A corpus change: the planner stops stating one fact anywhere (its carriers and echoes go)."""
    from outputs.packs.evidence import EvidenceBuilder
    base = EvidenceBuilder.base

    def changed(self, profile, difficulty):
        plan = base(self, profile, difficulty)
        arts = [a.model_copy(update={"facts": [m for m in a.facts if fact_slug not in m.fact_id]})
                for a in plan.artifacts]
        return plan.model_copy(update={"artifacts": arts,
                                       "routes": [r for r in plan.routes if fact_slug not in r.fact_id]})
    monkeypatch.setattr(EvidenceBuilder, "base", changed)


def test_the_guard_passes_the_mock_tasks(tmp_path, monkeypatch, opts):
    from domains import get_pack
    from outputs.packs.guard import check_domain
    _mock_domain(tmp_path, monkeypatch)
    verdicts = check_domain(get_pack("_mock"), opts)
    assert [v.task_id for v in verdicts] == ["_mock-client-knows", "_mock-records-only"]
    assert all(not v.problems and v.stated > 0 for v in verdicts)


def test_a_corpus_change_that_breaks_pinned_learnability_is_caught(tmp_path, monkeypatch, opts):
    """The rentals rules leave the records: the pinned records-only task's rental tests are no
    longer learnable, and the guard names them."""
    from domains import get_pack
    from outputs.packs.guard import check_domain
    _mock_domain(tmp_path, monkeypatch)
    _drop_carriers_of(monkeypatch, ".rentals.")
    by = {v.task_id: v for v in check_domain(get_pack("_mock"), opts)}
    problems = by["_mock-records-only"].problems
    assert problems and all("neither in the kit nor known to the client" in p or "training" in p for p in problems)
    assert any("_mock.rentals." in p for p in problems), problems


def test_a_corpus_change_leaving_too_few_learnable_ids_is_caught(tmp_path, monkeypatch, opts):
    """Under select = "learnable" a lost fact is absorbed by replacing ids while enough
    simulations stay eligible; when too few do, the guard fails the task."""
    from domains import get_pack
    from outputs.packs.guard import check_domain
    _mock_domain(tmp_path, monkeypatch, select="learnable")
    assert not any(v.problems for v in check_domain(get_pack("_mock"), opts))
    for slug in (".late-returns.", ".rentals.", ".refunds."):
        _drop_carriers_of(monkeypatch, slug)
    by = {v.task_id: v for v in check_domain(get_pack("_mock"), opts)}
    assert any("eligible simulations" in p for p in by["_mock-records-only"].problems), by["_mock-records-only"]


def test_pack_check_command_exits_1_naming_the_task(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from outputs.packs.cli import app
    pack_dir = _mock_domain(tmp_path, monkeypatch)
    spec = pack_dir / "tasks" / "_mock-records-only.toml"
    spec.write_text(spec.read_text().replace("_mock.rent-2-bikes.635d0338d3", "_mock.rent-2-bikes.0000000000"))
    r = CliRunner().invoke(app, ["check", "--domain", "_mock", "--workspace", str(tmp_path / "ws")])
    assert r.exit_code == 1, r.output
    assert "cannot build _mock-records-only" in r.output and "_mock.rent-2-bikes.0000000000 does not resolve" in r.output
    assert "ok _mock-client-knows" in r.output
