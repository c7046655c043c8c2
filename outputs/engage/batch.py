"""Batch runs: one engagement per task of a pack, each in `RUN/<task>/`, recorded in `RUN/run.json`.

`run_batch(BatchConfig(base=EngageConfig(...), tasks=[...], out=RUN, jobs=N))` runs
`run_engagement` once per task with the base configuration's developer and settings, whatever
the developer's kind. It is resumable:

- an engagement whose folder holds a complete `engagement.json` (`record.read_record`: valid,
  of the same pack version, task, developer and settings) is kept, not re-run;
- any other content of a task's folder (an engagement cut short, a truncated record, a record
  of other settings) is removed and the engagement re-run;
- `RUN/run.json` pins the batch: pack version, developer (its spec and a digest of what it
  parsed to, so an edited script is a different developer), settings. A RUN of another pack
  version, developer or settings is refused (one RUN, one batch); naming more tasks extends it.

Engagements run one after the other (`jobs` 1), side by side in `jobs` fresh processes (one per
engagement, each with its own boundary), or on a Dask cluster (`engine` dask: each engagement
a task on a worker, which runs its own boundary; the pack and RUN must be at the same paths on
every worker, as for builds). `distributed` is imported only for that engine.

`run.json` holds no timing: the same batch gives the same bytes.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import multiprocessing
import os
import shutil
import socket
import stat
import sys
import uuid
from concurrent.futures import ProcessPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator, Optional

from facts.errors import FactforgeError
from outputs.packs.store import Pack

from . import developers
from .record import read_json, read_record
from .run import EngageConfig, run_engagement

RUN_SCHEMA_VERSION = "1.0"
# The EngageConfig fields that change an engagement's outcome, besides pack, task and developer
# (where a coding agent is installed, `developer_prefix`, is not one).
SETTINGS = ("hours", "trials", "seed", "isolation", "client_mode", "client_model", "domains_dirs", "developer_model",
            "developer_upstream")
STATES = ("pending", "done", "failed")
_ABSENT = object()


@dataclass
class BatchConfig:
    base: EngageConfig                  # every engagement's configuration; task and out set per task
    tasks: list[str]                    # ["all"] or task ids
    out: Path                           # RUN
    jobs: int = 1
    engine: str = "local"               # local | dask
    dask_address: Optional[str] = None  # dask: an existing scheduler (default: a local cluster of `jobs` workers)


@dataclass
class BatchOutcome:
    run: dict                           # run.json
    ran: list[str] = field(default_factory=list)
    reused: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)


def one_line(text: str) -> str:
    return " ".join(str(text).split())


def settings_of(cfg: EngageConfig) -> dict:
    out = {k: getattr(cfg, k) for k in SETTINGS}
    out["domains_dirs"] = [str(d) for d in out["domains_dirs"]]
    if cfg.gateway_mock_response is not None:
        out["gateway_mock_response"] = str(cfg.gateway_mock_response)
    return out


def developer_digest(dev: developers.Developer) -> str:
    """What the developer spec parsed to (a script's steps, a command), hashed: the spec alone
    does not say whether a script file was edited."""
    text = json.dumps(dataclasses.asdict(dev), sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _resolve_tasks(pack, asked: list[str]) -> list[str]:
    if "all" in asked:
        if len(asked) > 1:
            raise FactforgeError("--task all runs every task of the pack: give it alone or name the tasks")
        return [t.id for t in pack.tasks]
    out: list[str] = []
    for task_id in asked:
        pack.index.task(task_id)                      # FactforgeError naming the pack's tasks
        if task_id not in out:
            out.append(task_id)
    return out


def _batch_head(cfg: BatchConfig, pack_version: str, dev: developers.Developer) -> dict:
    return {"schema_version": RUN_SCHEMA_VERSION, "pack": str(Path(cfg.base.pack).resolve()),
            "pack_version": pack_version,
            "developer": {"kind": dev.kind, "spec": dev.spec, "digest": developer_digest(dev)},
            "settings": settings_of(cfg.base)}


def _previous_run(run_dir: Path, head: dict) -> list[dict]:
    """The tasks of an existing RUN/run.json of the same batch; FactforgeError for a RUN of
    another batch, a folder that is not a RUN, a broken run.json."""
    path = run_dir / "run.json"
    if not os.path.lexists(path):
        if any(run_dir.iterdir()):
            raise FactforgeError("the batch folder is not empty and holds no run.json (not a batch run)", run_dir)
        return []
    data = read_json(path, "a batch run")
    if not isinstance(data, dict) or not isinstance(data.get("tasks"), list):
        raise FactforgeError("not a batch run: no list of tasks", path)
    for key, name in (("schema_version", "run.json schema"), ("pack_version", "pack version"),
                      ("developer", "developer"), ("settings", "settings")):
        theirs, ours = data.get(key), head[key]
        if theirs == ours:
            continue
        if isinstance(theirs, dict) and isinstance(ours, dict):
            diff = sorted(k for k in set(theirs) | set(ours) if theirs.get(k, _ABSENT) != ours.get(k, _ABSENT))
            key, theirs, ours = f"{key}.{diff[0]}", theirs.get(diff[0]), ours.get(diff[0])
            name = "settings" if key.startswith("settings") else name
        raise FactforgeError(f"this folder holds a batch of other {name}: {key} is "
                             f"{one_line(json.dumps(theirs, sort_keys=True, default=str))[:120]} there, "
                             f"{one_line(json.dumps(ours, sort_keys=True, default=str))[:120]} here; "
                             "give another --out (one folder, one batch)", path)
    tasks = data["tasks"]
    if not all(isinstance(t, dict) and isinstance(t.get("task"), str) for t in tasks):
        raise FactforgeError("not a batch run: a task entry is not {task, state}", path)
    return tasks


def _entry(previous: dict) -> dict:
    """A task's entry of a previous run.json, keeping only what a batch writes."""
    out = {"task": previous["task"], "state": previous.get("state")}
    if out["state"] not in STATES:
        out["state"] = "pending"
    if isinstance(previous.get("final_score"), (int, float)) and not isinstance(previous["final_score"], bool):
        out["final_score"] = previous["final_score"]
    if isinstance(previous.get("error"), str):
        out["error"] = one_line(previous["error"])[:500]
    return out


def finished(folder: Path, cfg: EngageConfig, pack_version: str) -> bool:
    """Whether `folder` holds the complete record of this engagement."""
    try:
        rec = read_record(folder / "engagement.json")
    except FactforgeError:
        return False
    e = rec["engagement"]
    return (e["pack_version"] == pack_version and e["task"] == cfg.task and e["developer"]["spec"] == cfg.developer
            and e["seed"] == cfg.seed and e["trials"] == cfg.trials
            and (cfg.hours is None or e["hours"] == cfg.hours)
            and (cfg.developer_model is None or e["developer"].get("model") == cfg.developer_model))


def remove_tree(path: Path) -> None:
    """Remove a task's folder left by an unfinished engagement: a link is unlinked, never
    followed; read-only files and folders (the kit's, a developer's) are made writable first."""
    if path.is_symlink() or not path.is_dir():
        path.unlink(missing_ok=True)
        return

    def retry(func, p, _exc):
        parent = os.path.dirname(p)
        os.chmod(parent, stat.S_IRWXU)
        if not os.path.islink(p) and os.path.isdir(p):
            os.chmod(p, stat.S_IRWXU)
        func(p)
    shutil.rmtree(path, onerror=retry)


def _write_run(run_dir: Path, run: dict) -> None:
    tmp = run_dir / ".run.json.tmp"
    tmp.write_text(json.dumps(run, indent=2, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(run_dir / "run.json")


def summary_line(task: str, record: dict, out: Path) -> str:
    """The one line `factforge engage` prints for an engagement."""
    s, end, ev, c = record["score"], record["end"], record["evidence_read"], record["contamination"]
    score = f"final score {s['final_score']:.4f}" if "refused" not in s else f"final score 0 (refused: {s['refused']})"
    dev = record["engagement"]["developer"]
    dm = record.get("developer_model")
    dollars = (f"developer model {dm['calls']} calls, {dm['input_tokens'] + dm['output_tokens']} tokens, "
               f"${dm['cost_usd']:.4f}; " if dm else "")
    return (f"{task} {dev['spec'] if dev['kind'] == 'adapter' else dev['kind']}: {score}; ended {end['reason']} after "
            f"{record['time']['wall_seconds']:.1f} s; evidence read {ev['files']} of {ev['files_total']} files; "
            f"{record['workspace']['files_changed']} files changed; {dollars}contamination "
            f"{'clean' if c['clean'] else str(len(c['hits'])) + ' hit(s)'}; {Path(out) / 'engagement.json'} "
            "and report.html")


def engage_one(cfg: EngageConfig) -> dict:
    """One engagement of a batch, in whatever process runs it: {task, state, final_score, line}
    or {task, state: failed, error}. Never raises: a failure is the task's state."""
    def progress(line: str) -> None:
        print(f"[{cfg.task}] {line}", file=sys.stderr, flush=True)
    try:
        record = run_engagement(cfg, progress=progress)
    except FactforgeError as e:
        return {"task": cfg.task, "state": "failed", "error": one_line(e.render())[:500]}
    except Exception as e:  # noqa: BLE001  (the batch goes on; the error is the task's state)
        return {"task": cfg.task, "state": "failed",
                "error": one_line(f"internal error: {type(e).__name__}: {e}")[:500]}
    return {"task": cfg.task, "state": "done", "final_score": record["score"]["final_score"],
            "line": summary_line(cfg.task, record, cfg.out), "unscored": unscored(record)}


def unscored(record: dict) -> bool:
    """Whether every conversation of the scoring failed on the infrastructure (none was scored)."""
    s = record["score"]
    return "refused" not in s and bool(s["conversations"]) and s["infra_errors"] == s["conversations"]


def engage_in_worker(cfg: EngageConfig) -> dict:
    """`engage_one` in a worker process (litellm is imported quietly wherever it is used:
    `facts.llm.litellm_module`)."""
    return engage_one(cfg)


def _in_processes(cfgs: list[EngageConfig], jobs: int) -> Iterator[dict]:
    if jobs == 1 or len(cfgs) <= 1:
        for c in cfgs:
            yield engage_one(c)
        return
    # a fresh process per engagement, forked from a server that imported `warm` once (no
    # thread or lock of this process is copied)
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["outputs.engage.warm"])
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    with ProcessPoolExecutor(max_workers=min(jobs, len(cfgs)), mp_context=ctx, max_tasks_per_child=1) as pool:
        futures = {pool.submit(engage_in_worker, c): c.task for c in cfgs}
        for fut in as_completed(futures):
            try:
                yield fut.result()
            except Exception as e:  # noqa: BLE001  (the worker process died)
                yield {"task": futures[fut], "state": "failed",
                       "error": one_line(f"the engagement's process failed: {type(e).__name__}: {e}")[:500]}


@contextmanager
def dask_scheduler(jobs: int, address: Optional[str]) -> Iterator[str]:
    """`address` as given, else a local cluster of `jobs` single-threaded worker processes."""
    if address:
        yield address
        return
    from distributed import LocalCluster  # noqa: PLC0415  (deferred: dask's distributed, only for a cluster)

    with LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True, dashboard_address=None,
                      silence_logs=50) as cluster:
        yield cluster.scheduler_address


def check_scheduler(address: str) -> None:
    """A malformed or unreachable scheduler address, in one line, before anything is written (a
    `distributed.Client` that fails to connect takes a timeout to fail, and another to close)."""
    from distributed.comm import parse_address, parse_host_port  # noqa: PLC0415  (deferred: distributed)
    try:
        scheme, location = parse_address(address)
        host, port = parse_host_port(location) if scheme in ("tcp", "tls") else (None, None)
    except (ValueError, TypeError) as e:
        raise FactforgeError(f"--dask-address {address!r} is not a scheduler address: "
                             f"{one_line(str(e))[:200]}") from None
    if host is not None:
        try:
            socket.create_connection((host, port), timeout=5).close()
        except OSError as e:
            raise FactforgeError(f"cannot reach the Dask scheduler at {address}: {e.strerror or e}") from None


def _on_dask(cfgs: list[EngageConfig], jobs: int, address: Optional[str]) -> Iterator[dict]:
    from distributed import Client, as_completed  # noqa: PLC0415  (deferred: dask's distributed, only for a cluster)

    with dask_scheduler(jobs, address) as addr:
        try:
            client = Client(addr, timeout=10, set_as_default=False)
        except Exception as e:  # noqa: BLE001  (unreachable or malformed address)
            raise FactforgeError(f"cannot reach the Dask scheduler at {addr}: {one_line(str(e))[:200]}") from None
        with client:
            token = uuid.uuid4().hex[:12]
            futures = {client.submit(engage_in_worker, c, key=f"engage-{c.task}-{token}", pure=False): c.task
                       for c in cfgs}
            for fut in as_completed(list(futures), loop=client.loop):
                try:
                    yield fut.result()
                except Exception as e:  # noqa: BLE001  (a worker lost)
                    yield {"task": futures[fut], "state": "failed",
                           "error": one_line(f"the Dask task failed: {type(e).__name__}: {e}")[:500]}


def run_batch(cfg: BatchConfig, on_done: Optional[Callable[[dict], None]] = None) -> BatchOutcome:
    """Run (or resume) the batch of `cfg`; `on_done` is called with each task's outcome as it
    ends (`state` done, failed or reused). Returns the outcome; `RUN/run.json` is kept current."""
    if cfg.jobs < 1:
        raise FactforgeError("--jobs must be at least 1")
    if cfg.engine not in ("local", "dask"):
        raise FactforgeError(f"unknown engine {cfg.engine!r}: give local or dask")
    dev = developers.parse(cfg.base.developer)
    if cfg.engine == "dask":
        try:
            import distributed  # noqa: F401,PLC0415  (deferred: dask's distributed, only for a cluster)
        except ImportError:
            raise FactforgeError("--engine dask needs the `distributed` package") from None
        if cfg.dask_address:
            check_scheduler(cfg.dask_address)
    pack = Pack(Path(cfg.base.pack))
    tasks = _resolve_tasks(pack, list(cfg.tasks))
    run_dir = Path(cfg.out)
    if run_dir.is_symlink() or (run_dir.exists() and not run_dir.is_dir()):
        raise FactforgeError("the batch folder is not a folder", run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    run_dir = run_dir.resolve()
    head = _batch_head(cfg, pack.index.pack_version, dev)
    previous = {t["task"]: t for t in _previous_run(run_dir, head)}
    order = [t for t in (t.id for t in pack.tasks) if t in previous or t in tasks]
    base = dataclasses.replace(cfg.base, pack=Path(cfg.base.pack).resolve())
    entries = {t: _entry(previous.get(t, {"task": t})) for t in order}
    outcome = BatchOutcome(run={**head, "tasks": [entries[t] for t in order]})
    todo: list[EngageConfig] = []
    for task in tasks:
        one = dataclasses.replace(base, task=task, out=run_dir / task)
        if finished(one.out, one, head["pack_version"]):
            record = read_record(one.out / "engagement.json")
            entries[task] = {"task": task, "state": "done", "final_score": record["score"]["final_score"]}
            outcome.reused.append(task)
            if on_done:
                on_done({**entries[task], "state": "reused", "unscored": unscored(record)})
            continue
        if os.path.lexists(one.out):
            remove_tree(one.out)
        entries[task] = {"task": task, "state": "pending"}
        todo.append(one)

    def save() -> None:
        outcome.run = {**head, "tasks": [entries[t] for t in order]}
        _write_run(run_dir, outcome.run)
    save()
    results = (_on_dask(todo, cfg.jobs, cfg.dask_address) if cfg.engine == "dask" and todo
               else _in_processes(todo, cfg.jobs))
    for res in results:
        entries[res["task"]] = {k: v for k, v in res.items() if k not in ("line", "unscored")}
        (outcome.ran if res["state"] == "done" else outcome.failed).append(res["task"])
        save()
        if on_done:
            on_done(res)
    return outcome
