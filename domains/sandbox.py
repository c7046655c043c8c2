"""Run a domain pack's own Python (its `seed.py`) with a time limit and one-line errors.

A pack is user code: its `seed.py` may loop forever, raise, fail to compile or print. Every
call into it goes through `run(path, name, *args, **kwargs)`, which

- runs the function (or reads the module attribute) `name` of the module at `path` in a
  **fresh Python subprocess** (`sys.executable`, same import path as this process, own
  process group), passing the arguments and the result by pickle over its stdin/stdout;
- ends it after the **time limit** (SIGKILL to its whole process group) and raises
  `FactforgeError("seed.py: generate() did not finish within 120 s ...")`;
- turns any exception into one line naming the pack file and line:
  `.../seed.py:14: ZeroDivisionError: division by zero (in generate())` (the innermost frame inside the
  pack's folder; for a SyntaxError, the line the compiler names);
- sends whatever the code prints to nowhere (stdout carries the result, stderr is kept only
  to explain a crash), so a chatty seed cannot break the CLI's one-line output.

Time limit: `timeout=` if given, else the innermost `time_limit(seconds)` block of the calling
thread (`factforge build --seed-timeout` sets one around the seed step), else
`$FACTFORGE_SEED_TIMEOUT`, else `DEFAULT_TIMEOUT` (120 s; the built-in domains need under
half a second).

Why a subprocess, not `signal.alarm` or a thread: `SIGALRM` works only in the main thread,
and Dagster's in-process executor, a Dask worker or a test runner may call from any thread;
it also cannot interrupt C code. A thread cannot be stopped at all. `fork()` of a process
that has threads (Dagster's, Dask's) can deadlock the child on a lock held by another
thread, and `multiprocessing` refuses to start children from a daemonic Dask worker.
A fresh interpreter has none of these problems and can always be killed.

Determinism: the child runs with `PYTHONHASHSEED=0`, so a seed that iterates a set of
strings gets the same order on every run and machine (in-process it would depend on the
parent's random hash seed); arguments and results cross by pickle, which keeps dict order
and exact floats, so the result is the object the function returned. Results are cached
in-process by (file content, name, pickled arguments): a pack's seed must be a pure function
of its arguments, and tests that ask for the same database many times pay for one
subprocess (about 0.4 s of interpreter start and imports).
"""
from __future__ import annotations

import contextlib
import contextvars
import hashlib
import os
import pickle
import signal
import subprocess
import sys
from collections import OrderedDict
from pathlib import Path
from typing import Any, Iterator, Optional

from facts.errors import FactforgeError

ENV_TIMEOUT = "FACTFORGE_SEED_TIMEOUT"
DEFAULT_TIMEOUT = 120.0
_CACHE_SIZE = 32

_limit: contextvars.ContextVar[Optional[float]] = contextvars.ContextVar("factforge_seed_timeout", default=None)
_cache: "OrderedDict[str, bytes]" = OrderedDict()


def _positive(value: Any, what: str) -> float:
    try:
        t = float(value)
    except (TypeError, ValueError):
        raise FactforgeError(f"{what} must be a number of seconds, not {value!r}") from None
    if not t > 0 or t != t or t == float("inf"):
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


def _label(path: Path, name: Optional[str]) -> str:
    if name is None:
        return f"importing {path.name}"
    return f"{name}()"


