"""Render the artifacts of a plan, in parallel, with an honest content-addressed cache.

A rendered file is reused only when everything that shaped it is unchanged:

- the **base key**: the kind's code fingerprint (its module and every project module it
  imports, the libraries' versions, the external tools it declares: see
  `transforms.fingerprint`), the artifact's spec, the pack's brand and world, the
  writer's identity (name, settings, model) and the code fingerprint of the writer's own
  module (the realiser, grammar, haystack and situations it imports: a wording change
  re-renders even a kind that only reaches the writer through the context);
- the **reads**: the records, database views and facts the render looked at, recorded
  through read-only proxies (`transforms.trace`). The cache keeps, per base key, the list
  of reads of each earlier render with a digest of what they returned; a later build
  recomputes the digest of those reads on its own database and facts and reuses the file
  when they agree. So a changed fee re-renders the artifacts that state it or show a record
  charging it, and nothing else.

Files live at `render/<k>.<ext>` where k hashes the base key and the digest; traces at
`render/<base>.traces.json`. Workers, paths and timing are not part of any key. Each unit
of work renders one file into a temporary path and renames it, so a crash leaves nothing
half-written; units run on the pool the caller passes (`transforms.pool`), the most
expensive kinds first, and results come back in plan order.
"""
from __future__ import annotations

import json
import os
import socket
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Iterable, Optional

from facts.errors import FactforgeError
from facts.hashing import content_hash, file_sha256

from . import registry
from .base import RenderContext
from .fingerprint import kind_fingerprint, writer_fingerprint
from .hearing import SPEECH_MODALITIES
from .plan import ArtifactSpec
from .pool import InlinePool, Pool, Shared, Tally
from .trace import memo_for, reads_from_json, traced


CACHE_LAYOUT = "render-2"  # layout of cache entries (base key + traces), not a renderer version
# Rough seconds per artifact of each modality (2-core machine): the pool starts expensive units
# first, and the build's ETA weighs units by it.
COST = {"mp4": 10.0, "wav": 3.0, "png": 0.3, "scan": 0.8, "pdf": 0.2, "docx": 0.1, "xlsx": 0.1}  # recordings: synthesis + hearing
DEFAULT_COST = 0.02


@dataclass(frozen=True)
class Rendered:
    artifact_id: str
    kind: str
    path: str        # bundle-relative
    file: str        # absolute path of the rendered file (in the cache)
    sha256: str
    size: int
    fact_ids: tuple[str, ...]  # every fact the file states, in any role (carrier, echo, hop...)
    cached: bool = False
    heard: bool = False  # its extraction was run (and filed) while rendering it, in this build
    revoiced: int = 0    # lines a recording re-voiced because the recogniser misheard them

    @property
    def family(self) -> str:
        return self.kind.split("/")[0]


def base_key(spec: ArtifactSpec, ctx: RenderContext) -> str:
    key = {
        "layout": CACHE_LAYOUT,
        "kind": kind_fingerprint(spec.kind),
        "spec": spec.model_dump(mode="json"),
        "pack": ctx.pack.spec.model_dump(mode="json"),
        "writer": ctx.writer.identity(),
        "writer_code": writer_fingerprint(ctx.writer),
    }
    if registry.get(spec.kind).modality in SPEECH_MODALITIES and ctx.speech_words:
        key["speech_words"] = list(ctx.speech_words)  # a recording hears itself with them
    return content_hash(key)


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


def _traces_file(cache_dir: Path, base: str) -> Path:
    return Path(cache_dir) / base[:2] / f"{base}.traces.json"


def _file_for(cache_dir: Path, base: str, digest: str, ext: str) -> Path:
    k = content_hash({"base": base, "reads": digest})
    return Path(cache_dir) / k[:2] / f"{k}{ext}"


def lookup(spec: ArtifactSpec, ctx: RenderContext, base: str, cache_dir: Path) -> Optional[Path]:
    """The cached file of an earlier render whose reads still return the same values."""
    tf = _traces_file(cache_dir, base)
    if not tf.exists():
        return None
    memo = memo_for(ctx.db, ctx.facts)
    ext = registry.get(spec.kind).ext
    for trace in json.loads(tf.read_text(encoding="utf-8")):
        if memo.digest(reads_from_json(trace["reads"])) == trace["digest"]:
            f = _file_for(cache_dir, base, trace["digest"], ext)
            if f.exists():
                return f
    return None


