"""Evaluator figures: `factforge eval --help` start-up, offline oracle conversations per
second (agent in the sandbox, API over a Unix socket, grading by replay), and the reference
agents per domain on every built-in task.

    python benchmarks/bench_eval.py                       # help timing + 1,000 oracle conversations (_mock)
    python benchmarks/bench_eval.py --conversations 2000
    python benchmarks/bench_eval.py --reference airline --reference banking   # build those packs, score oracle/null/naive
    python benchmarks/bench_eval.py --suite airline      # the domain's whole suite under every deployment it has

Prints one line per figure. Packs are built in $FACTFORGE_WORKSPACE (or a temp dir).
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def help_timing(runs: int = 5) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    walls, cpus = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "pipeline.cli", "eval", "--help"], env=env, check=True,
                       stdout=subprocess.DEVNULL)
        walls.append(time.perf_counter() - t0)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    print(f"factforge eval --help: median {statistics.median(walls):.2f} s wall, {statistics.median(cpus):.2f} s CPU "
          f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")


def build(out: Path, domains: list[str], ws: Path) -> Path:
    from outputs.packs.build import BuildOptions, build_pack  # noqa: PLC0415
    path, _, _ = build_pack(out, domains, opts=BuildOptions(seed=0, workspace=ws))
    return path


def oracle_throughput(pack: Path, task: str, conversations: int) -> None:
    from outputs.evaluator.engine import EvalConfig, TaskContext, run_eval  # noqa: PLC0415

    n_tests = len(TaskContext.load(pack, task).tests)
    trials = max(1, round(conversations / n_tests))
    r0 = resource.getrusage(resource.RUSAGE_SELF)
    c0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    r = run_eval(EvalConfig(pack=pack, task=task, agent="oracle", trials=trials))
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_SELF)
    c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime + c1.ru_utime - c0.ru_utime + c1.ru_stime
           - c0.ru_stime)
    n = len(r.tests)
    print(f"oracle, {task}: {n} offline conversations ({n_tests} tests x {trials} trials) in {wall:.1f} s wall, "
          f"{cpu:.1f} s CPU ({n / wall:.0f} conversations/s; load average {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} cores); mean reward {r.summary.mean_reward:.3f}, isolation {r.run.isolation}")


def reference(pack: Path) -> None:
    from outputs.evaluator.engine import EvalConfig, run_eval  # noqa: PLC0415
    from outputs.packs.store import Pack  # noqa: PLC0415

    by_domain: dict[str, dict[str, list[float]]] = {}
    for t in Pack(pack).tasks:
        for agent in ("oracle", "null", "naive"):
            r = run_eval(EvalConfig(pack=pack, task=t.id, agent=agent))
            by_domain.setdefault(t.domain, {}).setdefault(agent, []).extend(c.reward for c in r.tests)
            print(f"  {t.id} {agent}: mean reward {r.summary.mean_reward:.3f} over {len(r.tests)} tests "
                  f"(min {min(c.reward for c in r.tests):g}, max {max(c.reward for c in r.tests):g})")
    for d, agents in sorted(by_domain.items()):
        print(f"{d}: " + ", ".join(f"{a} {statistics.fmean(v):.3f} ({len(v)} tests)" for a, v in agents.items()))


def suite(domain: str, seed: int, only: list[str]) -> None:
    """oracle, null and naive on every test of a domain's suite, under the clean API and every
    deployment of the domain (no pack: `SuiteContext`)."""
    from domains.variants import resolve  # noqa: PLC0415
    from outputs.api.deployment import available  # noqa: PLC0415
    from outputs.evaluator.engine import EvalConfig, SuiteContext, run_eval  # noqa: PLC0415

    t0 = time.perf_counter()
    base = SuiteContext.from_world(domain, seed)
    print(f"{domain}: suite of {len(base.tests)} tests (seed {seed}) in {time.perf_counter() - t0:.1f} s")
    deps = ["clean", *[d for d in available(resolve(domain).pack.path) if d != "clean"]]
    for dep in [d for d in deps if not only or d in only]:
        ctx = SuiteContext.from_world(domain, seed, dep) if dep != "clean" else base
        row = []
        for agent in ("oracle", "null", "naive"):
            t1 = time.perf_counter()
            r = run_eval(EvalConfig(pack=Path("."), task=ctx.task_id, agent=agent), ctx=ctx)
            rewards = [c.reward for c in r.tests]
            row.append(f"{agent} {statistics.fmean(rewards):.3f} (min {min(rewards):g}, max {max(rewards):g}, "
                       f"{r.summary.infra_errors + r.summary.agent_errors} errors, {time.perf_counter() - t1:.0f} s)")
            if agent == "oracle":
                hit = sum(sum(c.defects_hit.values()) for c in r.tests)
                row[-1] += f", {hit} defect answers met"
        print(f"  {domain} / {dep}: " + "; ".join(row))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--conversations", type=int, default=1000)
    ap.add_argument("--reference", action="append", default=[], help="domain whose built-in tasks to score")
    ap.add_argument("--suite", action="append", default=[], help="domain whose whole suite to score (no pack)")
    ap.add_argument("--seed", type=int, default=0, help="database seed of --suite")
    ap.add_argument("--deployment", action="append", default=[], help="only these deployments in --suite")
    ap.add_argument("--skip-mock", action="store_true", help="skip the help timing and the _mock throughput")
    a = ap.parse_args()
    for d in a.suite:
        suite(d, a.seed, a.deployment)
    ws = Path(os.environ.get("FACTFORGE_WORKSPACE") or tempfile.mkdtemp(prefix="ffbench-"))
    if not a.skip_mock:
        help_timing()
        mock = build(ws / "bench-eval" / "mock", ["_mock"], ws)
        oracle_throughput(mock, "_mock-client-knows", a.conversations)
        reference(mock)
    for d in a.reference:
        reference(build(ws / "bench-eval" / d, [d], ws))


if __name__ == "__main__":
    main()
