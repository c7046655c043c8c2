"""Build benchmarks: seconds per artifact kind (render and extract), per modality, and for
whole domain builds through the Dagster graph, each in a fresh workspace (no cache).

    python benchmarks/bench_build.py                 # airline kinds + all four builds
    python benchmarks/bench_build.py --domains airline --skip-kinds
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("OMP_THREAD_LIMIT", "1")


def kinds_benchmark(domain: str, seed: int) -> None:
    from audits.extraction import speech_candidates
    from domains import get_pack
    from transforms import registry
    from transforms.base import ExtractContext, RenderContext
    from transforms.planner import plan_evidence
    from transforms.render import render_artifacts
    from transforms.writers import BuiltinWriter

    pack = get_pack(domain)
    t0 = time.perf_counter()
    fs = pack.facts
    t_dec = time.perf_counter() - t0
    plan = plan_evidence(fs, seed, now=pack.info.now)
    ctx = RenderContext(pack=pack, facts=fs.by_id(), writer=BuiltinWriter(pack), db=pack.database(seed))
    by_id = fs.by_id()
    render_s, extract_s, counts = defaultdict(float), defaultdict(float), defaultdict(int)
    modality_s = defaultdict(float)
    with tempfile.TemporaryDirectory() as tmp:
        for spec in plan.artifacts:
            t = registry.get(spec.kind)
            t0 = time.perf_counter()
            (r,) = render_artifacts([spec], ctx, Path(tmp))
            render_s[spec.kind] += time.perf_counter() - t0
            cands = speech_candidates(spec, by_id) if t.modality in ("wav", "mp4") else []
            t0 = time.perf_counter()
            t.extract(Path(r.file), ExtractContext(candidates=cands, workdir=Path(tmp)))
            dt = time.perf_counter() - t0
            extract_s[spec.kind] += dt
            modality_s[t.modality] += dt
            counts[spec.kind] += 1
    print(f"\n{domain}: {len(fs.facts)} facts (decomposed in {t_dec:.2f}s), {len(plan.artifacts)} artifacts")
    print(f"{'kind':38} {'n':>4} {'render s/file':>14} {'extract s/file':>15}")
    for k in sorted(counts):
        n = counts[k]
        print(f"{k:38} {n:>4} {render_s[k] / n:>14.3f} {extract_s[k] / n:>15.3f}")
    print(f"{'total':38} {sum(counts.values()):>4} {sum(render_s.values()):>13.1f}s {sum(extract_s.values()):>14.1f}s")
    print("extraction seconds per modality: " + ", ".join(f"{m} {s:.1f}" for m, s in sorted(modality_s.items())))


def builds_benchmark(domains: list[str], seed: int) -> None:
    from pipeline.build import build_partition
    from pipeline.resources import BuildSettings, Workspace

    print(f"\nfull builds through the Dagster graph (fresh workspace each), seed {seed}")
    total = 0.0
    for d in domains:
        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.perf_counter()
            res = build_partition(d, Workspace(root=tmp), BuildSettings(seed=seed))
            dt = time.perf_counter() - t0
            total += dt
            print(f"{d:10} {dt:8.1f}s  {res.metadata.get('files')} files  {res.version}")
    print(f"{'all':10} {total:8.1f}s")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--domains", nargs="*", default=["airline", "retail", "telecom", "banking"])
    ap.add_argument("--kinds-domain", default="airline")
    ap.add_argument("--skip-kinds", action="store_true")
    ap.add_argument("--skip-builds", action="store_true")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    if not a.skip_kinds:
        kinds_benchmark(a.kinds_domain, a.seed)
    if not a.skip_builds:
        builds_benchmark(a.domains, a.seed)


if __name__ == "__main__":
    main()
