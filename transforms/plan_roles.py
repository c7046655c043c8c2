"""The planner's second pass: what makes records hard the way real records are hard.

`transforms.planner` gives every fact its authoritative carrier. This pass, a pure function of
the same inputs, then adds (`add_roles`):

- **volume and haystack**: per kind, a target number of files from the domain's size
  (`volume_targets`); most of them carry no fact at all (routine traffic the renderers draw
  from the seed database), and each file gets a `size` (messages in a thread, threads in a
  team-chat capture, agenda items of a meeting, rows of an export);
- **multi-hop routes** (`Route`): a share of the value facts is never stated whole anywhere;
  a key file states the fact with its value given by a code of a schedule, the schedule lists
  the code with the value and nothing that names the fact;
- **document series**: older versions of manuals, rate sheets, memos and knowledge-base pages
  (same title, lower version, earlier date) that still state the unchanged figures (echoes)
  and the old figure of what changed (superseded, resolved by version);
- **echoes and partial mentions**: the current value restated in conversations, or stated
  without its condition;
- **cases**: the rule applied to a customer's record in ledgers, ticket exports and chats;
- **superseded chains**: a changed figure's history, the old value in at least as many files
  as the current one and a proposal sometimes, all dated before every current mention of the
  fact (resolved by date), worded as the records word the fact now; and an agent's unhedged
  wrong figure against an owner-approved carrier (resolved by authority);
- **contested facts**: a few facts get a conflicting, authoritative-looking record dated like
  the carrier, with no resolution (recorded in the plan; task packs resolve them through the
  client).

Wrong values in the file that carries the fact are stated plainly and corrected later in the
file ("correction"); only stray beliefs in files that do not carry the fact are hedged.
Dates are chosen so that every resolution holds: a superseded or proposed value lives in a
file dated before every file that states the current value.
"""
from __future__ import annotations

import datetime as dt
import math
import random
import re
from collections import defaultdict
from typing import TYPE_CHECKING, Callable, Optional

from facts.models import Fact, Slot, SlotType
from facts.surface import FREQUENCY_NAMES, fmt_num, unit_words
from facts.values import figure_slots, parse_slots

from . import registry
from .plan import ArtifactSpec, Distractor, FactMention, Hop, Route
from .voicing import voiceable

if TYPE_CHECKING:  # pragma: no cover
    from .plan_config import PlanConfig


# Share of a domain's files per kind (the reference corpus: about 55% conversational, a
# quarter visuals, a few per cent recordings, documents and tables). Media kinds are capped
# (`MEDIA_CAPS`): OCR and speech recognition cost seconds a file.
KIND_SHARE = {
    "conversations/chat_transcript": 0.33, "conversations/email_thread": 0.22, "conversations/team_chat": 0.008,
    "conversations/meeting_transcript": 0.03, "documents/kb_article": 0.05, "documents/memo": 0.03,
    "documents/pdf_manual": 0.012, "tables/case_ledger": 0.02, "tables/rate_sheet": 0.012,
    "tables/ticket_export": 0.025, "visuals/web_screenshot": 0.05, "visuals/app_screenshot": 0.05,
    "visuals/flowchart": 0.02, "visuals/slide_deck": 0.03, "visuals/chart": 0.03,
    "documents/scanned_letter": 0.015, "recordings/call_audio": 0.02,
    "recordings/voicemail": 0.012, "recordings/screen_recording": 0.008,
}
DEFAULT_SHARE = 0.02
MEDIA_CAPS = {"png": 40, "scan": 12, "wav": 10, "mp4": 4}  # files per kind at most
MIN_FILES = {"conversations/team_chat": 2}
CONVERSATIONAL = {"conversations/chat_transcript", "conversations/email_thread", "conversations/team_chat",
                  "conversations/meeting_transcript", "recordings/call_audio", "recordings/voicemail"}
# Where each role can live.
ECHO_KINDS = ["conversations/chat_transcript", "conversations/email_thread", "conversations/team_chat",
              "conversations/meeting_transcript", "documents/kb_article", "visuals/slide_deck",
              "documents/scanned_letter"]
PARTIAL_KINDS = ["conversations/chat_transcript", "conversations/email_thread", "conversations/team_chat",
                 "conversations/meeting_transcript"]
CASE_KINDS = ["tables/case_ledger", "tables/ticket_export", "conversations/chat_transcript"]
# Files whose record date is printed in the text (so "dated before" can be proven).
DATED_KINDS = ["conversations/email_thread", "conversations/team_chat", "conversations/chat_transcript",
               "documents/memo", "tables/case_ledger", "tables/ticket_export", "documents/scanned_letter"]
# Kinds whose files show their own date (a chain resolved by date needs one of them to state
# the current value): a dashboard prints its reporting day, a scanned letter its date.
VISIBLE_DATE_KINDS = set(DATED_KINDS) | {"documents/kb_article", "documents/pdf_manual", "tables/rate_sheet",
                                         "visuals/chart"}
