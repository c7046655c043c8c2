"""`factforge pack ...`: build, verify, export and list task packs (mounted in pipeline/cli.py)."""
from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import List, Optional

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from domains import get_pack
from facts.errors import FactforgeError

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Task packs: build a release of tasks (kit + sealed part), verify, export.\n\n"
                       "Example: factforge pack build --domain _mock --out pack")
out = Console(soft_wrap=True)
err = Console(stderr=True, soft_wrap=True)


def _mb(n: int) -> str:
    return f"{n / 1e6:.1f} MB"


@app.command("build")
def build(domain: Optional[List[str]] = typer.Option(None, "--domain", "-d", help="Domain whose tasks to build; repeatable. Default: every built-in domain."),
          out_dir: Path = typer.Option(..., "--out", help="The pack directory (replaced atomically; an existing pack is reused incrementally)."),
          task: Optional[List[str]] = typer.Option(None, "--task", help="Only these task ids; repeatable."),
          seed: int = typer.Option(0, "--seed", help="The build seed: evidence and development data (as `factforge build --seed`)."),
          workspace: Optional[Path] = typer.Option(None, "--workspace", help="Render and extraction caches (default $FACTFORGE_WORKSPACE or ~/.factforge)."),
          workers: int = typer.Option(0, "--workers", "-w", min=0, help="Processes rendering and extracting evidence (default 0: every core; as `factforge build --workers`)."),
          domains_dir: Optional[List[Path]] = typer.Option(None, "--domains-dir", metavar="<dir>", help="Extra folder of domain packs (repeatable; also $FACTFORGE_DOMAINS_DIR).")):
    """Build a task pack: every task's kit and sealed part, with blocking checks.

    Progress is a status line on a terminal; otherwise one line per task (on stderr) as each is done.

    Example: factforge pack build --domain _mock --out pack
    """
    from .build import BuildOptions, build_pack, default_workspace  # noqa: PLC0415  (deferred: `--help` stays fast)

    if domains_dir:  # before any domain is looked up; the build's worker processes inherit it
        prev = os.environ.get("FACTFORGE_DOMAINS_DIR", "")
        os.environ["FACTFORGE_DOMAINS_DIR"] = os.pathsep.join([*map(str, domains_dir), *([prev] if prev else [])])
    opts = BuildOptions(seed=seed, workspace=(workspace or default_workspace()).resolve(), workers=workers)
    t0 = time.perf_counter()
    with _TaskProgress() as progress:
        path, index, results = build_pack(out_dir, domain, task, opts, progress=progress)
    for r in results:
        e = r.entry
        out.print(f"[green]{'reused' if r.reused else 'built'}[/green] {e.id}: kit {e.kit.files} files "
                  f"{_mb(e.kit.bytes)}, sealed {e.sealed.files} files {_mb(e.sealed.bytes)} ({r.seconds:.1f}s)"
                  + "".join(f"; {len(v)} pinned {k} id(s) replaced: {', '.join(x['pinned'] for x in v)}"
                            for k, v in sorted(r.replaced.items()))
                  + (f"; reference agents: {', '.join(f'{a} {x:.2f}' for a, x in r.reference.items())}"
                     if r.reference else ""), highlight=False)
    s = index.summary
    out.print(f"pack {index.pack_version} at {path}: {s['tasks']} tasks "
              f"({', '.join(f'{k} {v}' for k, v in s['by_domain'].items())}); levers covered: "
              f"{', '.join(s['levers_covered'])} ({time.perf_counter() - t0:.1f}s)", highlight=False)


class _TaskProgress:
    """`pack build` progress: a status line on a terminal; otherwise one line per task on
    stderr as each is done (a long build is never silent in a log)."""

    def __init__(self):
        self.tty = sys.stderr.isatty()
        self.current: Optional[str] = None
        self.started = 0.0
        self.done = 0
        self._status = None

    def __call__(self, task_id: str) -> None:
        self._finish()
        self.current, self.started = task_id, time.perf_counter()
        if self._status is not None:
            self._status.update(f"building {task_id}...")

    def _finish(self) -> None:
        if self.current is not None and not self.tty:
            self.done += 1
            print(f"task {self.done} done: {self.current} ({time.perf_counter() - self.started:.1f}s)",
                  file=sys.stderr, flush=True)
        self.current = None

    def __enter__(self) -> "_TaskProgress":
        if self.tty:
            self._status = err.status("building tasks...")
            self._status.__enter__()
        return self

    def __exit__(self, exc_type, *rest) -> None:
        if exc_type is None:
            self._finish()
        if self._status is not None:
            self._status.__exit__(exc_type, *rest)


