"""The agent's process: bubblewrap (`bwrap`) around the agent runner (`runner.py`).

What the agent sees (everything else does not exist in its mount namespace):

| path | what | access |
|---|---|---|
| `/kit` | the task's kit, materialized from the pack (never the sealed part) | read-only |
| `/workspace` | the agent alone: a copy of its `.py` file, or its folder when that holds nothing sealed | read-only; the working directory |
| `/run/factforge/` | two Unix sockets: `api.sock` (the client API) and `gateway.sock` (the model gateway) | connect |
| `/opt/factforge/` | the runner; for the reference agents only, their modules (`ffagents`) and the reference client (`ffapi`: `outputs/api/refclient.py`, `contract.py`) | read-only |
| `/usr` (+ `/bin`, `/lib`, `/lib64` links) | the system's Python and libraries | read-only |
| `/tmp`, `/dev/shm` | empty tmpfs, each at most the task's memory | read-write |
| `/proc`, `/dev` | the sandbox's own (a new PID namespace: only its processes); `/dev` read-only | |

Namespaces: all unshared (`--unshare-all`): no network at all except the two sockets (the
API and the gateway are reached only through them, as `http+unix://` URLs), its own PIDs,
IPC, hostname and user. bwrap itself starts with an empty environment (its init, pid 1 of
the sandbox, holds nothing of the evaluator's); the agent's environment is
`FACTFORGE_API_URL`, `FACTFORGE_GATEWAY_URL`, `FACTFORGE_KIT=/kit`,
`PYTHONPATH=/workspace:/kit/sdk`, `HOME=/tmp`, `PATH`. Capabilities dropped; the sandbox
dies with the evaluator (`--die-with-parent`). The Python is the system's `/usr/bin/python3`
with `-S` (standard library and the kit SDK; no site packages).

Limits for the whole sandbox, every process of it together (docs/security.md says what each
guarantees):

- CPU time per conversation (`cpu_seconds`): measured (`tree_cpu_seconds`: user + system
  time of every live process under the sandbox, plus what each has collected from its exited
  children; the sandbox is a PID namespace, so every orphan is re-parented to its init,
  which stays in the tree), backed by the kernel's `RLIMIT_CPU` on every process;
- memory (the task's `memory_gb`): through a cgroup (`systemd-run --scope`, `MemoryMax`)
  where the machine offers one, and always measured: the resident memory of every process
  of the tree plus what `/tmp` and `/dev/shm` hold; `RLIMIT_AS` on every process;
- processes (`MAX_PROCESSES`): a cgroup's `TasksMax` where offered, and always counted;
  `RLIMIT_NPROC` inside the sandbox's user namespace (the kernel exempts root from it);
- output: the agent's stdout and stderr go through a pipe to the host, which keeps the first
  `LOG_MAX` bytes of a run's `agent.log` and then only the last `LOG_TAIL` of each sandbox;
- a reply: at most `REPLY_MAX` bytes, a protocol line at most `LINE_MAX`.

The evaluator's watchdog measures every `CPU_POLL_S` while the sandbox lives (between
replies too) and stops the sandbox past a limit: the conversation fails as the agent's
(`AgentError`, reward 0), never as ours.

Trust: the evaluator reads only lines signed by the runner's supervisor with a key made per
sandbox (`runner.py`); an unsigned line is the agent's failure. Whether a death is ours or
the agent's is decided from what the evaluator saw: a sandbox that ends before the runner's
signed `ready` (no agent code has run yet), or a runner ending with status 70, is an
infrastructure failure; any other end is the agent's. Nothing the agent prints is read for it.

A built agent gets a fresh sandbox per conversation, stopped (its PID namespace gone) before
the next conversation's backend is reset; the reference agents' shared sandbox measures each
conversation from its own start and is replaced when its processes' lifetime CPU time passes
half the budget (their kernel limit is cumulative).

Without `bwrap` on the machine the runner runs as a plain child process with the same
environment (`isolation: process` in results.json): no isolation, said so, never silent.
"""
from __future__ import annotations

