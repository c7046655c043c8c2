"""`report.html`: one self-contained page from `engagement.json` (inline SVG plots,
`outputs.svgchart`; no scripts, no external files).

Sections: the score; how the engagement ended; the process measures (owner, each
stakeholder, the capabilities switched on and fixes deployed with the deployment scored under,
samples and live runs, API calls, models and experiment spend against the serving budget, the delivered
agent's serving cost; evidence read; wall and CPU time; files changed); the contamination
scan; two plots (the timeline of every tool call and evidence file opened; evidence read by
kind against what the kit holds); the developer's own model traffic (calls, tokens, dollars, per
model); a coding agent's trajectory (`trajectory.json`, ATIF) as a readable timeline beside the
tool calls as a table.

No plotting library: the engagement's path stays lean.
"""
from __future__ import annotations

import html
import json
from pathlib import Path

from ..svgchart import hbar_chart, timeline_chart

MAX_KINDS = 40


def plots(record: dict) -> dict[str, str]:
    out: dict[str, str] = {}
    events = record["timeline"]
    tools = sorted({str(e.get("tool")) for e in events})
    rows = ["evidence opened", *tools]
    marks = [(0, p["t"], "|", "#72b7b2") for p in record["evidence_read"]["paths"]]
    for i, name in enumerate(tools, start=1):
        marks += [(i, e["t"], "o" if e.get("ok") else "x", "#4c78a8" if e.get("ok") else "#e45756")
                  for e in events if str(e.get("tool")) == name]
    out["timeline"] = timeline_chart(
        rows, marks, end=record["time"]["wall_seconds"],
        x_label=f"seconds since the developer started (dashed: end, {record['end']['reason']}); o: call, x: refused")

    by_kind = list(record["evidence_read"]["by_kind"].items())[:MAX_KINDS]
    out["evidence"] = hbar_chart(
        [k for k, _ in by_kind], [("#dddddd", [v["total"] for _, v in by_kind]), ("#4c78a8", [v["read"] for _, v in by_kind])],
        x_max=max([v["total"] for _, v in by_kind] or [1]), x_label="evidence files",
        legend=[("#dddddd", "files in the kit"), ("#4c78a8", "opened by the developer")])
    return out


def _row(cells: list, tag: str = "td") -> str:
    return "<tr>" + "".join(f"<{tag}>{html.escape(str(c))}</{tag}>" for c in cells) + "</tr>"


def _table(pairs: list[tuple[str, object]]) -> str:
    return "<table>" + "".join(_row([k, v]) for k, v in pairs) + "</table>"


def measures(record: dict) -> list[tuple[str, object]]:
    u, ev, t, w, s = record["tools"], record["evidence_read"], record["time"], record["workspace"], record["score"]
    owner, samples, live, models = u.get("owner", {}), u.get("samples", {}), u.get("live", {}), u.get("models", {})
    budget = s.get("budget") or {}
    return [
        ("owner turns used", f"{owner.get('turns', 0)} of {owner.get('quota', 0)}"),
        ("held facts elicited", f"{len(owner.get('held_elicited', []))} of {owner.get('held_total', 0)}"),
        ("contested facts settled", f"{len(owner.get('contested_settled', []))} of {owner.get('contested_total', 0)}"),
        ("defects reported / confirmed", f"{owner.get('defects_reported', 0)} / "
                                         f"{len(owner.get('defects_confirmed', []))} of {owner.get('defects_total', 0)}"),
        *levers(owner, record.get("scored_deployment")),
        *[(f"asked {role}", f"{v['turns']} of {v['quota']} turns; {len(v['held_elicited'])} of {v['held_total']} "
                            f"of their facts elicited; habits heard: {', '.join(v['habits_voiced']) or 'none'}; "
                            f"other people's facts revealed: {len(v['cross_revealed'])}")
          for role, v in sorted(u.get("people", {}).items(), key=lambda rv: (rv[0] != "owner", rv[0]))],
        ("sample runs", f"{samples.get('runs', 0)} of {samples.get('quota', 0)}"),
        ("live runs", f"{live.get('runs', 0)} of {live.get('quota', 0)}"),
        ("development API calls", u.get("api_calls", 0)),
        ("models tried", ", ".join(models.get("tried", [])) or "none"),
        ("experiment spend (credits)", f"{models.get('credits', 0):.6g} over {models.get('calls', 0)} calls"),
        ("delivered agent's serving cost (credits per conversation)",
         f"{s.get('credits_mean', 0):.6g} against budget " + (", ".join(f"{k} {v:g}" for k, v in budget.items()) or "-")),
        ("evidence files opened", f"{ev['files']} of {ev['files_total']}"),
        ("files carrying the tested facts opened", f"{ev['carriers']['read']} of {ev['carriers']['total']} "
         f"({len(ev['carriers']['facts_reached'])} of {ev['carriers']['facts_tested']} tested facts reached)"),
        ("other kit files opened", ", ".join(p["path"] for p in ev["other_kit_files"]) or "none"),
        ("wall time", f"{t['wall_seconds']:.1f} s of {t['limit_seconds']:g} s"),
        ("CPU time", f"{t['cpu_seconds']:.1f} s"),
        ("files changed", f"{w['files_changed']} ({len(w['added'])} added, {len(w['modified'])} modified, "
         f"{len(w['deleted'])} deleted)"),
    ]


