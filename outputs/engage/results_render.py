"""The results table (`results.results_table`) as text, CSV and a self-contained HTML page.

Rows are the domains and `overall`; each run is a group of columns headed by its developer
(and model), followed by a group per difference against the first run. Every value comes
from the table; nothing here computes a measure.
"""
from __future__ import annotations

import csv
import html
import io
from typing import Optional

from .results import OVERALL

RUN_COLUMNS = ("tasks", "pass rate [95% CI]", "final", "build min", "dev $", "credits/conv", "owner turns",
               "evidence read")
DIFF_COLUMNS = ("paired", "pass rate [95% CI]", "final")
CSV_FIELDS = ("row", "run", "baseline", "developer", "model", "domain", "tasks", "refused", "conversations", "passed",
              "pass_rate", "ci_low", "ci_high", "final_score", "build_minutes", "developer_usd",
              "credits_per_conversation", "owner_turns", "evidence_files", "evidence_share", "paired_tasks")


def _rate(value: Optional[float], ci: Optional[dict], signed: bool = False) -> str:
    if value is None:
        return "-"
    fmt = "{:+.2f}" if signed else "{:.2f}"
    return f"{fmt.format(value)} [{fmt.format(ci['low'])}, {fmt.format(ci['high'])}]"


def _dollars(x: Optional[float]) -> str:
    if x is None:
        return "unknown"
    return "$0" if x == 0 else f"${x:.2f}" if x >= 0.01 else f"${x:.4f}"


def run_cells(g: Optional[dict]) -> list[str]:
    if g is None:
        return [""] * len(RUN_COLUMNS)
    tasks = f"{g['tasks']}" + (f" ({g['refused']} refused)" if g["refused"] else "")
    share = "" if g["evidence_share"] is None else f" ({g['evidence_share']:.0%})"
    credits = "-" if g["credits_per_conversation"] is None else f"{g['credits_per_conversation']:.4g}"
    return [tasks, _rate(g["pass_rate"], g["ci"]), f"{g['final_score']:.3f}", f"{g['build_minutes']:.1f}",
            _dollars(g["developer_usd"]), credits, f"{g['owner_turns']:.1f}", f"{g['evidence_files']:.1f}{share}"]


def diff_cells(d: Optional[dict]) -> list[str]:
    if d is None:
        return [""] * len(DIFF_COLUMNS)
    return [str(d["paired_tasks"]), _rate(d["pass_rate"], d["ci"], signed=True), f"{d['final_score']:+.3f}"]


def _groups(table: dict) -> list[tuple[str, tuple[str, ...], list[list[str]]]]:
    """(heading, column names, cells by domain) per column group."""
    out = []
    for run in table["runs"]:
        out.append((run["label"], RUN_COLUMNS, [run_cells(run["groups"].get(d)) for d in table["domains"]]))
    for diff in table["differences"]:
        out.append((f"{diff['run']} minus {diff['baseline']}", DIFF_COLUMNS,
                    [diff_cells(diff["groups"].get(d)) for d in table["domains"]]))
    return out


def _notes(table: dict) -> list[str]:
    notes = []
    for run in table["runs"]:
        if run["unfinished"]:
            notes.append(f"{run['label']}: not finished, left out: {', '.join(run['unfinished'])}")
    for diff in table["differences"]:
        if not diff["same_pack"]:
            notes.append(f"{diff['run']} and {diff['baseline']} were run on different pack versions")
    return notes


def text(table: dict) -> str:
    """Fixed-width table: a heading row of column groups, a row of column names, one row per domain."""
    groups = _groups(table)
    first = ["domain", *table["domains"]]
    columns: list[list[str]] = [["", *first]]
    for heading, names, cells in groups:
        for i, name in enumerate(names):
            columns.append([heading if i == 0 else "", name, *(row[i] for row in cells)])
    widths = [max(len(c) for c in col[1:]) for col in columns]
    # widen a group's last column when its heading is longer than the group
    start = 1
    for heading, names, _ in groups:
        span = sum(widths[start:start + len(names)]) + 2 * (len(names) - 1)
        if len(heading) > span:
            widths[start + len(names) - 1] += len(heading) - span
        start += len(names)
    lines = []
    for r in range(len(columns[0])):
        parts, start = [columns[0][r].ljust(widths[0])], 1
        for heading, names, _ in groups:
            if r == 0:
                span = sum(widths[start:start + len(names)]) + 2 * (len(names) - 1)
                parts.append(heading.ljust(span))
            else:
                parts.append("  ".join(columns[start + i][r].ljust(widths[start + i]) for i in range(len(names))))
            start += len(names)
        lines.append(" | ".join(parts).rstrip())
    lines.insert(2, "-" * max(len(x) for x in lines))
    return "\n".join(lines + _notes(table)) + "\n"


