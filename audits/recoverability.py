"""Recoverability: every planted fact must be readable from the delivered files themselves.

Each rendered file goes through its kind's extractor (text layer, parser, OCR for pixels,
speech recognition for audio; never the text the renderer was given), then:

- every fact the plan says a file carries authoritatively (role "carrier") is matched against
  that file's extraction (`facts.match`): the gate;
- a fact without a carrier is recovered through its multi-hop route (`Route`): the key file
  must show the route's code next to the fact's own terms, the table file a line with the code
  and the fact's value; both proven on the delivered files, and the composed value is the
  fact's value;
- echoes, partial mentions and cases are matched too and reported (they are not the fact's
  record of reference, so they do not gate);
- every wrong or old value must be present where the plan put it and resolved the way the plan
  says, proven from the files: "hedge" and "correction" (a hedge marker in its sentence, or the
  current value later in the same file: `audits.match.unhedged_mentions`); "date" and
  "version" (the file's own date is visible in it; every file that states the current value is
  dated after it, and at least one of them shows that later date); "authority" (a carrier of the fact shows an owner's
  approval); "none" (contested: recorded, nothing to prove).

Every recovered carrier is also checked for its values' bounds (`facts.bounds`): where it
says a value of the fact, it says it as the fact does, a cap as a cap ("up to", "no more
than"), a floor as a floor, a per-unit value per unit, an exact value without "up to" or "at
least" (`summary.qualifier_mismatches`: the count and examples; each carrier row's
`qualifier_lost`; not on recognised speech, whose free words are guesses). It is a measure,
not a gate: the realiser and the writers keep the bound before they write, so the count on
the built-in domains is 0.

The report has a `summary` (facts_total, facts_recovered, per-family and per-kind figures)
plus per-fact, per-artifact and per-route detail. The text comes from `audits.extraction`
(cached, parallel); this module only matches.
"""
from __future__ import annotations

import datetime as dt
import json
import re
from collections import defaultdict
from pathlib import Path
from typing import Optional

from facts.match import TextIndex, code_pattern, key_shows_code, match_fact, normalise_text, qualifier_mismatches
from facts.models import FactSet, SlotType
from facts.surface import surface_forms
from facts.values import figure_slots
from transforms import registry
from transforms.base import Extraction
from transforms.planner import EvidencePlan

from .match import unhedged_mentions
from .readings import text_index

REPORT_SCHEMA_VERSION = "2.1"
APPROVAL = re.compile(r"\b(approved by|approved figures|signed off|approved:|policy owner)\b", re.I)
VALUE_TYPES = (SlotType.money, SlotType.duration, SlotType.count, SlotType.percent)
HEARD = ("wav", "mp4")  # modalities read by speech recognition


def date_forms(day: dt.date) -> list[str]:
    """How renderers print a record's date (ISO, "March 4, 2026", "Mar 4, 2026", "4 Mar 2026",
    "4 March 2026", e-mail's "Wed, 4 Mar 2026")."""
    return [day.isoformat(), f"{day:%B} {day.day}, {day.year}", f"{day:%b} {day.day}, {day.year}",
            f"{day.day} {day:%b} {day.year}", f"{day.day} {day:%B} {day.year}"]


def date_visible(text: str, day: dt.date) -> bool:
    return any(f in text for f in date_forms(day))


