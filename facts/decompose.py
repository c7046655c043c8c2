"""Policy markdown -> atomic facts (the built-in, offline decomposer).

Three passes over a file:

1. blocks: headings, paragraphs, list items (with indentation), tables, code blocks and
   markup-only lines; malformed structure (table rows with the wrong number of cells, an
   unclosed code fence, invalid UTF-8) raises `FactforgeError` naming the file and line;
2. candidates: each sentence of a paragraph, each list item (and each sentence of a long
   item), each table cell; a paragraph or parent item ending with ':' gives its children
   context, a short label line ("Cabin:") becomes a sub-section;
3. facts: per-tier statements are split into one fact per value, typed slots are parsed
   (facts.values), kind, conditions, anchors, dependencies and stable ids are assigned.

Lines that cannot become a fact are reported in `FactSet.unparsed` with a reason; blank
lines, headings, table separators and code-fence markers are structure.

Two silent surprises are errors instead: a section heading repeated under the same parent
in one file (compared case-insensitively: its facts would be merged into one section, or
doubled when the text is a copy; the error names both lines), and a pack whose policy
states no facts at all (empty, or every line unparsed), which would build an empty bundle.
"""
from __future__ import annotations

import bisect
import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Optional

from .errors import FactforgeError
from .hashing import content_hash, sha256_hex
from .models import (Condition, Fact, FactKind, FactSet, Slot, SlotType, SourceSpan, UnparsedLine,
                     make_fact_id)
from .surface import WORD_VALUES
from .values import _scan, clean_inline, parse_slots

if TYPE_CHECKING:  # pragma: no cover
    from domains import DomainPack

NUMERIC = (SlotType.money, SlotType.duration, SlotType.count, SlotType.percent)

# --- text with bold spans -----------------------------------------------------------------------


@dataclass(frozen=True)
class _T:
    """Cleaned text, the spans of its bold terms, and the source line of each character run."""

    text: str
    bold: tuple = ()
    starts: tuple = (0,)   # offsets where each source line begins in `text`
    lines: tuple = (1,)    # the line number of each start

    def line_at(self, off: int) -> int:
        return self.lines[max(0, bisect.bisect_right(self.starts, off) - 1)]

    def cut(self, a: int, b: int) -> "_T":
        # trim whitespace inside [a, b)
        while a < b and self.text[a].isspace():
            a += 1
        while b > a and self.text[b - 1].isspace():
            b -= 1
        bold = tuple((x - a, y - a) for x, y in self.bold if x >= a and y <= b)
        i = max(0, bisect.bisect_right(self.starts, a) - 1)
        j = bisect.bisect_left(self.starts, b)
        starts = tuple([0] + [s - a for s in self.starts[i + 1:j]])
        return _T(self.text[a:b], bold, starts, self.lines[i:j] or (self.line_at(a),))

    @property
    def first_line(self) -> int:
        return self.lines[0]

    @property
    def last_line(self) -> int:
        return self.lines[-1]

    def plus(self, other: "_T", sep: str = " ") -> "_T":
        if not self.text:
            return other
        shift = len(self.text) + len(sep)
        return _T(self.text + sep + other.text, self.bold + tuple((x + shift, y + shift) for x, y in other.bold),
                  self.starts, self.lines)


def _clean_lines(raw: list[tuple[int, str]]) -> _T:
    parts, bold, starts, lines = [], [], [], []
    off = 0
    for lineno, line in raw:
        text, b = clean_inline(" ".join(line.split()))
        if parts:
            off += 1
        starts.append(off)
        lines.append(lineno)
        bold.extend((x + off, y + off) for x, y in b)
        parts.append(text)
        off += len(text)
    return _T(" ".join(parts), tuple(bold), tuple(starts), tuple(lines))


# --- pass 1: blocks -----------------------------------------------------------------------------
_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
_EMPTY_HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]*$")
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
_HR = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_ITEM = re.compile(r"^(\s*)([-*+•]|\d{1,3}[.)]|[a-h][.)](?=[ \t]+\S))[ \t]+(\S.*)$")
_EMPTY_ITEM = re.compile(r"^\s*(?:[-*+•]|\d{1,3}[.)])[ \t]*$")
_QUOTE = re.compile(r"^\s*>\s?")
_TABLE_SEP = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$")
_SETEXT_H1 = re.compile(r"^ {0,3}=+\s*$")
_PIPE_SPLIT = re.compile(r"(?<!\\)\|")


@dataclass
class _Block:
    kind: str                      # heading para item table code unparsed blank
    start: int
    end: int
    indent: int = 0
    raw: list = field(default_factory=list)   # [(lineno, text)]
    level: int = 0
    numbered: bool = False
    header: list = field(default_factory=list)
    rows: list = field(default_factory=list)  # [(lineno, cells)]
    reason: str = ""


def _split_row(line: str) -> list[str]:
    s = line.strip()
    if s.startswith("|"):
        s = s[1:]
    if s.endswith("|") and not s.endswith("\\|"):
        s = s[:-1]
    return [c.strip().replace("\\|", "|") for c in _PIPE_SPLIT.split(s)]


def _is_para_line(line: str) -> bool:
    return not (_HEADING.match(line) or _FENCE.match(line) or _HR.match(line) or _ITEM.match(line)
                or _EMPTY_ITEM.match(line) or line.strip().startswith("|") or _EMPTY_HEADING.match(line))


