"""Recoverability: every planted fact must be readable from the delivered file itself.

Each rendered file goes through its kind's extractor (text layer, parser, OCR for pixels,
speech recognition for audio; never the text the renderer was given), then every fact the
plan says the file carries is matched against the extraction (audits.match). Distractor
and superseded values must only appear hedged. The report has a `summary` (facts_total,
facts_recovered, per-family and per-kind figures) plus per-fact and per-artifact detail.

The text comes from `audits.extraction` (cached, parallel); this module only matches.
"""
from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

from facts.match import TextIndex, match_fact
from facts.models import FactSet
from transforms import registry
from transforms.base import Extraction
from transforms.planner import EvidencePlan

from .match import unhedged_mentions

REPORT_SCHEMA_VERSION = "1.0"


def check_recoverability(plan: EvidencePlan, factset: FactSet, extractions: dict[str, Extraction],
                         currency: str = "USD") -> dict:
    """extractions: artifact id -> the text extracted from the delivered file
    (audits.extraction). Returns the report dict."""
    by_id = factset.by_id()
    fact_rows: dict[str, list[dict]] = defaultdict(list)
    artifacts = []
    for spec in plan.artifacts:
        t = registry.get(spec.kind)
        ex = extractions[spec.id]
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
                          "extracted_chars": len(ex.text), "extracted_tokens": len(ex.text.split())})

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
            "plan_hash": plan.hash, "summary": summary, "facts": facts_out, "artifacts": artifacts}


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
