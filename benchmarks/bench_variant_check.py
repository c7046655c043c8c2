"""Benchmark: seconds of one database check of a variant world (`World.check_database` on its
seed database), the check every sealed test of the variant's suite runs on its gold outcome:
the domain's own check (in its sandbox) and the scan for base brand terms left in the data.

    python benchmarks/bench_variant_check.py [--world airline@halcyon] [--runs 10]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from domains.renaming import brand_leaks_in_tree  # noqa: E402
from domains.variants import resolve  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--world", default="airline@halcyon")
    ap.add_argument("--runs", type=int, default=10)
    a = ap.parse_args()
    world = resolve(a.world)
    db = world.database(0)
    world.check_database(db)  # the sandbox started, the terms loaded
    whole, scan = [], []
    for _ in range(a.runs):
        t = time.perf_counter()
        world.check_database(db)
        whole.append(time.perf_counter() - t)
    terms = world.spec.terms if world.spec is not None else None
    if terms:
        for _ in range(a.runs):
            t = time.perf_counter()
            brand_leaks_in_tree(db, terms)
            scan.append(time.perf_counter() - t)
    print(f"{a.world}: check_database median {statistics.median(whole):.3f} s over {a.runs} runs"
          + (f"; the brand-term scan {statistics.median(scan):.3f} s" if scan else ""))


if __name__ == "__main__":
    main()