def _blocks(lines: list[str], file: str) -> list[_Block]:
    out: list[_Block] = []
    n = len(lines)
    i = 0
    while i < n:
        line = lines[i]
        s = line.strip()
        no = i + 1
        if not s:
            out.append(_Block("blank", no, no))
            i += 1
            continue
        if s.startswith("<!--"):
            # HTML comment: authors' notes, structure rather than policy; unclosed is an error
            j = i
            while j < n and "-->" not in lines[j]:
                j += 1
            if j >= n:
                raise FactforgeError("unclosed HTML comment (no closing -->)", file, no)
            out.append(_Block("blank", no, j + 1))
            i = j + 1
            continue
        fm = _FENCE.match(line)
        if fm:
            marker = fm.group(1)
            j = i + 1
            while j < n and not (lines[j].strip().startswith(marker[0] * len(marker))
                                 and not lines[j].strip().strip(marker[0])):
                j += 1
            if j >= n:
                raise FactforgeError("unclosed code fence (no closing " + marker + ")", file, no)
            out.append(_Block("code", no, j + 1, raw=[(k + 1, lines[k]) for k in range(i + 1, j)]))
            i = j + 1
            continue
        hm = _HEADING.match(line)
        if hm:
            out.append(_Block("heading", no, no, level=len(hm.group(1)), raw=[(no, hm.group(2))]))
            i += 1
            continue
        if _EMPTY_HEADING.match(line):
            out.append(_Block("unparsed", no, no, raw=[(no, line)], reason="empty heading"))
            i += 1
            continue
        if _SETEXT_H1.match(line) and out and out[-1].kind == "para" and len(out[-1].raw) == 1:
            prev = out.pop()
            out.append(_Block("heading", prev.start, no, level=1, raw=prev.raw))
            i += 1
            continue
        if "|" in s and i + 1 < n and _TABLE_SEP.match(lines[i + 1]) and "|" in s + lines[i + 1]:
            header = _split_row(line)
            sep = _split_row(lines[i + 1])
            if len(sep) != len(header):
                raise FactforgeError(f"table separator has {len(sep)} cells but the header has {len(header)}",
                                     file, no + 1)
            blk = _Block("table", no, no + 1, header=header)
            j = i + 2
            while j < n and lines[j].strip() and "|" in lines[j]:
                cells = _split_row(lines[j])
                if len(cells) != len(header):
                    raise FactforgeError(f"table row has {len(cells)} cells but the header has {len(header)}",
                                         file, j + 1)
                blk.rows.append((j + 1, cells))
                j += 1
            blk.end = j
            out.append(blk)
            i = j
            continue
        if s.startswith("|") and s.count("|") >= 2:
            raise FactforgeError("table row without a header separator line (| --- | --- |)", file, no)
        if _HR.match(line):
            out.append(_Block("unparsed", no, no, raw=[(no, line)], reason="markup only (horizontal rule)"))
            i += 1
            continue
        if _EMPTY_ITEM.match(line):
            out.append(_Block("unparsed", no, no, raw=[(no, line)], reason="empty list item"))
            i += 1
            continue
        im = _ITEM.match(line)
        if im:
            blk = _Block("item", no, no, indent=len(im.group(1).expandtabs(4)), raw=[(no, im.group(3))],
                         numbered=im.group(2)[0].isalnum())
            j = i + 1
            while j < n and lines[j].strip() and _is_para_line(lines[j]) and not _QUOTE.match(lines[j]) \
                    and not ("|" in lines[j] and j + 1 < n and _TABLE_SEP.match(lines[j + 1])):
                blk.raw.append((j + 1, lines[j]))
                j += 1
            blk.end = j
            out.append(blk)
            i = j
            continue
        # paragraph (block quotes are read as paragraphs)
        blk = _Block("para", no, no, indent=len(line) - len(line.lstrip(" \t")))
        j = i
        while j < n and lines[j].strip() and _is_para_line(lines[j]) \
                and not ("|" in lines[j] and j + 1 < n and _TABLE_SEP.match(lines[j + 1])) \
                and not (j > i and _SETEXT_H1.match(lines[j])):
            blk.raw.append((j + 1, _QUOTE.sub("", lines[j], count=1)))
            j += 1
        blk.end = j
        out.append(blk)
        i = j
    return out


# --- sentences ---------------------------------------------------------------------------------
_SENT_END = re.compile(r"(?:[.!?]+)[\"'”’)\]]*\s+(?=[\"'“‘(\[]?[A-Z0-9$€£])")
_ABBREV = frozenset("e.g i.e etc.al vs approx incl mr mrs ms dr st no nos jr sr inc ltd co corp fig est. dept "
                    "min max avg approx. misc ref refs".split())
_INITIALS = re.compile(r"(?:\b[A-Za-z]\.){2,}$")
_NUMBER_LABEL = re.compile(r"[(\[]?[A-Za-z]?\d{1,3}(?:\.\d+)*[.)]|[A-Za-z][.)]")
_INLINE_ENUM = re.compile(r"(?:(?<=^)|(?<=[\s:;,(]))(\d{1,2})\)\s+")


_QUOTED = re.compile(r"(?<![\w])'[^'\n]{2,200}?'(?![\w])|\"[^\"\n]{2,200}?\"|“[^”\n]{2,200}?”")
_SENT_END_LOWER = re.compile(r"(?:[.!?]+)\s+(?=[a-z])")


def _sentences(t: _T) -> list[_T]:
    text = t.text
    if not any(ch in text for ch in ".!?"):
        return [t] if text.strip() else []
    quoted = [m.span() for m in _QUOTED.finditer(text)] if any(q in text for q in "'\"“") else []
    ends = list(_SENT_END.finditer(text))
    if t.bold:
        starts = {a for a, _ in t.bold}
        ends += [m for m in _SENT_END_LOWER.finditer(text) if m.end() in starts]
        ends.sort(key=lambda m: m.start())
    out, start = [], 0
    for m in ends:
        if m.start() < start or any(a < m.start() < b - 1 for a, b in quoted):
            continue
        if text[m.start()] == "?":
            continue  # a question stays with its answer
        head = text[start:m.start() + 1]
        word = re.search(r"(\S+)$", text[start:m.start()])
        w = (word.group(1) if word else "").lower().lstrip("(\"'")
        if w in _ABBREV or _INITIALS.search(head) or re.search(r"\b[A-Z]$", head[:-1] if head else "") \
                or _NUMBER_LABEL.fullmatch(head.strip()):
            continue
        end = m.end()
        seg = t.cut(start, end)
        if seg.text:
            out.append(seg)
        start = end
    seg = t.cut(start, len(text))
    if seg.text:
        out.append(seg)
    return out


