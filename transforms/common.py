"""Pieces every renderer family shares, defined once.

- content: the facts an artifact carries paired with the wrong/old mentions that must precede
  them (`items`), worded by the writer (`plan_content`, `authoritative`, `hedged`), each
  authoritative sentence checked against the audits' matcher as it is written
  (`recoverable`), and `tidy` for the punctuation seams where phrases meet;
- the record clock: dates derived from `spec.date` in the pack's timezone (nothing here reads
  the wall clock; every random choice comes from an rng the caller seeded with `spec.rng()`);
- people and records drawn from the seed database, brand identifier prefixes;
- text helpers (values kept on one line with non-breaking spaces) and the font files.

Kinds import this module (`from transforms import common as C`); families never import each
other's private modules.
"""
from __future__ import annotations

import datetime as dt
import random
import re
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Optional

from facts.errors import FactforgeError
from facts.match import STOP_WORDS, keeps_bounds, matches
from facts.models import value_key
from facts.runs import name_words, shared_runs
from facts.surface import surface_forms
from facts.values import find_values, figure_slots

from .grammar import SUBORDINATORS
from .headings import names_subject, section_of, section_topic
from .reading import read
from .realise import Context
from .records import id_prefix
from .registers import REGISTERS
from .situations import view as situation_view
from .trace import fact_view, facts_view

if TYPE_CHECKING:  # pragma: no cover
    from domains import DomainPack
    from facts.models import Fact

    from .base import RenderContext
    from .plan import ArtifactSpec, Distractor, Route


NBSP = "\u00a0"
EXTERNAL_TOOLS = ("dejavu-fonts",)  # see transforms.fingerprint
FONT_DIR = Path("/usr/share/fonts/truetype/dejavu")
FONT_FILES = {("sans", False): "DejaVuSans.ttf", ("sans", True): "DejaVuSans-Bold.ttf",
              ("sans-oblique", False): "DejaVuSans-Oblique.ttf", ("sans-oblique", True): "DejaVuSans-BoldOblique.ttf",
              ("cond", False): "DejaVuSansCondensed.ttf", ("cond", True): "DejaVuSansCondensed-Bold.ttf",
              ("mono", False): "DejaVuSansMono.ttf", ("mono", True): "DejaVuSansMono-Bold.ttf",
              ("serif", False): "DejaVuSerif.ttf", ("serif", True): "DejaVuSerif-Bold.ttf",
              ("serif-italic", False): "DejaVuSerif-Italic.ttf", ("serif-italic", True): "DejaVuSerif-BoldItalic.ttf"}


def font_file(family: str = "sans", bold: bool = False) -> str:
    """Path of a DejaVu font file (fonts-dejavu-core, installed by .ci/setup)."""
    return str(FONT_DIR / FONT_FILES[(family, bold)])


# --- content -------------------------------------------------------------------------------
@dataclass
class Hedge:
    """A wrong or old mention, worded."""

    distractor: "Distractor"
    text: str


@dataclass(frozen=True)
class Voiced:
    """The runs a file's sentences must not copy, as the lint gate reads them
    (`audits.lints`, `facts.runs.shared_runs`): 6-word runs of the policy statement of every
    fact the file words in its own way (its voiced mentions), except runs of a statement the
    file may quote (`ArtifactSpec.quoted_ids`: stated canonically, or named with a wrong or
    old value) and runs that only name one of its facts' labels. The writer keeps
    a voiced rendition clear of its own statement; a sentence stating another fact can still
    hit one ("offers a 2 GB top-up at the per-GB price of the plan" copies "a top-up at the
    per-GB price of its plan" of the fact next to it), and `word` re-words it."""

    statements: tuple[tuple[str, str], ...]  # (fact id, policy statement) of the voiced mentions
    canonical: tuple[str, ...] = ()
    names: tuple[frozenset, ...] = ()

    @classmethod
    def of(cls, spec: "ArtifactSpec", ctx: "RenderContext") -> Optional["Voiced"]:

        mentioned = [(m, _lookup(ctx, spec, m.fact_id)) for m in spec.facts]
        voiced = tuple(dict.fromkeys((f.id, f.statement) for m, f in mentioned if m.rendition == "voiced"))
        if not voiced:
            return None
        canonical = tuple(dict.fromkeys(_lookup(ctx, spec, i).statement for i in spec.quoted_ids))
        return cls(voiced, canonical, tuple(name_words(f for _m, f in mentioned)))

    def borrowed(self, text: str) -> list[str]:
        """The runs of `text` the lint would find."""

        return [r for _fid, st in self.statements
                for r in shared_runs(st, text, exempt=self.canonical, names=self.names)]


