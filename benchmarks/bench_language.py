"""How generated the evidence reads, per domain: voiced renditions sharing a 6-word run with
the policy, the distinct-sentence ratio (furniture left out, numbers masked), the most
repeated sentence, the share of fact sentences opened by the most common lead-in, and lint
hits. Reads delivered bundles (any version of factforge: the measures are recomputed from
the files with the current extractors and `audits.lints`), so a bundle built before a change
and one built after can be compared side by side.

    python benchmarks/bench_language.py --bundle before=PATH --bundle after=PATH ...
    python benchmarks/bench_language.py --build airline --build banking   # build now, then measure

Extraction is cached under --cache (default $FACTFORGE_WORKSPACE/cache), so measuring a
bundle that was just built does not OCR or transcribe anything again.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def measure(bundle: Path, cache: Path) -> dict:
    from audits.extraction import extract_all, jobs_for
    from audits.lints import lint_files
    from domains.variants import resolve
    from facts.models import FactSet
    from transforms.planner import EvidencePlan

    man = json.loads((bundle / "manifest.json").read_text())
    plan_json = json.loads((bundle / "plan.json").read_text())
    plan_json.pop("hash", None)
    facts_json = json.loads((bundle / "facts.json").read_text())
    facts_json.pop("hash", None)
    plan = EvidencePlan.model_validate(plan_json)
    facts = FactSet.model_validate(facts_json)
    shas = {f["path"]: f["sha256"] for f in man["files"]}
    files = {a.id: (bundle / a.path, shas.get(a.path, "")) for a in plan.artifacts}
    name = plan.domain + (f"@{plan.variant}" if plan.variant else "")
    world = resolve(name, [])
    extractions = extract_all(jobs_for(plan.artifacts, files, facts.by_id()), cache)
    return lint_files(plan, facts, extractions.by_id, world.pack)


def row(label: str, rep: dict) -> str:
    s, m = rep["summary"], rep["measures"]
    d, li = m["distinct_sentences"], m["lead_ins"]
    return (f"{rep['domain']:<9} {label:<8} {s['files']:>6} {s['voiced_with_policy_run']:>5}/{s['voiced_renditions']:<5} "
            f"{d['ratio']:>7.3f} {d['sentences']:>9} {d['max_repeat']:>6} {d['over_limit']:>5} "
            f"{li['most_common_share'] * 100:>6.1f}% {li['most_common'][:28]!r:<30} {s['hits']:>5}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bundle", action="append", default=[], help="LABEL=PATH of a bundle directory")
    ap.add_argument("--build", action="append", default=[], help="domain to build now and measure as 'after'")
    ap.add_argument("--cache", default=os.environ.get("FACTFORGE_WORKSPACE", "/tmp/factforge-bench") + "/cache")
    args = ap.parse_args()
    todo = [tuple(b.split("=", 1)) for b in args.bundle]
    for dom in args.build:
        from pipeline.build import build_partition
        from pipeline.resources import BuildSettings, Workspace
        t0 = time.perf_counter()
        res = build_partition(dom, Workspace(root=str(Path(args.cache).parent)), BuildSettings())
        print(f"built {dom} in {time.perf_counter() - t0:.0f}s: {res.bundle}")
        todo.append(("after", str(res.bundle)))
    print(f"{'domain':<9} {'bundle':<8} {'files':>6} {'voiced-run':>11} {'distinct':>7} {'sentences':>9} "
          f"{'maxrep':>6} {'>20':>5} {'lead-in':>7} {'most common lead-in':<30} {'lints':>5}")
    for label, path in todo:
        t0 = time.perf_counter()
        rep = measure(Path(path), Path(args.cache))
        print(row(label, rep) + f"   ({time.perf_counter() - t0:.0f}s)")


if __name__ == "__main__":
    main()
