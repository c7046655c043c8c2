"""Helpers shared by the kind round-trip tests: a spec carrying the hand-built facts with a
distractor and a superseded value, and a locator for a fact's value next to its anchors."""
from __future__ import annotations

import re

from facts.surface import surface_forms
from transforms import registry
from transforms.plan import ArtifactSpec, Distractor, FactMention


def make_spec(kind, facts, seed=1, noise=False, renditions=("canonical", "voiced")):
    t = registry.get(kind)
    carried = facts[: t.max_facts]
    return ArtifactSpec(
        id=f"{kind.split('/')[1]}-0001", kind=kind, path=f"evidence/x{t.ext}", seed=seed, date="2026-02-14",
        facts=[] if noise else [FactMention(fact_id=f.id, rendition=renditions[i % len(renditions)])
                                for i, f in enumerate(carried)],
        distractors=[] if noise else [
            Distractor(fact_id=facts[1].id, slot="deposit", text="$40", role="distractor"),
            Distractor(fact_id=facts[2].id, slot="fee", text="$10", role="superseded", date="2026-01-05")],
        noise=noise)


def located(fact, text: str, window: int = 300) -> int:
    """Position of a value of `fact` with at least half its anchors within `window` chars, or -1."""
    low = text.lower()
    need = (len(fact.anchors) + 1) // 2
    best = -1
    for slot in fact.slots:
        for form in surface_forms(slot):
            for m in re.finditer(re.escape(form.lower()) + r"(?![0-9])", low):
                near = low[max(0, m.start() - window): m.end() + window]
                if sum(a.lower() in near for a in fact.anchors) >= need:
                    best = max(best, m.start())
    return best