import collections
import hashlib
import hmac
import json
import os
import resource
import secrets
import select
import shutil
import signal
import subprocess
import threading
import time
import urllib.parse
from pathlib import Path
from typing import Any, Optional

from facts.errors import FactforgeError
from outputs import api as api_pkg

from .runner import LINE_MAX, REPLY_MAX

HERE = Path(__file__).resolve().parent
RUNNER = HERE / "runner.py"
AGENTS_DIR = HERE / "agents"
REFCLIENT_FILES = ("refclient.py", "contract.py")
SOCKETS = "/run/factforge"
PYTHON = "/usr/bin/python3"
CPU_POLL_S = 0.2
CLK_TCK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
MAX_PROCESSES = 256
LOG_MAX = 8 << 20
LOG_TAIL = 64 << 10
READY_TIMEOUT_S = 30.0
RUNNER_FAILED = 70                        # the runner's own exit status on its failure
SEALED_NAMES = frozenset({"index.json", "sealed.json", "kit.json", "results.json", "tests.json", "live.json",
                          "db.json"})
AGENT_FOLDER_MAX = 20_000                 # entries an agent folder may hold


class AgentError(Exception):
    """The agent failed (its fault: reward 0)."""


class InfraError(Exception):
    """The evaluation machinery failed (reward 0, reported apart)."""


def unix_url(path: str) -> str:
    return "http+unix://" + urllib.parse.quote(path, safe="")


# --------------------------------------------------------------------------- the agent's files

def _refuse_sealed(folder: Path, sealed: frozenset[tuple[int, str]]) -> None:
    """Raise unless `folder` holds only the agent: no file named like a pack's, a task's or a
    run's (`SEALED_NAMES`), no pack `objects/` folder, no copy of a sealed file (`sealed`:
    (size, sha256) pairs). Links are not followed."""
    count = 0
    for dirpath, dirnames, filenames in os.walk(folder):
        count += len(dirnames) + len(filenames)
        if count > AGENT_FOLDER_MAX:
            raise FactforgeError(f"the agent folder holds more than {AGENT_FOLDER_MAX} entries; give the agent's "
                                 "own folder", folder)
        here = Path(dirpath)
        for name in filenames + dirnames:
            p = here / name
            if name in SEALED_NAMES or (name == "objects" and (here / "index.json").exists()):
                raise FactforgeError(f"the agent folder holds {p.relative_to(folder).as_posix()} (a pack, a task's "
                                     "sealed part or a run's results): an agent is evaluated from a folder holding "
                                     "only the agent", folder)
        for name in filenames:
            p = here / name
            try:
                st = p.lstat()
            except OSError:
                continue
            if sealed and p.is_file() and not p.is_symlink() and any(st.st_size == s for s, _ in sealed):
                digest = hashlib.sha256(p.read_bytes()).hexdigest()
                if (st.st_size, digest) in sealed:
                    raise FactforgeError(f"the agent folder holds {p.relative_to(folder).as_posix()}, a copy of a "
                                         "sealed file of the task", folder)


def resolve_agent(agent: str, sealed: frozenset[tuple[int, str]] = frozenset()) -> tuple[Path, str]:
    """(agent path, module name) of an agent: a `.py` file (copied alone into the sandbox's
    workspace) or a folder holding `agent.py` and nothing sealed (refused otherwise)."""
    p = Path(agent).expanduser()
    if p.is_file() and p.suffix == ".py":
        if not p.stem.isidentifier():
            raise FactforgeError("an agent file's name must be a Python module name", p)
        return p.resolve(), p.stem
    if p.is_dir():
        if not (p / "agent.py").is_file():
            raise FactforgeError("an agent directory must hold agent.py (the module with create_agent())", p)
        _refuse_sealed(p.resolve(), sealed)
        return p.resolve(), "agent"
    raise FactforgeError("no such agent: give a .py file, a directory holding agent.py, or oracle, naive, null, reciter, guesser", p)


