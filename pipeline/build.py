"""In-process build: materialize the asset graph for each requested partition, no daemon.

Used by `factforge build`. Dagster's own logs are kept at ERROR; failures of blocking checks
are turned into a `BuildFailed` naming the check and its problems (for recoverability: the
facts and the artifacts that were meant to carry them).
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

import dagster as dg

from facts.errors import FactforgeError

from .resources import BuildSettings, Workspace, WriterResource


class BuildFailed(FactforgeError):
    pass


@dataclass
class BuildResult:
    key: str
    bundle: Optional[Path]
    version: str
    metadata: dict = field(default_factory=dict)


def _meta_value(v):
    return getattr(v, "value", getattr(v, "data", getattr(v, "text", v)))


def build_partition(key: str, workspace: Workspace, settings: BuildSettings,
                    writer: Optional[WriterResource] = None,
                    on_event: Optional[Callable[[str], None]] = None) -> BuildResult:
    from . import assets as A  # noqa: PLC0415  (partitions are discovered at import)

    if key not in A.domains_partitions.get_partition_keys():
        raise FactforgeError(f"unknown domain {key!r}; available: {', '.join(A.domains_partitions.get_partition_keys())}")
    storage = Path(workspace.root) / "dagster_storage"
    resources = {"settings": settings, "workspace": workspace, "writer": writer or WriterResource(),
                 "io_manager": dg.FilesystemIOManager(base_dir=str(storage))}
    result = dg.materialize([*A.ALL_ASSETS, *A.ALL_CHECKS], selection=A.BUNDLE_ASSETS, partition_key=key,
                            resources=resources,
                            instance=dg.DagsterInstance.ephemeral(), raise_on_error=False,
                            run_config={"loggers": {"console": {"config": {"log_level": "CRITICAL"}}}})
    failed_checks = [e for e in result.get_asset_check_evaluations() if not e.passed]
    if failed_checks:
        lines = []
        for e in failed_checks:
            md = {k: _meta_value(v) for k, v in (e.metadata or {}).items()}
            probs = md.get("problems") or []
            lines.append(f"check {e.check_name} failed on {e.asset_key.to_user_string()} [{key}]")
            lines += [f"  - {p}" for p in list(probs)[:40]]
        raise BuildFailed("\n".join(lines))
    if not result.success:
        for ev in result.all_events:
            if ev.is_failure and ev.step_failure_data is not None:
                err = ev.step_failure_data.error
                cause = err
                while cause is not None and cause.cause is not None:
                    cause = cause.cause
                msg = (cause or err).message.strip().splitlines()[-1] if (cause or err) else "unknown error"
                raise BuildFailed(f"step {ev.step_key} failed [{key}]: {msg}")
        raise BuildFailed(f"build of {key} failed")
    mats = result.asset_materializations_for_node("task_bundle")
    md = {k: _meta_value(v) for k, v in mats[-1].metadata.items()} if mats else {}
    return BuildResult(key=key, bundle=Path(md["path"]) if "path" in md else None,
                       version=md.get("bundle_version", ""), metadata=md)


def configure_domains_dirs(dirs: list[str]) -> None:
    """--domains-dir must be known before the partitions are discovered (module import)."""
    if dirs:
        prev = os.environ.get("FACTFORGE_DOMAINS_DIR", "")
        os.environ["FACTFORGE_DOMAINS_DIR"] = os.pathsep.join([*map(str, dirs), *([prev] if prev else [])])
