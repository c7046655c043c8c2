"""Evidence difficulty of the built-in domains, side by side with the reference benchmark.

Reads each domain's `reports/difficulty.json` (the build computes it from the delivered files
with the recoverability extractors) from the newest bundle under the workspace, or builds the
domains first with `--build` (full profile unless `--profile`), and prints the evidence
measures per domain beside the figures of a reference corpus of real business records and
the targets the planner is built to meet.

    python benchmarks/bench_evidence.py [--build] [--profile full] [--seed 0] [--workspace DIR]
                                        [--domains airline retail telecom banking]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

DOMAINS = ["airline", "retail", "telecom", "banking"]
# (summary key, label, reference corpus figure, target the planner is built to meet)
ROWS = [
    ("files", "delivered files", "2,868 (airline 377)", ">= 3,000 in all, airline >= 400"),
    ("tokens", "text tokens", "5.5 M in all", ">= 5.5 M in all"),
    ("conversational_fact_free_share", "conversational files with no fact", "33 of 36 threads", ">= 60%"),
    ("files_per_fact_plan", "files per fact (plan, any role)", "about 4.4", ">= 2.5"),
    ("files_per_fact_text", "files per fact (recovered from text)", "-", "-"),
    ("wrong_value_separated_share", "wrong values in another file", "resolved by date/version", ">= 70%"),
    ("wrong_value_hedged_share", "wrong values with a hedge", "-", "<= 20%"),
    ("multi_hop_share_of_value_facts", "multi-hop value facts", "yes", ">= 15%"),
    ("six_word_run_share", "6-word run of the statement somewhere", "-", "<= 35%"),
    ("topic_word_and_value_on_one_line_share", "topic word + value on one line", "-", "<= 30%"),
    ("shallow_reader_accuracy", "shallow reader right, bundle", "-", "<= 15%, <= half the policy's"),
    ("shallow_reader_policy_accuracy", "shallow reader right, policy alone", "-", "-"),
]
SHAPES = [("email_thread_messages", "e-mail thread messages", "7 to 22", "5 to 25, median >= 8"),
          ("team_chat_threads", "team-chat threads", "38", ">= 30"),
          ("team_chat_messages", "team-chat messages", "288", ">= 200"),
          ("meeting_minutes", "meeting minutes", "-", ">= 10")]


def newest_bundle(workspace: Path, domain: str) -> Path | None:
    root = workspace / "bundles" / domain
    if not root.is_dir():
        return None
    found = [p for p in root.iterdir() if (p / "reports" / "difficulty.json").is_file()]
    return max(found, key=lambda p: (p / "manifest.json").stat().st_mtime) if found else None


def build(domains: list[str], workspace: Path, profile: str, seed: int) -> float:
    env = {**os.environ, "FACTFORGE_WORKSPACE": str(workspace)}
    cmd = [str(ROOT / ".venv" / "bin" / "factforge"), "build", "--profile", profile, "--seed", str(seed)]
    for d in domains:
        cmd += ["--domain", d]
    t0 = time.time()
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
    return time.time() - t0


def fmt(key: str, v) -> str:
    if v is None:
        return "-"
    if isinstance(v, float) and ("share" in key or "accuracy" in key):
        return f"{v:.1%}"
    if isinstance(v, int):
        return f"{v:,}"
    return str(v)


def _num(v) -> str:
    """A figure as a reader writes it: 12.66, 17.15, 412 (not 17.145000000000003 or 412.0)."""
    if isinstance(v, float):
        return f"{v:.2f}".rstrip("0").rstrip(".")
    return str(v)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", action="store_true")
    ap.add_argument("--profile", default="full")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workspace", type=Path, default=Path(os.environ.get("FACTFORGE_WORKSPACE",
                                                                           Path.home() / ".factforge")))
    ap.add_argument("--domains", nargs="+", default=DOMAINS)
    args = ap.parse_args()
    if args.build:
        secs = build(args.domains, args.workspace, args.profile, args.seed)
        print(f"built {', '.join(args.domains)} ({args.profile}, seed {args.seed}) in {secs:.0f} s")
    reports = {}
    for d in args.domains:
        b = newest_bundle(args.workspace, d)
        if b is None:
            print(f"{d}: no bundle with reports/difficulty.json under {args.workspace} (use --build)")
            continue
        reports[d] = json.loads((b / "reports" / "difficulty.json").read_text(encoding="utf-8"))["summary"]
    if not reports:
        return
    names = list(reports)
    width = 40
    print(f"{'measure':{width}} " + " ".join(f"{n:>12}" for n in names) + f"  {'all':>12}  reference / target")
    for key, label, ref, target in ROWS:
        vals = [reports[n].get(key) for n in names]
        if key in ("files", "tokens"):
            total = fmt(key, sum(v or 0 for v in vals))
        else:
            total = ""
        print(f"{label:{width}} " + " ".join(f"{fmt(key, v):>12}" for v in vals) + f"  {total:>12}  {ref} / {target}")
    for key, label, ref, target in SHAPES:
        cells = []
        for n in names:
            dd = reports[n].get(key) or {}
            cells.append("-".join(_num(dd.get(k, "-")) for k in ("min", "median", "max")) if dd.get("n") else "-")
        print(f"{label + ' (min-median-max)':{width}} " + " ".join(f"{c:>12}" for c in cells) +
              f"  {'':>12}  {ref} / {target}")


if __name__ == "__main__":
    main()
