"""Client knowledge as an edit of a domain's evidence plan: `withhold_and_contest`.

A task's kit shares its domain's evidence. Holding facts back for the client, or contesting
them, must not re-plan the domain: the edit removes every reference to a held fact from the
artifacts that had one (and only those), and adds one new file per contested fact stating a
conflicting version. Every other artifact keeps its spec byte for byte, so the
content-addressed render cache serves it unchanged and only the edited and added files are
rendered.

What the edit does, on the plan's public structure (`EvidencePlan.artifacts`, each an
`ArtifactSpec` with `facts` (carriers) and `distractors` (wrong, superseded values)):

- **held**: the fact leaves every artifact in every role: its carrier mentions, echoes,
  partial mentions, cases, route hops (and the route), and its wrong, old, proposed or
  contested values. An artifact left with no fact becomes routine traffic
  (`noise`). Nothing else in the artifact changes.
- **contested**: the fact keeps its carriers; a new file of the first carrier's kind (or
  another written kind when that one is audio or video), dated the same day as that carrier
  and titled like it, states a *conflicting version* (the
  fact's statement with a plausible wrong value, `contested_version`), as authoritatively as
  the carrier states the right one. Nothing in the records says which is in force; the
  client does. The conflicting version is a fact of its own (id `<fact id>~contested`) so
  the renderer words it like any fact and recoverability can prove it is in the kit.
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass, field

from facts.errors import FactforgeError
from facts.hashing import content_hash
from facts.models import Fact, Slot, SlotType, replace_value
from facts.values import parse_slots
from transforms import registry
from transforms.plan_roles import wrong_value
from transforms.planner import EvidencePlan, artifact_seed
from transforms.plan import ArtifactSpec, FactMention

CONTESTED_SUFFIX = "~contested"
# Kinds that may host a contested version: written records a reader takes at face value.
HOST_MODALITIES = ("pdf", "docx", "html", "eml", "text")


@dataclass
class PlanEdit:
    plan: EvidencePlan
    versions: dict[str, Fact] = field(default_factory=dict)     # contested fact id -> conflicting version
    hosts: dict[str, str] = field(default_factory=dict)         # contested fact id -> artifact id stating it
    edited: list[str] = field(default_factory=list)             # artifact ids whose spec changed
    added: list[str] = field(default_factory=list)              # artifact ids added

    @property
    def touched(self) -> set[str]:
        return set(self.edited) | set(self.added)


def contested_version(fact: Fact, seed: int, salt: str = "contest", suffix: str = CONTESTED_SUFFIX) -> Fact:
    """The fact with its first numeric value replaced by a plausible wrong one (id: the fact's
    id plus `suffix`)."""
    rng = random.Random(content_hash([salt, seed, fact.id]))
    for i, slot in enumerate(fact.slots):
        wrong = wrong_value(slot, rng)
        if wrong is None:
            continue
        parsed = [s for s in parse_slots(wrong) if s.type == slot.type]
        if not parsed and slot.type == SlotType.count and re.fullmatch(r"\d+(\.\d+)?", wrong):
            parsed = [Slot(name=slot.name, type=SlotType.count, text=wrong, value=float(wrong) if "." in wrong
                           else int(wrong))]  # a bare count ("2") parses only next to its noun
        if not parsed or slot.text not in fact.statement:
            continue
        new_slot = parsed[0].model_copy(update={"name": slot.name, "qualifier": slot.qualifier})
        slots = list(fact.slots)
        slots[i] = new_slot
        return fact.model_copy(update={"id": fact.id + suffix, "slots": slots,
                                       "statement": replace_value(fact.statement, slot.text, new_slot.text)})
    raise FactforgeError(f"fact {fact.id} has no numeric value to contest: {fact.statement!r}")


def withhold_and_contest(plan: EvidencePlan, facts: dict[str, Fact], held: list[str], contested: list[str],
                         seed: int) -> PlanEdit:
    """The plan with `held` facts removed from every file and `contested` facts given a
    conflicting version in one new file each. Artifacts that reference neither keep their
    spec unchanged (same render cache key)."""
    held_set = set(held)
    artifacts: list[ArtifactSpec] = []
    edited: list[str] = []
    for a in plan.artifacts:
        if not (held_set & ({m.fact_id for m in a.facts} | {d.fact_id for d in a.distractors})):
            artifacts.append(a)
            continue
        mentions = [m for m in a.facts if m.fact_id not in held_set]
        distractors = [d for d in a.distractors if d.fact_id not in held_set]
        routes = [r for r in a.routes if r.fact_id not in held_set]
        stated = mentions or [d for d in distractors if d.resolution in ("date", "version", "authority", "none")]
        artifacts.append(a.model_copy(update={"facts": mentions, "distractors": distractors, "routes": routes,
                                              "noise": a.noise or not stated}))
        edited.append(a.id)

    edit = PlanEdit(plan=plan, edited=edited)
    counters: dict[str, int] = {}
    for a in artifacts:
        kind = a.kind
        n = int(a.id.rsplit("-", 1)[1]) if a.id.rsplit("-", 1)[-1].isdigit() else 0
        counters[kind] = max(counters.get(kind, 0), n)
    hosts = sorted({a.kind for a in artifacts if registry.get(a.kind).modality in HOST_MODALITIES})
    for fid in contested:
        # the carrier, or for a routed fact the file that names it by its schedule code
        carriers = [a for a in artifacts if fid in a.fact_ids] or \
            [a for a in artifacts if any(m.fact_id == fid and m.role == "hop" and m.part == "key" for m in a.facts)]
        if not carriers:
            raise FactforgeError(f"contested fact {fid} is carried by no delivered file")
        if not hosts:
            raise FactforgeError(f"no delivered kind can host a contested version of {fid} "
                                 f"(needs one of {', '.join(HOST_MODALITIES)})")
        version = contested_version(facts[fid], seed)
        first = min(carriers, key=lambda a: (a.date, a.id))
        rng = random.Random(content_hash(["contest-host", seed, fid]))
        kind = first.kind if first.kind in hosts else rng.choice(hosts)
        t = registry.get(kind)
        counters[kind] = counters.get(kind, 0) + 1
        aid = f"{t.kind}-{counters[kind]:04d}"
        artifacts.append(ArtifactSpec(
            id=aid, kind=kind, path=f"evidence/{t.family}/{t.kind}/{aid}{t.ext}", seed=artifact_seed(seed, aid),
            date=first.date, title=first.title, facts=[FactMention(fact_id=version.id, rendition="canonical")]))
        edit.versions[fid] = version
        edit.hosts[fid] = aid
        edit.added.append(aid)
    artifacts.sort(key=lambda a: (a.kind, a.id))
    edit.plan = plan.model_copy(update={"artifacts": artifacts,
                                        "routes": [r for r in plan.routes if r.fact_id not in held_set],
                                        "contested": [f for f in plan.contested if f not in held_set]})
    return edit
