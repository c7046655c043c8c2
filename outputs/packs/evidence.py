"""A task's evidence surface: the domain's plan, narrowed to what the task delivers, edited for
the client's knowledge, rendered through the shared content-addressed cache and proven.

- **Base plan** per (bundle, modality profile, difficulty preset): the same planner call,
  configuration and audit reseeds as the domain's own build (`factforge build`), so the
  standard preset of the full profile *is* the domain bundle's plan and every file comes
  from the render cache.
- **Delivery**: kinds outside `evidence.kinds` are dropped; with `evidence.sections`, a
  file is delivered when it carries a fact of a delivered section or carries no fact at all
  (routine traffic). Dropping files renders nothing.
- **Client edit**: `withhold.withhold_and_contest` (only edited and added files render).
- **Proofs**, reading the delivered files with recoverability's extractors (and its
  extraction cache): every held fact is absent from every delivered file
  (`presence.present_as`); every contested fact is stated with its current value in one
  file and with the conflicting value in another. Which facts a delivered carrier really
  states is measured the same way (`Surface.recovered`): a carrier the extractor cannot
  read back is reported (`unrecovered`), not trusted, and the build's learnability check
  keeps tests that need its fact out of the task. (That every planned carrier is readable
  is the domain bundle's own gate, `all_facts_recoverable`.)

Difficulty presets are overrides of the planner's configuration; `standard` overrides
nothing.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from audits.extraction import extract_all, jobs_for
from audits.recoverability import prove_route
from facts.errors import FactforgeError
from facts.match import TextIndex, match_fact
from facts.models import Fact, FactSet, replace_value
from transforms import registry
from transforms.base import RenderContext
from transforms.planner import EvidencePlan, PlanConfig, plan_evidence
from transforms.pool import get_pool
from transforms.render import Rendered, render_artifacts
from transforms.writers import make_writer as mk

from .presence import present_as, rivals_of
from .withhold import PlanEdit, withhold_and_contest

PRESETS: dict[str, dict] = {
    "easy": {"distractor_rate": 0.0, "superseded_rate": 0.0, "stray_distractor_rate": 0.0, "voiced_rate": 0.0,
             "noise_ratio": 0.25},
    "standard": {},
    "hard": {"distractor_rate": 0.45, "superseded_rate": 0.3, "stray_distractor_rate": 0.8, "voiced_rate": 0.8,
             "noise_ratio": 1.0},
}
DOMAIN_PLAN = {"carriers_per_fact": 1, "noise_ratio": 0.5}  # what `factforge build` plans with


def make_writer(pack):
    """The writer `factforge build` uses (same environment variables), so renders share its cache."""
    name = os.environ.get("FACTFORGE_WRITER", "builtin")
    kw = {"model": os.environ.get("FACTFORGE_LLM_MODEL")} if name == "llm" else {}
    return mk(pack, name, **kw)


def audit_reseeds(world, audit_db: Optional[Path]) -> dict[str, int]:
    if audit_db is None or not Path(audit_db).exists():
        return {}
    from audits.queue import AuditQueue  # noqa: PLC0415  (deferred: numpy, only for reviews)
    return AuditQueue(audit_db).rejected_artifacts(world.base.name, world.variant)


@dataclass
class Surface:
    """The evidence one task delivers, with its proofs."""
    plan: EvidencePlan
    rendered: list[Rendered]
    facts: dict[str, Fact]                      # the world's facts plus contested versions
    edit: PlanEdit
    texts: dict[str, str]                       # artifact id -> extracted text
    extractors: dict[str, str]                  # artifact id -> extractor name
    recovered: set[str] = field(default_factory=set)   # fact ids recoverable from the delivered files
    report: dict = field(default_factory=dict)

    def problems(self) -> list[str]:
        return list(self.report.get("problems", []))


class EvidenceBuilder:
    """Evidence surfaces of one world (a domain or variant). Base plans, renders, extractions
    and text indexes are memoised for the builder's life (one pack build)."""

    def __init__(self, world, factset: FactSet, db: dict, seed: int, cache_dir: Path,
                 audit_db: Optional[Path] = None, workers: int = 1):
        self.world, self.factset, self.db, self.seed = world, factset, db, seed
        self.workers = workers  # processes rendering and extracting (transforms.pool; 0 = every core)
        self.cache_dir = Path(cache_dir)
        self.by_id = factset.by_id()
        self.writer = make_writer(world.pack)
        self.reseed = audit_reseeds(world, audit_db)
        self._plans: dict[tuple[str, str], EvidencePlan] = {}
        self._texts: dict[str, tuple[str, str]] = {}  # extraction key -> (text, extractor)
        self._index: dict[str, TextIndex] = {}

    def sections(self) -> list[str]:
        return list(dict.fromkeys(f.section[0] for f in self.factset.facts if f.section))

    def base(self, profile: str, difficulty: str) -> EvidencePlan:
        key = (profile, difficulty)
        if key not in self._plans:
            cfg = PlanConfig(profile=profile, reseed=self.reseed, **{**DOMAIN_PLAN, **PRESETS[difficulty]})
            self._plans[key] = plan_evidence(self.factset, self.seed, cfg, now=self.world.pack.info.now,
                                             variant=self.world.variant, banned=self.world.base_values())
        return self._plans[key]

    def deliver(self, plan: EvidencePlan, sections: list[str], kinds: list[str]) -> EvidencePlan:
        keep = []
        for a in plan.artifacts:
            if kinds and a.kind not in kinds:
                continue
            if sections and a.facts and not any(self.by_id[m.fact_id].section[:1] and
                                                self.by_id[m.fact_id].section[0] in sections for m in a.facts):
                continue
            keep.append(a)
        # A records-contested fact (plan.contested) whose current version the delivered files
        # do not carry (a desk's sections or kinds left its carriers out) would leave only its
        # conflicting version in the kit: that version is taken out of the delivered files too
        # (an edit of the hosts, like a held fact's), so the kit never holds a rival with
        # nothing to rival.
        stated = {m.fact_id for a in keep for m in a.facts if m.role != "hop"}
        orphans = {fid for fid in plan.contested if fid not in stated}
        if orphans:
            def rival(d) -> bool:
                return d.fact_id in orphans and d.role == "contested"

            keep = [a if not any(rival(d) for d in a.distractors) else
                    a.model_copy(update={"distractors": [d for d in a.distractors if not rival(d)],
                                         "noise": a.noise or not (a.facts or [d for d in a.distractors
                                                                             if not rival(d)])})
                    for a in keep]
        return plan.model_copy(update={"artifacts": keep, "contested": [f for f in plan.contested if f not in orphans]})

    def render(self, plan: EvidencePlan, facts: dict[str, Fact]) -> list[Rendered]:
        workdir = self.cache_dir / "tmp"
        workdir.mkdir(parents=True, exist_ok=True)
        ctx = RenderContext(pack=self.world.pack, facts=facts, writer=self.writer, db=self.db, workdir=workdir,
                            extraction_cache=self.cache_dir)
        return render_artifacts(plan.artifacts, ctx, self.cache_dir / "render", pool=get_pool(workers=self.workers))

    def extract(self, plan: EvidencePlan, rendered: list[Rendered], facts: FactSet) -> tuple[dict, dict]:
        """Extracted text per artifact id, through the build's extraction cache
        (audits.extraction: same jobs, same keys)."""
        files = {r.artifact_id: (Path(r.file), r.sha256) for r in rendered}
        jobs = jobs_for(plan.artifacts, files, facts.by_id())
        todo = [j for j in jobs if j.key not in self._texts]
        done = extract_all(todo, self.cache_dir, pool=get_pool(workers=self.workers)).by_id
        for j in todo:
            self._texts[j.key] = (done[j.artifact_id].text, done[j.artifact_id].extractor)
        texts, names = {}, {}
        for j in jobs:
            texts[j.artifact_id], names[j.artifact_id] = self._texts[j.key]
        return texts, names

    def index(self, text: str) -> TextIndex:
        if text not in self._index:
            self._index[text] = TextIndex(text, currency=self.world.pack.info.currency)
        return self._index[text]

    def surface(self, profile: str, difficulty: str, sections: list[str], kinds: list[str],
                held: list[str], contested: list[str]) -> Surface:
        unknown = [s for s in sections if s not in self.sections()]
        if unknown:
            raise FactforgeError(f"unknown policy section {unknown[0]!r}; sections: {', '.join(self.sections())}")
        bad = [k for k in kinds if k not in registry.kinds()]
        if bad:
            registry.get(bad[0])
        plan = self.deliver(self.base(profile, difficulty), sections, kinds)
        if not plan.artifacts:
            raise FactforgeError(f"the evidence surface delivers no file (profile {profile}, kinds {kinds}, "
                                 f"sections {sections})")
        edit = withhold_and_contest(plan, self.by_id, held, contested, self.seed)
        facts = {**self.by_id, **{v.id: v for v in edit.versions.values()}}
        rendered = self.render(edit.plan, facts)
        fs = self.factset.model_copy(update={"facts": [*self.factset.facts, *edit.versions.values()]})
        texts, names = self.extract(edit.plan, rendered, fs)
        surf = Surface(plan=edit.plan, rendered=rendered, facts=facts, edit=edit, texts=texts, extractors=names)
        self.prove(surf, held, contested)
        return surf

    def prove(self, surf: Surface, held: list[str], contested: list[str]) -> None:
        """Fill `surf.recovered` and `surf.report` (problems listed under "problems")."""
        problems: list[str] = []
        unrecovered: list[dict] = []
        where: dict[str, list[str]] = {}
        held_set = set(held)
        rivals = {h: rivals_of(self.by_id[h], [f for f in self.factset.facts if f.id not in held_set]) for h in held}
        presence: dict[str, list[dict]] = {h: [] for h in held}
        indexes = {}
        for spec in surf.plan.artifacts:
            idx = indexes[spec.id] = self.index(surf.texts[spec.id])
            speech = registry.get(spec.kind).modality == "wav"
            for m in spec.facts:
                if m.role == "hop":
                    continue  # a route's parts are proven together below
                if match_fact(surf.facts[m.fact_id], idx, speech=speech).recovered:
                    where.setdefault(m.fact_id, []).append(spec.path)
                elif m.role in ("carrier", "echo"):  # partial mentions and cases are not the whole fact
                    unrecovered.append({"path": spec.path, "fact_id": m.fact_id,
                                        "extractor": surf.extractors[spec.id]})
            for h in held:
                hit = present_as(self.by_id[h], idx, rivals[h], speech=speech)
                if hit:
                    presence[h].append({"path": spec.path, "extractor": surf.extractors[spec.id], "text": hit})
                    problems.append(f"{spec.path}: held fact {h} is present ({surf.extractors[spec.id]}): {hit!r}")
        specs = {a.id: a for a in surf.plan.artifacts}
        for r in surf.plan.routes:  # multi-hop: the key file and the schedule, read back together
            if r.fact_id in surf.facts and prove_route(r, surf.facts[r.fact_id], indexes, specs,
                                                                   self.world.pack.info.currency)["recovered"]:
                key = next(h.artifact_id for h in r.hops if h.part == "key")
                where.setdefault(r.fact_id, []).append(specs[key].path)
        contest: dict[str, dict] = {}
        for fid in contested:
            vid = surf.edit.versions[fid].id
            current = where.get(fid, [])
            conflicting = where.get(vid, [])
            contest[fid] = {"current_in": current, "conflicting_in": conflicting,
                            "conflicting_statement": surf.edit.versions[fid].statement}
            if not current or not conflicting:
                problems.append(f"contested fact {fid}: current value in {len(current)} file(s), conflicting "
                                f"version in {len(conflicting)}: the kit must hold both")
        # a fact the domain's records contest (two official-looking versions, nothing resolving
        # them: plan.contested) is not learnable from the kit; only a client can settle it (an
        # enabled client knows the version in force: `records_contested`, in the client brief)
        surf.recovered = {f for f in where if f in self.by_id} - set(surf.plan.contested)
        disputed: dict[str, dict] = {}
        for fid in surf.plan.contested:
            f = self.by_id.get(fid)
            hosts = [(a, d) for a in surf.plan.artifacts for d in a.distractors
                     if d.fact_id == fid and d.role == "contested"]
            if f is None or not hosts:
                continue
            slot = next((s for s in f.slots if s.name == hosts[0][1].slot), f.slots[0] if f.slots else None)
            wrong = hosts[0][1].text
            conflicting = replace_value(f.statement, slot.text, wrong) if slot is not None else wrong
            disputed[fid] = {"current_in": where.get(fid, []), "conflicting_in": sorted({a.path for a, _ in hosts}),
                             "conflicting_statement": conflicting, "conflicting_values": [wrong]}
            if not where.get(fid):
                problems.append(f"records-contested fact {fid}: its current version is in no delivered file")
        surf.report = {
            "files_delivered": len(surf.plan.artifacts),
            "files_edited": sorted(surf.edit.edited), "files_added": sorted(surf.edit.added),
            "facts_total": len(self.factset.facts), "facts_recovered": len(surf.recovered),
            "unrecovered": unrecovered,
            "held": {h: {"files_checked": len(surf.plan.artifacts), "present_in": presence[h]} for h in held},
            "contested": contest,
            "records_contested": disputed,
            "problems": problems,
        }
