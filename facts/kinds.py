"""The kind of a fact (value, rule, eligibility, procedure step, prohibition, definition),
decided from its wording, its place (list item, numbered step, table cell, section title)
and its slots."""
from __future__ import annotations

import re

from .models import NUMERIC_TYPES, FactKind, Slot

_PROHIBIT = re.compile(r"\b(?:must\s+not|mustn't|cannot|can\s*not|can't|never|not\s+(?:be\s+)?allowed|"
                       r"not\s+permitted|do\s+not|don't|does\s+not\s+allow|may\s+not|should\s+not|shouldn't|"
                       r"prohibited|forbidden|is\s+not\s+possible|are\s+not\s+possible|"
                       r"no\s+\w+\s+(?:is|are)\s+allowed)\b",
                       re.IGNORECASE)
_ELIGIBLE = re.compile(r"\b(?:eligib\w*|only\s+if|only\s+when|only\s+(?:be\s+)?\w+ed\s+if|qualif(?:y|ies|ied)|"
                       r"must\s+be|must\s+have|must\s+already|at\s+least\b.*\bto\b|required\s+to|requires?|"
                       r"requirements?)\b", re.IGNORECASE)
DEFINE_THERE = re.compile(r"^there\s+(?:are|is)\b", re.IGNORECASE)
_DEFINE = re.compile(r"^[^,;:]{1,80}?\b(?:is|are|means|mean|refers?\s+to|is\s+defined\s+as|consists?\s+of)\b",
                     re.IGNORECASE)
MODAL = re.compile(r"\b(?:must|should|shall|may|might|can|could|will|would|need(?:s)?\s+to|have\s+to|has\s+to|"
                    r"required)\b", re.IGNORECASE)
_PROCEDURE_HEADING = re.compile(r"\b(?:procedure|steps?|process|how\s+to|workflow|instructions?|checklist|guide|"
                                r"playbook|runbook|protocol)\b", re.IGNORECASE)
_IMPERATIVE = frozenset("""verify check confirm ask use call collect obtain provide review ensure inform transfer open
offer refund document escalate explain calculate compare create contact send submit select update record follow
validate identify set add remove apply capture discuss authenticate invoke retrieve look locate notify remind tell
determine process issue approve deny decline reject cancel modify book charge waive credit debit assess close advise
direct gather note log place request reset unlock lock enter navigate click choose help make take get list read
count let have be do run attach print sign complete schedule arrange deliver return replace mark flag search
encourage keep save share configure establish prepare maintain monitor track report reverse investigate""".split())
_LEADERS = re.compile(r"^(?:(?:then|first|next|finally|also|always|please|afterwards|now|second|third|lastly)"
                      r"[,:]?\s+)+",
                      re.IGNORECASE)


_NOT_SUBJECT = frozenset("if when only unless that which who whom where once after before while since because "
                         "it this".split())


def is_imperative(text: str) -> bool:
    t = _LEADERS.sub("", text.strip())
    m = re.match(r"([A-Za-z]+)", t)
    return bool(m) and m.group(1).lower() in _IMPERATIVE and not re.match(r"[A-Za-z]+\s+(?:is|are|was|of)\b", t)


def classify_kind(statement: str, child: str, numbered: bool, item: bool, section: list[str],
          slots: list[Slot], table: bool, prefix_modal: bool = False) -> FactKind:
    if table:
        return FactKind.value if any(s.type in NUMERIC_TYPES for s in slots) else FactKind.definition
    if _PROHIBIT.search(statement):
        return FactKind.prohibition
    imperative = is_imperative(child) and not (prefix_modal and not numbered)
    if item and (imperative or (numbered and any(_PROCEDURE_HEADING.search(s) for s in section))):
        return FactKind.procedure_step
    if _ELIGIBLE.search(statement) or any("eligib" in s.lower() for s in section):
        return FactKind.eligibility
    if DEFINE_THERE.match(child) or DEFINE_THERE.match(statement):
        return FactKind.definition
    if any(s.type in NUMERIC_TYPES for s in slots) and not MODAL.search(statement):
        return FactKind.value
    if re.match(r"^[^,;:]{1,60}?\b(?:means|refers?\s+to|is\s+defined\s+as)\b", child, re.IGNORECASE):
        return FactKind.definition
    dm = _DEFINE.match(child)
    if dm and not MODAL.search(child) and not is_imperative(child):
        subject = dm.group(0).split()
        after = child[dm.end():].split()
        if len(subject) <= 6 and not (set(w.lower() for w in subject) & _NOT_SUBJECT) \
                and not (after and (after[0].lower() in ("not", "being") or after[0].lower().endswith("ed"))):
            return FactKind.definition
    return FactKind.rule
