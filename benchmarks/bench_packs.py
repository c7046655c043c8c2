"""Task-pack benchmarks: build time and sizes per domain, with a cold and a warm render cache,
and an unchanged rebuild.

For each domain with task specs:
- cold: a fresh workspace (no render, extraction or Dagster cache) and a fresh output;
- warm: the same workspace (render and extraction caches filled), a fresh output (no task
  reused from a previous pack);
- unchanged rebuild: the warm pack rebuilt in place (every task reused).
Sizes: tasks, kit files and bytes summed over tasks, the object store's bytes (what the
pack really takes: tasks share their evidence), sealed bytes, and how many evidence files
the client edits re-rendered.

    python benchmarks/bench_packs.py                       # every domain with tasks
    python benchmarks/bench_packs.py --domains _mock airline
    python benchmarks/bench_packs.py --domains retail --warm-only --workspace /tmp/ws
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("OMP_THREAD_LIMIT", "1")


def _build(domain: str, out: Path, ws: Path):
    from outputs.packs.build import BuildOptions, build_pack
    t0 = time.perf_counter()
    path, index, results = build_pack(out, [domain], opts=BuildOptions(seed=0, workspace=ws))
    return time.perf_counter() - t0, path, index, results


def _sizes(path: Path, index) -> dict:
    from outputs.packs.store import Pack
    p = Pack(path)
    objects = sum(f.stat().st_size for f in (path / "objects").rglob("*") if f.is_file())
    edited = sum(len(p.json(t.id, "sealed", "evidence.json")["files_edited"])
                 + len(p.json(t.id, "sealed", "evidence.json")["files_added"]) for t in index.tasks)
    evidence = sum(p.json(t.id, "sealed", "evidence.json")["files_delivered"] for t in index.tasks)
    return {"tasks": len(index.tasks), "kit_files": sum(t.kit.files for t in index.tasks),
            "kit_mb": sum(t.kit.bytes for t in index.tasks) / 1e6, "sealed_mb": sum(t.sealed.bytes for t in index.tasks) / 1e6,
            "store_mb": objects / 1e6, "evidence_files": evidence, "rerendered": edited}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--domains", nargs="*", default=None)
    ap.add_argument("--warm-only", action="store_true", help="Skip the cold build (reuse --workspace's caches).")
    ap.add_argument("--workspace", type=Path, default=None, help="Workspace for the warm build (default: the cold one).")
    args = ap.parse_args()
    from domains import discover, get_pack
    from outputs.packs.spec import load_domain_specs
    names = args.domains or [n for n, p in sorted(discover().items()) if load_domain_specs(p)]
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-packs-") as tmp:
        tmp = Path(tmp)
        for name in names:
            get_pack(name)
            ws = args.workspace or tmp / f"ws-{name}"
            cold = None
            if not args.warm_only:
                shutil.rmtree(ws, ignore_errors=True)
                cold, _, _, _ = _build(name, tmp / f"cold-{name}", ws)
            warm, path, index, _ = _build(name, tmp / f"warm-{name}", ws)
            again, path2, _, results = _build(name, path, ws)
            assert all(r.reused for r in results)
            rows.append((name, cold, warm, again, _sizes(path2, index)))
            print(f"{name}: cold {cold if cold is None else round(cold, 1)}s, warm {warm:.1f}s, "
                  f"unchanged {again:.1f}s", flush=True)
    print(f"\n{'domain':10} {'tasks':>5} {'cold s':>8} {'warm s':>8} {'rebuild s':>9} {'kit files':>9} "
          f"{'kit MB':>8} {'store MB':>9} {'sealed MB':>9} {'evidence':>8} {'re-rendered':>11}")
    for name, cold, warm, again, s in rows:
        print(f"{name:10} {s['tasks']:>5} {'-' if cold is None else f'{cold:.1f}':>8} {warm:>8.1f} {again:>9.1f} "
              f"{s['kit_files']:>9} {s['kit_mb']:>8.1f} {s['store_mb']:>9.1f} {s['sealed_mb']:>9.1f} "
              f"{s['evidence_files']:>8} {s['rerendered']:>11}")


if __name__ == "__main__":
    main()