def check_recoverability(plan: EvidencePlan, factset: FactSet, extractions: dict[str, Extraction],
                         currency: str = "USD", values_cache: Optional[Path] = None) -> dict:
    """extractions: artifact id -> the text extracted from the delivered file
    (audits.extraction); `values_cache`: where the values of each text are kept
    (`audits.readings`; None: found here). Returns the report dict."""
    by_id = factset.by_id()
    specs = {a.id: a for a in plan.artifacts}
    idx = {a.id: text_index(extractions[a.id].text, currency, values_cache) for a in plan.artifacts}
    fact_rows: dict[str, list[dict]] = defaultdict(list)
    mention_rows: dict[str, list[dict]] = defaultdict(list)
    current_in: dict[str, list[str]] = defaultdict(list)  # files that state the current value in full
    for a in plan.artifacts:
        for m in a.facts:
            if m.role in ("carrier", "echo"):
                current_in[m.fact_id].append(a.id)

    artifacts = []
    qualifier_rows: list[dict] = []
    for spec in plan.artifacts:
        t = registry.get(spec.kind)
        ex = extractions[spec.id]
        ix = idx[spec.id]
        speech = t.modality == "wav"
        recovered, missing = [], []
        for m in spec.facts:
            if m.role == "hop":
                continue
            res = match_fact(by_id[m.fact_id], ix, speech=speech)
            row = {"artifact_id": spec.id, "path": spec.path, "kind": spec.kind, "role": m.role,
                   "extractor": ex.extractor, "recovered": res.recovered, "matched_text": res.matched_text,
                   "anchors": f"{res.anchors_found}/{res.anchors_needed}", "missing_values": list(res.missing_values)}
            if m.role == "carrier":
                # the value's bound (a cap, a floor, per unit, exact) said where the value is; not
                # on recognised speech, whose free words are guesses ("capped at" heard as "i read")
                lost = qualifier_mismatches(by_id[m.fact_id], ix) if res.recovered and t.modality not in HEARD \
                    else []
                row["qualifier_lost"] = lost[:3]
                qualifier_rows += [{"fact_id": m.fact_id, "path": spec.path, "text": t} for t in lost]
                fact_rows[m.fact_id].append(row)
                (recovered if res.recovered else missing).append(m.fact_id)
            else:
                mention_rows[m.fact_id].append(row)
        violations = []
        current_here = {m.fact_id for m in spec.facts if m.role in ("carrier", "echo")}
        for d in spec.distractors:
            current = [sl for sl in by_id[d.fact_id].slots if sl.name == d.slot] if d.fact_id in current_here else []
            for problem in _resolution_problems(d, spec, current, ix, idx, specs, current_in, extractions, currency,
                                                of=by_id[d.fact_id], speech=speech):
                violations.append({"fact_id": d.fact_id, "value": d.text, "role": d.role,
                                   "resolution": d.resolution, "text": problem})
        artifacts.append({"artifact_id": spec.id, "path": spec.path, "kind": spec.kind,
                          "family": t.family, "modality": t.modality, "extractor": ex.extractor,
                          "facts_planned": len(spec.fact_ids), "facts_recovered": len(recovered),
                          "mentions_planned": len(spec.facts) - len(spec.fact_ids),
                          "missing": missing, "distractor_violations": violations,
                          "extracted_chars": len(ex.text), "extracted_tokens": len(ex.text.split())})

    routes_out = []
    route_ok: dict[str, bool] = {}
    for r in plan.routes:
        res = prove_route(r, by_id[r.fact_id], idx, specs, currency)
        routes_out.append(res)
        route_ok[r.fact_id] = route_ok.get(r.fact_id, False) or res["recovered"]

    facts_out = []
    for f in factset.facts:
        rows = fact_rows.get(f.id, [])
        direct = any(r["recovered"] for r in rows)
        routed = route_ok.get(f.id, False)
        extractors = sorted({r["extractor"] for r in rows if r["recovered"]})
        if routed:
            extractors = sorted(set(extractors) | {"route"})
        facts_out.append({"fact_id": f.id, "statement": f.statement, "recovered": direct or routed,
                          "via": "carrier" if direct else "route" if routed else "none",
                          "extractors": extractors, "carriers": rows,
                          "mentions": mention_rows.get(f.id, [])})

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
    echo_rows = [r for rows in mention_rows.values() for r in rows if r["role"] == "echo"]
    summary = {
        "facts_total": len(facts_out),
        "facts_recovered": n_rec,
        "facts_unrecovered": [f["fact_id"] for f in facts_out if not f["recovered"]],
        "facts_via_route": sum(1 for f in facts_out if f["via"] == "route"),
        "routes": len(routes_out),
        "routes_proven": sum(1 for r in routes_out if r["recovered"]),
        "echoes": len(echo_rows),
        "echoes_recovered": sum(1 for r in echo_rows if r["recovered"]),
        "artifacts_total": len(artifacts),
        "distractor_violations": sum(len(a["distractor_violations"]) for a in artifacts),
        "qualifier_mismatches": {"count": len(qualifier_rows), "examples": qualifier_rows[:20]},
        "by_family": agg("family"),
        "by_kind": agg("kind"),
        "by_modality": agg("modality"),
    }
    return {"schema_version": REPORT_SCHEMA_VERSION, "domain": plan.domain, "variant": plan.variant,
            "plan_hash": plan.hash, "summary": summary, "facts": facts_out, "artifacts": artifacts,
            "routes": routes_out}


def _day(spec) -> dt.date:
    return dt.date.fromisoformat(spec.date[:10])


