"""The bound a value is stated with, and whether a text keeps it.

A value in a policy is rarely just a number: "may not exceed $12,000" is a cap, "at least
$100 to open" a floor, "$35 per passenger" a rate per unit, "a $6 monthly fee" a charge per
period. A text that carries the number but drops its bound ("It comes to $12,000.") states
another rule. This module is the one definition of that qualifier, for the realiser and the
writers (which must keep it) and for the audits (which count where it was lost):

- `bound_of(fact, slot)`: the slot's `Bound`: its direction ("max" for a cap, "min" for a
  floor, None for an exact value) and whether it is per unit or per period. The direction
  comes from the slot's own qualifier (`facts.values` reads "at most", "up to", "may not
  exceed", "at least" ... right before the value) or, failing that, from the words of the
  value's clause before it (a catalog cell's column "Maximum amount", "Minimum age",
  "Daily ATM withdrawal limit"; "the minimum balance of $1,500"); per-unit from "per",
  "each", "a month", "/mo" after the value or a period word ("monthly", "annual", "per
  day") in that clause.
- `states_bound(bound, window, before)`: whether a stretch of text (the sentence holding a
  value and the question it answers) says that bound: a cap in words of a cap ("up to", "no
  more than", "maximum", "limit", "capped"), a floor in words of a floor ("at least",
  "minimum", "or more", "or older"), a per-unit value with a per word; an exact value is
  not turned into a bound (`before`, the words right before the value, hold no "up to" or
  "at least").
- `qualifier_mismatches(fact, idx)`: the occurrences of a fact's bounded values in an
  indexed text (`facts.match.TextIndex`) said of the fact whose window loses the bound;
  `facts.match.keeps_bounds(fact, text)` the same for one short text a writer drafts.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from .models import Fact, Slot, SlotType
from .values import qualifier_before

# the slot types whose values take a bound (a date is a date)
BOUNDED_TYPES = (SlotType.money, SlotType.duration, SlotType.count, SlotType.percent)

_MAX_Q = {"at_most": "max", "up_to": "max", "less_than": "max", "at_least": "min", "more_than": "min"}

# words of a clause that make its value a cap or a floor: the strong ones name it, the weak
# ones ("limit", "allowed") only when no strong one is there ("Minimum credit limit" is a floor)
_MIN_STRONG = re.compile(r"\b(?:minimum|min|lowest|smallest|at least|no less than|not less than|no fewer than|"
                         r"or more|or older|or longer|and up|and older|floor)\b", re.I)
_MAX_STRONG = re.compile(r"\b(?:maximum|max|highest|at most|up to|no more than|not more than|not exceed|"
                         r"cannot exceed|may not exceed|capped|cap|ceiling)\b", re.I)
_MAX_WEAK = re.compile(r"\b(?:limit|limits|allowed)\b", re.I)
_AFTER_MIN = re.compile(r"^(?:\s*\+|\s+(?:or more|or older|or longer|or above|or higher|and up|and older|plus)\b)",
                        re.I)
_AFTER_MAX = re.compile(r"^\s+(?:or less|or fewer|or lower|or under|at most|max(?:imum)?)\b", re.I)
PERIODS = r"(?:day|week|month|year|night|hour|minute|cycle|term|quarter)"
_PER_AFTER = re.compile(rf"^\s*(?:(?:per|each|every)\b|/\s*[a-z]|an?\s+{PERIODS}\b)", re.I)
_PER_WORDS = re.compile(r"\b(?:per|each|every|annual|annually|monthly|daily|weekly|yearly|nightly|hourly)\b|"
                        r"[\w)]/[a-z]", re.I)

# words that say a bound in running text (a carrier's window): generous on purpose, the check
# is that a cap is not said as a plain figure, not which words say it
_SAYS_MAX = re.compile(r"\b(?:up to|at most|no more than|not more than|maximum|max|highest|top|cap|caps|capped|"
                       r"ceiling|limit|limits|limited|held to|exceed|exceeds|go over|goes over|go beyond|"
                       r"goes beyond|over|no higher than|or less|or fewer|less than|fewer than|under|below|"
                       r"as much as|as many as|allowed|allows|allow|within|only|the most)\b", re.I)
_SAYS_MIN = re.compile(r"\b(?:at least|minimum|min|lowest|smallest|no less than|not less than|no fewer than|"
                       r"or more|or older|or over|or longer|or above|or higher|and up|and older|plus|more than|"
                       r"over|above|exceed|exceeds|exceeding|reach|reaches|reached|turns|turn|starting at|"
                       r"starts at|floor|the least)\b|\d\+", re.I)
_SAYS_PER = re.compile(rf"\b(?:per|each|every|apiece|annual|annually|monthly|daily|weekly|yearly|nightly|hourly|"
                       rf"a\s+{PERIODS}|an\s+hour|a\s+piece)\b|[\w)]\s?/\s?[a-z]", re.I)


@dataclass(frozen=True)
class Bound:
    """How a value is bounded: `kind` "max" (a cap), "min" (a floor) or None (exact);
    `per`: the value is per unit or per period."""

    kind: Optional[str] = None
    per: bool = False

    @property
    def label(self) -> str:
        return "+".join(x for x in (self.kind or "exact", "per-unit" if self.per else "") if x)


def _clause_before(text: str, a: int) -> str:
    """The value's clause before it: back to the last sentence stop, semicolon or the em dash
    of a catalog cell ("Row — Column: value" reads its column)."""
    seg = text[:a]
    cut = max(seg.rfind(". "), seg.rfind("; "), seg.rfind("\u2014"), seg.rfind(", "))
    return seg[cut + 1:] if cut >= 0 else seg


def bound_of(fact: Fact, slot: Slot) -> Bound:
    """The bound `fact` states its value `slot` with (see the module's doc)."""
    text = fact.statement
    if slot.type not in BOUNDED_TYPES or not slot.text or slot.text not in text:
        return Bound()
    a = text.find(slot.text)
    b = a + len(slot.text)
    kind = _MAX_Q.get(slot.qualifier or "")
    before = _clause_before(text, a)
    for other in fact.slots:  # a value before this one in the clause owns the words before it
        at = before.rfind(other.text) if other is not slot and other.text else -1
        if at >= 0:
            before = before[at + len(other.text):]
    after = text[b:b + 30]
    if kind is None:
        if _AFTER_MIN.match(after):
            kind = "min"
        elif _AFTER_MAX.match(after):
            kind = "max"
    if kind is None:
        mins = [m.start() for m in _MIN_STRONG.finditer(before)]
        maxs = [m.start() for m in _MAX_STRONG.finditer(before)]
        if mins or maxs:
            kind = "min" if max(mins, default=-1) > max(maxs, default=-1) else "max"
        elif _MAX_WEAK.search(before):
            kind = "max"
    # per unit: said right after the value, or by the noun phrase right before it (a catalog
    # column "Monthly maintenance fee", "a daily limit of")
    near = before if "\u2014" in text[:a] and ":" in before else " ".join(before.split()[-4:])
    per = bool(_PER_AFTER.match(after) or _PER_WORDS.search(near))
    return Bound(kind, per)


def bounds(fact: Fact) -> list[tuple[Slot, Bound]]:
    """Every bounded-type value of `fact` with its bound (kept per statement and slots: the
    realiser asks for them on every draft)."""
    key = (fact.statement, tuple((s.text, s.type, s.qualifier, s.value, s.value_max, s.unit) for s in fact.slots))
    got = _BOUNDS.get(key)
    if got is None:
        if len(_BOUNDS) > 16384:
            _BOUNDS.clear()
        got = _BOUNDS[key] = [(i, bound_of(fact, s)) for i, s in enumerate(fact.slots)
                              if s.type in BOUNDED_TYPES and s.text]
    return [(fact.slots[i], b) for i, b in got]


_BOUNDS: dict = {}


_PER_NEXT = re.compile(r"^\s*(?:(?:per|each|every|an?)\s+[a-z]|/\s*[a-z])", re.I)


def states_bound(bound: Bound, window: str, before: str = "", after: str = "") -> bool:
    """Whether `window` (the sentence holding a value, with the question it answers) says
    `bound`; `before`, `after`: the text either side of the value (an exact value must not
    read as a cap or a floor right before it: "up to $35" for a fee of $35; "a passenger"
    right after it is per unit)."""
    if bound.kind == "max" and not _SAYS_MAX.search(window):
        return False
    if bound.kind == "min" and not _SAYS_MIN.search(window):
        return False
    if bound.kind is None and before and qualifier_before(before, len(before)) in _MAX_Q:
        return False
    if bound.per and not (_SAYS_PER.search(window) or _PER_NEXT.match(after)):
        return False
    return True


_STOP = re.compile(r"[.!?](?=\s|$)|\n[ \t>]*\n")  # a sentence's end, a blank line (quoted or not)
_NUMBERING = re.compile(r"(?:^|\n)[ \t>]*$")  # a count first on its line: "3. How long ...", "1 | Confirm ..."


def value_window(text: str, s: int, e: int, cap: int = 300) -> tuple[int, int]:
    """Where the bound of a value at [s, e) of `text` must be said: its sentence (a line
    break inside it is a wrapped line of a PDF, a scan or a screenshot, not its end), at most
    `cap` characters either way; a table row (" | " cells) is its own line. And the sentence
    before it when that one is a question (a reply's "It's up to $500." after "What is the
    daily limit?")."""
    ls = text.rfind("\n", 0, s) + 1
    le = text.find("\n", e)
    le = len(text) if le < 0 else le
    if " | " in text[ls:le]:
        return ls, le
    lo_lim, hi_lim = max(0, s - cap), min(len(text), e + cap)
    lo = lo_lim
    for m in _STOP.finditer(text, lo_lim, s):
        lo = m.end()
    m = _STOP.search(text, e, hi_lim)
    hi = m.end() if m else hi_lim
    # the question before it, past a speaker's label or a time stamp (within 200 characters)
    base = max(0, lo - 200)
    q = text.rfind("?", base, lo)
    if q >= 0:
        head = text[base:q]
        lo = base + max([m.end() for m in _STOP.finditer(head)] + [0])
    return lo, hi


def qualifier_mismatches(fact: Fact, idx, said=None) -> list[str]:
    """Snippets of the places in the indexed text `idx` (`facts.match.TextIndex`) where a
    bounded value of `fact` is said without its bound. `said(lo, hi, s)`: whether the value
    at `s`, in its window [lo, hi), is said of the fact (by default every occurrence is). A
    count first on its line is a list's numbering, not a value ("3. How long ...")."""
    out = []
    for slot, bound in bounds(fact):
        for s, e in idx.occurrences(slot):
            if slot.type == SlotType.count and _NUMBERING.search(idx.text, max(0, s - 12), s) and \
                    re.match(r"\s*(?:[.)]|\|)", idx.text[e:e + 3]):
                continue
            lo, hi = value_window(idx.text, s, e)
            if said is not None and not said(lo, hi, s):
                continue
            header = _column_header(idx, s)
            window = idx.text[lo:hi] + (" " + header if header else "")
            if not states_bound(bound, window, idx.text[max(0, s - 30):s], idx.text[e:e + 30]):
                out.append(" ".join(idx.text[lo:hi].split())[:200])
    return out


def _column_header(idx, s: int) -> str:
    """The header cell of the table column a value at `s` sits in (a line of " | " cells),
    else ""."""
    text = idx.text
    ls = text.rfind("\n", 0, s) + 1
    le = text.find("\n", s)
    row = text[ls:le if le >= 0 else len(text)]
    if " | " not in row:
        return ""
    start = idx.block_start(ls)
    if start == ls:
        return ""
    he = text.find("\n", start)
    cells = text[start:he].split(" | ")
    col = text[ls:s].count(" | ")
    return cells[col] if col < len(cells) else ""


_PER_TAIL = re.compile(rf"^\s*((?:per|each|every)\s+[\w-]+(?:\s+cycle)?|an?\s+{PERIODS}\b|/\s*[a-z]+)", re.I)
_PER_COLUMN = re.compile(rf"\b(?:per\s+(?:[\w-]+\s+)?{PERIODS}|per\s+[\w-]+)\b|\b(?:monthly|annual|yearly|daily|weekly|"
                         rf"nightly)\b", re.I)
_ADJ_PERIOD = {"monthly": "a month", "annual": "a year", "yearly": "a year", "daily": "a day", "weekly": "a week",
               "nightly": "a night"}


def bound_words(fact: Fact, slot: Slot) -> tuple[str, str]:
    """What to say around the value alone (a short answer) so it keeps its bound: a prefix
    ("up to ", "at least ") and a suffix (" per passenger", " a month", " per day" from a
    column "Texts per day"); ("", "") for an exact value with nothing per unit."""
    b = bound_of(fact, slot)
    pre = {"max": "up to ", "min": "at least "}.get(b.kind or "", "")
    post = ""
    if b.per and slot.text in fact.statement:
        a = fact.statement.find(slot.text)
        m = _PER_TAIL.match(fact.statement[a + len(slot.text):])
        if m:
            post = " " + m.group(1)
        else:
            c = _PER_COLUMN.search(_clause_before(fact.statement, a))
            if c:
                word = c.group(0).lower()
                post = " " + _ADJ_PERIOD.get(word, c.group(0))
    return pre, post


def bounded_text(fact: Fact, slot: Slot, label: str = "") -> str:
    """The value as a table, a card or a slide prints it beside `label`: with its bound when
    the label does not say it ("financed devices at the same time: up to 2"; "Maximum lines
    per account: 2 lines" says it already)."""
    if slot.type not in BOUNDED_TYPES:
        return slot.text
    pre, post = bound_words(fact, slot)
    b = bound_of(fact, slot)
    if pre and states_bound(Bound(b.kind), label):
        pre = ""
    if post and states_bound(Bound(None, True), label):
        post = ""
    return f"{pre}{slot.text}{post}"
