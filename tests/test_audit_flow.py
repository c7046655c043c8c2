"""Human audit round trip through the CLI: a built bundle is enqueued, three reviewers reject one
artifact, the next build regenerates only that artifact (new seed) and it is re-queued."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def cli(*args, env):
    r = subprocess.run([sys.executable, "-m", "pipeline.cli", *args], capture_output=True, text=True,
                       cwd=ROOT, env=env, timeout=900)
    assert r.returncode == 0, f"{args}: {r.stdout}{r.stderr}"
    return r.stdout


@pytest.mark.end_to_end
def test_rejected_artifact_is_regenerated_and_requeued(tmp_path, mock_text_build_copy):
    """The first build is the run's text-only `_mock` build (seed 0), copied here with its
    workspace; the build after the rejections runs through the CLI."""
    b1, out, ws = mock_text_build_copy
    env = dict(os.environ, FACTFORGE_WORKSPACE=str(ws), FACTFORGE_AUDIT_DB=str(tmp_path / "audit.sqlite"))
    build = ["build", "--domain", "_mock", "--profile", "text-only", "--out", str(out), "--seed", "0"]
    assert sorted((out / "bundles" / "_mock").iterdir()) == [b1]
    cli("audit", "enqueue", str(b1), env=env)

    item = json.loads(cli("audit", "next", "--reviewer", "ana", "--json", env=env))
    target = item["artifact_id"]
    for who in ("ana", "ben", "chen"):
        if who != "ana":
            nxt = json.loads(cli("audit", "next", "--reviewer", who, "--json", env=env))
            assert nxt["id"] == item["id"]
        args = ["audit", "submit", str(item["id"]), "--reviewer", who, "--not-realistic", "--comment", "reads robotic"]
        for f in item["facts"]:
            args += ["--fact", f"{f['id']}=wrong_value"]
        cli(*args, env=env)
    status = json.loads(cli("audit", "status", "--json", env=env))
    assert status["rejected"] == 1

    cli(*build, env=env)
    bundles = sorted(p for p in (out / "bundles" / "_mock").iterdir())
    assert len(bundles) == 2
    b2 = next(p for p in bundles if p != b1)
    m1 = {f["artifact_id"]: f for f in json.loads((b1 / "manifest.json").read_text())["files"] if f["artifact_id"]}
    m2 = {f["artifact_id"]: f for f in json.loads((b2 / "manifest.json").read_text())["files"] if f["artifact_id"]}
    changed = {a for a in m1 if m1[a]["sha256"] != m2[a]["sha256"]}
    assert changed == {target}, "only the rejected artifact is regenerated"

    out = cli("audit", "enqueue", str(b2), env=env)
    cli("audit", "export", "--out", str(tmp_path / "x.json"), env=env)
    export = json.loads((tmp_path / "x.json").read_text())
    rounds = {(e["artifact_id"], e["round"]) for e in export}
    assert (target, 1) in rounds, out
