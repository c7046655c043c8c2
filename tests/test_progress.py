"""Progress during a build and the preflight before it: events written by the steps are
shown per domain (counts, cache hits, ETA, done) as plain lines on a non-terminal; a missing
external tool is reported in one line before any work starts."""
from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline.progress import ProgressLog, ProgressView
from transforms.pool import Tally

ROOT = Path(__file__).resolve().parents[1]


def test_events_become_plain_lines_with_counts_eta_and_done(tmp_path):
    path = tmp_path / "progress.jsonl"
    log = ProgressLog(str(path), "airline")
    log.plan({"txt": 6, "wav": 2})
    render = log.stage("render", "conversations")
    t = Tally(total=6, cost_total=0.12)
    t.add(0.02, cached=True)
    render(t)
    for _ in range(5):
        t.add(0.02)
    render(t)
    extract = ProgressLog(str(path), "airline").stage("extract", "all")  # each step has its own log
    x = Tally(total=8, cost_total=2.03)
    x.add(1.0)
    extract(x)

    out = io.StringIO()
    view = ProgressView(path, ["airline"], stream=out, tty=False)
    view.poll()
    st = view.states["airline"]
    assert st.stage_counts("render") == (6, 1)
    assert st.stage_counts("extract") == (1, 0)
    assert st.eta() is None or st.eta() >= 0
    view.refresh()
    ProgressLog(str(path), "airline").finished()
    view.refresh()
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("airline: rendered 6/8 (1 cached), extracted 1/8 (0 cached), ETA")
    assert lines[-1] == "airline: rendered 6/8 (1 cached), extracted 1/8 (0 cached), done"


def test_no_progress_file_means_no_events(tmp_path):
    log = ProgressLog(None, "airline")
    log.plan({"txt": 1})
    log.stage("render", "documents")(Tally(total=1, cost_total=0.1))
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_missing_tools_are_reported_in_one_line_before_any_work(tmp_path):
    bare = tmp_path / "bin"
    bare.mkdir()
    ws = tmp_path / "ws"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PATH": str(bare), "FACTFORGE_WORKSPACE": str(ws)}
    r = subprocess.run([sys.executable, "-m", "pipeline.cli", "build", "-d", "_mock"], capture_output=True,
                       text=True, cwd=str(ROOT), env=env)
    assert r.returncode == 1
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, r.stderr
    assert "espeak-ng is missing" in lines[0] and "tesseract is missing" in lines[0]
    assert "Traceback" not in r.stderr
    assert not (ws / "render").exists() and not (ws / "bundles").exists()
