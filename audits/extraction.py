"""Extraction: every delivered file -> text, through its kind's extractor (text layer, parser,
OCR of pixels, speech recognition of audio), cached and run in parallel.

This module only turns files into text; matching facts against the text is
`audits.recoverability` / `audits.match`, and the leak scan reads the same extractions.

**Cache.** An extraction is reused when the file's bytes (sha256), the kind, the kind's code
fingerprint (its module and everything it imports, library versions, and the external tools
it declares: tesseract and its traineddata, ffmpeg, the speech model; see
`transforms.fingerprint`) and the speech vocabulary are unchanged.

**Speech vocabulary, scoped to the file.** Recognition is restricted to a vocabulary; that
vocabulary must not depend on facts the file does not mention, or a value edit anywhere in
the domain would make every recording be recognised again. It is:

- a fixed, domain-independent vocabulary of spoken numbers, amounts, units, durations,
  dates and common words, with a generic number grammar
  (`transforms.extract.asr.FIXED_VOCABULARY`), so *any* value can be heard, in particular
  a wrong one;
- the file's own phrases: the anchors and content words of the facts it carries or
  distracts, those facts' values and the distractors' wrong values in spoken form (right
  and wrong values alike, so the recogniser still decides between them acoustically), and
  the writers' hedge markers;
- for a variant, the base brand's terms, so the leak scan can hear a base name.

A value edit therefore changes the vocabulary of exactly the files that mention that fact.
The vocabulary and the key live in `transforms.hearing`: recordings run this same
extraction on the file they render (they hear their own audio before delivering it) and
file it under the same key, so `extract_all` finds it and the audio is decoded once.
The benchmark (benchmarks/bench_asr.py) also runs a control: a clip recognised with another
clip's vocabulary must not yield that clip's facts.
"""
from __future__ import annotations

import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Optional

from facts.models import Fact
from transforms import registry
from transforms.base import ExtractContext, Extraction
from transforms.plan import ArtifactSpec
from transforms.fingerprint import kind_fingerprint
from transforms.hearing import CACHE_LAYOUT, SPEECH_MODALITIES, SPOKEN_TYPES, extraction_key, speech_candidates
from transforms.hearing import cache_file as _cache_file
from transforms.hearing import store as _store
from transforms.pool import InlinePool, Pool, Tally
from transforms.render import check_fingerprint

from .readings import found_in

__all__ = ["CACHE_LAYOUT", "SPEECH_MODALITIES", "SPOKEN_TYPES", "Job", "Extractions", "brand_words", "cached",
           "extract_all", "extract_unit", "jobs_for", "speech_candidates"]

# Rough seconds per file of each modality (2-core machine): the pool starts expensive units
# first, and the build's ETA weighs units by it.
COST = {"mp4": 4.0, "wav": 1.0, "png": 0.4, "scan": 2.0, "pdf": 0.05}
DEFAULT_COST = 0.005


@dataclass(frozen=True)
class Job:
    """One file to extract."""

    artifact_id: str
    kind: str
    file: str
    sha256: str
    candidates: tuple[str, ...] = ()

    @property
    def key(self) -> str:
        return extraction_key(self.kind, self.sha256, self.candidates)


def brand_words(world) -> list[str]:
    """For a variant: the base brand's terms it renamed (so the leak scan can hear a base name
    spoken). Empty for a base domain: the brand's own names add nothing to recognising values
    and cost accuracy ("twelve" heard as the staff name "Quill")."""
    if getattr(world, "spec", None) is None:
        return []
    bb = world.base.brand
    words = [t.old for t in world.spec.terms]
    words += [bb.company, bb.short_name, *bb.products.values(), *bb.agents, *bb.managers, *bb.customers]
    return sorted({w.lower() for w in words if w})


def jobs_for(specs: Iterable[ArtifactSpec], files: dict[str, tuple[Path, str]], facts: dict[str, Fact],
             extra: Iterable[str] = ()) -> list[Job]:
    extra = list(extra)
    out = []
    for spec in specs:
        file, sha = files[spec.id]
        speech = registry.get(spec.kind).modality in SPEECH_MODALITIES
        cands = tuple(speech_candidates(spec, facts, extra)) if speech else ()
        out.append(Job(spec.id, spec.kind, str(file), sha, cands))
    return out


