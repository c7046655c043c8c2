"""The sealing gate: a held-out test is sealed only when doing the job is the one way to pass it.

Besides replaying each gold (`build.DomainBuild.replay`), the reference agents play every
candidate test, in-process (`outputs.evaluator.referee`: the offline user and the graders of
`factforge eval`, the task's phrasing rules applied to every reply): the oracle, the null
agent, the naive agent and the two adversaries, the policy reciter and the confident
guesser (`outputs.evaluator.adversaries`). A test is refused when

- the oracle fails it (its gold does not pass its own graders under the task's rules);
- the null agent passes it;
- the policy reciter passes it (saying the policy wins it without touching the API);
- it is a trap whose gold is the naive outcome (the naive actions leave the database the
  gold leaves: the trap checks at most that a value is said), or a trap the naive agent
  passes;
- the naive agent fails it and the confident guesser passes it (stating wrong values wins it).

A test the naive agent passes that is no trap is *plain*: the customer asks for what the
policy allows, and doing what is asked is right. Plain tests are admitted, but at most
`PLAIN_SHARE` of a task's tests may be plain (`outputs.packs.select`), so the naive agent
scores above the null agent without a trap falling, and the confident guesser, which does
what the naive agent does, scores at most that share.

Under `select = "learnable"` a refused test is replaced like an unlearnable one
(`outputs.packs.select`); under `"pinned"` it fails the build's `adversaries_fail` check.
The sealed `task.json` records every sealed test's rewards and each agent's mean.
"""
from __future__ import annotations

from statistics import fmean
from typing import Callable, Iterable, Optional

from domains.simtests import SimTest
from facts.errors import FactforgeError
from facts.hashing import content_hash

from .phrasing import load_catalog
from .select import plain_cap

GATE_AGENTS = ("oracle", "null", "naive", "reciter", "guesser")


def refusal(test: SimTest, scores: dict[str, float]) -> Optional[str]:
    """Why the gate refuses `test` given its reference `scores` (agent -> reward), or None."""
    if scores["oracle"] < 1.0:
        return "the oracle fails it"
    if scores["null"] > 0.0:
        return "the null agent passes it"
    if scores["reciter"] > 0.0:
        return "the policy reciter passes it"
    trap = test.factforge.trap != "none"
    if trap and test.factforge.naive_db_hash == test.factforge.expected_db_hash:
        return "a trap whose gold is the naive outcome"
    if scores["naive"] >= 1.0:
        return "a trap the naive agent passes" if trap else None
    if scores["guesser"] > 0.0:
        return "the confident guesser passes it"
    return None


def is_plain(scores: dict[str, float]) -> bool:
    """A test the naive agent passes (admitted only when it is no trap: `refusal`)."""
    return scores["naive"] >= 1.0


class Gate:
    """The gate of one task: reference rewards per test, computed once (`cache` may be shared
    by tasks whose rules and brand are the same)."""

    def __init__(self, ctx, cache: Optional[dict] = None):
        self.ctx = ctx
        self.cache = {} if cache is None else cache

    def scores(self, test: SimTest) -> dict[str, float]:
        if test.id not in self.cache:
            from outputs.evaluator.referee import reference_reward  # noqa: PLC0415  (deferred: the evaluator)
            self.cache[test.id] = {a: reference_reward(a, test, self.ctx) for a in GATE_AGENTS}
        return self.cache[test.id]

    def why(self, test: SimTest) -> Optional[str]:
        return refusal(test, self.scores(test))

    def plain(self, test: SimTest) -> bool:
        return is_plain(self.scores(test))

    def record(self, tests: Iterable[SimTest]) -> dict:
        """What the sealed task.json keeps: each agent's mean over `tests` and every test's rewards."""
        tests = list(tests)
        per = {t.id: self.scores(t) for t in tests}
        mean = {a: round(fmean(per[t.id][a] for t in tests), 6) if tests else 0.0 for a in GATE_AGENTS}
        return {"agents": list(GATE_AGENTS), "mean": mean, "tests": per}


def plain_share_problem(tests: list[SimTest], gate: "Gate") -> list[str]:
    """The problem of a test list holding more plain tests than its share (`select.plain_cap`)."""
    n = sum(1 for t in tests if gate.why(t) is None and gate.plain(t))
    cap = plain_cap(len(tests))
    return [f"{n} plain tests (the naive agent passes them) of {len(tests)}: at most {cap}"] if n > cap else []


def gate_context(world, db: dict, rules: list, brand: dict, task_id: str, statements: Optional[list[str]] = None):
    """An evaluator task context over a build's own data (no pack yet): the world's API and
    check, the test database, the task's phrasing rules and brand."""
    from outputs.evaluator.engine import TaskContext  # noqa: PLC0415  (deferred: the evaluator)

    return TaskContext(pack=None, task_id=task_id, sealed={"bundle": world.key, "domain": world.base.name},
                       tests=[], db=db, api=world.api(), check=world.check_database, rules=list(rules),
                       brand=dict(brand), budget={}, deployment=None, deployment_id="clean", deployment_text=None,
                       statements=statements)


def gate_for(d, key: str, seed: int, rules: list, brand: dict, task_id: str) -> Gate:
    """The gate of a task of the domain build `d` on the `seed` suite of world `key`, its
    rewards cached in `d` by world, seed, rules and brand."""
    rules_json = [r.model_dump(mode="json") for r in rules]
    cache = d.gate_cache.setdefault(content_hash([key, seed, rules_json, brand]), {})
    ctx = gate_context(d.world(key), d.database(key, seed), rules, brand, task_id,
                       statements=[f.statement for f in d.factset(key).facts])  # decomposed once per build
    return Gate(ctx, cache)


def task_brand(world) -> dict:
    """The brand a task's replies are phrased for (the sealed `brand`)."""
    b = world.pack.brand
    return {"company": b.company, "short_name": b.short_name or b.company, "phone": b.phone, "website": b.website}


def task_rules(spec) -> list:
    """The phrasing rules of a task spec, from the catalog (an unknown id: a FactforgeError)."""
    catalog, _ = load_catalog()
    try:
        return [catalog.get(rid) for rid in spec.phrasing.rules]
    except KeyError as e:
        raise FactforgeError(f"task {spec.id}: unknown phrasing rule {e.args[0]!r}") from None


Refuse = Callable[[SimTest], Optional[str]]
