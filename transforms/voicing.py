"""Which facts the realiser can voice: a wording of the fact in its own words (no six-word run
of the statement, recoverable, bounds kept) found in a conversational, a controlled and a
staff register within `VOICE_ATTEMPTS` seeds each. The planner voices only such facts, and the
writers reuse the seeds proved here; the rest keep canonical renditions."""
from __future__ import annotations

import random
from functools import lru_cache

from facts.models import Fact
from facts.runs import words

from .reading import read
from .realise import RealiseError, Realiser
from .registers import REGISTERS

VOICE_REGISTERS = ("chat", "manual", "team_chat")
VOICE_ATTEMPTS = 4


@lru_cache(maxsize=65536)
def _voiceable(fact_json: str) -> bool:
    fact = Fact.model_validate_json(fact_json)
    r = Realiser(set())
    for reg in VOICE_REGISTERS:
        ok = False
        for k in range(VOICE_ATTEMPTS):
            try:
                r.voiced(read(fact), random.Random(f"voiceable:{fact.id}:{k}"), REGISTERS[reg])
                ok = True
                break
            except RealiseError:
                continue
        if not ok:
            return False
    return True



def voiceable(fact: Fact) -> bool:
    """Whether the realiser finds a voiced wording of `fact` (no 6-word run of the statement,
    recoverable) in a conversational, a controlled and a staff register. The planner voices
    only such facts; the rest keep canonical renditions. A statement of fewer than six words
    cannot share a run of six."""
    if len(words(fact.statement)) < 6:
        return True
    return _voiceable(fact.model_dump_json())
