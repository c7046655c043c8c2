"""How a fact's place in the policy is named: its section path without headings that copy
the statement (`heading_path`), the nearest heading (`section_of`), the subject people
talk about (`topic_of`, `section_topic`) and the labels its conditions name
(`condition_values`)."""
from __future__ import annotations

import re
from typing import TYPE_CHECKING

from facts.runs import ngrams

from .grammar import CLAUSE_HEADING

if TYPE_CHECKING:  # pragma: no cover
    from facts.models import Fact


def condition_values(fact: "Fact") -> list[str]:
    """What the fact's conditions name, written as its statement writes them ("credit class
    B", not the decomposer's lower-cased "credit class b"); a catalog cell's column (its
    "attribute" condition) is what the fact is about, not a condition."""
    out = []
    for c in fact.conditions:
        if c.attribute == "attribute":
            continue
        m = re.search(rf"(?<![\w-]){re.escape(c.value)}(?![\w-])", fact.statement, re.I)
        out.append(m.group(0) if m else c.value)
    return out


def section_of(fact: "Fact", default: str = "General") -> str:
    """The heading a file files the fact under: its own section's, unless that heading is
    the statement's own words (an FAQ entry's question is its heading and the first half of
    its statement: printed beside a voiced rendition it would copy the policy), then the
    nearest one above that is not."""
    path = heading_path(fact)
    return path[-1] if path else default


def heading_path(fact: "Fact") -> list[str]:
    """The fact's section path without the trailing headings that share a 6-word run with
    its statement or are questions (see `section_of`): an FAQ's question heads every answer
    under it, and one of them, printed as a heading, copies the policy beside another that
    starts with the question ("Can I place additional check orders ...? Yes.")."""
    path = list(fact.section or ())
    while path and (path[-1].rstrip().endswith("?") or ngrams(path[-1], 6) & ngrams(fact.statement, 6)):
        path.pop()
    return path


_GENERIC_HEADINGS = {"overview", "general", "rules", "details", "notes", "summary"}


def names_subject(heading: str) -> bool:
    """Whether a heading names a subject a sentence can be about ("Checked bags"), not a
    generic one ("General", "Overview") nor a question or clause ("How the fee is assessed")."""
    h = re.sub(r"^\d+(\.\d+)*\s*", "", heading).strip()
    return bool(h) and h.lower() not in _GENERIC_HEADINGS and not CLAUSE_HEADING.search(h)


def topic_of(fact: "Fact") -> str:
    """The section a fact sits in as people name its subject in talk ("the change fees item",
    "questions on checked bags"): the nearest heading, walking up, that is a noun phrase, not
    a generic one ("Overview") nor a question or clause ("What can be changed" gives its
    parent, "Changing a reservation"); "General" when none is."""
    for sec in reversed(heading_path(fact)):
        sec = re.sub(r"^\d+(\.\d+)*\s*", "", sec).strip()
        sec = re.sub(r"^(?:The|A|An)\s+(?=[a-z])", "", sec)  # said after "the": never "the the most likely reasons"
        if names_subject(sec):
            return sec
    return "General"


def section_topic(section: str) -> str:
    """A section as people name its subject in a heading, a category or a memo: "Personal
    credit card catalog" -> "Personal credit card"; "Dispute timelines by dispute type" ->
    "Dispute timelines"."""
    t = re.sub(r"\s+(?:catalog|catalogue|schedule|rules|policy|procedures?)$|\s+by\s.*$", "", section.strip(), flags=re.I)
    return t or section


def fact_label(fact: Fact) -> str:
    """A short noun phrase naming the fact: the statement's head ("Security deposit"), or
    the words right after its value ("discount on late fees"); "" when neither carries at
    least half of the fact's anchors."""
    def covers(phrase: str) -> bool:
        low = phrase.lower()
        hits = sum(1 for a in fact.anchors if a.lower()[:5] in low)
        return bool(fact.anchors) and hits * 2 >= len(fact.anchors)

    m = re.match(r"^(?:(?:the|a|an|each|every|all|any)\s+)?(.+?)\s+(?:is|are|was|must|may|can|cannot|will|has|have|"
                 r"does|do|should|gets?|receives?|pays?|lasts?|costs?|covers?|applies|apply|requires?|includes?)\b",
                 fact.statement, flags=re.I)
    if m and len(m.group(1).split()) <= 8 and covers(m.group(1)):
        head = m.group(1).strip(" ,")
        return head[:1].upper() + head[1:]
    for s in fact.slots:
        i = fact.statement.find(s.text)
        if s.text and i >= 0:
            tail = re.split(r"[,.;:()]| if | when | unless | for each | per | and | or | but | then | so | which "
                            r"| that | who | is | are | was | were | must | may | can | will | should ",
                            fact.statement[i + len(s.text):])[0]
            tail = " ".join(tail.split()[:6])
            if tail and covers(tail):
                return tail[:1].upper() + tail[1:]
    return ""
