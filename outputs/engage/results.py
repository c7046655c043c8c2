"""`factforge results RUN [RUN ...]`: the table of batch runs, per domain and overall.

A RUN is a batch folder (`run.json` and `RUN/<task>/engagement.json`) or one engagement's
folder (`engagement.json`). Only those files are read, each checked by `record.read_record`;
a broken or hostile one is an error naming it.

Per run and per domain (and over every task), from the engagement records:

- **pass rate**: conversations that passed (reward 1) over conversations scored, pooled over
  the tasks; a workspace the evaluator refused counts its sealed tests (times the trials) as
  failed conversations. Its 95% interval is Wilson's (`metrics.wilson_interval`), which treats
  conversations as independent: conversations of one task share a delivered agent, so with
  few tasks the interval is narrower than the spread between tasks.
- **final score**: the mean over tasks of the evaluator's final score (after the budget penalty).
- **build minutes**: the mean over tasks of the developer's wall time.
- **developer dollars**: the mean over tasks of the developer's own model spending, from the
  record's metering (`record.METERING_KEY`); 0 for a developer that could reach no model (no
  program, a script, or any program inside the sandbox, which has no network) and unknown
  otherwise, or when a metered call could not be priced.
- **serving credits per conversation**: the mean over scored tasks of the delivered agent's
  mean serving cost.
- **owner turns** and **evidence read** (files opened, and their share of the kits' files):
  means over tasks.

The first RUN is the baseline: each other run gets the difference against it, over the tasks
both hold (paired by task): pass rate (Newcombe's interval, `metrics.difference_interval`) and
final score.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from statistics import fmean
from typing import Optional

from facts.errors import FactforgeError
from outputs.evaluator.metrics import difference_interval, wilson_interval

from .batch import RUN_SCHEMA_VERSION
from .record import METERING_KEY, read_json, read_record

OVERALL = "overall"
TASK_ID = re.compile(r"^[a-z_][a-z0-9_]*(-[a-z0-9]+)+$")
NO_MODEL = ("starting", "scripted")
MAX_TASKS = 10_000
LABEL_MAX = 80


@dataclass
class Run:
    path: Path
    developer: str                      # the developer's spec
    model: Optional[str]
    pack_version: str
    records: dict[str, dict]            # task -> engagement record
    unfinished: list[str] = field(default_factory=list)
    label: str = ""


def _batch(path: Path) -> Run:
    data = read_json(path / "run.json", "a batch run")
    tasks = data.get("tasks") if isinstance(data, dict) else None
    dev = data.get("developer") if isinstance(data, dict) else None
    if not isinstance(tasks, list) or not isinstance(dev, dict) or not isinstance(dev.get("spec"), str) \
            or not isinstance(data.get("pack_version"), str) or len(tasks) > MAX_TASKS:
        raise FactforgeError("not a batch run (pack_version, developer.spec and a list of tasks)", path / "run.json")
    if str(data.get("schema_version", "")).split(".")[0] != RUN_SCHEMA_VERSION.split(".")[0]:
        raise FactforgeError(f"not a batch run of schema {RUN_SCHEMA_VERSION} "
                             f"(schema_version {str(data.get('schema_version'))[:40]!r})", path / "run.json")
    run = Run(path=path, developer=dev["spec"], model=None, pack_version=data["pack_version"], records={})
    for entry in tasks:
        task = entry.get("task") if isinstance(entry, dict) else None
        if not isinstance(task, str) or not TASK_ID.match(task) or task in run.records or task in run.unfinished:
            raise FactforgeError("not a batch run: a task entry without a task id, or a task listed twice",
                                 path / "run.json")
        if entry.get("state") != "done":
            run.unfinished.append(task)
            continue
        if (path / task).is_symlink():
            raise FactforgeError("a link, not an engagement's folder", path / task)
        record = read_record(path / task / "engagement.json")
        e = record["engagement"]
        for what, theirs, ours in (("task", e["task"], task), ("pack version", e["pack_version"], run.pack_version),
                                   ("developer", e["developer"]["spec"], run.developer)):
            if theirs != ours:
                raise FactforgeError(f"this record's {what} is not its batch's (run.json)",
                                     path / task / "engagement.json")
        run.records[task] = record
    return run


def load_run(path: Path) -> Run:
    """A batch folder or one engagement's folder; FactforgeError for anything else."""
    path = Path(path)
    if not path.is_dir():
        raise FactforgeError("not a folder (give a batch run's folder or an engagement's)", path)
    if (path / "run.json").exists() or (path / "run.json").is_symlink():
        run = _batch(path)
    elif (path / "engagement.json").exists() or (path / "engagement.json").is_symlink():
        record = read_record(path / "engagement.json")
        e = record["engagement"]
        run = Run(path=path, developer=e["developer"]["spec"], model=None, pack_version=e["pack_version"],
                  records={e["task"]: record})
    else:
        raise FactforgeError("neither a batch run (run.json) nor an engagement (engagement.json)", path)
    models = sorted({r["engagement"]["developer"].get("model") or "" for r in run.records.values()} - {""})
    run.model = ", ".join(models) or None
    return run


