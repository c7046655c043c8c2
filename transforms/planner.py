"""The evidence planner: which facts go into which artifacts, in which role.

First pass (this module): every fact that is not left to a multi-hop route gets
`carriers_per_fact` authoritative carriers, each of a different kind where possible. Facts of
one section travel together (an email about baggage carries several baggage facts). Kinds get
a share of the carriers proportional to `CARRIER_WEIGHT` (controlled documents and tables carry
most rules; conversations mostly echo them), capped by `max_artifacts` for the expensive
modalities (audio, video, images); what those cannot take flows to the kinds that can (tables
and manuals carry the bulk of a large catalog). A carrier may hold a wrong value before the
fact, stated plainly and corrected later in the same file ("correction").

Second pass (`transforms.plan_roles`): volume and routine traffic, multi-hop routes, older
versions of documents, echoes, partial mentions, cases, superseded chains resolved by date
or authority, contested facts, and stray hedged beliefs in files that carry nothing.

Everything is recorded in the plan (`plan.json`): each file's facts with their role, its
wrong or old values with their resolution, the routes and the contested facts. The plan is a
pure function of (facts, pack, seed, config); same inputs, same plan hash.
"""
from __future__ import annotations

import datetime as dt
import random
from typing import Optional

from pydantic import BaseModel, ConfigDict, Field

from facts.errors import FactforgeError
from facts.hashing import content_hash
from facts.models import Fact, FactSet, SlotType

from . import plan_roles as R, registry
from .plan import PLAN_SCHEMA_VERSION, ArtifactSpec, Distractor, FactMention, Route
from .plan_config import PlanConfig
from .plan_roles import same_value, value_slot, wrong_value
from .voicing import voiceable


# Modalities per profile. "scan" is a page image in a PDF (a scanned letter): read by OCR, so
# it comes with the images, never in a text-only profile.
PROFILES: dict[str, set[str]] = {
    "text-only": {"text", "eml", "json", "vtt", "csv", "xlsx", "html", "pdf", "docx"},
    "text+image": {"text", "eml", "json", "vtt", "csv", "xlsx", "html", "pdf", "docx", "png", "scan"},
    "text+image+audio": {"text", "eml", "json", "vtt", "csv", "xlsx", "html", "pdf", "docx", "png", "scan", "wav"},
    "full": {"text", "eml", "json", "vtt", "csv", "xlsx", "html", "pdf", "docx", "png", "scan", "wav", "mp4"},
}
IMAGE_MODALITIES = {"png", "scan"}  # read back by OCR
# Artifacts per kind are capped for slow modalities (rendering and OCR/ASR cost seconds each).
DEFAULT_MAX_ARTIFACTS = {"wav": 4, "mp4": 2, "png": 6, "scan": 4}
# Share of authoritative carriers by kind (a kind not listed uses its class `weight`): the
# records of reference carry the rules; conversations mostly echo them (plan_roles).
CARRIER_WEIGHT = {
    "documents/pdf_manual": 3.0, "documents/kb_article": 3.0, "documents/memo": 2.0, "tables/rate_sheet": 2.0,
    "visuals/slide_deck": 1.0, "visuals/web_screenshot": 1.0, "visuals/app_screenshot": 0.8,
    "visuals/flowchart": 0.8, "visuals/chart": 0.8, "documents/scanned_letter": 0.8,
    "conversations/email_thread": 1.0, "conversations/team_chat": 1.0,
    "conversations/chat_transcript": 0.6, "conversations/meeting_transcript": 0.5, "tables/case_ledger": 0.3,
    "tables/ticket_export": 0.3,
}


def carrier_weight(cls) -> float:
    return CARRIER_WEIGHT.get(cls.key(), cls.weight)


