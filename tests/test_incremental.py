"""Incremental builds: after a one-value edit (policy line and seed value), only the artifacts
that mention that fact are rendered and extracted again; every other file, speech
recordings included, comes from the cache."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.end_to_end


def _build(domains: Path, ws: Path, out: Path) -> tuple[int, int, Path]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    r = subprocess.run([sys.executable, "-m", "pipeline.cli", "build", "-d", "_mock", "--domains-dir", str(domains),
                        "--workspace", str(ws), "--out", str(out), "--seed", "0"],
                       capture_output=True, text=True, cwd=str(ROOT), env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    m = re.search(r"built _mock: (\S+)\s+\((\d+) files, (\d+) rendered and (\d+) extracted", r.stdout)
    assert m, r.stdout
    assert "rendered" in r.stderr and "extracted" in r.stderr, "progress lines on a non-terminal"
    return int(m.group(3)), int(m.group(4)), Path(m.group(1))


def _mentions(plan: dict, fact_id: str) -> set[str]:
    return {a["path"] for a in plan["artifacts"]
            if fact_id in [m["fact_id"] for m in a["facts"]] or fact_id in [d["fact_id"] for d in a["distractors"]]}


def test_one_value_edit_rebuilds_only_the_files_that_mention_it(tmp_path, mock_full_build):
    """From a copy of the workspace of the run's `_mock` build (seed 0, full profile): the
    same domain from another folder renders and extracts nothing; after the edit, only what
    mentions the edited fact."""
    domains = tmp_path / "domains"
    pack = domains / "_mock"
    shutil.copytree(ROOT / "domains" / "_mock", pack, ignore=shutil.ignore_patterns("__pycache__"))
    first, cache = mock_full_build
    ws, out = tmp_path / "ws", tmp_path / "out"
    shutil.copytree(cache.parent, ws, symlinks=True)
    rendered, extracted, b1 = _build(domains, ws, out)
    plan1 = json.loads((b1 / "plan.json").read_text())
    assert b1.name == first.name and rendered == extracted == 0

    for f in (pack / "policy.md", pack / "seed.py"):
        text = f.read_text(encoding="utf-8")
        f.write_text(text.replace("The security deposit is $50", "The security deposit is $55")
                     .replace('"deposit": 50', '"deposit": 55'), encoding="utf-8")
    rendered, extracted, b2 = _build(domains, ws, out)
    plan2 = json.loads((b2 / "plan.json").read_text())
    facts = json.loads((b2 / "facts.json").read_text())["facts"]
    deposit = next(f["id"] for f in facts if f["statement"].startswith("The security deposit is $55"))

    touched = _mentions(plan2, deposit)
    assert touched, "the edited fact is in the plan"
    others1 = {a["path"]: a for a in plan1["artifacts"] if a["path"] not in touched}
    others2 = {a["path"]: a for a in plan2["artifacts"] if a["path"] not in touched}
    assert others1 == others2, "the plan of artifacts not mentioning the fact is unchanged"
    assert rendered == len(touched), (rendered, sorted(touched))
    assert 0 < extracted <= rendered

    files1 = {f["path"]: f["sha256"] for f in json.loads((b1 / "manifest.json").read_text())["files"]}
    files2 = {f["path"]: f["sha256"] for f in json.loads((b2 / "manifest.json").read_text())["files"]}
    changed = {p for p in files2 if p.startswith("evidence/") and files1.get(p) != files2[p]}
    assert changed <= touched and changed
    speech = {p for p in files2 if p.endswith((".wav", ".mp4"))}
    assert speech - touched, "a recording that does not mention the fact exists and was not re-recognised"
