"""Difficulty report: how hard a bundle is for a reader, measured on the delivered files.

Everything here is computed from what the recoverability extractors read out of the
delivered files (text layer, parsers, OCR, speech recognition; `audits.extraction`), plus the
plan for what each file was meant to hold, and written to `reports/difficulty.json`
(`factforge report BUNDLE` prints it). Nothing gates on it; the figures are what a benchmark
designer compares against the reference (benchmarks/bench_evidence.py).

Measures:
- **volume**: files and whitespace tokens of extracted text, per family and kind;
- **haystack**: the share of conversational files (conversations family, calls and
  voicemail) that carry no fact in any role, and the same share measured on the text: files in
  which no fact of the domain is recovered;
- **shapes**: messages per e-mail thread (attribution lines in the delivered message),
  threads and messages per team-chat capture, minutes per meeting transcript;
- **carriers per fact**: files in which the matcher (`facts.match`) recovers the fact (a fact
  without a value: among the files the plan names it in), and files the plan names the fact
  in, in any role (carrier, echo, partial, case, hop, wrong or
  old value);
- **wrong values**: planned distractor and superseded mentions, the share that sits in a
  different file from every authoritative carrier of the fact (separation), and the share
  whose sentence carries an explicit hedge marker (`transforms.writers.HEDGE_MARKERS`);
- **multi-hop**: facts whose value only follows from combining files (the plan's routes),
  and value facts that no single file yields to the matcher;
- **shallow reader**: the share of facts whose statement occurs verbatim in some file, the
  share with any run of six words of the statement verbatim in some file, and the share of
  value facts found by a topic word (a content word of the fact's section heading) and the
  value on one line of some file; and the share of value facts a lexical retrieval reader
  answers right (`audits.readers`: BM25 over sentence windows, the value of the best window),
  over the delivered files and over the policy text alone;
- **deep reader**: the share of value facts a careful reader gets right (`deep_reader`: the
  fact recovered by the matcher, every wrong or old value of it resolved the way the files
  show); and the share of value facts whose wrong or old values stand in at least as many
  files as the files that state the current value (stale values that outvote the truth).

Tokens are lower-cased words, numbers and amounts. "Verbatim" and "6-word run" read runs the
way the lints do (`audits.language.phrases`, one definition of a run for the project): line
wrapping, case and punctuation do not hide a copy, but a run does not cross a sentence's end,
a table cell or a heading (a schedule's product header followed by its first row's label is no
copy of a sentence), and a run made only of one catalog label's words ("cash deposit fee above
the free", with no value and no word of the rule) names the thing without telling the fact.
"""
from __future__ import annotations

import json
import re
import statistics
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Optional

from facts.match import TextIndex, anchor_re, content_words, match_fact, sentence_bounds
from facts.models import Fact, FactSet, SlotType
from facts.surface import surface_forms
from facts.values import figure_slots
from transforms import registry
from transforms.base import Extraction
from transforms.planner import EvidencePlan
from transforms.writers import HEDGE_MARKERS

from . import language as L
from . import readers
from .parallel import map_files
from .readings import text_index

REPORT_SCHEMA_VERSION = "1.2"
RUN = 6
CONVERSATIONAL_KINDS = {"recordings/call_audio", "recordings/voicemail"}
VALUE_TYPES = (SlotType.money, SlotType.duration, SlotType.count, SlotType.percent)
# Section-heading words that name no topic (a reader searching for them finds everything).
_GENERIC = set("""policy policies rules rule general overview basics catalog catalogue schedule table terms
conditions section notes note guide guidelines procedures procedure process handling standard standards
information details list summary other misc miscellaneous faq questions""".split())
_ATTRIBUTION = re.compile(r"^[> ]*On .{6,160} wrote:\s*$", re.M)
_VTT_TIME = re.compile(r"(\d+):(\d\d):(\d\d)\.(\d{3})\s*-->\s*(\d+):(\d\d):(\d\d)\.(\d{3})")


