"""Work pools: independent per-artifact units of work (render one file, extract one file)
run inline, on a local process pool, or on a Dask cluster.

Why units of one artifact, inside the family and extraction steps, rather than only running
Dagster steps side by side: per domain the graph has five family steps and one extraction
step that needs all of them. The recordings family and the extraction step take most of the
time, so running steps in parallel leaves cores idle behind the longest one (and a step
process costs seconds to start), while the artifacts of one step are many, independent and
of very different cost. A pool fed the most expensive units first keeps every core busy
until the end of each step. On Dask the same units go to the cluster's workers, so a
cluster of many machines shares the work of one step.

- `InlinePool` (one worker): runs each unit in the calling process, in order. Builds with one
  worker, tests and debugging use it; results are the same as with any pool.
- `ProcessPool(n)`: a `concurrent.futures.ProcessPoolExecutor` started with the forkserver
  method (workers fork from a clean process that has imported the renderers once), kept for
  the life of the process and shared by every step of a build.
- `DaskPool(address)`: a `distributed` client; inside a step that itself runs on a Dask
  worker (dagster-dask), `worker_client()` submits to the same cluster without holding a
  worker thread.

Large read-only inputs (a render context: pack, facts, database, writer) are passed once per
step with `share()`: a pickle in the workspace that each worker loads once (the workspace is
shared by every machine of a cluster), not once per unit. `run()` yields `(index, result)`
as units finish; callers put results back in input order, so output never depends on
scheduling.
"""
from __future__ import annotations

import atexit
import multiprocessing as mp
import os
import pickle
import threading
import time
import uuid
from abc import ABC, abstractmethod
from collections import OrderedDict
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Optional, Sequence

from .registry import FAMILIES


_LOADED: "OrderedDict[str, Any]" = OrderedDict()


@dataclass
class Tally:
    """Progress of one step's units: counts and rough cost (seconds, by modality), cache
    hits included in `done` and counted apart."""

    total: int
    cost_total: float
    done: int = 0
    cached: int = 0
    cost_done: float = 0.0
    cost_cached: float = 0.0

    def add(self, cost: float, cached: bool = False) -> None:
        self.done += 1
        self.cost_done += cost
        if cached:
            self.cached += 1
            self.cost_cached += cost


class Shared:
    """A handle on a read-only object shared with workers: the object itself in the calling
    process, a pickle file elsewhere (loaded once per worker process)."""

    def __init__(self, obj: Any, path: Optional[str] = None):
        self._obj = obj
        self.path = path

    def __getstate__(self) -> dict:
        if self.path is None:
            raise RuntimeError("this shared object was made for an inline pool and cannot leave the process")
        return {"path": self.path}

    def __setstate__(self, state: dict) -> None:
        self._obj = None
        self.path = state["path"]

    def get(self) -> Any:
        if self._obj is not None:
            return self._obj
        assert self.path is not None
        if self.path not in _LOADED:
            # A pickle removed from the scratch folder belongs to a step that has ended
            # (`Pool.share`): its object is dropped before a new one is loaded, so a worker
            # holds only the contexts of steps still running (a banking render context is
            # tens of megabytes, and two domains build side by side).
            for stale in [p for p in _LOADED if not os.path.exists(p)]:
                del _LOADED[stale]
            with open(self.path, "rb") as f:
                _LOADED[self.path] = pickle.load(f)
            while len(_LOADED) > 3:
                _LOADED.popitem(last=False)
        _LOADED.move_to_end(self.path)
        return _LOADED[self.path]


class Pool(ABC):
    workers: int = 1

    @abstractmethod
    def run(self, fn: Callable, args: Sequence[tuple], cost: Optional[Sequence[float]] = None) -> Iterator[tuple[int, Any]]:
        """Call fn(*args[i]) for every i; yield (i, result) as each finishes. Units with a
        higher `cost` start first. An exception in a unit is raised here."""

    @contextmanager
    def share(self, obj: Any, scratch: Path) -> Iterator[Shared]:
        """A handle on `obj` for the units of one step (the pickle is removed afterwards)."""
        yield Shared(obj)

    def submit(self, fn: Callable, *args: Any) -> Optional[Future]:
        """One unit on its own, started now (queued behind units already submitted); its
        future. None when this pool takes no single units (the caller runs it itself)."""
        return None


class InlinePool(Pool):
    workers = 1

    def run(self, fn, args, cost=None):
        for i in _order(len(args), cost):
            yield i, fn(*args[i])