SERIES_KINDS = ["documents/pdf_manual", "tables/rate_sheet", "documents/memo"]
KEY_KINDS = ["documents/pdf_manual", "documents/kb_article", "documents/memo"]
TABLE_KINDS = ["tables/rate_sheet", "documents/pdf_manual"]
APPROVED_KINDS = {"documents/pdf_manual", "documents/memo"}  # carriers that show an owner's approval
SIZES: dict[str, tuple[int, int, int]] = {  # kind -> (min, typical, max) of `size`
    "conversations/email_thread": (5, 12, 25), "conversations/team_chat": (50, 62, 80),
    "conversations/meeting_transcript": (12, 18, 30), "conversations/chat_transcript": (10, 20, 40),
    "tables/case_ledger": (240, 720, 1600), "tables/ticket_export": (50, 110, 200),
}
ROUTE_SHARE = 0.18
CHAIN_SHARE = 0.9
PROPOSAL_SHARE = 0.5
ECHO_MEAN = 1.35
ROW_ECHO_MEAN = 1.3  # help pages restating a catalog row whole
ECHO_ROOM = 0.7  # share of the fact-bearing conversation budget echoes, partials and cases may use
PARTIAL_SHARE = 0.3
CASE_SHARE = 0.35
# a fee charged, a period waited, a rate applied: what a case record shows of a rule
CASE_TYPES = (SlotType.money, SlotType.duration, SlotType.percent)
CONTESTED = 2
FACT_BEARING_CONVERSATION_MAX = 0.38
NUMERIC = (SlotType.money, SlotType.duration, SlotType.count, SlotType.percent)
_CELL = re.compile(r"^(?P<row>.+?) \u2014 (?P<col>.+?): (?P<val>.+?)\.?$")


def value_slot(f: Fact) -> Optional[Slot]:
    for s in f.slots:
        if s.type in NUMERIC and isinstance(s.value, (int, float)):
            return s
    return None


def rendition_in(kind: type, f: Fact, wanted: str) -> str:
    """The rendition of `f` in a file of `kind`: `wanted`, unless the kind never words a fact its
    own way (a process map) or prints a catalog cell in a schedule grid (a manual's schedule, a
    help page's comparison table): then canonical, as the file shows it."""
    if not kind.voices or (kind.tabulates_cells and cell_parts(f)):
        return "canonical"
    return wanted


def cell_parts(f: Fact) -> Optional[tuple[str, str]]:
    m = _CELL.match(f.statement)
    return (m["row"].strip(), m["col"].strip()) if m else None


def volume_targets(n_facts: int, kinds: list[type], volume: float) -> dict[str, int]:
    """Files per enabled kind: about 26 * n^0.55 in all (airline's 152 facts: about 410), split
    by `KIND_SHARE` over the enabled kinds, media kinds capped."""
    total = volume * 26 * max(n_facts, 1) ** 0.55
    shares = {k.key(): KIND_SHARE.get(k.key(), DEFAULT_SHARE) for k in kinds}
    norm = sum(shares.values()) or 1.0
    out = {}
    for k in kinds:
        n = int(round(total * shares[k.key()] / norm))
        cap = MEDIA_CAPS.get(k.modality)
        if cap is not None:
            n = min(n, max(1, int(round(cap * min(1.0, volume * 2)))))
        out[k.key()] = max(n, MIN_FILES.get(k.key(), 1))
    return out


def draw_size(kind: str, rng: random.Random) -> Optional[int]:
    """A file's amount of routine traffic: log-normal around the typical value, clipped."""
    if kind not in SIZES:
        return None
    lo, mid, hi = SIZES[kind]
    v = int(round(math.exp(rng.gauss(math.log(mid), 0.45))))
    return max(lo, min(hi, v))


HOST_CAP = {"conversations/team_chat": 12, "conversations/meeting_transcript": 6, "documents/kb_article": 8,
            "documents/memo": 6, "tables/case_ledger": 30, "tables/ticket_export": 10}
ECHO_WEIGHTS = {"conversations/chat_transcript": 0.4, "conversations/email_thread": 0.3,
                "conversations/team_chat": 0.1, "conversations/meeting_transcript": 0.08, "documents/kb_article": 0.08,
                "visuals/slide_deck": 0.04, "documents/scanned_letter": 0.03}