@dataclass
class Item:
    """One fact the artifact states, in its role (`FactMention.role`: carrier, echo, partial,
    case, hop; or "stale": a wrong or old value the file states plainly, resolved by the file's
    date, version or author: `stale` is that Distractor), with the wrong/old mentions that must
    precede it. After `plan_content` it is also worded: `text` (the sentence: the statement,
    the correction after a wrong value, the partial or case wording, the value by reference, or
    the old value), `hedges` (worded mentions), and a terse `label`/`value` pair."""

    fact: "Fact"
    rendition: str
    distractors: list["Distractor"] = field(default_factory=list)
    text: str = ""
    hedges: list[Hedge] = field(default_factory=list)
    label: str = ""
    value: str = ""
    role: str = "carrier"
    route: Optional["Route"] = None
    part: Optional[str] = None
    stale: Optional["Distractor"] = None
    voiced: Optional[Voiced] = None  # what the item's sentence must not copy (`word`)

    @property
    def superseded(self) -> list["Distractor"]:
        return [d for d in self.distractors if d.role == "superseded"]

    @property
    def wrong(self) -> list["Distractor"]:
        return [d for d in self.distractors if d.role == "distractor"]

    @property
    def superseded_hedges(self) -> list[Hedge]:
        return [h for h in self.hedges if h.distractor.role == "superseded"]

    @property
    def rumours(self) -> list[Hedge]:
        return [h for h in self.hedges if h.distractor.role != "superseded"]

    @property
    def current(self) -> bool:
        """States the current value in full (a carrier or an echo)."""
        return self.role in ("carrier", "echo")


@dataclass
class Content:
    items: list[Item]
    orphans: list[Hedge]

    @property
    def hedges(self) -> list[Hedge]:
        return [h for it in self.items for h in it.hedges] + self.orphans


def _lookup(ctx: "RenderContext", spec: "ArtifactSpec", fact_id: str) -> "Fact":
    try:
        return ctx.fact(fact_id)
    except KeyError:
        raise FactforgeError(f"artifact {spec.id} ({spec.kind}) names unknown fact {fact_id!r}", spec.path) from None


PLAIN_RESOLUTIONS = ("date", "version", "authority", "none")


def items(spec: "ArtifactSpec", ctx: "RenderContext", tables: bool = False) -> tuple[list[Item], list[tuple["Fact", "Distractor"]]]:
    """The stated facts in spec order with their distractors, and the distractors of facts this
    artifact does not state (mentioned hedged, never corrected here). A wrong or old value that
    its file's date, version or author resolves (`PLAIN_RESOLUTIONS`) is an item of role
    "stale", stated plainly where the renderer states facts. Route hops of part "table" (a
    schedule's rows) are items only for kinds that draw tables (`tables=True`); prose kinds
    render them through `route_rows`. A noise artifact states no facts, but may hold stray
    distractors."""
    out, by_id = [], {}
    routes = {r.id: r for r in spec.routes}
    voiced = Voiced.of(spec, ctx)
    for m in ([] if spec.noise else spec.facts):
        if m.role == "hop" and m.part == "table" and not tables:
            continue
        it = Item(_lookup(ctx, spec, m.fact_id), m.rendition, role=m.role, part=m.part,
                  route=routes.get(m.route) if m.route else None, voiced=voiced)
        out.append(it)
        by_id.setdefault(m.fact_id, it)
    orphans = []
    for d in spec.distractors:
        if d.fact_id in by_id and by_id[d.fact_id].current:
            by_id[d.fact_id].distractors.append(d)
        elif d.resolution in PLAIN_RESOLUTIONS:
            out.append(Item(_lookup(ctx, spec, d.fact_id), d.rendition, role="stale", stale=d, voiced=voiced))
        else:
            orphans.append((_lookup(ctx, spec, d.fact_id), d))
    return out, orphans