def conversations(record: dict) -> tuple[int, int]:
    """(passed, scored) conversations of one engagement."""
    s = record["score"]
    if "refused" in s:
        return 0, s.get("tests", 1) * record["engagement"]["trials"]
    return round(s["pass_rate"] * s["conversations"]), s["conversations"]


def developer_dollars(record: dict) -> Optional[float]:
    m = record.get(METERING_KEY)
    if isinstance(m, dict):
        return None if m.get("cost_usd") is None or m.get("unpriced", 0) else float(m["cost_usd"])
    e = record["engagement"]
    return 0.0 if e["developer"]["kind"] in NO_MODEL or e["isolation"] == "sandbox" else None


def aggregate(records: list[dict]) -> dict:
    """The measures of a group of engagements (a domain, or all of a run's)."""
    passed = sum(conversations(r)[0] for r in records)
    scored = sum(conversations(r)[1] for r in records)
    lo, hi = wilson_interval(passed, scored)
    dollars = [developer_dollars(r) for r in records]
    credits = [r["score"]["credits_mean"] for r in records if "refused" not in r["score"]]
    ev_total = sum(r["evidence_read"]["files_total"] for r in records)
    return {
        "tasks": len(records),
        "refused": sum(1 for r in records if "refused" in r["score"]),
        "conversations": scored, "passed": passed,
        "pass_rate": round(passed / scored, 6) if scored else None,
        "ci": {"low": round(lo, 6), "high": round(hi, 6)} if scored else None,
        "final_score": round(fmean(r["score"]["final_score"] for r in records), 6),
        "build_minutes": round(fmean(r["time"]["wall_seconds"] / 60 for r in records), 4),
        "developer_usd": None if None in dollars else round(fmean(dollars), 6),
        "credits_per_conversation": round(fmean(credits), 8) if credits else None,
        "owner_turns": round(fmean(r["tools"]["owner"]["turns"] for r in records), 4),
        "evidence_files": round(fmean(r["evidence_read"]["files"] for r in records), 4),
        "evidence_share": round(sum(r["evidence_read"]["files"] for r in records) / ev_total, 6) if ev_total else None,
    }


def _groups(run: Run) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for task in sorted(run.records):
        out.setdefault(run.records[task]["engagement"]["domain"], []).append(run.records[task])
    return out


def difference(base: Run, other: Run, domain: Optional[str]) -> Optional[dict]:
    """`other` minus `base` over the tasks both hold (of `domain`, or all)."""
    tasks = sorted(t for t in set(base.records) & set(other.records)
                   if domain is None or base.records[t]["engagement"]["domain"] == domain)
    if not tasks:
        return None
    k1 = sum(conversations(base.records[t])[0] for t in tasks)
    n1 = sum(conversations(base.records[t])[1] for t in tasks)
    k2 = sum(conversations(other.records[t])[0] for t in tasks)
    n2 = sum(conversations(other.records[t])[1] for t in tasks)
    out = {"paired_tasks": len(tasks), "pass_rate": None, "ci": None,
           "final_score": round(fmean(other.records[t]["score"]["final_score"] - base.records[t]["score"]["final_score"]
                                      for t in tasks), 6)}
    if n1 and n2:
        lo, hi = difference_interval(k1, n1, k2, n2)
        out.update(pass_rate=round(k2 / n2 - k1 / n1, 6), ci={"low": round(lo, 6), "high": round(hi, 6)})
    return out


def _printable(text: str, limit: int = LABEL_MAX) -> str:
    """One line of printable characters (a label reaches a terminal), cut at `limit`."""
    text = "".join(c if c.isprintable() else "?" for c in " ".join(text.split()))
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _labels(runs: list[Run]) -> None:
    for run in runs:
        run.label = _printable(run.developer + (f" / {run.model}" if run.model else ""))
    seen: dict[str, int] = {}
    for run in runs:
        seen[run.label] = seen.get(run.label, 0) + 1
    for run in runs:
        if seen[run.label] > 1:
            run.label = f"{run.label} ({_printable(run.path.name or str(run.path), 40)})"


def results_table(paths: list[Path]) -> dict:
    """The table of `paths` (the first one the baseline), as `factforge results --json` prints it."""
    runs = [load_run(p) for p in paths]
    _labels(runs)
    domains = sorted({d for run in runs for d in _groups(run)})
    table = {"domains": [*domains, OVERALL], "runs": [], "differences": []}
    for run in runs:
        groups = _groups(run)
        by = {d: aggregate(groups[d]) for d in domains if d in groups}
        if run.records:
            by[OVERALL] = aggregate([run.records[t] for t in sorted(run.records)])
        table["runs"].append({"path": str(run.path), "label": run.label, "developer": run.developer,
                              "model": run.model, "pack_version": run.pack_version, "tasks": sorted(run.records),
                              "unfinished": run.unfinished, "groups": by})
    for other in runs[1:]:
        diffs = {d: difference(runs[0], other, d) for d in domains}
        diffs[OVERALL] = difference(runs[0], other, None)
        table["differences"].append({"run": other.label, "baseline": runs[0].label,
                                     "same_pack": other.pack_version == runs[0].pack_version,
                                     "groups": {d: v for d, v in diffs.items() if v is not None}})
    return table
