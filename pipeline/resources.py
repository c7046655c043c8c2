"""Resources: where files go, which writer words them, build settings. Offline by default.

`Workspace` is the one configured root for every generated file (cache, Dagster storage,
bundles); it defaults to $FACTFORGE_WORKSPACE or ~/.factforge, never the source tree.
`WriterResource` picks the writer: the built-in deterministic one (default) or an LLM
through litellm when FACTFORGE_WRITER=llm (model from FACTFORGE_LLM_MODEL).
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

import dagster as dg


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
        from transforms.writers import make_writer  # noqa: PLC0415
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
    seed_timeout: Optional[float] = None  # seconds for the pack's seed.py (None: $FACTFORGE_SEED_TIMEOUT or 120)