@app.command("verify")
def verify(pack: Path = typer.Argument(..., help="A pack directory (holding index.json).")):
    """Recompute every hash of a pack without following links; non-zero exit naming each
    changed, missing, misplaced or extra file or directory and each link.

    Example: factforge pack verify pack
    """
    from .store import verify as verify_pack  # noqa: PLC0415  (deferred: keeps `factforge --help` fast)

    v = verify_pack(pack)
    if v.problems:
        for p in v.problems:
            err.print(f"[red]{escape(p)}[/red]", highlight=False)
        err.print(f"pack {escape(str(pack))}: {len(v.problems)} problems (its content is pack version {v.pack_version})",
                  highlight=False)
        raise typer.Exit(1)
    out.print(f"[green]ok[/green] {escape(str(pack))}: {v.tasks} tasks, {v.files} files verified, "
              f"pack {v.pack_version}", highlight=False)


@app.command("export")
def export(pack: Path = typer.Argument(..., help="A pack directory."),
           out_dir: Path = typer.Option(..., "--out", help="Where <task>/kit.tar.gz and <task>/sealed.tar.gz go."),
           task: Optional[List[str]] = typer.Option(None, "--task", help="Only these task ids; repeatable.")):
    """Write each task's kit and sealed part as separate deterministic archives.

    Example: factforge pack export pack --out releases
    """
    from .store import Pack, export_task  # noqa: PLC0415  (deferred: keeps `factforge --help` fast)

    p = Pack(pack)
    ids = list(task or [t.id for t in p.tasks])
    if not ids:
        raise FactforgeError("the pack has no tasks", pack)
    for tid in ids:
        p.task(tid)
    for tid in ids:
        paths = export_task(p, tid, out_dir)
        out.print(f"[green]exported[/green] {tid}: {paths['kit']} ({_mb(paths['kit'].stat().st_size)}), "
                  f"{paths['sealed']} ({_mb(paths['sealed'].stat().st_size)})", highlight=False)
    if not ids:
        raise FactforgeError("the pack has no tasks", pack)


@app.command("export-tau2")
def export_tau2_cmd(pack: Path = typer.Argument(..., help="A pack directory."),
                    out_dir: Path = typer.Option(..., "--out", help="Where <task>/tasks.json, split_tasks.json, db.json go."),
                    task: Optional[List[str]] = typer.Option(None, "--task", help="Only these task ids; repeatable.")):
    """Export tasks in tau2-bench's Task schema (validated against it), with split_tasks.json.

    Example: factforge pack export-tau2 pack --out tau2-export
    """
    from .store import Pack  # noqa: PLC0415  (deferred: keeps `factforge --help` fast)
    from .tau2 import export_tau2  # noqa: PLC0415  (deferred: keeps `factforge --help` fast)

    for folder in export_tau2(Pack(pack), out_dir, list(task or [])):
        out.print(f"[green]exported[/green] {folder}", highlight=False)


@app.command("list")
def list_tasks(pack: Path = typer.Argument(..., help="A pack directory."),
               as_json: bool = typer.Option(False, "--json", help="Print JSON (one object per task: id, domain, title, bundle, levers).")):
    """The tasks of a pack with their levers.

    Example: factforge pack list pack --json
    """
    from .store import Pack  # noqa: PLC0415  (deferred: keeps `factforge --help` fast)

    tasks = Pack(pack).tasks
    if as_json:
        print(json.dumps([{"id": e.id, "domain": e.domain, "title": e.title, "bundle": e.bundle, "levers": e.levers}
                          for e in tasks],
                         indent=2, sort_keys=True))
        return
    t = Table("task", "bundle", "evidence", "client", "api", "workspace", "budget", "ids (train/live/test)", "phrasing")
    for e in tasks:
        lv = e.levers
        ev = lv["evidence"]
        c = lv["client"]
        t.add_row(e.id, e.bundle, f"{ev['profile']}/{ev['difficulty']}"
                  + (f" {len(ev['sections'])} sections" if ev["sections"] else "")
                  + (f" {len(ev['kinds'])} kinds" if ev["kinds"] else ""),
                  f"{c['held']}h {c['confirmable']}c {c['contested']}x" if c["enabled"] else "off",
                  lv["api"]["deployment"], lv["workspace"]["kind"], ",".join(lv["models"]["budget"]),
                  f"{lv['ids']['training']}/{lv['ids']['live']}/{lv['ids']['test']}",
                  str(len(lv["phrasing"]["rules"])))
    # piped, the table keeps its natural width: task ids are never cut
    (out if out.is_terminal else Console(soft_wrap=True, width=100_000)).print(t)


