"""Benchmark: import tau2-bench domains as packs, then (if the pipeline is ready) build them.

    python benchmarks/bench_import.py [--tau2 DIR] [--domains airline,retail,banking_knowledge,multidoc]
                                      [--profiles text-only,full] [--no-build] [--keep DIR]

Imports each tau2-bench domain folder (a name under --tau2, `multidoc` for the project's
multi-document layout fixture, or a path) into a temporary folder (never into the project)
and prints the import time, the documents, workflows, fact counts and database record
counts; then builds each imported pack with `pipeline.build.build_partition` (seed 0) on
every profile asked for and prints artifact counts and seconds.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

DEFAULT_TAU2 = ROOT.parent / "shared" / "external" / "tau2-bench"
MULTIDOC = ROOT / "tests" / "fixtures" / "tau2_layouts" / "telecom_multidoc"


def pipeline_ready() -> str:
    """Empty when the pipeline can build; else why not."""
    try:
        import dagster  # noqa: F401, PLC0415

        from transforms.registry import kinds  # noqa: PLC0415
    except ImportError as e:
        return f"pipeline not importable: {e}"
    return "" if kinds() else "no artifact kinds registered"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tau2", type=Path, default=DEFAULT_TAU2, help="folder holding the tau2-bench domain folders")
    ap.add_argument("--domains", default="airline,retail,banking_knowledge,multidoc")
    ap.add_argument("--profiles", default="text-only", help="comma-separated: text-only,text+image,"
                                                            "text+image+audio,full")
    ap.add_argument("--no-build", action="store_true")
    ap.add_argument("--keep", type=Path, help="import into this folder (kept) instead of a temporary one")
    args = ap.parse_args()

    from domains.tau2 import import_tau2_domain  # noqa: PLC0415

    with tempfile.TemporaryDirectory(prefix="ff-bench-import-") as tmp:
        base = args.keep.resolve() if args.keep else Path(tmp)
        into = base / "domains"
        keys = []
        print(f"{'domain':<22} {'import s':>9} {'documents':>9} {'workflows':>9} {'policy files':>12} {'facts':>7} "
              f"{'unparsed':>8} {'db':>8} {'tables':>6} {'records':>8} {'tasks':>6}")
        for folder in [d for d in args.domains.split(",") if d]:
            src = MULTIDOC if folder == "multidoc" else Path(folder) if "/" in folder else args.tau2 / folder
            if not src.is_dir():
                print(f"{folder:<22} skipped: {src} not found")
                continue
            name = f"tau2_{src.name}"
            t0 = time.perf_counter()
            rep = import_tau2_domain(src, name, into, force=True)
            secs = time.perf_counter() - t0
            keys.append(name)
            facts = rep.facts if rep.facts is not None else "-"
            unparsed = rep.unparsed if rep.unparsed is not None else "-"
            docs = len(rep.policy_documents) + rep.documents
            print(f"{name:<22} {secs:>9.2f} {docs:>9} {len(rep.workflows):>9} {len(rep.policy_files):>12} {facts:>7} "
                  f"{unparsed:>8} {rep.db_source or '-':>8} {len(rep.db_tables):>6} {sum(rep.db_tables.values()):>8} "
                  f"{rep.tasks if rep.tasks is not None else '-':>6}")
        if args.no_build or not keys:
            return 0
        reason = pipeline_ready()
        if reason:
            print(f"build skipped: {reason}")
            return 0
        from pipeline.build import BuildFailed, build_partition, configure_domains_dirs  # noqa: PLC0415

        configure_domains_dirs([str(into)])
        from pipeline.resources import BuildSettings, Workspace  # noqa: PLC0415

        status = 0
        for profile in [p for p in args.profiles.split(",") if p]:
            ws = Workspace(root=str(base / "ws"), out=str(base / f"out-{profile}"))
            settings = BuildSettings(profile=profile, domains_dirs=[str(into)])
            print(f"\nbuild (seed 0, profile {profile})")
            for key in keys:
                t0 = time.perf_counter()
                try:
                    res = build_partition(key, ws, settings)
                except BuildFailed as e:
                    lines = e.problem.splitlines()
                    shown = sum(1 for line in lines if line.startswith("  - "))
                    print(f"{key:<22} FAILED after {time.perf_counter() - t0:.1f}s: {lines[0]} "
                          f"({shown}{'+' if shown >= 40 else ''} problems listed)")
                    for line in lines[1:6]:
                        print(f"{'':<22} {line}")
                    if args.keep:  # the whole list, for diagnosis
                        (base / f"problems-{profile}-{key}.txt").write_text(e.problem + "\n", encoding="utf-8")
                    status = 1
                    continue
                print(f"{key:<22} {time.perf_counter() - t0:>7.1f}s  {res.metadata.get('files', '?')} files  "
                      f"bundle {res.bundle.name if res.bundle else '?'}")
        return status


if __name__ == "__main__":
    raise SystemExit(main())
