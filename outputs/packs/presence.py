"""Is a fact *present* in a text, as that fact? The rule behind "client-held facts are absent".

A held fact is absent from a file when the file, read with the same extractors as
recoverability, does not state it. "State it" uses recoverability's own rule
(`facts.match`): one of the fact's values (any equivalent surface form), its other values
and enough of its anchor terms inside one window. A bare number is not the fact ("$12"
next to nothing), and neither is another fact that happens to share the value: an
occurrence is attributed to a *rival* (a fact the file may legitimately state, with the
same value) when the rival's anchors cover at least as large a share of the window as the
held fact's do. Absent means: no occurrence attributed to the held fact itself.

Structured data (JSON: the development database, scenarios, the API contract) is also read
as structure: a number equal to the fact's value under a key whose name shares a stem with
the fact's anchors ("late_fee": 12 for "the late fee is $12") states the fact.
"""
from __future__ import annotations

import math
import re
from typing import Any, Iterable, Optional

from facts.match import NUMERIC, WINDOW, TextIndex, anchor_re, match_fact
from facts.models import Fact, Slot


def _needed(n: int, speech: bool) -> int:
    if n == 0:
        return 0
    return 1 if speech else max(1, math.ceil(n * 0.5))


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
    first, rest = num[0], num[1:]
    for s, e in idx.occurrences(first):
        lo, hi = max(0, s - WINDOW), e + WINDOW
        if any(not any(lo <= a and b <= hi for a, b in idx.occurrences(r)) for r in rest):
            continue
        found = idx.anchors_in(anchors, lo, hi)
        if found < need:
            continue
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


def _stems(fact: Fact) -> list[re.Pattern]:
    return [anchor_re(a) for a in _anchors(fact) if len(a) >= 3]


def json_presence(fact: Fact, data: Any) -> Optional[str]:
    """A JSON path whose number equals the fact's value and whose key names share a stem with
    the fact's anchors, or None."""
    num = _numeric(fact)
    if not num or not isinstance(num[0].value, (int, float)):
        return None
    value = float(num[0].value)
    stems = _stems(fact)
    if not stems:
        return None

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
            key = path[-1].lower().replace("_", " ")
            if any(p.search(key) for p in stems):
                return "/".join(path)
        return None

    return walk(data, [])
