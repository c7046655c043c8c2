"""Can a domain's task specs still build? A check from the evidence *plan*, without rendering.

`pack build` proves learnability on the delivered files themselves (render, extract, match),
which for the built-in domains takes many minutes. This guard answers the question a change
must answer before it lands, in the time of planning and simulating: for every task spec of
a domain,

- the delivered plan (the task's profile, difficulty, sections and kinds, then the client's
  edit) states every fact a chosen test exercises, or the client knows it; every chosen
  training scenario's facts are stated and none is held or contested;
- enough simulations are eligible for the spec's id counts (`outputs.packs.select`), and a
  `select = "pinned"` spec's ids are all still eligible;
- no held fact is left anywhere in the delivered plan (as a carrier, echo, case, hop, or a
  wrong, old, proposed or contested value);
- every held-out test passes the sealing gate (`outputs.packs.gate`), the same in-process
  reference runs `pack build` makes: they cost a replay and a grading per test;
- the client's capabilities name operations of the API, its fixes defects of the deployment,
  and some sealed test's gold calls each capability.

"Stated" is the plan's promise: a carrier or echo (every one is proven readable from its
file by the domain bundle's own recoverability gate) or a complete multi-hop route. What
only rendering shows (a wording that the extractor cannot read back, a held value voiced by
accident) is still caught by `pack build`'s proofs and by `benchmarks/bench_packs.py`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from domains import DomainPack
from facts.errors import FactforgeError

from .build import BuildOptions, DomainBuild, check_spec_facts, resolve_deployment
from .client import check_client_levers, client_facts, unexercised_levers
from .gate import gate_for, plain_share_problem, task_brand, task_rules
from .select import learnable_test, learnable_training, publishes
from .spec import LoadedSpec, load_domain_specs
from .withhold import withhold_and_contest


@dataclass
class TaskVerdict:
    task_id: str
    problems: list[str] = field(default_factory=list)
    replaced: dict = field(default_factory=dict)
    stated: int = 0
    tests: int = 0                    # the held-out tests the task would seal
    templates: int = 0                # the distinct scenarios they come from
    reference: dict = field(default_factory=dict)   # agent -> mean reward on those tests (the gate's)


def _sealed_summary(v: TaskVerdict, tests: list, gate) -> None:
    v.tests, v.templates = len(tests), len({t.factforge.scenario for t in tests})
    v.reference = gate.record(tests)["mean"] if tests else {}


def _stated(plan) -> set[str]:
    ids = {a.id for a in plan.artifacts}
    out = {m.fact_id for a in plan.artifacts for m in a.facts if m.role in ("carrier", "echo")}
    out |= {r.fact_id for r in plan.routes if all(h.artifact_id in ids for h in r.hops)}
    return out - set(plan.contested)


def _held_left(plan, held: set[str]) -> list[str]:
    out = []
    for a in plan.artifacts:
        for fid in [m.fact_id for m in a.facts] + [d.fact_id for d in a.distractors]:
            if fid in held:
                out.append(f"held fact {fid} is still planned in {a.path}")
    for r in plan.routes:
        if r.fact_id in held:
            out.append(f"held fact {r.fact_id} still has a multi-hop route")
    return out


def check_task(ls: LoadedSpec, d: DomainBuild) -> TaskVerdict:
    spec, c = ls.spec, ls.spec.client
    key = spec.evidence.bundle
    ev = d.evidence(key)
    v = TaskVerdict(task_id=spec.id)
    try:
        check_client_levers(ls, d.world(key).api(), resolve_deployment(d.pack, ls)[0])
        check_spec_facts(ls, d)
        plan = ev.deliver(ev.base(spec.evidence.profile, spec.evidence.difficulty), spec.evidence.sections,
                          spec.evidence.kinds)
        edit = withhold_and_contest(plan, ev.by_id, spec.held, c.contested, d.opts.seed)
    except FactforgeError as e:
        v.problems.append(e.problem)
        return v
    stated = _stated(edit.plan)
    v.stated = len(stated)
    known, secret = client_facts(spec, edit.plan.contested)
    learnable = stated | known
    dev = {t.id: t for t in d.suite(key, d.opts.seed).tests}
    held_out = {t.id: t for t in d.suite(key, spec.ids.test_seed).tests}
    v.problems += _held_left(edit.plan, set(spec.held))
    pinned = {"training": spec.ids.training, "live": spec.ids.live, "test": spec.ids.test}
    try:
        gate = gate_for(d, key, spec.ids.test_seed, task_rules(spec), task_brand(d.world(key)), spec.id)
    except FactforgeError as e:
        v.problems.append(e.problem)
        return v
    if spec.ids.select == "learnable":
        ch = d.choose_ids(ls, stated, edit.plan.contested, gate)
        v.problems += ch.problems + unexercised_levers(spec, ch.tests)
        v.replaced = ch.replaced
        _sealed_summary(v, ch.tests, gate)
        return v
    for name, pool in (("training", dev), ("live", held_out), ("test", held_out)):
        for tid in pinned[name]:
            t = pool.get(tid)
            if t is None:
                v.problems.append(f"{name} id {tid} does not resolve")
            elif name == "training" and not learnable_training(t, stated, secret):
                v.problems.append(f"training {tid} exercises facts not stated in the kit, or held or contested")
            elif name == "training" and publishes(t, [cap.operation for cap in c.capabilities]):
                v.problems.append(f"training {tid}: {publishes(t, [cap.operation for cap in c.capabilities])}")
            elif name != "training" and not learnable_test(t, learnable):
                missing = sorted(set(t.factforge.fact_ids) - learnable)
                v.problems.append(f"{tid}: exercises facts neither in the kit nor known to the client: "
                                  f"{', '.join(missing[:4])}")
            elif name != "training" and gate.why(t):
                v.problems.append(f"{tid}: refused by the sealing gate: {gate.why(t)}")
    tests = [held_out[t] for t in pinned["test"] if t in held_out]
    v.problems += plain_share_problem(tests, gate) + unexercised_levers(spec, tests)
    _sealed_summary(v, tests, gate)
    return v


def check_domain(pack: DomainPack, opts: BuildOptions, task_ids: Optional[list[str]] = None) -> list[TaskVerdict]:
    """A verdict per task spec of the domain (planned once per bundle, profile and difficulty;
    suites through the workspace's suite cache)."""
    d = DomainBuild(pack, opts)
    return [check_task(ls, d) for ls in load_domain_specs(pack, set(task_ids or []))]
