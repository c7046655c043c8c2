"""`report.html`: one self-contained page (inline SVG plots, `outputs.svgchart`; no scripts,
no external files) from `results.json`.

Plots: reward per test (mean over trials, coloured by trap kind), budget use (credits per
conversation against each budget tier of the task) and pass rate per fact (the facts the
tests exercise, weakest first). Tables: the summary, every conversation with its reward
breakdown, credits, defects met and error, and the errors apart. Deterministic: the same
results give the same bytes. No plotting library: the evaluator's path stays lean.
"""
from __future__ import annotations

import html
from collections import defaultdict
from pathlib import Path
from statistics import fmean

from ..svgchart import bar_chart, hbar_chart, points_chart
from .models import Results

MAX_FACTS = 60
TRAP_COLOURS = {"none": "#4c78a8", "refuse": "#f58518", "fee": "#e45756", "rate": "#b279a2", "missing_info": "#72b7b2",
                "transfer": "#54a24b"}


def _plots(r: Results) -> dict[str, str]:
    out: dict[str, str] = {}
    by_test: dict[str, list] = defaultdict(list)
    for c in r.tests:
        by_test[c.id].append(c)
    ids = list(by_test)
    means = [fmean(x.reward for x in by_test[i]) for i in ids]
    traps = [by_test[i][0].trap for i in ids]
    out["reward"] = bar_chart(
        means, [TRAP_COLOURS.get(t, "#999") for t in traps],
        [i.split(".")[1][:18] if "." in i else i[:18] for i in ids], y_max=1.05,
        y_label="reward (mean over trials)", x_label=f"test ({len(ids)})",
        legend=[(TRAP_COLOURS.get(t, "#999"), f"trap: {t}") for t in sorted(set(traps))])

    credits = [c.credits for c in r.tests]
    lines = [(r.summary.credits_mean, "#4c78a8", True, f"mean {r.summary.credits_mean:.4g}")]
    lines += [(b, "#e45756" if tier == "hard" else "#f58518" if tier == "medium" else "#54a24b", False,
               f"budget {tier} {b:g}") for tier, b in r.summary.budget.items()]
    out["budget"] = points_chart(credits, lines, y_label="credits", x_label="conversation", point_colour="#4c78a8",
                                 point_label="credits per conversation",
                                 linthresh=min(r.summary.budget.values() or [1e-3]) / 10)

    facts = sorted(r.summary.by_fact.items(), key=lambda kv: (kv[1], kv[0]))
    shown = facts[:MAX_FACTS]
    out["facts"] = hbar_chart([k for k, _ in shown], [("#72b7b2", [v for _, v in shown])], x_max=1.0,
                              x_label="pass rate of the conversations exercising the fact"
                              + (f" (weakest {len(shown)} of {len(facts)})" if len(facts) > len(shown) else ""))
    return out


def _row(cells: list, tag: str = "td") -> str:
    return "<tr>" + "".join(f"<{tag}>{html.escape(str(c))}</{tag}>" for c in cells) + "</tr>"


def render(r: Results) -> str:
    s, run = r.summary, r.run
    plots = _plots(r)
    summary = [("final score", f"{s.final_score:.4f}"), ("mean reward", f"{s.mean_reward:.4f}"),
               ("95% CI (bootstrap over tests)", f"{s.ci.low:.3f} to {s.ci.high:.3f}"),
               ("budget penalty", f"{s.penalty:.4f}"), ("credits per conversation (mean)", f"{s.credits_mean:.6g}"),
               ("budget", ", ".join(f"{k} {v:g}" for k, v in s.budget.items())),
               ("pass^k", ", ".join(f"k={k}: {v:.3f}" for k, v in s.pass_hat_k.items())),
               ("conversations / tests / scenarios", f"{s.conversations} / {s.tests} / {s.templates}"),
               ("mean reward per scenario (macro)", f"{s.macro_reward:.4f}"),
               ("agent errors / infra errors", f"{s.agent_errors} / {s.infra_errors}"),
               ("pass rate by trap", ", ".join(f"{k} {v:.2f}" for k, v in s.by_trap.items()))]
    conv_rows = [_row(["test", "trial", "reward", "breakdown", "credits", "messages", "defects met", "end", "error"], "th")]
    for c in r.tests:
        conv_rows.append(_row([c.id, c.trial, f"{c.reward:g}", " ".join(f"{k}={v.score:g}" for k, v in c.breakdown.items()),
                               f"{c.credits:.6g}", len(c.messages),
                               ", ".join(f"{k} x{n}" for k, n in c.defects_hit.items()), c.end,
                               c.infra_error or c.error or ""]))
    errors = [c for c in r.tests if c.error or c.infra_error]
    err_rows = [_row(["test", "trial", "kind", "message"], "th")] + [
        _row([c.id, c.trial, "infra" if c.infra_error else "agent", c.infra_error or c.error]) for c in errors]
    title = f"factforge eval: {run.task} / {run.agent}"
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>body{{font-family:sans-serif;margin:2em;max-width:1200px}}table{{border-collapse:collapse;font-size:12px}}
td,th{{border:1px solid #ccc;padding:3px 6px;text-align:left;vertical-align:top}}th{{background:#f3f3f3}}
.big{{font-size:28px;font-weight:bold}}svg{{max-width:100%;height:auto}}</style></head><body>
<h1>{html.escape(title)}</h1>
<p>pack {html.escape(run.pack)} (version {html.escape(run.pack_version)}), domain {html.escape(run.domain)},
deployment {html.escape(run.deployment)}, user {html.escape(run.user)}, {run.trials} trial(s) per test,
split {html.escape(run.split)}, isolation {html.escape(run.isolation)}; started {html.escape(run.started)},
{run.seconds:.1f} s.</p>
<p class="big">final score {s.final_score:.4f}</p>
<table>{"".join(_row([k, v]) for k, v in summary)}</table>
<h2>Reward per test</h2>{plots["reward"]}
<h2>Budget use</h2>{plots["budget"]}
<h2>Pass rate per fact</h2>{plots["facts"]}
<h2>Errors ({len(errors)})</h2><table>{"".join(err_rows)}</table>
<h2>Conversations</h2><table>{"".join(conv_rows)}</table>
</body></html>
"""


def write_report(r: Results, out: Path) -> Path:
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    target = out / "report.html"
    tmp = out / ".report.html.tmp"
    tmp.write_text(render(r), encoding="utf-8")
    tmp.replace(target)
    return target
