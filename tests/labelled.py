"""The labelled sample: facts of the tau2-bench airline and retail policies and of five
banking_knowledge documents, labelled by hand with kind, quantities and conditions
(`tests/fixtures/labelled_sample.txt`), and the scorer that compares the built-in
decomposer with them.

No tau2 text is stored here: a label names a source file and line, plus the first 8 hex
digits of the sha256 of that line (stripped), and the text is read from the shared tau2
folder at run time; a line whose hash differs (the source drifted) is reported, not scored.
For a banking document the line is a line of the document's `content`, decomposed as
`factforge import-tau2` writes it (a `# title` heading over the content).

Scoring per source line: the facts the decomposer starts on that line are paired, in
order, with the labels of that line; a missing fact fails its label on every measure, an
extra fact is counted separately.
- kind accuracy: labels whose fact has the labelled kind;
- slot coverage: labelled quantities found among the fact's slots (`Slot.key()` equality;
  a range slot covers both its ends);
- condition accuracy: labels whose fact has exactly the labelled conditions (attribute and
  value compared case-insensitively), over all labels and over those where the label or
  the fact has conditions.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from domains.tau2 import document_markdown
from facts.decompose import decompose_markdown
from facts.models import Fact, FactSet, Slot, SlotType

from .conftest import SHARED

LABELS = Path(__file__).resolve().parent / "fixtures" / "labelled_sample.txt"


@dataclass(frozen=True)
class Label:
    row: int                      # line in the labels file
    file: str                     # relative to the shared tau2 folder
    line: int
    sha: str
    kind: str
    slots: tuple[tuple, ...]      # value keys
    slot_texts: tuple[str, ...]
    conditions: frozenset


def line_sha(text: str) -> str:
    return hashlib.sha256(text.strip().encode("utf-8")).hexdigest()[:8]


def _slot_key(spec: str, row: int) -> tuple:
    parts = spec.split()
    if len(parts) not in (2, 3):
        raise ValueError(f"labelled_sample.txt:{row}: slot {spec!r} is not 'type value [unit]'")
    typ, raw = SlotType(parts[0]), parts[1]
    unit = parts[2] if len(parts) == 3 else None
    if typ in (SlotType.date, SlotType.enum, SlotType.identifier):
        return Slot(name="x", type=typ, text=raw, value=raw).key()
    lo, _, hi = raw.partition("..")
    return Slot(name="x", type=typ, text=raw, value=float(lo), value_max=float(hi) if hi else None,
                unit=unit).key()


def load_labels(path: Path = LABELS) -> list[Label]:
    out = []
    for row, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        cols = [c.strip() for c in raw.split(" | ")]
        if len(cols) != 5:
            raise ValueError(f"labelled_sample.txt:{row}: expected 5 columns, got {len(cols)}")
        where, sha, kind, slots, conds = cols
        file, _, line = where.rpartition(":")
        slot_specs = [] if slots == "-" else [s.strip() for s in slots.split(";")]
        cond = frozenset() if conds == "-" else frozenset(
            tuple(x.strip().lower() for x in c.split("=", 1)) for c in conds.split(";"))
        out.append(Label(row, file, int(line), sha, kind, tuple(_slot_key(s, row) for s in slot_specs),
                         tuple(slot_specs), cond))
    return out


def source_lines(file: str) -> list[str]:
    """The labelled text's lines (a banking document: its content's lines)."""
    p = SHARED / file
    if p.suffix == ".json":
        return json.loads(p.read_text(encoding="utf-8"))["content"].split("\n")
    return p.read_text(encoding="utf-8").split("\n")


def decompose_source(file: str) -> tuple[FactSet, int]:
    """The facts of a labelled file, and the offset from a fact's line to the labelled line."""
    p = SHARED / file
    if p.suffix != ".json":
        return decompose_markdown(p.read_bytes(), p.parent.name, file), 0
    d = json.loads(p.read_text(encoding="utf-8"))
    md = document_markdown(d["title"], d["content"])
    content = d["content"].replace("\r\n", "\n").split("\n")
    first = next(i for i, ln in enumerate(content) if ln.strip())
    md_first = md.split("\n").index(content[first])
    return decompose_markdown(md, "banking", file), md_first - first