def route_rows(spec: "ArtifactSpec", ctx: "RenderContext") -> list[tuple[str, str, str]]:
    """(code, label, value) of every schedule row this file holds (route hops of part "table"),
    in code order: the value worded as the policy does, the label the route's neutral one."""
    rows = []
    for r in spec.routes:
        if not any(m.route == r.id and m.part == "table" for m in spec.facts):
            continue
        f = _lookup(ctx, spec, r.fact_id)
        slot = next((s for s in f.slots if s.type.value in ("money", "duration", "percent", "count")), None)
        rows.append((r.code, r.label, slot.text if slot is not None else ""))
    return sorted(rows)


def shown_slot(it: Item):
    """The slot a table cell shows for the item: the fact's first, or for a stale item the same
    slot carrying the old figure."""
    slot = it.fact.slots[0]
    if it.role == "stale" and it.stale is not None:
        target = next((s for s in it.fact.slots if s.name == it.stale.slot), slot)

        parsed = figure_slots(it.stale.text)
        upd = {"text": it.stale.text}
        if parsed:
            upd.update(value=parsed[0].value, value_max=parsed[0].value_max)
        return target.model_copy(update=upd)
    return slot


def word(ctx: "RenderContext", it: Item, rng: random.Random, after_wrong: bool = False,
         register: Optional[str] = None, context: Optional["Context"] = None) -> str:
    """The sentence for an item in its role (see `Item`): carriers and echoes pass `recoverable`;
    the other roles are by design not the whole fact. A sentence that copies a run of a
    policy statement its file words in its own way (`Voiced`) is re-worded inside the run
    (`Realiser.unborrow`, on an rng of its own so the rest of the file draws as before), the
    re-wording kept only when no such run is left and a current item is still recovered. When
    no re-wording clears the run, the sentence is drawn again (up to `REDRAWS` times, each on an
    rng of its own seeded by the sentence), and the first draw free of every run and still
    recovered is taken; failing that, the first sentence stays (the lint gate names it)."""
    text = _word(ctx, it, rng, after_wrong, register, context)
    if it.voiced is None or not it.voiced.borrowed(text):
        return text
    against = [st for fid, st in it.voiced.statements if fid != it.fact.id or it.rendition == "voiced"]
    new = _unborrowed(ctx, it, text, against, register, keep=it.current)
    if new is not None and new != text:
        return new
    seed = zlib.crc32(text.encode("utf-8"))
    for k in range(1, REDRAWS + 1):
        other = _word(ctx, it, random.Random(seed + k), after_wrong, register, context)
        if other != text and not it.voiced.borrowed(other) and (
                not it.current or carried(ctx, it.fact, other)):
            return other
    return text


REDRAWS = 8  # fresh draws of a sentence that copies a policy run no re-wording clears


def cell(ctx: "RenderContext", it: Item, text: str, fallback: str) -> str:
    """A short cell or label about the item (a table's item name, the case it applies to)
    kept clear of the runs its file must not copy (`Voiced`): re-worded inside the run
    (`Realiser.unborrow`, no recovery rule: a label states no value), else `fallback`."""
    if it.voiced is None or not it.voiced.borrowed(text):
        return text
    new = _unborrowed(ctx, it, text, [st for _fid, st in it.voiced.statements], None, keep=False)
    return new if new else fallback


def _unborrowed(ctx: "RenderContext", it: Item, text: str, against: list[str], register: Optional[str],
                keep: bool) -> Optional[str]:
    """`text` re-worded inside the runs it shares with `against` (`Realiser.unborrow`, on an
    rng of its own so the rest of the file draws as before), or None when the writer has no
    realiser or a run is left; `register`: a name in `transforms.realise.REGISTERS` (none:
    chat); `keep`: the re-wording must still carry the item's fact."""
    realiser = getattr(ctx.writer, "realiser", None)
    if realiser is None:
        return None

    reg = REGISTERS.get(register or "", REGISTERS["chat"])
    rng = random.Random(zlib.crc32(text.encode("utf-8")))
    new = tidy(realiser.unborrow(it.fact, text, against, rng, reg, keep=keep))
    if it.voiced.borrowed(new) or keep and not carried(ctx, it.fact, new):
        return None
    return new