class _Builder:
    """Mutable plan under construction (artifacts are appended; ids are given at the end), with
    the indexes the passes need: the days each fact is stated on, and per kind the files that
    can host one more mention."""

    def __init__(self, specs: list[ArtifactSpec], kinds: list[type], seed: int, start: dt.date, end: dt.date,
                 make: Callable[[type, dt.date, bool], ArtifactSpec], targets: dict[str, int]):
        self.specs = specs
        self.kinds = {k.key(): k for k in kinds}
        self.seed = seed
        self.start, self.end = start, end
        self.make = make
        self.targets = targets
        self.count: dict[str, int] = defaultdict(int)
        self.stated: dict[str, list[tuple[dt.date, ArtifactSpec]]] = defaultdict(list)
        self.open: dict[str, list[ArtifactSpec]] = defaultdict(list)
        self.old_until: dict[str, dt.date] = {}  # fact -> the latest date an old figure of it is stated
        self.banned: dict[str, set] = {}  # fact -> values no wrong figure may take (a variant's base values)
        self._named: dict[int, set[str]] = {}  # id(spec) -> the facts it names (`names`), kept by add/add_wrong
        for s in specs:
            self.count[s.kind] += 1
            for m in s.facts:
                self.stated[m.fact_id].append((self.day(s), s))
            if s.facts and not s.series and not s.routes:
                self.open[s.kind].append(s)

    def has(self, kind: str) -> bool:
        return kind in self.kinds

    def full(self, kind: str) -> bool:
        """Media kinds never grow past their volume target (OCR and ASR cost seconds a file)."""
        return self.kinds[kind].modality in MEDIA_CAPS and self.count[kind] >= self.targets.get(kind, 0)

    def new(self, kind: str, day: dt.date, noise: bool = False) -> ArtifactSpec:
        spec = self.make(self.kinds[kind], day, noise)
        self.specs.append(spec)
        self.count[kind] += 1
        return spec

    def add(self, spec: ArtifactSpec, m: FactMention) -> None:
        spec.facts.append(m)
        self._name(spec, m.fact_id)
        self.stated[m.fact_id].append((self.day(spec), spec))
        self._open(spec)

    def add_wrong(self, spec: ArtifactSpec, d: Distractor) -> None:
        spec.distractors.append(d)
        self._name(spec, d.fact_id)
        self._open(spec)

    def names(self, spec: ArtifactSpec, fact_id: str) -> bool:
        """`fact_id in spec.mentioned_ids`, from a set kept per file (files are only added to
        through `add` and `add_wrong` while the passes run)."""
        got = self._named.get(id(spec))
        if got is None:
            got = self._named[id(spec)] = {m.fact_id for m in spec.facts} | {d.fact_id for d in spec.distractors}
        return fact_id in got

    def _name(self, spec: ArtifactSpec, fact_id: str) -> None:
        if id(spec) in self._named:
            self._named[id(spec)].add(fact_id)

    def _open(self, spec: ArtifactSpec) -> None:
        if not spec.series and not spec.routes and all(s is not spec for s in self.open[spec.kind][-64:]):
            self.open[spec.kind].append(spec)

    def by_kind(self, kind: str) -> list[ArtifactSpec]:
        return [s for s in self.specs if s.kind == kind]

    @staticmethod
    def day(spec: ArtifactSpec) -> dt.date:
        return dt.date.fromisoformat(spec.date)

    def first_day(self, fact_id: str) -> Optional[dt.date]:
        days = [d for d, _ in self.stated.get(fact_id, ())]
        return min(days) if days else None


def add_roles(specs: list[ArtifactSpec], facts: list[Fact], kinds: list[type], config: "PlanConfig",
              rng: random.Random, start: dt.date, end: dt.date, routed: set[str],
              make: Callable[[type, dt.date, bool], ArtifactSpec], voiced: Callable[[Fact], str],
              banned: Optional[dict[str, set]] = None) -> tuple[list[Route], list[str]]:
    """Extend the carriers' `specs` in place with every role above; returns (routes,
    contested fact ids). `routed`: the facts the carrier pass left to routes. `make(kind, day,
    noise)` creates an artifact (the planner gives ids); `voiced(fact)` picks a rendition."""
    targets = volume_targets(len(facts), kinds, config.volume)
    b = _Builder(specs, kinds, rng.randrange(1 << 30), start, end, make, targets)
    b.banned = banned or {}
    by_id = {f.id: f for f in facts}
    routes = _routes(b, [by_id[i] for i in sorted(routed) if i in by_id], rng)
    _series(b, by_id, rng, config)
    _row_echoes(b, facts, routed, rng)
    _echoes(b, facts, routed, rng, voiced, config)
    _chains(b, facts, routed, rng, voiced)
    contested = _contested(b, facts, routed, rng)
    _fill(b, targets, rng)
    return routes, contested


# --- routes ------------------------------------------------------------------------------------
def choose_routed(facts: list[Fact], rng: random.Random, kinds: list[type], share: float = ROUTE_SHARE) -> set[str]:
    """The value facts that will only be recoverable by combining two files (a seeded share,
    at least `share` of the value facts; none without a key kind and a table kind)."""
    keys = {k.key() for k in kinds}
    if not (set(KEY_KINDS) & keys) or not (set(TABLE_KINDS) & keys):
        return set()
    cands = [f for f in facts if value_slot(f) is not None and f.kind.value != "procedure_step"]
    n = int(math.ceil(len([f for f in facts if value_slot(f) is not None]) * share))
    if not cands or n == 0:
        return set()
    rows: dict[str, list[Fact]] = defaultdict(list)
    singles = []
    for f in cands:
        cp = cell_parts(f)
        (rows[cp[0]].append(f) if cp else singles.append(f))
    # Catalog rows go whole (a product priced under one schedule code), prose facts one by one.
    pool: list[list[Fact]] = [v for _, v in sorted(rows.items())] + [[f] for f in singles]
    rng.shuffle(pool)
    out: set[str] = set()
    for group in pool:
        if len(out) >= n:
            break
        out |= {f.id for f in group}
    return out


