"""Pieces every renderer family shares: the facts an artifact carries paired with their
wrong/old mentions, the authoritative wording after them, hedged mentions, punctuation
tidying."""
from __future__ import annotations

import datetime as dt
import random
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Optional

from facts.errors import FactforgeError

if TYPE_CHECKING:  # pragma: no cover
    from facts.models import Fact

    from .base import ArtifactSpec, Distractor, RenderContext

_VOICED_CORRECTION_LEADS = ["Let me set the record straight. ", "I checked the current version. ",
                            "I confirmed this with the policy owner. ", "I looked it up just now. "]


@dataclass
class Item:
    """One fact the artifact carries, with the wrong/old mentions that must precede it."""

    fact: "Fact"
    rendition: str
    distractors: list["Distractor"] = field(default_factory=list)

    @property
    def superseded(self) -> list["Distractor"]:
        return [d for d in self.distractors if d.role == "superseded"]

    @property
    def wrong(self) -> list["Distractor"]:
        return [d for d in self.distractors if d.role == "distractor"]


def _lookup(ctx: "RenderContext", spec: "ArtifactSpec", fact_id: str) -> "Fact":
    try:
        return ctx.fact(fact_id)
    except KeyError:
        raise FactforgeError(f"artifact {spec.id} ({spec.kind}) names unknown fact {fact_id!r}") from None


def items(spec: "ArtifactSpec", ctx: "RenderContext") -> tuple[list[Item], list[tuple["Fact", "Distractor"]]]:
    """The carried facts in spec order with their distractors, and the distractors of facts
    this artifact does not carry (mentioned hedged, never corrected here). A noise artifact
    carries no facts, but may hold such stray distractors."""
    out, by_id = [], {}
    for m in ([] if spec.noise else spec.facts):
        it = Item(_lookup(ctx, spec, m.fact_id), m.rendition)
        out.append(it)
        by_id[m.fact_id] = it
    orphans = []
    for d in spec.distractors:
        if d.fact_id in by_id:
            by_id[d.fact_id].distractors.append(d)
        else:
            orphans.append((_lookup(ctx, spec, d.fact_id), d))
    return out, orphans


def tidy(text: str) -> str:
    """Punctuation seams left where phrase templates meet ('right?.', 'check..', 'As a
    reminder, The fee'); never touches words or values."""
    text = re.sub(r"([?!])\.(?!\.)", r"\1", text)
    text = re.sub(r"(?<!\.)\.\.(?!\.)", ".", text)
    return re.sub(r"(, )(The|A|An)(?= )", lambda m: m.group(1) + m.group(2).lower(), text)


def authoritative(ctx: "RenderContext", it: Item, rng: random.Random, after_wrong: bool) -> str:
    """The fact stated as current; after a wrong/old mention it reads as the correction."""
    w = ctx.writer
    if not after_wrong:
        return tidy(w.statement(it.fact, it.rendition, rng))
    if it.rendition == "canonical":
        return tidy(w.correction(it.fact, rng))
    return tidy(rng.choice(_VOICED_CORRECTION_LEADS) + w.statement(it.fact, "voiced", rng))


def hedged(ctx: "RenderContext", fact: "Fact", d: "Distractor", rng: random.Random, role: str = "customer",
           on: Optional[dt.date] = None) -> str:
    """A wrong or superseded value, worded by the writer inside a hedged sentence. A
    superseded value without its own date is dated `on` (where the renderer placed it)."""
    if d.role == "superseded" and not d.date and on is not None:
        d = d.model_copy(update={"date": on.isoformat()})
    return tidy(ctx.writer.distractor(fact, d, rng, role=role))


def section_of(fact: "Fact") -> str:
    return fact.section[-1] if fact.section else "General"