def _csv_safe(value) -> object:
    """A text cell a spreadsheet would read as a formula gets a leading apostrophe."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value


def csv_text(table: dict) -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=CSV_FIELDS, lineterminator="\n")
    w.writeheader()
    for run in table["runs"]:
        for domain in table["domains"]:
            g = run["groups"].get(domain)
            if g is None:
                continue
            ci = g["ci"] or {}
            w.writerow({k: _csv_safe(v) for k, v in {
                "row": "run", "run": run["label"], "developer": run["developer"], "model": run["model"] or "",
                "domain": domain, **{k: g[k] for k in ("tasks", "refused", "conversations", "passed", "pass_rate",
                                                       "final_score", "build_minutes", "developer_usd",
                                                       "credits_per_conversation", "owner_turns", "evidence_files",
                                                       "evidence_share")},
                "ci_low": ci.get("low"), "ci_high": ci.get("high")}.items()})
    for diff in table["differences"]:
        for domain in table["domains"]:
            d = diff["groups"].get(domain)
            if d is None:
                continue
            ci = d["ci"] or {}
            w.writerow({k: _csv_safe(v) for k, v in {
                "row": "difference", "run": diff["run"], "baseline": diff["baseline"], "domain": domain,
                "pass_rate": d["pass_rate"], "ci_low": ci.get("low"), "ci_high": ci.get("high"),
                "final_score": d["final_score"], "paired_tasks": d["paired_tasks"]}.items()})
    return buf.getvalue()


def html_page(table: dict) -> str:
    """One page, no scripts, no external files; every value escaped."""
    e = html.escape
    groups = _groups(table)
    head1 = "<tr><th rowspan=2>domain</th>" + "".join(
        f'<th colspan={len(names)} class="{"diff" if i >= len(table["runs"]) else "run"}">{e(heading)}</th>'
        for i, (heading, names, _) in enumerate(groups)) + "</tr>"
    head2 = "<tr>" + "".join(f"<th>{e(n)}</th>" for _, names, _ in groups for n in names) + "</tr>"
    rows = []
    for i, domain in enumerate(table["domains"]):
        cls = ' class="overall"' if domain == OVERALL else ""
        rows.append(f"<tr{cls}><th>{e(domain)}</th>" + "".join(
            f"<td>{e(c)}</td>" for _, _, cells in groups for c in cells[i]) + "</tr>")
    runs = "".join(f"<li>{e(r['label'])}: {e(r['path'])} (pack {e(r['pack_version'])}, {len(r['tasks'])} tasks)</li>"
                   for r in table["runs"])
    notes = "".join(f"<li>{e(n)}</li>" for n in _notes(table))
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>factforge results</title>
<style>body{{font-family:sans-serif;margin:2em}}table{{border-collapse:collapse;font-size:13px}}
td,th{{border:1px solid #ccc;padding:3px 8px;text-align:left;white-space:nowrap}}th{{background:#f3f3f3}}
th.diff{{background:#eef3fa}}tr.overall td,tr.overall th{{font-weight:bold;border-top:2px solid #888}}</style>
</head><body>
<h1>factforge results</h1>
<table>{head1}{head2}{"".join(rows)}</table>
<h2>Runs</h2><ul>{runs}</ul>
{f"<h2>Notes</h2><ul>{notes}</ul>" if notes else ""}
<p>Pass rate: conversations that passed over conversations scored, pooled over a domain's tasks,
with Wilson's 95% interval; a difference is over the tasks both runs hold, with Newcombe's 95%
interval. Final score, build minutes (the developer's wall time), developer dollars (its own
model spending), serving credits per conversation, owner turns and evidence files read are
means over tasks.</p>
</body></html>
"""
