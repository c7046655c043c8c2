"""The audit side of matching: the fact matcher itself lives in `facts.match` (writers
consult the same one while they write, recordings while they hear their own audio); here,
the reverse check that every mention of a distractor or superseded value sits in a hedged
sentence (see transforms.writers.HEDGE_MARKERS) or is followed by the current value, never
presented as current (`facts.match.unhedged_mentions` with the writers' markers)."""
from __future__ import annotations

from typing import Optional

from facts.match import TextIndex
from facts.match import unhedged_mentions as _unhedged
from facts.models import Fact, Slot
from transforms.writers import HEDGE_MARKERS


def unhedged_mentions(value_slot: Slot, idx: TextIndex, corrected_by: Optional[list[Slot]] = None,
                      of: Optional[Fact] = None, speech: bool = False) -> list[str]:
    """Mentions of a wrong/old value presented as current (`facts.match.unhedged_mentions`
    with the writers' `HEDGE_MARKERS`; with `of`, only those said of that fact)."""
    return _unhedged(value_slot, idx, HEDGE_MARKERS, corrected_by=corrected_by, of=of, speech=speech)