def agent_workspace(agent: Path, dest: Path) -> Path:
    """The folder mounted as `/workspace`: a fresh folder holding a copy of the agent file
    alone, or the agent's folder itself."""
    if agent.is_dir():
        return agent
    dest.mkdir()
    shutil.copyfile(agent, dest / agent.name)
    return dest


def bwrap_path() -> Optional[str]:
    return shutil.which("bwrap")


_CGROUP: dict[str, Optional[list[str]]] = {}
CGROUP_ENV = ("XDG_RUNTIME_DIR", "DBUS_SESSION_BUS_ADDRESS")   # what systemd-run needs to reach its manager


def cgroup_env() -> dict[str, str]:
    """The environment `systemd-run` is started with (bwrap, after it, starts with none)."""
    return {k: os.environ[k] for k in CGROUP_ENV if k in os.environ}


def cgroup_prefix() -> Optional[list[str]]:
    """`systemd-run` arguments that put a command in a transient scope of its own (cgroups v2
    memory and task limits), when this machine's systemd accepts one; else None."""
    if "prefix" not in _CGROUP:
        _CGROUP["prefix"] = None
        run = shutil.which("systemd-run")
        if run is not None and os.path.isfile("/sys/fs/cgroup/cgroup.controllers"):
            base = [run] + ([] if os.geteuid() == 0 else ["--user"]) + ["--scope", "--quiet", "--collect"]
            try:
                ok = subprocess.run(base + ["-p", "MemoryMax=64M", "-p", "TasksMax=8", "true"], env=cgroup_env(),
                                    capture_output=True, timeout=20).returncode == 0
            except (OSError, subprocess.TimeoutExpired):
                ok = False
            _CGROUP["prefix"] = base if ok else None
    return _CGROUP["prefix"]


# --------------------------------------------------------------------------- the process tree

def proc_stats() -> dict[int, tuple[int, int, int]]:
    """pid -> (parent pid, CPU clock ticks: utime + stime + cutime + cstime, resident pages)."""
    out: dict[int, tuple[int, int, int]] = {}
    try:
        entries = os.scandir("/proc")
    except OSError:
        return out
    with entries:
        for e in entries:
            if not e.name.isdigit():
                continue
            try:
                fd = os.open(f"/proc/{e.name}/stat", os.O_RDONLY)
            except OSError:
                continue                                  # exited meanwhile
            try:
                raw = os.read(fd, 1024)
            except OSError:
                continue
            finally:
                os.close(fd)
            f = raw[raw.rfind(b")") + 2:].split(b" ", 23)  # after "pid (comm) ": state ppid ...
            try:
                out[int(e.name)] = (int(f[1]), int(f[11]) + int(f[12]) + int(f[13]) + int(f[14]), int(f[21]))
            except (IndexError, ValueError):
                continue
    return out


def process_tree(root: int, stats: dict[int, tuple[int, int, int]]) -> list[int]:
    children: dict[int, list[int]] = {}
    for pid, (ppid, _, _) in stats.items():
        children.setdefault(ppid, []).append(pid)
    out, todo, seen = [], [root], set()
    while todo:
        pid = todo.pop()
        if pid in seen or pid not in stats:
            continue
        seen.add(pid)
        out.append(pid)
        todo += children.get(pid, [])
    return out


def tree_cpu_seconds(root: int) -> float:
    """CPU time used by process `root` and all its descendants, living or reaped (a child's
    time moves into its parent's `cutime`/`cstime` when the parent waits for it)."""
    stats = proc_stats()
    return sum(stats[p][1] for p in process_tree(root, stats)) / CLK_TCK


def _tmpfs_used(pid: int) -> int:
    """Bytes held by the sandbox's `/tmp` and `/dev/shm`, seen through a process of it. A
    folder on the same device as this machine's own is not the sandbox's: while bwrap sets the
    sandbox up, its child still sees the machine's root, whose `/tmp` may hold gigabytes that
    are no part of the developer's memory."""
    used = 0
    for d in ("tmp", "dev/shm"):
        try:
            inside = os.stat(f"/proc/{pid}/root/{d}").st_dev
            if inside == os.stat(f"/{d}").st_dev:
                continue
            st = os.statvfs(f"/proc/{pid}/root/{d}")
        except OSError:
            continue
        used += (st.f_blocks - st.f_bfree) * st.f_frsize
    return used


