"""The `factforge` command line.

User mistakes (bad paths, malformed policies or packs, unknown names, a failed check) are
printed as one clear line (or a short list) on stderr with a non-zero exit, never a
traceback. Heavy imports (Dagster, media, litellm) happen only in the commands that need
them.
"""
from __future__ import annotations

import importlib
import json
import math
import os
import sys
import time
from contextlib import contextmanager
from importlib.metadata import version
from pathlib import Path
from typing import List, Literal, Optional

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from typer._click import exceptions as cx
from typer.core import TyperOption

from domains import scan
from facts.errors import FactforgeError

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("OMP_THREAD_LIMIT", "1")


def _flags_take_no_value() -> None:
    """typer's rich help shows `<bool>` beside a flag (`--json`, `--help`) as if it took a
    value; a flag takes none, so its type column is left empty."""
    shown = TyperOption.display_type_rich
    if getattr(shown, "flag_aware", False):
        return

    def display_type_rich(self, ctx):
        return None if self.is_flag or self.count else shown(self, ctx)

    display_type_rich.flag_aware = True  # type: ignore[attr-defined]
    TyperOption.display_type_rich = display_type_rich  # type: ignore[method-assign]


_flags_take_no_value()

app = typer.Typer(add_completion=False, no_args_is_help=True, context_settings={"help_option_names": ["-h", "--help"]},
                  help="factforge: policies -> atomic facts -> realistic, verifiable evidence bundles.\n\n"
                       "Example: factforge build --domain _mock --out out")
err = Console(stderr=True, soft_wrap=True)
out = Console(soft_wrap=True)

DomainsDir = typer.Option(None, "--domains-dir", metavar="<dir>",
                          help="Extra folder of domain packs (repeatable; also $FACTFORGE_DOMAINS_DIR).")
# The choices of transforms.planner.PROFILES (a test holds the two equal; importing the planner
# here would slow every command down).
Profile = Literal["text-only", "text+image", "text+image+audio", "full"]
JSON_HELP = "Print JSON (a list of objects) instead of a table."


def _version(value: bool) -> None:
    if value:
        print(f"factforge {version('factforge')}")
        raise typer.Exit(0)


@app.callback()
def _root(show_version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                            help="Print factforge's version and exit.")) -> None:
    pass


def _table_console() -> Console:
    """Where tables go: the terminal's width on a terminal; piped, a table keeps its natural
    width (ids and paths are never cut or wrapped)."""
    return out if out.is_terminal else Console(soft_wrap=True, width=100_000)


def _dirs(d: Optional[List[Path]]) -> list[str]:
    return [str(p) for p in (d or [])]


@app.command()
def domains(domains_dir: Optional[List[Path]] = DomainsDir,
            test: bool = typer.Option(False, "--test", help="Also list test domains (names starting with _)."),
            as_json: bool = typer.Option(False, "--json", help=JSON_HELP)):
    """List the domains found, with brand and fact counts.

    A pack that does not load is listed as broken, one line each, and does not stop the others.

    Example: factforge domains --test --json
    """
    from domains.variants import list_variants  # noqa: PLC0415  (deferred: keeps `factforge --help` fast)

    packs, broken = scan(_dirs(domains_dir), include_test=test)
    rows, bad = [], [{"name": b.path.name, "path": str(b.path), "error": b.error.render()} for b in broken]
    for name, pack in sorted(packs.items()):
        try:
            fs = pack.facts
        except FactforgeError as e:
            bad.append({"name": name, "path": str(pack.path), "error": e.render()})
            continue
        rows.append({"name": name, "brand": pack.brand.company, "business": pack.info.business,
                     "facts": len(fs.facts), "unparsed": len(fs.unparsed), "variants": list_variants(pack),
                     "tasks": pack.task_ids(), "deployments": pack.deployment_ids(), "path": str(pack.path)})
    if as_json:
        print(json.dumps(rows + [{**b, "broken": True} for b in bad], indent=2))
        return
    t = Table("domain", "brand", "business", "facts", "unparsed", "variants", "tasks", "deployments")
    for r in rows:
        t.add_row(r["name"], r["brand"], r["business"], str(r["facts"]), str(r["unparsed"]), ", ".join(r["variants"]),
                  str(len(r["tasks"])), ", ".join(r["deployments"]))
    _table_console().print(t)
    for b in bad:
        err.print(f"[red]broken[/red] {escape(b['name'])}: {escape(b['error'])}", highlight=False)