def cached(job: Job, cache_dir: Path) -> Optional[Extraction]:
    """What a build extracted from this file with this job's vocabulary, if the cache holds
    it; never runs an extractor. (A variant's build adds the base brand words to speech
    vocabularies: a job made without them finds nothing for its audio.)"""
    path = _cache_file(Path(cache_dir), job.key)
    return Extraction.model_validate_json(path.read_text(encoding="utf-8")) if path.is_file() else None


@dataclass
class Extractions:
    """Extracted text of every delivered file, by artifact id, with seconds spent per
    modality (files extracted in this build; cache hits cost nothing), the cache hits and
    the jobs (what each file was extracted with: the leak scan's stricter pass extends them)."""

    by_id: dict[str, Extraction]
    seconds: dict[str, float]
    cached: int = 0
    jobs: tuple[Job, ...] = ()


def extract_unit(job: Job, key: str, cache_dir: Optional[str], workdir: Optional[str],
                 fingerprint: Optional[str] = None, currency: Optional[str] = None) -> tuple[Extraction, float]:
    """One unit of work (runs in a worker): extract one file, cache the text (and, given the
    `currency`, the values found in it: `audits.readings`, which the audits then load).
    Returns the extraction and the seconds it took (refused when the worker's code or tools
    for the kind differ from the fingerprint in the key)."""
    check_fingerprint(job.kind, fingerprint)
    t0 = time.perf_counter()
    ex = registry.get(job.kind).extract(Path(job.file), ExtractContext(candidates=list(job.candidates),
                                                                       workdir=Path(workdir) if workdir else None))
    if cache_dir:
        _store(Path(cache_dir), key, ex)
        if currency:
            found_in(ex.text, currency, Path(cache_dir))
    return ex, time.perf_counter() - t0


def extract_all(jobs: list[Job], cache_dir: Optional[Path], pool: Optional[Pool] = None,
                progress: Optional[Callable[[Tally], None]] = None,
                fresh: Iterable[str] = (), currency: Optional[str] = None) -> Extractions:
    """Extract every job's file (cache hits are not extracted again); `progress(tally)` is
    called once the cache is looked up and as files finish. `fresh`: artifact ids whose
    extraction this build already ran while rendering them (recordings hear themselves:
    `transforms.hearing`); their cache hits count as extracted in this build, not cached.
    `currency`: the values of each text extracted here are found and kept too
    (`audits.readings`)."""
    fresh = set(fresh)
    pool = pool or InlinePool()
    costs = [COST.get(registry.get(j.kind).modality, DEFAULT_COST) for j in jobs]
    tally = Tally(len(jobs), sum(costs))
    out: dict[str, Extraction] = {}
    todo = []
    for n, j in enumerate(jobs):
        k = j.key
        path = _cache_file(cache_dir, k) if cache_dir else None
        if path is not None and path.exists():
            out[j.artifact_id] = Extraction.model_validate_json(path.read_text(encoding="utf-8"))
            tally.add(costs[n], cached=j.artifact_id not in fresh)
        else:
            todo.append((n, j, k))
    if progress:
        progress(tally)
    workdir = str(Path(cache_dir) / "tmp") if cache_dir else None
    args = [(j, k, str(cache_dir) if cache_dir else None, workdir, kind_fingerprint(j.kind), currency)
            for _, j, k in todo]
    seconds: dict[str, float] = defaultdict(float)
    for i, (ex, dt) in pool.run(extract_unit, args, [costs[n] for n, _, _ in todo]):
        n, job, _ = todo[i]
        out[job.artifact_id] = ex
        seconds[registry.get(job.kind).modality] += dt
        tally.add(costs[n])
        if progress:
            progress(tally)
    return Extractions(by_id={j.artifact_id: out[j.artifact_id] for j in jobs}, seconds=dict(sorted(seconds.items())),
                       cached=tally.cached, jobs=tuple(jobs))