class EvidencePlan(BaseModel):
    model_config = ConfigDict(extra="forbid")

    schema_version: str = PLAN_SCHEMA_VERSION
    domain: str
    variant: Optional[str] = None
    seed: int
    facts_hash: str
    config: PlanConfig
    artifacts: list[ArtifactSpec]
    routes: list[Route] = Field(default_factory=list)
    contested: list[str] = Field(default_factory=list)

    @property
    def hash(self) -> str:
        return content_hash(self.model_dump(mode="json"))

    def carriers(self) -> dict[str, list[str]]:
        """Fact id -> the artifacts that carry it authoritatively."""
        out: dict[str, list[str]] = {}
        for a in self.artifacts:
            for m in a.facts:
                if m.role == "carrier":
                    out.setdefault(m.fact_id, []).append(a.id)
        return out

    def mentions(self) -> dict[str, list[tuple[str, str]]]:
        """Fact id -> (artifact id, role) of every mention: carriers, echoes, partials, cases,
        hops and wrong or old values (their role: distractor, superseded, proposal, contested)."""
        out: dict[str, list[tuple[str, str]]] = {}
        for a in self.artifacts:
            for m in a.facts:
                out.setdefault(m.fact_id, []).append((a.id, m.role))
            for d in a.distractors:
                out.setdefault(d.fact_id, []).append((a.id, d.role))
        return out

    def by_family(self, family: str) -> list[ArtifactSpec]:
        return [a for a in self.artifacts if a.kind.split("/")[0] == family]


def artifact_seed(seed: int, artifact_id: str, round_: int = 0) -> int:
    return int(content_hash([seed, artifact_id, round_])[:8], 16)


def enabled_kinds(config: PlanConfig) -> list[type]:
    allowed = PROFILES[config.profile]
    out = []
    for key, cls in registry.kinds().items():
        if config.kinds is not None and key not in config.kinds:
            continue
        if cls.family in config.families and cls.modality in allowed:
            out.append(cls)
    if config.kinds is not None:
        unknown = set(config.kinds) - set(registry.kinds())
        if unknown:
            registry.get(sorted(unknown)[0])  # raises, listing what exists
    return out


def _max_artifacts(cls, config: PlanConfig) -> Optional[int]:
    if cls.key() in config.max_artifacts:
        return config.max_artifacts[cls.key()]
    if cls.modality in config.max_artifacts:
        return config.max_artifacts[cls.modality]
    return DEFAULT_MAX_ARTIFACTS.get(cls.modality)


def _targets(n_mentions: int, kinds: list[type], config: PlanConfig) -> dict[str, int]:
    """Facts per kind: proportional to weight, capped, overflow to uncapped kinds."""
    caps = {}
    for k in kinds:
        m = _max_artifacts(k, config)
        caps[k.key()] = None if m is None else m * k.max_facts
    targets = {k.key(): 0 for k in kinds}
    remaining, open_kinds = n_mentions, list(kinds)
    while remaining > 0 and open_kinds:
        wsum = sum(carrier_weight(k) for k in open_kinds)
        share = {k.key(): max(1, int(remaining * carrier_weight(k) / wsum)) for k in open_kinds}
        progressed = 0
        next_open = []
        for k in open_kinds:
            key = k.key()
            give = share[key]
            if caps[key] is not None:
                give = min(give, caps[key] - targets[key])
            give = min(give, remaining - progressed)
            targets[key] += max(give, 0)
            progressed += max(give, 0)
            if caps[key] is None or targets[key] < caps[key]:
                next_open.append(k)
        remaining -= progressed
        open_kinds = next_open
        if progressed == 0:
            break
    return targets


SPEECH_MODALITIES = {"wav", "mp4"}


def _speakable(f: Fact) -> bool:
    """Short, not a catalog cell, and every value a multi-word spoken phrase (money, percent,
    duration): bare counts ("two") are what speech recognition confuses ("too", "to"), and
    "seconds" came back as "san can" and "sentence" in voicemail (measured on the imported
    multi-document fixture) and "within one hour" as "inside someone" in a retail call, so
    durations in seconds and values of one stay off speech kinds too. So do the teens (13 to
    19, also as the last two digits: "$115"): the recogniser hears "thirteen months" as "thirty
    month" through every re-voicing (airline@halcyon call_audio-0002, measured), the classic
    teen/ten confusion of speech recognition."""
    numeric = [s for s in f.slots if s.type not in (SlotType.enum, SlotType.identifier)]
    return (len(f.statement) <= 120 and " — " not in f.statement and bool(numeric) and
            all(s.type in (SlotType.money, SlotType.percent, SlotType.duration) and s.unit != "second"
                and not (s.value == 1 and s.value_max is None) and not _teen(s.value) and not _teen(s.value_max)
                for s in numeric))


