"""The developer's experiments: sample runs, live runs and the experiment model gateway.

- **Samples** run the workspace's agent, as the evaluator runs it (`run_eval`), on the kit's
  training scenarios over the kit's development database (`data/dev_db.json`) behind the
  task's deployment. The scenarios' simulated customers come from the domain's suite at the
  pack's build seed, checked against the kit's `training/scenarios.json`.
- **Live runs** run it on the task's live ids over the sealed test database. Their result is
  built from an allow-list: per conversation the transcript, the API operations called with
  their status, pass or fail, cost and errors; never the reward breakdown, gold actions,
  expected hashes, fact ids, trap kinds or the database.
- Each run works on a snapshot of the workspace (without `.git`), so the developer may keep
  editing while it runs.
- The **experiment gateway** is the task's model gateway with the same menu rules, metered
  into one ledger for the whole engagement, apart from any serving cost.
"""
from __future__ import annotations

import dataclasses
import os
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

from domains.variants import resolve
from facts.errors import FactforgeError
from outputs.evaluator.engine import EvalConfig, run_eval
from outputs.evaluator.gateway import ModelGateway
from outputs.evaluator.metrics import SUCCESS

from .errors import ToolError
from .host import RunHost

if TYPE_CHECKING:
    from outputs.evaluator.models import ConversationResult, Results

SNAPSHOT_BYTES = 256 << 20    # a workspace larger than this is not run
SNAPSHOT_FILES = 20_000
SKIPPED = {".git", "__pycache__"}


class ExperimentGateway(ModelGateway):
    """The task's model gateway for the developer's own experiments. The menu's rules hold
    per call; the per-conversation call limit does not (an engagement is not a conversation);
    every call is metered into one ledger."""

    def handle(self, body: Any) -> tuple[int, dict]:
        with self.lock:
            self.ledger.calls.clear()
        return super().handle(body)

    @property
    def total_credits(self) -> float:
        with self.lock:
            return self.ledger.credits

    def usage(self) -> dict:
        with self.lock:
            u = list(self.ledger.usage)
        return {"tried": sorted({x.model for x in u}), "calls": len(u), "failed": sum(1 for x in u if not x.ok),
                "credits": round(sum(x.credits for x in u), 10),
                "by_model": {m: round(sum(x.credits for x in u if x.model == m), 10) for m in sorted({x.model for x in u})}}


def snapshot_workspace(workspace: Path, dest: Path) -> Path:
    """A copy of the workspace without `.git` and caches (links copied as links), or a
    ToolError when it is missing or too large to run."""
    if not workspace.is_dir():
        raise ToolError("the workspace folder is missing")
    total = files = 0
    for root, dirs, names in os.walk(workspace):
        dirs[:] = [d for d in dirs if d not in SKIPPED]
        for n in names:
            p = os.path.join(root, n)
            files += 1
            total += os.lstat(p).st_size
        if total > SNAPSHOT_BYTES or files > SNAPSHOT_FILES:
            raise ToolError(f"the workspace is over {SNAPSHOT_BYTES >> 20} MiB or {SNAPSHOT_FILES} files; "
                            "it is not run")
    shutil.copytree(workspace, dest, symlinks=True, ignore=shutil.ignore_patterns(*SKIPPED))
    return dest


def training_context(svc: RunHost):
    """The evaluator's context for the training scenarios: the live context with the
    training tests and the kit's development database."""
    if svc.samples_ctx is None:
        pack, sealed = svc.ctx.pack, svc.ctx.sealed
        dev_db = pack.json(svc.task_id, "kit", "data/dev_db.json")
        scenarios = pack.json(svc.task_id, "kit", "training/scenarios.json")["scenarios"]
        suite = resolve(sealed["bundle"]).test_suite(sealed["seed"], db=dev_db)
        by_id = {t.id: t for t in suite.tests}
        tests = []
        for s in scenarios:
            t = by_id.get(s["task"]["id"])
            if t is None or t.tau2() != s["task"]:
                raise FactforgeError(f"training scenario {s['task']['id']} no longer matches the domain's suite; "
                                     "rebuild the pack")
            tests.append(t)
        svc.samples_ctx = dataclasses.replace(svc.ctx, tests=tests, db=dev_db)
    return svc.samples_ctx


def _run(svc: RunHost, ctx, ids: Optional[list[str]], split: str) -> "Results":
    with tempfile.TemporaryDirectory(prefix="factforge-engage-") as tmp:
        agent = snapshot_workspace(svc.workspace, Path(tmp) / "agent")
        if not (agent / "agent.py").is_file():
            raise ToolError("the workspace holds no agent.py (the module with create_agent())")
        cfg = EvalConfig(pack=svc.pack_dir, task=svc.task_id, agent=str(agent), split=split, tests=ids,  # type: ignore[arg-type]
                         isolation=svc.isolation, seed=svc.seed,  # type: ignore[arg-type]
                         gateway_mock_response=svc.gateway_mock_response)
        return run_eval(cfg, ctx=ctx)


def _summary(convs: list["ConversationResult"]) -> dict:
    n = len(convs)
    passed = sum(1 for c in convs if c.reward >= SUCCESS)
    return {"conversations": n, "passed": passed, "pass_rate": round(passed / n, 6) if n else 0.0,
            "credits_mean": round(sum(c.credits for c in convs) / n, 10) if n else 0.0,
            "agent_errors": sum(1 for c in convs if c.error and not c.infra_error),
            "infra_errors": sum(1 for c in convs if c.infra_error)}


def run_samples(svc: RunHost, ids: Optional[list[str]]) -> dict:
    """The workspace agent on the training scenarios: everything the evaluator reports (the
    training scenarios and their gold are in the kit)."""
    results = _run(svc, training_context(svc), ids, "test")
    scenarios = [{"id": c.id, "trial": c.trial, "passed": c.reward >= SUCCESS, "reward": c.reward,
                  "breakdown": {k: {"score": v.score, "detail": v.detail} for k, v in c.breakdown.items()},
                  "end": c.end, "error": c.error, "infra_error": c.infra_error,
                  "messages": [m.model_dump(mode="json") for m in c.messages], "calls": list(c.calls),
                  "defects_hit": dict(c.defects_hit), "credits": c.credits, "seconds": c.seconds}
                 for c in results.tests]
    return {"scenarios": scenarios, "summary": {**_summary(results.tests),
                                                "mean_reward": results.summary.mean_reward}}


def run_live(svc: RunHost, ids: Optional[list[str]]) -> dict:
    """The workspace agent on the live ids, reported from an allow-list (module docstring)."""
    results = _run(svc, svc.ctx, ids, "live")
    convs = [{"id": c.id, "trial": c.trial, "passed": c.reward >= SUCCESS, "end": c.end, "error": c.error,
              "infra_error": c.infra_error,
              "messages": [{"role": m.role, "content": m.content} for m in c.messages],
              "calls": [{"operation": x["operation"], "status": x["status"], "committed": x["committed"]}
                        for x in c.calls],
              "credits": c.credits, "seconds": c.seconds}
             for c in results.tests]
    return {"conversations": convs, "summary": {**_summary(results.tests), "serving_budget": dict(svc.ctx.budget)}}
