"""`factforge audit ...`: the human review queue on the command line.

    enqueue BUNDLE_DIR            queue every artifact of a bundle
    requeue BUNDLE_DIR            queue only the artifacts rejected in an earlier round
    next --reviewer NAME          lease and print the next item for NAME
    submit ITEM_ID --reviewer NAME --fact ID=present|absent|wrong_value ... [--all-present]
           --realistic|--not-realistic --comment TEXT
    status                        counts and Fleiss' kappa
    export [--out FILE]           every item with its reviews and consensus, as JSON

--db defaults to `$FACTFORGE_AUDIT_DB`, else `$FACTFORGE_WORKSPACE/audit.sqlite`, else
`~/.factforge/audit.sqlite` (see audits.queue.default_db_path). Errors caused by input are
printed as one line on stderr with exit status 1.
"""
from __future__ import annotations

import json
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Optional

import typer

from facts.errors import FactforgeError

from .queue import VERDICTS, AuditQueue, EnqueueResult, Item, default_db_path

app = typer.Typer(help="Human audit review queue: three reviewers per artifact, consensus, re-queue of rejects.\n\n"
                       "Example: factforge audit enqueue out/bundles/_mock/*",
                  no_args_is_help=True, add_completion=False)

DB_HELP = "Audit database (default: $FACTFORGE_AUDIT_DB, else $FACTFORGE_WORKSPACE/audit.sqlite, else ~/.factforge/audit.sqlite)."


@contextmanager
def _queue(db: Optional[Path]) -> Iterator[AuditQueue]:
    try:
        q = AuditQueue(db or default_db_path())
        try:
            yield q
        finally:
            q.close()
    except FactforgeError as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(1) from None


def _print_enqueue(res: EnqueueResult) -> None:
    typer.echo(f"bundle {res.bundle_version}: {len(res.added)} item(s) queued "
               f"({len(res.requeued)} re-queued after rejection), {res.existing} already queued, "
               f"{len(res.unchanged)} unchanged")
    if res.superseded:
        typer.echo(f"superseded open item(s): {', '.join(map(str, res.superseded))}")
    if res.still_rejected:
        typer.echo(f"warning: rejected artifact(s) not regenerated in this bundle: {', '.join(res.still_rejected)}",
                   err=True)


@app.command()
def enqueue(bundle_dir: Path = typer.Argument(..., help="Bundle directory (with manifest.json and facts.json)."),
            db: Optional[Path] = typer.Option(None, "--db", help=DB_HELP)) -> None:
    """Queue every artifact of a bundle (idempotent).

    Example: factforge audit enqueue out/bundles/_mock/*
    """
    with _queue(db) as q:
        _print_enqueue(q.enqueue(bundle_dir))


@app.command()
def requeue(bundle_dir: Path = typer.Argument(..., help="The next bundle, built after rejections."),
            db: Optional[Path] = typer.Option(None, "--db", help=DB_HELP)) -> None:
    """Queue, one round higher, the artifacts of a new bundle that were rejected before.

    Example: factforge audit requeue out/bundles/_mock/*
    """
    with _queue(db) as q:
        _print_enqueue(q.requeue(bundle_dir))


def _describe(item: Item) -> str:
    variant = f" ({item.variant})" if item.variant else ""
    lines = [f"item {item.id}  {item.kind}  round {item.round}  reviews {item.reviews}/3",
             f"file: {item.path}",
             f"artifact: {item.artifact_id}  domain: {item.domain}{variant}  bundle: {item.bundle_version}",
             f"claimed facts ({len(item.facts)}):"]
    for f in item.facts:
        values = f"  [values: {', '.join(f.values)}]" if f.values else ""
        lines.append(f"  {f.id}  {f.statement}{values}")
    if not item.facts:
        lines.append("  (none: judge realism only)")
    lines.append(f"answer with: submit {item.id} --reviewer NAME --fact FACT_ID={'|'.join(VERDICTS)} ... "
                 f"--realistic|--not-realistic --comment TEXT")
    return "\n".join(lines)


