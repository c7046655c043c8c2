"""The floor of an engagement on real domains: for the first task of each built-in domain, the
`starting` developer (delivers the starting workspace untouched) scored by `factforge engage`
against the same workspace scored by `factforge eval`, and the evidence the developer read.

    python benchmarks/bench_engage_first_tasks.py --out /tmp/first           # builds the pack first
    python benchmarks/bench_engage_first_tasks.py --pack PACK --out /tmp/first
    python benchmarks/bench_engage_first_tasks.py --task airline-disruption-desk --out /tmp/first

Seeded workspaces call a model; the scoring runs answer them with a fixed model reply (the
gateway's mock), so no provider key is needed and both sides see the same answers. Prints one
row per task: the two final scores, conversations, evidence files read of those delivered,
and the seconds each side took.
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

REPLY = "Thank you for contacting us. Let me look into that for you."


def first_tasks() -> list[str]:
    from domains import discover
    from outputs.packs.spec import tasks_dir

    return [sorted(tasks_dir(p).glob("*.toml"))[0].stem for _, p in sorted(discover().items())]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pack", type=Path, help="a pack holding the tasks (default: build one into --out)")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--workspace", type=Path, help="build caches (default $FACTFORGE_WORKSPACE)")
    ap.add_argument("--task", action="append", help="these tasks instead of each domain's first; repeatable")
    args = ap.parse_args()
    from outputs.engage.run import EngageConfig, run_engagement
    from outputs.evaluator.engine import EvalConfig, TaskContext, run_eval
    from outputs.packs.build import BuildOptions, build_pack, default_workspace

    tasks = args.task or first_tasks()
    args.out.mkdir(parents=True, exist_ok=True)
    pack = args.pack
    if pack is None:
        t0 = time.perf_counter()
        opts = BuildOptions(seed=0, workspace=args.workspace or default_workspace(), workers=1)
        pack, _, _ = build_pack(args.out / "pack", None, tasks, opts)
        print(f"pack of {len(tasks)} tasks built in {time.perf_counter() - t0:.0f} s", flush=True)
    print("| task | engage starting | eval of the starting workspace | conversations | evidence read | engage s | eval s |")
    print("|---|---|---|---|---|---|---|")
    for task in tasks:
        dest = args.out / task
        shutil.rmtree(dest, ignore_errors=True)
        t0 = time.perf_counter()
        rec = run_engagement(EngageConfig(pack=pack, task=task, developer="starting", out=dest / "engagement",
                                          gateway_mock_response=REPLY))
        t_engage = time.perf_counter() - t0
        kit = TaskContext.load(pack, task).materialize_kit(dest / "kit")
        agent = kit / "workspace"
        if not agent.is_dir():        # no starting workspace: the engagement's empty agent
            agent = dest / "empty"
            agent.mkdir()
            shutil.copyfile(dest / "engagement" / "workspace" / "agent.py", agent / "agent.py")
        t0 = time.perf_counter()
        direct = run_eval(EvalConfig(pack=pack, task=task, agent=str(agent), gateway_mock_response=REPLY)).summary
        t_eval = time.perf_counter() - t0
        ev = rec["evidence_read"]
        same = "equal" if rec["score"]["final_score"] == direct.final_score else "DIFFERENT"
        print(f"| {task} | {rec['score']['final_score']:.4f} | {direct.final_score:.4f} ({same}) | "
              f"{rec['score']['conversations']} / {direct.conversations} | {ev['files']} of {ev['files_total']} | "
              f"{t_engage:.0f} | {t_eval:.0f} |", flush=True)


if __name__ == "__main__":
    main()