def _word(ctx: "RenderContext", it: Item, rng: random.Random, after_wrong: bool,
          register: Optional[str], context: Optional["Context"]) -> str:
    w = ctx.writer
    if it.role == "partial":
        return tidy(w.partial(it.fact, rng, register=register, context=context))
    if it.role == "case":
        return tidy(w.case(it.fact, rng, register=register, context=context))
    if it.role == "hop" and it.route is not None:
        if it.part == "table":
            return tidy(f"{it.route.code}: {it.route.label + ' ' if it.route.label else ''}{it.value or ''}".strip())
        return tidy(w.hop_key(it.fact, it.route, rng, register=register, context=context))
    if it.role == "stale" and it.stale is not None:
        return tidy(w.stale(it.fact, it.stale, rng, register=register, context=context))
    if not after_wrong:
        return recoverable(ctx, it.fact, tidy(w.statement(it.fact, it.rendition, rng, register=register,
                                                          context=context)))
    return recoverable(ctx, it.fact, tidy(w.correction(it.fact, rng, it.rendition, register=register,
                                                       context=context)), "To correct that: ")


def plan_content(spec: "ArtifactSpec", ctx: "RenderContext", rng: random.Random,
                 role: str = "customer", correct: tuple[str, ...] = ("distractor", "superseded"),
                 register: Optional[str] = None, context: Optional["Context"] = None,
                 tables: bool = False) -> Content:
    """`items`, worded in `register` (a name in `transforms.realise.REGISTERS`: "manual",
    "kb", "table", "chat"...). A carried fact with a hedge whose role is in `correct` is
    stated with the writer's correction wording (it follows the hedge in the artifact); kinds
    that keep superseded values elsewhere (a revision history) pass correct=("distractor",)."""
    its, orphans = items(spec, ctx, tables=tables)
    w = ctx.writer
    for it in its:
        it.hedges = [Hedge(d, tidy(w.distractor(it.fact, d, rng, role=role, register=register, context=context)))
                     for d in it.distractors]
        it.text = word(ctx, it, rng, after_wrong=any(d.role in correct for d in it.distractors),
                       register=register, context=context)
        label, value = split_bullet(w.bullet(it.fact), it.fact)
        if it.role == "stale" and it.stale is not None:
            value = it.stale.text
        elif it.role == "hop" and it.route is not None:
            slot = next((s for s in it.fact.slots if s.type.value in ("money", "duration", "percent", "count")), None)
            if it.part == "table":
                label, value = it.route.code + (f" {it.route.label}" if it.route.label else ""), slot.text if slot else ""
            else:
                value = f"see {it.route.code}"
        elif it.role == "partial":
            label = re.sub(r"\s*\([^)]*\)$", "", label)
        it.label, it.value = label, value
    return Content(its, [Hedge(d, tidy(w.distractor(f, d, rng, role=role, register=register, context=context)))
                         for f, d in orphans])


def lead_in(lead: str, text: str) -> str:
    """`lead` + `text`, the first letter of `text` lower-cased after a comma, a colon, a dash or
    a lower-case word ("Oh, and what's ...") unless it is "I" or a name the text starts with."""
    if re.search(r"(?:[,:—]|\b[a-z]+) $", lead) and text[:1].isupper() and not re.match(r"^(I\b|I'|[A-Z][a-z]*[A-Z])", text) \
            and not re.match(r"^[A-Z][a-z]+ [A-Z]", text):
        text = text[:1].lower() + text[1:]
    return lead + text


def split_bullet(bullet: str, fact: "Fact") -> tuple[str, str]:
    """'Security deposit bike: $50' -> ('Security deposit bike', '$50'). A fact without
    values gets its section name as label (its bullet would repeat the whole statement)."""
    if fact.slots and ": " in bullet:
        label, value = bullet.rsplit(": ", 1)
        return label, value
    if bullet.strip() == fact.statement.strip() or not fact.slots:
        return section_of(fact, "Good to know"), ""
    return bullet, ""


