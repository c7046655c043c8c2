"""Per-file audit work on the build's pool.

The audits (lints, the difficulty report) read every delivered file's extracted text and
combine what each file shows into one report. The reading is independent per file and is
most of their cost (banking: 2,000 files, a few minutes on one core), so it runs as units on
the same pool the renderers and extractors use (`transforms.pool`): files are dealt into
chunks of about equal text length, a chunk is one unit, and results come back in the files'
order, so a report never depends on how the work was scheduled. What every unit needs (the
facts, the names to check...) is shared once per step (`Pool.share`), not sent per unit.
"""
from __future__ import annotations

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