def _inline_enum(t: _T) -> Optional[tuple[_T, list[_T]]]:
    """'Steps: 1) Verify identity, 2) Check eligibility' -> (lead, [items])."""
    ms = list(_INLINE_ENUM.finditer(t.text))
    if len(ms) < 2:
        return None
    seq = []
    for m in ms:
        k = int(m.group(1))
        if (not seq and k == 1) or (seq and k == int(seq[-1].group(1)) + 1):
            seq.append(m)
        elif seq and k == 1:
            break
    if len(seq) < 2:
        return None
    lead = t.cut(0, seq[0].start())
    items = []
    for idx, m in enumerate(seq):
        end = seq[idx + 1].start() if idx + 1 < len(seq) else len(t.text)
        it = t.cut(m.end(), end)
        s = it.text
        trim = re.search(r"(?:[,;]\s*(?:and|or)?|\s+(?:and|or))\s*$", s)
        if trim:
            it = it.cut(0, trim.start())
        if it.text:
            items.append(it)
    return lead, items


# --- vocabulary and conditions -----------------------------------------------------------------
_VOCAB_DEF = re.compile(
    r"^(?:there\s+(?:are|is)\s+(?:\w+\s+)?(?:(?:different\s+)?(?:types|kinds|sorts)\s+of\s+)?(?P<a1>[\w /-]{2,40}?)"
    r"|(?:the\s+)?(?P<a2>[\w /-]{2,40}?)\s+(?:can\s+be|could\s+be|is\s+one\s+of|are|include|includes))"
    r"\s*:\s*(?P<list>.+)$",
    re.IGNORECASE)


def _singular(w: str) -> str:
    lw = w.lower()
    if lw.endswith("ies") and len(lw) > 4:
        return w[:-3] + "y"
    if lw.endswith(("sses", "ches", "shes", "xes", "uses")):
        return w[:-2]
    if lw.endswith("s") and not lw.endswith(("ss", "us", "is")):
        return w[:-1]
    return w


def _attr_name(a: str) -> str:
    a = " ".join(a.split()).strip(" -/").lower()
    m = re.match(r"(.+?)\s+of\s+(?:an?|the|each|every)\s+(.+)$", a)
    if m:
        a = f"{m.group(2)} {m.group(1)}"
    words = a.split()
    if words:
        words[-1] = _singular(words[-1])
    return " ".join(words)


def _vocab_from(t: _T) -> list[tuple[str, str]]:
    m = _VOCAB_DEF.match(t.text)
    if not m or not t.bold and "'" not in m.group("list") and '"' not in m.group("list"):
        return []
    attr = _attr_name(m.group("a1") or m.group("a2") or "")
    if not attr or len(attr.split()) > 4:
        return []
    lst = m.start("list")
    terms = [t.text[a:b].strip() for a, b in t.bold if a >= lst]
    terms += [q.group(2) for q in re.finditer(r"(['\"“])([^'\"”]{1,40})(['\"”])", m.group("list"))]
    return [(attr, term.lower()) for term in terms if term and len(term.split()) <= 4]


_COND_CUE = re.compile(r"\b(?:if|for|when|unless|only|with|whose)\b", re.IGNORECASE)


def _vocab_conditions(text: str, vocab: list[tuple[str, str, re.Pattern]], taken: list[tuple[int, int]],
                      skip_attrs: set[str]) -> list[Condition]:
    out, spans = [], list(taken)
    for attr, term, rx in vocab:
        if attr in skip_attrs:
            continue
        for m in rx.finditer(text):
            a, b = m.span()
            if any(a < y and x < b for x, y in spans):
                continue
            spans.append((a, b))
            if not any(c.attribute == attr and c.value == term for c in out):
                out.append(Condition(attribute=attr, value=term))
            break
    return out


# --- per-tier splitting ------------------------------------------------------------------------
_SEG_SPLIT = re.compile(r"\s*;\s*|,\s+(?:and\s+|or\s+)?|\s+and\s+(?=[A-Za-z$€£]+[^,;]*$)")


_QUAL_WORDS = re.compile(r"\s+(?:max|min|maximum|minimum|up\s+to|at\s+most|at\s+least|only)\.?$")


@dataclass(frozen=True)
class _V:
    text: str
    type: SlotType


