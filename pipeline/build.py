"""Build a partition: materialize the asset graph, in this process or on a Dask cluster.

Used by `factforge build`. Two engines run the same asset graph and give the same bytes:

- **local** (default): `dg.materialize` runs the steps in this process, one after the other;
  each family step and the extraction step hand their per-artifact units to a pool of
  `workers` processes (`transforms.pool`). No daemon, no persistent Dagster instance.
- **dask**: the job runs with `dagster_dask.dask_executor` against a Dask scheduler, either
  one given by address (a cluster of several machines) or a `LocalCluster` of `workers`
  processes started here. Steps run on Dask workers; their units are submitted to the same
  cluster. This needs what every out-of-process Dagster executor needs: a persistent
  instance (SQLite under `<workspace>/dagster_home`, or $DAGSTER_HOME) and outputs and
  caches on storage every worker reads (the workspace; see the README).

Dagster's own logs are kept at CRITICAL; failures of blocking checks are turned into a
`BuildFailed` naming the check and its problems (for recoverability: the facts and the
artifacts that were meant to carry them).
"""
from __future__ import annotations

import os
import re
import signal
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator, Optional

import dagster as dg

from domains.sandbox import time_limit
from domains.variants import resolve
from facts.errors import FactforgeError
from outputs.bundle import remove_stale_temp
from transforms import registry
from transforms.fingerprint import missing_tools, warm
from transforms.planner import PROFILES
from transforms.pool import cores
from transforms.registry import FAMILIES

from .resources import BuildSettings, Execution, Workspace, WriterResource


class BuildFailed(FactforgeError):
    pass


@dataclass
class BuildResult:
    key: str
    bundle: Optional[Path]
    version: str
    metadata: dict = field(default_factory=dict)
    rendered: int = 0   # files rendered in this build (the rest came from the cache)
    extracted: int = 0  # files extracted in this build
    revoiced: int = 0   # recorded lines re-voiced in this build because the recogniser misheard them


def _meta_value(v):
    return getattr(v, "value", getattr(v, "data", getattr(v, "text", v)))


_QUIET = {"loggers": {"console": {"config": {"log_level": "CRITICAL"}}}}


def _check_key(key: str, domains_dirs: list[str]) -> None:
    from . import assets as A  # noqa: PLC0415  (partitions are discovered at import)

    if key not in A.domains_partitions.get_partition_keys():
        resolve(key, domains_dirs)  # a broken pack or variant says what is wrong with it
        raise FactforgeError(f"unknown domain {key!r}; available: {', '.join(A.domains_partitions.get_partition_keys())}")