def topic_words(fact: Fact, brand: frozenset[str] = frozenset()) -> list[str]:
    """Content words of the fact's own section heading (plural 's' dropped), without words
    that name no topic ("policy", "rules", "catalog") and without the brand's own words (the
    company name is on every letterhead: searching for it finds everything)."""
    heading = fact.section[-1] if fact.section else ""
    out = []
    for w in content_words(heading):
        w = w.strip("'-")
        if w in _GENERIC or len(w) < 3 or w in brand:
            continue
        out.append(w[:-1] if w.endswith("s") and len(w) > 4 else w)
    return list(dict.fromkeys(out))


def _is_value_fact(f: Fact) -> bool:
    return any(s.type in VALUE_TYPES for s in f.slots)


# --- file shapes ----------------------------------------------------------------------------
def email_messages(text: str) -> int:
    return len(_ATTRIBUTION.findall(text)) + 1


def _team_chat_shape(path: Path) -> Optional[tuple[int, int]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    msgs = data.get("messages", []) if isinstance(data, dict) else []
    threads = sum(1 for m in msgs if isinstance(m, dict) and m.get("thread_ts") in (None, m.get("ts")))
    return threads, len(msgs)


def _meeting_minutes(path: Path) -> Optional[float]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return None
    ends = [int(m[4]) * 3600 + int(m[5]) * 60 + int(m[6]) + int(m[7]) / 1000 for m in _VTT_TIME.findall(text)]
    return round(max(ends) / 60, 2) if ends else None


def _dist(values: list[float]) -> dict:
    if not values:
        return {"n": 0}
    return {"n": len(values), "min": min(values), "median": statistics.median(values), "max": max(values),
            "mean": round(statistics.fmean(values), 2)}


# --- the report -------------------------------------------------------------------------------
def difficulty_report(plan: EvidencePlan, factset: FactSet, extractions: dict[str, Extraction],
                      files: Optional[dict[str, Path]] = None, currency: str = "USD",
                      brand_terms: Iterable[str] = (), pool=None, scratch: Optional[Path] = None,
                      values_cache: Optional[Path] = None, policy_texts: Iterable[str] = (),
                      recoverability: Optional[dict] = None) -> dict:
    """`extractions`: artifact id -> text read from the delivered file; `files`: artifact id ->
    the delivered file (for shapes read from the file's structure: team-chat threads, meeting
    cue times); `brand_terms`: the company's and products' names (not topic words). Each file
    is read once (`_read_file`), in chunks on `pool` (`audits.parallel`); the report does not
    depend on it. `values_cache`: where the values of each text are kept (`audits.readings`);
    `policy_texts`: the policy files' text, which the shallow reader also reads alone;
    `recoverability`: the bundle's recoverability report, which the deep reader reads (none:
    no deep reader)."""
    files = files or {}
    brand = frozenset(w for t in brand_terms for w in content_words(t))
    facts = factset.facts
    specs = plan.artifacts
    texts = {a.id: extractions[a.id].text for a in specs}
    value_facts = [f for f in facts if _is_value_fact(f)]
    ctx = _reading_context(facts, value_facts, brand, currency)
    ctx["values_cache"] = str(values_cache) if values_cache is not None else None
    items = [(a, texts[a.id]) for a in specs]
    read = dict(zip((a.id for a in specs), map_files(_read_file, ctx, items, [len(t) for _, t in items], pool,
                                                     scratch)))

    per_family, per_kind = _volume(specs, read)

    # which facts each file yields to the matcher ------------------------------------------
    recovered_in: dict[str, set[str]] = defaultdict(set)
    for a in specs:
        for fid in read[a.id].recovered:
            recovered_in[fid].add(a.id)

    named_in, carriers, roles = _plan_roles(plan)

    # haystack -------------------------------------------------------------------------------
    conv = [a for a in specs if a.kind.split("/")[0] == "conversations" or a.kind in CONVERSATIONAL_KINDS]
    conv_free_plan = [a for a in conv if not a.facts and not a.distractors]
    conv_free_text = [a for a in conv if not any(a.id in s for s in recovered_in.values())]
    bearing_text = {aid for s in recovered_in.values() for aid in s}

    email_len, chats, meetings = _shapes(specs, texts, files)

    wrong_total, separated, hedged, by_role = _wrong_values(specs, read, carriers)

    # shallow reader ---------------------------------------------------------------------------
    verbatim = {fid for r in read.values() for fid in r.whole}
    run6 = {fid for r in read.values() for fid in r.runs}
    topic_hits = {fid for r in read.values() for fid in r.topic}
    routes = list(getattr(plan, "routes", []) or [])
    route_ids = {r.fact_id for r in routes}
    single_file_none = [f.id for f in value_facts if not recovered_in.get(f.id)]

    bundle_answers = {a.fact_id: a for a in readers.read(readers.Index(texts[a.id] for a in specs), facts, currency)}
    policy_answers = readers.read(readers.Index(policy_texts), facts, currency)

    value_ids = {f.id for f in value_facts}
    deep = deep_reader(recoverability, value_facts) if recoverability is not None else None
    rivals = _rival_files(specs)
    outvoted = [f.id for f in value_facts if rivals.get(f.id) and len(rivals[f.id]) >= len(recovered_in.get(f.id, ()))]

    n_facts = max(len(facts), 1)
    n_value = max(len(value_facts), 1)
    files_per_fact_plan = [len(named_in.get(f.id, ())) for f in facts]
    recovered_counts = [len(recovered_in.get(f.id, ())) for f in facts]
    summary = {
        "files": len(specs),
        "tokens": sum(v["tokens"] for v in per_family.values()),
        "facts": len(facts),
        "value_facts": len(value_facts),
        "conversational_files": len(conv),
        "conversational_fact_free_share": round(len(conv_free_plan) / max(len(conv), 1), 4),
        "conversational_fact_free_share_text": round(len(conv_free_text) / max(len(conv), 1), 4),
        "fact_bearing_share_text": round(len(bearing_text) / max(len(specs), 1), 4),
        "files_per_fact_plan": round(sum(files_per_fact_plan) / n_facts, 3),
        "files_per_fact_text": round(sum(recovered_counts) / n_facts, 3),
        "carriers_per_fact": round(sum(len(carriers.get(f.id, ())) for f in facts) / n_facts, 3),
        "roles": dict(sorted(roles.items())),
        "wrong_value_mentions": wrong_total,
        "wrong_value_separated_share": round(separated / wrong_total, 4) if wrong_total else None,
        "wrong_value_hedged_share": round(hedged / wrong_total, 4) if wrong_total else None,
        "multi_hop_facts": len(route_ids),
        "multi_hop_share_of_value_facts": round(len(route_ids & {f.id for f in value_facts}) / n_value, 4),
        "value_facts_no_single_file": len(single_file_none),
        "statement_verbatim_share": round(len(verbatim) / n_facts, 4),
        "six_word_run_share": round(len(run6) / n_facts, 4),
        "topic_word_and_value_on_one_line_share": round(len(topic_hits) / n_value, 4),
        "shallow_reader_accuracy": readers.accuracy(list(bundle_answers.values())),
        "shallow_reader_policy_accuracy": readers.accuracy(policy_answers),
        "shallow_majority_accuracy": readers.accuracy(list(bundle_answers.values()), majority=True),
        "shallow_majority_policy_accuracy": readers.accuracy(policy_answers, majority=True),
        "deep_reader_accuracy": round(sum(deep.values()) / n_value, 4) if deep is not None else None,
        "stale_value_outvotes_share": round(len(outvoted) / n_value, 4),
        "email_thread_messages": _dist(email_len),
        "team_chat_threads": _dist([c[0] for c in chats]),
        "team_chat_messages": _dist([c[1] for c in chats]),
        "meeting_minutes": _dist(meetings),
    }
    return {"schema_version": REPORT_SCHEMA_VERSION, "domain": plan.domain, "variant": plan.variant,
            "plan_hash": plan.hash, "summary": summary,
            "by_family": dict(sorted(per_family.items())), "by_kind": dict(sorted(per_kind.items())),
            "wrong_values_by_role": dict(sorted(by_role.items())),
            "facts": {f.id: {"files_named": len(named_in.get(f.id, ())),
                             "files_recovered": len(recovered_in.get(f.id, ())),
                             "verbatim": f.id in verbatim, "six_word_run": f.id in run6,
                             "topic_value_line": f.id in topic_hits, "route": f.id in route_ids,
                             **({"shallow_answer": bundle_answers[f.id].answer,
                                 "shallow_correct": bundle_answers[f.id].correct,
                                 "shallow_majority_answer": bundle_answers[f.id].majority,
                                 "shallow_majority_correct": bundle_answers[f.id].majority_correct}
                                if f.id in bundle_answers else {}),
                             **({"deep_correct": deep[f.id]} if deep is not None and f.id in deep else {}),
                             **({"files_with_rival_value": len(rivals.get(f.id, ()))} if f.id in value_ids else {})}
                      for f in facts}}


def _volume(specs, read: dict) -> tuple[dict[str, dict], dict[str, dict]]:
    """Files and tokens per family and per kind."""
    per_family: dict[str, dict] = defaultdict(lambda: {"files": 0, "tokens": 0})
    per_kind: dict[str, dict] = defaultdict(lambda: {"files": 0, "tokens": 0})
    for a in specs:
        n = read[a.id].tokens
        fam = a.kind.split("/")[0]
        for d, k in ((per_family, fam), (per_kind, a.kind)):
            d[k]["files"] += 1
            d[k]["tokens"] += n
    return per_family, per_kind


def _plan_roles(plan: EvidencePlan) -> tuple[dict[str, set[str]], dict[str, set[str]], dict[str, int]]:
    """Per fact the files the plan names it in (routes' hops included) and its carriers; the
    count of mentions per role."""
    specs = plan.artifacts
    named_in: dict[str, set[str]] = defaultdict(set)
    carriers: dict[str, set[str]] = defaultdict(set)
    roles: dict[str, int] = defaultdict(int)
    for a in specs:
        for m in a.facts:
            if m.role == "carrier":
                carriers[m.fact_id].add(a.id)
            named_in[m.fact_id].add(a.id)
            roles[m.role] += 1
        for d in a.distractors:
            named_in[d.fact_id].add(a.id)
            roles[d.role] += 1
    for r in getattr(plan, "routes", []) or []:
        for hop in r.hops:
            named_in[r.fact_id].add(hop.artifact_id)
    return named_in, carriers, roles


def deep_reader(recoverability: dict, value_facts: list[Fact]) -> dict[str, bool]:
    """The careful reader's verdict per value fact: right when recoverability finds the fact in
    a carrier of its own (or through its multi-hop route) with `facts.match`, and every wrong or
    old value stated of it is resolved the way the files show (a hedge or a correction beside
    it, a later date, a newer version, an owner's approval of the current value:
    `audits.recoverability`): what reading everything, and weighing it, yields."""
    recovered = {r["fact_id"]: r["recovered"] for r in recoverability.get("facts", [])}
    unresolved = {v["fact_id"] for a in recoverability.get("artifacts", []) for v in a.get("distractor_violations", [])}
    return {f.id: bool(recovered.get(f.id)) and f.id not in unresolved for f in value_facts}


def _rival_files(specs) -> dict[str, set[str]]:
    """Per fact, the files that state a wrong or old value of it (the plan's distractors)."""
    out: dict[str, set[str]] = defaultdict(set)
    for a in specs:
        for d in a.distractors:
            out[d.fact_id].add(a.id)
    return out


def _shapes(specs, texts: dict[str, str], files: dict[str, Path]) -> tuple[list, list, list]:
    """Messages per email thread, (threads, messages) per team chat, minutes per meeting."""
    email_len = [email_messages(texts[a.id]) for a in specs if a.kind == "conversations/email_thread"]
    chats = [_team_chat_shape(files[a.id]) for a in specs if a.kind == "conversations/team_chat" and a.id in files]
    chats = [c for c in chats if c]
    meetings = [_meeting_minutes(files[a.id]) for a in specs
                if a.kind == "conversations/meeting_transcript" and a.id in files]
    meetings = [m for m in meetings if m is not None]
    return email_len, chats, meetings


def _wrong_values(specs, read: dict, carriers: dict[str, set[str]]) -> tuple[int, int, int, dict[str, dict]]:
    """Planned wrong values: how many, how many outside their fact's carriers, how many
    hedged; the same per distractor role."""
    wrong_total = separated = hedged = 0
    by_role: dict[str, dict] = defaultdict(lambda: {"mentions": 0, "separated": 0, "hedged": 0})
    for a in specs:
        for d, h in zip(a.distractors, read[a.id].hedged):
            wrong_total += 1
            sep = a.id not in carriers.get(d.fact_id, set())
            separated += sep
            hedged += h
            r = by_role[d.role]
            r["mentions"] += 1
            r["separated"] += sep
            r["hedged"] += h
    return wrong_total, separated, hedged, by_role


@dataclass(frozen=True)
class FileReading:
    """What one file shows (`_read_file`)."""
    tokens: int
    recovered: frozenset      # facts the matcher recovers here, told from their siblings
    hedged: tuple             # per planned wrong value: its sentence carries a hedge marker
    whole: frozenset          # facts whose whole statement occurs here verbatim
    runs: frozenset           # facts with a run of RUN statement tokens here
    topic: frozenset          # value facts with a line holding a topic word and the value


def _reading_context(facts: list[Fact], value_facts: list[Fact], brand: frozenset, currency: str) -> dict:
    """Everything a file's reading needs, computed once per report (and shared with the pool's
    workers once per step)."""
    by_value: dict[tuple, list[Fact]] = defaultdict(list)
    valueless: list[Fact] = []
    for f in facts:
        numeric = [s for s in f.slots if s.type in (*VALUE_TYPES, SlotType.date)]
        if numeric:
            by_value[numeric[0].key()].append(f)
        else:
            valueless.append(f)
    stems = {f.id: [_stem_text(anchor_re(x).pattern) for x in f.anchors if x.strip()] for f in facts}
    grams: dict[tuple, set[str]] = defaultdict(set)
    full: dict[str, tuple] = {}
    names = L.name_words(facts)
    for f in facts:
        toks = tuple(L.tokens(f.statement))
        full[f.id] = toks
        n = min(RUN, len(toks))
        for i in range(len(toks) - n + 1 if n else 0):
            g = toks[i:i + n]
            if not L.only_names(g, names):  # a run that only names a catalog label says nothing of the fact
                grams[g].add(f.id)
    topics = {f.id: topic_words(f, brand) for f in value_facts}
    by_topic: dict[str, list[str]] = defaultdict(list)
    for fid, ws in topics.items():
        for w in ws:
            by_topic[w].append(fid)
    return {"currency": currency, "by_value": dict(by_value), "valueless": valueless,
            "stems": stems, "need": {f.id: (max(1, -(-len(stems[f.id]) // 2)) if stems[f.id] else 0) for f in facts},
            "conds": {f.id: _condition_terms(f) for f in facts},
            "grams": dict(grams), "full": full, "firsts": {g[0] for g in grams},
            "sizes": sorted({min(RUN, len(t)) for t in full.values() if t}),
            "forms": {f.id: value_patterns(f) for f in value_facts}, "by_topic": dict(by_topic),
            "topics": {fid: frozenset(ws) for fid, ws in topics.items()},
            "keys": {f.id: {sl.key() for sl in f.slots if sl.type in VALUE_TYPES} for f in value_facts}}


def _read_file(ctx: dict, spec, text: str) -> FileReading:
    ix = text_index(text, ctx["currency"], ctx.get("values_cache"))
    low = ix.low
    speech = registry.get(spec.kind).modality == "wav"
    planned = {m.fact_id for m in spec.facts} | {d.fact_id for d in spec.distractors}
    cands = {f.id: f for key in ix.spans for f in ctx["by_value"].get(key, ())}
    for f in ctx["valueless"]:  # facts without a value: matched in the files the plan names them in
        if f.id in planned:
            cands[f.id] = f
    recovered = set()
    stem_in: dict[str, bool] = {}  # facts share anchor stems: each is looked up once per file

    def has_stem(p: str) -> bool:
        if p not in stem_in:
            stem_in[p] = p in low
        return stem_in[p]

    for f in cands.values():
        need = ctx["need"][f.id]
        # cheap filter first: the matcher needs at least one anchor stem somewhere in the file
        if need and not speech and sum(1 for p in ctx["stems"][f.id] if has_stem(p)) < need:
            continue
        m = match_fact(f, ix, speech=speech)
        # and the fact is told from its siblings there: its condition terms (a catalog cell's
        # row and column, a tier) next to the value, not a sibling's equal figure nearby
        if m.recovered and (speech or all(c in low[m.span[0]:m.span[1]] for c in ctx["conds"][f.id])):
            recovered.add(f.id)
    hedged = tuple(_hedged_mention(d.text, ix, ctx["currency"]) for d in spec.distractors)
    whole, runs = _verbatim_in(text, ctx)
    return FileReading(len(text.split()), frozenset(recovered), hedged, frozenset(whole), frozenset(runs),
                       frozenset(_topic_value_lines_in(ix, ctx)))


def _stem_text(pattern: str) -> str:
    """The literal text of an anchor pattern (`facts.match.anchor_re`), for a substring test."""
    return re.sub(r"\\(.)", r"\1", pattern.replace("(?<![a-z0-9])", ""))


def _hedged_mention(value_text: str, ix: TextIndex, currency: str) -> bool:
    """Whether some occurrence of the wrong value in the file sits in a sentence with a hedge
    marker (an explicit "I thought", "no longer", "draft"...)."""
    for s in figure_slots(value_text, currency=currency):
        for a, b in ix.occurrences(s):
            lo, hi = sentence_bounds(ix.text, a, b)
            sent = " ".join(ix.low[lo:hi].split())
            if any(h in sent for h in HEDGE_MARKERS):
                return True
    return False


def _verbatim_in(text: str, ctx: dict) -> tuple[set[str], set[str]]:
    """(facts whose whole statement occurs verbatim in `text`, facts with some run of `RUN`
    consecutive statement words verbatim in it), runs read as the lints read them: within a
    phrase (`audits.language.phrases`: not across a sentence's end, a table cell or a heading),
    and not a run that only names a catalog label."""
    grams, full, firsts = ctx["grams"], ctx["full"], ctx["firsts"]
    run, whole = set(), set()
    for toks in L.phrases(text):
        joined = None
        for n in ctx["sizes"]:
            for i in range(len(toks) - n + 1):
                if toks[i] not in firsts:
                    continue
                hit = grams.get(tuple(toks[i:i + n]))
                if not hit:
                    continue
                for fid in hit:
                    if min(RUN, len(full[fid])) != n:
                        continue
                    run.add(fid)
                    if fid not in whole:
                        joined = joined if joined is not None else " " + " ".join(toks) + " "
                        if " " + " ".join(full[fid]) + " " in joined:
                            whole.add(fid)
    return whole, run


def value_patterns(f: Fact) -> list[re.Pattern]:
    """What a shallow reader searches for a fact's value: each surface form of each value
    slot; a bare count ("4", "three") only with the word the statement puts after it ("4
    tiers"), or a search for the digit would find every date and phone number."""
    pats = []
    low = f.statement.lower()
    for s in f.slots:
        if s.type not in VALUE_TYPES:
            continue
        tail = ""
        if s.type == SlotType.count and not s.unit and s.text:
            i = low.find(s.text.lower())
            nxt = re.match(r"\s+([a-z][a-z'-]+)", low[i + len(s.text):]) if i >= 0 else None
            if nxt is None:
                continue
            noun = nxt.group(1)
            tail = r"\s+" + re.escape(noun[:-1] if noun.endswith("s") and len(noun) > 3 else noun)
        for form in surface_forms(s):
            pats.append(re.compile(r"(?<![\w$.,])" + re.escape(form.lower()) + tail + r"(?![\w%]|[.,]\d)"
                                   if not tail else r"(?<![\w$.,])" + re.escape(form.lower()) + tail))
    return pats


def _topic_value_lines_in(ix: TextIndex, ctx: dict) -> set[str]:
    """Value facts for which some line of this text holds a topic word and the value (what
    grep for the topic, then for a number, finds; `value_patterns`). Only the lines where the
    text index found one of the fact's values are read."""
    by_topic, forms, conds, keys = ctx["by_topic"], ctx["forms"], ctx["conds"], ctx["keys"]
    low, spans = ix.low, ix.spans
    present = set(re.findall(r"[a-z][a-z'-]{2,}", low))
    present |= {w[:-1] for w in present if w.endswith("s") and len(w) > 4}
    live = sorted({fid for w in present & by_topic.keys() for fid in by_topic[w]})
    lines: dict[int, tuple[str, set]] = {}

    def line_at(pos: int) -> tuple[str, set]:
        ls = low.rfind("\n", 0, pos) + 1
        if ls not in lines:
            le = low.find("\n", pos)
            line = low[ls:len(low) if le < 0 else le]
            lines[ls] = (line, {w[:-1] if w.endswith("s") and len(w) > 4 else w
                                for w in re.findall(r"[a-z][a-z'-]{2,}", line)})
        return lines[ls]

    hits: set[str] = set()
    for fid in live:
        here = [k for k in keys[fid] if k in spans]
        if not here or not all(c in low for c in conds[fid]):
            continue
        topics = ctx["topics"][fid]
        for pos in sorted({s for k in here for s, _ in spans[k]}):
            line, words = line_at(pos)
            if len(line) >= 4 and words & topics and all(c in line for c in conds[fid]) and \
                    any(p.search(line) for p in forms[fid]):
                hits.add(fid)
                break
    return hits


def _condition_terms(f: Fact) -> list[str]:
    """What tells this fact's value from its siblings' on a line: its condition values (a
    catalog cell's row and column, a tier, a cabin). A line with the topic and the value of
    another cell ("the checked bag allowance is one bag") does not find this one."""
    out = [c.value.lower() for c in f.conditions if c.value.strip() and c.attribute != "attribute"]
    m = re.match(r"^(?P<row>.+?) \u2014 (?P<col>.+?): ", f.statement)
    if m:
        out += [m["row"].lower(), m["col"].lower()]
    return list(dict.fromkeys(out))


def write_report(report: dict, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, indent=2, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")


SUMMARY_ROWS: list[tuple[str, str]] = [
    ("files", "delivered files"), ("tokens", "text tokens (whitespace, extracted)"),
    ("facts", "facts"), ("value_facts", "value facts"),
    ("conversational_fact_free_share", "conversational files carrying no fact (plan)"),
    ("conversational_fact_free_share_text", "conversational files yielding no fact (text)"),
    ("fact_bearing_share_text", "files yielding a fact (text)"),
    ("files_per_fact_plan", "files naming a fact, any role (plan)"),
    ("files_per_fact_text", "files yielding a fact (text)"),
    ("carriers_per_fact", "authoritative carriers per fact"),
    ("wrong_value_mentions", "wrong/old value mentions"),
    ("wrong_value_separated_share", "  ... in another file than the carrier"),
    ("wrong_value_hedged_share", "  ... with an explicit hedge"),
    ("multi_hop_facts", "multi-hop facts"),
    ("multi_hop_share_of_value_facts", "  ... share of value facts"),
    ("value_facts_no_single_file", "value facts no single file yields"),
    ("statement_verbatim_share", "statement verbatim somewhere"),
    ("six_word_run_share", "a 6-word run of the statement somewhere"),
    ("topic_word_and_value_on_one_line_share", "topic word + value on one line"),
    ("shallow_reader_accuracy", "shallow reader right (value facts, bundle)"),
    ("shallow_reader_policy_accuracy", "shallow reader right (value facts, policy alone)"),
    ("shallow_majority_accuracy", "  ... its majority of the best windows (bundle)"),
    ("shallow_majority_policy_accuracy", "  ... its majority of the best windows (policy alone)"),
    ("deep_reader_accuracy", "deep reader right (value facts)"),
    ("stale_value_outvotes_share", "value facts whose wrong/old values are in as many files"),
]


def summary_lines(summary: dict) -> Iterable[tuple[str, str]]:
    """(label, value) rows for printing, shapes included."""
    for key, label in SUMMARY_ROWS:
        v = summary.get(key)
        if isinstance(v, float) and ("share" in key or "accuracy" in key):
            yield label, f"{v:.1%}"
        else:
            yield label, "-" if v is None else (f"{v:,}" if isinstance(v, int) else str(v))
    for key, label in (("email_thread_messages", "e-mail thread messages"), ("team_chat_threads", "team-chat threads"),
                       ("team_chat_messages", "team-chat messages"), ("meeting_minutes", "meeting minutes")):
        d = summary.get(key) or {}
        yield label, (f"n={d['n']} min {d['min']} median {d['median']} max {d['max']}" if d.get("n") else "-")