class TreeUsage:
    """One measure of the sandbox's process tree."""

    def __init__(self, root: int, tmpfs: bool):
        stats = proc_stats()
        self.pids = process_tree(root, stats)
        self.cpu = sum(stats[p][1] for p in self.pids) / CLK_TCK
        self.rss = sum(stats[p][2] for p in self.pids) * PAGE
        inner = [p for p in self.pids if stats[p][0] == root]
        self.tmp = _tmpfs_used(inner[0]) if tmpfs and inner else 0
        self.memory = self.rss + self.tmp
        self.processes = len(self.pids)


def kill_tree(proc: subprocess.Popen, pids: list[int]) -> list[int]:
    """SIGKILL every process of the tree (by pidfd where possible) and `proc`'s process group;
    the pidfds opened (readable once each process is gone)."""
    fds = []
    for pid in pids:
        try:
            fd = os.pidfd_open(pid)
        except OSError:
            continue
        fds.append(fd)
        try:
            signal.pidfd_send_signal(fd, signal.SIGKILL)
        except OSError:
            pass
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        pass
    return fds


def tree_pids(root: int) -> list[int]:
    """`root` and all its living descendants."""
    return process_tree(root, proc_stats())


# --------------------------------------------------------------------------- the log

class CappedLog:
    """Drains the sandbox's stdout and stderr (one pipe) into `agent.log`: the file keeps its
    first `LOG_MAX` bytes; past them only the last `LOG_TAIL` of this sandbox are kept, in
    memory, and appended when the sandbox ends."""

    def __init__(self, path: Path, fd: int):
        self.path, self.fd = path, fd
        self.file = open(path, "ab")
        self.ring: collections.deque[bytes] = collections.deque()
        self.ring_size = self.dropped = 0
        self.thread = threading.Thread(target=self._drain, name="sandbox-log", daemon=True)
        self.thread.start()

    def _drain(self) -> None:
        try:
            while True:
                chunk = os.read(self.fd, 1 << 16)
                if not chunk:
                    break
                room = LOG_MAX - self.file.tell()
                if room > 0:
                    self.file.write(chunk[:room])
                    self.file.flush()
                    chunk = chunk[room:]
                if chunk:
                    self.dropped += len(chunk)
                    self.ring.append(chunk)
                    self.ring_size += len(chunk)
                    while self.ring_size - len(self.ring[0]) >= LOG_TAIL:
                        self.ring_size -= len(self.ring.popleft())
        except OSError:
            pass
        finally:
            if self.dropped:
                tail = b"".join(self.ring)[-LOG_TAIL:]
                self.file.write(f"\n[factforge: {self.dropped - len(tail)} bytes of output dropped (log limit "
                                f"{LOG_MAX} bytes); its last {len(tail)} bytes follow]\n".encode() + tail)
            self.file.close()
            os.close(self.fd)

    def close(self, timeout: float = 5.0) -> None:
        self.thread.join(timeout)


def readable(fd: int, timeout: float) -> bool:
    """Whether `fd` becomes readable (a pipe with data or closed, a pidfd whose process
    ended) within `timeout` seconds (poll: any descriptor number)."""
    p = select.poll()
    p.register(fd, select.POLLIN)
    return bool(p.poll(max(0, int(min(timeout, 86_400.0) * 1000) + 1)))


def tail_of(path: Path, n: int = 600) -> str:
    """The last `n` bytes of a log, read from its end."""
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - n))
            return f.read(n).decode("utf-8", "replace").strip()
    except OSError:
        return ""


# --------------------------------------------------------------------------- the sandbox

