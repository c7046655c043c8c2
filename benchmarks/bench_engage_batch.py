"""Benchmark: a batch of engagements over the `_mock` tasks, one at a time against two side by side.

    python benchmarks/bench_engage_batch.py [--repeats 3]

Builds the `_mock` pack (both tasks) in a temporary folder, then for each developer (`starting`;
a script that writes a one-sentence agent and submits; `cmd:sleep 10`, a program that spends
its time waiting, as a coding agent waits on its model) runs
`factforge engage PACK --task all --developer DEV --out RUN --jobs J` for J = 1 and 2,
alternately, `--repeats` times each, each time into a fresh RUN. Printed: the wall time of each
run, the median per developer and J, and the load average around the runs (the machine's other
work shows there).
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GREETER = """[[steps]]
write = "agent.py"
text = '''
class Agent:
    def get_init_state(self):
        return {}

    def generate_next_message(self, message, state):
        return "Thank you for contacting Pedalwise Rentals.", state


def create_agent():
    return Agent()
'''

[[steps]]
tool = "submit"
"""


def factforge(*args: str, cwd: Path) -> float:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "pipeline.cli", *args], cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--developers", nargs="+", default=["starting", "scripted:greeter.toml", "cmd:sleep 10"])
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "greeter.toml").write_text(GREETER, encoding="utf-8")
        factforge("pack", "build", "--domain", "_mock", "--out", "pack", "--workspace", "ws", "--workers", "1",
                  cwd=work)
        print(f"load average before: {os.getloadavg()[0]:.1f}")
        for dev in args.developers:
            times: dict[int, list[float]] = {1: [], 2: []}
            for i in range(args.repeats):
                for jobs in (1, 2):
                    out = f"run-{args.developers.index(dev)}-{jobs}-{i}"
                    s = factforge("engage", "pack", "--task", "all", "--developer", dev, "--out", out, "--jobs",
                                  str(jobs), cwd=work)
                    times[jobs].append(s)
                    print(f"{dev} --jobs {jobs}: {s:.1f} s (load average {os.getloadavg()[0]:.1f})", flush=True)
            m1, m2 = statistics.median(times[1]), statistics.median(times[2])
            print(f"{dev}: median {m1:.1f} s with --jobs 1, {m2:.1f} s with --jobs 2 ({m1 / m2:.2f}x)")


if __name__ == "__main__":
    main()
