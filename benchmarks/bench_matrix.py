"""Build matrix: every pack on every profile, seed and pack name asked for, pass or fail.

    python benchmarks/bench_matrix.py [--packs airline,retail,telecom,banking,multidoc,tau2_airline,tau2_retail,tau2_telecom]
                                      [--profiles text-only,text+image,text+image+audio,full]
                                      [--seeds 0,1,2] [--names tau2,acme,north]
                                      [--fresh] [--workers N] [--tau2 DIR] [--keep DIR]

Packs: the four built-in domains (`airline`, `retail`, `telecom`, `banking`); `multidoc`, the
project's multi-document tau2-bench layout fixture (tests/fixtures/tau2_layouts/telecom_multidoc)
imported; `tau2_airline`, `tau2_retail` and `tau2_telecom`, the public tau2-bench domains under
--tau2 (default ../shared/external/tau2-bench) imported. Imports go into a temporary folder,
never into the project (`domains.tau2.import_tau2_domain`, as `bench_import.py` does).

`--names` imports every imported pack once under each prefix given, followed by the source's
short name (`--names tau2,acme` builds tau2_retail as `tau2retail` and `acmeretail`; default:
the pack's own name). What small talk, which customers and which brand words a build renders depend on the
pack's name, so a pack that builds under one name can fail under another; `--seeds` (default
0) does the same for the seed.

Each combination is one `pipeline.build.build_partition` (the build the CLI runs, every
blocking check included), into its own output folder. Workspace: by default one
workspace per pack, shared by that pack's profiles, so a file one profile rendered and
extracted is taken from the content-addressed caches by the next (the keys cover the kind's
code, the fact, the seed and everything else the file depends on; every gate still runs on
every build). The first profile of each pack is a cold build, the later ones are warm, and
their seconds say so. `--fresh` gives every combination an empty workspace (honest cold
seconds for each; slower). The audit queue is not read ($FACTFORGE_AUDIT_DB is ignored), so
no reviewer's rejection reseeds an artifact.

Prints the commit (and whether the tree has uncommitted changes) first, then one row per
combination as it ends: pack, profile, PASS or FAIL (with the first failing gate line and
its first problem), files, seconds. A failed combination does not stop the others; the exit
status is 1 when any failed (2 for a usage error), and no traceback is ever printed.
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_import import DEFAULT_TAU2, MULTIDOC, pipeline_ready  # noqa: E402

BUILT_IN = ["airline", "retail", "telecom", "banking"]
IMPORTED = {"multidoc": MULTIDOC, "tau2_airline": "airline", "tau2_retail": "retail", "tau2_telecom": "telecom"}
PACKS = [*BUILT_IN, *IMPORTED]
PROFILES = ["text-only", "text+image", "text+image+audio", "full"]


def commit() -> str:
    """`abc1234` or `abc1234 (dirty: uncommitted changes)`; `unknown` outside a git checkout."""
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
    try:
        head = git("rev-parse", "--short", "HEAD")
        dirty = git("status", "--porcelain", "--untracked-files=no")
    except (OSError, subprocess.CalledProcessError):
        return "unknown (not a git checkout)"
    return f"{head} (dirty: uncommitted changes)" if dirty else f"{head} (clean)"


def choose(given: str, known: list[str], what: str) -> list[str]:
    picked = [x.strip() for x in given.split(",") if x.strip()]
    unknown = [x for x in picked if x not in known]
    if unknown or not picked:
        usage(f"unknown {what} {', '.join(unknown) or '(none given)'}; available: {', '.join(known)}")
    return list(dict.fromkeys(picked))


def usage(problem: str) -> None:
    print(f"error: bench_matrix: {problem} (see 'bench_matrix.py --help')", file=sys.stderr)
    raise SystemExit(2)


def one_line(e: BaseException) -> str:
    text = " ".join(str(e).split()) or type(e).__name__
    return text if len(text) <= 240 else text[:237] + "..."


def failure_line(e: BaseException) -> str:
    """The first failing gate and its first problem (`BuildFailed`), else the error in one line."""
    from pipeline.build import BuildFailed  # noqa: PLC0415

    if isinstance(e, BuildFailed):
        lines = [ln.strip() for ln in e.problem.splitlines() if ln.strip()]
        first = lines[0] if lines else "build failed"
        problem = next((ln[2:] for ln in lines[1:] if ln.startswith("- ")), "")
        more = sum(1 for ln in lines[1:] if ln.startswith("- ")) - 1
        return first + (f": {problem}" if problem else "") + (f" (+{more} more)" if more > 0 else "")
    from facts.errors import FactforgeError  # noqa: PLC0415

    return one_line(e) if isinstance(e, FactforgeError) else f"{type(e).__name__}: {one_line(e)}"


def import_packs(packs: list[str], names: list[str], tau2: Path, into: Path) -> dict[tuple[str, str], str]:
    """Import each imported pack asked for under each name; (pack, name) -> why it could not be
    imported (empty if every import worked). A built-in pack keeps its own name."""
    from domains.tau2 import import_tau2_domain  # noqa: PLC0415

    problems = {}
    for pack in packs:
        if pack not in IMPORTED:
            continue
        src = IMPORTED[pack] if isinstance(IMPORTED[pack], Path) else tau2 / IMPORTED[pack]
        for name in names_of(pack, names):
            if not src.is_dir():
                problems[pack, name] = f"import: {src} not found"
                continue
            try:
                import_tau2_domain(src, name, into, force=True)
            except Exception as e:  # noqa: BLE001  (reported as this pack's failure; the others go on)
                problems[pack, name] = f"import: {failure_line(e)}"
    return problems


def key(pack: str) -> str:
    """The partition key a pack builds under by default (the multi-document fixture as bench_import names it)."""
    return f"tau2_{MULTIDOC.name}" if pack == "multidoc" else pack


def names_of(pack: str, prefixes: list[str]) -> list[str]:
    """The names an imported pack is built under (each `--names` prefix and the source's short
    name, else the pack's own); a built-in keeps its own."""
    if not prefixes or pack not in IMPORTED:
        return [key(pack)]
    short = pack.removeprefix("tau2_")
    return [f"{p}{short}" for p in prefixes]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--packs", default=",".join(PACKS), help=f"comma-separated, of: {','.join(PACKS)}")
    ap.add_argument("--profiles", default=",".join(PROFILES), help=f"comma-separated, of: {','.join(PROFILES)}")
    ap.add_argument("--seeds", default="0", help="comma-separated build seeds (default 0)")
    ap.add_argument("--names", default="", help="comma-separated prefixes: each imported pack is imported "
                                               "as prefix + its short name (default: its own name)")
    ap.add_argument("--fresh", action="store_true", help="an empty workspace for every combination "
                                                         "(default: one per pack, shared by its profiles)")
    ap.add_argument("--workers", type=int, default=0, help="process pool size (default: every core)")
    ap.add_argument("--tau2", type=Path, default=DEFAULT_TAU2, help="folder holding the tau2-bench domain folders")
    ap.add_argument("--keep", type=Path, help="work (imports, workspaces, bundles) in this folder, kept, "
                                              "instead of a temporary one")
    args = ap.parse_args()
    packs = choose(args.packs, PACKS, "pack")
    profiles = choose(args.profiles, PROFILES, "profile")
    try:
        seeds = list(dict.fromkeys(int(x) for x in args.seeds.split(",") if x.strip()))
    except ValueError:
        usage(f"--seeds must be whole numbers, not {args.seeds!r}")
    if not seeds or min(seeds) < 0:
        usage("--seeds needs at least one seed of 0 or more")
    names = list(dict.fromkeys(x.strip() for x in args.names.split(",") if x.strip()))
    bad = [n for n in names if not re.fullmatch(r"[a-z][a-z0-9_]{0,29}", n)]
    if bad:
        usage(f"name prefixes are lower-case letters, digits and _ (starting with a letter): {', '.join(bad)}")
    if args.workers < 0:
        usage("--workers must be 0 or more")
    os.environ.pop("FACTFORGE_AUDIT_DB", None)

    print(f"commit {commit()}")
    print(f"seeds {','.join(map(str, seeds))}; workspace: {'empty for every combination' if args.fresh else 'one per pack name, shared by its seeds and profiles (first build cold, later ones warm)'}; "
          f"workers {args.workers or os.cpu_count()}")
    reason = pipeline_ready()
    if reason:
        print(f"no build possible: {reason}")
        return 1
    with tempfile.TemporaryDirectory(prefix="ff-bench-matrix-") as tmp:
        base = args.keep.resolve() if args.keep else Path(tmp)
        into = base / "domains"
        into.mkdir(parents=True, exist_ok=True)
        problems = import_packs(packs, names, args.tau2, into)

        from pipeline.build import build_partition, configure_domains_dirs  # noqa: PLC0415

        configure_domains_dirs([str(into)])  # before the partitions are discovered
        from pipeline.resources import BuildSettings, Execution, Workspace  # noqa: PLC0415

        execution = Execution(workers=args.workers)
        print(f"\n{'pack':<14} {'name':<22} {'seed':>4} {'profile':<18} {'result':<6} {'files':>6} {'seconds':>8}  first failing gate")
        rows = []
        for pack in packs:
            for name in names_of(pack, names):
                for seed in seeds:
                    for profile in profiles:
                        label = f"{pack:<14} {name:<22} {seed:>4} {profile:<18}"
                        if (pack, name) in problems:
                            rows.append(False)
                            print(f"{label} {'FAIL':<6} {'-':>6} {'-':>8}  {problems[pack, name]}", flush=True)
                            continue
                        ws_root = base / "ws" / (f"{name}-{seed}-{profile}" if args.fresh else name)
                        ws = Workspace(root=str(ws_root), out=str(base / "out" / name / str(seed) / profile))
                        settings = BuildSettings(seed=seed, profile=profile, domains_dirs=[str(into)])
                        t0 = time.perf_counter()
                        try:
                            res = build_partition(name, ws, settings, execution=execution)
                        except Exception as e:  # noqa: BLE001  (one row; the other combinations go on)
                            rows.append(False)
                            print(f"{label} {'FAIL':<6} {'-':>6} {time.perf_counter() - t0:>8.1f}  {failure_line(e)}",
                                  flush=True)
                            continue
                        rows.append(True)
                        print(f"{label} {'PASS':<6} {res.metadata.get('files', '?'):>6} "
                              f"{time.perf_counter() - t0:>8.1f}", flush=True)
        failed = rows.count(False)
        print(f"\n{len(rows) - failed} of {len(rows)} passed" + (f", {failed} failed" if failed else ""))
        return 1 if failed else 0


if __name__ == "__main__":
    try:
        raise SystemExit(main())
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        raise SystemExit(130)
    except Exception as e:  # noqa: BLE001  (outside any one build: one line, never a traceback)
        print(f"error: bench_matrix: {failure_line(e)}", file=sys.stderr)
        raise SystemExit(1)
