"""The evidence planner: which facts go into which artifacts.

Every fact gets `carriers_per_fact` authoritative carriers, each of a different kind where
possible. Facts of one section travel together (an email about baggage carries several
baggage facts). Kinds get a share of the facts proportional to their `weight`, capped by
`max_artifacts` for the expensive modalities (audio, video, images); what those cannot take
flows to the kinds that can (tables and manuals carry the bulk of a large catalog).

Realism levers recorded in the plan:
- noise artifacts (no authoritative facts) at `noise_ratio` per fact-bearing artifact;
- distractors: a wrong but plausible value of a carried fact, hedged (a customer's wrong
  belief, a colleague's rumour), placed before the authoritative statement;
- superseded values: an older value dated before the artifact, explicitly overridden;
- stray distractors in noise artifacts (a wrong belief about a fact this file does not
  carry), so a careless reader of the wrong file gets it wrong.
Distractor values never equal a value the same artifact states authoritatively.
The plan is a pure function of (facts, pack, seed, config); same inputs, same plan hash.
"""
from __future__ import annotations

import datetime as dt
import random
from typing import Literal, Optional

from pydantic import BaseModel, ConfigDict, Field

from facts.hashing import content_hash
from facts.models import Fact, FactSet, Slot, SlotType
from facts.surface import FREQUENCY_NAMES, fmt_num, unit_words

from . import registry
from .base import PLAN_SCHEMA_VERSION, ArtifactSpec, Distractor, FactMention
from .realise import voiceable

PROFILES: dict[str, set[str]] = {
    "text-only": {"text", "eml", "json", "vtt", "csv", "xlsx", "html", "pdf", "docx"},
    "text+image": {"text", "eml", "json", "vtt", "csv", "xlsx", "html", "pdf", "docx", "png"},
    "text+image+audio": {"text", "eml", "json", "vtt", "csv", "xlsx", "html", "pdf", "docx", "png", "wav"},
    "full": {"text", "eml", "json", "vtt", "csv", "xlsx", "html", "pdf", "docx", "png", "wav", "mp4"},
}
# Artifacts per kind are capped for slow modalities (rendering and OCR/ASR cost seconds each).
DEFAULT_MAX_ARTIFACTS = {"wav": 4, "mp4": 2, "png": 6}


class PlanConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    carriers_per_fact: int = Field(1, ge=1, le=5)
    families: list[str] = Field(default_factory=lambda: list(registry.FAMILIES))
    kinds: Optional[list[str]] = None  # explicit subset of "family/kind"
    profile: Literal["text-only", "text+image", "text+image+audio", "full"] = "full"
    noise_ratio: float = Field(0.5, ge=0, le=10)
    distractor_rate: float = Field(0.25, ge=0, le=1)
    superseded_rate: float = Field(0.15, ge=0, le=1)
    voiced_rate: float = Field(0.4, ge=0, le=1)
    stray_distractor_rate: float = Field(0.5, ge=0, le=1)
    max_artifacts: dict[str, int] = Field(default_factory=dict)  # by kind key or modality
    reseed: dict[str, int] = Field(default_factory=dict)  # artifact id -> regeneration round
    history_days: int = Field(180, ge=7)