def levers(owner: dict, scored: dict | None) -> list[tuple[str, object]]:
    """What the developer got the client to do, and the deployment it was scored under (a task
    whose client can switch operations on or deploy fixes)."""
    if not scored:
        return []
    return [("capabilities switched on", f"{len(owner.get('capabilities_enabled', []))} of "
                                         f"{owner.get('capabilities_total', 0)}: "
                                         f"{', '.join(owner.get('capabilities_enabled', [])) or 'none'}"),
            ("fixes deployed", f"{len(owner.get('fixes_deployed', []))} of {owner.get('fixes_total', 0)}"),
            ("scored deployment", f"{scored['deployment']}; switched on: {', '.join(scored['enabled']) or 'none'}; "
                                  f"fixed defects: {', '.join(map(str, scored['fixed'])) or 'none'} "
                                  f"(hash {scored['hash']})")]


STEP_TEXT = 600          # characters of a trajectory message or observation shown


def model_traffic(record: dict) -> str:
    m = record.get("developer_model")
    if not m:
        return ""
    rows = [_row(["model", "calls", "input tokens", "output tokens", "dollars"], "th")] + [
        _row([name, v["calls"], v["input_tokens"], v["output_tokens"], f"{v['cost_usd']:.6f}"])
        for name, v in sorted(m["by_model"].items())]
    return (f"<h2>The developer's model traffic: ${m['cost_usd']:.4f}</h2>"
            f"<p>{m['calls']} calls ({m['failed']} failed, {m['unpriced']} unpriced), {m['input_tokens']} input and "
            f"{m['output_tokens']} output tokens, metered by the engagement's proxy ({html.escape(m['records'])}).</p>"
            f"<table>{''.join(rows)}</table>")


def _short(x: object) -> str:
    s = x if isinstance(x, str) else json.dumps(x, sort_keys=True, ensure_ascii=False)
    return s if len(s) <= STEP_TEXT else s[:STEP_TEXT] + " ..."


def trajectory_steps(out: Path) -> list[dict]:
    try:
        doc = json.loads((Path(out) / "trajectory.json").read_text(encoding="utf-8"))
        return [st for st in doc["steps"] if isinstance(st, dict)]
    except (OSError, ValueError, KeyError, TypeError):
        return []


def trajectory_table(steps: list[dict]) -> str:
    rows = [_row(["step", "who", "said", "called", "got back"], "th")]
    for st in steps:
        calls = "\n".join(f"{c.get('function_name')} {_short(c.get('arguments'))}" for c in st.get("tool_calls", []))
        got = "\n".join(_short(r.get("content", "")) for r in (st.get("observation") or {}).get("results", []))
        said = _short(st.get("message", ""))
        if st.get("reasoning_content"):
            said = f"[thinking] {_short(st['reasoning_content'])}\n{said}".strip()
        rows.append("<tr>" + "".join(f'<td class="pre">{html.escape(str(c))}</td>'
                                     for c in (st.get("step_id"), st.get("source"), said, calls, got)) + "</tr>")
    return f"<table>{''.join(rows)}</table>"


