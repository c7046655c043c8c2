"""Reference agents on the built-in held-out suites: oracle, null, naive and the two
adversaries (policy reciter, confident guesser), mean reward per domain, offline user.

    python benchmarks/bench_adversaries.py                    # every built-in domain, seed 3 (the tasks' test seed)
    python benchmarks/bench_adversaries.py --domain airline --seed 0
    python benchmarks/bench_adversaries.py --sandbox          # through `run_eval` (process isolation), not in-process

Each domain's whole suite is one task without a pack (`SuiteContext.from_world`). By default the
agents run in-process (`outputs.evaluator.referee`, what `pack build`'s sealing gate runs);
`--sandbox` runs them through the evaluator with process isolation (same rewards, slower).
Also prints how many tests the sealing gate would admit (no phrasing rules).
"""
from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path
from statistics import fmean

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

AGENTS = ("oracle", "null", "naive", "reciter", "guesser")


def main() -> None:
    from outputs.evaluator.engine import EvalConfig, SuiteContext, run_eval  # noqa: PLC0415
    from outputs.evaluator.referee import reference_rewards  # noqa: PLC0415
    from outputs.packs.gate import refusal  # noqa: PLC0415

    ap = argparse.ArgumentParser()
    ap.add_argument("--domain", action="append", default=[])
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--sandbox", action="store_true")
    a = ap.parse_args()
    print(f"| domain | tests | {' | '.join(AGENTS)} | gate admits |")
    print("|---|---:|" + "---:|" * len(AGENTS) + "---:|")
    for d in a.domain or ["airline", "retail", "telecom", "banking"]:
        t0 = time.perf_counter()
        ctx = SuiteContext.from_world(d, a.seed)
        per = reference_rewards(ctx, ctx.tests, AGENTS)
        if a.sandbox:
            for agent in AGENTS:
                r = run_eval(EvalConfig(pack=Path("."), task=ctx.task_id, agent=agent, isolation="process"), ctx=ctx)
                for c in r.tests:
                    per[c.id][agent] = c.reward
        means = [fmean(per[t.id][ag] for t in ctx.tests) for ag in AGENTS]
        why = Counter(refusal(t, per[t.id]) or "admitted" for t in ctx.tests)
        print(f"| {d} | {len(ctx.tests)} | " + " | ".join(f"{m:.3f}" for m in means)
              + f" | {why['admitted']} |", flush=True)
        print(f"  ({d}: {time.perf_counter() - t0:.0f} s; refused: "
              + ", ".join(f"{k} {v}" for k, v in sorted(why.items()) if k != "admitted") + ")", file=sys.stderr)


if __name__ == "__main__":
    main()
