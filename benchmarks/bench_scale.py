"""Build at scale: fresh builds, the speed-up of 2 workers over 1, and a one-value edit.

Every build is the real command (`python -m pipeline.cli build ...`) in a fresh workspace,
timed from outside. The process tree is sampled every 0.2 s:

- **CPU** is user + system of every Python process of the tree (the build, its pool workers)
  at its last sample, each with the CPU of the tools it ran and waited for (tesseract,
  espeak-ng, ffmpeg: a process's children times); the fork server's children are the pool
  workers, counted themselves, so its children times are left out. (`getrusage` of the
  build alone missed the workers: the fork server, not the build, is their parent.) Up to
  one sampling interval per process is lost at its end.
- **Memory**: the largest single process (RSS) and the largest sum over all processes, both
  as RSS (pages shared by the fork server and the workers it forked counted once per
  process) and as PSS (each shared page divided among the processes sharing it: the memory
  the build really holds).

    python benchmarks/bench_scale.py fresh                 # the four built-in domains, full profile
    python benchmarks/bench_scale.py speedup --domains airline retail
    python benchmarks/bench_scale.py edit                  # airline: fresh build, then $75 -> $80
    python benchmarks/bench_scale.py all
    python benchmarks/bench_scale.py edit --seed 1          # any command: builds with this seed

`edit` copies the airline pack into a temporary domains folder (which shadows the built-in
one), builds it fresh, changes one value in the policy and in the seed database values (the
Voyager main-cabin change fee, $75 -> $80), and rebuilds in the same workspace; it prints
both times and how many files were rendered and extracted again.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOMAINS = ["airline", "retail", "telecom", "banking"]


class TreeSampler:
    """Peak memory and CPU of a process and its descendants, sampled (see the module doc)."""

    def __init__(self, pid: int, every: float = 0.2):
        import psutil

        self.proc = psutil.Process(pid)
        self.every = every
        self.peak_one = self.peak_sum = self.peak_pss = 0
        self.cpu_seen: dict[int, float] = {}  # pid -> CPU seconds at its last sample
        self._stop = threading.Event()
        self._t = threading.Thread(target=self._run, daemon=True)
        self._t.start()

    @staticmethod
    def _cpu(p) -> float:
        """User + system of `p`, plus its waited-for children unless it is the fork server or
        not Python (a tool: counted in the Python process that waited for it)."""
        t = p.cpu_times()
        cmd = " ".join(p.cmdline())
        if "python" not in cmd and "factforge" not in cmd:
            return 0.0
        own = t.user + t.system
        parent = p.parent()
        server = "forkserver" in cmd and (parent is None or "forkserver" not in " ".join(parent.cmdline()))
        return own if server else own + t.children_user + t.children_system  # workers share its command line

    def _run(self) -> None:
        import psutil

        while not self._stop.is_set():
            try:
                procs = [self.proc, *self.proc.children(recursive=True)]
            except psutil.Error:
                break
            rss, pss = [], []
            for p in procs:
                try:
                    rss.append(p.memory_info().rss)
                    pss.append(p.memory_full_info().pss)
                    self.cpu_seen[p.pid] = self._cpu(p)
                except psutil.Error:
                    pass
            if rss:
                self.peak_one = max(self.peak_one, max(rss))
                self.peak_sum = max(self.peak_sum, sum(rss))
                self.peak_pss = max(self.peak_pss, sum(pss))
            self._stop.wait(self.every)

    @property
    def cpu(self) -> float:
        return sum(self.cpu_seen.values())

    def stop(self) -> None:
        self._stop.set()
        self._t.join()


SEED: list[str] = []  # ["--seed", N] when given on the command line


def build(args: list[str], workspace: Path, env_extra: dict | None = None) -> dict:
    """Run `factforge build` with these arguments; return wall, cpu, memory and its output."""
    args = [*args, *SEED]
    env = {**os.environ, "FACTFORGE_WORKSPACE": str(workspace), "PYTHONPATH": str(ROOT), **(env_extra or {})}
    load0 = os.getloadavg()[0]
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "pipeline.cli", "build", *args], cwd=str(ROOT), env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    sampler = TreeSampler(proc.pid)
    out, err = proc.communicate()
    wall = time.perf_counter() - t0
    sampler.stop()
    if proc.returncode != 0:
        raise SystemExit(f"build {' '.join(args)} failed ({proc.returncode}):\n{err[-3000:]}")
    built = re.findall(r"built (\S+): (\S+)\s+\((\d+) files, (\d+) rendered and (\d+) extracted", out)
    return {"wall": wall, "cpu": sampler.cpu,
            "peak_one": sampler.peak_one, "peak_sum": sampler.peak_sum, "peak_pss": sampler.peak_pss, "out": out, "load": (load0, os.getloadavg()[0]),
            "domains": {d: {"bundle": b, "files": int(n), "rendered": int(r), "extracted": int(x)}
                        for d, b, n, r, x in built}}


def _mb(n: int) -> str:
    return f"{n / 2**20:,.0f} MB"


def _row(label: str, r: dict) -> str:
    files = sum(d["files"] for d in r["domains"].values())
    return (f"{label:44} {r['wall']:8.1f}s wall {r['cpu']:8.1f}s cpu  {files:5d} files  "
            f"peak {_mb(r['peak_one'])} (one process), all processes {_mb(r['peak_sum'])} RSS, "
            f"{_mb(r['peak_pss'])} PSS; "
            f"load average {r['load'][0]:.1f} before, {r['load'][1]:.1f} after")


def fresh(domains: list[str], workers: int) -> dict:
    with tempfile.TemporaryDirectory(prefix="ffbench-") as tmp:
        args = [a for d in domains for a in ("-d", d)] + ["--profile", "full"]
        if workers:
            args += ["--workers", str(workers)]
        r = build(args, Path(tmp))
        tokens = _tokens(r)
    print(_row(f"fresh build {'+'.join(domains)} (workers {workers or os.cpu_count()})", r))
    for d, v in r["domains"].items():
        print(f"    {d:10} {v['files']:5d} files  {tokens.get(d, 0):>10,} text tokens")
    print(f"    total      {sum(v['files'] for v in r['domains'].values()):5d} files  "
          f"{sum(tokens.values()):>10,} text tokens")
    return r


def _tokens(r: dict) -> dict[str, int]:
    """Whitespace tokens of the text extracted from every delivered file (recoverability report)."""
    import json

    out = {}
    for d, v in r["domains"].items():
        rep = json.loads((Path(v["bundle"]) / "reports" / "recoverability.json").read_text())
        out[d] = sum(a["extracted_tokens"] for a in rep["artifacts"])
    return out


def speedup(domains: list[str]) -> None:
    """1 worker, then 2 workers, each in a fresh workspace, one after the other."""
    res = {}
    for w in (1, 2):
        with tempfile.TemporaryDirectory(prefix="ffbench-") as tmp:
            res[w] = build([a for d in domains for a in ("-d", d)] + ["--profile", "full", "--workers", str(w)],
                           Path(tmp))
        print(_row(f"{'+'.join(domains)}, {w} worker{'s' if w > 1 else ''}", res[w]))
    versions = {w: {d: v["bundle"].rsplit("/", 1)[-1] for d, v in r["domains"].items()} for w, r in res.items()}
    print(f"speed-up of 2 workers over 1: {res[1]['wall'] / res[2]['wall']:.2f}x "
          f"(same bundles: {versions[1] == versions[2]})")


def edit() -> None:
    with tempfile.TemporaryDirectory(prefix="ffbench-") as tmp:
        tmp = Path(tmp)
        pack = tmp / "domains" / "airline"
        shutil.copytree(ROOT / "domains" / "airline", pack, ignore=shutil.ignore_patterns("__pycache__"))
        env = {"FACTFORGE_DOMAINS_DIR": str(tmp / "domains")}
        ws = tmp / "ws"
        first = build(["-d", "airline", "--profile", "full"], ws, env)
        print(_row("airline fresh build", first))
        policy, seed = pack / "policy.md", pack / "seed.py"
        text = policy.read_text(encoding="utf-8")
        # the Voyager column of the change-fee table's Main row (the seed value's own source line)
        line = next(ln for ln in text.splitlines() if ln.startswith("| Main | $99 | $75 |"))
        policy.write_text(text.replace(line, line.replace("| $75 |", "| $80 |", 1)), encoding="utf-8")
        src = seed.read_text(encoding="utf-8")
        src = src.replace('"change_fee_main_voyager": 75,', '"change_fee_main_voyager": 80,')
        # the seed's value sources quote the row as the policy now writes it
        seed.write_text(src.replace('"| Main | $99 | $75', '"| Main | $99 | $80'), encoding="utf-8")
        second = build(["-d", "airline", "--profile", "full"], ws, env)
        d = second["domains"]["airline"]
        print(_row("airline after a one-value edit ($75 -> $80)", second))
        print(f"    edited line: {line.strip()[:100]}")
        print(f"    rebuilt: {d['rendered']} of {d['files']} files rendered again, {d['extracted']} extracted again")
        print(f"one-value edit: {second['wall']:.1f}s beside a fresh build of {first['wall']:.1f}s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=["fresh", "speedup", "edit", "all"])
    ap.add_argument("--domains", nargs="*", default=None)
    ap.add_argument("--workers", type=int, default=0)
    ap.add_argument("--seed", type=int, default=None)
    a = ap.parse_args()
    if a.seed is not None:
        SEED[:] = ["--seed", str(a.seed)]
    print(f"{os.cpu_count()} cores; load average {os.getloadavg()[0]:.1f} at start; seed {a.seed or 0}")
    if a.what in ("fresh", "all"):
        fresh(a.domains or DOMAINS, a.workers)
    if a.what in ("speedup", "all"):
        speedup(a.domains or ["airline"])
    if a.what in ("edit", "all"):
        edit()
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