_CLAUSE_OPENERS = {*SUBORDINATORS, "to", "for", "from"}
_FINITE = {"is", "are", "has", "have", "may", "must", "can", "will", "should"}  # "Larkspur Loop has four tiers"


def is_name(label: str) -> bool:
    """Whether a fact's label names a thing ("Early closure fee", "Gold Savings — APY")
    and so can head a bullet or a card: a few words, not a clause that runs into its list
    ("Before calling transfer_funds_7291, the agent should", "Larkspur Loop has four tiers", "C4. Amount vs Daily Limit -
    Compare attempted amount to card's daily ATM withdrawal limit: 80-100% of limit"). A
    clause printed as a head above the sentence that repeats it reads as the same line twice
    (the lint `duplicated_bullet`)."""
    words = re.findall(r"[\w'$%.-]+", re.sub(r"\s*\([^)]*\)", "", label))  # its cases in brackets are no clause
    return 0 < len(words) <= 6 and ": " not in label and words[0].lower() not in _CLAUSE_OPENERS and \
        words[-1].lower() not in STOP_WORDS and not any(w.lower() in _FINITE for w in words)


def _lead_key(lead: str) -> str:
    return " ".join({"every": "each"}.get(w, w) for w in lead.lower().split() if w not in ("the", "a", "an"))


def merge_lists(texts: list[str], facts: list["Fact"], currency: str, keys: Optional[list] = None) -> list[tuple[list[int], str]]:
    """Sentences side by side on one screen (cards, slide bullets) as a reader wants them: the
    items of one list said under their lead once ("The following pairings qualify for APY
    boosts: Purple + Gold; Purple + Platinum Plus.", "C3. Amount vs Historical Average - ...:
    Attempted amount more than 5x average: 2 points; Attempted amount within 2x average: 0
    points."), and one sentence said once when two facts state it alike (the same step in two
    source documents). A lead is the longest opening up to a colon, four words or more, that
    a sentence shares with another of the same `keys` (a card's group and title); leads that
    differ only by an article, or by "each" and "every", are one lead, written in its longest
    form. Items stay apart when the one sentence would not carry every one of their facts
    (the audits' matcher). Returns (indices, text) in the order the first of each stood."""
    keys = keys if keys is not None else [None] * len(texts)
    out: dict[int, tuple[list[int], str]] = {}
    gone: set[int] = set()
    same: dict[tuple, list[int]] = {}
    for i, t in enumerate(texts):
        same.setdefault((keys[i], " ".join(t.lower().split())), []).append(i)
    for idx in same.values():
        if len(idx) > 1 and all(matches(facts[i], texts[idx[0]], currency) for i in idx):
            out[idx[0]] = (idx, texts[idx[0]])
            gone.update(idx[1:])
    leads: list[dict[str, tuple[str, str]]] = []
    for i, t in enumerate(texts):
        c: dict[str, tuple[str, str]] = {}
        for m in re.finditer(r":\s+", t):
            lead, tail = t[:m.start()], t[m.end():].strip().rstrip(".").strip()
            if i not in gone and i not in out and tail and len(re.findall(r"[A-Za-z]{2,}", lead)) >= 4:
                c[_lead_key(lead)] = (lead, tail)
        leads.append(c)
    groups: dict[tuple, list[int]] = {}
    for i, c in enumerate(leads):
        shared = [k for k in c if any(k in leads[j] and keys[j] == keys[i] for j in range(len(texts)) if j != i)]
        if shared:
            groups.setdefault((keys[i], max(shared, key=len)), []).append(i)
    for (_key, k), idx in groups.items():
        if len(idx) < 2:
            continue
        lead = max((leads[i][k][0] for i in idx), key=len)  # "has the following", where one rendition dropped "the"
        text = f"{lead}: {'; '.join(leads[i][k][1] for i in idx)}."
        if all(matches(facts[i], text, currency) for i in idx):
            out[idx[0]] = (idx, text)
            gone.update(idx[1:])
    return [out.get(i, ([i], t)) for i, t in enumerate(texts) if i not in gone]


