"""Every surface form a writer may choose for a value reads back as that value, over every
value slot of the built-in domains (what the writers emit, the matcher must recognise)."""
from __future__ import annotations

import pytest

from facts.match import TextIndex
from facts.surface import surface_forms


@pytest.mark.parametrize("domain", ["airline", "retail", "telecom", "banking"])
def test_surface_forms_round_trip(domain):
    from domains import get_pack
    bad = []
    n = 0
    for f in get_pack(domain).facts.facts:
        for s in f.slots:
            if s.type.value not in ("money", "duration", "percent", "count"):
                continue
            for form in surface_forms(s):
                n += 1
                idx = TextIndex(f"The figure is {form} today.")
                if not idx.spans.get(s.key()):
                    bad.append((f.id, s.text, form))
    assert n > 100 and not bad, bad[:20]
