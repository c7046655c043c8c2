"""Sentence splitting for policy text (abbreviations, initials, decimals, quotes and numbered
labels do not end a sentence; a question stays with its answer) and inline enumerations
("Steps: 1) Verify identity, 2) Check eligibility")."""
from __future__ import annotations

import re
from typing import Optional

from .markdown import Text

# --- sentences ---------------------------------------------------------------------------------
_SENT_END = re.compile(r"(?:[.!?]+)[\"'”’)\]]*\s+(?=[\"'“‘(\[]?[A-Z0-9$€£])")
_ABBREV = frozenset("e.g i.e etc.al vs approx incl mr mrs ms dr st no nos jr sr inc ltd co corp fig est. dept "
                    "min max avg approx. misc ref refs".split())
_INITIALS = re.compile(r"(?:\b[A-Za-z]\.){2,}$")
_NUMBER_LABEL = re.compile(r"[(\[]?[A-Za-z]?\d{1,3}(?:\.\d+)*[.)]|[A-Za-z][.)]")
_INLINE_ENUM = re.compile(r"(?:(?<=^)|(?<=[\s:;,(]))(\d{1,2})\)\s+")


_QUOTED = re.compile(r"(?<![\w])'[^'\n]{2,200}?'(?![\w])|\"[^\"\n]{2,200}?\"|“[^”\n]{2,200}?”")
_SENT_END_LOWER = re.compile(r"(?:[.!?]+)\s+(?=[a-z])")


def sentences(t: Text) -> list[Text]:
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


def inline_enum(t: Text) -> Optional[tuple[Text, list[Text]]]:
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