class Sandbox:
    """One agent process tree (bubblewrap when present) speaking the runner's signed
    JSON-lines protocol."""

    def __init__(self, *, kit: Path, workspace: Path, sockets: Path, log: Path, reference: bool = False,
                 memory_gb: float = 4.0, cpu_seconds: Optional[float] = None, isolation: str = "sandbox"):
        self.kit, self.workspace, self.sockets, self.log_path = Path(kit), Path(workspace), Path(sockets), Path(log)
        self.reference = reference
        self.opt = self._stage(self.log_path.parent / "opt")
        self.memory = int(memory_gb * (1 << 30))
        if cpu_seconds is not None and cpu_seconds <= 0:
            raise ValueError("cpu_seconds must be positive")
        self.cpu_seconds = cpu_seconds
        self._cpu_base = 0.0
        self._cpu_final = 0.0
        self.isolation = isolation if isolation == "process" or bwrap_path() else "process"
        self.cgroup = cgroup_prefix() if self.isolation == "sandbox" else None
        self.limits = "cgroup" if self.cgroup else "measured"
        self.proc: Optional[subprocess.Popen] = None
        self.peak_memory = 0
        self.peak_processes = 0
        self._reset_state()

    def _reset_state(self) -> None:
        self._buf = bytearray()
        self._scan = 0
        self._seq = 0
        self._key = b""
        self._log: Optional[CappedLog] = None
        self._violation: Optional[AgentError] = None
        self._watch: Optional[threading.Thread] = None
        self._halt = threading.Event()
        self._dying: list[int] = []                 # pidfds of the sandbox's processes, waited for by stop()

    def _stage(self, opt: Path) -> Path:
        """What `/opt/factforge` holds: the runner, and for a reference agent its modules and
        the reference client (copies, so nothing else of factforge is reachable)."""
        opt.mkdir(exist_ok=True)
        shutil.copyfile(RUNNER, opt / "runner.py")
        if self.reference:
            shutil.copytree(AGENTS_DIR, opt / "ffagents", ignore=shutil.ignore_patterns("__pycache__"),
                            dirs_exist_ok=True)
            api = opt / "ffapi"
            api.mkdir(exist_ok=True)
            (api / "__init__.py").write_text('"""The reference client, shipped to reference agents."""\n')
            for name in REFCLIENT_FILES:
                shutil.copyfile(Path(api_pkg.__file__).parent / name, api / name)
        return opt

    # ---- the command --------------------------------------------------------------------
    def _env(self, kit: str, workspace: str, sockets: str, opt: str) -> dict[str, str]:
        return {"FACTFORGE_API_URL": unix_url(f"{sockets}/api.sock"),
                "FACTFORGE_GATEWAY_URL": unix_url(f"{sockets}/gateway.sock"),
                "FACTFORGE_KIT": kit, "PYTHONPATH": f"{workspace}:{kit}/sdk:{opt}",
                "HOME": "/tmp", "PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1", "LANG": "C.UTF-8"}

    def argv(self) -> list[str]:
        runner = [PYTHON, "-I", "-S", "-B"]
        if self.isolation == "process":
            env = self._env(str(self.kit), str(self.workspace), str(self.sockets), str(self.opt))
            return [shutil.which("env") or "/usr/bin/env", "-i", *[f"{k}={v}" for k, v in env.items()], *runner,
                    str(self.opt / "runner.py")]
        size = str(self.memory)
        a = [bwrap_path() or "bwrap", "--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
             "--hostname", "sandbox", "--ro-bind", "/usr", "/usr"]
        for name in ("bin", "lib", "lib64", "sbin"):
            if os.path.islink(f"/{name}"):
                a += ["--symlink", os.readlink(f"/{name}"), f"/{name}"]
            elif os.path.isdir(f"/{name}"):
                a += ["--ro-bind", f"/{name}", f"/{name}"]
        a += ["--proc", "/proc", "--dev", "/dev", "--size", size, "--tmpfs", "/dev/shm", "--remount-ro", "/dev",
              "--size", size, "--tmpfs", "/tmp", "--dir", "/run",
              "--ro-bind", str(self.kit), "/kit", "--ro-bind", str(self.workspace), "/workspace",
              "--ro-bind", str(self.sockets), SOCKETS, "--ro-bind", str(self.opt), "/opt/factforge", "--clearenv"]
        for k, v in self._env("/kit", "/workspace", SOCKETS, "/opt/factforge").items():
            a += ["--setenv", k, v]
        a += ["--chdir", "/workspace", *runner, "/opt/factforge/runner.py"]
        if self.cgroup:
            a = [*self.cgroup, "-p", f"MemoryMax={self.memory}", "-p", "MemorySwapMax=0",
                 "-p", f"TasksMax={MAX_PROCESSES}", "--", shutil.which("env") or "/usr/bin/env", "-i", *a]
        return a

    # ---- lifecycle ----------------------------------------------------------------------
    def _limits(self) -> None:
        resource.setrlimit(resource.RLIMIT_AS, (self.memory, self.memory))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if self.cpu_seconds is not None:
            soft = int(self.cpu_seconds) + 1
            resource.setrlimit(resource.RLIMIT_CPU, (soft, soft + 2))

    def _running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def start(self) -> None:
        if self._running():
            return
        self.stop()
        self._reset_state()
        self._key = secrets.token_bytes(32)
        out_r, out_w = os.pipe()
        try:
            self.proc = subprocess.Popen(self.argv(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=out_w,
                                         cwd=str(self.workspace), env=cgroup_env() if self.cgroup else {},
                                         preexec_fn=self._limits,
                                         start_new_session=True)
        except OSError as e:
            os.close(out_r)
            raise InfraError(f"cannot start the agent sandbox: {e}") from None
        finally:
            os.close(out_w)
        self._log = CappedLog(self.log_path, out_r)
        self._cpu_base = self._cpu_final = 0.0
        hello = {"key": self._key.hex(), "nproc": MAX_PROCESSES if self.isolation == "sandbox" else None}
        try:
            self._write(hello)
            msg = self._read(time.monotonic() + READY_TIMEOUT_S, ready=True)
        except AgentError as e:                           # nothing of the agent has run yet
            raise InfraError(f"the sandbox did not start: {e}") from None
        if msg.get("ready") is not True:
            self.stop()
            raise InfraError("the sandbox did not start: the runner sent no ready message")
        if self.isolation == "sandbox":               # the PID namespace's init: gone only when all of it is
            stats = proc_stats()
            for pid in (p for p, (ppid, _, _) in stats.items() if ppid == self.proc.pid):
                try:
                    self._dying.append(os.pidfd_open(pid))
                except OSError:
                    pass
        self._halt = threading.Event()
        self._watch = threading.Thread(target=self._watchdog, args=(self.proc, self._halt), name="sandbox-watch",
                                       daemon=True)
        self._watch.start()

    def _write(self, obj: dict) -> None:
        assert self.proc is not None and self.proc.stdin is not None
        try:
            self.proc.stdin.write((json.dumps(obj) + "\n").encode("utf-8"))
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise self._died() from None

    # ---- the watchdog ---------------------------------------------------------------------
    def _watchdog(self, proc: subprocess.Popen, halt: threading.Event) -> None:
        poll = CPU_POLL_S
        while not halt.wait(poll):
            if proc.poll() is not None:
                return
            u = TreeUsage(proc.pid, self.isolation == "sandbox")
            self.peak_memory = max(self.peak_memory, u.memory)
            self.peak_processes = max(self.peak_processes, u.processes)
            why = self._over(u)
            if why is not None:
                self._cpu_final = max(0.0, u.cpu - self._cpu_base)
                self._violation = AgentError(why)
                self._dying += kill_tree(proc, u.pids)
                return

    def _over(self, u: TreeUsage) -> Optional[str]:
        if u.processes > MAX_PROCESSES:
            return (f"the agent ran {u.processes} processes at once, over the limit of {MAX_PROCESSES} "
                    "(process limit)")
        if u.memory > self.memory:
            return (f"the agent's processes held {u.memory / (1 << 20):.0f} MiB (resident {u.rss / (1 << 20):.0f} MiB, "
                    f"/tmp and /dev/shm {u.tmp / (1 << 20):.0f} MiB), over the limit of "
                    f"{self.memory / (1 << 20):.0f} MiB (memory limit)")
        if self.cpu_seconds is not None and u.cpu - self._cpu_base > self.cpu_seconds:
            return (f"the agent used {u.cpu - self._cpu_base:.1f} s of CPU time in this conversation, over its "
                    f"limit of {self.cpu_seconds:g} s (CPU limit)")
        return None

    # ---- CPU ------------------------------------------------------------------------------
    def begin_conversation(self) -> None:
        """Measure CPU time from here. A sandbox that is not running starts at zero; the shared
        (reference) sandbox is measured, and replaced when its lifetime CPU time has used half
        of the per-process kernel limit."""
        self._cpu_final = 0.0
        if not self._running():
            self._cpu_base = 0.0
            return
        used = tree_cpu_seconds(self.proc.pid) if self.cpu_seconds is not None else 0.0
        if self.cpu_seconds is not None and used > self.cpu_seconds / 2:
            self.stop()
            used = 0.0
        self._cpu_base = used

    def conversation_cpu(self) -> float:
        """CPU seconds the agent's processes used in this conversation (measured when asked,
        or when the sandbox was stopped)."""
        if not self._running():
            return self._cpu_final
        return max(0.0, tree_cpu_seconds(self.proc.pid) - self._cpu_base)

    # ---- the protocol -----------------------------------------------------------------------
    def request(self, req: dict[str, Any], timeout: float) -> dict[str, Any]:
        if self.proc is not None and not self._running() and req.get("op") != "start":
            # the sandbox ended after its last answer (the runner refuses a line the agent
            # wrote into its channel, says so and exits): that is this request's answer. A
            # conversation never goes on in a fresh sandbox that has not started it.
            msg = self._read(time.monotonic() + timeout, timeout=timeout)
            self.stop()
            if msg.get("ok"):
                raise AgentError("the agent's sandbox ended between two messages")
            return msg
        self.start()
        rid = secrets.token_hex(8)
        self._write(dict(req, id=rid))
        msg = self._read(time.monotonic() + timeout, timeout=timeout)
        if "exit" in msg:
            raise self._died(msg["exit"])
        if msg.get("id") != rid:
            self.stop()
            raise AgentError("the agent wrote to the runner's protocol channel (an answer to another request)")
        if msg.get("ok") and req.get("op") == "step":
            reply = msg.get("reply")
            if not isinstance(reply, str) or len(reply.encode("utf-8", "surrogatepass")) > REPLY_MAX:
                self.stop()
                raise AgentError(f"the agent's reply is over the limit of {REPLY_MAX} bytes")
        return msg

    def _read(self, deadline: float, timeout: float = 0.0, ready: bool = False) -> dict[str, Any]:
        """The next signed message; a line the runner did not sign is the agent's failure."""
        assert self.proc is not None and self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        while True:
            i = self._buf.find(b"\n", self._scan)
            if i >= 0:
                break
            self._scan = len(self._buf)
            if self._scan > LINE_MAX:
                self.stop()
                raise AgentError(f"the agent wrote a line over {LINE_MAX} bytes to the runner's protocol channel")
            left = deadline - time.monotonic()
            if left <= 0:
                if ready:
                    self.stop()
                    raise InfraError(f"the sandbox did not start within {READY_TIMEOUT_S:g} s")
                violation = self._violation
                self.stop()
                raise violation or AgentError(f"the agent did not answer within {timeout:g} s (timeout)")
            if readable(fd, left):
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    raise self._died(ready=ready)
                self._buf += chunk
        line = bytes(self._buf[:i])
        del self._buf[:i + 1]
        self._scan = 0
        mac, _, payload = line.partition(b" ")
        good = hmac.new(self._key, payload, hashlib.sha256).hexdigest().encode("ascii")
        msg = None
        if hmac.compare_digest(good, mac):
            try:
                msg = json.loads(payload)
            except ValueError:
                msg = None
        if not isinstance(msg, dict) or msg.get("seq") != self._seq:
            self.stop()
            raise AgentError("the agent wrote to the runner's protocol channel (a message the runner did not sign)")
        self._seq += 1
        return msg

    def _died(self, status: Optional[int] = None, ready: bool = False) -> Exception:
        """Why the sandbox ended: decided from what the evaluator saw (a limit its watchdog
        enforced, the runner's exit, bwrap's exit status before the runner was ready)."""
        assert self.proc is not None
        try:
            rc = self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            rc = None
        violation = self._violation
        self.stop()
        tail = self.tail()
        if violation is not None:
            return violation
        if ready or self._seq == 0:
            return InfraError(f"the sandbox did not start (exit status {rc}){tail}")
        if status is None and rc == RUNNER_FAILED:
            return InfraError(f"the agent runner failed (exit status {rc}){tail}")
        code = status if status is not None else rc
        if code is not None and self.cpu_seconds is not None and code in (-signal.SIGXCPU, 128 + signal.SIGXCPU):
            return AgentError(f"the agent process passed its CPU time limit of {self.cpu_seconds:g} s "
                              f"(SIGXCPU, CPU limit){tail}")
        if code is not None and code < 0:
            return AgentError(f"the agent process was killed by signal {signal.Signals(-code).name}{tail}")
        if status is None and code is not None and code > 128:
            return AgentError(f"the agent runner was killed (exit status {code}){tail}")
        return AgentError(f"the agent process exited (status {code}){tail}")

    def tail(self, n: int = 600) -> str:
        data = tail_of(self.log_path, n)
        return f"; its last output: {data}" if data else ""

    def stop(self) -> None:
        """Kill every process of the sandbox and wait until they are gone (the PID namespace
        with them: its init outlives all its other processes)."""
        proc, self.proc = self.proc, None
        self._halt.set()
        if proc is not None:
            if proc.poll() is None and self._violation is None:
                self._cpu_final = max(0.0, tree_cpu_seconds(proc.pid) - self._cpu_base)
            fds = kill_tree(proc, tree_pids(proc.pid))
            proc.wait()
            if self._watch is not None and self._watch is not threading.current_thread():
                self._watch.join(5)
            deadline = time.monotonic() + 10
            fds, self._dying = self._dying + fds, []
            for fd in fds:
                try:
                    readable(fd, max(0.0, deadline - time.monotonic()))
                finally:
                    os.close(fd)
            for f in (proc.stdin, proc.stdout):
                if f is not None:
                    try:
                        f.close()
                    except OSError:
                        pass
        if self._watch is not None and self._watch is not threading.current_thread():
            self._watch.join(5)
        if self._log is not None:
            self._log.close()


class SandboxHost:
    """An agent module in a sandbox, one conversation at a time (the engine's agent host).

    `fresh`: every conversation starts in a new sandbox (a new process, an empty `/tmp`), so
    no module state or file carries over from one conversation or trial to the next and
    trials are independent (what pass^k assumes); `finish` ends it before the next
    conversation's backend is reset. The engine sets it for built agents; the reference
    agents are stateless by construction and share one sandbox per run."""

    def __init__(self, sandbox: Sandbox, module: str, step_timeout_s: float, fresh: bool = True):
        self.sandbox, self.module, self.timeout, self.fresh = sandbox, module, step_timeout_s, fresh

    def _ask(self, req: dict[str, Any]) -> dict[str, Any]:
        out = self.sandbox.request(req, self.timeout)
        if not out.get("ok"):
            raise AgentError(str(out.get("error", "the agent failed")))
        return out

    def start(self, reference: Optional[dict]) -> None:
        if self.fresh:
            self.sandbox.stop()
        self.sandbox.begin_conversation()
        self._ask({"op": "start", "module": self.module, "reference": reference})

    def cpu_seconds(self) -> float:
        """CPU time the agent's processes used in this conversation so far."""
        return round(self.sandbox.conversation_cpu(), 3)

    def step(self, message: str) -> str:
        return str(self._ask({"op": "step", "message": message})["reply"])

    def finish(self) -> None:
        """The conversation is over: a fresh host's sandbox is stopped, every process of it
        gone, so nothing of the agent can act in the next conversation."""
        if self.fresh:
            self.sandbox.stop()

    def close(self) -> None:
        self.sandbox.stop()
