"""Matching facts against text: the one matcher that writers consult while they write and
that the audits run on what the delivered files show.

A fact is recovered from a text when each of its numeric value slots (money, duration,
count, percent, date), in any equivalent surface form ("$75", "75 dollars", "seventy-five
dollars"; "24 hours", "one day"; "20%", "twenty percent"), appears together with enough of
its anchor terms inside one window of text. Facts without numeric slots need most of their
content words close together. Values are compared by `facts.models.value_key`.
"""
from __future__ import annotations

import math
import re
from bisect import bisect_left
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, Optional

from .bounds import bounds
from .bounds import qualifier_mismatches as _bound_mismatches
from .models import Fact, Slot, SlotType, value_key
from .values import find_values, slot_matches

WINDOW = 320
NUMERIC = (SlotType.money, SlotType.duration, SlotType.count, SlotType.percent, SlotType.date)


@dataclass(frozen=True)
class Match:
    recovered: bool
    matched_text: str = ""
    anchors_found: int = 0
    anchors_needed: int = 0
    missing_values: tuple[str, ...] = ()
    span: tuple[int, int] = (0, 0)  # where in the (normalised) text the match sits


def normalise_text(text: str) -> str:
    # an em dash between spaces sets words apart and stays (`facts.values` reads no range across
    # it: OCR reads the minus sign of "(1 − 1.25%)" as one); the other dashes are hyphens
    text = text.replace("\u2013", "-").replace("\u2019", "'").replace("\u00a0", " ")
    text = re.sub(r"(?<!\s)\u2014|\u2014(?!\s)", "-", text)
    text = re.sub(r"-\n(\w)", r"\1", text)  # OCR hyphenation at line ends
    return text


@lru_cache(maxsize=4096)
def anchor_stem(anchor: str) -> str:
    """What an anchor term is searched as: lower case, a long word without its last two
    letters (so "refunds" finds "refunded")."""
    a = anchor.lower().strip()
    return a[:max(4, len(a) - 2)] if len(a) > 5 else a


@lru_cache(maxsize=4096)
def anchor_re(anchor: str) -> re.Pattern:
    """The anchor's stem, not glued to a letter or digit before it."""
    return re.compile(r"(?<![a-z0-9])" + re.escape(anchor_stem(anchor)))


class TextIndex:
    """Values found in a text (found once, queried per fact), their spans sorted once so a
    window is looked up by bisect; anchor terms are searched inside the window only."""

    def __init__(self, text: str, currency: str = "USD", found: Optional[Iterable[tuple]] = None):
        """`found`: `find_values` of the normalised text, when the caller has them already
        (`audits.readings` keeps them per text)."""
        self.text = normalise_text(text)
        self.low = self.text.lower()
        self.spans: dict[tuple, list[tuple[int, int]]] = {}
        for t, v, vmax, unit, s, e in (find_values(self.text, currency=currency) if found is None else found):
            self.spans.setdefault(value_key(t, v, vmax, unit), []).append((s, e))
        for v in self.spans.values():
            v.sort()
        self._starts: dict[tuple, list[int]] = {}

    def occurrences(self, slot: Slot) -> list[tuple[int, int]]:
        return list(self.spans.get(slot.key(), []))

    def occurs_within(self, slot: Slot, lo: int, hi: int) -> bool:
        """Whether some occurrence of the slot's value lies inside [lo, hi]."""
        key = slot.key()
        spans = self.spans.get(key)
        if not spans:
            return False
        starts = self._starts.get(key)
        if starts is None:
            starts = self._starts[key] = [a for a, _ in spans]
        i = bisect_left(starts, lo)
        while i < len(spans) and spans[i][0] <= hi:
            if spans[i][1] <= hi:
                return True
            i += 1
        return False

    def block_start(self, ls: int) -> int:
        """Where the table block holding the line that starts at `ls` begins (its header row):
        the first of the consecutive " | " lines above it, remembered per line."""
        memo = self.__dict__.setdefault("_blocks", {})
        if ls in memo:
            return memo[ls]
        text = self.low
        start = ls
        walked = []
        while start > 0:
            if start in memo:
                start = memo[start]
                break
            walked.append(start)
            ps = text.rfind("\n", 0, start - 1) + 1
            if " | " not in text[ps:start - 1]:
                break
            start = ps
        for w in walked:
            memo[w] = start
        return start

    def anchor_starts(self, anchor: str) -> tuple[list[int], int]:
        """Every position where `anchor` occurs in the text (`anchor_re`: a term not glued to
        a letter or digit before it; overlapping occurrences included), sorted, and the length
        of an occurrence. Found once per text and anchor: a fact is matched at each
        occurrence of its value, and a file's many facts share their anchor words, so a window
        query is a bisect, not a regex search of the window."""
        memo = self.__dict__.setdefault("_anchor_pos", {})
        got = memo.get(anchor)
        if got is None:  # what anchor_re finds, by str.find (a regex led by a lookbehind scans every position)
            stem, low, starts = anchor_stem(anchor), self.low, []
            i = low.find(stem) if stem else -1
            while i >= 0:
                if i == 0 or not ("a" <= low[i - 1] <= "z" or "0" <= low[i - 1] <= "9"):
                    starts.append(i)
                i = low.find(stem, i + 1)
            got = memo[anchor] = (starts, len(stem))
        return got

    def has_anchor(self, anchor: str, start: int, end: int) -> bool:
        """Whether `anchor` occurs entirely inside [start, end) (looking before `start` for
        the letter or digit it must not be glued to): `anchor_re(anchor).search(low, start,
        end)`, answered from `anchor_starts`."""
        starts, size = self.anchor_starts(anchor)
        i = bisect_left(starts, max(0, start))
        return i < len(starts) and starts[i] + size <= end

    def anchors_in(self, anchors: list[str], start: int, end: int) -> int:
        """How many of `anchors` occur entirely inside [start, end) (an occurrence is a term not
        glued to a letter or digit before it, looking before `start` too)."""
        return sum(1 for a in anchors if self.has_anchor(a, start, end))