class _FilePool(Pool):
    """A pool whose workers are other processes: shared objects go through a pickle file."""

    @contextmanager
    def share(self, obj, scratch):
        scratch = Path(scratch)
        scratch.mkdir(parents=True, exist_ok=True)
        path = scratch / f"{uuid.uuid4().hex}.pkl"
        tmp = path.with_suffix(".tmp")
        with open(tmp, "wb") as f:
            pickle.dump(obj, f, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)
        try:
            yield Shared(obj, str(path))
        finally:
            path.unlink(missing_ok=True)


def _order(n: int, cost: Optional[Sequence[float]]) -> list[int]:
    if cost is None:
        return list(range(n))
    return sorted(range(n), key=lambda i: (-cost[i], i))


def _watch_owner(owner: int, every: float = 1.0) -> None:
    """In a pool worker: end the worker when the process that owns the pool is gone. A worker
    whose owner ended without shutting the pool down (killed, or left through `os._exit` as
    pytest-xdist's workers leave) waited for work forever, each holding the sandbox process
    of the domain code it ran and, through them, the forkserver: orphans of every test run."""
    def watch() -> None:
        while True:
            time.sleep(every)
            try:
                os.kill(owner, 0)
            except ProcessLookupError:
                os._exit(0)
            except PermissionError:
                pass  # alive, another user's (a reused pid is not ours to judge)

    threading.Thread(target=watch, name="factforge-owner-watch", daemon=True).start()


class ProcessPool(_FilePool):
    def __init__(self, workers: int):

        self.workers = workers
        ctx = mp.get_context("forkserver")

        ctx.set_forkserver_preload([f"transforms.{f}" for f in FAMILIES])  # renderers imported once
        self._ex = ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_watch_owner,
                                       initargs=(os.getpid(),))

    def run(self, fn, args, cost=None):
        futures: dict[Future, int] = {self._ex.submit(fn, *args[i]): i for i in _order(len(args), cost)}
        pending = set(futures)
        try:
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for fut in sorted(done, key=futures.get):
                    yield futures[fut], fut.result()
        finally:
            for fut in pending:
                fut.cancel()

    def submit(self, fn, *args):
        return self._ex.submit(fn, *args)

    def close(self) -> None:
        self._ex.shutdown(wait=True, cancel_futures=True)


class DaskPool(_FilePool):
    """Units on a Dask cluster: the one this code runs on (inside a dagster-dask step), or the
    scheduler at `address`."""

    def __init__(self, address: Optional[str] = None):
        self.address = address
        self.workers = 0

    @contextmanager
    def _client(self):
        from distributed import Client, get_worker, worker_client  # noqa: PLC0415  (heavy; loaded on first use)

        try:
            get_worker()
            inside = True
        except ValueError:
            inside = False
        if inside:
            with worker_client() as client:
                yield client
        else:
            with Client(self.address) as client:
                yield client

    def run(self, fn, args, cost=None):
        from distributed import as_completed  # noqa: PLC0415  (heavy; loaded on first use)

        with self._client() as client:
            self.workers = len(client.scheduler_info().get("workers", {})) or 1
            order = _order(len(args), cost)
            futures = [client.submit(fn, *args[i], pure=False, priority=len(order) - rank)
                       for rank, i in enumerate(order)]
            index = {f.key: i for f, i in zip(futures, order)}
            for fut in as_completed(futures):
                yield index[fut.key], fut.result()


def cores() -> int:
    """Processors this process may run on (affinity, not the machine's count)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


_POOLS: dict[tuple, Pool] = {}
_POOLS_LOCK = threading.Lock()  # partitions built side by side (threads) share one pool


def get_pool(engine: str = "local", workers: int = 0, address: Optional[str] = None) -> Pool:
    """The process-wide pool for these settings (created on first use, closed at exit).
    engine "local": `workers` processes (0 = every core; 1 = inline); "dask": the cluster."""
    if engine == "dask":
        key: tuple = ("dask", address)
    else:
        workers = workers or cores()
        key = ("local", workers)
    with _POOLS_LOCK:
        if key not in _POOLS:
            _POOLS[key] = _new_pool(engine, workers, address)
        return _POOLS[key]


def _new_pool(engine: str, workers: int, address: Optional[str]) -> Pool:
    if engine == "dask":
        return DaskPool(address)
    if workers == 1:
        return InlinePool()
    return ProcessPool(workers)


@atexit.register
def close_pools() -> None:
    while _POOLS:
        _, pool = _POOLS.popitem()
        if isinstance(pool, ProcessPool):
            pool.close()
