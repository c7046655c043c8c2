"""What the audits will read from a delivered speech file, known where the file is made.

Recordings hear their own audio before delivering it (`transforms.recordings.hear_back`): the
renderer runs the audit's own extraction on the file it just wrote (same recogniser, same
vocabulary, same settings), checks that file the way the recoverability gate will, and files
the extraction in the build's extraction cache under the key `audits.extraction` looks up,
so the audit reads it instead of decoding the same audio again. This module holds what both
sides must agree on:

- the file's **speech vocabulary** (`speech_candidates`): the anchors and content words of
  the facts the file carries or distracts, their values and the distractors' wrong values in
  spoken form, the hedge markers, and `extra` words (a variant's base brand terms). Nothing
  about any other fact, so a value edit elsewhere never changes this file's recognition;
- the **extraction cache key** (`extraction_key`): layout, kind, the kind's code fingerprint,
  the file's sha256 and the vocabulary;
- the **per-file part of the gate** (`file_problems`): each carrier fact matched against the
  file's text (`facts.match.match_fact`, speech rules for WAV), each wrong or old value
  present and, when the plan resolves it by a hedge or a correction, never presented as
  current (`facts.match.unhedged_mentions`). What needs other files (dates of other carriers,
  multi-hop routes, approvals) stays with `audits.recoverability`.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable, Optional

from facts.hashing import content_hash
from facts.match import TextIndex, content_words, match_fact, unhedged_mentions
from facts.models import Fact, SlotType
from facts.surface import spoken_form
from facts.values import figure_slots

from .base import Extraction
from .fingerprint import kind_fingerprint
from .plan import ArtifactSpec
from .writers import HEDGE_MARKERS


CACHE_LAYOUT = "extract-2"  # layout of extraction cache entries, not an extractor version
SPEECH_MODALITIES = {"wav", "mp4"}
SPOKEN_TYPES = (SlotType.money, SlotType.duration, SlotType.percent, SlotType.count)


def speech_candidates(spec: ArtifactSpec, facts: dict[str, Fact], extra: Iterable[str] = ()) -> list[str]:
    """The file-specific part of the speech vocabulary (see the module doc): the anchors and
    content words of the facts this file carries or distracts, their values and the
    distractors' wrong values in spoken form, the hedge markers and `extra` (brand words).
    Nothing about any other fact."""
    words: list[str] = list(extra)
    for fid in sorted(set(spec.fact_ids) | {d.fact_id for d in spec.distractors}):
        f = facts.get(fid)
        if f is not None:
            words += [a.lower() for a in f.anchors] + content_words(f.statement)
            words += [spoken_form(s) for s in f.slots if s.type in SPOKEN_TYPES]
    for d in spec.distractors:
        words += [spoken_form(s) for s in figure_slots(d.text)]
    words += list(HEDGE_MARKERS)
    return sorted(set(w for w in words if w))


def extraction_key(kind: str, sha256: str, candidates: Iterable[str] = ()) -> str:
    """The extraction cache key of a file: what the extractor ran (the kind's code, libraries
    and tools: `transforms.fingerprint`), on which bytes, with which speech vocabulary."""
    return content_hash({"layout": CACHE_LAYOUT, "kind": kind, "code": kind_fingerprint(kind),
                         "sha256": sha256, "vocabulary": list(candidates)})


def cache_file(cache_dir: Path, key: str) -> Path:
    return Path(cache_dir) / "extract" / key[:2] / f"{key}.json"


def load(cache_dir: Optional[Path], key: str) -> Optional[Extraction]:
    path = cache_file(cache_dir, key) if cache_dir else None
    if path is None or not path.is_file():
        return None
    return Extraction.model_validate_json(path.read_text(encoding="utf-8"))


def store(cache_dir: Path, key: str, ex: Extraction) -> None:
    """File an extraction under its key (written to a temporary name, then renamed)."""
    path = cache_file(cache_dir, key)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    tmp.write_text(ex.model_dump_json(), encoding="utf-8")
    os.replace(tmp, path)


def file_problems(spec: ArtifactSpec, facts: dict[str, Fact], text: str, modality: str,
                  currency: str = "USD") -> list[tuple[str, str]]:
    """(fact id, reason) for each way `text` (the file's extraction) would fail the
    recoverability gate on its own: a carrier fact not recovered, a wrong or old value
    missing, or one resolved by a hedge or a correction presented as current. Mirrors
    `audits.recoverability.check_recoverability` for one artifact."""
    ix = TextIndex(text, currency=currency)
    speech = modality == "wav"
    out: list[tuple[str, str]] = []
    for m in spec.facts:
        if m.role != "carrier":
            continue
        res = match_fact(facts[m.fact_id], ix, speech=speech)
        if not res.recovered:
            out.append((m.fact_id, f"fact {m.fact_id} not recovered (values missing: "
                                   f"{', '.join(res.missing_values) or '-'}; anchors "
                                   f"{res.anchors_found}/{res.anchors_needed})"))
    current_here = {m.fact_id for m in spec.facts if m.role in ("carrier", "echo")}
    for d in spec.distractors:
        slots = figure_slots(d.text, currency=currency)
        if d.resolution in ("hedge", "correction"):
            current = [sl for sl in facts[d.fact_id].slots if sl.name == d.slot] if d.fact_id in current_here else []
            for sl in slots:
                for s in unhedged_mentions(sl, ix, HEDGE_MARKERS, corrected_by=current):
                    out.append((d.fact_id, f"{d.role} value {d.text} of fact {d.fact_id} presented as current: {s!r}"))
        elif not any(ix.occurrences(sl) for sl in slots):
            out.append((d.fact_id, f"the {d.role} value {d.text} of fact {d.fact_id} is not in the file"))
    return out
