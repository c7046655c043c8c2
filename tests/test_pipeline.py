"""End to end on the _mock domain through the real CLI and Dagster graph: build, verify,
tamper detection, determinism, check failures."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run_cli(*args: str, env_extra: dict | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.update(env_extra or {})
    return subprocess.run([sys.executable, "-m", "pipeline.cli", *args], capture_output=True, text=True,
                          cwd=cwd or ROOT, env=env, timeout=900)


def bundle_dirs(out: Path, domain: str) -> list[Path]:
    return sorted(p for p in (out / "bundles" / domain).iterdir() if p.is_dir() and not p.name.startswith("."))


@pytest.fixture(scope="module")
def built(mock_full_build):
    """The `_mock` bundle the real CLI built (seed 0, full profile), shared by the run: read only."""
    bundle, _cache = mock_full_build
    return bundle


def test_build_and_verify(built):
    b = built
    man = json.loads((b / "manifest.json").read_text())
    assert man["domain"] == "_mock" and man["seed"] == 0
    assert man["bundle_version"].startswith("0.1.0+") and man["bundle_version"] == b.name
    paths = {f["path"] for f in man["files"]}
    assert {"facts.json", "plan.json", "reports/recoverability.json"} <= paths
    facts = json.loads((b / "facts.json").read_text())["facts"]
    assert set(man["fact_index"]) == {f["id"] for f in facts}, "every fact carried by some file"
    rep = json.loads((b / "reports/recoverability.json").read_text())
    assert rep["summary"]["facts_total"] == rep["summary"]["facts_recovered"] == len(facts)
    r = run_cli("verify", str(b))
    assert r.returncode == 0, r.stderr


def test_verify_detects_one_changed_byte(built, tmp_path):
    import shutil
    b = built
    copy = tmp_path / b.name
    shutil.copytree(b, copy)
    man = json.loads((copy / "manifest.json").read_text())
    victim = next(f["path"] for f in man["files"] if f["path"].startswith("evidence/"))
    data = bytearray((copy / victim).read_bytes())
    data[len(data) // 2] ^= 0x01
    (copy / victim).write_bytes(bytes(data))
    r = run_cli("verify", str(copy))
    assert r.returncode != 0
    assert victim in r.stderr
    (copy / "extra.txt").write_text("x")
    (copy / victim).unlink()
    r = run_cli("verify", str(copy))
    assert "missing: " + victim in r.stderr and "extra: extra.txt" in r.stderr


def test_report_prints_the_shallow_and_the_deep_reader(built):
    """The lexical retrieval reader of `reports/difficulty.json`: every `_mock` value fact is
    answered right from the plain policy; the records mislead it on some (old figures,
    rivals), and `factforge report` prints both."""
    rep = json.loads((built / "reports" / "difficulty.json").read_text())
    s = rep["summary"]
    assert s["shallow_reader_policy_accuracy"] == 1.0
    assert 0.0 <= s["shallow_reader_accuracy"] < 1.0 and s["shallow_majority_policy_accuracy"] == 1.0
    # the careful reader (every carrier through the matcher, every rival resolved): all of them
    assert s["deep_reader_accuracy"] == 1.0 and 0.0 <= s["stale_value_outvotes_share"] <= 1.0
    answered = [f for f in rep["facts"].values() if "shallow_correct" in f]
    assert len(answered) == s["value_facts"] and s["shallow_reader_accuracy"] == round(
        sum(f["shallow_correct"] for f in answered) / len(answered), 4)
    assert s["shallow_majority_accuracy"] == round(sum(f["shallow_majority_correct"] for f in answered) / len(answered), 4)
    r = run_cli("report", str(built))
    assert r.returncode == 0, r.stderr
    assert "shallow reader right (value facts, bundle)" in r.stdout
    assert "shallow reader right (value facts, policy alone)" in r.stdout and "100.0%" in r.stdout
    assert "deep reader right (value facts)" in r.stdout


@pytest.mark.end_to_end
def test_rebuild_same_seed_is_byte_identical(built, mock_full_rebuild):
    b = built
    # the same seed again in a fresh workspace: nothing cached, everything rendered again (the
    # run's one-worker rebuild, which tests/test_engines.py also compares with a Dask build)
    assert mock_full_rebuild["rendered"] == mock_full_rebuild["extracted"] > 20
    b2 = mock_full_rebuild["bundle"]
    assert b2.name == b.name
    for f in json.loads((b / "manifest.json").read_text())["files"]:
        assert (b / f["path"]).read_bytes() == (b2 / f["path"]).read_bytes(), f["path"]


@pytest.mark.end_to_end
def test_an_in_process_build_leaves_sigterm_as_it_found_it(mock_full_rebuild):
    """Dagster's run points SIGTERM at SIGINT's handler and leaves it there: in a background
    job (SIGINT ignored) every program started after a build would ignore SIGTERM."""
    before, after = mock_full_rebuild["sigterm"]
    assert after == before


@pytest.mark.end_to_end
def test_different_seed_gives_different_bundle(mock_text_build_copy):
    """Seeds 0 and 8 in one workspace (text only: what a seed changes shows in every kind's
    text; the media kinds' builds are the run's seed-0 builds above): another bundle, whose
    manifest names its seed, and records that say other things. Seed 0 is the run's text-only
    build (`mock_text_build`); seed 8 is built on in a copy of its workspace and output folder."""
    _, out, ws = mock_text_build_copy
    r = run_cli("build", "--domain", "_mock", "--out", str(out), "--workspace", str(ws), "--seed", "8",
                "--profile", "text-only")
    assert r.returncode == 0, r.stderr
    seeds = {json.loads((d / "manifest.json").read_text())["seed"]: d for d in bundle_dirs(out, "_mock")}
    assert sorted(seeds) == [0, 8]
    zero, eight = seeds[0], seeds[8]
    files = {f["path"]: f["sha256"] for f in json.loads((zero / "manifest.json").read_text())["files"]}
    other = {f["path"]: f["sha256"] for f in json.loads((eight / "manifest.json").read_text())["files"]}
    shared = [p for p in files if p.startswith("evidence/") and p in other]
    assert shared and sum(files[p] != other[p] for p in shared) > len(shared) / 2, "the records hardly changed"


def test_unknown_domain_is_one_clear_line(tmp_path):
    r = run_cli("build", "--domain", "nope", "--out", str(tmp_path), "--workspace", str(tmp_path))
    assert r.returncode == 1
    assert "unknown domain 'nope'" in r.stderr and "Traceback" not in r.stderr
