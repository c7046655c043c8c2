"""The `factforge` command line.

User mistakes (bad paths, malformed policies or packs, unknown names, a failed check) are
printed as one clear line (or a short list) on stderr with a non-zero exit, never a
traceback. Heavy imports (Dagster, media, litellm) happen only in the commands that need
them.
"""
from __future__ import annotations

import json
import os
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import List, Optional

import typer
from rich.console import Console
from rich.markup import escape

from facts.errors import FactforgeError

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("OMP_THREAD_LIMIT", "1")

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="factforge: policies -> atomic facts -> realistic, verifiable evidence bundles.")
err = Console(stderr=True, soft_wrap=True)
out = Console(soft_wrap=True)

DomainsDir = typer.Option(None, "--domains-dir", help="Extra folder of domain packs (repeatable; also $FACTFORGE_DOMAINS_DIR).")


def _dirs(d: Optional[List[Path]]) -> list[str]:
    return [str(p) for p in (d or [])]


@app.command()
def domains(domains_dir: Optional[List[Path]] = DomainsDir,
            test: bool = typer.Option(False, "--test", help="Also list test domains (names starting with _)."),
            as_json: bool = typer.Option(False, "--json")):
    """List the domains found, with brand and fact counts."""
    from domains import discover  # noqa: PLC0415
    from domains.variants import list_variants  # noqa: PLC0415

    rows = []
    for name, pack in sorted(discover(_dirs(domains_dir), include_test=test).items()):
        fs = pack.facts
        rows.append({"name": name, "brand": pack.brand.company, "business": pack.info.business,
                     "facts": len(fs.facts), "unparsed": len(fs.unparsed), "variants": list_variants(pack),
                     "path": str(pack.path)})
    if as_json:
        print(json.dumps(rows, indent=2))
        return
    from rich.table import Table  # noqa: PLC0415
    t = Table("domain", "brand", "business", "facts", "unparsed", "variants")
    for r in rows:
        t.add_row(r["name"], r["brand"], r["business"], str(r["facts"]), str(r["unparsed"]), ", ".join(r["variants"]))
    out.print(t)


def _print_factset(fs, as_json: bool) -> None:
    if as_json:
        data = fs.model_dump(mode="json")
        data["hash"] = fs.hash
        print(json.dumps(data, indent=2, ensure_ascii=False))
        return
    for f in fs.facts:
        slots = "; ".join(f"{s.type.value}={s.key()}" for s in f.slots)
        cond = ", ".join(f"{c.attribute}={c.value}" for c in f.conditions)
        out.print(f"[bold]{f.id}[/bold] [dim]{f.kind.value} L{f.source.start_line}[/dim] {escape(f.statement)}"
                  + (f"  [cyan]{slots}[/cyan]" if slots else "") + (f"  [magenta]({escape(cond)})[/magenta]" if cond else ""),
                  highlight=False)
    out.print(f"{len(fs.facts)} facts, {len(fs.unparsed)} unparsed lines, hash {fs.hash[:16]}")
    for u in fs.unparsed:
        err.print(escape(f"unparsed {u.file}:{u.line}: {u.reason}: {u.text}"), highlight=False)


@app.command()
def facts(name: str = typer.Argument(..., help="Domain name, or domain@variant."),
          domains_dir: Optional[List[Path]] = DomainsDir, as_json: bool = typer.Option(False, "--json")):
    """Show the atomic facts of a domain (or variant)."""
    from domains.variants import resolve  # noqa: PLC0415
    _print_factset(resolve(name, _dirs(domains_dir)).factset(), as_json)


