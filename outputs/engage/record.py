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
  defects reported and confirmed, capabilities offered and enabled, fixes deployed, samples and live runs, API calls, models and experiment
  spend);
- `timeline`: every tool call, ok or refused (`t`: seconds since the tools started);
- `scored_deployment`: for a task with capabilities or fixes the client can deploy, what the
  deployment the work was scored on had switched on and fixed, with its hash (the evaluator's
  `run.scored_deployment`); None otherwise;
- `developer_model`: the developer's own model traffic through the engagement's proxy (None when
  none was relayed): calls, failed, unpriced, input and output tokens, `cost_usd` (the
  "developer dollars", from litellm's price map), `by_model`, and `records`
  (`model_calls.jsonl`, one line per call);
- `trajectory`: a coding agent's trajectory (`trajectory.json`, ATIF): steps, agent steps,
  tool calls by name, the agent (name, version, model); None for other developers;
- `score`: the evaluator's summary (final score, mean reward, penalty, pass^k, CI, the
  delivered agent's mean serving cost `credits_mean` against the budget, errors), the path of
  its results, or `refused` (the evaluator's one line) with a final score of 0 and the
  number of sealed `tests` that were not run.

Timings (`t`, `*_seconds`, `started`) are the only fields two runs of the same engagement
may differ in.
"""
from __future__ import annotations

import errno
import json
import math
import os
import re
import stat
from pathlib import Path

from facts.errors import FactforgeError

from .developers import SPEC_MAX

ENGAGEMENT_SCHEMA_VERSION = "1.1"
SCORE_FIELDS = ("final_score", "mean_reward", "penalty", "pass_hat_k", "ci", "credits_mean", "budget", "infra_errors",
                "agent_errors", "conversations", "tests", "pass_rate")


def _score(results, refusal, tests: int) -> dict:
    if results is None:
        return {"final_score": 0.0, "refused": refusal, "tests": tests}
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
        "score": _score(results, refusal, len(ctx.tests)),
        "scored_deployment": results.run.scored_deployment if results is not None else None,
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


# --------------------------------------------------------------------------- reading a record back

RECORD_MAX = 64 << 20
TEXT_MAX = 8192
METERING_KEY = "developer_model"    # the developer's own model traffic: calls, cost_usd, unpriced, by_model
_TASK_ID = re.compile(r"^[a-z_][a-z0-9_]*(-[a-z0-9]+)+$")
_NUMBER, _COUNT, _TEXT, _FRACTION = "a number", "a count", "a string", "a number from 0 to 1"
_SPEC = f"a string of at most {SPEC_MAX} characters"  # what `developers.parse` accepts
_FIELDS = [
    ("engagement.pack_version", _TEXT), ("engagement.task", _TEXT), ("engagement.domain", _TEXT),
    ("engagement.developer.kind", _TEXT), ("engagement.developer.spec", _SPEC), ("engagement.seed", _COUNT),
    ("engagement.trials", _COUNT), ("engagement.hours", _NUMBER), ("engagement.isolation", _TEXT),
    ("end.reason", _TEXT), ("time.wall_seconds", _NUMBER), ("evidence_read.files", _COUNT),
    ("evidence_read.files_total", _COUNT), ("tools.owner.turns", _COUNT), ("score.final_score", _FRACTION),
]
_SCORED = [("score.pass_rate", _FRACTION), ("score.conversations", _COUNT), ("score.tests", _COUNT),
           ("score.credits_mean", _NUMBER), ("score.ci.low", _FRACTION), ("score.ci.high", _FRACTION)]


def _is(value, kind: str) -> bool:
    if kind in (_TEXT, _SPEC):
        return isinstance(value, str) and len(value) <= (SPEC_MAX if kind == _SPEC else TEXT_MAX)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        return False
    if kind == _COUNT:
        return isinstance(value, int)
    return kind == _NUMBER or value <= 1


_MISSING = object()


def _at(data, dotted: str):
    for key in dotted.split("."):
        if not isinstance(data, dict) or key not in data:
            return _MISSING
        data = data[key]
    return data


def _no_constants(name: str):
    raise ValueError(f"{name} is not a JSON number")


def _read_bytes(path: Path) -> bytes:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as e:
        raise FactforgeError("a link, not a file" if e.errno == errno.ELOOP else f"cannot read: {e.strerror}",
                             path) from None
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise FactforgeError("not a regular file", path)
        if st.st_size > RECORD_MAX:
            raise FactforgeError(f"over {RECORD_MAX >> 20} MiB", path)
        return f.read(RECORD_MAX + 1)


def read_json(path: Path, what: str):
    """A JSON file written by the engagement or a batch, read without following a link, within
    `RECORD_MAX`, strictly (no NaN or Infinity); FactforgeError naming the file otherwise."""
    raw = _read_bytes(Path(path))
    try:
        return json.loads(raw.decode("utf-8"), parse_constant=_no_constants)
    except UnicodeDecodeError:
        raise FactforgeError(f"not {what}: not UTF-8", path) from None
    except RecursionError:
        raise FactforgeError(f"not {what}: nested too deep", path) from None
    except ValueError as e:
        raise FactforgeError(f"not {what}: {str(e).splitlines()[0][:200]}", path) from None


def read_record(path: Path) -> dict:
    """An `engagement.json`, checked for what a batch and `factforge results` read of it: the
    schema's major version, the fields of `_FIELDS` (and `_SCORED` unless the evaluator refused
    the workspace), the optional developer model metering. FactforgeError naming the file and
    the first field at fault otherwise."""
    data = read_json(path, "an engagement record")
    if not isinstance(data, dict):
        raise FactforgeError("not an engagement record: not a JSON object", path)
    version = data.get("schema_version")
    if not isinstance(version, str) or version.split(".")[0] != ENGAGEMENT_SCHEMA_VERSION.split(".")[0]:
        raise FactforgeError(f"not an engagement record of schema {ENGAGEMENT_SCHEMA_VERSION} "
                             f"(schema_version {str(version)[:40]!r})", path)
    refused = isinstance(data.get("score"), dict) and "refused" in data["score"]
    for dotted, kind in _FIELDS + ([] if refused else _SCORED):
        value = _at(data, dotted)
        if not _is(value, kind):
            raise FactforgeError(f"not an engagement record: {dotted} is "
                                 f"{'missing' if value is _MISSING else 'not ' + kind}", path)
    if not _TASK_ID.match(data["engagement"]["task"]):
        raise FactforgeError("not an engagement record: engagement.task is not a task id", path)
    if refused and not (_is(data["score"]["refused"], _TEXT) and _is(data["score"].get("tests", 0), _COUNT)):
        raise FactforgeError("not an engagement record: score.refused is not a string", path)
    if data["evidence_read"]["files"] > data["evidence_read"]["files_total"]:
        raise FactforgeError("not an engagement record: evidence_read.files is over files_total", path)
    model = _at(data, "engagement.developer.model")
    if model is not _MISSING and model is not None and not _is(model, _TEXT):
        raise FactforgeError("not an engagement record: engagement.developer.model is not a string", path)
    metering = data.get(METERING_KEY)
    if metering is not None and not (isinstance(metering, dict) and _is(metering.get("unpriced", 0), _COUNT)
                                     and (metering.get("cost_usd") is None or _is(metering["cost_usd"], _NUMBER))):
        raise FactforgeError(f"not an engagement record: {METERING_KEY} is not a model metering "
                             "(cost_usd a number, unpriced a count)", path)
    return data
