"""Recoverability: every planted fact must be readable from the delivered file itself.

Each rendered file goes through its kind's extractor (text layer, parser, OCR for pixels,
speech recognition for audio; never the text the renderer was given), then every fact the
plan says the file carries is matched against the extraction (facts.match). Distractor
and superseded values must only appear hedged. The report has a `summary` (facts_total,
facts_recovered, per-family and per-kind figures) plus per-fact and per-artifact detail.

Extractions are cached by (file sha256, kind, candidate phrases): a rebuild that renders
the same bytes does not OCR or transcribe them again.
"""
from __future__ import annotations

import json
import os
import time
from collections import defaultdict
from pathlib import Path
from typing import Callable, Optional

from facts.hashing import content_hash
from facts.match import TextIndex, content_words, match_fact
from facts.models import FactSet
from facts.surface import spoken_form
from transforms import registry
from transforms.base import ArtifactSpec, ExtractContext, Extraction
from transforms.planner import EvidencePlan
from transforms.writers import HEDGE_MARKERS

from .match import unhedged_mentions

REPORT_SCHEMA_VERSION = "1.0"
SPEECH_MODALITIES = {"wav", "mp4"}


def candidates_for(spec: ArtifactSpec, factset: FactSet, domain_values: list[str]) -> list[str]:
    """Grammar for speech recognition: every value the domain uses (spoken), the anchor terms
    and content words of the facts this file mentions, and the hedge markers. The check then asks "was THIS
    value spoken rather than any other value the domain uses"."""
    by_id = factset.by_id()
    words: list[str] = list(domain_values)
    for fid in set(spec.fact_ids) | {d.fact_id for d in spec.distractors}:
        f = by_id.get(fid)
        if f:
            words += [a.lower() for a in f.anchors] + content_words(f.statement)
    for d in spec.distractors:
        from facts.values import parse_slots  # noqa: PLC0415
        words += [spoken_form(s) for s in parse_slots(d.text)]
    words += list(HEDGE_MARKERS)
    return sorted(set(w for w in words if w))


def domain_spoken_values(factset: FactSet) -> list[str]:
    out = set()
    for f in factset.facts:
        for s in f.slots:
            if s.type.value in ("money", "duration", "percent", "count"):
                out.add(spoken_form(s))
    return sorted(out)


def extraction_candidates(spec: ArtifactSpec, factset: FactSet, domain_values: Optional[list[str]] = None) -> list[str]:
    """The recognition grammar the audit uses for this artifact (empty for non-speech kinds)."""
    if registry.get(spec.kind).modality not in SPEECH_MODALITIES:
        return []
    return candidates_for(spec, factset, domain_spoken_values(factset) if domain_values is None else domain_values)


def extraction_cache_path(cache_dir: Path, kind: str, sha256: str, candidates: list[str]) -> Path:
    key = content_hash({"sha": sha256, "kind": kind, "cand": candidates})
    return Path(cache_dir) / "extract" / key[:2] / f"{key}.json"


def cached_extraction(spec: ArtifactSpec, sha256: str, factset: FactSet, cache_dir: Path) -> Optional[Extraction]:
    """What the audit extracted from this file (OCR text, speech transcript...), if the
    extraction cache holds it; never runs an extractor."""
    path = extraction_cache_path(cache_dir, spec.kind, sha256, extraction_candidates(spec, factset))
    if not path.is_file():
        return None
    return Extraction.model_validate_json(path.read_text(encoding="utf-8"))


def extract_cached(spec: ArtifactSpec, file: Path, sha256: str, ctx: ExtractContext,
                   cache_dir: Optional[Path]) -> tuple[Extraction, bool]:
    t = registry.get(spec.kind)
    path = extraction_cache_path(cache_dir, spec.kind, sha256, ctx.candidates) if cache_dir else None
    if path and path.exists():
        return Extraction.model_validate_json(path.read_text(encoding="utf-8")), True
    ex = t.extract(file, ctx)
    if path:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".tmp{os.getpid()}")
        tmp.write_text(ex.model_dump_json(), encoding="utf-8")
        os.replace(tmp, path)
    return ex, False


