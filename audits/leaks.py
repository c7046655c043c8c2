"""Leak scan: a variant's delivered files must not carry the base pack's brand or the base
values the variant replaced.

Every rendered file is read back with its kind's extractor (the very extractions the
recoverability audit uses, audits.extraction; for audio and video the speech vocabulary
holds every spoken number and the base brand words, so a leak *could* be heard). Then:

- brand: every base brand string the variant renamed or dropped (company, short name, email
  domain, website, tagline, phone, product names, people, extra renames; id prefixes only
  when followed by digits), matched the way the renamer matches it;
- value: for each substituted fact, its base value in any surface form (a count only when
  followed by what it counts), counted when the text stating it (its sentence, the line
  before, a run-on next line) holds at least half of that fact's anchors, and not when
  another fact whose *current* value it is explains that text at least as well (a base $75
  fee that is legitimately another fee's value elsewhere is not a leak). A mention inside a
  hedged sentence (a customer's wrong belief, a superseded draft) is listed under `hedged`
  (file and fact only) and not counted as a hit.

Base people whose full name the writer can also invent from its own name pools are not
searched (a coincidence, not a leak).

The report ships inside the variant's bundle, so it quotes base strings only for hits (and
a bundle is not written when there are hits); skipped terms are counted, not named.

The variant's own facts (delivered as facts.json) are scanned for brand terms too.

Speech (audio and the sound of videos) is heard twice, see `scan`: a hit from the first
pass must survive a stricter pass in which every name the variant world may say competes
with the base terms on equal terms; recognition near-misses are listed as `unconfirmed` and
do not fail the build.
"""
from __future__ import annotations

import math
import re
from dataclasses import replace
from pathlib import Path
from typing import Any, Optional

from domains.renaming import Term, sorted_terms, term_regex
from facts.match import WINDOW, TextIndex, normalise_text
from facts.models import Fact, FactSet, Slot, SlotType
from transforms import registry
from transforms.base import Extraction
from transforms.phrasebook import FIRST, LAST
from transforms.plan import ArtifactSpec, FactMention
from transforms.render import Rendered
from transforms.writers import HEDGE_MARKERS

from .extraction import SPEECH_MODALITIES, Job, brand_words, extract_all, jobs_for

LEAKS_SCHEMA_VERSION = "1.1"  # 1.1: speech hits confirmed by a stricter pass; `unconfirmed`


def _needed(n: int) -> int:
    return max(1, math.ceil(n * 0.5)) if n else 0


def _snippet(text: str, s: int, e: int, pad: int = 60) -> str:
    return " ".join(text[max(0, s - pad):e + pad].split())


_SENT_END = re.compile(r"[.!?](?=\s|$)")


def _hedged(low: str, s: int, e: int) -> bool:
    """A hedge marker in the value's own sentence (a customer's belief, a superseded draft).
    Sentences end at . ! ? only, so a table cell or a wrapped line keeps its hedge; unlike
    the distractor audit, a hedge in the previous record does not excuse a base value."""
    lo = max(s - 300, 0)
    for m in _SENT_END.finditer(low, lo, s):
        lo = m.end()
    m = _SENT_END.search(low, e, e + 300)
    hi = m.end() if m else min(len(low), e + 300)
    return any(h in low[lo:hi] for h in HEDGE_MARKERS)


def _count_noun(slot: Slot) -> Optional[re.Pattern]:
    """What a count counts ("6 passengers" -> passeng...), to tell it from a bare number."""
    name = slot.name.rstrip("_0123456789")
    if not name or name in ("count", "age") or len(name) < 3:
        return None
    stem = name.replace("_", " ")[:max(3, len(name) - 2)] if len(name) > 4 else name
    return re.compile(r"[^.!?\n]{0,30}?(?<![a-z])" + re.escape(stem))


def _context(low: str, s: int, e: int) -> tuple[int, int]:
    """The text a reader would take as stating the value at s..e: its sentence, the two lines
    before it (a question and a "let me check" turn before a bare answer, a table label, a
    wrapped line) and, when the sentence runs on past a line break, the next line."""
    lo = max(low.rfind(ch, 0, s) for ch in ".!?\n") + 1
    line_start = low.rfind("\n", 0, s) + 1
    lo = min(lo, line_start)
    for _ in range(2):
        lo = low.rfind("\n", 0, max(lo - 1, 0)) + 1 if lo > 0 else 0
    ends = [i for i in (low.find(ch, e) for ch in ".!?") if i != -1]
    nl = low.find("\n", e)
    hi = min(ends) + 1 if ends else len(low)
    if nl != -1 and nl < hi:
        nxt = low.find("\n", nl + 1)
        hi = nl if re.search(r"[.!?:]\s*$", low[lo:nl]) else (nxt if nxt != -1 else len(low))
    return lo, min(hi, e + WINDOW)