def _resolution_problems(d, spec, current, ix: TextIndex, idx: dict, specs: dict, current_in: dict,
                         extractions: dict, currency: str, of=None, speech: bool = False) -> list[str]:
    """Why the wrong/old value `d` in `spec` is not resolved the way the plan says (empty when
    it is). A mention counts only where it is said of the fact `of` (its anchors near it)."""
    slots = figure_slots(d.text, currency=currency)
    if d.resolution in ("hedge", "correction"):
        return [s for sl in slots for s in unhedged_mentions(sl, ix, corrected_by=current, of=of, speech=speech)]
    out = []
    if not any(ix.occurrences(sl) for sl in slots):
        out.append(f"the {d.role} value {d.text} is not in the file")
    if d.resolution in ("date", "version"):
        day = _day(spec)
        text = extractions[spec.id].text
        if not date_visible(text, day):
            out.append(f"the file's date {day.isoformat()} is not visible in it")
        later_visible = False
        for aid in current_in.get(d.fact_id, []):
            other = specs[aid]
            if _day(other) <= day:
                out.append(f"{other.path} states the current value but is dated {other.date}, not after {day}")
            elif date_visible(extractions[aid].text, _day(other)):
                later_visible = True
        if current_in.get(d.fact_id) and not later_visible:
            out.append("no file that states the current value shows a date after this file's")
    elif d.resolution == "authority":
        approved = [aid for aid in current_in.get(d.fact_id, [])
                    if any(m.fact_id == d.fact_id and m.role == "carrier" for m in specs[aid].facts)
                    and APPROVAL.search(extractions[aid].text)]
        if not approved:
            out.append("no carrier of the fact shows an owner's approval")
    return out


def prove_route(r, fact, idx: dict, specs: dict, currency: str) -> dict:
    """Both hops on the delivered files: the key file shows the code within a window of at
    least half of the fact's terms (those the table's label does not supply); the table file
    has a line with the code and one of the value's surface forms."""
    key_id = next((h.artifact_id for h in r.hops if h.part == "key"), "")
    table_id = next((h.artifact_id for h in r.hops if h.part == "table"), "")
    slot = next((s for s in fact.slots if s.type in VALUE_TYPES), None)
    out = {"route_id": r.id, "fact_id": r.fact_id, "code": r.code, "key": specs[key_id].path if key_id in specs else "",
           "table": specs[table_id].path if table_id in specs else "", "key_ok": False, "table_ok": False,
           "value": slot.text if slot else "", "recovered": False}
    label = r.label.lower()
    code_re = code_pattern(r.code)
    if key_id in idx:
        out["key_ok"] = key_shows_code(fact, r.code, r.label, idx[key_id])
    if table_id in idx and slot is not None:
        ix = idx[table_id]
        # the index holds normalised text ("7–10" as "7-10"): so must the forms
        forms = [normalise_text(f).lower() for f in surface_forms(slot)]
        for line in ix.text.lower().splitlines():
            if code_re.search(line.upper()) and any(_form_in(f, line) for f in forms) and \
                    (not label or label[:5] in line):
                out["table_ok"] = True
                break
    out["recovered"] = out["key_ok"] and out["table_ok"]
    return out


def _form_in(form: str, line: str) -> bool:
    return re.search(r"(?<![\w$.,])" + re.escape(form) + r"(?![\w%]|[.,]\d)", line) is not None


def failures(report: dict) -> list[str]:
    """Human-readable reasons a report fails the gate (empty when it passes)."""
    out = []
    facts = {f["fact_id"]: f for f in report["facts"]}
    routes = defaultdict(list)
    for r in report.get("routes", []):
        routes[r["fact_id"]].append(r)
    for fid in report["summary"]["facts_unrecovered"]:
        rows = facts[fid]["carriers"]
        where = ", ".join(f"{r['path']} ({r['extractor']}; values missing: {r['missing_values'] or '-'}; "
                          f"anchors {r['anchors']})" for r in rows)
        for r in routes.get(fid, []):
            where += (", " if where else "") + (f"route {r['code']}: key {r['key']} "
                                                f"{'ok' if r['key_ok'] else 'does not show the code with the fact'}, "
                                                f"table {r['table']} "
                                                f"{'ok' if r['table_ok'] else 'has no line with the code and ' + r['value']}")
        out.append(f"fact {fid} not recoverable: {facts[fid]['statement']!r}; meant to be carried by "
                   f"{where or 'no artifact planned'}")
    for a in report["artifacts"]:
        for v in a["distractor_violations"]:
            if v.get("resolution") in ("hedge", "correction", None):
                out.append(f"{a['path']}: {v['role']} value {v['value']} of fact {v['fact_id']} presented as current: "
                           f"{v['text']!r}")
            else:
                out.append(f"{a['path']}: {v['role']} value {v['value']} of fact {v['fact_id']} is not resolved by "
                           f"{v['resolution']}: {v['text']}")
    return out


def write_report(report: dict, path: Path) -> None:
    data = {k: v for k, v in report.items() if not k.startswith("_")}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