def _routes(b: _Builder, routed: list[Fact], rng: random.Random) -> list[Route]:
    if not routed:
        return []
    table_kind = next(k for k in TABLE_KINDS if b.has(k))
    key_kinds = [k for k in KEY_KINDS if b.has(k)]
    # one schedule file holds every route's table row; it is dated like the key files
    day = b.end - dt.timedelta(days=rng.randint(5, 40))
    table = b.new(table_kind, day)
    table.title = "Schedule of charges and limits"
    routes: list[Route] = []
    codes: dict[str, str] = {}
    prefix = "SC"
    keys_by_kind: dict[str, list[ArtifactSpec]] = defaultdict(list)
    for n, f in enumerate(sorted(routed, key=lambda f: (f.section, f.source.start_line))):
        cp = cell_parts(f)
        if cp:
            group = cp[0]
            label = cp[1]
        else:
            group = f.id
            label = ""
        if group not in codes:
            codes[group] = f"{prefix}-{len(codes) + 101}"
        kind = key_kinds[n % len(key_kinds)]
        pool = [s for s in keys_by_kind[kind] if len(s.facts) < min(12, registry.get(kind).max_facts)]
        key = pool[-1] if pool else None
        if key is None:
            key = b.new(kind, b.end - dt.timedelta(days=rng.randint(2, 30)))
            key.title = " / ".join(f.section) if f.section else ""
            keys_by_kind[kind].append(key)
        rid = f"route-{n + 1:04d}"
        route = Route(id=rid, fact_id=f.id, code=codes[group], label=label,
                      schedule=table.title, hops=[Hop(artifact_id="", part="key"), Hop(artifact_id="", part="table")])
        key.routes.append(route)
        table.routes.append(route)
        b.add(key, FactMention(fact_id=f.id, role="hop", route=rid, part="key"))
        b.add(table, FactMention(fact_id=f.id, role="hop", route=rid, part="table"))
        routes.append(route)
    return routes


def fix_route_hops(routes: list[Route], specs: list[ArtifactSpec]) -> list[Route]:
    """Fill each route's hops with the final artifact ids (after ids are assigned)."""
    where: dict[tuple[str, str], str] = {}
    for s in specs:
        for m in s.facts:
            if m.role == "hop" and m.route:
                where[(m.route, m.part or "")] = s.id
    out = []
    for r in routes:
        hops = [Hop(artifact_id=where[(r.id, "key")], part="key"), Hop(artifact_id=where[(r.id, "table")], part="table")]
        out.append(r.model_copy(update={"hops": hops}))
    return out


# --- document series ------------------------------------------------------------------------------
def _series(b: _Builder, by_id: dict[str, Fact], rng: random.Random, config: "PlanConfig") -> None:
    """Older versions of some carrier documents: same title, version 1 (the carrier becomes
    version 2), dated 30 to 150 days earlier; unchanged figures as echoes, a share of the value
    facts with their old figure (superseded, resolved by version)."""
    for kind in SERIES_KINDS:
        if not b.has(kind):
            continue
        for spec in list(b.by_kind(kind)):
            if spec.noise or spec.series or not spec.facts or rng.random() > 0.6:
                continue
            plan: list[tuple[FactMention, Fact, Optional[Slot], Optional[str]]] = []
            for m in spec.facts:
                if m.role != "carrier":
                    continue
                f = by_id[m.fact_id]
                slot = value_slot(f)
                wv = wrong_for(f, slot, rng, b.banned) if slot is not None and rng.random() < CHAIN_SHARE else None
                plan.append((m, f, slot, wv))
            # the old version predates every file that states a changed figure as it is now
            day = b.day(spec) - dt.timedelta(days=rng.randint(30, 150))
            for _m, f, _s, wv in plan:
                if wv is not None:
                    day = min(day, (b.first_day(f.id) or b.end) - dt.timedelta(days=rng.randint(10, 40)))
            spec.series = spec.title or spec.id
            spec.version = 2
            old = b.new(kind, day)
            old.title, old.series, old.version = spec.title, spec.series, 1
            for m, f, slot, wv in plan:
                if wv is not None:
                    b.add_wrong(old, Distractor(fact_id=f.id, slot=slot.name, text=wv, role="superseded",
                                                date=old.date, resolution="version"))
                    b.old_until[f.id] = max(b.old_until.get(f.id, day), day)
                else:
                    b.add(old, FactMention(fact_id=f.id, rendition=m.rendition, role="echo"))


