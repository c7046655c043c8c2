"""What a task's client knows and can do, as the pack build checks and seals it: the owner's
capabilities and fixes (`[client]`), the stakeholders and whose word decides each section
(`[[stakeholders]]`), the facts only people know, and the sealed `client.json`."""
from __future__ import annotations

import tomllib
from typing import Callable, Optional

from domains.simtests import SimTest
from facts.errors import FactforgeError

from .spec import LoadedSpec
from .withhold import contested_version


def check_client_levers(ls: LoadedSpec, api, dep_raw: Optional[bytes]) -> None:
    """A capability names an operation of the domain's API; a fix the client can deploy names a
    defect of the task's deployment (by its index, 0 for the first)."""
    c = ls.spec.client
    ops = {o.name for o in api.operations()} if api is not None else set()
    for i, cap in enumerate(c.capabilities):
        if cap.operation not in ops:
            raise ls.error(f"capability {cap.operation!r} is not an operation of the domain's API; operations: "
                           f"{', '.join(sorted(ops))}", "client", "capabilities", i, "operation")
    if c.can_deploy_fix:
        n = len(tomllib.loads(dep_raw.decode("utf-8")).get("defects", [])) if dep_raw is not None else 0
        bad = [i for i in c.can_deploy_fix if i >= n]
        if bad:
            raise ls.error(f"can_deploy_fix names defect {bad[0]}, but the deployment {ls.spec.api.deployment!r} "
                           f"has {n} defect{'s' if n != 1 else ''}", "client", "can_deploy_fix")


def governor(spec, section: str) -> str:
    """The role whose word decides a top-level policy section: the stakeholder who governs it,
    else the owner."""
    return next((p.role for p in spec.stakeholders if section in p.governs), "owner")


def check_governance(ls: LoadedSpec, by_id: dict, factset) -> None:
    """A governed section is a top-level section of the policy; a fact stated by habit is held
    by the person whose word decides its section, never by the one with the habit."""
    spec = ls.spec
    tops = {f.section[0] for f in factset.facts if f.section}
    for j, person in enumerate(spec.stakeholders):
        for g in person.governs:
            if g not in tops:
                raise ls.error(f"stakeholder {person.role} governs {g!r}, which is no top-level policy section; "
                               f"sections: {', '.join(sorted(tops))}", "stakeholders", j, "governs")
        for fid in person.habits:
            try:
                habit(person, by_id[fid], 0)
            except FactforgeError as e:
                raise ls.error(f"stakeholder {person.role} cannot misstate {fid}: {e.problem}", "stakeholders", j,
                               "habits") from None
            section = by_id[fid].section[0] if by_id[fid].section else ""
            holder = "owner" if fid in spec.client.held else next(
                p.role for p in spec.stakeholders if fid in p.held)
            if governor(spec, section) != holder:
                raise ls.error(f"stakeholder {person.role} misstates {fid}, but {holder}, who holds it, does not "
                               f"govern its section {section!r}: whose word decides would be unclear",
                               "stakeholders", j, "habits")


def habit(person, fact, seed: int):
    """The fact as the stakeholder states it by habit: its first numeric value moved to another,
    plausible one (`withhold.contested_version`, salted by their role); FactforgeError for a fact
    without a numeric value."""
    return contested_version(fact, seed, salt=f"habit:{person.role}", suffix="~habit")


def stakeholder_brief(person, by_id: dict, fact: Callable[[str], dict], seed: int) -> dict:
    """What a stakeholder's client simulator knows (`outputs.client.knowledge.StakeholderBrief`):
    a fact stated by habit is held with the stakeholder's own value (`habit`)."""
    habits = []
    for fid in person.habits:
        v = habit(person, by_id[fid], seed)
        habits.append({**fact(fid), "statement": v.statement, "values": [s.text for s in v.slots]})
    return {"role": person.role, "title": person.title, "persona": person.persona, "turn_quota": person.turn_quota,
            "governs": list(person.governs), "held": [fact(f) for f in person.held],
            "confirmable": [fact(f) for f in person.confirmable], "habits": habits,
            **({"tiers": dict(sorted(person.tiers.items()))} if person.tiers else {})}


def unexercised_levers(spec, tests: list[SimTest]) -> list[str]:
    """A capability no sealed test's gold calls would cost a developer who never asks nothing;
    a habit no sealed test exercises would make believing the wrong person free."""
    called = {c.name for t in tests for c in t.gold_calls()}
    exercised = {f for t in tests for f in t.factforge.fact_ids}
    return [f"capability {cap.operation}: no test's gold calls it, so a developer who never asks for it loses "
            "nothing" for cap in spec.client.capabilities if cap.operation not in called] + \
        [f"stakeholder {p.role}'s habit {f}: no test exercises it, so taking their word costs nothing"
         for p in spec.stakeholders for f in p.habits if f not in exercised]


def client_facts(spec, disputed) -> tuple[set[str], set[str]]:
    """(facts the task's client knows, facts only a client may settle). The second set is held and
    contested facts, plus `disputed`, the facts the domain's own records contest (two official
    versions, nothing resolving them: a surface's `records_contested`), which an enabled client
    knows and no training gold may settle."""
    c = spec.client
    disputed = set(disputed)
    known = set(spec.held) | set(spec.confirmable) | set(c.contested) | (disputed if c.enabled else set())
    return known, set(spec.held) | set(c.contested) | disputed


def client_brief(spec, by_id: dict, surf, api, seed: int) -> dict:
    """The sealed `client.json` (`outputs.client.knowledge.ClientKnowledge`): what the owner
    knows and can do, and, where the task has them, the stakeholders."""
    c = spec.client

    def fact(fid: str) -> dict:
        f = by_id[fid]
        return {"fact_id": fid, "section": list(f.section), "statement": f.statement,
                "values": [s.text for s in f.slots]}

    levers = {}
    if c.capabilities:
        ops = {o.name: o for o in api.operations()}
        levers["capabilities"] = [{"operation": cap.operation, "need": cap.need,
                                   "method": ops[cap.operation].method, "path": ops[cap.operation].path,
                                   "summary": ops[cap.operation].summary} for cap in c.capabilities]
    if c.can_deploy_fix:
        levers["can_deploy_fix"] = sorted(c.can_deploy_fix)
    if c.tiers:
        levers["tiers"] = dict(sorted(c.tiers.items()))
    if spec.stakeholders:
        levers["stakeholders"] = [stakeholder_brief(p, by_id, fact, seed) for p in spec.stakeholders]
    return {"schema_version": "1.0", "enabled": c.enabled, "turn_quota": c.turn_quota, **levers,
            "held": [fact(f) for f in c.held], "confirmable": [fact(f) for f in c.confirmable],
            "contested": [{**fact(f), "conflicting_statement": surf.edit.versions[f].statement,
                           "conflicting_values": [s.text for s in surf.edit.versions[f].slots],
                           "current_in": surf.report["contested"][f]["current_in"],
                           "conflicting_in": surf.report["contested"][f]["conflicting_in"]} for f in c.contested]
            + ([{**fact(f), **v} for f, v in sorted(surf.report.get("records_contested", {}).items())
                if f not in set(spec.held) | set(spec.confirmable) | set(c.contested)] if c.enabled else [])}