def generic_people(world: Any) -> set[str]:
    """Full names the writer can invent on its own (its first x last name pools): a base
    person who happens to have such a name cannot be told from an invented one."""
    first, last = set(FIRST), set(LAST)
    out = set()
    for t in world.spec.terms:
        parts = t.old.split()
        if t.origin.startswith(("brand.agents", "brand.managers", "brand.customers")) and len(parts) == 2 \
                and parts[0] in first and parts[1] in last:
            out.add(t.old)
    return out


class _ValueProbe:
    """One substituted slot of one fact, with the facts whose current value equals its base value."""

    def __init__(self, fact: Fact, old: Slot, rivals: list[Fact]):
        self.fact, self.old, self.rivals = fact, old, rivals
        self.anchors = list(dict.fromkeys(a.lower() for a in fact.anchors if a.strip()))

    def hits(self, idx: TextIndex) -> list[tuple[int, int, bool]]:
        out = []
        need = _needed(len(self.anchors))
        noun = _count_noun(self.old) if self.old.type == SlotType.count else None
        for s, e in idx.occurrences(self.old):
            if noun and not noun.match(idx.low, e, min(len(idx.low), e + 40)):
                continue  # a bare number (a section number, a quantity of something else)
            lo, hi = _context(idx.low, s, e)
            found = idx.anchors_in(self.anchors, lo, hi) if self.anchors else 0
            if found < need or not self.anchors:
                continue
            mine = found / len(self.anchors)
            explained = False
            for g in self.rivals:
                ga = list(dict.fromkeys(a.lower() for a in g.anchors if a.strip()))
                if not ga:
                    continue
                gf = idx.anchors_in(ga, lo, hi)
                if gf >= _needed(len(ga)) and gf / len(ga) >= mine:
                    explained = True
                    break
            if not explained:
                out.append((s, e, _hedged(idx.low, s, e)))
        return out


def _probes(world: Any, facts: FactSet) -> list[_ValueProbe]:
    base_fs = world.base.factset(facts.decomposer)
    by_id = facts.by_id()
    keyed: dict[tuple, list[Fact]] = {}
    for f in facts.facts:
        for s in f.slots:
            keyed.setdefault(s.key(), []).append(f)
    out = []
    for sub in world.spec.substitutions(base_fs):
        f = by_id.get(world.spec.fact_id(sub.fact_id))
        if f is None:
            continue
        seen: set[str] = set()
        rivals = [g for g in keyed.get(sub.old.key(), []) if not (g.id in seen or seen.add(g.id))]
        out.append(_ValueProbe(f, sub.old, rivals))
    return out


def alternatives(world: Any, db: Optional[dict] = None) -> list[str]:
    """Everything the variant world may legitimately say that could sound like a base term:
    the variant's brand strings and people, the replacements of renamed terms, every
    person's name in the variant database and the names the writer invents (its first x
    last name pools)."""
    b = world.pack.brand
    out = [b.company, b.short_name, b.tagline, *b.products.values(), *b.agents, *b.managers, *b.customers]
    out += [t.new for t in world.spec.terms if t.new]
    out += [f"{first} {last}" for first in FIRST for last in LAST]
    out += _db_names(db)
    return sorted({w.lower() for w in out if w})


def _db_names(db: Any) -> list[str]:
    names: list[str] = []

    def walk(obj: Any) -> None:
        if isinstance(obj, dict):
            first, last = obj.get("first_name"), obj.get("last_name")
            if isinstance(first, str) and isinstance(last, str):
                names.append(f"{first} {last}")
            for k, v in obj.items():
                if k == "name" and isinstance(v, str) and _PERSON.fullmatch(v):
                    names.append(v)
                elif isinstance(v, (dict, list)):
                    walk(v)
        elif isinstance(obj, list):
            for v in obj:
                walk(v)

    walk(db or {})
    return names


_PERSON = re.compile(r"[A-Z][A-Za-z.'-]+(?: [A-Z][A-Za-z.'-]+){1,2}")


