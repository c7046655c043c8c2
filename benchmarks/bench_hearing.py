"""Recordings hearing themselves (transforms/recordings/hear_back.py): for each domain and seed,
render the recordings of the full-profile plan one by one (fresh cache) and count the files
heard wrong at first (they would have failed the recoverability gate before the check), the
lines re-voiced, the files that still fail (the render's error names file and fact) and the
seconds spent.

    python benchmarks/bench_hearing.py --domains retail banking --seeds 0 1 2
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("OMP_THREAD_LIMIT", "1")


def run(domain: str, seed: int) -> dict:
    from domains import variants
    from facts.errors import FactforgeError
    from pipeline.resources import BuildSettings
    from pipeline.steps import make_plan, render_family, seed_database
    from transforms.writers import make_writer

    world = variants.resolve(domain, [])
    facts = world.factset("builtin")
    settings = BuildSettings(seed=seed)
    with tempfile.TemporaryDirectory() as tmp:
        plan = make_plan(world, facts, settings, Path(tmp) / "audit.sqlite")
        db = seed_database(world, seed).tables
        recs = [a for a in plan.artifacts if a.kind.startswith("recordings/")]
        out = {"domain": domain, "seed": seed, "files": len(recs), "revoiced_files": 0, "revoiced_lines": 0,
               "failed": [], "seconds": 0.0}
        writer = make_writer(world.pack, "builtin")
        t0 = time.perf_counter()
        for spec in recs:
            one = plan.model_copy(update={"artifacts": [spec]})
            try:
                (r,) = render_family(world, "recordings", one, facts, db, writer, Path(tmp) / "cache")
            except FactforgeError as e:
                out["failed"].append(str(e))
                continue
            out["revoiced_files"] += r.revoiced > 0
            out["revoiced_lines"] += r.revoiced
        out["seconds"] = round(time.perf_counter() - t0, 1)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--domains", nargs="+", default=["retail", "banking"])
    ap.add_argument("--seeds", nargs="+", type=int, default=[0])
    a = ap.parse_args()
    for d in a.domains:
        for s in a.seeds:
            r = run(d, s)
            print(f"{d} seed {s}: {r['files']} recordings, {r['revoiced_files']} heard wrong at first, "
                  f"{r['revoiced_lines']} lines re-voiced, {len(r['failed'])} still failing, {r['seconds']} s",
                  flush=True)
            for f in r["failed"]:
                print(f"  {f}", flush=True)


if __name__ == "__main__":
    main()
