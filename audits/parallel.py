"""Per-file audit work on the build's pool.

The audits (lints, the difficulty report) read every delivered file's extracted text and
combine what each file shows into one report. The reading is independent per file and is
most of their cost (banking: 2,000 files, a few minutes on one core), so it runs as units on
the same pool the renderers and extractors use (`transforms.pool`): files are dealt into
chunks of about equal text length, a chunk is one unit, and results come back in the files'
order, so a report never depends on how the work was scheduled. What every unit needs (the
facts, the names to check...) is shared once per step (`Pool.share`), not sent per unit.

A caller that can name everything one file's result depends on passes a key per file
(`keys`) and a cache folder: results found there are loaded, only the others are computed,
and those are stored (`cached_map`). After a one-value edit, the lints of every file that
does not carry the edited fact are loaded, not read again.
"""
from __future__ import annotations

import os
import pickle
import uuid
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

from transforms.pool import InlinePool, Pool, Shared

CHUNKS_PER_WORKER = 4  # a few chunks per worker: a slow chunk does not hold the step up


def _chunks(weights: Sequence[int], n: int) -> list[list[int]]:
    """Consecutive index ranges of about equal total weight, at most `n` of them."""
    total = sum(weights) or 1
    out: list[list[int]] = [[]]
    acc = 0
    for i, w in enumerate(weights):
        if out[-1] and acc >= total * len(out) / n:
            out.append([])
        out[-1].append(i)
        acc += w
    return [c for c in out if c]


def _run_chunk(fn: Callable, shared: Shared, items: list) -> list:
    ctx = shared.get()
    return [fn(ctx, *item) for item in items]


def map_files(fn: Callable, ctx: Any, items: Sequence[tuple], weights: Sequence[int],
              pool: Optional[Pool] = None, scratch: Optional[Path] = None) -> list:
    """[fn(ctx, *item) for item in items], in chunks on `pool` (inline without one).
    `fn` must be a module-level function (it is pickled by name); `weights` (text length)
    balance the chunks; `scratch`: where the shared context's pickle goes (the workspace's
    cache; without one the work runs inline)."""
    pool = pool or InlinePool()
    if isinstance(pool, InlinePool) or scratch is None or len(items) < 2:
        return [fn(ctx, *item) for item in items]
    chunks = _chunks(weights, max(1, (pool.workers or 1) * CHUNKS_PER_WORKER))
    results: list[Optional[list]] = [None] * len(chunks)
    with pool.share(ctx, Path(scratch)) as shared:
        args = [(fn, shared, [items[i] for i in c]) for c in chunks]
        for k, res in pool.run(_run_chunk, args, [sum(weights[i] for i in c) for c in chunks]):
            results[k] = res
    return [r for chunk in results for r in (chunk or [])]


def cached_map(fn: Callable, ctx: Any, items: Sequence[tuple], weights: Sequence[int], keys: Sequence[str],
               cache: Optional[Path], pool: Optional[Pool] = None, scratch: Optional[Path] = None) -> list:
    """`map_files`, with each item's result kept under `cache` by its key (a content hash of
    everything the result depends on, code included: the caller's to make complete). Without
    a cache, `map_files`."""
    if cache is None:
        return map_files(fn, ctx, items, weights, pool, scratch)
    cache = Path(cache)
    results: list[Any] = [None] * len(items)
    todo = []
    for i, k in enumerate(keys):
        try:
            with open(cache / k[:2] / f"{k}.pkl", "rb") as f:
                results[i] = pickle.load(f)
        except (OSError, EOFError, ValueError, AttributeError, pickle.UnpicklingError):
            todo.append(i)
    done = map_files(fn, ctx, [items[i] for i in todo], [weights[i] for i in todo], pool, scratch)
    for i, r in zip(todo, done):
        results[i] = r
        path = cache / keys[i][:2] / f"{keys[i]}.pkl"
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{uuid.uuid4().hex}.tmp")
        with open(tmp, "wb") as f:
            pickle.dump(r, f, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)
    return results