def _teen(v) -> bool:
    """A number spoken with a "-teen" (13 to 19, or its whole part ending so: 113, $14.95),
    which speech recognition confuses with the tens ("thirty")."""
    return isinstance(v, (int, float)) and 13 <= int(v) % 100 <= 19


def plan_evidence(factset: FactSet, seed: int = 0, config: Optional[PlanConfig] = None,
                  now: Optional[dt.datetime] = None, variant: Optional[str] = None,
                  banned: Optional[dict[str, set]] = None) -> EvidencePlan:
    """`banned`: fact id -> value keys no wrong or old figure of that fact may take (a variant
    passes its base domain's values, so a rebrand's records never show the original figures)."""
    config = config or PlanConfig()
    banned = banned or {}
    rng = random.Random(f"plan:{factset.domain}:{seed}")
    kinds = enabled_kinds(config)
    if not kinds:
        raise FactforgeError(f"plan config enables no artifact kinds (profile {config.profile}, "
                             f"families {config.families})")
    now = now or dt.datetime(2026, 1, 1)
    facts = factset.facts
    routed = R.choose_routed(facts, random.Random(f"routes:{factset.domain}:{seed}"), kinds) if config.roles else set()
    assignments = _carrier_assignments([f for f in facts if f.id not in routed], kinds, config, rng)
    quoted = quoted_facts(facts, factset.domain, seed, config)

    start = now.date() - dt.timedelta(days=config.history_days)
    end = now.date() - dt.timedelta(days=1)
    specs: list[ArtifactSpec] = []
    fact_ids_with_num = [f for f in facts if value_slot(f) and f.id not in routed]

    def make(k: type, day: dt.date, noise: bool = False) -> ArtifactSpec:
        tmp = f"tmp-{len(specs):06d}"
        spec = ArtifactSpec(id=tmp, kind=k.key(), path="", seed=0, date=day.isoformat(), noise=noise)
        return spec

    for k, chunk in assignments:
        art_rng = random.Random(f"{seed}:carrier:{len(specs)}:{k.key()}")
        day = start + dt.timedelta(days=art_rng.randrange(config.history_days - 3) + 3)
        spec = make(k, day, noise=not chunk)
        spec.title = " / ".join(chunk[0].section) if chunk else ""
        spec.facts = [FactMention(fact_id=f.id, rendition=R.rendition_in(k, f, _rendition(f, quoted)))
                      for f in chunk]
        if k.supports_distractors:
            spec.distractors = _in_file_distractors(chunk, art_rng, config, day, k.key(), banned, rumours=k.rumours)
        specs.append(spec)

    routes: list[Route] = []
    contested: list[str] = []
    if config.roles:
        def voiced(f: Fact) -> str:
            return _rendition(f, quoted)
        routes, contested = R.add_roles(specs, facts, kinds, config, rng, start, end, routed, make, voiced, banned)

    # stray hedged beliefs in files that carry nothing (a careless reader of the wrong file)
    by_kind = {k.key(): k for k in kinds}
    for spec in specs:
        art_rng = random.Random(f"{seed}:stray:{spec.id}")
        if (not spec.facts and not spec.distractors and by_kind[spec.kind].supports_distractors and fact_ids_with_num
                and by_kind[spec.kind].rumours and art_rng.random() < config.stray_distractor_rate):
            f = art_rng.choice(fact_ids_with_num)
            slot = value_slot(f)
            wv = wrong_value(slot, art_rng)
            if wv is not None and not same_value(wv, {x.key() for x in f.slots} | banned.get(f.id, set()), slot):
                spec.distractors.append(Distractor(fact_id=f.id, slot=slot.name, text=wv, role="distractor"))

    artifacts = _finalise(specs, by_kind, seed, config)
    routes = R.fix_route_hops(routes, [a for a in artifacts])
    artifacts.sort(key=lambda a: (a.kind, a.id))
    return EvidencePlan(domain=factset.domain, variant=variant, seed=seed, facts_hash=factset.hash,
                        config=config, artifacts=artifacts, routes=routes, contested=contested)


def quoted_facts(facts: list[Fact], domain: str, seed: int, config: PlanConfig) -> set[str]:
    """The facts whose policy wording the records quote: a share `1 - voiced_rate` of them,
    drawn per fact (not per mention), so the other facts are never written in the policy's
    words anywhere: every carrier words them its own way (a manual in its formal register, a
    workbook in its terse one, a chat in an agent's). A fact the realiser cannot voice is
    quoted whatever the draw."""
    return {f.id for f in facts
            if random.Random(f"quoted:{domain}:{seed}:{f.id}").random() >= config.voiced_rate or not voiceable(f)}


