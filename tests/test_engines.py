"""One build, three ways: inline (1 worker), a local process pool (the CLI on every core: the
run's shared `_mock` builds) and a Dask cluster of several worker processes sharing one
workspace give byte-identical bundles.

Inline and pooled are compared on the full profile (every kind, audio and video included):
the same render and extraction units in this process and in pool worker processes. The Dask
cluster is compared with the pooled build on the text-only profile: what it changes (steps
run by Dagster's Dask executor in other processes, units handed to Dask workers, the context
shared through the workspace) does not depend on the kind a unit renders, and a unit runs the
same function in a Dask worker as in a pool worker."""
from __future__ import annotations

import json
import re

import pytest

from outputs.bundle import verify_bundle
from pipeline.build import build_partition, dask_cluster
from pipeline.resources import BuildSettings, Execution, Workspace

pytestmark = pytest.mark.end_to_end


def test_one_worker_and_a_pool_build_the_same_bundle(mock_full_build, mock_full_rebuild):
    pooled, _ = mock_full_build  # `factforge build --domain _mock --seed 0`: a process pool on every core
    one = mock_full_rebuild      # the same build by one inline worker, in a fresh workspace
    assert one["rendered"] == one["extracted"] > 20  # nothing cached
    assert one["version"] == pooled.name
    assert json.loads((pooled / "manifest.json").read_text())["content_hash"] == one["metadata"]["content_hash"]
    assert (one["bundle"] / "manifest.json").read_bytes() == (pooled / "manifest.json").read_bytes()
    for bundle in (one["bundle"], pooled):
        assert verify_bundle(bundle) == []
    man = json.loads((one["bundle"] / "manifest.json").read_text())
    assert {f["path"].rsplit(".", 1)[-1] for f in man["files"]} >= {"wav", "mp4", "png", "pdf", "eml"}


def test_a_dask_cluster_builds_the_same_bundle(tmp_path, mock_text_build):
    pooled, _, stdout = mock_text_build  # `factforge build --domain _mock --seed 0 --profile text-only`
    with dask_cluster(2) as address:
        ws = Workspace(root=str(tmp_path / "dask"))
        dask = build_partition("_mock", ws, BuildSettings(seed=0, profile="text-only"),
                               execution=Execution(engine="dask", dask_address=address))
    m = re.search(r"\((\d+) files, (\d+) rendered and (\d+) extracted", stdout)
    assert m, stdout
    assert int(m.group(2)) == dask.rendered == int(m.group(3)) == dask.extracted > 20  # nothing cached
    assert dask.version == pooled.name
    assert json.loads((pooled / "manifest.json").read_text())["content_hash"] == dask.metadata["content_hash"]
    assert (dask.bundle / "manifest.json").read_bytes() == (pooled / "manifest.json").read_bytes()
    assert verify_bundle(dask.bundle) == []
    # nothing left running: Dagster's compute-log capture once left a `tail -F` per step log behind
    import subprocess

    left = subprocess.run(["pgrep", "-f", f"tail -F .*{tmp_path}"], capture_output=True, text=True).stdout.split()
    assert left == [], left


def test_two_domains_side_by_side_build_what_they_build_one_after_the_other(tmp_path, capfd, mock_text_build):
    """`build_many` runs two partitions at once on one shared pool (threads of this process):
    each bundle is byte-identical to the one built alone, results come back in key order and
    every built partition is reported once; nothing is left for the garbage collector to
    complain about on stderr (a Dagster instance's SQLite closed from another thread). `_mock`
    built alone is the run's text-only build (`mock_text_build`, seed 0)."""
    import gc

    from pipeline.build import build_many

    keys = ["_mock", "_mock@spokewell"]
    settings = BuildSettings(seed=0, profile="text-only")  # 103 files a bundle; media across engines: the test above
    mock, _, stdout = mock_text_build
    m = re.search(r"\((\d+) files, (\d+) rendered and (\d+) extracted", stdout)
    assert m, stdout
    (spokewell,) = build_many(keys[1:], Workspace(root=str(tmp_path / "alone")), settings, Execution(workers=2),
                              at_once=1)
    alone = [(int(m.group(2)), mock.name, json.loads((mock / "manifest.json").read_text())["content_hash"]),
             (spokewell.rendered, spokewell.version, spokewell.metadata["content_hash"])]
    seen = []
    both = build_many(keys, Workspace(root=str(tmp_path / "both")), settings, Execution(workers=2), at_once=2,
                      on_built=lambda res, secs: seen.append(res.key))
    assert [r.key for r in both] == keys and sorted(seen) == sorted(keys)
    for (rendered, version, content_hash), b in zip(alone, both):
        assert rendered == b.rendered > 20
        assert version == b.version and content_hash == b.metadata["content_hash"]
        assert verify_bundle(b.bundle) == []
    gc.collect()
    assert "Traceback" not in capfd.readouterr().err


def test_side_by_side_builds_stop_starting_after_a_failure(tmp_path, monkeypatch):
    """A failed partition stops the others from starting; the failure of the earliest key is
    raised."""
    from pipeline import build as B

    import threading

    calls = []
    both_started = threading.Barrier(2, timeout=30)

    def fake(key, workspace, settings, execution=None):
        calls.append(key)
        both_started.wait()  # two builds are running when the first fails
        raise B.BuildFailed(f"check x failed on y [{key}]")

    monkeypatch.setattr(B, "build_partition", fake)
    with pytest.raises(B.BuildFailed, match=r"\[_mock\]"):
        B.build_many(["_mock", "_mock@spokewell", "airline"], Workspace(root=str(tmp_path)), BuildSettings(),
                     Execution(workers=2), at_once=2)
    # largest pack first (airline), then _mock; _mock@spokewell never started: both threads had
    # failed before taking it; the earliest key in the given order that failed is raised
    assert calls == ["airline", "_mock"] or calls == ["_mock", "airline"]


def test_pool_workers_end_when_their_owner_is_gone(tmp_path):
    """A process that left without shutting its pool down (killed, or through `os._exit`, as
    pytest-xdist's workers leave) left its pool workers waiting for work forever, and with
    them the forkserver and the sandbox processes of the domain code they ran: orphans after
    every CI run. A worker ends within seconds of its owner."""
    import os
    import subprocess
    import sys
    import time
    from pathlib import Path

    script = ("import os, sys\n"
              "from transforms.pool import ProcessPool\n"
              "pool = ProcessPool(1)\n"
              "print(pool.submit(os.getpid).result(), flush=True)\n"
              "os._exit(0)\n")
    root = Path(__file__).resolve().parents[1]
    log = tmp_path / "worker.txt"  # a file, not a pipe: the pool's processes inherit the owner's stdout
    with open(log, "w") as f:
        subprocess.run([sys.executable, "-c", script], cwd=root, stdout=f, stderr=subprocess.DEVNULL, timeout=120)
    worker = int(log.read_text().strip())
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and Path(f"/proc/{worker}").exists():
        time.sleep(0.2)
    assert not Path(f"/proc/{worker}").exists(), f"pool worker {worker} outlived its owner"
    assert os.getpid() != worker
