"""Which fact a message is about: weighted term overlap against a domain's whole fact set.

Every fact is reduced to the content terms of its statement with the values masked (the
rule, not the number), plus its anchors; the last section title adds optional terms. A term
weighs its inverse document frequency over the domain's facts, so "tripguard" or "overweight"
identify a rule while "passenger" or "fee" barely do.

For a message, each fact gets
- `shared`: the weight of the fact's terms the message contains (section terms at half weight);
- `coverage`: the share of the fact's statement weight the message contains;
- `rank`: `shared` over the square root of the fact's weight (a cosine with the message), so
  a short rule the message covers entirely beats a longer one it covers in part.

A message is *about* a fact when coverage reaches `COVERAGE` and at least two statement
terms are shared (one term is a topic, not a question). Among the facts it is about, the
one with the highest `rank` is the answer, unless another is tied with it (`tied`): then the
question is ambiguous and nothing is answered. Matching runs against every fact of
the domain, not only the client's, so a question about a rule the records hold is recognised
as such (and pointed back to the records) instead of being answered with the nearest secret.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Iterable, Optional

COVERAGE = 0.5
MIN_SHARED_TERMS = 2
TIE = 0.97
COVERAGE_TIE = 0.05

_WORD = re.compile(r"[a-z][a-z0-9]*")
_LETTER = re.compile(r"(?<![.!?:]\s)(?<=\s)([A-Z])(?=[\s,.;:?!)]|$)")  # "class A", not a sentence's "A"
_PLACEHOLDER = re.compile(r"\{[a-z_]+\}")
STOPWORDS = frozenset("""
a about after again all also am an and any are as at be because been before being between both but by can could did
do does doing done during each either else etc every few for from get gets getting give given go had has have
having he her here hers him his how i if in into is it its itself just let me might more most must my need needs no
nor not now of on once only or other our ours own per please rather same say says shall she should so some such
tell than that the their them then there these they this those through to too until upon us very via was we were
what when where whether which while who whom whose why will with within would yes you your yours ok okay hi hello
thanks thank know knows want wants like mean means think question questions ask asking answer rule rules policy
policies our company customers customer anything something everything thing things case cases usually always never
ever exactly really actually right correct true work works way ways happen happens
""".split())
_SUFFIXES = ("ations", "ation", "ings", "ing", "ies", "ied", "es", "ed", "s")


def stem(word: str) -> str:
    """A crude, stable stem: a common suffix off, then at most 7 letters ("delayed" and
    "delays" -> "delay", "vouchers" -> "voucher", "classified" -> "classif")."""
    w = word
    for suf in _SUFFIXES:
        if len(w) > len(suf) + 2 and w.endswith(suf):
            w = w[: -len(suf)] + ("y" if suf in ("ies", "ied") else "")
            break
    return w[:7]


def terms(text: str) -> list[str]:
    """Content-term stems of a text, in order, repeats removed. A lone capital letter inside
    a sentence ("credit class A") is a term of its own (`#a`)."""
    out: dict[str, None] = {}
    for m in _LETTER.finditer(text):
        out.setdefault("#" + m.group(1).lower(), None)
    for w in _WORD.findall(_PLACEHOLDER.sub(" ", text.lower())):
        if w in STOPWORDS or len(w) < 2 or w.isdigit():
            continue
        out.setdefault(stem(w), None)
    return list(out)


@dataclass(frozen=True)
class Entry:
    key: str                 # a fact id
    statement: frozenset     # statement terms (values masked) and anchors
    section: frozenset       # last section title's terms not in the statement


@dataclass(frozen=True)
class Score:
    key: str
    shared: float
    coverage: float
    n_shared: int
    n_terms: int
    rank: float             # shared / sqrt(the fact's weight): prefers the rule the message covers best

    @property
    def about(self) -> bool:
        return self.coverage >= COVERAGE and self.n_shared >= min(MIN_SHARED_TERMS, self.n_terms)


def tied(best: Score, other: Score) -> bool:
    """Whether `other` explains the message about as well as `best`: nearly the same rank
    and no less of its own rule covered. A fact whose every term the message holds
    is not tied with one the message only partly covers ("Premier Checking, minimum
    opening deposit" is not about Premier Savings' minimum opening deposit)."""
    return other.rank >= TIE * best.rank and other.coverage >= best.coverage - COVERAGE_TIE


class FactIndex:
    """Facts as weighted term sets. `entries`: (fact id, statement template, anchors,
    section path); the templates must have their values masked already (`Fact.template()`)."""

    def __init__(self, entries: Iterable[tuple[str, str, list[str], list[str]]]):
        built: dict[str, Entry] = {}
        for key, template, anchors, section in entries:
            st = frozenset(terms(template)) | frozenset(terms(" ".join(anchors)))
            sec = frozenset(terms(section[-1] if section else "")) - st
            built[key] = Entry(key, st, sec)
        self.entries = built
        df: dict[str, int] = {}
        for e in built.values():
            for t in e.statement | e.section:
                df[t] = df.get(t, 0) + 1
        n = max(1, len(built))
        self.idf = {t: math.log(1 + n / c) for t, c in df.items()}

    def weight(self, t: str) -> float:
        return self.idf.get(t, 0.0)

    def score(self, message: str, keys: Optional[Iterable[str]] = None) -> list[Score]:
        """Scores of the facts (all, or `keys`) the message shares a term with, best first."""
        q = set(terms(message))
        out = []
        for key in (self.entries if keys is None else keys):
            e = self.entries[key]
            common = q & e.statement
            if not common:
                continue
            total = sum(self.weight(t) for t in e.statement) or 1.0
            got = sum(self.weight(t) for t in common)
            shared = got + 0.5 * sum(self.weight(t) for t in q & e.section)
            out.append(Score(key, round(shared, 9), round(got / total, 9), len(common), len(e.statement),
                             round(shared / math.sqrt(total), 9)))
        out.sort(key=lambda s: (-s.rank, -s.coverage, s.key))
        return out

    def about(self, message: str) -> list[Score]:
        """The facts the message is specifically about, best first."""
        return [s for s in self.score(message) if s.about]

    def best(self, message: str) -> tuple[Optional[Score], list[Score]]:
        """(the one fact the message asks about, or None; every fact it is about). None with
        candidates means the question is ambiguous between them."""
        about = self.about(message)
        if not about:
            return None, []
        if len(about) > 1 and tied(about[0], about[1]):
            return None, about
        return about[0], about
