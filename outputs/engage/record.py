"""`engagement.json`: the record of one engagement (schema `ENGAGEMENT_SCHEMA_VERSION`).

Top-level keys:

- `engagement`: pack (path and version), task, domain, developer (`kind`, `spec`, a script's
  `face`), hours, isolation, seed, start time, the starting workspace (`seeded` | `empty`) and
  the initial import's commit id;
- `end`: why the developer's run ended (`submitted`, `exited`, `time_limit`, `limit`,
  `starting`), with a detail and the exit status;
- `time`: the developer's wall and CPU seconds, their limits, peak memory and processes, and
  the whole engagement's seconds (scoring included);
- `workspace`: paths `added`, `modified`, `deleted` against the initial import, `files_changed`;
- `contamination`: `clean`, `hits` (path, what, needle, context), what was looked for;
- `evidence_read`: `evidence.summarise`;
- `tools`: `ToolService.usage()` (owner turns, held facts elicited, contested facts settled,
  defects reported and confirmed, samples and live runs, API calls, models and experiment
  spend);
- `timeline`: every tool call, ok or refused (`t`: seconds since the tools started);
- `developer_model`: the developer's own model traffic through the engagement's proxy (None when
  none was relayed): calls, failed, unpriced, input and output tokens, `cost_usd` (the
  "developer dollars", from litellm's price map), `by_model`, and `records`
  (`model_calls.jsonl`, one line per call);
- `trajectory`: a coding agent's trajectory (`trajectory.json`, ATIF): steps, agent steps,
  tool calls by name, the agent (name, version, model); None for other developers;
- `score`: the evaluator's summary (final score, mean reward, penalty, pass^k, CI, the
  delivered agent's mean serving cost `credits_mean` against the budget, errors), the path of
  its results, or `refused` (the evaluator's one line) with a final score of 0.

Timings (`t`, `*_seconds`, `started`) are the only fields two runs of the same engagement
may differ in.
"""
from __future__ import annotations

import json
from pathlib import Path

ENGAGEMENT_SCHEMA_VERSION = "1.1"
SCORE_FIELDS = ("final_score", "mean_reward", "penalty", "pass_hat_k", "ci", "credits_mean", "budget", "infra_errors",
                "agent_errors", "conversations", "tests", "pass_rate")


def _score(results, refusal) -> dict:
    if results is None:
        return {"final_score": 0.0, "refused": refusal}
    s = results.summary.model_dump(mode="json")
    return {**{k: s[k] for k in SCORE_FIELDS}, "results": "evaluation/results.json", "report": "evaluation/report.html"}


def build_record(*, cfg, ctx, dev, prep, phase, changes, truncated, contamination, evidence, results, refusal,
                 started, seconds, hours, trajectory=None) -> dict:
    end = phase["ending"]
    developer = {"kind": dev.kind, "spec": dev.spec}
    if dev.script is not None:
        developer["face"] = dev.script["face"]
        developer["steps"] = len(dev.script["steps"])
    if dev.adapter is not None:
        developer.update(program=dev.adapter.program, package=dev.adapter.package,
                         model=cfg.developer_model or dev.adapter.default_model,
                         version=(trajectory or {}).get("agent", {}).get("version"))
    return {
        "schema_version": ENGAGEMENT_SCHEMA_VERSION,
        "engagement": {"pack": str(Path(cfg.pack).resolve()), "pack_version": ctx.pack_version, "task": cfg.task,
                       "domain": ctx.domain, "developer": developer, "hours": hours, "isolation": phase["isolation"],
                       "seed": cfg.seed, "trials": cfg.trials, "started": started, "starting_workspace": prep.starting,
                       "initial_commit": prep.commit},
        "end": {"reason": end.reason, "detail": end.detail, "status": end.status},
        "time": {"wall_seconds": end.wall_seconds, "cpu_seconds": end.cpu_seconds,
                 "limit_seconds": phase["limit_seconds"], "cpu_limit_seconds": phase["cpu_limit_seconds"],
                 "peak_memory_bytes": end.peak_memory, "peak_processes": end.peak_processes,
                 "engagement_seconds": round(seconds, 3)},
        "workspace": {**changes, "files_changed": sum(len(v) for v in changes.values()), "truncated": truncated},
        "contamination": contamination,
        "evidence_read": evidence,
        "tools": phase["usage"],
        "timeline": phase["events"],
        "score": _score(results, refusal),
        "developer_model": phase.get("model_traffic"),
        "trajectory": trajectory,
    }


def write_record(record: dict, out: Path) -> Path:
    """`out/engagement.json` (written whole, then renamed into place)."""
    target = Path(out) / "engagement.json"
    tmp = Path(out) / ".engagement.json.tmp"
    tmp.write_text(json.dumps(record, indent=2, sort_keys=True, ensure_ascii=False, default=str) + "\n",
                   encoding="utf-8")
    tmp.replace(target)
    return target