def wrong_value(slot: Slot, rng: random.Random) -> Optional[str]:
    """A plausible but wrong surface form for a slot (None for non-numeric slots)."""
    v = slot.value
    if not isinstance(v, (int, float)) or slot.type in (SlotType.date, SlotType.enum, SlotType.identifier):
        return None
    for _ in range(8):
        if slot.type == SlotType.money:
            f = rng.choice([0.5, 0.6, 0.75, 0.8, 1.2, 1.25, 1.5, 2.0])
            w = round(v * f) if v >= 5 else round(v * f, 2)
        elif slot.type == SlotType.percent:
            w = v + rng.choice([-10, -5, -2, 2, 5, 10]) if v > 2 else round(v * rng.choice([0.5, 2, 3]), 2)
        else:
            step = max(1, round(abs(v) * 0.3))
            w = v + rng.choice([-1, 1, 2]) * step
        if w != v and w > 0:
            break
    else:
        return None
    if slot.type == SlotType.money:
        return _money_text(slot, w)
    if slot.type == SlotType.percent:
        return f"{fmt_num(w)}%"
    if slot.type == SlotType.duration:
        return f"{fmt_num(w)} {unit_words(slot.unit, w)}"
    if slot.unit == "time":  # a frequency: "once" -> "twice", "3 times"
        return FREQUENCY_NAMES.get(w, f"{fmt_num(w)} times")
    if slot.unit:  # a measured count: "3G" -> "4G", "2GB" -> "3 GB"
        return f"{fmt_num(w)}{slot.unit}" if slot.unit == "G" else f"{fmt_num(w)} {slot.unit}"
    return fmt_num(w)


def _band_text(slot: Slot, rng: random.Random) -> Optional[str]:
    """A count band's other upper bound, said as the band is ("51 to 70 lb" was "51 to 62 lb")."""
    lo, hi, text = slot.value, slot.value_max, slot.text or ""
    if not isinstance(lo, (int, float)) or not isinstance(hi, (int, float)) or hi <= lo:
        return None
    step = max(1, round((hi - lo) * 0.4))
    w = hi + rng.choice([-1, 1, 2]) * step
    m = list(re.finditer(rf"\b{re.escape(fmt_num(hi))}\b", text))
    if w <= lo or w == hi or not m:
        return None
    return text[:m[-1].start()] + fmt_num(w) + text[m[-1].end():]


def _money_text(slot: Slot, amount: float) -> str:
    return f"${fmt_num(amount)}" if (slot.unit or "USD") in ("USD", "CAD", "AUD") else f"{fmt_num(amount)} {slot.unit}"


def same_value(text: str, own_keys: set[tuple], slot: Slot, counts: bool = False) -> bool:
    """Whether a candidate wrong figure reads back as one of `own_keys` (or not at all);
    `counts`: a lone number reads back as a count (`facts.values.figure_slots`)."""
    try:
        parsed = figure_slots(text) if counts else parse_slots(text)
    except Exception:  # noqa: BLE001 - a wrong value we cannot parse back is not used
        return True
    return any(p.key() in own_keys for p in parsed) or not parsed


def wrong_for(f: Fact, slot: Slot, rng: random.Random, banned: Optional[dict[str, set]] = None) -> Optional[str]:
    """A plausible wrong figure for the fact's slot: never its own value, nor a value in
    `banned[fact id]` (for a variant: the base domain's value, which must not reach its files).
    A count's figure is a number alone ("4"; a count band, "51 to 70 lb", another upper bound); a charge
    that is nothing now was a charge before ("$0" was "$50"); a period said as a modifier
    stays one ("24-hour" was "38-hour", never "the 38 hours window"); a count of the things the
    statement lists ("three kinds of payment: ...") has no other figure."""
    if slot.type == SlotType.count and re.search(re.escape(slot.text or "") + r"[^:.]*:", f.statement):
        return None
    if slot.type == SlotType.count and slot.value_max is not None:
        wv = _band_text(slot, rng)
    elif slot.type == SlotType.money and slot.value == 0 and slot.value_max is None:
        wv = _money_text(slot, rng.choice([10, 25, 35, 50, 75]))
    else:
        wv = wrong_value(slot, rng)
    if wv is not None and slot.type == SlotType.duration and re.fullmatch(r"\d+-[a-z]+", slot.text or ""):
        wv = f"{wv.split()[0]}-{unit_words(slot.unit, 1)}"
    if wv is None or same_value(wv, {s.key() for s in f.slots} | set((banned or {}).get(f.id, ())), slot,
                                counts=True):
        return None
    return wv


# --- echoes, partials, cases ------------------------------------------------------------------------
def _conversation_room(b: _Builder) -> int:
    conv = [k for k in CONVERSATIONAL if b.has(k)]
    total = sum(b.targets.get(k, 0) for k in conv)
    bearing = sum(1 for s in b.specs if s.kind in conv and (s.facts or s.distractors))
    return int(total * FACT_BEARING_CONVERSATION_MAX) - bearing


def _pick_kind(kinds: list[str], rng: random.Random, weights: Optional[dict[str, float]] = None) -> str:
    w = [(weights or {}).get(k, 1.0) for k in kinds]
    return rng.choices(kinds, weights=w)[0]


