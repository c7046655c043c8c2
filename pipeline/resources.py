"""Resources: where files go, which writer words them, build settings, how the work runs.
Offline by default.

`Workspace` is the one configured root for every generated file (cache, Dagster storage,
bundles); it defaults to $FACTFORGE_WORKSPACE or ~/.factforge, never the source tree.
`WriterResource` picks the writer: the built-in deterministic one (default) or an LLM
through litellm when FACTFORGE_WRITER=llm (model from FACTFORGE_LLM_MODEL). `Execution`
says where the per-artifact units of work run (a local process pool of `workers`, or the
Dask cluster) and where progress events go; it never changes what is built.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

import dagster as dg

from transforms.pool import get_pool
from transforms.writers import make_writer

from .progress import ProgressLog


def default_workspace() -> str:
    return os.environ.get("FACTFORGE_WORKSPACE", str(Path.home() / ".factforge"))


class Workspace(dg.ConfigurableResource):
    root: str = default_workspace()
    out: Optional[str] = None  # where bundles go (defaults to root)

    @property
    def cache_dir(self) -> Path:
        return Path(self.root) / "cache"

    @property
    def out_dir(self) -> Path:
        return Path(self.out or self.root)

    @property
    def audit_db(self) -> Path:
        return Path(os.environ.get("FACTFORGE_AUDIT_DB", str(Path(self.root) / "audit.sqlite")))


class WriterResource(dg.ConfigurableResource):
    name: str = os.environ.get("FACTFORGE_WRITER", "builtin")
    model: Optional[str] = os.environ.get("FACTFORGE_LLM_MODEL")
    mock_response: Optional[str] = None  # tests: litellm's mock response, never a live call

    def make(self, pack):
        kw = {}
        if self.name == "llm":
            kw = {"model": self.model, "mock_response": self.mock_response}
        return make_writer(pack, self.name, **kw)


class BuildSettings(dg.ConfigurableResource):
    seed: int = 0
    profile: str = "full"
    carriers_per_fact: int = 1
    noise_ratio: float = 0.5
    decomposer: str = "builtin"
    domains_dirs: list[str] = []
    seed_timeout: Optional[float] = None  # seconds per call into the pack's Python (None: $FACTFORGE_SEED_TIMEOUT or 120)


class Execution(dg.ConfigurableResource):
    engine: str = "local"              # "local": a process pool here; "dask": the Dask cluster
    workers: int = 0                   # local pool size (0: every core; 1: no pool, all inline)
    dask_address: Optional[str] = None  # scheduler to submit units to when not on a Dask worker
    progress_file: Optional[str] = None  # JSON lines for the CLI's progress display

    def pool(self):
        return get_pool(self.engine, self.workers, self.dask_address)

    def progress(self, key: str):
        return ProgressLog(self.progress_file, key)