def _rendition(f: Fact, quoted: set[str]) -> str:
    return "canonical" if f.id in quoted else "voiced"


def _in_file_distractors(chunk: list[Fact], rng: random.Random, config: PlanConfig, day: dt.date,
                         kind: str = "", banned: Optional[dict[str, set]] = None,
                         rumours: bool = True) -> list[Distractor]:
    """Wrong values inside a carrier: in a conversation, stated plainly by someone and corrected
    later in the file (resolution "correction"); in a document, quoted as a misconception or an
    old value the file calls superseded (hedged)."""
    own_values = {s.key() for f in chunk for s in f.slots}
    out: list[Distractor] = []
    for f in chunk:
        slot = value_slot(f)
        if slot is None:
            continue
        r = rng.random()
        # documents quote a misconception now and then; conversations are where people get it wrong
        rate = config.distractor_rate * (1.0 if kind in R.CONVERSATIONAL or not kind else 0.3)
        role = ("superseded" if r < config.superseded_rate
                else "distractor" if r < config.superseded_rate + rate else None)
        if role is None or (role == "distractor" and not rumours):  # a slide or process map says no rumours
            continue
        wv = wrong_value(slot, rng)
        if wv is None or same_value(wv, own_values | (banned or {}).get(f.id, set()), slot):
            continue
        d_date = (day - dt.timedelta(days=rng.randint(20, 120))).isoformat() if role == "superseded" else None
        plain = role == "distractor" and kind in R.CONVERSATIONAL
        out.append(Distractor(fact_id=f.id, slot=slot.name, text=wv, role=role, date=d_date,
                              resolution="correction" if plain else "hedge"))
    return out


def _finalise(specs: list[ArtifactSpec], by_kind: dict[str, type], seed: int, config: PlanConfig) -> list[ArtifactSpec]:
    """Ids per kind in creation order, paths, seeds (a reviewer's rejection reseeds one file),
    and each file's amount of routine traffic."""
    counters: dict[str, int] = {}
    out = []
    for spec in specs:
        k = by_kind[spec.kind]
        counters[spec.kind] = counters.get(spec.kind, 0) + 1
        aid = f"{k.kind}-{counters[spec.kind]:04d}"
        round_ = config.reseed.get(aid, 0)
        size = R.draw_size(spec.kind, random.Random(f"{seed}:{aid}:size")) if config.roles else None
        stated = spec.facts or [d for d in spec.distractors if d.resolution in ("date", "version", "authority", "none")]
        out.append(spec.model_copy(update={
            "id": aid, "path": f"evidence/{k.family}/{k.kind}/{aid}{k.ext}", "seed": artifact_seed(seed, aid, round_),
            "noise": not stated, "size": size,
            "title": spec.title or (" / ".join(spec.title.split(" / ")) if spec.title else "")}))
    return out