@contextmanager
def _sigterm_kept() -> Iterator[None]:
    """SIGTERM as it was before the run: Dagster's run sets it to whatever SIGINT does and leaves
    it so. In a job started in the background, where SIGINT is ignored, SIGTERM would then be
    ignored by this process and by every program it starts afterwards."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = signal.getsignal(signal.SIGTERM)
    try:
        yield
    finally:
        if before is not None:  # None: a handler not set from Python, which Python cannot restore
            signal.signal(signal.SIGTERM, before)


def build_partition(key: str, workspace: Workspace, settings: BuildSettings,
                    writer: Optional[WriterResource] = None, execution: Optional[Execution] = None) -> BuildResult:
    """Build one partition (a domain or domain@variant) and return its bundle."""
    from . import assets as A  # noqa: PLC0415  (deferred: Dagster's assets, only when a build runs)

    _check_key(key, settings.domains_dirs)
    warm()  # every code fingerprint's parse, here, before any step's thread runs
    execution = execution or Execution()
    remove_stale_temp(workspace.out_dir)  # what a killed build left behind
    storage = str(Path(workspace.root) / "dagster_storage")
    writer = writer or WriterResource()
    if execution.engine == "dask":
        with _sigterm_kept(), _dask_run(key, workspace, settings, writer, execution, storage) as result:
            return _outcome(key, result)
    resources = {"settings": settings, "workspace": workspace, "writer": writer, "execution": execution,
                 "io_manager": dg.FilesystemIOManager(base_dir=storage)}
    # The instance is disposed in the thread that made it: its in-memory SQLite connections
    # must not be closed by the garbage collector in another thread (side-by-side builds).
    with _sigterm_kept(), time_limit(settings.seed_timeout), dg.DagsterInstance.ephemeral() as instance:
        result = dg.materialize([*A.ALL_ASSETS, *A.ALL_CHECKS], selection=A.BUNDLE_ASSETS, partition_key=key,
                                resources=resources, instance=instance, raise_on_error=False, run_config=_QUIET)
        return _outcome(key, result)


def _outcome(key: str, result) -> BuildResult:
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
                raise BuildFailed(f"{failure_line(ev.step_failure_data.error)} (step {ev.step_key} of {key})")
        raise BuildFailed(f"build of {key} failed")

    def meta(node: str) -> dict:
        mats = result.asset_materializations_for_node(node)
        return {k: _meta_value(v) for k, v in mats[-1].metadata.items()} if mats else {}

    md = meta("task_bundle")
    fams = [meta(f) for f in FAMILIES]
    ex = meta("extractions")
    return BuildResult(key=key, bundle=Path(md["path"]) if "path" in md else None,
                       version=md.get("bundle_version", ""), metadata=md,
                       rendered=sum(int(m.get("files", 0)) - int(m.get("cached", 0)) for m in fams),
                       extracted=int(ex.get("files", 0)) - int(ex.get("cached", 0)),
                       revoiced=sum(int(m.get("revoiced_lines", 0)) for m in fams))


# --- several partitions: side by side on one pool ------------------------------------------
def build_many(keys: list[str], workspace: Workspace, settings: BuildSettings, execution: Execution,
               at_once: int = 0, on_built: Optional[Callable[[BuildResult, float], None]] = None) -> list[BuildResult]:
    """Build every partition of `keys`; return their results in `keys` order.

    Why side by side: a partition's build alternates between steps whose units fill the pool
    (rendering, extraction, audits) and steps that run in this process alone (planning, the
    held-out test suite, matching facts, writing the bundle), when all but one core idle; the
    last, longest units of a step idle cores too. Two partitions built at once (threads of
    this process, one shared pool) fill those gaps with the other's work. `at_once` 0 means
    2 when the local pool has two or more workers, else 1 (an inline pool runs renderers in
    the calling thread, where one at a time is the rule; the Dask engine schedules its own
    steps). The largest packs start first, so the longest build does not start last.
    Bytes never depend on this: every unit is a pure function of its inputs and results are
    put back in input order (`transforms.pool`).

    On the first failure no further partition is started; those already running finish
    (their bundles are written whole or not at all), then the failure of the earliest key
    in `keys` is raised."""
    if not at_once:
        at_once = 2 if execution.engine == "local" and (execution.workers or cores()) > 1 else 1
    at_once = max(1, min(at_once, len(keys)))
    results: dict[str, BuildResult] = {}
    if at_once == 1:
        for key in keys:
            t0 = time.perf_counter()
            results[key] = build_partition(key, workspace, settings, execution=execution)
            if on_built:
                on_built(results[key], time.perf_counter() - t0)
        return [results[k] for k in keys]
    order = sorted(keys, key=lambda k: (-_pack_size(k, settings.domains_dirs), keys.index(k)))
    failed = threading.Event()

    def one(key: str) -> tuple[BuildResult, float]:
        if failed.is_set():
            raise _Skipped(key)
        t0 = time.perf_counter()
        try:
            return build_partition(key, workspace, settings, execution=execution), time.perf_counter() - t0
        except BaseException:
            failed.set()
            raise

    errors: dict[str, BaseException] = {}
    with ThreadPoolExecutor(max_workers=at_once, thread_name_prefix="factforge-build") as ex:
        futures = {ex.submit(one, k): k for k in order}
        for fut in as_completed(futures):
            try:
                res, secs = fut.result()
            except _Skipped:
                continue
            except BaseException as e:  # noqa: BLE001  (raised below, after the running builds end)
                errors[futures[fut]] = e
                continue
            results[futures[fut]] = res
            if on_built:
                on_built(res, secs)
    if errors:
        raise errors[min(errors, key=keys.index)]
    return [results[k] for k in keys]


class _Skipped(Exception):
    pass


def _pack_size(key: str, domains_dirs: list[str]) -> int:
    """Bytes of the pack's files (a cheap stand-in for how long it takes to build)."""
    try:
        root = resolve(key, domains_dirs).pack.path
    except FactforgeError:
        return 0
    return sum(p.stat().st_size for p in Path(root).rglob("*") if p.is_file() and "__pycache__" not in p.parts)