@app.command()
def decompose(path: Path = typer.Argument(..., help="A policy markdown file."),
              as_json: bool = typer.Option(False, "--json"),
              domain: str = typer.Option("adhoc", help="Domain name recorded in the facts."),
              decomposer: str = typer.Option("builtin", help="builtin, or llm (litellm; model from $FACTFORGE_LLM_MODEL).")):
    """Decompose any markdown file into atomic facts."""
    if not path.is_file():
        raise FactforgeError("no such file", path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise FactforgeError(f"not UTF-8 text (byte {e.start})", path) from None
    if decomposer == "llm":
        from facts.llm import decompose_markdown_llm  # noqa: PLC0415
        fs = decompose_markdown_llm(text, domain=domain, file=str(path))
    else:
        from facts.decompose import decompose_markdown  # noqa: PLC0415
        fs = decompose_markdown(text, domain=domain, file=str(path))
    _print_factset(fs, as_json)


@app.command()
def build(domain: Optional[List[str]] = typer.Option(None, "--domain", "-d", help="Domain (or domain@variant); repeatable. Default: every built-in domain."),
          variant: Optional[str] = typer.Option(None, "--variant", help="Build this variant of the given domain(s)."),
          out_dir: Optional[Path] = typer.Option(None, "--out", help="Where bundles go (default: the workspace)."),
          seed: int = typer.Option(0, "--seed"),
          workspace: Optional[Path] = typer.Option(None, "--workspace", help="Cache and Dagster storage (default $FACTFORGE_WORKSPACE or ~/.factforge)."),
          profile: str = typer.Option("full", help="Modality profile: text-only, text+image, text+image+audio, full."),
          carriers: int = typer.Option(1, help="Authoritative carriers per fact."),
          workers: int = typer.Option(0, "--workers", "-w", min=0, help="Processes rendering and extracting in parallel (default 0: every core)."),
          engine: str = typer.Option("local", "--engine", help="local (a process pool here) or dask (a Dask cluster)."),
          dask_address: Optional[str] = typer.Option(None, "--dask-address", help="Scheduler of an existing Dask cluster (engine dask; default: a local cluster of --workers processes)."),
          domains_dir: Optional[List[Path]] = DomainsDir):
    """Materialize the asset graph and write verified bundles, with live progress."""
    from .build import configure_domains_dirs  # noqa: PLC0415
    configure_domains_dirs(_dirs(domains_dir))
    if engine not in ("local", "dask"):
        raise FactforgeError(f"unknown engine {engine!r}; available: local, dask")
    from domains import discover  # noqa: PLC0415
    keys = list(domain or [p for p in sorted(discover()) if not p.startswith("_")])
    if variant:
        keys = [f"{k.split('@')[0]}@{variant}" for k in keys]
    from .build import build_partition, dask_cluster, preflight  # noqa: PLC0415
    from .progress import ProgressView  # noqa: PLC0415
    from .resources import BuildSettings, Execution, Workspace, default_workspace  # noqa: PLC0415
    preflight(keys, profile)
    ws = Workspace(root=str((workspace or Path(default_workspace())).resolve()),
                   out=str(out_dir.resolve()) if out_dir else None)
    settings = BuildSettings(seed=seed, profile=profile, carriers_per_fact=carriers, domains_dirs=_dirs(domains_dir))
    progress_file = Path(ws.root) / "progress" / f"build-{os.getpid()}-{time.time_ns()}.jsonl"
    progress_file.parent.mkdir(parents=True, exist_ok=True)
    try:
        with dask_cluster(workers, dask_address) if engine == "dask" else _nothing() as address:
            execution = Execution(engine=engine, workers=workers, dask_address=address, progress_file=str(progress_file))
            with ProgressView(progress_file, keys, stream=sys.stderr):
                for key in keys:
                    t0 = time.perf_counter()
                    res = build_partition(key, ws, settings, execution=execution)
                    out.print(f"[green]built[/green] {key}: {res.bundle}  ({res.metadata.get('files', '?')} files, "
                              f"{res.rendered} rendered and {res.extracted} extracted, the rest cached; "
                              f"{time.perf_counter() - t0:.1f}s)", highlight=False)
    finally:
        progress_file.unlink(missing_ok=True)


@contextmanager
def _nothing():
    yield None


@app.command()
def verify(bundle_dir: Path = typer.Argument(..., help="A bundle directory (holding manifest.json).")):
    """Recompute every hash of a bundle; non-zero exit on any changed, missing or extra file."""
    from outputs.bundle import load_manifest, verify_bundle  # noqa: PLC0415
    problems = verify_bundle(bundle_dir)
    if problems:
        for p in problems:
            err.print(f"[red]{escape(p)}[/red]", highlight=False)
        raise typer.Exit(1)
    man = load_manifest(bundle_dir)
    out.print(f"[green]ok[/green] {bundle_dir}: {len(man.files)} files verified, version {man.bundle_version}",
              highlight=False)


# Commands that live with their package, mounted here: (module, attribute, command name, kind).
# A feature adds one row; a module that fails to import fails loudly (no silent skip).
MOUNTS: list[tuple[str, str, str, str]] = [
    ("audits.queue_cli", "app", "audit", "group"),
    ("domains.tau2", "import_tau2", "import-tau2", "command"),
    ("domains.scaffold", "new_domain", "new-domain", "command"),
]


def _mount() -> None:
    import importlib  # noqa: PLC0415

    for module, attr, name, kind in MOUNTS:
        obj = getattr(importlib.import_module(module), attr)
        if kind == "group":
            app.add_typer(obj, name=name, help=(obj.info.help or None))
        else:
            app.command(name)(obj)


_mount()


def main() -> None:
    try:
        rc = app(standalone_mode=False)
        sys.exit(rc if isinstance(rc, int) else 0)
    except FactforgeError as e:
        err.print(f"[red]error:[/red] {escape(e.render())}", highlight=False)
        sys.exit(1)
    except typer.Exit as e:
        sys.exit(e.exit_code)
    except typer.Abort:
        sys.exit(130)
    except Exception as e:  # click usage errors
        import click  # noqa: PLC0415
        if isinstance(e, click.ClickException):
            e.show()
            sys.exit(e.exit_code)
        raise


if __name__ == "__main__":
    main()