def _split_tiers(piece: _T, currency: str, vocab_terms: dict[str, str]) -> Optional[list[tuple[str, Condition]]]:
    """'Gold members get 3 free bags, silver 2, regular 1' -> one (statement, condition) per value."""
    text = piece.text.rstrip(" .")
    if not (";" in text or ", " in text or " and " in text):
        return None
    pre = [v for v in _scan(text, currency) if v[0] in NUMERIC]
    if len(pre) < 2 or len({v[0] for v in pre}) != 1:
        return None
    slots = [_V(text[v[4]:v[5]], v[0]) for v in pre]
    cuts = [0]
    for m in _SEG_SPLIT.finditer(text):
        cuts.extend([m.start(), m.end()])
    cuts.append(len(text))
    segs = [(cuts[k], cuts[k + 1]) for k in range(0, len(cuts), 2)]
    segs = [(a, b) for a, b in segs if b > a]
    if len(segs) != len(slots):
        return None
    seg_vals = []
    for (a, b), s in zip(segs, slots):
        idx = text.find(s.text, a)
        if idx < 0 or idx + len(s.text) > b:
            return None
        seg_vals.append((text[a:b], s, idx - a))
    typ_word = r"[A-Za-z][\w/&'-]*(?:\s+[A-Za-z][\w/&'-]*){0,3}"
    rest_labels = []
    for seg, s, off in seg_vals[1:]:
        v = re.escape(s.text)
        m = (re.fullmatch(rf"(?:and\s+|or\s+)?(?P<l>{typ_word})\s*(?::|=|-|–|—)?\s*{v}", seg)
             or re.fullmatch(rf"{v}\s+(?:for|on|in|at|with)\s+(?P<l>{typ_word})", seg))
        if not m:
            return None
        rest_labels.append(m.group("l"))
    first, s1, off1 = seg_vals[0]
    attr = None
    known = [vocab_terms.get(lbl.lower()) for lbl in rest_labels]
    if all(known) and len(set(known)) == 1:
        attr = known[0]
    # Label of the first segment: "lead label: value", "value on label", or a vocab term / leading word.
    label1, lead, template = None, "", None
    v1 = re.escape(s1.text)
    m = re.fullmatch(rf"(?P<lead>.*?(?::|—|–|\s-)\s*)?(?P<l>{typ_word})\s*(?::|=)\s*{v1}", first)
    if m:
        label1, lead = m.group("l"), (m.group("lead") or "").strip(" :—–-")
        make = (lambda lbl, val: f"{lead} for {lbl}: {val}." if lead else f"{lbl[:1].upper() + lbl[1:]}: {val}.")
    elif re.fullmatch(rf"(?P<lead>[^:]+):\s*(?P<l>{typ_word})\s+{v1}", first):
        m = re.fullmatch(rf"(?P<lead>[^:]+):\s*(?P<l>{typ_word})\s+{v1}", first)
        label1, lead = m.group("l"), m.group("lead").strip()
        make = (lambda lbl, val: f"{lead}: {lbl} {val}.")
    else:
        m = re.fullmatch(rf"(?P<lead>.*?){v1}\s+(?P<p>for|on|in|at|with)\s+(?P<l>{typ_word})", first)
        if m:
            label1, lead, prep = m.group("l"), m.group("lead"), m.group("p")
            make = (lambda lbl, val: f"{lead}{val} {prep} {lbl}.")
        else:
            cands = []
            if attr:
                cands = [term for term, at in vocab_terms.items() if at == attr]
                cands.sort(key=len, reverse=True)
            words = first.split()
            if not cands and words and words[0][:1].isupper() and all(len(lbl.split()) == 1 for lbl in rest_labels):
                cands = [words[0]]
            for c in cands:
                mm = re.search(rf"(?<![\w]){re.escape(c)}(?![\w])", first, re.IGNORECASE)
                if mm and not (mm.start() <= off1 < mm.end()):
                    label1 = first[mm.start():mm.end()]
                    template = (first[:mm.start()], first[mm.end():off1], first[off1 + len(s1.text):])
                    break
            if label1 is None:
                return None

            def make(lbl: str, val: str, t=template) -> str:
                pre, mid, post = t
                lb = lbl[:1].upper() + lbl[1:] if not pre else lbl
                return f"{pre}{lb}{mid}{val}{post}".rstrip(" .") + "."
    default_attr = "category" if re.search(rf"{v1}\s+(?:on|in|at)\s", first) else "tier"

    def cond(lbl: str) -> Condition:
        low = _QUAL_WORDS.sub("", lbl.lower()).strip() or lbl.lower()
        if attr is None:
            for term in sorted(vocab_terms, key=len, reverse=True):
                if re.search(rf"(?<![\w-]){re.escape(term)}(?![\w-])", low):
                    return Condition(attribute=vocab_terms[term], value=term)
        return Condition(attribute=attr or vocab_terms.get(low) or default_attr, value=low)

    out = [(make(label1, s1.text), cond(label1))]
    for (seg, s, off), lbl in zip(seg_vals[1:], rest_labels):
        out.append((make(lbl, s.text), cond(lbl)))
    if len({o[0] for o in out}) != len(out):
        return None
    return out


# --- kinds --------------------------------------------------------------------------------------
_PROHIBIT = re.compile(r"\b(?:must\s+not|mustn't|cannot|can\s*not|can't|never|not\s+(?:be\s+)?allowed|"
                       r"not\s+permitted|do\s+not|don't|does\s+not\s+allow|may\s+not|should\s+not|shouldn't|"
                       r"prohibited|forbidden|is\s+not\s+possible|are\s+not\s+possible|"
                       r"no\s+\w+\s+(?:is|are)\s+allowed)\b",
                       re.IGNORECASE)
_ELIGIBLE = re.compile(r"\b(?:eligib\w*|only\s+if|only\s+when|only\s+(?:be\s+)?\w+ed\s+if|qualif(?:y|ies|ied)|"
                       r"must\s+be|must\s+have|must\s+already|at\s+least\b.*\bto\b|required\s+to|requires?|"
                       r"requirements?)\b", re.IGNORECASE)
_DEFINE_THERE = re.compile(r"^there\s+(?:are|is)\b", re.IGNORECASE)
_DEFINE = re.compile(r"^[^,;:]{1,80}?\b(?:is|are|means|mean|refers?\s+to|is\s+defined\s+as|consists?\s+of)\b",
                     re.IGNORECASE)