def _host(b: _Builder, kinds: list[str], rng: random.Random, day_range: tuple[dt.date, dt.date], room: list[int],
          cap: int = 3, weights: Optional[dict[str, float]] = None, avoid: str = "") -> Optional[ArtifactSpec]:
    """A file of one of `kinds` dated inside `day_range` to hold one more mention (of fact
    `avoid`, which it must not already name): an existing fact-bearing one with space, else
    (while the conversational budget `room` lasts and media kinds stay under their volume) a
    new one."""
    kinds = [k for k in kinds if b.has(k)]
    if not kinds:
        return None
    lo, hi = day_range
    kind = _pick_kind(kinds, rng, weights)
    limit = min(HOST_CAP.get(kind, cap), registry.get(kind).max_facts)
    lo_iso, hi_iso = lo.isoformat(), hi.isoformat()  # ISO dates compare as strings
    existing = [s for s in b.open[kind][-200:] if not s.series and not s.routes and lo_iso <= s.date <= hi_iso
                and len(s.facts) + len(s.distractors) < limit and not b.names(s, avoid)]
    conversational = kind in CONVERSATIONAL
    blocked = b.full(kind) or (conversational and room[0] <= 0)
    if existing and (blocked or rng.random() < 0.55 or kind in HOST_CAP):
        return rng.choice(existing)
    if blocked:
        return None
    if conversational:
        room[0] -= 1
    span = max((hi - lo).days, 0)
    return b.new(kind, lo + dt.timedelta(days=rng.randint(0, span)))


def _row_echoes(b: _Builder, facts: list[Fact], routed: set[str], rng: random.Random) -> None:
    """A catalog row is echoed whole: a help page on one product restates its terms as a small
    table (as a bank's product pages do), so a cell shows up in more files than its rate sheet
    or manual without a conversation quoting a table. `ROW_ECHO_MEAN` pages per row on average;
    a page takes rows while it has room (`kb_article.max_facts`) and is dated after the row's
    first carrier."""
    kind = "documents/kb_article"
    if not b.has(kind):
        return
    limit = registry.get(kind).max_facts
    rows: dict[str, list[Fact]] = defaultdict(list)
    for f in facts:
        cp = cell_parts(f)
        if cp is not None and f.id not in routed and f.id not in b.old_until:
            rows[cp[0]].append(f)
    for name in sorted(rows):
        cells = rows[name]
        if len(cells) > limit:
            continue
        firsts = [d for d in (b.first_day(f.id) for f in cells) if d is not None]
        lo = max([b.start, *firsts])
        n = int(ROW_ECHO_MEAN) + (1 if rng.random() < ROW_ECHO_MEAN - int(ROW_ECHO_MEAN) else 0)
        for _ in range(n):
            ids = {f.id for f in cells}
            room = [s for s in b.open[kind][-200:] if not s.series and not s.routes and b.day(s) >= lo
                    and len(s.facts) + len(cells) <= limit and not ids & set(s.mentioned_ids)]
            if room and rng.random() < 0.5:
                host = rng.choice(room)
            else:
                span = max((b.end - lo).days, 0)
                host = b.new(kind, lo + dt.timedelta(days=rng.randint(0, span)))
            for f in cells:
                b.add(host, FactMention(fact_id=f.id, role="echo", rendition="canonical"))


def _echoes(b: _Builder, facts: list[Fact], routed: set[str], rng: random.Random, voiced: Callable[[Fact], str],
            config: "PlanConfig") -> None:
    room = [int(_conversation_room(b) * ECHO_ROOM)]
    for f in facts:
        if f.id in routed:
            continue
        first = b.first_day(f.id) or b.end
        lo = max(b.start, first - dt.timedelta(days=20))
        if f.id in b.old_until:  # restated only after its old figure was last stated
            lo = max(lo, b.old_until[f.id] + dt.timedelta(days=1))
        window = (lo, max(lo, b.end))
        n = int(ECHO_MEAN) + (1 if rng.random() < ECHO_MEAN - int(ECHO_MEAN) else 0)
        for _ in range(n):
            host = _host(b, ECHO_KINDS, rng, window, room, weights=ECHO_WEIGHTS, avoid=f.id)
            if host is not None:
                # an echo is someone's own words: voiced wherever the realiser can voice the fact
                b.add(host, FactMention(fact_id=f.id, role="echo",
                                        rendition=rendition_in(b.kinds[host.kind], f, "voiced" if voiceable(f) else "canonical")))
        slot = value_slot(f)
        if f.conditions and slot is not None and rng.random() < PARTIAL_SHARE:
            host = _host(b, PARTIAL_KINDS, rng, window, room, weights=ECHO_WEIGHTS, avoid=f.id)
            if host is not None:
                # a catalog cell's partial mention names its column, a label no wording changes
                b.add(host, FactMention(fact_id=f.id, rendition="canonical" if cell_parts(f) else "voiced",
                                        role="partial"))
        if slot is not None and slot.type in CASE_TYPES and rng.random() < CASE_SHARE:
            host = _host(b, CASE_KINDS, rng, window, room, cap=12,
                         weights={"tables/case_ledger": 0.45, "tables/ticket_export": 0.35,
                                  "conversations/chat_transcript": 0.2}, avoid=f.id)
            if host is not None:
                b.add(host, FactMention(fact_id=f.id, rendition="canonical", role="case"))


