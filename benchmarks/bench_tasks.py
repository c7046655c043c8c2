"""Benchmark: domain APIs and held-out tests per built-in domain.

    python benchmarks/bench_tasks.py [--domains _mock,airline,retail,telecom,banking] [--seed 0]

Prints, per domain: API operations (read/write), OpenAPI generation time, tests, trap share
and kinds, value-fact coverage (facts with a numeric slot exercised by a test), how many tests
the naive reference agent passes, the time to generate and seal the suite (scenarios, gold and
naive replays, the domain check on every gold outcome), the time to re-verify it (every gold
replayed on a fresh copy of the seed database, hash compared, check run), and the mean time of
one gold replay (copy, calls, hash; the grading path without the domain check).
"""
from __future__ import annotations

import argparse
import pickle
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--domains", default="_mock,airline,retail,telecom,banking")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    from domains.apikit import db_hash  # noqa: PLC0415
    from domains.simtests import suite_problems  # noqa: PLC0415
    from domains.variants import resolve  # noqa: PLC0415

    head = (f"{'domain':<9} {'ops r/w':>8} {'openapi s':>9} {'tests':>6} {'traps':>6} {'kinds (fee/refuse/info/xfer)':>29} "
            f"{'value facts':>12} {'naive':>6} {'gen s':>6} {'verify s':>8} {'replay ms':>9}")
    print(head)
    print("-" * len(head))
    for name in args.domains.split(","):
        w = resolve(name)
        db = w.database(args.seed)
        w.factset()
        api = w.api()
        t0 = time.perf_counter()
        doc = api.openapi()
        t_doc = time.perf_counter() - t0
        t0 = time.perf_counter()
        suite = w.test_suite(args.seed, db=db)
        t_gen = time.perf_counter() - t0
        t0 = time.perf_counter()
        problems = suite_problems(suite, api, db, w.check_database, w.base.code.test_quota)
        t_ver = time.perf_counter() - t0
        t0 = time.perf_counter()
        for t in suite.tests:
            d = pickle.loads(pickle.dumps(db, protocol=pickle.HIGHEST_PROTOCOL))
            api.replay(d, t.gold_calls())
            assert db_hash(d) == t.factforge.expected_db_hash
        t_rep = (time.perf_counter() - t0) / max(1, len(suite.tests)) * 1000
        s = suite.summary
        ops = api.operations()
        kinds = "/".join(str(s.by_trap.get(k, 0)) for k in ("fee", "refuse", "missing_info", "transfer"))
        bad = sum(len(v) for v in problems.values())
        print(f"{name:<9} {sum(o.kind == 'read' for o in ops):>3}/{sum(o.kind == 'write' for o in ops):<4} "
              f"{t_doc:>9.3f} {s.tests:>6} {s.trap_share:>6.0%} {kinds:>29} "
              f"{s.numeric_facts_covered:>5}/{s.numeric_facts:<6} {s.naive_passes:>6} {t_gen:>6.1f} {t_ver:>8.1f} "
              f"{t_rep:>9.1f}" + (f"  PROBLEMS: {bad}" if bad else ""))
        del doc
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
