"""Run a domain pack's own Python (its `DOMAIN` code) with a time limit and one-line errors.

A pack's `domain.py` (and the modules beside it) is user code: it may loop forever, raise,
fail to compile or print. Every call factforge makes into it for data, `generate` and
`check`, goes through `run(folder, name, *args, **kwargs)`, which

- calls `DOMAIN.<name>(*args, **kwargs)` of the pack in `folder` (`domains.contract`) in a
  **worker subprocess** of that pack (a fresh `sys.executable` with this process's import
  path, in its own process group, started on first use and kept warm for the next calls),
  passing arguments and result by pickle over its stdin/stdout; a non-callable attribute
  is returned as is, `name=None` only loads the pack's code;
- stops the call after the **time limit**: the worker's whole process group is killed
  (the next call starts a new worker) and `FactforgeError(".../domain.py: generate() did not
  finish within 120 s (time limit; ...)")` is raised;
- turns any exception into one line naming the pack file and line:
  `.../seed.py:14: ZeroDivisionError: division by zero (in generate())` (the innermost
  frame inside the pack's folder; for a SyntaxError, the line the compiler names); a
  FactforgeError raised by the code keeps its own message;
- discards whatever the code prints (stdout carries results; the worker's stderr goes to
  /dev/null), so a chatty seed cannot break the CLI's one-line output.

`contract.load_code` loads a pack through `run(folder, None)` before importing it in this
process (for `values`, `api`, `scenarios`), so a module that hangs or fails on import is
stopped and reported the same way.

Time limit: `timeout=` if given, else the innermost `time_limit(seconds)` block of the
calling thread or task (`factforge build --seed-timeout` sets one around the seed step),
else `$FACTFORGE_SEED_TIMEOUT`, else `DEFAULT_TIMEOUT` (120 s; the built-in domains need
under half a second).

Why a subprocess, not `signal.alarm` or a thread: SIGALRM works only in the main thread,
and Dagster's executors, a Dask worker or a test runner may call from any thread; it also
cannot interrupt C code. A thread cannot be stopped at all. `fork()` of a process that has
threads (Dagster's, Dask's) can deadlock the child on a lock another thread held, and
`multiprocessing` refuses to start children from a daemonic Dask worker. A fresh interpreter
has none of these problems and can always be killed. It costs one interpreter start (about
0.4 s) per pack and process; the worker is reused, so a test suite that checks a database
for each of its 80 tests pays pickling (milliseconds), not 80 starts. Workers end when
their parent closes their stdin (at exit, or when the parent dies) and are restarted when
the pack's Python files change.

Determinism: workers run with `PYTHONHASHSEED=0`, so a seed that iterates a set of strings
gets the same order on every run and machine (in-process it would depend on the parent's
random hash seed); pickle keeps dict order and exact floats, so the result is the object
the function returned.

The worker's side of the pipe is `domains.sandbox_worker`.
"""
from __future__ import annotations

import atexit
import contextlib
import contextvars
import hashlib
import os
import pickle
import select
import signal
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Iterator, Optional

from facts.errors import FactforgeError

ENV_TIMEOUT = "FACTFORGE_SEED_TIMEOUT"
DEFAULT_TIMEOUT = 120.0
_CHILD_ENV = "FACTFORGE_SANDBOX_WORKER"
ENTRY = "domain.py"  # the pack module defining DOMAIN

_limit: contextvars.ContextVar[Optional[float]] = contextvars.ContextVar("factforge_seed_timeout", default=None)


def inside() -> bool:
    """True in a sandbox worker (where pack code runs directly)."""
    return os.environ.get(_CHILD_ENV) == "1"


def _positive(value: Any, what: str) -> float:
    try:
        t = float(value)
    except (TypeError, ValueError):
        raise FactforgeError(f"{what} must be a number of seconds, not {value!r}") from None
    if not t > 0 or t == float("inf"):
        raise FactforgeError(f"{what} must be a positive number of seconds, not {value!r}")
    return t


def default_timeout() -> float:
    """The time limit in force: the innermost `time_limit` block, else $FACTFORGE_SEED_TIMEOUT,
    else DEFAULT_TIMEOUT."""
    t = _limit.get()
    if t is not None:
        return t
    env = os.environ.get(ENV_TIMEOUT, "").strip()
    return _positive(env, f"${ENV_TIMEOUT}") if env else DEFAULT_TIMEOUT


@contextlib.contextmanager
def time_limit(seconds: Optional[float]) -> Iterator[None]:
    """Calls to `run` inside this block (same thread or task) get `seconds` as their limit
    (None: leave the limit as it is)."""
    if seconds is None:
        yield
        return
    token = _limit.set(_positive(seconds, "the seed time limit"))
    try:
        yield
    finally:
        _limit.reset(token)


def label(name: Optional[str]) -> str:
    """How a call into the pack's code is named in an error: `generate()`, or the loading of
    its entry module."""
    return f"loading {ENTRY}" if name is None else f"{name}()"


def code_files(folder: Path) -> list[Path]:
    """The pack's Python files (what a worker has imported)."""
    return sorted(p for p in folder.rglob("*.py") if "__pycache__" not in p.parts)