def merge_cards(cards: list[tuple], facts: list, currency: str) -> list[tuple]:
    """Cards (group, label, value, text), one per fact of `facts`, with the items of one list
    ("Each order has the following attributes: status.", "...: payment history.") made one card
    that says the list's lead once ("Each order has the following attributes: status; payment
    history."), where the first of them stood, and a sentence two facts state alike said on
    one card (`common.merge_lists`). Cards side by side each opening with the same lead are
    the screen repeating itself (the wrapped lead prints twice: the lint `duplicated_bullet`).
    Only cards of one group and title; a merged card's figure goes (each figure is in
    the one sentence, beside its own item), and so does the figure of a card without a
    title whose sentence carries its fact (a figure under no name is a number out of
    context: "Wayfarer, Voyager, Navigator and Pinnacle" above "Larkspur Loop has 4 tiers: ...")."""
    merged = merge_lists([c[3] for c in cards], facts, currency, keys=[c[:2] for c in cards])
    out = []
    for idx, text in merged:
        g, label, value, body = cards[idx[0]]
        if len(idx) > 1 or not label and value and matches(facts[idx[0]], body, currency):
            value = ""
        out.append((g, label, value, text if len(idx) > 1 else body))
    return out


def card_titles(items: list[Item]) -> list[tuple[str, str]]:
    """(group heading, card title) per item for screens that show facts as cards. Catalog
    cells of one row (or one column) go under that name, said once, each card titled by the
    other name: whichever way repeats shorter titles from group to group (a title of four
    words or more printed again a few cards later reads as a duplicated line); when both
    would, cards keep their full "Row — Column" label. Other cards keep their label, or none
    when it is only their section's name (the screen's own title) or no name at all (`is_name`)."""

    cells = {}
    for i, it in enumerate(items):
        row, sep, col = it.label.partition(" \u2014 ")
        if sep and read(it.fact).cell:
            cells[i] = (row, col)

    def repeated(pairs: dict[int, tuple[str, str]]) -> int:
        seen: dict[str, set[str]] = {}
        for g, t in pairs.values():
            seen.setdefault(t, set()).add(g)
        return max((len(t.split()) for t, gs in seen.items() if len(gs) > 1), default=0)

    by_row = {i: (r, c) for i, (r, c) in cells.items()}
    by_col = {i: (c, r) for i, (r, c) in cells.items()}
    best = min((by_row, by_col), key=repeated)  # ties: by row (a product and its terms)
    out = []
    for i, it in enumerate(items):
        if i in cells and repeated(best) < 4:
            out.append(best[i])
        elif not it.value and it.label in it.fact.section or i not in cells and not is_name(it.label):
            out.append(("", ""))  # the section's name (the screen's own title), or a clause (`is_name`)
        else:
            out.append(("", it.label))
    return out


def grouped(cards: list[tuple]) -> list[tuple]:
    """Cards whose first field is a group heading, each group's cards together (in the order
    the groups first appear), ungrouped cards where they were."""
    first: dict[str, int] = {}
    for i, c in enumerate(cards):
        first.setdefault(c[0], i)
    return [c for _, c in sorted(enumerate(cards), key=lambda p: (first[p[1][0]] if p[1][0] else p[0], p[0]))]


_LEAD_CAP = re.compile(r"([\w)],\s)(The|A|An|This|These|Each|Every|All|Any|Our|Your)(?= )")


def tidy(text: str) -> str:
    """Punctuation seams left where phrase templates meet ('right?.', 'check..', 'As a
    reminder, The fee'); never touches words or values."""
    text = re.sub(r"([?!])\.(?!\.)", r"\1", text)
    text = re.sub(r"(?<!\.)\.\.(?!\.)", ".", text)
    return _LEAD_CAP.sub(lambda m: m.group(1) + m.group(2).lower(), text)


def recoverable(ctx: "RenderContext", fact: "Fact", text: str, lead: str = "") -> str:
    """`text` if the audits' own matcher (facts.match) recovers `fact` from it, else the fact's
    statement (after `lead`), which it always recovers. Every authoritative sentence passes
    here as it is written, so a paraphrase the audits would reject ("every line has these
    attributes: line ID" for "Each line has the following attributes: line ID.") is
    re-phrased before it is rendered, not found after the build. A file whose extraction
    still loses the fact (OCR, speech recognition) fails the build as before."""
    if carried(ctx, fact, text):
        return text
    return tidy(lead + (ctx.writer.lower_first(fact.statement) if lead else fact.statement))