@app.command("next")
def next_cmd(reviewer: str = typer.Option(..., "--reviewer", help="Your reviewer name."),
             db: Optional[Path] = typer.Option(None, "--db", help=DB_HELP),
             as_json: bool = typer.Option(False, "--json", help="Print the item as JSON.")) -> None:
    """Lease the next item for a reviewer and print it.

    Example: factforge audit next --reviewer ana --json
    """
    with _queue(db) as q:
        item = q.next_item(reviewer)
        if item is None:
            typer.echo(json.dumps(None) if as_json else f"no item for {reviewer.strip()}")
            return
        typer.echo(json.dumps(item.to_dict(), indent=2, ensure_ascii=False) if as_json else _describe(item))


@app.command()
def submit(item_id: int = typer.Argument(..., help="Item id printed by next."),
           reviewer: str = typer.Option(..., "--reviewer", help="Your reviewer name."),
           fact: list[str] = typer.Option([], "--fact", metavar="<id=verdict>", help=f"FACT_ID={'|'.join(VERDICTS)}; repeatable."),
           all_present: bool = typer.Option(False, "--all-present",
                                            help="Mark every claimed fact present (then --fact overrides)."),
           realistic: bool = typer.Option(..., "--realistic/--not-realistic", help="Does the artifact look real?"),
           comment: str = typer.Option("", "--comment", help="Free-text comment."),
           db: Optional[Path] = typer.Option(None, "--db", help=DB_HELP)) -> None:
    """Record a review of an item.

    Example: factforge audit submit 1 --reviewer ana --all-present --realistic
    """
    with _queue(db) as q:
        verdicts: dict[str, str] = {}
        if all_present:
            verdicts = {f.id: "present" for f in q.item(item_id).facts}
        for spec in fact:
            fid, sep, verdict = spec.partition("=")
            if not sep or not fid.strip():
                raise FactforgeError(f"--fact '{spec}' is not FACT_ID={'|'.join(VERDICTS)}")
            verdicts[fid.strip()] = verdict.strip()
        item = q.submit(item_id, reviewer, verdicts, realistic, comment)
        if item.status == "complete":
            typer.echo(f"review recorded; item {item.id} complete: {'accepted' if item.accepted else 'rejected'}")
        else:
            typer.echo(f"review recorded; item {item.id} has {item.reviews}/3 reviews")


@app.command()
def status(db: Optional[Path] = typer.Option(None, "--db", help=DB_HELP),
           as_json: bool = typer.Option(False, "--json", help="Print as JSON.")) -> None:
    """Counts of items and reviews, reviews per reviewer, Fleiss' kappa.

    Example: factforge audit status --json
    """
    with _queue(db) as q:
        st = q.status()
    if as_json:
        typer.echo(json.dumps(st, indent=2, sort_keys=True))
        return

    def k(v: Optional[float]) -> str:
        return "n/a" if v is None else f"{v:.3f}"

    typer.echo(f"items {st['items']}: open {st['open']}, complete {st['complete']} "
               f"(accepted {st['accepted']}, rejected {st['rejected']}), superseded {st['superseded']}")
    typer.echo(f"reviews {st['reviews']}, live leases {st['leases']}")
    for name, n in st["reviewers"].items():
        typer.echo(f"  {name}: {n}")
    typer.echo(f"Fleiss' kappa: facts {k(st['kappa']['facts'])}, realistic {k(st['kappa']['realistic'])}")


@app.command()
def export(db: Optional[Path] = typer.Option(None, "--db", help=DB_HELP),
           out: Optional[Path] = typer.Option(None, "--out", help="Write JSON here instead of stdout.")) -> None:
    """Export every item with its reviews and consensus as JSON.

    Example: factforge audit export --out audit.json
    """
    with _queue(db) as q:
        text = json.dumps(q.export(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    if out is None:
        typer.echo(text, nl=False)
    else:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")
        typer.echo(f"wrote {out}")
