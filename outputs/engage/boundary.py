"""The developer's boundary: bubblewrap around the developer's program for the whole engagement.

What the developer sees (everything else does not exist in its mount namespace):

| path | what | access |
|---|---|---|
| `/kit` | `DIR/kit`: the task's kit, with `bin/ff` and `bin/ff-mcp` | read-only |
| `/workspace` | `DIR/workspace`: the working copy (a git repository); the working directory | read-write |
| `/run/ff/` | the tools' Unix sockets (`tools`, `mcp`, `api`, `gateway`) | connect |
| `/opt/ffdev/` | a scripted developer's driver and script; an adapter's launcher, relay and configuration | read-only |
| `/var/developer/` | `DIR/developer/`: what a coding agent writes for the record (its own trajectory, its output) | read-write |
| a coding agent's installation | the npm prefix or venv it was found in (`ro_binds`), at its own path | read-only |
| the Python with `mcp` | the interpreter factforge runs on (its prefix and, for a venv, the venv), as `FF_PYTHON` | read-only |
| `/usr` (+ `/bin`, `/lib`, `/lib64`, `/sbin`) | the system's programs and libraries | read-only |
| `/tmp`, `/dev/shm`, `/home/developer` | empty tmpfs, each at most the task's memory | read-write |
| `/proc`, `/dev` | the boundary's own (a new PID namespace); `/dev` read-only | |

All namespaces are unshared (no network at all: the tools are reached only through the
sockets), capabilities dropped, the boundary dies with the engagement. The environment is
`FF_SOCKETS=/run/ff`, `FACTFORGE_KIT=/kit`, `FACTFORGE_API_URL` (the development API),
`FACTFORGE_GATEWAY_URL` (the experiments' model gateway), `FF_PYTHON`, `HOME`, `PATH`
(`/kit/bin` first), `LANG`, `TMPDIR`, `FF_DEVELOPER_OUT` (with an output folder), and what a
coding agent's adapter adds (`extra_env`, which cannot replace those): nothing of the
engagement's own environment. The network namespace has its loopback interface up (bubblewrap
brings it up), which is where the model relay listens.

Limits, for every process of the boundary together, with the evaluator's machinery
(`outputs.evaluator.sandbox`): wall time (the engagement's hours), CPU time (the task's CPUs x
that time: measured every `POLL_S` from `/proc`, backed by `RLIMIT_CPU` on every process),
memory (the task's figure: a cgroup where `systemd-run` offers one, and measured: resident
memory plus what `/tmp` and `/dev/shm` hold), processes (`MAX_PROCESSES`), output (the
developer's stdout and stderr go to `developer.log`, capped). At the end every process is
killed and waited for (the PID namespace with them).

Without `bwrap` on the machine (or with `isolation="process"`) the program runs as a plain
child process with the same environment pointing at the real paths: no isolation, recorded
as `isolation: process`.
"""
from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from outputs.evaluator.sandbox import (MAX_PROCESSES, CappedLog, TreeUsage, bwrap_path, cgroup_env, cgroup_prefix,
                                       kill_tree, readable, tree_pids, unix_url)

POLL_S = 0.2
SUBMIT_GRACE_S = 3.0                     # how long a developer may take to exit after it submitted
SOCKETS = "/run/ff"
HOME = "/home/developer"
STAGE = "/opt/ffdev"
DEVELOPER_OUT = "/var/developer"


@dataclass
class Ending:
    """How the developer's program ended."""
    reason: str                          # submitted | exited | time_limit | limit
    detail: str = ""
    status: Optional[int] = None
    wall_seconds: float = 0.0
    cpu_seconds: float = 0.0
    peak_memory: int = 0
    peak_processes: int = 0