def _carrier_assignments(facts: list[Fact], kinds: list[type], config: PlanConfig,
                         rng: random.Random) -> list[tuple[type, list[Fact]]]:
    """(kind, facts) per carrier artifact (the first pass; see the module doc)."""
    n = len(facts)
    carriers = min(config.carriers_per_fact, len(kinds))
    targets = _targets(n * carriers, kinds, config)

    # Fact stream: sections in a seeded order, facts in document order inside a section.
    sections: dict[tuple, list[Fact]] = {}
    for f in facts:
        sections.setdefault(tuple(f.section), []).append(f)
    order = list(sections)
    rng.shuffle(order)
    stream = [f for sec in order for f in sections[sec]]

    # Speech kinds first take facts a person would say on a call: short, with a spoken
    # value (money, percent, duration), not a catalog cell; those facts leave the stream.
    assignments: list[tuple[type, list[Fact]]] = []
    left = dict(targets)
    speech = [k for k in kinds if k.modality in SPEECH_MODALITIES]
    full_stream = stream
    if speech:
        pool = [f for f in stream if _speakable(f)]
        rng.shuffle(pool)
        taken: set[str] = set()
        for k in speech:
            while left[k.key()] > 0 and pool:
                size = min(k.max_facts, left[k.key()], len(pool))
                size = rng.randint(max(1, (size + 1) // 2), size)
                chunk, pool = pool[:size], pool[size:]
                assignments.append((k, chunk))
                taken |= {f.id for f in chunk}
                left[k.key()] -= size
            left[k.key()] = 0
        stream = [f for f in stream if f.id not in taken]

    # Kinds that carry only some facts (`Transformer.carries`: a process map procedure steps, a
    # dashboard chart the values it can label) take theirs next, a section's together and in
    # order; those leave the stream too.
    for k in kinds:
        if not k.selective() or k.modality in SPEECH_MODALITIES:
            continue
        own: dict[tuple, list[Fact]] = {}
        for f in stream:
            if k.carries(f):
                own.setdefault(tuple(f.section), []).append(f)
        taken = set()
        for steps in own.values():
            parts = -(-len(steps) // k.max_facts)
            size = -(-len(steps) // parts)
            for j in range(0, len(steps), size):
                if left[k.key()] <= 0:
                    break
                chunk = steps[j:j + size]
                assignments.append((k, chunk))
                taken |= {f.id for f in chunk}
                left[k.key()] -= len(chunk)
        left[k.key()] = 0
        stream = [f for f in stream if f.id not in taken]
        n = len(stream)

    # Each carrier round rotates the stream; kinds take chunks up to max_facts.
    for c in range(carriers):
        base = stream if c == 0 else full_stream
        rot = (c * max(1, len(base) // carriers)) % max(len(base), 1)
        s = base[rot:] + base[:rot]
        i = 0
        turn = [k for k in kinds]
        stalled = 0
        while i < len(s):
            start_i = i
            live = [k for k in turn if left[k.key()] > 0]
            if not live:
                # rounding left a few facts: any kind takes them, but a speech kind or a kind of
                # some facts only what it can carry (those were handed out above)
                live = [k for k in kinds if k.modality not in SPEECH_MODALITIES and not k.selective()] or \
                    [k for k in kinds if k.modality not in SPEECH_MODALITIES] or kinds
                for k in live:
                    left[k.key()] = max(left[k.key()], 1)
            rng.shuffle(live)
            for k in live:
                if i >= len(s):
                    break
                size = min(k.max_facts, left[k.key()], len(s) - i)
                size = max(k.min_facts, rng.randint(max(1, (size + 1) // 2), max(1, size))) if size > 0 else 0
                size = min(size, len(s) - i)
                if size <= 0:
                    continue
                chunk = s[i:i + size]
                prev = {f.id for kk, ch in assignments if kk is k for f in ch}
                if c > 0 and stalled < 2 and any(f.id in prev for f in chunk) and len(kinds) > 1:
                    continue  # a second carrier of the same kind adds nothing (unless stuck)
                assignments.append((k, chunk))
                left[k.key()] -= size
                i += size
            stalled = stalled + 1 if i == start_i else 0

    # Small domains: a kind the split left empty still gets one artifact, carrying a fact
    # (an extra carrier), so every enabled kind is exercised and checked.
    # A speech kind only takes a fact speech recognition can carry; without one it still gets
    # an artifact, carrying no fact.
    # A kind of some facts (a process map) takes one of those, else carries no fact either.
    used = {k.key() for k, _ in assignments}
    spare = [f for f in stream if value_slot(f)] or stream
    speakable = [f for f in full_stream if _speakable(f)]
    for j, k in enumerate(k for k in kinds if k.key() not in used):
        pool = speakable if k.modality in SPEECH_MODALITIES else \
            [f for f in full_stream if k.carries(f)] if k.selective() else spare
        if pool:
            assignments.append((k, pool[(j * 7) % len(pool):(j * 7) % len(pool) + 1]))
        elif k.modality in SPEECH_MODALITIES or k.selective():
            assignments.append((k, []))

    # Without the second pass: noise artifacts, spread over kinds (cheap kinds first).
    if not config.roles:
        n_noise = int(round(len(assignments) * config.noise_ratio))
        noise_kinds = [k for k in kinds if _max_artifacts(k, config) is None] or kinds
        for j in range(n_noise):
            assignments.append((noise_kinds[j % len(noise_kinds)], []))
    return assignments
