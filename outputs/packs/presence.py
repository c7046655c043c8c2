"""Is a fact *present* in a text, as that fact? The rule behind "client-held facts are absent".

A held fact is absent from a file when the file, read with the same extractors as
recoverability, does not state it. "State it" uses recoverability's own rule
(`facts.match`): one of the fact's values (any equivalent surface form), its other values
and enough of its anchor terms inside one window. A bare number is not the fact ("$12"
next to nothing), nor, in speech (where one anchor by the value suffices), a value beside
only a word naming a kind of quantity ("an annual fee of one hundred fifty dollars" does not
state a $150 documentation fee); and neither is another fact that happens to share the value: an
occurrence is attributed to a *rival* (a fact the file may legitimately state, with the
same value) when the rival's anchors cover at least as large a share of the window as the
held fact's do. Absent means: no occurrence attributed to the held fact itself.

Structured data (JSON: the development database, scenarios, the API contract) is also read
as structure: an amount, percentage or duration equal to the fact's value under a field
whose name both says what kind of quantity it holds (`fee`, `price`, `discount`, `days`,
...) and shares a distinctive anchor with the fact ("late_fee": 12 for "the late fee is
$12"; not "amount": 12, not "seats_available": 12) states the fact. Bare counts are left
out: a booking with 3 bags states no bag allowance.
"""
from __future__ import annotations

import math
import re
from typing import Any, Iterable, Optional

from facts.match import NUMERIC, WINDOW, TextIndex, anchor_re, match_fact
from facts.models import Fact, Slot, SlotType

TYPE_WORDS = {
    SlotType.money: {"fee", "fees", "price", "amount", "cost", "charge", "refund", "credit", "fare", "total", "balance",
                     "paid", "payment", "compensation", "deposit", "voucher", "certificate", "limit", "cap",
                     "allowance", "adjustment", "penalty", "reimbursement"},
    SlotType.percent: {"pct", "percent", "percentage", "rate", "discount", "apr", "apy"},
    SlotType.duration: {"minutes", "hours", "days", "weeks", "months", "years", "window", "period", "term",
                        "duration"},
}
GENERIC = {"amount", "price", "total", "cost", "charge", "payment", "paid", "balance", "fee", "fees", "rate", "limit",
           "per", "each"}
FIELD = re.compile(r"[a-z][a-z0-9_]*")


def _needed(n: int, speech: bool) -> int:
    if n == 0:
        return 0
    return 1 if speech else max(1, math.ceil(n * 0.5))


def _distinctive(anchors: list[str]) -> list[str]:
    """The anchors that name *this* fact rather than a kind of quantity ("boat loan",
    "documentation"; not "fee")."""
    return [a for a in anchors if a not in GENERIC]


def _anchors(f: Fact) -> list[str]:
    return list(dict.fromkeys(a.lower() for a in f.anchors if a.strip()))


def _numeric(f: Fact) -> list[Slot]:
    return [s for s in f.slots if s.type in NUMERIC]


def rivals_of(fact: Fact, others: Iterable[Fact]) -> list[Fact]:
    """Facts (other than `fact`) with a numeric value equal to `fact`'s first one."""
    num = _numeric(fact)
    if not num:
        return []
    key = num[0].key()
    return [g for g in others if g.id != fact.id and any(s.key() == key for s in _numeric(g))]


def present_as(fact: Fact, idx: TextIndex, rivals: list[Fact], speech: bool = False) -> Optional[str]:
    """The snippet stating `fact` in the indexed text, or None when it is absent as that fact."""
    num = _numeric(fact)
    if not num:
        m = match_fact(fact, idx, speech=speech)
        return m.matched_text if m.recovered else None
    anchors = _anchors(fact)
    need = _needed(len(anchors), speech)
    own = _distinctive(anchors) if speech else []
    first, rest = num[0], num[1:]
    for s, e in idx.occurrences(first):
        lo, hi = max(0, s - WINDOW), e + WINDOW
        if any(not any(lo <= a and b <= hi for a, b in idx.occurrences(r)) for r in rest):
            continue
        found = idx.anchors_in(anchors, lo, hi)
        if found < need:
            continue
        if own and not idx.anchors_in(own, lo, hi):
            continue  # one anchor suffices in speech, but "fee" next to $150 is any fee
        share = found / len(anchors) if anchors else 1.0
        explained = False
        for g in rivals:
            ga = _anchors(g)
            if ga and idx.anchors_in(ga, lo, hi) / len(ga) >= share:
                explained = True
                break
        if not explained:
            return " ".join(idx.text[max(0, s - 90):e + 90].split())
    return None


def json_presence(fact: Fact, data: Any) -> Optional[str]:
    """A JSON path whose number equals the fact's value under a field naming the quantity's
    kind and one of the fact's distinctive anchors, or None."""
    num = [s for s in _numeric(fact) if s.type in TYPE_WORDS]
    if not num or not isinstance(num[0].value, (int, float)):
        return None
    value = float(num[0].value)
    kind_words = TYPE_WORDS[num[0].type]
    stems = [anchor_re(a) for a in _distinctive(_anchors(fact)) if len(a) >= 3]
    if not stems:
        return None

    def names_fact(key: str) -> bool:
        if not FIELD.fullmatch(key):
            return False
        words = key.split("_")
        return any(w in kind_words for w in words) and any(p.search(w) for p in stems for w in words
                                                          if w not in GENERIC)

    def walk(x: Any, path: list[str]) -> Optional[str]:
        if isinstance(x, dict):
            for k, v in x.items():
                hit = walk(v, path + [str(k)])
                if hit:
                    return hit
        elif isinstance(x, list):
            for i, v in enumerate(x):
                hit = walk(v, path + [str(i)])
                if hit:
                    return hit
        elif isinstance(x, (int, float)) and not isinstance(x, bool) and float(x) == value and path:
            if names_fact(path[-1]):
                return "/".join(path)
        return None

    return walk(data, [])