class EvidencePlan(BaseModel):
    model_config = ConfigDict(extra="forbid")

    schema_version: str = PLAN_SCHEMA_VERSION
    domain: str
    variant: Optional[str] = None
    seed: int
    facts_hash: str
    config: PlanConfig
    artifacts: list[ArtifactSpec]

    @property
    def hash(self) -> str:
        return content_hash(self.model_dump(mode="json"))

    def carriers(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for a in self.artifacts:
            for m in a.facts:
                out.setdefault(m.fact_id, []).append(a.id)
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
        wsum = sum(k.weight for k in open_kinds)
        share = {k.key(): max(1, int(remaining * k.weight / wsum)) for k in open_kinds}
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
        return f"${fmt_num(w)}" if (slot.unit or "USD") in ("USD", "CAD", "AUD") else f"{fmt_num(w)} {slot.unit}"
    if slot.type == SlotType.percent:
        return f"{fmt_num(w)}%"
    if slot.type == SlotType.duration:
        return f"{fmt_num(w)} {unit_words(slot.unit, w)}"
    if slot.unit == "time":  # a frequency: "once" -> "twice", "3 times"
        return FREQUENCY_NAMES.get(w, f"{fmt_num(w)} times")
    if slot.unit:  # a measured count: "3G" -> "4G", "2GB" -> "3 GB"
        return f"{fmt_num(w)}{slot.unit}" if slot.unit == "G" else f"{fmt_num(w)} {slot.unit}"
    return fmt_num(w)


SPEECH_MODALITIES = {"wav", "mp4"}


def _speakable(f: Fact) -> bool:
    """Short, not a catalog cell, and every value a multi-word spoken phrase (money, percent,
    duration): bare counts ("two") are what speech recognition confuses ("too", "to"), and
    "seconds" came back as "san can" and "sentence" in voicemail (measured on the imported
    multi-document fixture) and "within one hour" as "inside someone" in a retail call, so
    durations in seconds and values of one stay off speech kinds too."""
    numeric = [s for s in f.slots if s.type not in (SlotType.enum, SlotType.identifier)]
    return (len(f.statement) <= 120 and " — " not in f.statement and bool(numeric) and
            all(s.type in (SlotType.money, SlotType.percent, SlotType.duration) and s.unit != "second"
                and not (s.value == 1 and s.value_max is None) for s in numeric))


def _numeric_slot(f: Fact) -> Optional[Slot]:
    for s in f.slots:
        if s.type in (SlotType.money, SlotType.percent, SlotType.duration, SlotType.count) and \
                isinstance(s.value, (int, float)):
            return s
    return None


def plan_evidence(factset: FactSet, seed: int = 0, config: Optional[PlanConfig] = None,
                  now: Optional[dt.datetime] = None, variant: Optional[str] = None) -> EvidencePlan:
    config = config or PlanConfig()
    rng = random.Random(f"plan:{factset.domain}:{seed}")
    kinds = enabled_kinds(config)
    if not kinds:
        from facts.errors import FactforgeError  # noqa: PLC0415
        raise FactforgeError(f"plan config enables no artifact kinds (profile {config.profile}, "
                             f"families {config.families})")
    now = now or dt.datetime(2026, 1, 1)
    facts = factset.facts
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
        n = len(stream)

    # Kinds that carry only some kinds of fact (a process map: procedure steps) take theirs
    # next, a section's steps together and in order; those leave the stream too.
    for k in kinds:
        if k.fact_kinds is None or k.modality in SPEECH_MODALITIES:
            continue
        own: dict[tuple, list[Fact]] = {}
        for f in stream:
            if f.kind.value in k.fact_kinds:
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
                live = [k for k in kinds if k.modality not in SPEECH_MODALITIES and k.fact_kinds is None] or \
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
    spare = [f for f in stream if _numeric_slot(f)] or stream
    speakable = [f for f in full_stream if _speakable(f)]
    for j, k in enumerate(k for k in kinds if k.key() not in used):
        pool = speakable if k.modality in SPEECH_MODALITIES else \
            [f for f in full_stream if f.kind.value in k.fact_kinds] if k.fact_kinds is not None else spare
        if pool:
            assignments.append((k, pool[(j * 7) % len(pool):(j * 7) % len(pool) + 1]))
        elif k.modality in SPEECH_MODALITIES or k.fact_kinds is not None:
            assignments.append((k, []))

    # Noise artifacts, spread over kinds by weight (cheap kinds first).
    n_noise = int(round(len(assignments) * config.noise_ratio))
    noise_kinds = [k for k in kinds if _max_artifacts(k, config) is None] or kinds
    for j in range(n_noise):
        assignments.append((noise_kinds[j % len(noise_kinds)], []))

    counters: dict[str, int] = {}
    artifacts: list[ArtifactSpec] = []
    displaced: list[tuple[Fact, Distractor]] = []  # rumours planned for kinds that do not say them
    fact_ids_with_num = [f for f in facts if _numeric_slot(f)]
    start = now.date() - dt.timedelta(days=config.history_days)
    for k, chunk in assignments:
        counters[k.key()] = counters.get(k.key(), 0) + 1
        aid = f"{k.kind}-{counters[k.key()]:04d}"
        art_rng = random.Random(f"{seed}:{aid}")
        day = start + dt.timedelta(days=art_rng.randrange(config.history_days - 3) + 3)
        mentions = [FactMention(fact_id=f.id, rendition="voiced" if art_rng.random() < config.voiced_rate
                                and k.voices and voiceable(f) else "canonical") for f in chunk]
        own_values = {s.key() for f in chunk for s in f.slots}
        distractors: list[Distractor] = []
        if k.supports_distractors:
            for f in chunk:
                slot = _numeric_slot(f)
                if slot is None:
                    continue
                r = art_rng.random()
                role = ("superseded" if r < config.superseded_rate
                        else "distractor" if r < config.superseded_rate + config.distractor_rate else None)
                if role is None:
                    continue
                wv = wrong_value(slot, art_rng)
                if wv is None or _same_value(wv, own_values, slot):
                    continue
                d_date = (day - dt.timedelta(days=art_rng.randint(20, 120))).isoformat() if role == "superseded" else None
                d = Distractor(fact_id=f.id, slot=slot.name, text=wv, role=role, date=d_date)
                if role == "distractor" and not k.rumours:
                    displaced.append((f, d))
                else:
                    distractors.append(d)
            if not chunk and fact_ids_with_num and art_rng.random() < config.stray_distractor_rate:
                f = art_rng.choice(fact_ids_with_num)
                slot = _numeric_slot(f)
                wv = wrong_value(slot, art_rng)
                if wv is not None and k.rumours:
                    distractors.append(Distractor(fact_id=f.id, slot=slot.name, text=wv, role="distractor"))
        round_ = config.reseed.get(aid, 0)
        artifacts.append(ArtifactSpec(
            id=aid, kind=k.key(), path=f"evidence/{k.family}/{k.kind}/{aid}{k.ext}",
            seed=artifact_seed(seed, aid, round_), date=day.isoformat(),
            title=" / ".join(chunk[0].section) if chunk else "", facts=mentions,
            distractors=distractors, noise=not chunk))
    _route_rumours(displaced, artifacts, seed, {f.id: f for f in facts})
    artifacts.sort(key=lambda a: (a.kind, a.id))
    return EvidencePlan(domain=factset.domain, variant=variant, seed=seed, facts_hash=factset.hash,
                        config=config, artifacts=artifacts)


def _route_rumours(displaced: list[tuple[Fact, Distractor]], artifacts: list[ArtifactSpec], seed: int,
                   by_id: dict[str, Fact]) -> None:
    """A wrong value planned for a kind that does not say rumours goes to a written
    conversation (chat, e-mail, team chat, meeting), where people say such things: one that
    carries the fact (it is corrected there) and has no wrong value of it yet, else a
    fact-free one (a stray belief), else any; never one stating that value as current.
    Without a conversation kind in the plan it is dropped."""
    talk = []
    for a in artifacts:
        cls = registry.get(a.kind)
        if cls.family == "conversations" and cls.rumours and cls.supports_distractors and \
                cls.modality not in SPEECH_MODALITIES:
            talk.append(a)
    for f, d in displaced:
        slot = next((s for s in f.slots if s.name == d.slot), None)
        ok = [a for a in talk if slot is None or not _same_value(d.text, _values_of(a, by_id), slot)]
        tiers = ([a for a in ok if f.id in a.fact_ids and not any(x.fact_id == f.id for x in a.distractors)],
                 [a for a in ok if a.noise], ok)
        pool = next((t for t in tiers if t), [])
        if pool:
            random.Random(f"{seed}:rumour:{f.id}:{d.text}").choice(pool).distractors.append(d)


def _values_of(a: ArtifactSpec, by_id: dict[str, Fact]) -> set[tuple]:
    """Value keys of every fact an artifact states as current."""
    return {s.key() for fid in a.fact_ids if fid in by_id for s in by_id[fid].slots}


def _same_value(text: str, own_keys: set[tuple], slot: Slot) -> bool:
    from facts.values import parse_slots  # noqa: PLC0415

    try:
        parsed = parse_slots(text)
    except Exception:  # noqa: BLE001 - a wrong value we cannot parse back is not used
        return True
    return any(p.key() in own_keys for p in parsed) or not parsed
