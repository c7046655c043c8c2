"""A shallow reader: how far lexical retrieval gets on a bundle's value facts.

The reader a benchmark must defeat searches the delivered text and takes what ranks first. It
splits every file's extracted text into windows (a sentence, or one row of a table), ranks
them by BM25 against the fact's statement with the fact's own figures taken out (the reader
knows what it is asked, not the answer), and answers with the first value of the asked type
(money, percent, duration, count) in the best-ranked window that holds one. The answer is
right when it equals the fact's current value (`facts.models.value_key`: "$35" is "35
dollars"). Its second answer is the majority's: the value most of the `MAJORITY_OF` best-ranked
windows holding a value state (a tie goes to the better-ranked value), what a reader who
trusts repetition takes.

`difficulty_report` runs it twice: over the delivered files' text (the same extractions
recoverability reads) and over the policy text alone. A corpus that rewards reading makes
the first figure low, and well below the second: the policy states every value once, plainly,
while the records state old, rival and unexplained values beside the current ones.

Windows that score the same are ranked by a checksum of their text, not by where they stand
in the bundle: the order of a bundle's files follows the order the planner made them in
(the files that state a current value first), which a reader of the delivered files cannot
know and must not profit from.
"""
from __future__ import annotations

import math
import zlib
from dataclasses import dataclass
from typing import Iterable, Optional

import numpy as np

from facts.match import content_tokens, content_words
from facts.models import Fact, SlotType, value_key
from facts.runs import sentences
from facts.values import find_values
from transforms.plan_roles import value_slot

K1, B = 1.2, 0.75
MAJORITY_OF = 5


def windows(text: str) -> list[str]:
    """The text's sentences, and a table's rows whole (a row is read as one window)."""
    out = []
    for line in text.split("\n"):
        line = line.strip()
        if not line:
            continue
        if " | " in line:
            out.append(line)
        else:
            out += [s for s in sentences(line) if s.strip()]
    return out


def query_terms(f: Fact) -> list[str]:
    """The statement's content words, its figures taken out (the question, not the answer)."""
    text = f.statement
    for s in f.slots:
        if s.text:
            text = text.replace(s.text, " ")
    return content_words(text)


class Index:
    """BM25 over windows."""

    def __init__(self, texts: Iterable[str]):
        self.windows: list[str] = [w for t in texts for w in windows(t)]
        postings: dict[str, dict[int, int]] = {}
        lengths = np.zeros(len(self.windows), dtype=np.float64)
        for i, w in enumerate(self.windows):
            terms = content_tokens(w)
            lengths[i] = len(terms)
            for t in terms:
                row = postings.setdefault(t, {})
                row[i] = row.get(i, 0) + 1
        self._norm = K1 * (1 - B + B * lengths / max(float(lengths.mean()) if len(lengths) else 0.0, 1e-9))
        self._tie = np.fromiter((zlib.crc32(w.encode("utf-8")) for w in self.windows), dtype=np.int64,
                                count=len(self.windows))
        self._postings = postings
        self._arrays: dict[str, tuple[np.ndarray, np.ndarray]] = {}

    def _weights(self, term: str) -> Optional[tuple[np.ndarray, np.ndarray]]:
        if term not in self._arrays:
            row = self._postings.get(term)
            if not row:
                return None
            ids = np.fromiter(row.keys(), dtype=np.int64, count=len(row))
            tf = np.fromiter(row.values(), dtype=np.float64, count=len(row))
            n = len(self.windows)
            idf = math.log(1 + (n - len(row) + 0.5) / (len(row) + 0.5))
            self._arrays[term] = (ids, idf * tf * (K1 + 1) / (tf + self._norm[ids]))
        return self._arrays[term]

    def ranked(self, terms: list[str], top: int = 50) -> list[int]:
        """Window numbers by score, best first, a tie by the windows' checksums (at most `top`;
        windows sharing no term left out)."""
        if not self.windows:
            return []
        scores = np.zeros(len(self.windows), dtype=np.float64)
        for t in terms:
            w = self._weights(t)
            if w is not None:
                scores[w[0]] += w[1]
        hit = np.flatnonzero(scores > 0)
        if not len(hit):
            return []
        best = hit[np.lexsort((self._tie[hit], -scores[hit]))[:top]]
        return [int(i) for i in best]


@dataclass(frozen=True)
class Answer:
    fact_id: str
    answer: Optional[str]  # the value's text as the window has it; None: no window held a value of the type
    correct: bool
    majority: Optional[str] = None  # the value most of the best windows state, as the first of them has it
    majority_correct: bool = False


def _typed_values(window: str, typ: SlotType, currency: str):
    return [v for v in find_values(window, currency) if v[0] == typ]


def read(index: Index, facts: Iterable[Fact], currency: str = "USD") -> list[Answer]:
    """The shallow reader's answer to every value fact (a fact without a value slot is skipped)."""
    out = []
    for f in facts:
        slot = value_slot(f)  # the slot a value fact is asked about
        if slot is None:
            continue
        seen: list[tuple[tuple, str]] = []  # (value key, text) of the best windows holding a value
        for i in index.ranked(query_terms(f)):
            found = _typed_values(index.windows[i], slot.type, currency)
            if found:
                typ, value, value_max, unit, s, e = found[0]
                seen.append((value_key(typ, value, value_max, unit), index.windows[i][s:e]))
                if len(seen) == MAJORITY_OF:
                    break
        if not seen:
            out.append(Answer(f.id, None, False))
            continue
        votes: dict[tuple, int] = {}
        for key, _text in seen:
            votes[key] = votes.get(key, 0) + 1
        top = max(votes.values())
        major = next((key, text) for key, text in seen if votes[key] == top)
        out.append(Answer(f.id, seen[0][1], seen[0][0] == slot.key(), major[1], major[0] == slot.key()))
    return out


def accuracy(answers: list[Answer], majority: bool = False) -> Optional[float]:
    if not answers:
        return None
    return round(sum(a.majority_correct if majority else a.correct for a in answers) / len(answers), 4)
