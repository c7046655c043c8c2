"""`factforge engage PACK --task ID --developer DEV --out DIR [--hours H]` and `factforge developers`
(mounted in pipeline/cli.py).

Only typer is imported at module level; the engagement's modules are imported when the
command runs.
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Literal, Optional

import typer


def engage_command(
    pack: Path = typer.Argument(..., help="A task pack directory (holding index.json)."),
    task: str = typer.Option(..., "--task", help="The task id to engage on."),
    developer: str = typer.Option(..., "--developer", help="starting (delivers the starting workspace), scripted:FILE (a JSON or TOML script of tool calls and file writes), cmd:'...' (any program, run in the developer's boundary), or a coding agent: claude-code, codex, opencode, mini-swe-agent (see `factforge developers`)."),
    out: Path = typer.Option(..., "--out", help="The engagement's folder (created; must be empty): kit/, workspace/, engagement.json, report.html."),
    hours: Optional[float] = typer.Option(None, "--hours", help="Development time limit in hours (default: the task's)."),
    trials: int = typer.Option(1, "--trials", "-k", min=1, help="Trials per sealed test when scoring."),
    isolation: Literal["sandbox", "process"] = typer.Option("sandbox", "--isolation", help="sandbox (bubblewrap; the default) or process (no isolation, for machines without bwrap)."),
    seed: int = typer.Option(0, "--seed", help="Seed of the tools and of the scoring's bootstrap interval."),
    developer_model: Optional[str] = typer.Option(None, "--developer-model", help="A coding agent's model (default: its adapter's; mini-swe-agent takes a litellm name, openai/... or anthropic/...)."),
    developer_prefix: Optional[Path] = typer.Option(None, "--developer-prefix", envvar="FACTFORGE_DEVELOPER_PREFIX", help="Where the coding agent is installed: an npm prefix (npm install --prefix DIR PACKAGE) or a venv; else the engage venv, then PATH."),
    developer_upstream: Optional[str] = typer.Option(None, "--developer-upstream", help="Send the developer's model traffic to this base URL instead of the providers (a compatible gateway; keys still from ANTHROPIC_API_KEY / OPENAI_API_KEY)."),
):
    """Run one engagement: a developer takes the task from its kit to a scored delivery.

    The developer works in DIR/workspace (a git repository) inside a bubblewrap boundary, with
    the kit read-only and the task's tools (the owner, the development API, samples, live
    experiments, models, submit) through kit/bin/ff or the ff-mcp MCP relay. At submit or the
    time limit the workspace is scanned for sealed strings and scored as `factforge eval` scores
    it; DIR/engagement.json and DIR/report.html record how the developer worked.

    Example: factforge engage pack --task _mock-client-knows --developer starting --out engagement
    """
    from facts.errors import FactforgeError  # noqa: PLC0415

    from .run import EngageConfig, run_engagement  # noqa: PLC0415

    from .adapters import names  # noqa: PLC0415

    if developer not in ("starting", *names()) and not developer.startswith(("scripted:", "cmd:")):
        raise typer.BadParameter(f"unknown developer {developer!r}: give starting, scripted:FILE, cmd:'...' or a "
                                 f"coding agent ({', '.join(names())})", param_hint="'--developer'")
    if hours is not None and not 0 < hours < 1e6:
        raise typer.BadParameter(f"{hours:g} is not a positive number of hours", param_hint="'--hours'")
    cfg = EngageConfig(pack=pack, task=task, developer=developer, out=out, hours=hours, trials=trials, seed=seed,
                       isolation=isolation, developer_model=developer_model, developer_prefix=developer_prefix,
                       developer_upstream=developer_upstream)
    record = run_engagement(cfg, progress=lambda line: print(line, file=sys.stderr, flush=True))
    s, end, ev, c = record["score"], record["end"], record["evidence_read"], record["contamination"]
    score = f"final score {s['final_score']:.4f}" if "refused" not in s else f"final score 0 (refused: {s['refused']})"
    dm = record.get("developer_model")
    dollars = (f"developer model {dm['calls']} calls, {dm['input_tokens'] + dm['output_tokens']} tokens, "
               f"${dm['cost_usd']:.4f}; " if dm else "")
    typer.echo(f"{task} {record['engagement']['developer']['spec'] if record['engagement']['developer']['kind'] == 'adapter' else record['engagement']['developer']['kind']}: {score}; ended {end['reason']} after "
               f"{record['time']['wall_seconds']:.1f} s; evidence read {ev['files']} of {ev['files_total']} files; "
               f"{record['workspace']['files_changed']} files changed; {dollars}contamination "
               f"{'clean' if c['clean'] else str(len(c['hits'])) + ' hit(s)'}; {Path(cfg.out) / 'engagement.json'} "
               "and report.html")
    if "refused" not in s and s["conversations"] and s["infra_errors"] == s["conversations"]:
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
    import json  # noqa: PLC0415

    from .adapters import listing  # noqa: PLC0415

    rows = listing(prefix)
    if as_json:
        typer.echo(json.dumps(rows, indent=2, sort_keys=True))
        return
    typer.echo(f"{'developer':<16} {'installed':<10} {'version':<28} {'tools':<5} {'default model':<22} install")
    for r in rows:
        typer.echo(f"{r['name']:<16} {'yes' if r['installed'] else 'no':<10} {(r['version'] or '-')[:28]:<28} "
                   f"{r['tools']:<5} {r['default_model']:<22} {r['install']}")