def _print_factset(fs, as_json: bool) -> None:
    if as_json:
        data = fs.model_dump(mode="json")
        data["hash"] = fs.hash
        print(json.dumps(data, indent=2, ensure_ascii=False))
        return
    for f in fs.facts:
        slots = "; ".join(f"{s.type.value}={s.display()}" for s in f.slots)
        cond = ", ".join(f"{c.attribute}={c.value}" for c in f.conditions)
        out.print(f"[bold]{f.id}[/bold] [dim]{f.kind.value} L{f.source.start_line}[/dim] {escape(f.statement)}"
                  + (f"  [cyan]{slots}[/cyan]" if slots else "") + (f"  [magenta]({escape(cond)})[/magenta]" if cond else ""),
                  highlight=False)
    out.print(f"{len(fs.facts)} facts, {len(fs.unparsed)} unparsed lines, hash {fs.hash[:16]}")
    for u in fs.unparsed:
        err.print(escape(f"unparsed {u.file}:{u.line}: {u.reason}: {u.text}"), highlight=False)


@app.command()
def facts(name: str = typer.Argument(..., help="Domain name, or domain@variant."),
          domains_dir: Optional[List[Path]] = DomainsDir,
          as_json: bool = typer.Option(False, "--json", help="Print the fact set as JSON (facts, unparsed lines, hash).")):
    """Show the atomic facts of a domain (or variant).

    Example: factforge facts _mock --json
    """
    from domains.variants import resolve  # noqa: PLC0415  (deferred: keeps `factforge --help` fast)
    _print_factset(resolve(name, _dirs(domains_dir)).factset(), as_json)