def carried(ctx: "RenderContext", fact: "Fact", text: str) -> bool:
    """Whether `text` carries `fact` as the audits read it: recovered by the matcher
    (`facts.match`) and every value of it said with its bound (`facts.bounds`: a cap as a cap,
    a floor as a floor, a per-unit value per unit)."""
    cur = ctx.pack.info.currency
    return matches(fact, text, cur) and keeps_bounds(fact, text, cur)


SHORT_ANSWER_RATE = 0.85


def answer(ctx: "RenderContext", it: Item, rng: random.Random, question: str, after_wrong: bool = False,
           register: Optional[str] = None, context: Optional["Context"] = None, gap: int = 120,
           short_rate: float = SHORT_ANSWER_RATE) -> str:
    """A reply to `question` (said just before it in the file): for a current fact whose
    question already names the thing, usually (`short_rate`) the bare value with its case
    ("It's $75 for Main."), which the matcher recovers from question and answer together;
    otherwise the full statement (`authoritative`)."""
    if it.current and not after_wrong and it.fact.slots and rng.random() < short_rate:

        asked = {value_key(t, v, vmax, unit) for t, v, vmax, unit, _s, _e in find_values(question, ctx.pack.info.currency)}
        skip = {s.name for s in it.fact.slots if s.key() in asked}
        short = tidy(ctx.writer.short_answer(it.fact, rng, register=register, context=context, skip=skip,
                                             named=question))
        # `gap`: what the file may put between question and answer (a time stamp and a name, a
        # "let me check" turn); the match must hold across it
        # and the two said one after the other must not copy the policy across the turn ("what is the
        # lowest to redeem to crypto?" "30 dollars ..." copies "to redeem to crypto: $30")
        if short and carried(ctx, it.fact, f"{question}\n{'.' * gap}\n{short}") and \
                not (it.voiced is not None and it.voiced.borrowed(f"{question} {short}")):
            return short
    return reply(ctx, it, rng, after_wrong, register=register, context=context, question=question, gap=gap)


def reply(ctx: "RenderContext", it: Item, rng: random.Random, after_wrong: bool, register: Optional[str] = None,
          context: Optional["Context"] = None, question: str = "", gap: int = 120) -> str:
    """A full answer to someone who asked about the item: a current catalog cell as its case
    and figure ("Pinnacle and Lite: two bags."; the question named the measure), when the
    audits' matcher recovers the cell from that alone; a voiced rule whose subject the
    `question` (said just before, `gap` characters away) named, with that subject as "it"
    (`Writer.anaphoric`), when the matcher recovers it with the question; otherwise
    `authoritative`."""
    w = ctx.writer
    if it.current and not after_wrong and getattr(w, "cell_reply", None) is not None:
        text = tidy(w.cell_reply(it.fact, rng, register=register))
        if text and carried(ctx, it.fact, text):
            return text
        if question and it.rendition == "voiced":
            text = tidy(w.anaphoric(it.fact, rng, question, register=register, context=context, gap=gap))
            if text and carried(ctx, it.fact, f"{question}\n{'.' * gap}\n{text}"):
                return text
    return authoritative(ctx, it, rng, after_wrong, register=register, context=context)


def authoritative(ctx: "RenderContext", it: Item, rng: random.Random, after_wrong: bool,
                  register: Optional[str] = None, context: Optional["Context"] = None) -> str:
    """The item stated in its role, in `register` (`word`): a carrier or an echo as current,
    reading as the correction after a wrong/old mention; either passes `recoverable`."""
    return word(ctx, it, rng, after_wrong=after_wrong, register=register, context=context)


def hedged(ctx: "RenderContext", fact: "Fact", d: "Distractor", rng: random.Random, role: str = "customer",
           on: Optional[dt.date] = None, register: Optional[str] = None, context: Optional["Context"] = None) -> str:
    """A wrong or superseded value, worded by the writer inside a hedged sentence. A
    superseded value without its own date is dated `on` (where the renderer placed it)."""
    if d.role == "superseded" and not d.date and on is not None:
        d = d.model_copy(update={"date": on.isoformat()})
    return tidy(ctx.writer.distractor(fact, d, rng, role=role, register=register, context=context))


