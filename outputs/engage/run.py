"""One engagement: set-up, the developer in its boundary with the tools, scoring, the record.

1. `DIR/kit` and `DIR/workspace` (`prepare`); the pack and the sealed part stay outside.
2. The tools (`tools.ToolService`) served on Unix sockets in a private folder bound at
   `/run/ff`; the kit watched (`evidence.KitWatch`); the developer run in its boundary
   (`boundary.Boundary`) until it submits, exits, or passes the time or another limit.
3. Scoring, whatever ended it: the workspace against the initial import (`prepare.diff`),
   the contamination scan of the changes (`scan`), then the evaluator on the sealed tests
   with the workspace as the agent, exactly as `factforge eval PACK --task ID --agent
   DIR/workspace` (its results in `DIR/evaluation/`). A workspace the evaluator refuses (no
   agent.py, a sealed file in it) is recorded with the refusal and scores 0.
4. `DIR/engagement.json` (`record`) and `DIR/report.html` (`report`).
"""
from __future__ import annotations

import datetime as dt
import json
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

from facts.errors import FactforgeError
from outputs.evaluator.engine import EvalConfig, TaskContext, run_eval, write_results
from outputs.evaluator.report import write_report as write_evaluation_report

from . import developers, trajectory, traffic
from .boundary import Boundary, Ending, python
from .evidence import KitWatch, summarise
from .prepare import diff, prepare, snapshot
from .record import build_record, write_record
from .report import write_report
from .scan import SealedStrings, scan_changes


@dataclass
class EngageConfig:
    pack: Path
    task: str
    developer: str                      # starting | scripted:FILE | cmd:'...' | an adapter's name
    out: Path
    hours: Optional[float] = None       # None: the task's development hours
    trials: int = 1
    seed: int = 0
    isolation: str = "sandbox"
    client_mode: str = "offline"
    client_model: Optional[str] = None
    gateway_mock_response: Any = None   # the scoring run's model answers (tests)
    domains_dirs: list[str] = field(default_factory=list)
    developer_model: Optional[str] = None       # a coding agent's model (default: its adapter's)
    developer_prefix: Optional[Path] = None     # where a coding agent is installed (npm prefix or venv)
    developer_upstream: Optional[str] = None    # the developer's model traffic to this URL, not the providers


def _empty_out(out: Path) -> Path:
    out = Path(out)
    if out.is_symlink() or (out.exists() and not out.is_dir()):
        raise FactforgeError("the output folder is not a folder", out)
    if out.exists() and any(out.iterdir()):
        raise FactforgeError("the output folder is not empty (an engagement writes a fresh folder)", out)
    out.mkdir(parents=True, exist_ok=True)
    return out.resolve()


class SinceStart:
    """A clock reading 0 until `start()`, then the seconds since: the tools' events and the
    kit watch both count from the developer's start."""

    def __init__(self):
        self.t0: Optional[float] = None

    def start(self) -> None:
        self.t0 = time.monotonic()

    def __call__(self) -> float:
        return 0.0 if self.t0 is None else time.monotonic() - self.t0


def _tested_facts(ctx) -> set[str]:
    return {f for t in ctx.tests for f in t.factforge.fact_ids}


def run_developer(cfg: EngageConfig, ctx, prep, dev: developers.Developer, hours: float, progress) -> dict:
    """Tools up, kit watched, the developer run; what the record needs of that phase."""
    from .tools import ToolService  # noqa: PLC0415  (deferred: mcp, fastapi and uvicorn, only once an engagement runs)

    sockdir = Path(tempfile.mkdtemp(prefix="ff-"))
    stage = Path(tempfile.mkdtemp(prefix="ff-stage-"))
    clock = SinceStart()
    service = ToolService(Path(cfg.pack), cfg.task, prep.workspace, seed=cfg.seed, client_mode=cfg.client_mode,
                          client_model=cfg.client_model, isolation=cfg.isolation,
                          gateway_mock_response=cfg.gateway_mock_response, clock=clock)
    proxy = None
    try:
        paths = service.start(sockdir) if dev.kind != "starting" else {}
        if dev.kind in ("adapter", "cmd"):
            needs = dev.adapter.provider_of(cfg.developer_model or dev.adapter.default_model) if dev.adapter else None
            proxy = traffic.start_proxy(traffic.upstreams(cfg.developer_upstream), needs, sockdir, Path(cfg.out))
        devout = Path(cfg.out) / "developer" if dev.kind == "adapter" else None
        if devout is not None:
            devout.mkdir()
        boundary = Boundary(kit=prep.kit, workspace=prep.workspace, sockets=sockdir, stage=stage,
                            log=Path(cfg.out) / "developer.log", memory_gb=ctx.memory_gb, cpus=ctx.cpus,
                            seconds=hours * 3600, isolation=cfg.isolation, developer_out=devout,
                            socket_names={k: Path(p).name for k, p in paths.items()})
        argv = dev.argv(stage, boundary, python(), relay=proxy is not None, model=cfg.developer_model,
                        prefix=cfg.developer_prefix)
        clock.start()
        watch = KitWatch(prep.kit, clock=clock).start()
        if progress:
            progress(f"developer {dev.spec if dev.kind == 'adapter' else dev.kind} started ({boundary.isolation}, "
                     f"{hours:g} h limit)")
        ending = (boundary.run(argv, service.submitted) if argv is not None
                  else Ending("starting", "the starting workspace, delivered untouched"))
        opened = watch.stop()
        model_traffic = traffic.metering(proxy)
    finally:
        service.stop()
        if proxy is not None:
            proxy.stop()
        shutil.rmtree(sockdir, ignore_errors=True)
        shutil.rmtree(stage, ignore_errors=True)
    if progress:
        progress(f"developer ended: {ending.reason} after {ending.wall_seconds:.1f} s")
    return {"ending": ending, "opened": opened, "watch": watch, "events": list(service.events),
            "usage": service.usage(), "isolation": boundary.isolation, "limit_seconds": boundary.seconds,
            "cpu_limit_seconds": boundary.cpu_limit, "model_traffic": model_traffic}