# --- the Dask engine -----------------------------------------------------------------------
def dask_job() -> dg.JobDefinition:
    """The whole asset graph as one job on the Dask executor; resources are configured at
    launch (run config), so workers rebuild exactly the launcher's settings."""
    from dagster_dask import dask_executor  # noqa: PLC0415  (deferred: dagster-dask, only for a dask build)

    from . import assets as A  # noqa: PLC0415  (deferred: Dagster's assets, only when a build runs)

    defs = dg.Definitions(
        assets=[*A.ALL_ASSETS, *A.ALL_CHECKS],
        jobs=[dg.define_asset_job("factforge_build", selection=A.BUNDLE_ASSETS, partitions_def=A.domains_partitions,
                                  executor_def=dask_executor)],
        resources={"settings": BuildSettings.configure_at_launch(), "workspace": Workspace.configure_at_launch(),
                   "writer": WriterResource.configure_at_launch(), "execution": Execution.configure_at_launch(),
                   "io_manager": dg.FilesystemIOManager.configure_at_launch()})
    return defs.resolve_job_def("factforge_build")


def _config(r: dg.ConfigurableResource) -> dict:
    return {"config": {k: v for k, v in r.model_dump().items() if v is not None}}


@contextmanager
def _dask_run(key: str, workspace: Workspace, settings: BuildSettings, writer: WriterResource,
              execution: Execution, storage: str) -> Iterator:
    if not execution.dask_address:
        raise FactforgeError("the dask engine needs a scheduler address (dask_cluster() starts a local one)")
    home = os.environ.get("DAGSTER_HOME") or str(Path(workspace.root) / "dagster_home")
    Path(home).mkdir(parents=True, exist_ok=True)
    run_config = {
        **_QUIET,
        "execution": {"config": {"cluster": {"existing": {"address": execution.dask_address}}}},
        "resources": {"settings": _config(settings), "workspace": _config(workspace), "writer": _config(writer),
                      "execution": _config(execution), "io_manager": {"config": {"base_dir": storage}}},
    }
    # no compute-log capture: Dagster's local capture runs a `tail -F` per step log that outlives
    # the dask workers (dozens of orphaned processes after one test build); the build reports its
    # own progress and problems
    instance = dg.DagsterInstance.local_temp(tempdir=home, overrides={
        "telemetry": {"enabled": False},
        "compute_logs": {"module": "dagster._core.storage.noop_compute_log_manager", "class": "NoOpComputeLogManager"}})
    try:
        with dg.execute_job(dg.reconstructable(dask_job), instance=instance, run_config=run_config,
                            tags={"dagster/partition": key}) as result:
            yield result
    finally:
        instance.dispose()


@contextmanager
def dask_cluster(workers: int, address: Optional[str] = None) -> Iterator[str]:
    """The scheduler address to build on: `address` as given, else a LocalCluster of
    `workers` single-threaded worker processes for the duration of the block."""
    if address:
        yield address
        return
    from distributed import LocalCluster  # noqa: PLC0415  (deferred: distributed, only for a dask build)

    with LocalCluster(n_workers=workers or cores(), threads_per_worker=1, processes=True,
                      dashboard_address=None, silence_logs=50) as cluster:
        yield cluster.scheduler_address


def preflight(keys: list[str], profile: str, domains_dirs: list[str]) -> None:
    """Before any work: every external tool the profile's kinds need is installed (all
    missing ones named in one error line)."""
    if profile not in PROFILES:
        raise FactforgeError(f"unknown profile {profile!r}; available: {', '.join(PROFILES)}")
    for key in keys:
        _check_key(key, domains_dirs)
    kinds = [k for k, t in registry.kinds().items() if t.modality in PROFILES[profile]]
    missing = missing_tools(kinds)
    if missing:
        raise FactforgeError(f"missing external tools for profile {profile}: {'; '.join(missing)}")


def failure_line(err) -> str:
    """One line for a failed step: a FactforgeError's own message (file:line: problem), any
    other exception as `Type: first line of its message`. A process pool chains the worker's
    traceback text (`_RemoteTraceback`) under the error it re-raises: the error is the cause
    to report, not the traceback text under it."""
    cause = err
    while cause is not None and cause.cause is not None and cause.cause.cls_name != "_RemoteTraceback":
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
