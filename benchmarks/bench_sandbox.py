"""Sandbox figures: what a fresh sandbox costs a conversation, and how each hostile agent of
tests/agents/ is contained (time to the agent's failure, the evaluator's peak resident set
during the probe, the sandbox's measured peak, the log's size on the host).

    python benchmarks/bench_sandbox.py                  # builds a _mock pack in a temp dir
    python benchmarks/bench_sandbox.py --starts 50

Prints one line per figure. Needs bubblewrap (`bwrap`).
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
AGENTS = ROOT / "tests" / "agents"
TASK = "_mock-client-knows"
PROBES = [("hostile_flood", "go", 4.0), ("hostile_forger", "big reply", 4.0), ("hostile_forger", "long", 4.0),
          ("hostile_memory", "tmp", 0.5), ("hostile_memory", "children", 0.5), ("hostile_memory", "fork", 4.0)]


def _peak_mib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) // 1024
    return -1


def main() -> None:
    from outputs.evaluator.sandbox import AgentError, Sandbox, SandboxHost, bwrap_path
    from outputs.packs.build import BuildOptions, build_pack
    from outputs.packs.store import Pack

    ap = argparse.ArgumentParser()
    ap.add_argument("--starts", type=int, default=20)
    args = ap.parse_args()
    if bwrap_path() is None:
        raise SystemExit("bench_sandbox: bubblewrap (bwrap) is not installed")
    with tempfile.TemporaryDirectory(prefix="ff-bench-sandbox-") as tmp:
        tmp = Path(tmp)
        path, _, _ = build_pack(tmp / "pack", ["_mock"], opts=BuildOptions(seed=0, workspace=tmp / "ws"))
        (tmp / "sock").mkdir()
        Pack(path).materialize(TASK, "kit", tmp / "kit")

        def host(module: str, memory_gb: float, log: str) -> SandboxHost:
            sb = Sandbox(kit=tmp / "kit", workspace=AGENTS, sockets=tmp / "sock", log=tmp / log, memory_gb=memory_gb)
            return SandboxHost(sb, module, 90.0, fresh=True)

        h = host("misbehaving_agent", 4.0, "starts.log")
        walls = []
        for _ in range(args.starts):
            t0 = time.perf_counter()
            h.start(None)
            h.step("hi")
            h.finish()
            walls.append(time.perf_counter() - t0)
        h.close()
        print(f"fresh sandbox per conversation (start, handshake, one reply, stop and wait for its PID namespace): "
              f"median {statistics.median(walls) * 1000:.0f} ms over {args.starts}; limits {h.sandbox.limits}")
        for module, message, memory_gb in PROBES:
            h = host(module, memory_gb, f"{module}-{message.replace(' ', '_')}.log")
            h.start(None)
            Path("/proc/self/clear_refs").write_text("5")
            t0 = time.perf_counter()
            try:
                h.step(message)
                out = "answered"
            except AgentError as e:
                out = str(e).split(";")[0][:110]
            wall = time.perf_counter() - t0
            h.close()
            sb = h.sandbox
            print(f"{module} {message!r}: {wall:.1f} s to the agent's failure; evaluator peak RSS {_peak_mib()} MiB; "
                  f"sandbox peak {sb.peak_memory / 2**20:.0f} MiB, {sb.peak_processes} processes; "
                  f"log {sb.log_path.stat().st_size / 2**20:.1f} MiB: {out}")


if __name__ == "__main__":
    main()