def score(cfg: EngageConfig, prep, out: Path, owner: Optional[dict] = None):
    """(results or None, refusal or None): the evaluator on the workspace, as `factforge eval`,
    under the deployment the engagement left: the capabilities the client switched on, the
    fixes it deployed (`owner`: the tools' owner measures)."""
    ecfg = EvalConfig(pack=Path(cfg.pack), task=cfg.task, agent=str(prep.workspace), trials=cfg.trials,
                      seed=cfg.seed, isolation=cfg.isolation, gateway_mock_response=cfg.gateway_mock_response,
                      domains_dirs=list(cfg.domains_dirs),
                      capabilities=list((owner or {}).get("capabilities_enabled", [])) or None,
                      fixes=[str(i) for i in (owner or {}).get("fixes_deployed", [])] or None)
    try:
        results = run_eval(ecfg)
    except FactforgeError as e:
        return None, e.problem
    write_results(results, out / "evaluation")
    write_evaluation_report(results, out / "evaluation")
    return results, None


def preflight(cfg: EngageConfig, dev: developers.Developer) -> Optional[Path]:
    """Before anything is written: a coding agent's program is installed and its provider
    reachable; returns the program's path."""
    if dev.kind != "adapter":
        if cfg.developer_model:      # (a prefix, often from the environment, is simply not used)
            raise FactforgeError("--developer-model is for a coding agent developer (see factforge developers)")
        traffic.upstreams(cfg.developer_upstream)
        return None
    program = dev.adapter.find(cfg.developer_prefix)
    if program is None:
        raise FactforgeError(f"{dev.adapter.program} ({dev.adapter.title}) is not installed: "
                             f"{dev.adapter.install_hint()}")
    model = cfg.developer_model or dev.adapter.default_model
    needs = dev.adapter.provider_of(model)
    if needs not in traffic.upstreams(cfg.developer_upstream):
        raise FactforgeError(f"{dev.spec} speaks the {needs} wire: set {traffic.KEY_VARS[needs]} in the environment, "
                             "or give --developer-upstream URL")
    return program


def metered_calls(path: Path) -> list[dict]:
    """The proxy's records (written by this process, outside the developer's reach)."""
    try:
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    except (OSError, ValueError):
        return []


def read_trajectory(cfg: EngageConfig, dev: developers.Developer, program: Path, out: Path,
                    metering: Optional[dict]) -> dict:
    """`out/trajectory.json` (ATIF) from the coding agent's own record; its summary."""
    a = dev.adapter
    instruction = out / "instruction.md"
    doc = trajectory.read(a.trajectory["format"], out / "developer" / a.trajectory["file"], agent=dev.spec,
                          version=a.version(program), model=cfg.developer_model or a.default_model,
                          instruction=instruction.read_text(encoding="utf-8") if instruction.is_file() else "",
                          metering=metering, session=f"{cfg.task}-{dev.spec}-{cfg.seed}",
                          calls=metered_calls(out / "model_calls.jsonl"))
    trajectory.write(doc, out)
    return trajectory.summary(doc)


def run_engagement(cfg: EngageConfig, progress: Optional[Callable[[str], None]] = None) -> dict:
    """Run the engagement of `cfg`; returns the record (also written to `cfg.out`)."""
    if cfg.hours is not None and not 0 < cfg.hours < 1e6:
        raise FactforgeError("--hours must be a positive number")
    if cfg.trials < 1:
        raise FactforgeError("--trials must be at least 1")
    dev = developers.parse(cfg.developer)
    program = preflight(cfg, dev)
    started = dt.datetime.now(dt.timezone.utc).replace(microsecond=0).isoformat()
    t0 = time.perf_counter()
    ctx = TaskContext.load(Path(cfg.pack), cfg.task, "test", cfg.domains_dirs)
    out = _empty_out(cfg.out)
    cfg.out = out
    hours = cfg.hours if cfg.hours is not None else float(ctx.sealed["spec"]["sandbox"]["hours"])
    prep = prepare(ctx, out)
    phase = run_developer(cfg, ctx, prep, dev, hours, progress)
    after = snapshot(prep.workspace)
    changes = diff(prep.initial, after)
    contamination = scan_changes(SealedStrings(ctx, prep.kit), prep.workspace, changes["added"] + changes["modified"],
                                 prep.initial_bytes)
    kit_files = [f.path for f in ctx.pack.manifest(cfg.task, "kit").files]
    evidence = summarise(phase["opened"], kit_files, ctx.pack.json(cfg.task, "sealed", "evidence_plan.json"),
                         _tested_facts(ctx), available=phase["watch"].available, overflow=phase["watch"].overflow)
    trajectory = None
    if dev.kind == "adapter":
        trajectory = read_trajectory(cfg, dev, program, out, phase["model_traffic"])
    if progress:
        progress("scoring the workspace on the sealed tests")
    results, refusal = score(cfg, prep, out, phase["usage"]["owner"])
    record = build_record(cfg=cfg, ctx=ctx, dev=dev, prep=prep, phase=phase, changes=changes, truncated=after.truncated,
                          contamination=contamination, evidence=evidence, results=results, refusal=refusal,
                          started=started, seconds=time.perf_counter() - t0, hours=hours, trajectory=trajectory)
    write_record(record, out)
    write_report(record, out)
    return record