@app.command()
def decompose(path: Path = typer.Argument(..., help="A policy markdown file."),
              as_json: bool = typer.Option(False, "--json", help="Print the fact set as JSON (facts, unparsed lines, hash)."),
              domain: str = typer.Option("adhoc", help="Domain name recorded in the facts."),
              decomposer: Literal["builtin", "llm"] = typer.Option(
                  "builtin", help="builtin, or llm (litellm; model from $FACTFORGE_LLM_MODEL).")):
    """Decompose any markdown file into atomic facts.

    Example: factforge decompose domains/_mock/policy.md --json
    """
    if not path.is_file():
        raise FactforgeError("no such file", path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise FactforgeError(f"not UTF-8 text (byte {e.start})", path) from None
    if decomposer == "llm":
        from facts.llm import decompose_markdown_llm, litellm_module  # noqa: PLC0415  (deferred: `--help` stays fast)

        litellm_module()  # quiet: its banners would land in the facts printed on stdout
        fs = decompose_markdown_llm(text, domain=domain, file=str(path))
    else:
        from facts.decompose import decompose_markdown  # noqa: PLC0415  (deferred: keeps `factforge --help` fast)
        fs = decompose_markdown(text, domain=domain, file=str(path))
    _print_factset(fs, as_json)


@app.command()
def build(domain: Optional[List[str]] = typer.Option(None, "--domain", "-d", help="Domain (or domain@variant); repeatable. Default: every built-in domain."),
          variant: Optional[str] = typer.Option(None, "--variant", help="Build this variant of the given domain(s)."),
          out_dir: Optional[Path] = typer.Option(None, "--out", help="Where bundles go (default: the workspace)."),
          seed: int = typer.Option(0, "--seed", help="The build seed: the same seed and inputs give the same bundles."),
          workspace: Optional[Path] = typer.Option(None, "--workspace", help="Cache and Dagster storage (default $FACTFORGE_WORKSPACE or ~/.factforge)."),
          profile: Profile = typer.Option("full", help="Modality profile: which kinds of files are rendered."),
          carriers: int = typer.Option(1, help="Authoritative carriers per fact (1 to 5)."),
          workers: int = typer.Option(0, "--workers", "-w", min=0, help="Processes rendering and extracting in parallel (default 0: every core)."),
          engine: Literal["local", "dask"] = typer.Option("local", "--engine", help="local (a process pool here) or dask (a Dask cluster)."),
          dask_address: Optional[str] = typer.Option(None, "--dask-address", help="Scheduler of an existing Dask cluster (engine dask; default: a local cluster of --workers processes)."),
          seed_timeout: Optional[float] = typer.Option(None, "--seed-timeout", help="Seconds a call into the pack's Python may run (default $FACTFORGE_SEED_TIMEOUT or 120)."),
          at_once: int = typer.Option(0, "--at-once", min=0, help="Domains built side by side on the shared pool (default 0: two when the pool has two or more workers, else one)."),
          domains_dir: Optional[List[Path]] = DomainsDir):
    """Materialize the asset graph and write verified bundles, with live progress.

    Progress is a live table on a terminal, plain lines otherwise; one line per domain built.

    Example: factforge build --domain _mock --out out --profile text-only
    """
    from transforms.planner import PlanConfig  # noqa: PLC0415  (deferred: keeps `factforge --help` fast)
    bounds = PlanConfig.model_fields["carriers_per_fact"].metadata
    lo, hi = next(m.ge for m in bounds if hasattr(m, "ge")), next(m.le for m in bounds if hasattr(m, "le"))
    if not lo <= carriers <= hi:
        raise typer.BadParameter(f"{carriers} carriers per fact is out of range; use {lo} to {hi}",
                                 param_hint="'--carriers'")
    if seed_timeout is not None and not 0 < seed_timeout < math.inf:
        raise typer.BadParameter(f"{seed_timeout:g} is not a positive, finite number of seconds", param_hint="'--seed-timeout'")
    from .build import configure_domains_dirs  # noqa: PLC0415  (deferred: Dagster, only when a build runs)
    configure_domains_dirs(_dirs(domains_dir))
    packs, broken = scan()
    keys = list(domain or [p for p in sorted(packs) if not p.startswith("_")])
    if not domain:
        for b in broken:
            err.print(f"[yellow]skipping broken pack[/yellow] {escape(b.path.name)}: {escape(b.error.render())}",
                      highlight=False)
    if variant:
        keys = [f"{k.split('@')[0]}@{variant}" for k in keys]
    from .build import build_many, dask_cluster, preflight  # noqa: PLC0415  (deferred: Dagster, only when a build runs)
    from .progress import ProgressView  # noqa: PLC0415  (deferred: keeps `factforge --help` fast)
    from .resources import BuildSettings, Execution, Workspace, default_workspace  # noqa: PLC0415  (deferred: Dagster)
    preflight(keys, profile, _dirs(domains_dir))
    ws = Workspace(root=str((workspace or Path(default_workspace())).resolve()),
                   out=str(out_dir.resolve()) if out_dir else None)
    settings = BuildSettings(seed=seed, profile=profile, carriers_per_fact=carriers, domains_dirs=_dirs(domains_dir),
                             seed_timeout=seed_timeout)
    progress_file = Path(ws.root) / "progress" / f"build-{os.getpid()}-{time.time_ns()}.jsonl"
    progress_file.parent.mkdir(parents=True, exist_ok=True)
    try:
        with dask_cluster(workers, dask_address) if engine == "dask" else _nothing() as address:
            execution = Execution(engine=engine, workers=workers, dask_address=address, progress_file=str(progress_file))
            with ProgressView(progress_file, keys, stream=sys.stderr):
                def built(res, seconds: float) -> None:
                    out.print(f"[green]built[/green] {res.key}: {res.bundle}  ({res.metadata.get('files', '?')} "
                              f"files, {res.rendered} rendered and {res.extracted} extracted, the rest cached; "
                              f"{seconds:.1f}s"
                              f"{f'; {res.revoiced} recorded lines re-voiced' if res.revoiced else ''})",
                              highlight=False)

                build_many(keys, ws, settings, execution, at_once=at_once, on_built=built)
    finally:
        progress_file.unlink(missing_ok=True)


@contextmanager
def _nothing():
    yield None


@app.command()
def verify(bundle_dir: Path = typer.Argument(..., help="A bundle directory (holding manifest.json).")):
    """Recompute every hash of a bundle; non-zero exit on any problem.

    A changed, missing, extra or linked file, or a manifest whose fields do not match its
    content hash, is a problem (one line each on stderr).

    Example: factforge verify out/bundles/_mock/*
    """
    from outputs.bundle import verify as verify_bundle  # noqa: PLC0415  (deferred: keeps `factforge --help` fast)

    red = sys.stderr.isatty()

    def show(problem: str) -> None:  # plain writes: a million problems must not cost minutes of rich markup
        sys.stderr.write(f"\x1b[31m{problem}\x1b[0m\n" if red else problem + "\n")

    res = verify_bundle(bundle_dir, show)
    sys.stderr.flush()
    if res.problems:
        raise typer.Exit(1)
    out.print(f"[green]ok[/green] {escape(str(bundle_dir))}: {res.files} files verified, version "
              f"{res.bundle_version}", highlight=False)


@app.command()
def report(bundle_dir: Path = typer.Argument(..., help="A bundle directory (holding reports/difficulty.json)."),
           as_json: bool = typer.Option(False, "--json", help="Print the report's summary as JSON.")):
    """Print a bundle's difficulty report.

    Volume, haystack, carriers per fact, wrong values (separation, hedging), multi-hop routes
    and the shallow-reader measures.

    Example: factforge report out/bundles/_mock/* --json
    """
    from audits.difficulty import summary_lines  # noqa: PLC0415  (deferred: keeps `factforge --help` fast)

    path = bundle_dir / "reports" / "difficulty.json"
    if not path.is_file():
        raise FactforgeError("no reports/difficulty.json here (not a bundle, or built before difficulty reports)",
                             bundle_dir)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        summary = data["summary"]
    except (ValueError, KeyError, UnicodeDecodeError) as e:
        raise FactforgeError(f"not a difficulty report ({type(e).__name__})", path) from None
    if as_json:
        print(json.dumps(summary, indent=2, sort_keys=True))
        return
    t = Table("measure", "value", title=f"{data.get('domain')}{'@' + data['variant'] if data.get('variant') else ''}")
    for label, value in summary_lines(summary):
        t.add_row(label, value)
    _table_console().print(t)
    fams = data.get("by_family", {})
    if fams:
        t2 = Table("family", "files", "tokens")
        for fam, v in fams.items():
            t2.add_row(fam, f"{v['files']:,}", f"{v['tokens']:,}")
        _table_console().print(t2)


# Commands that live with their package, mounted here: (module, attribute, command name, kind).
# A feature adds one row; a module that fails to import fails loudly (no silent skip). A
# command named "GROUP NAME" is added to a group mounted by an earlier row.
MOUNTS: list[tuple[str, str, str, str]] = [
    ("audits.queue_cli", "app", "audit", "group"),
    ("audits.desk.cli", "serve", "audit serve", "command"),
    ("audits.desk.cli", "browse", "browse", "command"),
    ("domains.tau2", "import_tau2", "import-tau2", "command"),
    ("domains.scaffold", "new_domain", "new-domain", "command"),
    ("outputs.packs.cli", "app", "pack", "group"),
    ("outputs.api.cli", "app", "api", "group"),
    ("outputs.client.cli", "app", "client", "group"),
    ("outputs.evaluator.cli", "eval_command", "eval", "command"),
    ("outputs.engage.cli", "engage_command", "engage", "command"),
    ("outputs.engage.cli", "developers_command", "developers", "command"),
    ("outputs.engage.cli", "results_command", "results", "command"),
]


def _mount() -> None:
    """Mount the commands of MOUNTS. When the command line names a mounted command, only
    that one is imported (so `factforge eval --help` does not import every package)."""
    named = [row for row in MOUNTS if sys.argv[1:2] == [row[2].split(" ")[0]]]
    groups: dict[str, typer.Typer] = {}
    for module, attr, name, kind in named or MOUNTS:
        obj = getattr(importlib.import_module(module), attr)
        if kind == "group":
            app.add_typer(obj, name=name, help=(obj.info.help or None))
            groups[name] = obj
        elif " " in name:
            group, sub = name.split(" ", 1)
            groups[group].command(sub)(obj)
        else:
            app.command(name)(obj)


_mount()


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _command_path(argv: list[str]) -> str:
    """`factforge CMD [SUB]` as named on the command line (for a usage error raised before
    the command's context exists, such as `--json=1`)."""
    cmd, words = typer.main.get_command(app), ["factforge"]
    for a in argv:
        sub = getattr(cmd, "commands", {}).get(a)
        if sub is None:
            break
        cmd, words = sub, [*words, a]
    return " ".join(words)


def _output_cut_short() -> None:
    """Output cut short by its reader (`factforge facts X | head -1`) is the reader's choice,
    not a failure: the rest goes to /dev/null and the command exits 0 without a word."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    sys.exit(0)


def main() -> None:
    """Entry point: user mistakes are one line on stderr. Usage errors (unknown option or
    command, missing argument, a value of the wrong type or out of range) exit 2; input
    errors (a bad file, pack, policy, bundle or database) exit 1; an unexpected internal
    error is one line too (exit 70; FACTFORGE_DEBUG=1 shows its traceback)."""
    try:
        rc = app(standalone_mode=False, prog_name="factforge")
        sys.exit(rc if isinstance(rc, int) else 0)
    except FactforgeError as e:
        err.print(f"[red]error:[/red] {escape(_one_line(e.render()))}", highlight=False)
        sys.exit(1)
    except cx.NoArgsIsHelpError:
        sys.exit(2)  # the help text was printed
    except cx.UsageError as e:
        where = e.ctx.command_path if e.ctx is not None else _command_path(sys.argv[1:])
        problem = _one_line(e.format_message()).replace(": Value error, ", ": ")
        err.print(f"[red]error:[/red] {escape(where)}: {escape(problem)} "
                  f"(see '{escape(where)} --help')", highlight=False)
        sys.exit(2)
    except cx.ClickException as e:
        err.print(f"[red]error:[/red] {escape(_one_line(e.format_message()))}", highlight=False)
        sys.exit(e.exit_code or 1)
    except typer.Exit as e:
        sys.exit(e.exit_code)
    except (typer.Abort, KeyboardInterrupt):
        err.print("[red]interrupted[/red]", highlight=False)
        sys.exit(130)
    except BrokenPipeError:
        _output_cut_short()
    except SystemExit as e:  # click and rich answer a broken pipe with exit 1
        if isinstance(e.__context__, BrokenPipeError):
            _output_cut_short()
        raise
    except OSError as e:
        where = f"{e.filename}: " if e.filename else ""
        err.print(f"[red]error:[/red] {escape(_one_line(where + (e.strerror or str(e))))}", highlight=False)
        sys.exit(1)
    except Exception as e:  # noqa: BLE001
        if os.environ.get("FACTFORGE_DEBUG"):
            raise
        err.print(f"[red]error:[/red] internal error: {escape(type(e).__name__)}: {escape(_one_line(str(e))[:300])} "
                  "(a bug in factforge; FACTFORGE_DEBUG=1 shows the traceback)", highlight=False)
        sys.exit(70)


if __name__ == "__main__":
    main()
