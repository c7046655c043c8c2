"""The agent's process: bubblewrap (`bwrap`) around the agent runner (`runner.py`).

What the agent sees (everything else does not exist in its mount namespace):

| path | what | access |
|---|---|---|
| `/kit` | the task's kit, materialized from the pack (never the sealed part) | read-only |
| `/workspace` | the agent's directory (its module and whatever it ships) | read-only; the working directory |
| `/run/factforge/` | two Unix sockets: `api.sock` (the client API) and `gateway.sock` (the model gateway) | connect |
| `/opt/factforge/` | the runner; for the reference agents only, their modules (`ffagents`) and the reference client (`ffapi`: `outputs/api/refclient.py`, `contract.py`) | read-only |
| `/usr` (+ `/bin`, `/lib`, `/lib64` links) | the system's Python and libraries | read-only |
| `/tmp` | an empty tmpfs | read-write |
| `/proc`, `/dev` | the sandbox's own (a new PID namespace: only its processes) | |

Namespaces: all unshared (`--unshare-all`): no network at all except the two sockets (the
API and the gateway are reached only through them, as `http+unix://` URLs), its own PIDs,
IPC, hostname and user. The environment is cleared and set to `FACTFORGE_API_URL`,
`FACTFORGE_GATEWAY_URL`, `FACTFORGE_KIT=/kit`, `PYTHONPATH=/workspace:/kit/sdk`, `HOME=/tmp`,
`PATH`. Capabilities dropped; the sandbox dies with the evaluator (`--die-with-parent`);
memory capped by `RLIMIT_AS` (the task's sandbox memory). The Python is the system's
`/usr/bin/python3` started with `-S` (standard library and the kit SDK; no site packages).

CPU, without cgroups: a conversation may use at most `cpu_seconds` of CPU time, all the
agent's processes and threads together. Two mechanisms:

- the evaluator measures the sandbox's process tree (`tree_cpu_seconds`: user + system time
  of every live process under the sandbox, plus what each has collected from its exited
  children; the sandbox is a PID namespace, so every orphan is re-parented to its init,
  which stays in the tree) while it waits for each reply, every `CPU_POLL_S`, and stops the
  sandbox past the budget: a busy loop, a thread pool or forked workers all count;
- `RLIMIT_CPU` on every process (the kernel's own limit, inherited by each child: SIGXCPU a
  second past the budget, SIGKILL two seconds later), should the evaluator's poll be late.

Either way the conversation fails as the agent's (`AgentError`, reward 0), never as ours.
A built agent gets a fresh sandbox per conversation, so the limits are per conversation;
the reference agents' shared sandbox measures each conversation from its own start and is
replaced when its processes' lifetime CPU time passes half the budget (their kernel limit
is cumulative).

Without `bwrap` on the machine the runner runs as a plain child process with the same
environment (`isolation: process` in results.json): no isolation, said so, never silent.
"""
from __future__ import annotations

import json
import os
import resource
import select
import shutil
import signal
import subprocess
import time
import urllib.parse
from pathlib import Path
from typing import Any, Optional

from facts.errors import FactforgeError

HERE = Path(__file__).resolve().parent
RUNNER = HERE / "runner.py"
AGENTS_DIR = HERE / "agents"
REFCLIENT_FILES = ("refclient.py", "contract.py")
SOCKETS = "/run/factforge"
PYTHON = "/usr/bin/python3"
CPU_POLL_S = 0.2
CLK_TCK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


class AgentError(Exception):
    """The agent failed (its fault: reward 0)."""


class InfraError(Exception):
    """The evaluation machinery failed (reward 0, reported apart)."""


def unix_url(path: str) -> str:
    return "http+unix://" + urllib.parse.quote(path, safe="")


def resolve_agent(agent: str) -> tuple[Path, str]:
    """(workspace directory, module name) of an agent path: a `.py` file (its directory and
    stem) or a directory holding `agent.py`."""
    p = Path(agent).expanduser()
    if p.is_file() and p.suffix == ".py":
        return p.resolve().parent, p.stem
    if p.is_dir():
        if not (p / "agent.py").is_file():
            raise FactforgeError("an agent directory must hold agent.py (the module with create_agent())", p)
        return p.resolve(), "agent"
    raise FactforgeError("no such agent: give a .py file, a directory holding agent.py, or oracle, naive, null", p)


def bwrap_path() -> Optional[str]:
    return shutil.which("bwrap")


def _proc_stats() -> dict[int, tuple[int, int]]:
    """pid -> (parent pid, CPU clock ticks: utime + stime + cutime + cstime) of every process."""
    out: dict[int, tuple[int, int]] = {}
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
            f = raw[raw.rfind(b")") + 2:].split(b" ", 16)  # after "pid (comm) ": state ppid ...
            try:
                out[int(e.name)] = (int(f[1]), int(f[11]) + int(f[12]) + int(f[13]) + int(f[14]))
            except (IndexError, ValueError):
                continue
    return out


def tree_cpu_seconds(root: int) -> float:
    """CPU time used by process `root` and all its descendants, living or reaped (a child's
    time moves into its parent's `cutime`/`cstime` when the parent waits for it)."""
    stats = _proc_stats()
    children: dict[int, list[int]] = {}
    for pid, (ppid, _) in stats.items():
        children.setdefault(ppid, []).append(pid)
    ticks, todo, seen = 0, [root], set()
    while todo:
        pid = todo.pop()
        if pid in seen or pid not in stats:
            continue
        seen.add(pid)
        ticks += stats[pid][1]
        todo += children.get(pid, [])
    return ticks / CLK_TCK