@dataclass
class Boundary:
    kit: Path
    workspace: Path
    sockets: Path
    stage: Path
    log: Path
    memory_gb: float = 4.0
    cpus: int = 2
    seconds: float = 8 * 3600.0
    isolation: str = "sandbox"
    socket_names: dict[str, str] = field(default_factory=dict)   # "api" -> "api.sock", ...
    extra_env: dict[str, str] = field(default_factory=dict)      # an adapter's variables
    path_prepend: list[str] = field(default_factory=list)        # folders put first on PATH
    ro_binds: list[str] = field(default_factory=list)            # folders bound read-only at their own path
    developer_out: Optional[Path] = None                         # bound read-write at DEVELOPER_OUT

    def __post_init__(self):
        self.isolation = self.isolation if self.isolation == "process" or bwrap_path() else "process"
        self.memory = int(self.memory_gb * (1 << 30))
        self.cpu_limit = self.cpus * self.seconds
        self.cgroup = cgroup_prefix() if self.isolation == "sandbox" else None

    # ---- what the developer's program is started with --------------------------------------
    def env(self) -> dict[str, str]:
        inside = self.isolation == "sandbox"
        kit = "/kit" if inside else str(self.kit)
        socks = SOCKETS if inside else str(self.sockets)
        env = {"FF_SOCKETS": socks, "FACTFORGE_KIT": kit, "FF_PYTHON": python(),
               "HOME": HOME if inside else str(self.stage / "home"), "TMPDIR": "/tmp",
               "PATH": f"{kit}/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1"}
        for name, var in (("api", "FACTFORGE_API_URL"), ("gateway", "FACTFORGE_GATEWAY_URL")):
            if name in self.socket_names:
                env[var] = unix_url(f"{socks}/{self.socket_names[name]}")
        if self.developer_out is not None:
            env["FF_DEVELOPER_OUT"] = self.developer_out_path()
        if self.path_prepend:
            env["PATH"] = ":".join([*self.path_prepend, env["PATH"]])
        return {**{k: v for k, v in self.extra_env.items() if k not in env}, **env}

    def stage_path(self) -> str:
        return STAGE if self.isolation == "sandbox" else str(self.stage)

    def developer_out_path(self) -> str:
        return DEVELOPER_OUT if self.isolation == "sandbox" else str(self.developer_out)

    def kit_path(self) -> str:
        return "/kit" if self.isolation == "sandbox" else str(self.kit)

    def sockets_path(self) -> str:
        return SOCKETS if self.isolation == "sandbox" else str(self.sockets)

    def home_path(self) -> str:
        return HOME if self.isolation == "sandbox" else str(self.stage / "home")

    def workspace_path(self) -> str:
        return "/workspace" if self.isolation == "sandbox" else str(self.workspace)

    def argv(self, command: list[str]) -> list[str]:
        env = self.env()
        if self.isolation == "process":
            return [shutil.which("env") or "/usr/bin/env", "-i", *[f"{k}={v}" for k, v in env.items()], *command]
        size = str(self.memory)
        a = [bwrap_path() or "bwrap", "--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
             "--hostname", "developer", "--ro-bind", "/usr", "/usr"]
        for name in ("bin", "lib", "lib64", "sbin"):
            if os.path.islink(f"/{name}"):
                a += ["--symlink", os.readlink(f"/{name}"), f"/{name}"]
            elif os.path.isdir(f"/{name}"):
                a += ["--ro-bind", f"/{name}", f"/{name}"]
        a += ["--proc", "/proc", "--dev", "/dev", "--size", size, "--tmpfs", "/dev/shm", "--remount-ro", "/dev",
              "--size", size, "--tmpfs", "/tmp", "--size", size, "--tmpfs", HOME, "--dir", "/run",
              "--ro-bind", str(self.kit), "/kit", "--bind", str(self.workspace), "/workspace",
              "--ro-bind", str(self.sockets), SOCKETS, "--ro-bind", str(self.stage), STAGE]
        for prefix in python_prefixes():      # after the tmpfs mounts: a venv under /tmp stays visible
            a += ["--ro-bind", prefix, prefix]
        for prefix in self.ro_binds:
            if prefix not in python_prefixes():
                a += ["--ro-bind", prefix, prefix]
        if self.developer_out is not None:
            a += ["--bind", str(self.developer_out), DEVELOPER_OUT]
        a += ["--clearenv"]
        for k, v in env.items():
            a += ["--setenv", k, v]
        a += ["--chdir", "/workspace", *command]
        if self.cgroup:
            a = [*self.cgroup, "-p", f"MemoryMax={self.memory}", "-p", "MemorySwapMax=0",
                 "-p", f"TasksMax={MAX_PROCESSES}", "--", shutil.which("env") or "/usr/bin/env", "-i", *a]
        return a

    def _limits(self) -> None:
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        soft = int(self.cpu_limit) + 1
        resource.setrlimit(resource.RLIMIT_CPU, (soft, soft + 2))

    # ---- a run ---------------------------------------------------------------------------------
    def run(self, command: list[str], submitted: threading.Event) -> Ending:
        """Run `command` in the boundary until it exits, submits (then `SUBMIT_GRACE_S` to exit),
        passes the time limit or another limit; every process of it is gone on return."""
        if self.isolation == "process":
            (self.stage / "home").mkdir(exist_ok=True)
        out_r, out_w = os.pipe()
        t0 = time.monotonic()
        try:
            proc = subprocess.Popen(self.argv(command), stdin=subprocess.DEVNULL, stdout=out_w, stderr=out_w,
                                    cwd=str(self.workspace), env=cgroup_env() if self.cgroup else {},
                                    preexec_fn=self._limits, start_new_session=True)
        except OSError as e:
            os.close(out_r)
            os.close(out_w)
            return Ending("exited", f"the developer could not be started: {e}", status=None)
        os.close(out_w)
        log = CappedLog(self.log, out_r)
        pidfd = os.pidfd_open(proc.pid)
        end = self._watch(proc, pidfd, submitted, t0)
        fds = kill_tree(proc, tree_pids(proc.pid))
        try:
            _, status, usage = os.wait4(proc.pid, 0)
            proc.returncode = os.waitstatus_to_exitcode(status)
        except ChildProcessError:
            usage = None
        deadline = time.monotonic() + 10
        for fd in [pidfd, *fds]:
            try:
                readable(fd, max(0.0, deadline - time.monotonic()))
            finally:
                os.close(fd)
        log.close()
        end.wall_seconds = round(time.monotonic() - t0, 3)
        if usage is not None:
            end.cpu_seconds = max(end.cpu_seconds, usage.ru_utime + usage.ru_stime)
        end.cpu_seconds = round(end.cpu_seconds, 3)
        if end.reason == "exited":
            end.status = proc.returncode
        return end

    def _watch(self, proc: subprocess.Popen, pidfd: int, submitted: threading.Event, t0: float) -> Ending:
        cpu = peak_mem = peak_procs = 0
        grace_until: Optional[float] = None
        while True:
            if readable(pidfd, POLL_S):
                return Ending("submitted" if submitted.is_set() else "exited", cpu_seconds=cpu,
                              peak_memory=peak_mem, peak_processes=peak_procs)
            u = TreeUsage(proc.pid, self.isolation == "sandbox")
            cpu, peak_mem, peak_procs = max(cpu, u.cpu), max(peak_mem, u.memory), max(peak_procs, u.processes)
            now = time.monotonic()
            why = self._over(u)
            if why is not None:
                return Ending("limit", why, cpu_seconds=cpu, peak_memory=peak_mem, peak_processes=peak_procs)
            if submitted.is_set():
                grace_until = grace_until or now + SUBMIT_GRACE_S
                if now >= grace_until:
                    return Ending("submitted", cpu_seconds=cpu, peak_memory=peak_mem, peak_processes=peak_procs)
            elif now - t0 >= self.seconds:
                return Ending("time_limit", f"the developer did not submit within {self.seconds:g} s (time limit)",
                              cpu_seconds=cpu, peak_memory=peak_mem, peak_processes=peak_procs)

    def _over(self, u: TreeUsage) -> Optional[str]:
        if u.processes > MAX_PROCESSES:
            return f"the developer ran {u.processes} processes at once, over the limit of {MAX_PROCESSES} (process limit)"
        if u.memory > self.memory:
            return (f"the developer's processes held {u.memory / (1 << 20):.0f} MiB, over the limit of "
                    f"{self.memory / (1 << 20):.0f} MiB (memory limit)")
        if u.cpu > self.cpu_limit:
            return f"the developer used {u.cpu:.1f} s of CPU time, over its limit of {self.cpu_limit:g} s (CPU limit)"
        return None


def python() -> str:
    """The interpreter the engagement runs on (the one with the `mcp` SDK)."""
    return str(Path(sys.prefix) / "bin" / "python") if sys.prefix != sys.base_prefix else sys.executable


def python_prefixes() -> list[str]:
    """Folders bound read-only so that `python()` runs inside the boundary: the interpreter's
    installation and, for a venv, the venv (both at their own paths; none under /usr twice)."""
    out = []
    for p in dict.fromkeys([sys.base_prefix, sys.prefix]):
        if not (p == "/usr" or p.startswith("/usr/")) and os.path.isdir(p):
            out.append(p)
    return out
