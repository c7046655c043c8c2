"""`factforge pack ...`: build, verify, export and list task packs (mounted in pipeline/cli.py)."""
from __future__ import annotations

import time
from pathlib import Path
from typing import List, Optional

import typer
from rich.console import Console
from rich.markup import escape

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Task packs: build a release of tasks (kit + sealed part), verify, export.")
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
          workers: int = typer.Option(0, "--workers", "-w", min=0, help="Processes rendering and extracting evidence (default 0: every core; as `factforge build --workers`).")):
    """Build a task pack: every task's kit and sealed part, with blocking checks."""
    from .build import BuildOptions, build_pack, default_workspace  # noqa: PLC0415

    opts = BuildOptions(seed=seed, workspace=(workspace or default_workspace()).resolve(), workers=workers)
    t0 = time.perf_counter()
    with err.status("building tasks...") as status:
        path, index, results = build_pack(out_dir, domain, task, opts, progress=lambda s: status.update(f"building {s}..."))
    for r in results:
        e = r.entry
        out.print(f"[green]{'reused' if r.reused else 'built'}[/green] {e.id}: kit {e.kit.files} files "
                  f"{_mb(e.kit.bytes)}, sealed {e.sealed.files} files {_mb(e.sealed.bytes)} ({r.seconds:.1f}s)",
                  highlight=False)
    s = index.summary
    out.print(f"pack {index.pack_version} at {path}: {s['tasks']} tasks "
              f"({', '.join(f'{k} {v}' for k, v in s['by_domain'].items())}); levers covered: "
              f"{', '.join(s['levers_covered'])} ({time.perf_counter() - t0:.1f}s)", highlight=False)


@app.command("verify")
def verify(pack: Path = typer.Argument(..., help="A pack directory (holding index.json).")):
    """Recompute every hash of a pack without following links; non-zero exit naming each
    changed, missing, misplaced or extra file or directory and each link."""
    from .store import verify as verify_pack  # noqa: PLC0415

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
    """Write each task's kit and sealed part as separate deterministic archives."""
    from facts.errors import FactforgeError  # noqa: PLC0415

    from .store import Pack, export_task  # noqa: PLC0415

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
    """Export tasks in tau2-bench's Task schema (validated against it), with split_tasks.json."""
    from .store import Pack  # noqa: PLC0415
    from .tau2 import export_tau2  # noqa: PLC0415

    for folder in export_tau2(Pack(pack), out_dir, list(task or [])):
        out.print(f"[green]exported[/green] {folder}", highlight=False)


@app.command("list")
def list_tasks(pack: Path = typer.Argument(..., help="A pack directory.")):
    """The tasks of a pack with their levers."""
    from rich.table import Table  # noqa: PLC0415

    from .store import Pack  # noqa: PLC0415

    t = Table("task", "bundle", "evidence", "client", "api", "workspace", "budget", "ids (train/live/test)", "phrasing")
    for e in Pack(pack).tasks:
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
    out.print(t)


@app.command("pin-ids")
def pin_ids_cmd(domain: str = typer.Option(..., "--domain", "-d", help="The domain whose task specs to re-pin."),
                task: Optional[List[str]] = typer.Option(None, "--task", help="Only these task ids; repeatable."),
                training: int = typer.Option(10, "--training", help="Training ids per task."),
                live: int = typer.Option(8, "--live", help="Live-experiment ids per task."),
                test_seed: Optional[int] = typer.Option(None, "--test-seed", help="Held-out database seed (default: the spec's)."),
                seed: int = typer.Option(0, "--seed", help="The build seed (evidence, development data, training)."),
                workspace: Optional[Path] = typer.Option(None, "--workspace", help="Render and extraction caches."),
                workers: int = typer.Option(0, "--workers", "-w", min=0, help="Processes rendering and extracting evidence (default 0: every core).")):
    """Rewrite the ids table of task specs from the domain's suites (authors' tool)."""
    from domains import get_pack  # noqa: PLC0415

    from .build import BuildOptions, default_workspace  # noqa: PLC0415
    from .pin import pin_ids  # noqa: PLC0415

    def done(path: Path, n_train: int, n_live: int, n_test: int) -> None:
        out.print(f"[green]pinned[/green] {path}: training {n_train}, live {n_live}, test {n_test}", highlight=False)

    opts = BuildOptions(seed=seed, workspace=(workspace or default_workspace()).resolve(), workers=workers)
    with err.status(f"pinning ids of {domain} tasks..."):
        _, failed = pin_ids(get_pack(domain), opts, list(task or []), training, live, test_seed, done=done)
    for e in failed:
        err.print(f"[red]not pinned[/red] {escape(str(e))}", highlight=False)
    if failed:
        raise typer.Exit(1)
