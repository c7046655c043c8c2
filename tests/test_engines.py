"""One build, three ways: inline (1 worker), a local process pool (2 workers) and a Dask
cluster of several worker processes sharing one workspace give byte-identical bundles."""
from __future__ import annotations

import json

import pytest

from outputs.bundle import verify_bundle
from pipeline.build import build_partition, dask_cluster
from pipeline.resources import BuildSettings, Execution, Workspace

pytestmark = pytest.mark.slow


def _build(tmp_path, name, execution):
    ws = Workspace(root=str(tmp_path / name))
    return build_partition("_mock", ws, BuildSettings(seed=3, profile="full"), execution=execution)


def test_one_worker_two_workers_and_dask_build_the_same_bundle(tmp_path):
    one = _build(tmp_path, "one", Execution(workers=1))
    two = _build(tmp_path, "two", Execution(workers=2))
    with dask_cluster(3) as address:
        dask = _build(tmp_path, "dask", Execution(engine="dask", dask_address=address))
    assert one.rendered == two.rendered == dask.rendered == one.extracted == dask.extracted > 20  # nothing cached
    assert one.version == two.version == dask.version
    assert one.metadata["content_hash"] == two.metadata["content_hash"] == dask.metadata["content_hash"]
    for res in (one, two, dask):
        assert verify_bundle(res.bundle) == []
    man = json.loads((dask.bundle / "manifest.json").read_text())
    assert {f["path"].rsplit(".", 1)[-1] for f in man["files"]} >= {"wav", "mp4", "png", "pdf", "eml"}
