"""Benchmark: the CPU time of a command's whole process tree, and its wall time.

`time` counts only the descendants their own parents waited for. A process pool started
through a fork server (every build's render workers) is reaped by that server, which is
itself never waited for, so its CPU is in no one's account. Here the command runs under a
child subreaper (Linux `PR_SET_CHILD_SUBREAPER`): every descendant that loses its parent is
handed to this process, which reaps it, so every second of the tree is counted.

    python benchmarks/bench_tree_cpu.py bash .ci/run
    python benchmarks/bench_tree_cpu.py .venv/bin/python -m pytest -q tests/test_incremental.py

Prints one line on stderr after the command and its last descendant have ended (or 20 s
after the command ended, for a descendant that never does): CPU seconds (user and system),
user seconds, wall seconds, the command's exit code; exits with that code.
"""
from __future__ import annotations

import ctypes
import os
import resource
import subprocess
import sys
import time

PR_SET_CHILD_SUBREAPER = 36
LINGER = 20.0  # seconds to wait for descendants after the command itself has ended


def main() -> int:
    if len(sys.argv) < 2:
        sys.stderr.write("usage: bench_tree_cpu.py COMMAND [ARG ...]\n")
        return 2
    if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        sys.stderr.write("bench_tree_cpu: this system cannot make a child subreaper (Linux only)\n")
        return 2
    t0 = time.monotonic()
    cmd = subprocess.Popen(sys.argv[1:])
    rc, deadline = None, None
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG if deadline else 0)
        except ChildProcessError:
            break  # nothing left to reap
        if pid == cmd.pid:
            rc, deadline = os.waitstatus_to_exitcode(status), time.monotonic() + LINGER
        elif pid == 0:
            if time.monotonic() > deadline:
                break
            time.sleep(0.2)
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    sys.stderr.write(f"tree CPU {ru.ru_utime + ru.ru_stime:.1f} s (user {ru.ru_utime:.1f} s), "
                     f"wall {time.monotonic() - t0:.1f} s, exit code {rc}\n")
    return rc or 0


if __name__ == "__main__":
    sys.exit(main())