def _code_hash(folder: Path) -> str:
    h = hashlib.sha256()
    for p in code_files(folder):
        try:
            h.update(str(p.relative_to(folder)).encode() + b"\0" + p.read_bytes() + b"\0")
        except OSError:
            h.update(b"?")
    return h.hexdigest()


def run(folder: str | Path, name: Optional[str], *args: Any, timeout: Optional[float] = None, **kwargs: Any) -> Any:
    """`DOMAIN.<name>(*args, **kwargs)` of the pack in `folder`, run in its worker with a time
    limit (see the module doc). Raises FactforgeError, one line, on any failure."""
    folder = Path(folder).resolve()
    limit = _positive(timeout, "timeout") if timeout is not None else default_timeout()
    where = folder / ENTRY
    try:
        request = pickle.dumps((name, args, kwargs), protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as e:  # noqa: BLE001  (an argument that cannot cross a process boundary)
        raise FactforgeError(f"{label(name)}: an argument cannot be passed to the pack's code: {e}", where) from None
    worker = _worker(folder)
    with worker.lock:
        status, payload = worker.call(request, name, limit)
    if status == "ok":
        return pickle.loads(payload)
    problem, file, line = payload
    raise FactforgeError(problem, file or where, line)


class _Worker:
    def __init__(self, folder: Path, code_hash: str):
        self.folder, self.code_hash, self.pid = folder, code_hash, os.getpid()
        self.lock = threading.Lock()
        self.proc: Optional[subprocess.Popen] = None

    def _start(self) -> subprocess.Popen:
        env = dict(os.environ)
        env.update({"PYTHONHASHSEED": "0", _CHILD_ENV: "1"})
        here = str(Path(__file__).resolve().parents[1])  # the folder holding `domains` and `facts`
        env["PYTHONPATH"] = os.pathsep.join([here, *[p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]])
        return subprocess.Popen([sys.executable, "-c", "from domains.sandbox_worker import serve; serve()",
                                 str(self.folder)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, env=env, start_new_session=True)

    def call(self, request: bytes, name: Optional[str], limit: float) -> tuple[str, Any]:
        if self.proc is None or self.proc.poll() is not None:
            self.proc = self._start()
        proc = self.proc
        deadline = time.monotonic() + limit
        try:
            assert proc.stdin is not None and proc.stdout is not None
            proc.stdin.write(struct.pack(">Q", len(request)) + request)
            proc.stdin.flush()
            size = struct.unpack(">Q", _read(proc.stdout.fileno(), 8, deadline))[0]
            return pickle.loads(_read(proc.stdout.fileno(), size, deadline))
        except TimeoutError:
            self.close(kill=True)
            return "error", (f"{label(name)} did not finish within {limit:g} s (time limit; raise it with "
                             f"--seed-timeout or ${ENV_TIMEOUT})", None, None)
        except (OSError, EOFError, struct.error, pickle.UnpicklingError):
            code = self.close(kill=True)
            how = f"killed by signal {-code}" if code is not None and code < 0 else f"exit status {code}"
            return "error", (f"{label(name)} ended the pack's process without a result ({how})", None, None)

    def close(self, kill: bool = False) -> Optional[int]:
        proc, self.proc = self.proc, None
        if proc is None:
            return None
        with contextlib.suppress(OSError):
            proc.stdin.close()  # type: ignore[union-attr]
        if kill or proc.poll() is None:
            try:
                proc.wait(timeout=0 if kill else 2)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        with contextlib.suppress(OSError):
            proc.stdout.close()  # type: ignore[union-attr]
        return proc.returncode


def _read(fd: int, n: int, deadline: float) -> bytes:
    buf = bytearray()
    while len(buf) < n:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            raise TimeoutError
        chunk = os.read(fd, min(n - len(buf), 1 << 20))
        if not chunk:
            raise EOFError
        buf += chunk
    return bytes(buf)


_WORKERS: dict[Path, _Worker] = {}  # least recently used first
_WORKERS_LOCK = threading.Lock()
MAX_WORKERS = 4  # live workers per process (a test session loads many packs)


def _worker(folder: Path) -> _Worker:
    code_hash = _code_hash(folder)
    idle: list[_Worker] = []
    with _WORKERS_LOCK:
        w = _WORKERS.pop(folder, None)
        if w is not None and (w.code_hash != code_hash or w.pid != os.getpid()):
            if w.pid == os.getpid():
                idle.append(w)
            w = None  # a forked child never touches its parent's worker
        if w is None:
            w = _Worker(folder, code_hash)
        _WORKERS[folder] = w
        while len(_WORKERS) > MAX_WORKERS:
            old = _WORKERS.pop(next(iter(_WORKERS)))
            if old.pid == os.getpid():
                idle.append(old)
    for old in idle:
        with old.lock:
            old.close()
    return w


@atexit.register
def close_all() -> None:
    """End every worker of this process."""
    with _WORKERS_LOCK:
        workers = [w for w in _WORKERS.values() if w.pid == os.getpid()]
        _WORKERS.clear()
    for w in workers:
        w.close()
