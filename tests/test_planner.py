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


def test_every_fact_carried_or_routed_and_every_kind_used(airline):
    pack, fs = airline
    plan = plan_evidence(fs, 0, now=pack.info.now)
    carriers = plan.carriers()
    routed = {r.fact_id for r in plan.routes}
    assert set(carriers) | routed == {f.id for f in fs.facts}
    assert not set(carriers) & routed, "a routed fact is stated whole nowhere"
    kinds = {a.kind for a in plan.artifacts}
    assert kinds == set(registry.kinds())
    fams = {}
    for k in kinds:
        fams.setdefault(k.split("/")[0], set()).add(k)
    assert len(fams) == 5 and all(len(v) >= 3 for v in fams.values())
    assert any(a.noise for a in plan.artifacts)
    for a in plan.artifacts:
        assert len(a.fact_ids) <= registry.get(a.kind).max_facts


def test_volume_haystack_and_files_per_fact(airline):
    """The planner's volume: at least 400 airline files, most conversational files carry no fact, each fact
    is named by 2.5 files on average, email threads of 5 to 25 messages, captures of 45+
    threads, meetings of 10+ minutes (the planner's sizes)."""
    pack, fs = airline
    plan = plan_evidence(fs, 0, now=pack.info.now)
    assert len(plan.artifacts) >= 400
    conv = [a for a in plan.artifacts if a.kind.startswith("conversations/") or a.kind in
            ("recordings/call_audio", "recordings/voicemail")]
    free = [a for a in conv if not a.facts and not a.distractors]
    assert len(free) >= 0.6 * len(conv)
    named = plan.mentions()
    assert sum(len({aid for aid, _ in v}) for v in named.values()) / len(fs.facts) >= 2.5
    sizes = {k: [a.size for a in plan.artifacts if a.kind == k] for k in
             ("conversations/email_thread", "conversations/team_chat", "conversations/meeting_transcript")}
    assert all(5 <= n <= 25 for n in sizes["conversations/email_thread"])
    assert sorted(sizes["conversations/email_thread"])[len(sizes["conversations/email_thread"]) // 2] >= 8
    assert all(n >= 45 for n in sizes["conversations/team_chat"])
    assert all(n >= 10 for n in sizes["conversations/meeting_transcript"])


def test_roles_routes_series_and_chains(airline):
    """Echoes, partials and cases are planned; at least 15% of value facts are routed through a
    key file and a schedule file; older versions of documents share the series with a lower
    version and an earlier date; every value resolved by date lives in a file dated before
    every file that states the fact's current value; contested facts are recorded."""
    import datetime as dt

    pack, fs = airline
    plan = plan_evidence(fs, 0, now=pack.info.now)
    roles = {r for v in plan.mentions().values() for _, r in v}
    assert {"carrier", "echo", "partial", "case", "hop", "superseded", "proposal"} <= roles
    value_facts = [f for f in fs.facts if any(s.type in (SlotType.money, SlotType.duration, SlotType.count,
                                                         SlotType.percent) for s in f.slots)]
    assert len({r.fact_id for r in plan.routes}) >= 0.15 * len(value_facts)
    by_id = {a.id: a for a in plan.artifacts}
    for r in plan.routes:
        parts = {h.part: by_id[h.artifact_id] for h in r.hops}
        assert set(parts) == {"key", "table"} and parts["key"].id != parts["table"].id
        assert any(m.route == r.id and m.part == "key" for m in parts["key"].facts)
    series: dict[str, list] = {}
    for a in plan.artifacts:
        if a.series:
            series.setdefault((a.kind, a.series), []).append(a)
    assert series, "some documents come in versions"
    for docs in series.values():
        docs.sort(key=lambda a: a.version)
        assert [a.version for a in docs] == list(range(1, len(docs) + 1))
        assert all(x.date < y.date for x, y in zip(docs, docs[1:]))
    current: dict[str, list[str]] = {}
    for a in plan.artifacts:
        for m in a.facts:
            if m.role in ("carrier", "echo"):
                current.setdefault(m.fact_id, []).append(a.date)
    dated = [(a, d) for a in plan.artifacts for d in a.distractors if d.resolution in ("date", "version")]
    assert dated
    for a, d in dated:
        assert all(day > a.date for day in current[d.fact_id]), (a.id, d)
    assert plan.contested and all(any(d.fact_id == fid and d.role == "contested" for a in plan.artifacts
                                      for d in a.distractors) for fid in plan.contested)
    assert dt.date.fromisoformat(max(a.date for a in plan.artifacts)) < pack.info.now.date()


def test_a_changed_figure_has_a_history_as_long_as_its_present(airline):
    """For most chained facts the old figure is in at least as many files as the current one
    (at least 30% of the value facts in all), always the same old figure, worded as the
    records word the fact now, and dated before every file that states the fact; count facts
    and charges that are nothing now get old figures too."""
    from transforms.plan_roles import value_slot
    from transforms.planner import quoted_facts

    pack, fs = airline
    plan = plan_evidence(fs, 0, now=pack.info.now)
    quoted = quoted_facts(fs.facts, fs.domain, 0, PlanConfig())
    stating: dict[str, set] = {}
    for a in plan.artifacts:
        for m in a.facts:
            stating.setdefault(m.fact_id, set()).add(a.id)
    old: dict[str, set] = {}
    old_texts: dict[str, set] = {}
    for a in plan.artifacts:
        for d in a.distractors:
            if d.role == "superseded" and d.resolution in ("date", "version"):
                old.setdefault(d.fact_id, set()).add(a.id)
                old_texts.setdefault(d.fact_id, set()).add(d.text)
                if d.resolution == "date" and registry.get(a.kind).voices and not registry.get(a.kind).tabulates_cells:
                    assert d.rendition == ("canonical" if d.fact_id in quoted else "voiced"), (a.id, d)
    assert all(len(t) == 1 for t in old_texts.values()), "one old figure per changed fact"
    value_facts = [f for f in fs.facts if value_slot(f) is not None]
    outvoted = [f for f in value_facts if len(old.get(f.id, ())) >= len(stating.get(f.id, ())) > 0]
    assert len(outvoted) >= 0.3 * len(value_facts), (len(outvoted), len(value_facts))
    assert any(value_slot(f).type == SlotType.count and f.id in old for f in value_facts)
    assert any(value_slot(f).type == SlotType.money and value_slot(f).value == 0 and f.id in old for f in value_facts)


def test_distractors_are_recorded_never_authoritative(airline):
    pack, fs = airline
    plan = plan_evidence(fs, 0, now=pack.info.now)
    by_id = fs.by_id()
    ds = [(a, d) for a in plan.artifacts for d in a.distractors]
    assert {d.role for _, d in ds} >= {"distractor", "superseded", "proposal", "contested"}
    for a, d in ds:
        fact = by_id[d.fact_id]
        real = {s.text for s in fact.slots}
        assert d.text not in real, "a distractor value is never the fact's own value"
        assert not any(m.fact_id == d.fact_id and m.role == "carrier" for m in a.facts) or \
            d.resolution in ("hedge", "correction"), "a carrier's own wrong value is hedged or corrected"
    # hedged stray beliefs live in files that state nothing
    assert any(a.noise and a.distractors for a in plan.artifacts)
    # at most a fifth of the wrong values carry a hedge; most live in another file than the carrier
    hedged = [d for _, d in ds if d.resolution == "hedge"]
    assert len(hedged) <= 0.2 * len(ds) + 1
    carriers = plan.carriers()
    apart = [d for a, d in ds if a.id not in carriers.get(d.fact_id, [])]
    assert len(apart) >= 0.7 * len(ds)


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
    stated = len(fs.facts) - len({r.fact_id for r in plan.routes})  # routed facts have no carrier by design
    assert two >= 0.9 * stated


def test_unknown_kind_lists_available(airline):
    pack, fs = airline
    from facts.errors import FactforgeError
    with pytest.raises(FactforgeError, match="available: .*conversations/chat_transcript"):
        plan_evidence(fs, 0, PlanConfig(kinds=["visuals/hologram"]), now=pack.info.now)


def test_wrong_values_keep_type(airline):
    import random
    from transforms.plan_roles import wrong_value
    pack, fs = airline
    rng = random.Random(0)
    for f in fs.facts:
        for s in f.slots:
            w = wrong_value(s, rng)
            if s.type in (SlotType.enum, SlotType.identifier, SlotType.date):
                assert w is None
            elif w is not None and s.type == SlotType.money:
                assert w.startswith("$")


def test_an_old_figure_is_said_as_the_current_one_is(airline):
    """A count band's old figure is another band ("51 to 70" was "51 to 62"), a count of the
    things a statement lists has none, and an old figure never reads back as the current one."""
    import random
    from facts.values import figure_slots
    from transforms.plan_roles import value_slot, wrong_for
    pack, fs = airline
    bands = [f for f in fs.facts if (s := value_slot(f)) is not None and s.type == SlotType.count
             and s.value_max is not None]
    assert bands
    for f in bands:
        slot = value_slot(f)
        for i in range(5):
            w = wrong_for(f, slot, random.Random(i))
            assert w is not None and w.startswith(f"{slot.value} to ")
            (old,) = figure_slots(w)
            assert old.value == slot.value and old.value_max not in (None, slot.value_max)
    listed = next(f for f in fs.facts if f.statement.startswith("Larkspur Loop has four tiers:"))
    assert wrong_for(listed, value_slot(listed), random.Random(0)) is None


def test_registration_refuses_an_unknown_family_and_a_kind_taken_twice():
    from transforms import registry
    from transforms.visuals.chart import Chart

    class Stray(Chart):
        family = "posters"

    with pytest.raises(registry.UnknownFamilyError, match="unknown family 'posters'"):
        registry.register(Stray)

    class Again(Chart):
        pass

    with pytest.raises(registry.DuplicateKindError, match="registered twice"):
        registry.register(Again)
    assert type(registry.get("visuals/chart")) is Chart