# --- chains ---------------------------------------------------------------------------------------------
# Where an old figure lives before its change: the threads, chats and macros of the time, the
# memos and help pages then in force, the rate sheets and case records that applied it. Every
# kind here prints its date (`VISIBLE_DATE_KINDS`), so the change is resolved by date.
STALE_WEIGHTS = {"conversations/email_thread": 0.24, "conversations/chat_transcript": 0.16,
                 "conversations/team_chat": 0.12, "documents/memo": 0.1, "documents/kb_article": 0.12,
                 "tables/rate_sheet": 0.08, "tables/case_ledger": 0.08, "tables/ticket_export": 0.07,
                 "documents/scanned_letter": 0.03}
# old figures one old file holds: a price list, a help page, a memo or a ledger of the time holds many
STALE_CAP = {"tables/rate_sheet": 120, "documents/kb_article": 25, "documents/memo": 12, "tables/case_ledger": 40,
             "tables/ticket_export": 10}
STALE_SPAN = (7, 240)  # days before the first current mention an old figure is stated


def _chains(b: _Builder, facts: list[Fact], routed: set[str], rng: random.Random, voiced: Callable[[Fact], str]) -> None:
    """The history of a changed figure, resolved by date: the old value is stated in at least
    as many files as the current one (the records of the months it was in force outnumber the
    newer ones), every one dated before the first file that states the current value; a fact
    whose old document version already states an old figure keeps that figure, and every old
    mention words the fact as the records word it now (`voiced(fact)`: the policy's words for a
    quoted fact), so only dates tell them apart. Some changes had a proposal before them
    (another figure, older still). The other facts with an owner-approved carrier
    (`1 - CHAIN_SHARE` of them) get a wrong figure going round the floor instead, in as many
    colleagues' chats as files state the current value (resolved by authority), or a history
    when no chat can take it. An old figure goes to an old file of a kind that states the
    current one where one exists, else to the first kind of a weighted draw that can take it
    (`_stale_host`)."""
    room = [max(_conversation_room(b), 0)]  # new conversations only within the fact-bearing budget
    old_figure: dict[str, str] = {}
    old_files: dict[str, int] = defaultdict(int)
    for s in b.specs:
        for d in s.distractors:
            if d.resolution == "version":
                old_figure.setdefault(d.fact_id, d.text)
                old_files[d.fact_id] += 1
    for f in facts:
        slot = value_slot(f)
        if slot is None or f.id in routed or not b.stated.get(f.id):
            continue
        if not any(s.kind in VISIBLE_DATE_KINDS and any(m.fact_id == f.id and m.role in ("carrier", "echo")
                                                        for m in s.facts) for _, s in b.stated[f.id]):
            continue  # nothing that states the current value shows its date: no chain to resolve by date
        first = b.first_day(f.id)
        current_files = len({id(s) for _, s in b.stated[f.id]})
        approved = any(s.kind in APPROVED_KINDS and any(m.fact_id == f.id and m.role == "carrier" for m in s.facts)
                       for _, s in b.stated[f.id])
        if approved and rng.random() >= CHAIN_SHARE and _floor_rumour(b, f, slot, rng, first, current_files, room,
                                                                       voiced):
            continue
        old = old_figure.get(f.id) or wrong_for(f, slot, rng, b.banned)
        if old is None:
            continue
        # the old figure first in an old file of a kind that states the current one, where one
        # exists (last year's price list beside this year's), then in the kinds of a weighted draw
        # (a help page lays a catalog row out as a grid of bare figures: no place for an old one)
        skip = {"documents/kb_article"} if cell_parts(f) is not None else set()
        mirror = sorted({s.kind for _, s in b.stated[f.id] if s.kind in STALE_WEIGHTS and s.kind not in skip})
        for k in range(max(0, current_files + rng.randint(0, 1) - old_files[f.id])):
            host = _stale_host(b, f.id, first, rng, room, prefer=mirror[k] if k < len(mirror) else None, skip=skip)
            if host is not None:
                b.add_wrong(host, Distractor(fact_id=f.id, slot=slot.name, text=old, role="superseded",
                                             date=host.date, resolution="date",
                                             rendition=rendition_in(b.kinds[host.kind], f, voiced(f))))
        proposal = wrong_for(f, slot, rng, b.banned) if rng.random() < PROPOSAL_SHARE else None
        if proposal is not None and proposal != old:
            day = first - dt.timedelta(days=rng.randint(61, 120))
            host = _host(b, DATED_KINDS, rng, (day - dt.timedelta(days=5), day), room, avoid=f.id,
                         weights={"conversations/email_thread": 0.35, "conversations/team_chat": 0.2,
                                  "conversations/chat_transcript": 0.2, "documents/memo": 0.1,
                                  "tables/case_ledger": 0.08, "tables/ticket_export": 0.07,
                                  "documents/scanned_letter": 0.04})
            if host is not None:
                b.add_wrong(host, Distractor(fact_id=f.id, slot=slot.name, text=proposal, role="proposal",
                                             date=host.date, resolution="date",
                                             rendition=rendition_in(b.kinds[host.kind], f, voiced(f))))