@dataclass
class Scores:
    labels: int = 0
    kind_ok: int = 0
    quantities: int = 0
    quantities_ok: int = 0
    cond_ok: int = 0
    cond_cases: int = 0
    cond_cases_ok: int = 0
    extra_facts: int = 0
    drifted: list[str] = field(default_factory=list)
    misses: list[str] = field(default_factory=list)

    @property
    def kind_accuracy(self) -> float:
        return self.kind_ok / max(1, self.labels)

    @property
    def slot_coverage(self) -> float:
        return self.quantities_ok / max(1, self.quantities)

    @property
    def condition_accuracy(self) -> float:
        return self.cond_ok / max(1, self.labels)

    @property
    def conditioned_accuracy(self) -> float:
        return self.cond_cases_ok / max(1, self.cond_cases)

    def summary(self) -> str:
        return (f"{self.labels} labelled facts: kind {self.kind_ok}/{self.labels} ({self.kind_accuracy:.1%}), "
                f"quantities in slots {self.quantities_ok}/{self.quantities} ({self.slot_coverage:.1%}), "
                f"conditions {self.cond_ok}/{self.labels} ({self.condition_accuracy:.1%}; "
                f"{self.cond_cases_ok}/{self.cond_cases} where conditions are expected or given), "
                f"{self.extra_facts} extra facts")


def _covers(slot: Slot, key: tuple) -> bool:
    if slot.key() == key:
        return True
    if slot.value_max is None or key[2] is not None:
        return False
    lo = slot.model_copy(update={"value_max": None})
    hi = slot.model_copy(update={"value": slot.value_max, "value_max": None})
    return key in (lo.key(), hi.key())


def _conds(f: Optional[Fact]) -> frozenset:
    return frozenset() if f is None else frozenset((c.attribute.lower(), c.value.lower()) for c in f.conditions)


def score(labels: list[Label]) -> Scores:
    sc = Scores()
    by_file: dict[str, list[Label]] = {}
    for lb in labels:
        by_file.setdefault(lb.file, []).append(lb)
    for file, lbs in by_file.items():
        lines = source_lines(file)
        fs, offset = decompose_source(file)
        starts: dict[int, list[Fact]] = {}
        for f in fs.facts:
            starts.setdefault(f.source.start_line - offset, []).append(f)
        per_line: dict[int, list[Label]] = {}
        for lb in lbs:
            per_line.setdefault(lb.line, []).append(lb)
        for line, group in per_line.items():
            text = lines[line - 1] if 0 < line <= len(lines) else ""
            if any(line_sha(text) != lb.sha for lb in group):
                sc.drifted.append(f"{file}:{line}")
                continue
            facts = starts.get(line, [])
            sc.extra_facts += max(0, len(facts) - len(group))
            for i, lb in enumerate(group):
                f = facts[i] if i < len(facts) else None
                sc.labels += 1
                where = f"{file}:{line}#{i}"
                if f is None:
                    sc.misses.append(f"{where}: no fact")
                if f is not None and f.kind.value == lb.kind:
                    sc.kind_ok += 1
                elif f is not None:
                    sc.misses.append(f"{where}: kind {f.kind.value}, labelled {lb.kind}: {f.statement}")
                for key, spec in zip(lb.slots, lb.slot_texts):
                    sc.quantities += 1
                    if f is not None and any(_covers(s, key) for s in f.slots):
                        sc.quantities_ok += 1
                    elif f is not None:
                        sc.misses.append(f"{where}: quantity {spec} not in slots "
                                         f"{[s.display() for s in f.slots]}: {f.statement}")
                got = _conds(f)
                ok = f is not None and got == lb.conditions
                sc.cond_ok += ok
                if lb.conditions or got:
                    sc.cond_cases += 1
                    sc.cond_cases_ok += ok
                if f is not None and not ok:
                    sc.misses.append(f"{where}: conditions {sorted(got)}, labelled {sorted(lb.conditions)}: "
                                     f"{f.statement}")
    return sc


def shas_for(file: str, line: int) -> str:
    """The hash column for a new label (used when labelling)."""
    return line_sha(source_lines(file)[line - 1])


__all__ = ["Label", "Scores", "load_labels", "score", "shas_for"]
