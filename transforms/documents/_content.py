"""Content planning shared by the document and visual kinds.

`plan_content` turns a spec into `Item`s: one per carried fact, in spec order, each with its
authoritative sentence and the hedged distractor sentences that must come before it (when a
distractor targets a carried fact, the authoritative sentence is the writer's correction).
Distractors for facts the artifact does not carry are returned as `orphans` (hedged
sentences with nothing to correct). Helpers for dates, ids and value protection (keeping a
value's words on one line) live here too.
"""
from __future__ import annotations

import datetime as dt
import random
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from facts.errors import FactforgeError
from facts.surface import surface_forms

if TYPE_CHECKING:  # pragma: no cover
    from facts.models import Fact
    from transforms.base import ArtifactSpec, Distractor, RenderContext

NBSP = "\u00a0"


@dataclass
class Hedge:
    distractor: "Distractor"
    text: str


@dataclass
class Item:
    fact: "Fact"
    text: str                      # authoritative sentence (statement, or correction after hedges)
    rendition: str
    hedges: list[Hedge] = field(default_factory=list)
    label: str = ""                # terse label (bullet before the colon)
    value: str = ""                # terse value (bullet after the colon), may be ""

    @property
    def superseded(self) -> list[Hedge]:
        return [h for h in self.hedges if h.distractor.role == "superseded"]

    @property
    def rumours(self) -> list[Hedge]:
        return [h for h in self.hedges if h.distractor.role != "superseded"]


@dataclass
class Content:
    items: list[Item]
    orphans: list[Hedge]

    @property
    def hedges(self) -> list[Hedge]:
        return [h for it in self.items for h in it.hedges] + self.orphans


_DOUBLE_DOT = re.compile(r"(?<!\.)\.\.(?!\.)")
_LEAD_CAP = re.compile(r"([a-z],\s)(The|A|An|This|These|Each|Every|All|Any|Our|Your)\b")


def tidy(text: str) -> str:
    """Cosmetic clean-up of joined phrases: '..' -> '.', 'To confirm, The' -> 'To confirm, the'."""
    text = _DOUBLE_DOT.sub(".", text).replace("?.", "?").replace("!.", "!")
    return _LEAD_CAP.sub(lambda m: m.group(1) + m.group(2).lower(), text)


def split_bullet(bullet: str, fact: "Fact") -> tuple[str, str]:
    """'Security deposit bike: $50' -> ('Security deposit bike', '$50'). A fact without
    values gets its section name as label (its bullet would repeat the whole statement)."""
    if fact.slots and ": " in bullet:
        label, value = bullet.rsplit(": ", 1)
        return label, value
    if bullet.strip() == fact.statement.strip() or not fact.slots:
        return (fact.section[-1] if fact.section else "Good to know"), ""
    return bullet, ""


def plan_content(spec: "ArtifactSpec", ctx: "RenderContext", rng: random.Random,
                 role: str = "customer", correct: tuple[str, ...] = ("distractor", "superseded")) -> Content:
    """Items in spec order. A carried fact with a hedge whose role is in `correct` is stated
    with the writer's correction wording (it follows the hedge in the artifact); kinds that
    keep superseded values elsewhere (a revision history) pass correct=("distractor",)."""
    if spec.noise:
        return Content([], [])
    w = ctx.writer
    by_fact: dict[str, list["Distractor"]] = {}
    for d in spec.distractors:
        _fact(ctx, spec, d.fact_id)
        by_fact.setdefault(d.fact_id, []).append(d)
    items: list[Item] = []
    carried = set()
    for m in spec.facts:
        f = _fact(ctx, spec, m.fact_id)
        carried.add(m.fact_id)
        hedges = [Hedge(d, tidy(w.distractor(f, d, rng, role=role))) for d in by_fact.get(m.fact_id, [])]
        if any(h.distractor.role in correct for h in hedges):
            text = w.correction(f, rng)
        else:
            text = w.statement(f, m.rendition, rng)
        text = tidy(text)
        label, value = split_bullet(w.bullet(f), f)
        items.append(Item(f, text, m.rendition, hedges, label, value))
    orphans = [Hedge(d, tidy(w.distractor(_fact(ctx, spec, d.fact_id), d, rng, role=role)))
               for d in spec.distractors if d.fact_id not in carried]
    return Content(items, orphans)


def _fact(ctx: "RenderContext", spec: "ArtifactSpec", fact_id: str) -> "Fact":
    try:
        return ctx.fact(fact_id)
    except KeyError:
        raise FactforgeError(f"artifact {spec.id} ({spec.kind}) refers to unknown fact {fact_id!r}",
                             spec.path) from None


def check_capacity(spec: "ArtifactSpec", max_facts: int) -> None:
    if len(spec.facts) > max_facts:
        raise FactforgeError(f"artifact {spec.id} carries {len(spec.facts)} facts; {spec.kind} holds at most "
                             f"{max_facts}", spec.path)


def spec_date(spec: "ArtifactSpec") -> dt.date:
    try:
        return dt.date.fromisoformat(spec.date[:10])
    except ValueError:
        raise FactforgeError(f"artifact {spec.id}: date {spec.date!r} is not an ISO date", spec.path) from None


def fmt_date(d: dt.date, style: str = "long") -> str:
    if style == "long":
        return f"{d.strftime('%B')} {d.day}, {d.year}"
    if style == "short":
        return f"{d.strftime('%b')} {d.day}, {d.year}"
    return d.isoformat()


def doc_number(ctx: "RenderContext", rng: random.Random, kind: str = "SOP") -> str:
    b = ctx.pack.brand
    short = b.short_name or b.company
    code = "".join(ch for ch in short.upper() if ch.isalpha())[:3] or "DOC"
    return f"{kind}-{code}-{rng.randint(100, 999)}"


def initials(name: str) -> str:
    return "".join(p[0] for p in name.split() if p[:1].isalpha()).upper()[:3]


def value_forms(fact: "Fact") -> list[str]:
    forms = [f for s in fact.slots for f in surface_forms(s)]
    return sorted({f for f in forms if " " in f}, key=lambda f: (-len(f), f))


def protect(text: str, facts: list["Fact"]) -> str:
    """Join the words of every multi-word value form in `text` with non-breaking spaces, so
    line wrapping never splits a value ('5 business days')."""
    for f in facts:
        for form in value_forms(f):
            if form in text:
                text = text.replace(form, form.replace(" ", NBSP))
    return text


def unprotect(text: str) -> str:
    return text.replace(NBSP, " ")


def db_records(ctx: "RenderContext", limit: int = 5) -> list[tuple[str, dict]]:
    """A few records of the first table of the seed database (records are dicts); [] if none."""
    for name in sorted(ctx.db or {}):
        table = ctx.db[name]
        rows = list(table.values()) if isinstance(table, dict) else table if isinstance(table, list) else []
        rows = [r for r in rows if isinstance(r, dict)]
        if rows:
            return [(name, r) for r in rows[:limit]]
    return []


def record_id(rec: dict) -> str:
    for k in ("id", "reservation_id", "order_id", "account_id", "user_id"):
        if k in rec and isinstance(rec[k], (str, int)):
            return str(rec[k])
    return ""


def sections_of(items: list[Item]) -> list[tuple[str, ...]]:
    seen: dict[tuple[str, ...], None] = {}
    for it in items:
        seen.setdefault(tuple(it.fact.section) or ("General",), None)
    return list(seen)


_WS = re.compile(r"[ \t\u00a0]+")


def squash(text: str) -> str:
    return _WS.sub(" ", text).strip()