class Sandbox:
    """One agent process (bubblewrap when present) speaking the runner's JSON-lines protocol."""

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
        self.proc: Optional[subprocess.Popen] = None
        self._buf = b""

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
            from outputs import api as api_pkg  # noqa: PLC0415
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
        if self.isolation == "process":
            env = self._env(str(self.kit), str(self.workspace), str(self.sockets), str(self.opt))
            return ["env", "-i", *[f"{k}={v}" for k, v in env.items()], PYTHON, "-S", "-B", str(self.opt / "runner.py")]
        a = [bwrap_path() or "bwrap", "--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
             "--hostname", "sandbox", "--ro-bind", "/usr", "/usr"]
        for name in ("bin", "lib", "lib64", "sbin"):
            if os.path.islink(f"/{name}"):
                a += ["--symlink", os.readlink(f"/{name}"), f"/{name}"]
            elif os.path.isdir(f"/{name}"):
                a += ["--ro-bind", f"/{name}", f"/{name}"]
        a += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--dir", "/run",
              "--ro-bind", str(self.kit), "/kit", "--ro-bind", str(self.workspace), "/workspace",
              "--ro-bind", str(self.sockets), SOCKETS, "--ro-bind", str(self.opt), "/opt/factforge", "--clearenv"]
        for k, v in self._env("/kit", "/workspace", SOCKETS, "/opt/factforge").items():
            a += ["--setenv", k, v]
        a += ["--chdir", "/workspace", PYTHON, "-S", "-B", "/opt/factforge/runner.py"]
        return a

    # ---- lifecycle ----------------------------------------------------------------------
    def _limits(self) -> None:
        resource.setrlimit(resource.RLIMIT_AS, (self.memory, self.memory))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if self.cpu_seconds is not None:
            soft = int(self.cpu_seconds) + 1
            resource.setrlimit(resource.RLIMIT_CPU, (soft, soft + 2))

    # ---- CPU ------------------------------------------------------------------------------
    def _running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

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

    def _over_cpu(self) -> Optional[AgentError]:
        if self.cpu_seconds is None:
            return None
        used = self.conversation_cpu()
        if used <= self.cpu_seconds:
            return None
        self.stop()
        return AgentError(f"the agent used {used:.1f} s of CPU time in this conversation, over its limit of "
                          f"{self.cpu_seconds:g} s (CPU limit)")

    def start(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            return
        self.log = open(self.log_path, "ab")
        try:
            self.proc = subprocess.Popen(self.argv(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log,
                                         cwd=str(self.workspace), preexec_fn=self._limits, start_new_session=True)
        except OSError as e:
            raise InfraError(f"cannot start the agent sandbox: {e}") from None
        self._buf = b""
        self._cpu_base = self._cpu_final = 0.0

    def request(self, req: dict[str, Any], timeout: float) -> dict[str, Any]:
        self.start()
        assert self.proc is not None and self.proc.stdin is not None and self.proc.stdout is not None
        try:
            self.proc.stdin.write((json.dumps(req) + "\n").encode("utf-8"))
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise self._died() from None
        deadline = time.monotonic() + timeout
        fd = self.proc.stdout.fileno()
        poll = CPU_POLL_S if self.cpu_seconds is not None else None
        next_check = time.monotonic() + CPU_POLL_S
        while b"\n" not in self._buf:
            now = time.monotonic()
            left = deadline - now
            if left <= 0:
                self.stop()
                raise AgentError(f"the agent did not answer within {timeout:g} s (timeout)")
            ready, _, _ = select.select([fd], [], [], min(left, max(0.0, next_check - now)) if poll else left)
            if poll and time.monotonic() >= next_check:     # a reply slower than the poll: measure
                over = self._over_cpu()
                if over is not None:
                    raise over
                next_check = time.monotonic() + poll
            if ready:
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    raise self._died()
                self._buf += chunk
        line, self._buf = self._buf.split(b"\n", 1)
        try:
            return json.loads(line)
        except json.JSONDecodeError:
            self.stop()
            raise AgentError("the agent wrote to the runner's protocol channel") from None

    def _died(self) -> Exception:
        assert self.proc is not None
        try:
            rc = self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            rc = None
        tail = self.tail()
        self.stop()
        if self.cpu_seconds is not None and rc in (-signal.SIGXCPU, 128 + signal.SIGXCPU):  # bwrap: 128 + signal
            return AgentError(f"the agent process passed its CPU time limit of {self.cpu_seconds:g} s "
                              f"(SIGXCPU, CPU limit){tail}")
        if rc is not None and rc < 0:
            return AgentError(f"the agent process was killed by signal {signal.Signals(-rc).name}{tail}")
        if "bwrap:" in tail:
            return InfraError(f"the sandbox failed{tail}")
        return AgentError(f"the agent process exited (status {rc}){tail}")

    def tail(self, n: int = 600) -> str:
        try:
            data = self.log_path.read_bytes()[-n:].decode("utf-8", "replace").strip()
        except OSError:
            return ""
        return f"; its last output: {data}" if data else ""

    def stop(self) -> None:
        if self.proc is not None:
            if self.proc.poll() is None:
                self._cpu_final = max(0.0, tree_cpu_seconds(self.proc.pid) - self._cpu_base)
                try:
                    os.killpg(self.proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            self.proc.wait()
            for f in (self.proc.stdin, self.proc.stdout):
                if f is not None:
                    f.close()
            self.proc = None
        if getattr(self, "log", None) is not None:
            self.log.close()
            self.log = None


class SandboxHost:
    """An agent module in a sandbox, one conversation at a time (the engine's agent host).

    `fresh`: every conversation starts in a new sandbox (a new process, an empty `/tmp`), so
    no module state or file carries over from one conversation or trial to the next and
    trials are independent (what pass^k assumes). The engine sets it for built agents; the
    reference agents are stateless by construction and share one sandbox per run."""

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

    def close(self) -> None:
        self.sandbox.stop()