def render_unit(shared: Shared, spec: ArtifactSpec, base: str, cache_dir: str,
                fingerprint: Optional[str] = None) -> tuple[str, list, str, dict]:
    """One unit of work (runs in a worker): render `spec` with traced database and facts into
    the cache. Returns (file, reads, digest, notes: what the render reported, e.g. that a
    recording heard itself). `fingerprint`: the kind's fingerprint where the key was made; a
    worker running other code (another machine) refuses the unit rather than filing its
    output under that key."""
    check_fingerprint(spec.kind, fingerprint)
    ctx: RenderContext = shared.get()
    t = registry.get(spec.kind)
    db, facts, rec = traced(ctx.db, ctx.facts)
    tmp_dir = Path(cache_dir) / "tmp"
    tmp_dir.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{base[:16]}-", suffix=t.ext, dir=tmp_dir)
    os.close(fd)
    notes: dict = {}
    try:
        t.render(spec, replace(ctx, db=db, facts=facts, notes=notes), Path(tmp))
        digest = rec.digest()
        dest = _file_for(Path(cache_dir), base, digest, t.ext)
        dest.parent.mkdir(parents=True, exist_ok=True)
        os.replace(tmp, dest)
    finally:
        Path(tmp).unlink(missing_ok=True)
    return str(dest), rec.as_json(), digest, notes


def check_fingerprint(kind: str, expected: Optional[str]) -> None:
    if expected is not None and kind_fingerprint(kind) != expected:
        raise FactforgeError(f"this worker ({socket.gethostname()}, pid {os.getpid()}) runs other code or tools "
                             f"for {kind} than the build that sent the work; install the same version everywhere")


def _remember(cache_dir: Path, base: str, reads: list, digest: str) -> None:
    tf = _traces_file(cache_dir, base)
    traces = json.loads(tf.read_text(encoding="utf-8")) if tf.exists() else []
    traces = [t for t in traces if t["digest"] != digest][-7:] + [{"reads": reads, "digest": digest}]
    atomic_write(tf, lambda tmp: tmp.write_text(json.dumps(traces, separators=(",", ":")), encoding="utf-8"))


def render_artifacts(specs: Iterable[ArtifactSpec], ctx: RenderContext, cache_dir: Path,
                     pool: Optional[Pool] = None, progress: Optional[Callable[[Tally], None]] = None,
                     scratch: Optional[Path] = None) -> list[Rendered]:
    """Render every spec (cache hits are not rendered again); `progress(tally)` is called
    once the cache is looked up and as units finish."""
    specs = list(specs)
    pool = pool or InlinePool()
    cache_dir = Path(cache_dir)
    costs = [COST.get(registry.get(s.kind).modality, DEFAULT_COST) for s in specs]
    tally = Tally(len(specs), sum(costs))
    bases = [base_key(s, ctx) for s in specs]
    files: dict[int, tuple[Path, bool]] = {}
    notes: dict[int, dict] = {}
    for i, (s, b) in enumerate(zip(specs, bases)):
        hit = lookup(s, ctx, b, cache_dir)
        if hit is not None:
            files[i] = (hit, True)
            tally.add(costs[i], cached=True)
    todo = [i for i in range(len(specs)) if i not in files]
    if progress:
        progress(tally)
    if todo:
        with pool.share(ctx, scratch or cache_dir / "shared") as shared:
            args = [(shared, specs[i], bases[i], str(cache_dir), kind_fingerprint(specs[i].kind)) for i in todo]
            for j, (file, reads, digest, note) in pool.run(render_unit, args, [costs[i] for i in todo]):
                i = todo[j]
                _remember(cache_dir, bases[i], reads, digest)
                files[i] = (Path(file), False)
                notes[i] = note
                tally.add(costs[i])
                if progress:
                    progress(tally)
    out = []
    for i, s in enumerate(specs):
        f, cached = files[i]
        out.append(Rendered(artifact_id=s.id, kind=s.kind, path=s.path, file=str(f), sha256=file_sha256(f),
                            size=f.stat().st_size, fact_ids=tuple(dict.fromkeys(m.fact_id for m in s.facts)),
                            cached=cached, heard=bool(notes.get(i, {}).get("heard")),
                            revoiced=int(notes.get(i, {}).get("revoiced", 0))))
    return out
