"""`factforge engage PACK --task ID|all [--task ID ...] --developer DEV --out DIR [--jobs N]`,
`factforge developers` and `factforge results RUN [RUN ...]` (mounted in pipeline/cli.py).

Only typer is imported at module level; the engagement's modules are imported when the
command runs.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import List, Literal, Optional

import typer

from facts.errors import FactforgeError


def engage_command(
    pack: Path = typer.Argument(..., help="A task pack directory (holding index.json)."),
    task: List[str] = typer.Option(..., "--task", help="The task id to engage on; several --task, or all (every task of the pack), make a batch run."),
    developer: str = typer.Option(..., "--developer", help="starting (delivers the starting workspace), scripted:FILE (a JSON or TOML script of tool calls and file writes), cmd:'...' (any program, run in the developer's boundary), or a coding agent: claude-code, codex, opencode, mini-swe-agent (see `factforge developers`)."),
    out: Path = typer.Option(..., "--out", help="One task: the engagement's folder (created; must be empty): kit/, workspace/, engagement.json, report.html. A batch: the run's folder, RUN/run.json and RUN/<task>/ per task (resumed if it holds the same batch)."),
    hours: Optional[float] = typer.Option(None, "--hours", help="Development time limit in hours (default: the task's)."),
    trials: int = typer.Option(1, "--trials", "-k", min=1, help="Trials per sealed test when scoring."),
    isolation: Literal["sandbox", "process"] = typer.Option("sandbox", "--isolation", help="sandbox (bubblewrap; the default) or process (no isolation, for machines without bwrap)."),
    seed: int = typer.Option(0, "--seed", help="Seed of the tools and of the scoring's bootstrap interval."),
    developer_model: Optional[str] = typer.Option(None, "--developer-model", help="A coding agent's model (default: its adapter's; mini-swe-agent takes a litellm name, openai/... or anthropic/...)."),
    developer_prefix: Optional[Path] = typer.Option(None, "--developer-prefix", envvar="FACTFORGE_DEVELOPER_PREFIX", help="Where the coding agent is installed: an npm prefix (npm install --prefix DIR PACKAGE) or a venv; else the engage venv, then PATH."),
    developer_upstream: Optional[str] = typer.Option(None, "--developer-upstream", help="Send the developer's model traffic to this base URL instead of the providers (a compatible gateway; keys still from ANTHROPIC_API_KEY / OPENAI_API_KEY)."),
    jobs: int = typer.Option(1, "--jobs", "-j", min=1, help="A batch: engagements run side by side, each in its own process (engine local) or the local cluster's workers (engine dask)."),
    engine: Literal["local", "dask"] = typer.Option("local", "--engine", help="A batch: local (processes here) or dask (a Dask cluster)."),
    dask_address: Optional[str] = typer.Option(None, "--dask-address", help="A batch on engine dask: the scheduler of an existing cluster (default: a local cluster of --jobs workers)."),
):
    """Run one engagement, or a batch: a developer takes each task from its kit to a scored delivery.

    The developer works in DIR/workspace (a git repository) inside a bubblewrap boundary, with
    the kit read-only and the task's tools (the owner, the development API, samples, live
    experiments, models, submit) through kit/bin/ff or the ff-mcp MCP relay. At submit or the
    time limit the workspace is scanned for sealed strings and scored as `factforge eval` scores
    it; DIR/engagement.json and DIR/report.html record how the developer worked. With --task all
    or several --task, each task is one engagement in RUN/<task>/; a finished one is not re-run.

    Example: factforge engage pack --task _mock-client-knows --developer starting --out engagement
    """
    from .run import EngageConfig, run_engagement  # noqa: PLC0415  (deferred: keeps `factforge --help` fast)

    from .adapters import names  # noqa: PLC0415  (deferred: keeps `factforge --help` fast)

    if developer not in ("starting", *names()) and not developer.startswith(("scripted:", "cmd:")):
        raise typer.BadParameter(f"unknown developer {developer!r}: give starting, scripted:FILE, cmd:'...' or a "
                                 f"coding agent ({', '.join(names())})", param_hint="'--developer'")
    if hours is not None and not 0 < hours < 1e6:
        raise typer.BadParameter(f"{hours:g} is not a positive number of hours", param_hint="'--hours'")
    batch = len(task) > 1 or task == ["all"]
    if not batch and (jobs != 1 or engine != "local" or dask_address):
        raise typer.BadParameter("--jobs, --engine and --dask-address apply to batch runs (--task all or several "
                                 "--task)", param_hint="'--jobs'")
    if dask_address and engine != "dask":
        raise typer.BadParameter("--dask-address needs --engine dask", param_hint="'--dask-address'")
    cfg = EngageConfig(pack=pack, task=task[0], developer=developer, out=out, hours=hours, trials=trials, seed=seed,
                       isolation=isolation, developer_model=developer_model, developer_prefix=developer_prefix,
                       developer_upstream=developer_upstream)
    if batch:
        return _batch(cfg, task, out, jobs, engine, dask_address)
    from .batch import summary_line, unscored  # noqa: PLC0415  (deferred: keeps `factforge --help` fast)

    record = run_engagement(cfg, progress=lambda line: print(line, file=sys.stderr, flush=True))
    typer.echo(summary_line(task[0], record, cfg.out))
    s = record["score"]
    if unscored(record):
        raise FactforgeError(f"all {s['conversations']} conversations failed on the infrastructure, none was scored "
                             f"(details in {Path(cfg.out) / 'evaluation' / 'results.json'})")


def developers_command(
    prefix: Optional[Path] = typer.Option(None, "--developer-prefix", envvar="FACTFORGE_DEVELOPER_PREFIX", help="An npm prefix or venv to look in first."),
    as_json: bool = typer.Option(False, "--json", help="Print the list as JSON."),
):
    """List the coding agents `factforge engage --developer NAME` can run, and whether each is installed.

    A program is looked for under --developer-prefix, in factforge's own venv, then on PATH.
    Nothing is installed: the last column says how.

    Example: factforge developers --json
    """
    from .adapters import listing  # noqa: PLC0415  (deferred: keeps `factforge --help` fast)

    rows = listing(prefix)
    if as_json:
        typer.echo(json.dumps(rows, indent=2, sort_keys=True))
        return
    typer.echo(f"{'developer':<16} {'installed':<10} {'version':<28} {'tools':<5} {'default model':<22} install")
    for r in rows:
        typer.echo(f"{r['name']:<16} {'yes' if r['installed'] else 'no':<10} {(r['version'] or '-')[:28]:<28} "
                   f"{r['tools']:<5} {r['default_model']:<22} {r['install']}")


def _batch(cfg, tasks: list[str], out: Path, jobs: int, engine: str, dask_address: Optional[str]) -> None:
    from .batch import BatchConfig, run_batch  # noqa: PLC0415  (deferred: keeps `factforge --help` fast)

    infra: list[str] = []

    def done(res: dict) -> None:
        if res.get("unscored"):
            infra.append(res["task"])
        if res["state"] == "reused":
            typer.echo(f"{res['task']}: finished before, kept (final score {res['final_score']:.4f})")
        elif res["state"] == "failed":
            typer.echo(f"{res['task']}: failed: {res['error']}")
        else:
            typer.echo(res["line"])
    outcome = run_batch(BatchConfig(base=cfg, tasks=tasks, out=out, jobs=jobs, engine=engine,
                                    dask_address=dask_address), on_done=done)
    typer.echo(f"batch {out}: {len(outcome.run['tasks'])} tasks, {len(outcome.ran)} run, {len(outcome.reused)} kept, "
               f"{len(outcome.failed)} failed; {Path(out) / 'run.json'}; the table: factforge results {out}")
    if outcome.failed:
        raise FactforgeError(f"{len(outcome.failed)} engagement(s) failed: {', '.join(outcome.failed)} (run the same "
                             "command again to retry them)")
    if infra:
        raise FactforgeError(f"{len(infra)} engagement(s) scored nothing, every conversation failed on the "
                             f"infrastructure: {', '.join(infra)} (details in RUN/<task>/evaluation/results.json)")


def results_command(
    runs: List[Path] = typer.Argument(..., help="Batch run folders (RUN of factforge engage --task all) or engagement folders; the first is the baseline of the differences."),
    as_json: bool = typer.Option(False, "--json", help="Print the table as JSON instead of text."),
    csv_file: Optional[Path] = typer.Option(None, "--csv", help="Also write the table as CSV to this file."),
    html_file: Optional[Path] = typer.Option(None, "--html", help="Also write the table as a self-contained HTML page to this file."),
):
    """The table of batch runs: per domain and overall, each run's pass rate with its 95% CI,
    final score, build minutes, developer dollars, serving credits per conversation, owner turns
    and evidence read; with several runs, each one's difference from the first, paired by task.

    Reads only run.json and the engagement.json files.

    Example: factforge results runs/starting runs/scripted --html table.html
    """
    from .results import results_table  # noqa: PLC0415  (deferred: keeps `factforge --help` fast)
    from .results_render import csv_text, html_page, text  # noqa: PLC0415  (deferred: keeps `factforge --help` fast)

    table = results_table(runs)
    for path, body in ((csv_file, csv_text), (html_file, html_page)):
        if path is not None:
            path.write_text(body(table), encoding="utf-8")
    if as_json:
        typer.echo(json.dumps(table, indent=2, sort_keys=True, ensure_ascii=False))
    else:
        typer.echo(text(table), nl=False)