@app.command("check")
def check_cmd(domain: Optional[List[str]] = typer.Option(None, "--domain", "-d", help="Domain whose task specs to check; repeatable. Default: every built-in domain."),
              task: Optional[List[str]] = typer.Option(None, "--task", help="Only these task ids; repeatable."),
              seed: int = typer.Option(0, "--seed", help="The build seed (evidence plan, development data)."),
              workspace: Optional[Path] = typer.Option(None, "--workspace", help="Where simulation suites are cached (default $FACTFORGE_WORKSPACE or ~/.factforge)."),
              as_json: bool = typer.Option(False, "--json", help="One JSON object per task instead of the table.")):
    """Check that task specs can still build, from the evidence plan without rendering: tests learnable,
    enough eligible ids, the sealing gate, no held fact left in the delivered plan; each task's tests,
    the scenarios they come from and the reference agents' means on them. Exit 1 when a task cannot build.

    Example: factforge pack check --domain _mock
    """
    from .build import BuildOptions, default_workspace, select_domains  # noqa: PLC0415  (deferred: `--help` stays fast)
    from .guard import check_domain  # noqa: PLC0415  (deferred: keeps `factforge --help` fast)

    opts = BuildOptions(seed=seed, workspace=(workspace or default_workspace()).resolve(), workers=1)
    bad = 0
    for pack in select_domains(domain):
        for v in check_domain(pack, opts, list(task or [])):
            bad += bool(v.problems)
            if as_json:
                print(json.dumps({"task": v.task_id, "ok": not v.problems, "problems": v.problems,
                                  "replaced": v.replaced, "facts_stated": v.stated, "tests": v.tests,
                                  "templates": v.templates, "reference": v.reference}, sort_keys=True), flush=True)
                continue
            n = sum(len(x) for x in v.replaced.values())
            word = "[red]cannot build[/red]" if v.problems else "[green]ok[/green]"
            ref = ", ".join(f"{a} {m:.3f}" for a, m in v.reference.items())
            out.print(f"{word} {v.task_id}: {v.stated} facts stated in the planned kit, {v.tests} tests from "
                      f"{v.templates} scenarios" + (f" ({ref})" if ref else "")
                      + (f", {n} pinned id(s) would be replaced" if n else ""), highlight=False)
            for p in v.problems:
                out.print(f"  - {escape(p)}", highlight=False)
    if bad:
        raise typer.Exit(1)


@app.command("pin-ids")
def pin_ids_cmd(domain: str = typer.Option(..., "--domain", "-d", help="The domain whose task specs to re-pin."),
                task: Optional[List[str]] = typer.Option(None, "--task", help="Only these task ids; repeatable."),
                training: int = typer.Option(10, "--training", min=0, help="Training ids per task."),
                live: int = typer.Option(8, "--live", min=0, help="Live-experiment ids per task."),
                test_seed: Optional[int] = typer.Option(None, "--test-seed", help="Held-out database seed (default: the spec's)."),
                seed: int = typer.Option(0, "--seed", help="The build seed (evidence, development data, training)."),
                workspace: Optional[Path] = typer.Option(None, "--workspace", help="Render and extraction caches."),
                workers: int = typer.Option(0, "--workers", "-w", min=0, help="Processes rendering and extracting evidence (default 0: every core)."),
                repair: bool = typer.Option(False, "--repair", help="Keep a learnable spec's ids; replace only those its build would replace.")):
    """Rewrite the ids table of task specs from the domain's suites (authors' tool).

    Example: factforge pack pin-ids --domain _mock
    """
    from .build import BuildOptions, default_workspace  # noqa: PLC0415  (deferred: keeps `factforge --help` fast)
    from .pin import pin_ids  # noqa: PLC0415  (deferred: keeps `factforge --help` fast)

    def done(path: Path, n_train: int, n_live: int, n_test: int) -> None:
        out.print(f"[green]pinned[/green] {path}: training {n_train}, live {n_live}, test {n_test}", highlight=False)

    opts = BuildOptions(seed=seed, workspace=(workspace or default_workspace()).resolve(), workers=workers)
    with err.status(f"pinning ids of {domain} tasks..."):
        _, failed = pin_ids(get_pack(domain), opts, list(task or []), training, live, test_seed, done=done,
                            repair=repair)
    for e in failed:
        err.print(f"[red]not pinned[/red] {escape(str(e))}", highlight=False)
    if failed:
        raise typer.Exit(1)
