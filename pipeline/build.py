"""In-process build: materialize the asset graph for each requested partition, no daemon.

Used by `factforge build`. Dagster's own logs are kept at ERROR; failures of blocking checks
are turned into a `BuildFailed` naming the check and its problems (for recoverability: the
facts and the artifacts that were meant to carry them).
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

import dagster as dg

from domains.sandbox import time_limit
from facts.errors import FactforgeError
from outputs.bundle import remove_stale_temp

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
        from domains.variants import resolve  # noqa: PLC0415
        resolve(key, settings.domains_dirs)  # a broken pack or variant says what is wrong with it
        raise FactforgeError(f"unknown domain {key!r}; available: {', '.join(A.domains_partitions.get_partition_keys())}")
    remove_stale_temp(workspace.out_dir)  # what a killed build left behind
    storage = Path(workspace.root) / "dagster_storage"
    resources = {"settings": settings, "workspace": workspace, "writer": writer or WriterResource(),
                 "io_manager": dg.FilesystemIOManager(base_dir=str(storage))}
    with time_limit(settings.seed_timeout):  # every call into the pack's code (steps run in this thread)
        result = dg.materialize([*A.ALL_ASSETS, *A.ALL_CHECKS], partition_key=key, resources=resources,
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
                raise BuildFailed(f"{_failure_line(ev.step_failure_data.error)} (step {ev.step_key} of {key})")
        raise BuildFailed(f"build of {key} failed")
    mats = result.asset_materializations_for_node("task_bundle")
    md = {k: _meta_value(v) for k, v in mats[-1].metadata.items()} if mats else {}
    return BuildResult(key=key, bundle=Path(md["path"]) if "path" in md else None,
                       version=md.get("bundle_version", ""), metadata=md)


def _failure_line(err) -> str:
    """One line for a failed step: a FactforgeError's own message (file:line: problem), any
    other exception as `Type: first line of its message`."""
    cause = err
    while cause is not None and cause.cause is not None:
        cause = cause.cause
    info = cause or err
    if info is None:
        return "unknown error"
    text = info.message.strip()
    prefix = re.match(r"^[\w.]+: ", text)
    if prefix and prefix.group(0).rstrip(": ").split(".")[-1] == info.cls_name:
        text = text[prefix.end():]
    first = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    return first if info.cls_name in _user_error_names() else f"{info.cls_name}: {first}"


def _user_error_names() -> set[str]:
    names, todo = set(), [FactforgeError]
    while todo:
        c = todo.pop()
        names.add(c.__name__)
        todo += c.__subclasses__()
    return names


def configure_domains_dirs(dirs: list[str]) -> None:
    """--domains-dir must be known before the partitions are discovered (module import)."""
    if dirs:
        prev = os.environ.get("FACTFORGE_DOMAINS_DIR", "")
        os.environ["FACTFORGE_DOMAINS_DIR"] = os.pathsep.join([*map(str, dirs), *([prev] if prev else [])])