def scan(world: Any, facts: FactSet, rendered: list[Rendered], cache_dir: Optional[Path],
         db: Optional[dict] = None, jobs: Optional[list[Job]] = None,
         extractions: Optional[dict[str, Extraction]] = None) -> dict:
    """Scan every rendered file of a variant build; returns the leaks report. `jobs` and
    `extractions` (artifact id -> text) are the build's (audits.extraction); both are made
    here when not given.

    Speech is checked twice. The first pass is the build's extraction (the fixed vocabulary
    holds every spoken number, and a variant's file vocabulary the base brand words), so a
    base term or value that was said can be heard. A hit in that transcript is only a *suspect*: speech recognition can
    hear a name it was not given as the closest candidate ("Toby Reyes" heard as a base
    agent "Tobin Reyes"). Each file with suspects is recognised again, stricter: the same
    candidates plus every name and brand string the variant world may legitimately say
    (`alternatives`: its brand, its people, its database's names, the writer's name pools),
    all on equal terms. A hit counts only when that pass hears the same base term (or base
    value of the same fact) again; the others are listed under `unconfirmed` (file, what,
    origin or fact; no base string is quoted) and do not fail the build."""
    if jobs is None:
        specs = [ArtifactSpec(id=r.artifact_id, kind=r.kind, path=r.path, seed=0, date="1970-01-01",
                              facts=[FactMention(fact_id=f) for f in r.fact_ids]) for r in rendered]
        files = {r.artifact_id: (Path(r.file), r.sha256) for r in rendered}
        jobs = jobs_for(specs, files, facts.by_id(), brand_words(world))
    cache = Path(cache_dir) if cache_dir else None
    if extractions is None:
        extractions = extract_all(jobs, cache).by_id
    job_of = {j.artifact_id: j for j in jobs}
    spec = world.spec
    skipped = generic_people(world)
    terms = [t for t in spec.terms if t.old not in skipped]
    rx = term_regex(terms)
    ordered = sorted_terms(terms)
    probes = _probes(world, facts)
    currency = world.pack.info.currency
    leaks: list[dict] = []
    hedged: list[dict] = []

    def brand_hits(text: str, file: str, extractor: str) -> None:
        leaks.extend({"file": file, "extractor": extractor, **row} for row in _brand_rows(text, rx, ordered))

    for f in facts.facts:
        blob = " | ".join([f.id.replace("-", " "), f.statement, *f.section, *f.anchors,
                           *(c.value for c in f.conditions)])
        before = len(leaks)
        brand_hits(blob, "facts.json", "json")
        for row in leaks[before:]:
            row["fact_id"] = f.id

    def value_hits(text: str, file: str, extractor: str, hedged_out: list[dict]) -> list[dict]:
        idx = TextIndex(text, currency=currency)
        out = []
        for p in probes:
            for s, e, is_hedged in p.hits(idx):
                if is_hedged:  # named, not quoted: the report ships in the bundle
                    hedged_out.append({"file": file, "extractor": extractor, "fact_id": p.fact.id})
                else:
                    out.append({"file": file, "extractor": extractor, "what": "value", "term": p.old.text,
                                "fact_id": p.fact.id, "text": _snippet(idx.text, s, e)})
        return out

    unconfirmed: list[dict] = []
    alts: Optional[list[str]] = None
    for r in sorted(rendered, key=lambda r: r.path):
        speech = registry.get(r.kind).modality in SPEECH_MODALITIES
        job = job_of[r.artifact_id]
        ex = extractions[r.artifact_id]
        text = normalise_text(ex.text)
        before, file_hedged = len(leaks), []
        brand_hits(text, r.path, ex.extractor)
        leaks.extend(value_hits(text, r.path, ex.extractor, file_hedged))
        if speech and len(leaks) > before:
            suspects = leaks[before:]
            del leaks[before:]
            alts = alts if alts is not None else alternatives(world, db)
            strict_job = replace(job, candidates=tuple(sorted(set(job.candidates) | set(alts))))
            strict = extract_all([strict_job], cache).by_id[r.artifact_id]
            stext = normalise_text(strict.text)
            again = {(h["what"], h.get("origin") or h.get("fact_id"), h["term"]) for h in
                     _brand_rows(stext, rx, ordered) + value_hits(stext, r.path, strict.extractor, [])}
            for h in suspects:
                if (h["what"], h.get("origin") or h.get("fact_id"), h["term"]) in again:
                    leaks.append({**h, "extractor": f"{h['extractor']}+strict"})
                else:
                    unconfirmed.append({"file": h["file"], "extractor": h["extractor"], "what": h["what"],
                                        **({"origin": h["origin"]} if "origin" in h else {"fact_id": h["fact_id"]})})
        hedged.extend(file_hedged)

    by_kind: dict[str, int] = {}
    by_what: dict[str, int] = {}
    kinds = {r.path: r.kind for r in rendered}
    for row in leaks:
        k = kinds.get(row["file"], "facts")
        by_kind[k] = by_kind.get(k, 0) + 1
        by_what[row["what"]] = by_what.get(row["what"], 0) + 1
    return {
        "schema_version": LEAKS_SCHEMA_VERSION,
        "variant": world.key,
        "spec_hash": spec.hash,
        "summary": {"hits": len(leaks), "files_scanned": len(rendered), "by_kind": dict(sorted(by_kind.items())),
                    "by_what": dict(sorted(by_what.items())), "hedged_base_values": len(hedged),
                    "terms": len(terms), "values_watched": len(probes), "terms_skipped": len(skipped),
                    "speech_unconfirmed": len(unconfirmed)},
        "leaks": leaks,
        "hedged": hedged,
        "unconfirmed": unconfirmed,
    }


def _brand_rows(text: str, rx: Optional[re.Pattern], ordered: list[Term]) -> list[dict]:
    if rx is None:
        return []
    out = []
    for m in rx.finditer(text):
        t = ordered[m.lastindex - 1]
        out.append({"what": "brand", "term": t.old, "origin": t.origin, "text": _snippet(text, m.start(), m.end())})
    return out

