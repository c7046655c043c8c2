"""The audit side of matching: the fact matcher itself lives in `facts.match` (writers
consult the same one while writing); here, the reverse check that every mention of a
distractor or superseded value sits in a hedged sentence (see
transforms.writers.HEDGE_MARKERS) or is followed by the current value, never presented as
current."""
from __future__ import annotations

from typing import Optional

from facts.match import TextIndex, snippet
from facts.models import Slot
from transforms.writers import HEDGE_MARKERS


def _sentence_bounds(text: str, s: int, e: int, cap: int = 300) -> tuple[int, int]:
    """The sentence around [s, e): bounded by sentence punctuation, not by line breaks (OCR and
    PDF text wrap lines mid-sentence), and by a blank line; at most `cap` characters each way."""
    lo_lim, hi_lim = max(0, s - cap), min(len(text), e + cap)
    lo = max([text.rfind(ch, lo_lim, s) for ch in (". ", "! ", "? ", "\n\n")] + [lo_lim - 1]) + 1
    his = [i for i in (text.find(ch, e, hi_lim) for ch in (". ", "! ", "? ", "\n\n")) if i != -1]
    return lo, (min(his) + 1 if his else hi_lim)


def unhedged_mentions(value_slot: Slot, idx: TextIndex, corrected_by: Optional[list[Slot]] = None) -> list[str]:
    """Mentions of a wrong/old value presented as current: not in a hedged sentence and not
    followed, later in the same file, by the fact's current value (`corrected_by`, when the
    file carries that fact). Speech recognition garbles hedge words but keeps the order of
    values, so "the current value comes after the old one" is the test that works across
    every modality; a file that does not carry the fact must hedge."""
    later: list[int] = []
    for c in corrected_by or []:
        later += [a for a, _ in idx.occurrences(c)]
    out = []
    for s, e in idx.occurrences(value_slot):
        if any(a > e for a in later):
            continue
        lo, hi = _sentence_bounds(idx.text, s, e)
        # a hedge in the sentence, or in the line just before it (table rows, chat turns)
        prev_lo = max(idx.text.rfind("\n", 0, max(idx.text.rfind("\n", 0, s), 0)), 0)
        context = " ".join(idx.low[min(prev_lo, lo):hi].split())
        if not any(h in context for h in HEDGE_MARKERS):
            out.append(snippet(idx.text, s, e, 60))
    return out
