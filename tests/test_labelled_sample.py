"""The decomposer against hand labels (tests/labelled.py explains the scoring; the labels
and their conventions are in tests/fixtures/labelled_sample.txt).

The development sample (tau2 airline and retail policies, eighteen banking_knowledge
documents) must reach kind >= 90%, every labelled quantity in a slot,
conditions >= 90%. The held-out sample was labelled after the rules were frozen; its floor
guards against regressions and its figures (printed) are the honest estimate for text the
rules were not written against."""
from __future__ import annotations

import pytest

from .conftest import tau2_data
from .labelled import LABELS, load_labels, score

HELD_OUT = LABELS.parent / "labelled_heldout.txt"


@pytest.fixture(autouse=True)
def _shared_data():
    tau2_data("airline", "policy.md")


def test_labelled_sample_meets_the_bar():
    labels = load_labels()
    assert len(labels) >= 150
    sc = score(labels)
    print(sc.summary())
    assert sc.drifted == [], f"source lines changed since labelling: {sc.drifted}"
    assert sc.labels == len(labels)
    assert sc.kind_accuracy >= 0.90, sc.misses
    assert sc.slot_coverage == 1.0, [m for m in sc.misses if "quantity" in m]
    assert sc.condition_accuracy >= 0.90, [m for m in sc.misses if "conditions" in m]
    assert sc.conditioned_accuracy >= 0.90, [m for m in sc.misses if "conditions" in m]


def test_held_out_sample_does_not_regress():
    labels = load_labels(HELD_OUT)
    sc = score(labels)
    print(sc.summary())
    assert sc.drifted == [] and sc.labels == len(labels) >= 50
    assert sc.kind_accuracy >= 0.75, sc.misses
    assert sc.slot_coverage >= 0.95, sc.misses
    assert sc.condition_accuracy >= 0.95, sc.misses


def test_a_drifted_source_line_is_reported_not_scored(tmp_path):
    rows = LABELS.read_text(encoding="utf-8").splitlines()
    first = next(i for i, r in enumerate(rows) if r.startswith("airline/"))
    cols = rows[first].split(" | ")
    cols[1] = "00000000"
    p = tmp_path / "labels.txt"
    p.write_text(" | ".join(cols) + "\n", encoding="utf-8")
    sc = score(load_labels(p))
    assert sc.drifted == [cols[0]] and sc.labels == 0