def speaker(ctx: "RenderContext", rng: random.Random, customer=None, record=None, name: str = "") -> "Context":
    """The realiser's context for a conversation: the customer and record in front of the
    speaker (a customer of the seed database when none is given)."""

    if customer is None:
        customer = situation_view(ctx.db).customer(rng, lambda c: bool(c.records))
    if customer is not None and record is None and customer.records:
        record = rng.choice(customer.records)
    return Context(customer, record, name)


@facts_view("catalog_names")
def catalog_names(facts: dict) -> dict:
    """What pages name across the whole domain, without any figure: the catalog's products
    (rows) with their section's topic, and the policy's section topics. A change of one fee
    leaves this view as it was, so a help page's related-articles box or a web page's
    marketing card does not re-render for it."""

    rows: dict[str, str] = {}
    secs: set[str] = set()
    for f in facts.values():
        r = read(f)
        if r.cell and r.cell["row"] not in rows:
            rows[r.cell["row"]] = section_topic(section_of(f, "")) if f.section else ""
        sec = section_of(f, "")
        if sec and ":" not in sec and "staff" not in sec.lower():
            secs.add(section_topic(sec))
    return {"rows": dict(sorted(rows.items())), "sections": sorted(secs)}


def catalog_view(ctx: "RenderContext") -> dict:
    """`catalog_names` of the render's fact table (one recorded read)."""
    return fact_view(ctx.facts, "catalog_names")


def shown_title(ctx: "RenderContext", spec: "ArtifactSpec", its: list[Item], fallback: str) -> str:
    """A file's title from its spec's section path ("Common questions / Do you charge to receive
    domestic wire transfers?"), each heading as people name it (`section_topic`), kept clear
    of the statements the file voices: a question or clause heading that is the words of one
    (an FAQ's question is its heading) goes, leaving the headings above it; `fallback` when
    nothing is left."""
    parts = [section_topic(t) for t in spec.title.split(" / ")] if spec.title else []
    title = " / ".join(parts)
    if not its or not title:
        return title or fallback
    if its[0].voiced is not None and its[0].voiced.borrowed(title):
        title = " / ".join(p for p in parts if names_subject(p))
    return cell(ctx, its[0], title, fallback) if title else fallback


def check_capacity(spec: "ArtifactSpec", max_facts: int) -> None:
    if len(spec.facts) > max_facts:
        raise FactforgeError(f"artifact {spec.id} carries {len(spec.facts)} facts; {spec.kind} holds at most "
                             f"{max_facts}", spec.path)


# --- facts and their distractors -----------------------------------------------------------
def policy_ref(pack: "DomainPack", fact: "Fact") -> str:
    """A policy reference like 'POL-PW-LATE-RETURNS §14' (the source line)."""
    sec = re.sub(r"[^A-Z0-9]+", "-", section_of(fact).upper()).strip("-")[:18] or "GEN"
    return f"POL-{id_prefix(pack, 'policy', 'case', 'rental')}-{sec} §{fact.source.start_line}"


def chunks(seq: list, sizes: list[int]) -> list[list]:
    out, i = [], 0
    for n in sizes:
        if i >= len(seq):
            break
        out.append(seq[i:i + n])
        i += n
    if i < len(seq):
        out.append(seq[i:])
    return out


def split_groups(seq: list, rng: random.Random, lo: int = 1, hi: int = 3) -> list[list]:
    sizes, total = [], 0
    while total < len(seq):
        n = rng.randint(lo, hi)
        sizes.append(n)
        total += n
    return chunks(seq, sizes)


# --- documents and screens ----------------------------------------------------------------
def doc_number(ctx: "RenderContext", rng: random.Random, kind: str = "SOP") -> str:
    b = ctx.pack.brand
    short = b.short_name or b.company
    code = "".join(ch for ch in short.upper() if ch.isalpha())[:3] or "DOC"
    return f"{kind}-{code}-{rng.randint(100, 999)}"


def initials(name: str) -> str:
    return "".join(p[0] for p in name.split() if p[:1].isalpha()).upper()[:3]


# --- text -----------------------------------------------------------------------------------
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