_MODAL = re.compile(r"\b(?:must|should|shall|may|might|can|could|will|would|need(?:s)?\s+to|have\s+to|has\s+to|"
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


def _imperative(text: str) -> bool:
    t = _LEADERS.sub("", text.strip())
    m = re.match(r"([A-Za-z]+)", t)
    return bool(m) and m.group(1).lower() in _IMPERATIVE and not re.match(r"[A-Za-z]+\s+(?:is|are|was|of)\b", t)


def _kind(statement: str, child: str, numbered: bool, item: bool, section: list[str],
          slots: list[Slot], table: bool, prefix_modal: bool = False) -> FactKind:
    if table:
        return FactKind.value if any(s.type in NUMERIC for s in slots) else FactKind.definition
    if _PROHIBIT.search(statement):
        return FactKind.prohibition
    imperative = _imperative(child) and not (prefix_modal and not numbered)
    if item and (imperative or (numbered and any(_PROCEDURE_HEADING.search(s) for s in section))):
        return FactKind.procedure_step
    if _ELIGIBLE.search(statement) or any("eligib" in s.lower() for s in section):
        return FactKind.eligibility
    if _DEFINE_THERE.match(child) or _DEFINE_THERE.match(statement):
        return FactKind.definition
    if any(s.type in NUMERIC for s in slots) and not _MODAL.search(statement):
        return FactKind.value
    if re.match(r"^[^,;:]{1,60}?\b(?:means|refers?\s+to|is\s+defined\s+as)\b", child, re.IGNORECASE):
        return FactKind.definition
    dm = _DEFINE.match(child)
    if dm and not _MODAL.search(child) and not _imperative(child):
        subject = dm.group(0).split()
        after = child[dm.end():].split()
        if len(subject) <= 6 and not (set(w.lower() for w in subject) & _NOT_SUBJECT) \
                and not (after and (after[0].lower() in ("not", "being") or after[0].lower().endswith("ed"))):
            return FactKind.definition
    return FactKind.rule


# --- anchors ------------------------------------------------------------------------------------
_ANCHOR_STOP = frozenset("""a an the of to in on for and or nor is are was were be been being by with at as from that
this these those it its per each any all every not no must may can could will would should shall than then there
their they them who whom which what when where while if only also but so such into onto over under up down out about
after before between during within without via your you our we us his her he she both either neither other another
more most less least few fewer many much some same own just very too do does did done has have had having get gets
got plus minus times i me my mine yours ours yes etc e.g i.e eg ie how why whether following above below based
using use used make made need needs needed able unless until upon once whose here therefore however thus also
always never cannot can't don't of to in on is be by at as it or an no do if so up we us me my he
am pm vs ok doesn't won't isn't aren't didn't shouldn't must've let lets one ones""".split())
_GENERIC_HEADERS = frozenset("value values detail details description notes note info information setting settings "
                             "answer answers specification spec figure figures".split())
_TOKEN = re.compile(r"[a-z][a-z0-9]*(?:['’-][a-z0-9]+)*")


def _content_tokens(text: str, slots: list[Slot]) -> list[str]:
    low = text.lower()
    for s in slots:
        if s.type not in (SlotType.enum,) and s.text:
            low = low.replace(s.text.lower(), " ")
    out, seen = [], set()
    for tok in _TOKEN.findall(low):
        tok = re.sub(r"['’]s$", "", tok)
        if len(tok) < 2 or tok in _ANCHOR_STOP or tok in WORD_VALUES or tok in seen:
            continue
        seen.add(tok)
        out.append(tok)
    return out


# --- pass 2/3 -----------------------------------------------------------------------------------
@dataclass
class _Piece:
    """A candidate statement: optional context prefix + the candidate text."""

    body: _T
    prefix: Optional[_T]
    section: list[str]
    item: bool = False
    numbered: bool = False
    list_key: Optional[tuple] = None
    step_index: int = -1           # index of the numbered item within its list, else -1
    table: Optional[tuple] = None  # (row label, column header, first column header)


_FUNCTION_END = frozenset("""when if to of for that include including includes containing contains are is the a an
with by as following below these those and or any all was were be your our their following: than from in on at
then such e.g i.e""".split())


def _label_like(text: str) -> bool:
    t = text.strip().rstrip(":").strip()
    words = t.split()
    if not words or len(words) > 4 or t.count(".") > 0 and not t.endswith(")"):
        return False
    if words[-1].lower().strip("()") in _FUNCTION_END or words[0].lower() in ("if", "when", "for", "once", "unless"):
        return False
    if _scan(t, "USD"):
        return False  # a line carrying a value is a statement, not a label
    return bool(re.search(r"[A-Za-z]", t))


def _markup_only(t: str) -> bool:
    return not re.search(r"[A-Za-z0-9$€£%]", t)


class _Decomposer:
    def __init__(self, text: str, domain: str, file: str, currency: str, occurrences: Optional[dict] = None):
        self.domain, self.file, self.currency = domain, file, currency
        self.lines = [ln.expandtabs(4) for ln in text.split("\n")]
        self.unparsed: list[UnparsedLine] = []
        self.pieces: list[_Piece] = []
        self.occ = occurrences if occurrences is not None else {}
        self.sections_seen: list[list[str]] = []

    # pass 2 -------------------------------------------------------------------------------
    def _unparsed(self, lineno: int, reason: str) -> None:
        text = self.lines[lineno - 1].strip() if 0 < lineno <= len(self.lines) else ""
        if text:
            self.unparsed.append(UnparsedLine(file=self.file, line=lineno, text=text, reason=reason))

    def collect(self) -> None:
        blocks = _blocks(self.lines, self.file)
        title: Optional[str] = None
        heads: list[tuple[int, str]] = []
        label: Optional[str] = None
        seen_heading = False
        stack: list[tuple[int, Optional[_T], int]] = []   # (indent, context, block index)
        base_ctx: Optional[_T] = None
        base_key = 0
        step_counts: dict[tuple, int] = {}
        heading_lines: dict[tuple[str, ...], int] = {}
        last_kind = ""

        def section() -> list[str]:
            sec = [h for _, h in heads]
            if label:
                sec.append(label)
            return sec or ([title] if title else ["General"])

        def next_block(k: int) -> Optional[_Block]:
            k += 1
            while k < len(blocks) and blocks[k].kind == "blank":
                k += 1
            return blocks[k] if k < len(blocks) else None

        def prev_block(k: int) -> Optional[_Block]:
            k -= 1
            while k >= 0 and blocks[k].kind == "blank":
                k -= 1
            return blocks[k] if k >= 0 else None

        for bi, blk in enumerate(blocks):
            if blk.kind == "blank":
                continue
            if blk.kind == "heading":
                htext = _clean_lines(blk.raw).text.strip().rstrip(":").strip()
                if not htext or _markup_only(htext):
                    self._unparsed(blk.start, "empty heading")
                    continue
                if blk.level == 1 and title is None and not seen_heading:
                    title = htext
                else:
                    while heads and heads[-1][0] >= blk.level:
                        heads.pop()
                    heads.append((blk.level, htext))
                    path = tuple(h.casefold() for _, h in heads)
                    first = heading_lines.setdefault(path, blk.start)
                    if first != blk.start:
                        raise FactforgeError(f"duplicate section heading {htext!r} (first at line {first}); "
                                             "merge the two sections or give them distinct headings",
                                             self.file, blk.start)
                seen_heading = True
                label, stack, base_ctx = None, [], None
                self.sections_seen.append(section())
                last_kind = "heading"
                continue
            if blk.kind == "unparsed":
                self._unparsed(blk.start, blk.reason)
                continue
            if blk.kind == "code":
                for lineno, raw in blk.raw:
                    if raw.strip():
                        self._unparsed(lineno, "inside a code block")
                last_kind = "code"
                continue
            if blk.kind == "table":
                stack, base_ctx = [], None
                self._table(blk, section())
                last_kind = "table"
                continue
            t = _clean_lines(blk.raw)
            if not t.text.strip() or _markup_only(t.text):
                for lineno, _ in blk.raw:
                    self._unparsed(lineno, "markup only")
                continue
            if blk.kind == "para":
                in_list = stack and blk.indent >= 2 and last_kind in ("item", "para-in-list")
                if in_list:
                    ctxs = [c for _, c, _ in stack[:-1] if c is not None]
                    prefix = _join_ctx(([base_ctx] if base_ctx else []) + ctxs)
                    for s in _sentences(t):
                        self._add(s, prefix, section(), item=False)
                    last_kind = "para-in-list"
                    continue
                stack, base_ctx = [], None
                last_kind = "para"
                nb = next_block(bi)
                if (len(blk.raw) == 1 and nb is not None and nb.kind == "item" and nb.start == blk.end + 1
                        and not re.search(r"[.!?:;,]$", t.text.strip()) and _label_like(t.text)):
                    label = t.text.strip()
                    self.sections_seen.append(section())
                    continue
                if t.text.rstrip().endswith(":") or (t.text.rstrip().endswith("?") and nb is not None
                                                     and nb.kind == "item"):
                    if len(blk.raw) == 1 and t.text.rstrip().endswith(":") and _label_like(t.text):
                        label = t.text.strip().rstrip(":").strip()
                        self.sections_seen.append(section())
                        continue
                    sents = _sentences(t)
                    lead = sents[-1]
                    for s in sents[:-1]:
                        self._add(s, None, section())
                    nb = next_block(bi)
                    if nb is not None and nb.kind == "item":
                        base_ctx = lead
                        base_key += 1
                    elif nb is not None and nb.kind == "code":
                        for ln in range(lead.first_line, lead.last_line + 1):
                            self._unparsed(ln, "introduces a code block")
                    else:
                        self._add(lead, None, section())
                    continue
                for s in _sentences(t):
                    self._add(s, None, section())
                continue
            # list item
            while stack and stack[-1][0] >= blk.indent:
                stack.pop()
            nb = next_block(bi)
            has_children = nb is not None and nb.kind == "item" and nb.indent > blk.indent
            ctxs = [c for _, c, _ in stack if c is not None]
            prefix = _join_ctx(([base_ctx] if base_ctx else []) + ctxs)
            if prefix is None and len(t.text.split()) < 3 and not has_children:
                sec = section()
                if heads and re.fullmatch(r"(?:table\s+of\s+)?contents|toc|index", sec[-1].lower()):
                    for lineno, _ in blk.raw:
                        self._unparsed(lineno, "table of contents entry")
                    continue
                pb = prev_block(bi)
                in_list = any(b is not None and b.kind == "item" and b.indent == blk.indent for b in (pb, nb))
                if (heads or label) and in_list:
                    prefix = _T(sec[-1] + ":", (), (0,), (blk.start,))
            parent_id = stack[-1][2] if stack else -base_key - 1
            key = (parent_id, blk.indent)
            last_kind = "item"
            if has_children and t.text.rstrip().endswith((":", "?")):
                stack.append((blk.indent, t, bi))
                continue
            stack.append((blk.indent, None, bi))
            step = -1
            if blk.numbered:
                step = step_counts.get(key, 0)
                step_counts[key] = step + 1
            sents = _sentences(t)
            lab = re.match(r"^([^:]{1,60}):\s", sents[0].text) if len(sents) > 1 else None
            sub_prefix = None
            if lab and len(lab.group(1).split()) <= 6 and len(lab.group(1)) >= 3 \
                    and lab.group(1).lower() not in ("note", "tip", "example", "answer", "question"):
                sub_prefix = sents[0].cut(0, lab.end())
            for si, s in enumerate(sents):
                pre = prefix
                if si > 0 and sub_prefix is not None:
                    pre = _join_ctx(([prefix] if prefix else []) + [sub_prefix])
                self._add(s, pre, section(), item=True, numbered=blk.numbered, list_key=key,
                          step_index=step if si == 0 else -1)

    def _add(self, body: _T, prefix: Optional[_T], section: list[str], **kw) -> None:
        enum = _inline_enum(body)
        if enum is not None:
            lead, items = enum
            pre = prefix
            if lead.text:
                lead_t = lead if lead.text.endswith(":") else _T(lead.text + ":", lead.bold, lead.starts, lead.lines)
                pre = _join_ctx(([prefix] if prefix else []) + [lead_t])
            key = ("inline", body.first_line, body.text[:20])
            for k, it in enumerate(items):
                self.pieces.append(_Piece(it, pre, section, item=True, numbered=True, list_key=key, step_index=k))
            return
        self.pieces.append(_Piece(body, prefix, section, **kw))

    def _table(self, blk: _Block, section: list[str]) -> None:
        header = [clean_inline(h)[0].strip() for h in blk.header]
        first_h = header[0] or "item"
        for lineno, cells in blk.rows:
            label = clean_inline(cells[0])[0].strip() or f"row {lineno}"
            made = False
            if len(cells) == 1:
                t = _T(label, (), (0,), (lineno,))
                self.pieces.append(_Piece(t, None, section, table=(label, first_h, first_h)))
                continue
            for col, cell in enumerate(cells[1:], 1):
                ctext, cbold = clean_inline(cell)
                if not ctext.strip() or _markup_only(ctext):
                    continue
                t = _T(ctext.strip(), tuple(cbold), (0,), (lineno,))
                self.pieces.append(_Piece(t, None, section, table=(label, header[col] or f"column {col + 1}", first_h)))
                made = True
            if not made:
                self._unparsed(lineno, "table row has no values")

    # pass 3 -------------------------------------------------------------------------------
    def build(self) -> list[Fact]:
        vocab: dict[str, str] = {}
        for p in self.pieces:
            for attr, term in _vocab_from(p.body):
                vocab.setdefault(term, attr)
        vocab_rx = [(attr, term, re.compile(rf"(?<![\w-]){re.escape(term)}(?![\w-])", re.IGNORECASE))
                    for term, attr in sorted(vocab.items(), key=lambda kv: (-len(kv[0]), kv[0]))]
        drafts = []  # (piece, statement _T, conditions, child text)
        for p in self.pieces:
            if p.table is not None:
                row, col, first_h = p.table
                body = p.body.text.rstrip()
                stmt_text = f"{row} — {col}: {body}" + ("" if body.endswith((".", "!", "?")) else ".")
                shift = len(stmt_text) - len(body) - (0 if body.endswith((".", "!", "?")) else 1)
                st = _T(stmt_text, tuple((x + shift, y + shift) for x, y in p.body.bold), (0,), p.body.lines)
                conds = [Condition(attribute=first_h, value=row), Condition(attribute="attribute", value=col)]
                drafts.append((p, st, conds, body))
                continue
            tiers = _split_tiers(p.body, self.currency, vocab) if len(p.body.text) < 400 else None
            if tiers:
                for text, cond in tiers:
                    bt = _T(text, (), (0,), (p.body.first_line,))
                    st = _finish(p.prefix.plus(bt) if p.prefix else bt)
                    drafts.append((p, st, [cond], text))
                continue
            prefix = p.prefix
            if prefix is None and p.section and p.section[-1].endswith("?") and len(p.body.text.split()) <= 8:
                prefix = _T(p.section[-1], (), (0,), p.body.lines)
            st = _finish(prefix.plus(p.body) if prefix else p.body)
            drafts.append((p, st, [], p.body.text))
        facts: list[Fact] = []
        meta: list[_Piece] = []
        for p, st, conds, child in drafts:
            slots = parse_slots(st.text, self.currency, bold=list(st.bold))
            if p.table is not None and slots:
                base = re.sub(r"[^a-z0-9]+", "_", p.table[0].lower()).strip("_")[:32].strip("_") or "value"
                for k, sl in enumerate(slots):
                    sl.name = base if k == 0 else f"{base}_{k + 1}"
            words = re.findall(r"[A-Za-z0-9$€£%]+", st.text)
            if (len(words) < (2 if p.item else 3) and not slots) or (
                    p.table is None and len(st.text.split()) - len(child.split()) < 1
                    and len(child.split()) < 2 and not slots):
                self._unparsed(p.body.first_line, f"too short to be a statement: {child!r}")
                continue
            has_num = any(s.type in NUMERIC for s in slots)
            if vocab_rx and (has_num or p.prefix is not None) and p.table is None \
                    and not _DEFINE_THERE.match(child):
                taken = [(st.text.find(s.text), st.text.find(s.text) + len(s.text)) for s in slots
                         if s.type != SlotType.enum and s.text in st.text]
                cond_m = _COND_CUE.search(st.text)
                if cond_m:
                    taken.append((0, cond_m.start()))
                    conds = conds + _vocab_conditions(st.text, vocab_rx, taken, {c.attribute for c in conds})
            kind = _kind(st.text, child, p.numbered, p.item, p.section, slots, p.table is not None,
                         bool(p.prefix is not None and _MODAL.search(p.prefix.text)))
            end = max(p.body.last_line, p.body.first_line)
            fact = Fact(id="pending", domain=self.domain, section=list(p.section), kind=kind, statement=st.text,
                        slots=slots, conditions=conds,
                        source=SourceSpan(file=self.file, start_line=p.body.first_line, end_line=end))
            key = (tuple(s.lower() for s in p.section), " ".join(fact.template().lower().split()),
                   tuple(sorted((c.attribute.lower(), c.value.lower()) for c in conds)))
            occ = self.occ.get(key, 0)
            self.occ[key] = occ + 1
            fact.id = make_fact_id(self.domain, fact.section, fact.template(), conds, occ)
            facts.append(fact)
            meta.append(p)
        self._anchors(facts, meta)
        self._depends(facts, meta)
        return facts

    def _anchors(self, facts: list[Fact], meta: list[_Piece]) -> None:
        toks = [_content_tokens(f.statement, f.slots) for f in facts]
        df: dict[str, int] = {}
        for ts in toks:
            for t in ts:
                df[t] = df.get(t, 0) + 1
        n = max(1, len(facts))
        for f, ts, p in zip(facts, toks, meta):
            terms: list[str] = []
            for c in f.conditions:
                if p.table is not None and c.attribute == "attribute":
                    continue
                v = " ".join(c.value.lower().split())
                if v and v not in terms and len(terms) < 3 and not re.fullmatch(r"[\d\W]+", v) \
                        and len(v.split()) <= 2:
                    terms.append(v)
            cover = set(" ".join(terms).split())
            if p.table is not None and p.table[1].lower() in _GENERIC_HEADERS:
                cover |= set(p.table[1].lower().split())
            rest = [t for t in ts if t not in cover]
            ranked = sorted(range(len(rest)), key=lambda i: (-math.log(n / df[rest[i]]) if df[rest[i]] else 0, i))
            k = max(0, 6 - len(terms))
            pick = sorted(ranked[:k])
            f.anchors = terms + [rest[i] for i in pick]

    def _depends(self, facts: list[Fact], meta: list[_Piece]) -> None:
        by_section: dict[tuple, list[Fact]] = {}
        for f in facts:
            by_section.setdefault(tuple(f.section), []).append(f)
        titles: dict[str, tuple] = {}
        for sec in self.sections_seen:
            if sec:
                t = sec[-1].lower()
                if len(t) >= 6:
                    titles.setdefault(t, tuple(sec))
        last_step: dict[tuple, tuple[int, str]] = {}
        ref_rx = re.compile(r"\b(?:above|below|previous|preceding|aforementioned|earlier|as\s+described|"
                            r"as\s+outlined|listed|see)\b", re.IGNORECASE)
        prev_in_section: dict[tuple, list[Fact]] = {}
        for f, p in zip(facts, meta):
            deps: list[str] = []
            sec = tuple(f.section)
            if p.numbered and p.step_index >= 0 and p.list_key is not None:
                prev = last_step.get(p.list_key)
                if prev is not None and prev[0] == p.step_index - 1:
                    deps.append(prev[1])
                if prev is None or prev[0] != p.step_index:
                    last_step[p.list_key] = (p.step_index, f.id)
            if ref_rx.search(f.statement):
                low = f.statement.lower()
                hit = None
                for t, tsec in titles.items():
                    if tsec != sec and t in low and re.search(rf"(?<![\w]){re.escape(t)}(?![\w])", low):
                        hit = tsec
                        break
                if hit is not None:
                    deps.extend(x.id for x in by_section.get(hit, [])[:8])
                elif _ABOVE_REF.search(low):
                    earlier = prev_in_section.get(sec, [])
                    with_val = [x for x in earlier if any(s.type in NUMERIC for s in x.slots)]
                    if with_val or earlier:
                        deps.append((with_val or earlier)[-1].id)
            seen = set()
            f.depends_on = [d for d in deps if d != f.id and not (d in seen or seen.add(d))]
            prev_in_section.setdefault(sec, []).append(f)


_ABOVE_REF = re.compile(r"\b(?:listed|mentioned|described|outlined|shown|stated|noted|specified|defined|given)"
                        r"\s+above\b"
                        r"|\babove\b(?=\s*[.,;:)!]|\s*$)|\bthe\s+above\b")


def _join_ctx(parts: list[_T]) -> Optional[_T]:
    out: Optional[_T] = None
    for p in parts:
        if p is None or not p.text:
            continue
        out = p if out is None else out.plus(p)
    return out


def _finish(t: _T) -> _T:
    text = t.text.rstrip()
    first = re.match(r"[a-z][a-z]*(?=[\s,.;:]|$)", text)
    if first:
        text = text[:1].upper() + text[1:]
    if not text.endswith((".", "!", "?", ":", ".)", ".”", ".\"")):
        return _T(text + ".", t.bold, t.starts, t.lines)
    return _T(text, t.bold, t.starts, t.lines)


# --- public API ---------------------------------------------------------------------------------
def _decode(data: bytes | str, file: str) -> str:
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as e:
            line = data[:e.start].count(b"\n") + 1
            raise FactforgeError(f"not valid UTF-8 (byte 0x{data[e.start]:02x})", file, line) from None
    else:
        text = data
    if text.startswith("\ufeff"):
        text = text[1:]
    bad = re.search(r"[\ud800-\udfff\x00]", text)
    if bad:
        line = text[:bad.start()].count("\n") + 1
        raise FactforgeError("not valid UTF-8 text (undecodable or NUL character)", file, line)
    return text.replace("\r\n", "\n").replace("\r", "\n")


def decompose_markdown(text: str | bytes, domain: str, file: str = "policy.md", currency: str = "USD",
                       _occurrences: Optional[dict] = None) -> FactSet:
    """Decompose one policy markdown text into a FactSet (document order, deterministic)."""
    d = _Decomposer(_decode(text, file), domain, file, currency, _occurrences)
    d.collect()
    facts = d.build()
    unparsed = sorted(d.unparsed, key=lambda u: (u.line, u.reason))
    return FactSet(domain=domain, source_file=file, facts=facts, unparsed=unparsed, decomposer="builtin")


_CACHE: dict[str, FactSet] = {}


def decompose_pack(pack: "DomainPack", decomposer: str = "builtin", model: Optional[str] = None,
                   mock_response: Optional[str] = None) -> FactSet:
    """Decompose every policy file of a pack (source paths relative to the pack folder).

    Cached in-process by the content hash of the files, the decomposer and its model."""
    if decomposer not in ("builtin", "llm"):
        raise FactforgeError(f"unknown decomposer {decomposer!r}; available: builtin, llm")
    files = pack.policy_files()
    root = Path(pack.path)
    datas = [(p.relative_to(root).as_posix(), p.read_bytes()) for p in files]
    if decomposer == "llm":
        model = model or os.environ.get("FACTFORGE_LLM_MODEL", "gpt-4o-mini")
    key = content_hash({"domain": pack.name, "currency": pack.info.currency, "decomposer": decomposer,
                        "model": model if decomposer == "llm" else None, "mock": mock_response,
                        "files": [(rel, sha256_hex(data)) for rel, data in datas]})
    if key not in _CACHE:
        occ: dict = {}
        facts, unparsed = [], []
        for rel, data in datas:
            if decomposer == "llm":
                from .llm import decompose_markdown_llm  # noqa: PLC0415
                fs = decompose_markdown_llm(_decode(data, rel), pack.name, rel, pack.info.currency, model=model,
                                            mock_response=mock_response, _occurrences=occ)
            else:
                fs = decompose_markdown(data, pack.name, rel, pack.info.currency, _occurrences=occ)
            facts.extend(fs.facts)
            unparsed.extend(fs.unparsed)
        if not facts:
            rel = datas[0][0]
            why = f"all {len(unparsed)} of its lines are unparsed" if unparsed else "it is empty"
            raise FactforgeError(f"the policy states no facts ({why})", root / rel, 1)
        source = datas[0][0] if len(datas) == 1 else "policy"
        _CACHE[key] = FactSet(domain=pack.name, source_file=source, facts=facts, unparsed=unparsed,
                              decomposer=decomposer)
    return _CACHE[key].model_copy(deep=True)
