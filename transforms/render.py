"""Render the artifacts of a plan, with a content-addressed cache.

The cache key is a hash of everything that changes the file: generator version, kind,
the artifact's spec, the facts it mentions (carried and distracted), the pack's brand and
world, the database and the writer. Workers, paths and timing are not part of it.
Files are written to a temp path and renamed, so a crash leaves nothing half-written.
"""
from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Optional

from facts import GENERATOR_VERSION
from facts.hashing import content_hash, file_sha256

from . import registry
from .base import ArtifactSpec, RenderContext


@dataclass(frozen=True)
class Rendered:
    artifact_id: str
    kind: str
    path: str        # bundle-relative
    file: str        # absolute path of the rendered file (in the cache)
    sha256: str
    size: int
    fact_ids: tuple[str, ...]
    cached: bool = False

    @property
    def family(self) -> str:
        return self.kind.split("/")[0]


def cache_key(spec: ArtifactSpec, ctx: RenderContext, db_hash: str) -> str:
    fact_ids = set(spec.fact_ids) | {d.fact_id for d in spec.distractors}
    return content_hash({
        "generator": GENERATOR_VERSION,
        "spec": spec.model_dump(mode="json"),
        "facts": [ctx.facts[i].model_dump(mode="json") for i in sorted(fact_ids) if i in ctx.facts],
        "pack": ctx.pack.spec.model_dump(mode="json"),
        "db": db_hash,
        "writer": ctx.writer.name,
    })


def atomic_write(dest: Path, produce: Callable[[Path], None]) -> None:
    """Call produce(tmp) then rename tmp onto dest."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=dest.suffix, dir=dest.parent)
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        produce(tmp_path)
        os.replace(tmp_path, dest)
    finally:
        if tmp_path.exists():
            tmp_path.unlink()


def render_artifacts(specs: Iterable[ArtifactSpec], ctx: RenderContext, cache_dir: Path,
                     progress: Optional[Callable[[ArtifactSpec], None]] = None) -> list[Rendered]:
    db_hash = content_hash(ctx.db)
    out = []
    for spec in specs:
        t = registry.get(spec.kind)
        key = cache_key(spec, ctx, db_hash)
        dest = Path(cache_dir) / key[:2] / f"{key}{t.ext}"
        cached = dest.exists()
        if not cached:
            atomic_write(dest, lambda tmp, s=spec: t.render(s, ctx, tmp))
        out.append(Rendered(artifact_id=spec.id, kind=spec.kind, path=spec.path, file=str(dest),
                            sha256=file_sha256(dest), size=dest.stat().st_size,
                            fact_ids=tuple(spec.fact_ids), cached=cached))
        if progress:
            progress(spec)
    return out