def render(record: dict, out: Path = Path(".")) -> str:
    e, end, s, c = record["engagement"], record["end"], record["score"], record["contamination"]
    p = plots(record)
    title = f"factforge engage: {e['task']} / {e['developer']['spec']}"
    score = (f"final score {s['final_score']:.4f}" if "refused" not in s
             else f"final score 0 (the evaluator refused the workspace: {s['refused']})")
    summary = [] if "refused" in s else [
        ("mean reward", f"{s['mean_reward']:.4f}"), ("budget penalty", f"{s['penalty']:.4f}"),
        ("95% CI", f"{s['ci']['low']:.3f} to {s['ci']['high']:.3f}"),
        ("pass^k", ", ".join(f"k={k}: {v:.3f}" for k, v in s["pass_hat_k"].items())),
        ("conversations / agent errors / infra errors", f"{s['conversations']} / {s['agent_errors']} / {s['infra_errors']}"),
        ("evaluation", f"{s['results']}, {s['report']}")]
    hits = [_row(["path", "what", "needle", "context"], "th")] + [
        _row([h["path"], h["what"], h["needle"], h.get("context", "")]) for h in c["hits"]]
    timeline = [_row(["t (s)", "tool", "ok", "summary"], "th")] + [
        _row([f"{ev.get('t', 0):.2f}", ev.get("tool"), "yes" if ev.get("ok") else "refused",
              ev.get("summary") or ev.get("error") or ""]) for ev in record["timeline"]]
    traj = record.get("trajectory")
    steps = trajectory_steps(out) if traj else []
    tool_calls = f"<h2>Tool calls ({len(record['timeline'])})</h2><table>{''.join(timeline)}</table>"
    if traj:
        a = traj["agent"]
        calls = ", ".join(f"{k} {v}" for k, v in traj["tool_calls"].items()) or "none"
        tool_calls = (f'<div class="side"><div><h2>Trajectory ({html.escape(a["name"])} '
                      f'{html.escape(str(a["version"]))}, {html.escape(str(a["model_name"]))}): {traj["steps"]} steps'
                      f'</h2><p>{traj["agent_steps"]} agent turns; calls: {html.escape(calls)}. '
                      f'trajectory.json (ATIF)</p>{trajectory_table(steps)}</div><div>{tool_calls}</div></div>')
    changed = [_row(["change", "path"], "th")] + [
        _row([k, path]) for k in ("added", "modified", "deleted") for path in record["workspace"][k]]
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>body{{font-family:sans-serif;margin:2em;max-width:1200px}}table{{border-collapse:collapse;font-size:12px}}
td,th{{border:1px solid #ccc;padding:3px 6px;text-align:left;vertical-align:top}}th{{background:#f3f3f3}}
.big{{font-size:28px;font-weight:bold}}svg{{max-width:100%;height:auto}}.pre{{white-space:pre-wrap;max-width:420px}}
.side{{display:flex;gap:1.5em;align-items:flex-start}}.side>div{{flex:1;min-width:0}}</style></head><body>
<h1>{html.escape(title)}</h1>
<p>pack {html.escape(e['pack'])} (version {html.escape(e['pack_version'])}), domain {html.escape(e['domain'])},
developer {html.escape(e['developer']['kind'])}, isolation {html.escape(e['isolation'])}, starting workspace
{html.escape(e['starting_workspace'])} (initial import {html.escape(e['initial_commit'][:12])}); started
{html.escape(e['started'])}.</p>
<p class="big">{html.escape(score)}</p>
{_table(summary)}
<p>ended: {html.escape(end['reason'])}{(' (' + html.escape(end['detail']) + ')') if end['detail'] else ''}</p>
<h2>How the developer worked</h2>{_table(measures(record))}
{model_traffic(record)}
<h2>Timeline</h2>{p["timeline"]}
<h2>Evidence read by kind</h2>{p["evidence"]}
<h2>Contamination scan: {'clean' if c['clean'] else f"{len(c['hits'])} hit(s)"}</h2>
<table>{"".join(hits)}</table>
<h2>Workspace changes</h2><table>{"".join(changed)}</table>
{tool_calls}
</body></html>
"""


def write_report(record: dict, out: Path) -> Path:
    target = Path(out) / "report.html"
    tmp = Path(out) / ".report.html.tmp"
    tmp.write_text(render(record, out), encoding="utf-8")
    tmp.replace(target)
    return target