def code_pattern(code: str) -> re.Pattern:
    """A schedule code ("SC-104") as a whole token: not "SC-1045", not "XSC-104"."""
    return re.compile(r"(?<![A-Z0-9-])" + re.escape(code) + r"(?![0-9])")


def key_shows_code(fact: Fact, code: str, label: str, ix: "TextIndex") -> bool:
    """The key hop of a multi-hop route, read off a file's text: `code` appears with at least
    half of the fact's terms (those the schedule's `label` does not supply) within `WINDOW`
    characters. The recoverability audit proves routes with it; the writer checks a key
    sentence with it before it is written."""
    low = label.lower()
    anchors = [a.lower() for a in fact.anchors if a.strip() and a.lower()[:5] not in low]
    need = max(1, (len(anchors) + 1) // 2) if anchors else 0
    return any(ix.anchors_in(anchors, max(0, m.start() - WINDOW), m.end() + WINDOW) >= need
               for m in code_pattern(code).finditer(ix.text))


def _needed(n_anchors: int, has_values: bool) -> int:
    if n_anchors == 0:
        return 0
    frac = 0.5 if has_values else 0.6
    return max(1, math.ceil(n_anchors * frac))


def _table_anchors(idx: TextIndex, anchors: list[str], s: int) -> int:
    """Anchors of a value that sits in a table cell (a line of " | "-separated cells, as the
    extractors print spreadsheets and HTML tables), read as a person reads a table: in the
    cell's row and in its column's header, the first line of the table block above it
    (however many rows lie between). 0 when the value is not in a table body row or the
    header has another number of cells."""
    text = idx.low
    ls = text.rfind("\n", 0, s) + 1
    le = text.find("\n", s)
    le = len(text) if le < 0 else le
    row = text[ls:le]
    if " | " not in row:
        return 0
    col = text[ls:s].count(" | ")
    start = idx.block_start(ls)
    if start == ls:
        return 0  # the value is in the header row itself
    he = text.find("\n", start)
    cells = text[start:he].split(" | ")
    if len(cells) != row.count(" | ") + 1 or col >= len(cells):
        return 0
    cs = start + sum(len(c) + 3 for c in cells[:col])
    ce = cs + len(cells[col])
    return sum(1 for a in anchors if idx.has_anchor(a, ls, le) or idx.has_anchor(a, cs, ce))


def _anchor_need(fact: Fact, speech: bool) -> tuple[list[str], int]:
    """The fact's anchor terms and how many of them must stand near its value."""
    numeric = any(s.type in NUMERIC for s in fact.slots)
    anchors = list(dict.fromkeys(a.lower() for a in fact.anchors if a.strip()))
    return anchors, (min(1, len(anchors)) if speech and numeric else _needed(len(anchors), numeric))


def said_of(fact: Fact, idx: TextIndex, s: int, speech: bool = False) -> bool:
    """Whether a value at offset `s` is said of `fact`: as many of its anchors stand within
    `WINDOW` of it (or in its table row and column) as `match_fact` requires of a carrier."""
    anchors, need = _anchor_need(fact, speech)
    return max(idx.anchors_in(anchors, max(0, s - WINDOW), s + WINDOW), _table_anchors(idx, anchors, s)) >= need


def match_fact(fact: Fact, idx: TextIndex, speech: bool = False) -> Match:
    """speech: the text is a speech-recognition transcript. Its values come from a grammar
    of the domain's candidates (the decisive evidence); free words (names, brand terms the
    dictionary lacks) are unreliable, so one anchor next to the values is enough."""
    numeric = [s for s in fact.slots if s.type in NUMERIC]
    anchors, need = _anchor_need(fact, speech)
    if numeric:
        first, rest = numeric[0], numeric[1:]
        occ = idx.occurrences(first)
        if not occ:
            return Match(False, missing_values=tuple(s.text for s in numeric), anchors_needed=need)
        best = 0
        for s, e in occ:
            lo, hi = max(0, s - WINDOW), e + WINDOW
            if any(not idx.occurs_within(r, lo, hi) for r in rest):
                continue
            found = max(idx.anchors_in(anchors, lo, hi), _table_anchors(idx, anchors, s))
            best = max(best, found)
            if found >= need:
                return Match(True, snippet(idx.text, s, e), found, need, span=(max(0, s - WINDOW), e + WINDOW))
        missing = tuple(r.text for r in rest if not idx.occurrences(r))
        return Match(False, anchors_found=best, anchors_needed=need, missing_values=missing)
    # No numeric value: most of the statement's content words, close together (a light
    # paraphrase keeps them; a file that merely talks about the same topic does not).
    words = content_words(fact.statement) or anchors
    if not words:
        return Match(False)
    need = _words_needed(len(words))
    span = int(len(fact.statement) * 1.8) + 60
    positions = sorted(m.start() for w in words for m in anchor_re(w).finditer(idx.low))
    best = 0
    for p in positions:
        found = idx.anchors_in(words, p, p + span)
        best = max(best, found)
        if found >= need:
            return Match(True, snippet(idx.text, p, p + min(span, 200)), found, need, span=(p, p + span))
    return Match(False, anchors_found=best, anchors_needed=need)


def _words_needed(n_words: int) -> int:
    """How many of a fact's content words must appear when it has no numeric value."""
    return max(2, math.ceil(n_words * 0.7)) if n_words > 1 else 1


def carries(fact: Fact, text: str) -> bool:
    """Whether one short text (a single rendition a writer drafts) carries the fact, wherever in
    it the words stand: `match_fact`'s rule without its window. Every numeric value in an
    accepted form (`facts.values.slot_matches`, in the slot's own currency) and half the
    anchors; without numeric values, most of the statement's content words (else of its
    anchors). A fact with neither content words nor anchors is carried by no text, as in
    `match_fact`."""
    low = text.lower().replace("\u2014", "-")
    numeric = [s for s in fact.slots if s.type in NUMERIC]
    if numeric:
        if any(slot_matches(s, text) is None for s in numeric):
            return False
        anchors = list(dict.fromkeys(a.lower() for a in fact.anchors if a.strip()))
        need = _needed(len(anchors), True)
        return sum(1 for a in anchors if anchor_re(a).search(low)) >= need
    words = content_words(fact.statement) or [a.lower() for a in fact.anchors]
    if not words:
        return False
    return sum(1 for w in words if anchor_re(w).search(low)) >= _words_needed(len(words))


def matches(fact: Fact, text: str, currency: str = "USD", speech: bool = False) -> bool:
    """Whether `text` alone carries the fact (what a writer asks of one rendition)."""
    return match_fact(fact, TextIndex(text, currency), speech=speech).recovered


_STOP = set("""a an the of to in on for and or is are be by with at as from that this it its per each any all not no
must may can will should than then there their they them who which what when was were been has have had do does
did into onto over under only also just our your you we us if unless until after before while so such other same
more most less least very about""".split())
STOP_WORDS = frozenset(_STOP)


def content_tokens(text: str) -> list[str]:
    """The words of `text` that say something (three letters or more, no function word), in
    order, repeats kept."""
    return [w for w in re.findall(r"[a-z][a-z'-]{2,}", text.lower()) if w not in _STOP]


def content_words(text: str) -> list[str]:
    return list(dict.fromkeys(content_tokens(text)))


def snippet(text: str, s: int, e: int, pad: int = 90) -> str:
    return " ".join(text[max(0, s - pad):e + pad].split())


def sentence_bounds(text: str, s: int, e: int, cap: int = 300) -> tuple[int, int]:
    """The sentence around [s, e): bounded by sentence punctuation, not by line breaks (OCR and
    PDF text wrap lines mid-sentence), and by a blank line; at most `cap` characters each way."""
    lo_lim, hi_lim = max(0, s - cap), min(len(text), e + cap)
    lo = max([text.rfind(ch, lo_lim, s) for ch in (". ", "! ", "? ", "\n\n")] + [lo_lim - 1]) + 1
    his = [i for i in (text.find(ch, e, hi_lim) for ch in (". ", "! ", "? ", "\n\n")) if i != -1]
    return lo, (min(his) + 1 if his else hi_lim)


def unhedged_mentions(value_slot: Slot, idx: TextIndex, markers: tuple[str, ...],
                      corrected_by: Optional[list[Slot]] = None, of: Optional[Fact] = None,
                      speech: bool = False) -> list[str]:
    """Mentions of a wrong/old value presented as current: not in a sentence holding one of
    the hedge `markers` and not followed, later in the same text, by the fact's current value
    (`corrected_by`, when the file carries that fact). Speech recognition garbles hedge words
    but keeps the order of values, so "the current value comes after the old one" is the test
    that works across every modality; a file that does not carry the fact must hedge. (The
    audits pass the writers' markers: `audits.match`; so do recordings checking their own
    audio: `transforms.hearing`.) With `of`, a mention counts only where it is said of that
    fact (`said_of`): a number in small talk ("it timed out three times") is nobody's rival."""
    later: list[int] = []
    for c in corrected_by or []:
        later += [a for a, _ in idx.occurrences(c)]
    out = []
    for s, e in idx.occurrences(value_slot):
        if any(a > e for a in later):
            continue
        if of is not None and not said_of(of, idx, s, speech=speech):
            continue
        lo, hi = sentence_bounds(idx.text, s, e)
        # a hedge in the sentence, or in the line just before it (table rows, chat turns)
        prev_lo = max(idx.text.rfind("\n", 0, max(idx.text.rfind("\n", 0, s), 0)), 0)
        context = " ".join(idx.low[min(prev_lo, lo):hi].split())
        if not any(h in context for h in markers):
            out.append(snippet(idx.text, s, e, 60))
    return out


def qualifier_mismatches(fact: Fact, idx: TextIndex, speech: bool = False) -> list[str]:
    """Where `idx` says a bounded value of `fact` (a cap, a floor, a per-unit rate, or an
    exact figure) without its bound (`facts.bounds`): the occurrences said of the fact in
    their own sentence (with the question it answers, or a table value's row and column
    header), as many of its anchors there as a carrier needs near its value. A value of
    another fact's sentence nearby ("runs more than one day" beside "within 24 hours") is that
    fact's."""
    anchors, need = _anchor_need(fact, speech)

    def said(lo: int, hi: int, s: int) -> bool:
        return max(idx.anchors_in(anchors, lo, hi), _table_anchors(idx, anchors, s)) >= need

    return _bound_mismatches(fact, idx, said=said)


def keeps_bounds(fact: Fact, text: str, currency: str = "USD") -> bool:
    """Whether one short text (a rendition, a question with its answer) says every value of
    `fact` it states with the value's bound."""
    if not bounds(fact):
        return True
    return not _bound_mismatches(fact, TextIndex(text, currency))