def check_recoverability(plan: EvidencePlan, factset: FactSet, files: dict[str, tuple[Path, str]],
                         cache_dir: Optional[Path] = None, currency: str = "USD",
                         progress: Optional[Callable[[ArtifactSpec], None]] = None) -> dict:
    """files: artifact id -> (path of the delivered file, sha256). Returns the report dict."""
    by_id = factset.by_id()
    dvalues = domain_spoken_values(factset)
    fact_rows: dict[str, list[dict]] = defaultdict(list)
    artifacts = []
    timings: dict[str, float] = defaultdict(float)
    for spec in plan.artifacts:
        t = registry.get(spec.kind)
        file, sha = files[spec.id]
        cands = extraction_candidates(spec, factset, dvalues)
        t0 = time.perf_counter()
        ex, _ = extract_cached(spec, Path(file), sha, ExtractContext(candidates=cands, workdir=cache_dir), cache_dir)
        timings[t.modality] += time.perf_counter() - t0
        idx = TextIndex(ex.text, currency=currency)
        recovered, missing = [], []
        for m in spec.facts:
            res = match_fact(by_id[m.fact_id], idx, speech=t.modality == "wav")
            fact_rows[m.fact_id].append({"artifact_id": spec.id, "path": spec.path, "kind": spec.kind,
                                         "extractor": ex.extractor, "recovered": res.recovered,
                                         "matched_text": res.matched_text,
                                         "anchors": f"{res.anchors_found}/{res.anchors_needed}",
                                         "missing_values": list(res.missing_values)})
            (recovered if res.recovered else missing).append(m.fact_id)
        violations = []
        carried = set(spec.fact_ids)
        for d in spec.distractors:
            from facts.values import parse_slots  # noqa: PLC0415
            current = [sl for sl in by_id[d.fact_id].slots if sl.name == d.slot] if d.fact_id in carried else []
            for s in parse_slots(d.text):
                for sentence in unhedged_mentions(s, idx, corrected_by=current):
                    violations.append({"fact_id": d.fact_id, "value": d.text, "role": d.role, "text": sentence})
        artifacts.append({"artifact_id": spec.id, "path": spec.path, "kind": spec.kind,
                          "family": t.family, "modality": t.modality, "extractor": ex.extractor,
                          "facts_planned": len(spec.facts), "facts_recovered": len(recovered),
                          "missing": missing, "distractor_violations": violations,
                          "extracted_chars": len(ex.text)})
        if progress:
            progress(spec)

    facts_out = []
    for f in factset.facts:
        rows = fact_rows.get(f.id, [])
        ok = any(r["recovered"] for r in rows)
        facts_out.append({"fact_id": f.id, "statement": f.statement, "recovered": ok,
                          "extractors": sorted({r["extractor"] for r in rows if r["recovered"]}),
                          "carriers": rows})

    def agg(key: str) -> dict:
        out: dict[str, dict] = {}
        for a in artifacts:
            k = a[key]
            o = out.setdefault(k, {"artifacts": 0, "mentions": 0, "mentions_recovered": 0, "extractors": []})
            o["artifacts"] += 1
            o["mentions"] += a["facts_planned"]
            o["mentions_recovered"] += a["facts_recovered"]
            if a["extractor"] not in o["extractors"]:
                o["extractors"].append(a["extractor"])
        for o in out.values():
            o["extractors"].sort()
        return dict(sorted(out.items()))

    n_rec = sum(1 for f in facts_out if f["recovered"])
    summary = {
        "facts_total": len(facts_out),
        "facts_recovered": n_rec,
        "facts_unrecovered": [f["fact_id"] for f in facts_out if not f["recovered"]],
        "artifacts_total": len(artifacts),
        "distractor_violations": sum(len(a["distractor_violations"]) for a in artifacts),
        "by_family": agg("family"),
        "by_kind": agg("kind"),
        "by_modality": agg("modality"),
    }
    return {"schema_version": REPORT_SCHEMA_VERSION, "domain": plan.domain, "variant": plan.variant,
            "plan_hash": plan.hash, "summary": summary, "facts": facts_out, "artifacts": artifacts,
            "_timings": dict(timings)}


def failures(report: dict) -> list[str]:
    """Human-readable reasons a report fails the gate (empty when it passes)."""
    out = []
    carriers = {f["fact_id"]: f for f in report["facts"]}
    for fid in report["summary"]["facts_unrecovered"]:
        rows = carriers[fid]["carriers"]
        where = ", ".join(f"{r['path']} ({r['extractor']}; values missing: {r['missing_values'] or '-'}; "
                          f"anchors {r['anchors']})" for r in rows) or "no artifact planned"
        out.append(f"fact {fid} not recoverable: {carriers[fid]['statement']!r}; meant to be carried by {where}")
    for a in report["artifacts"]:
        for v in a["distractor_violations"]:
            out.append(f"{a['path']}: {v['role']} value {v['value']} of fact {v['fact_id']} presented as current: "
                       f"{v['text']!r}")
    return out


def write_report(report: dict, path: Path) -> None:
    data = {k: v for k, v in report.items() if not k.startswith("_")}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