def _floor_rumour(b: _Builder, f: Fact, slot: Slot, rng: random.Random, first: dt.date, current_files: int,
                  room: list[int], voiced: Callable[[Fact], str]) -> bool:
    """A wrong figure going round the floor, in as many colleagues' chats as files state the
    approved one (resolved by authority); False when no chat could take it (the fact gets a
    history instead)."""
    wv = wrong_for(f, slot, rng, b.banned)
    placed = 0
    for _ in range(current_files if wv is not None else 0):
        host = _host(b, ["conversations/team_chat", "conversations/chat_transcript"], rng, (first, b.end),
                     room, avoid=f.id)
        if host is not None:
            b.add_wrong(host, Distractor(fact_id=f.id, slot=slot.name, text=wv, role="distractor",
                                         resolution="authority",
                                         rendition=rendition_in(b.kinds[host.kind], f, voiced(f))))
            placed += 1
    return placed > 0


def _stale_host(b: _Builder, fact_id: str, first: dt.date, rng: random.Random, room: list[int],
                prefer: Optional[str] = None, skip: frozenset | set = frozenset()) -> Optional[ArtifactSpec]:
    """A file dated `STALE_SPAN` days before `first` to state an old figure of `fact_id`: one of
    the kinds of `STALE_WEIGHTS`, an existing one with room (an old sheet or help page holds
    many old figures: `STALE_CAP`), else a new one (conversations while `room` lasts)."""
    lo, hi = first - dt.timedelta(days=STALE_SPAN[1]), first - dt.timedelta(days=STALE_SPAN[0])
    lo_iso, hi_iso = lo.isoformat(), hi.isoformat()  # ISO dates compare as strings: no parsing in the hot loop
    kinds = [k for k in STALE_WEIGHTS if b.has(k) and k not in skip]
    while kinds:  # `prefer`, then the kinds in a weighted draw, until one can take the mention
        kind = prefer if prefer in kinds else _pick_kind(kinds, rng, STALE_WEIGHTS)
        kinds.remove(kind)
        limit = min(STALE_CAP.get(kind, HOST_CAP.get(kind, 3)), registry.get(kind).max_facts)
        existing = [s for s in b.open[kind][-200:] if not s.series and not s.routes and lo_iso <= s.date <= hi_iso
                    and len(s.facts) + len(s.distractors) < limit and not b.names(s, fact_id)]
        blocked = b.full(kind) or (kind in CONVERSATIONAL and room[0] <= 0)
        if existing and (blocked or rng.random() < 0.9):
            return rng.choice(existing)
        if blocked or kind == prefer:  # the current kind's old files, only where one exists
            continue
        if kind in CONVERSATIONAL:
            room[0] -= 1
        return b.new(kind, lo + dt.timedelta(days=rng.randint(0, (hi - lo).days)))
    return None


def _contested(b: _Builder, facts: list[Fact], routed: set[str], rng: random.Random) -> list[str]:
    """A few value facts carried by a memo or manual get a second, equally official-looking
    record dated within days of the carrier, stating another figure; nothing resolves it."""
    out = []
    docs = ("documents/memo", "documents/kb_article")

    def carrier_of(f: Fact) -> Optional[ArtifactSpec]:
        return next((s for _, s in b.stated.get(f.id, ()) if s.kind in docs and not s.series and
                     any(m.fact_id == f.id and m.role == "carrier" for m in s.facts)), None)

    cands = [f for f in facts if value_slot(f) is not None and f.id not in routed and cell_parts(f) is None
             and carrier_of(f) is not None]
    rng.shuffle(cands)
    for f in cands:
        if len(out) >= CONTESTED:
            break
        carrier = carrier_of(f)
        wv = wrong_for(f, value_slot(f), rng, b.banned) or wrong_for(f, value_slot(f), rng, b.banned)
        if wv is None:
            continue
        other = b.new(carrier.kind, b.day(carrier) + dt.timedelta(days=rng.randint(-3, 3)))
        other.title = carrier.title
        b.add_wrong(other, Distractor(fact_id=f.id, slot=value_slot(f).name, text=wv, role="contested",
                                            date=other.date, resolution="none"))
        out.append(f.id)
    return sorted(out)


# --- volume ---------------------------------------------------------------------------------------------
def _fill(b: _Builder, targets: dict[str, int], rng: random.Random) -> None:
    for kind, n in targets.items():
        have = b.count[kind]
        for _ in range(max(0, n - have)):
            span = max((b.end - b.start).days, 1)
            b.new(kind, b.start + dt.timedelta(days=rng.randint(0, span)), noise=True)