def run(path: str | Path, name: Optional[str], *args: Any, timeout: Optional[float] = None, **kwargs: Any) -> Any:
    """Call `name(*args, **kwargs)` of the module at `path` in a subprocess and return its
    result; a non-callable attribute is returned as is; `name=None` only imports the module
    (checks that it loads). Raises FactforgeError (one line, `file:line: Type: message`) on
    any error, on a missing attribute, and when the time limit passes."""
    path = Path(path).resolve()
    limit = _positive(timeout, "timeout") if timeout is not None else default_timeout()
    try:
        source = path.read_bytes()
    except OSError as e:
        raise FactforgeError(f"cannot read: {e.strerror}", path) from None
    try:
        request = pickle.dumps((str(path), name, args, kwargs), protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as e:  # noqa: BLE001  (an argument that cannot cross a process boundary)
        raise FactforgeError(f"{_label(path, name)}: argument cannot be passed to the pack's code: {e}", path) from None
    key = hashlib.sha256(source + b"\0" + request).hexdigest()
    if key in _cache:
        _cache.move_to_end(key)
        return pickle.loads(_cache[key])
    status, payload = _spawn(request, path, name, limit)
    if status == "ok":
        _cache[key] = payload
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
        return pickle.loads(payload)
    problem, file, line = payload
    raise FactforgeError(problem, file or path, line)


def _spawn(request: bytes, path: Path, name: Optional[str], limit: float) -> tuple[str, Any]:
    env = dict(os.environ)
    env["PYTHONHASHSEED"] = "0"
    here = str(Path(__file__).resolve().parents[1])  # the folder holding `domains` and `facts`
    env["PYTHONPATH"] = os.pathsep.join([here, *[p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]])
    proc = subprocess.Popen([sys.executable, "-c", "from domains.sandbox import _child; _child()"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, start_new_session=True)
    try:
        out, err = proc.communicate(request, timeout=limit)
    except subprocess.TimeoutExpired:
        _kill(proc)
        proc.communicate()
        return "error", (f"{_label(path, name)} did not finish within {limit:g} s (time limit; raise it with "
                         f"--seed-timeout or ${ENV_TIMEOUT})", path, None)
    finally:
        if proc.poll() is None:
            _kill(proc)
            proc.wait()
    try:
        status, payload = pickle.loads(out)
    except Exception:  # noqa: BLE001  (the child died before answering)
        tail = [ln for ln in err.decode("utf-8", "replace").splitlines() if ln.strip()]
        how = f"killed by signal {-proc.returncode}" if proc.returncode and proc.returncode < 0 \
            else f"exit status {proc.returncode}"
        detail = f": {tail[-1].strip()[:200]}" if tail else ""
        return "error", (f"{_label(path, name)} ended without a result ({how}){detail}", path, None)
    return status, payload


def _kill(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()


# --------------------------------------------------------------------------- the child side

def _where(exc: BaseException, path: Path) -> tuple[Optional[str], Optional[int]]:
    """The pack file and line an exception belongs to: the compiler's line for a syntax error
    in the pack, else the innermost traceback frame inside the pack's folder."""
    import traceback  # noqa: PLC0415

    folder = path.parent
    if isinstance(exc, SyntaxError) and exc.filename:
        f = Path(exc.filename).resolve()
        if f == path or folder in f.parents:
            return str(f), exc.lineno
    best: tuple[Optional[str], Optional[int]] = (None, None)
    for fr in traceback.extract_tb(exc.__traceback__):
        f = Path(fr.filename).resolve() if fr.filename and not fr.filename.startswith("<") else None
        if f is not None and (f == path or folder in f.parents):
            best = (str(f), fr.lineno)
    return best


def _describe(exc: BaseException) -> str:
    msg = exc.msg if isinstance(exc, SyntaxError) and exc.msg else str(exc)
    first = next((ln.strip() for ln in msg.splitlines() if ln.strip()), "")
    return f"{type(exc).__name__}: {first[:300]}" if first else type(exc).__name__


def _child() -> None:
    import importlib.util  # noqa: PLC0415

    answer = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # whatever the pack prints goes to stderr, which the parent does not show
    sys.stdout = sys.stderr
    path_s, name, args, kwargs = pickle.loads(sys.stdin.buffer.read())
    path = Path(path_s)
    label = _label(path, name)
    try:
        spec = importlib.util.spec_from_file_location(f"factforge_domain_{path.parent.name}_seed", path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = mod
        spec.loader.exec_module(mod)  # type: ignore[union-attr]
        if name is None:
            result = None
        elif not hasattr(mod, name):
            raise _Missing(f"{path.name} defines no {name}")
        else:
            obj = getattr(mod, name)
            result = obj(*args, **kwargs) if callable(obj) else obj
        try:
            payload = pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as e:  # noqa: BLE001
            raise _Unpicklable(f"{label} returned a value that cannot be passed back "
                               f"({type(e).__name__}: {e})") from None
        reply = ("ok", payload)
    except _Missing as e:
        reply = ("error", (str(e), str(path), None))
    except _Unpicklable as e:
        reply = ("error", (str(e), str(path), None))
    except BaseException as e:  # noqa: BLE001  (SystemExit and KeyboardInterrupt of user code too)
        file, line = _where(e, path)
        reply = ("error", (f"{_describe(e)} (in {label})", file, line))
    answer.write(pickle.dumps(reply, protocol=pickle.HIGHEST_PROTOCOL))
    answer.flush()


class _Missing(Exception):
    pass


class _Unpicklable(Exception):
    pass

