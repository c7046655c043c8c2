"""The evidence planner: coverage, determinism, distractors never authoritative."""
from __future__ import annotations

import pytest

from facts.models import SlotType
from transforms import registry
from transforms.planner import PlanConfig, plan_evidence


@pytest.fixture(scope="module")
def airline():
    from domains import get_pack
    pack = get_pack("airline")
    return pack, pack.facts


def test_every_fact_carried_and_every_kind_used(airline):
    pack, fs = airline
    plan = plan_evidence(fs, 0, now=pack.info.now)
    carriers = plan.carriers()
    assert set(carriers) == {f.id for f in fs.facts}
    kinds = {a.kind for a in plan.artifacts}
    assert kinds == set(registry.kinds())
    fams = {}
    for k in kinds:
        fams.setdefault(k.split("/")[0], set()).add(k)
    assert len(fams) == 5 and all(len(v) >= 3 for v in fams.values())
    assert any(a.noise for a in plan.artifacts)
    for a in plan.artifacts:
        assert len(a.facts) <= registry.get(a.kind).max_facts


def test_distractors_are_recorded_never_authoritative(airline):
    pack, fs = airline
    plan = plan_evidence(fs, 0, now=pack.info.now)
    by_id = fs.by_id()
    ds = [(a, d) for a in plan.artifacts for d in a.distractors]
    assert {d.role for _, d in ds} == {"distractor", "superseded"}
    for a, d in ds:
        fact = by_id[d.fact_id]
        real = {s.text for s in fact.slots}
        assert d.text not in real, "a distractor value is never the fact's own value"
        if d.role == "superseded":
            assert d.date < a.date
    # stray distractors live in files that do not carry that fact
    assert any(a.noise and a.distractors for a in plan.artifacts)


def test_plan_is_deterministic_and_seed_sensitive(airline):
    pack, fs = airline
    a = plan_evidence(fs, 1, now=pack.info.now)
    b = plan_evidence(fs, 1, now=pack.info.now)
    c = plan_evidence(fs, 2, now=pack.info.now)
    assert a.hash == b.hash and a.hash != c.hash


def test_profile_and_carriers(airline):
    pack, fs = airline
    plan = plan_evidence(fs, 0, PlanConfig(profile="text-only", carriers_per_fact=2), now=pack.info.now)
    assert all(registry.get(a.kind).modality not in ("png", "wav", "mp4") for a in plan.artifacts)
    carriers = plan.carriers()
    two = sum(1 for v in carriers.values() if len({x.split("-")[0] for x in v}) >= 2)
    assert two >= 0.9 * len(fs.facts)


def test_unknown_kind_lists_available(airline):
    pack, fs = airline
    from facts.errors import FactforgeError
    with pytest.raises(FactforgeError, match="available: .*conversations/chat_transcript"):
        plan_evidence(fs, 0, PlanConfig(kinds=["visuals/hologram"]), now=pack.info.now)


def test_wrong_values_keep_type(airline):
    import random
    from transforms.planner import wrong_value
    pack, fs = airline
    rng = random.Random(0)
    for f in fs.facts:
        for s in f.slots:
            w = wrong_value(s, rng)
            if s.type in (SlotType.enum, SlotType.identifier, SlotType.date):
                assert w is None
            elif w is not None and s.type == SlotType.money:
                assert w.startswith("$")
