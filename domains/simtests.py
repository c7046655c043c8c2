"""Held-out simulations ("tests") of a domain: the model, the drafts domains write, and the
suite builder that seals them.

A `SimTest` is shaped like a tau2-bench `Task` (`id`, `description`, `user_scenario` with
structured instructions, `evaluation_criteria` with `actions`, `communicate_info`,
`nl_assertions`, `reward_basis`), so `SimTest.tau2()` is a tau2 task as it stands. What
tau2 does not know sits under one separate key, `factforge` (`TestExtras`): the seed and
database hashes, the expected database hash after the gold actions, the trap kind, the
fact ids the test exercises, the scripted user that plays the customer offline, and the
actions of the "naive" reference agent (one that does what the user asks and applies no
policy).

A domain writes `Scenario` drafts (`DomainCode.scenarios`); `build_suite` replays each
draft's gold actions on a fresh copy of the seed database through the domain API, runs the
domain's own `check` on the result (it must be clean), hashes it, replays the naive actions
the same way, and refuses a draft that a do-nothing agent would pass (no write and nothing
to communicate) or a trap that the naive agent would pass.

Scoring assumptions the drafts are designed for (the evaluator implements them): reward =
product over `reward_basis` (database hash equal to the expected hash; every
`communicate_info` string found, case-insensitively and ignoring thousands separators, in
the agent's messages). The oracle replays the gold actions and says the communicate
strings; the null agent does nothing; the naive agent replays `naive_actions` and states no
policy values, so it passes exactly the tests whose naive outcome is the gold outcome and
that have nothing to communicate.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal, Mapping, Optional

from pydantic import Field

from facts.errors import FactforgeError
from facts.hashing import content_hash
from facts.models import Fact, FactSet, SlotType
from facts.strict import StrictModel

from .apikit import Call, DomainApi, copy_db, db_hash
from .value_feeds import resolve_value_facts

SIMTEST_SCHEMA_VERSION = "1.0"
TrapKind = Literal["none", "refuse", "fee", "rate", "missing_info", "transfer"]
TRAP_KINDS: tuple[str, ...] = ("refuse", "fee", "rate", "missing_info", "transfer")
RewardType = Literal["DB", "ENV_ASSERTION", "NL_ASSERTION", "ACTION", "COMMUNICATE"]
NUMERIC_SLOTS = (SlotType.money, SlotType.duration, SlotType.count, SlotType.percent)
STOP_TOKEN = "###STOP###"


# --------------------------------------------------------------------------- tau2 shape

class Description(StrictModel):
    purpose: str
    relevant_policies: Optional[str] = None
    notes: Optional[str] = None


class StructuredUserInstructions(StrictModel):
    domain: str
    reason_for_call: str
    known_info: Optional[str] = None
    unknown_info: Optional[str] = None
    task_instructions: str


class UserScenario(StrictModel):
    persona: Optional[str] = None
    instructions: StructuredUserInstructions


class Action(StrictModel):
    action_id: str
    requestor: Literal["assistant", "user"] = "assistant"
    name: str
    arguments: dict[str, Any]
    info: Optional[str] = None
    compare_args: Optional[list[str]] = None


class EvaluationCriteria(StrictModel):
    actions: list[Action]
    communicate_info: list[str] = Field(default_factory=list)
    nl_assertions: list[str] = Field(default_factory=list)
    reward_basis: list[RewardType] = Field(default_factory=lambda: ["DB", "COMMUNICATE"])


# --------------------------------------------------------------------------- our extras

class ScriptAnswer(StrictModel):
    """What the scripted user says when the agent asks about `topic` (an agent message
    containing any of `keywords`, lowercase, is such a question)."""
    topic: str
    keywords: list[str]
    reply: str


class UserScript(StrictModel):
    """A deterministic user for offline runs (`outputs.evaluator.users.ScriptedUser` plays
    it). The user opens with `opening`; to an agent message that asks about a topic it
    answers with a matching `answers` entry; to a request for confirmation it says
    `confirm`; to a refusal, a fee or a transfer it says `pushback` once (when set); to a
    question its answers do not cover it says it does not know; after the agent reports the
    outcome it says `closing` followed by `stop_token`. After `max_turns` user turns it
    stops. Every answer is also in the test's `known_info` (the LLM user's knowledge)."""
    opening: str
    answers: list[ScriptAnswer] = Field(default_factory=list)
    confirm: str
    pushback: Optional[str] = None
    closing: str
    confirm_keywords: list[str] = Field(default_factory=lambda: ["confirm", "shall i", "should i", "go ahead",
                                                                 "proceed", "would you like", "do you want"])
    stop_token: str = STOP_TOKEN
    max_turns: int = Field(12, ge=1)


class TestExtras(StrictModel):
    """Fields tau2-bench's Task does not have (exported under one key, `factforge`)."""
    schema_version: str = SIMTEST_SCHEMA_VERSION
    scenario: str                     # the scenario kind that produced the test
    seed: int
    initial_db_hash: str              # the seed database the test starts from
    expected_db_hash: str             # after the gold actions, replayed on a fresh copy
    naive_db_hash: str                # after the naive actions, replayed on a fresh copy
    trap: TrapKind
    fact_ids: list[str]
    value_keys: list[str] = Field(default_factory=list)
    customer_id: Optional[str] = None
    script: UserScript
    naive_actions: list[Action]

    @property
    def naive_passes(self) -> bool:
        return self.naive_db_hash == self.expected_db_hash


class SimTest(StrictModel):
    """One held-out simulation: a tau2 Task plus `factforge` extras."""
    id: str
    description: Description
    user_scenario: UserScenario
    initial_state: None = None
    evaluation_criteria: EvaluationCriteria
    factforge: TestExtras

    def tau2(self) -> dict[str, Any]:
        """The test as a tau2-bench Task (our extras left out)."""
        d = self.model_dump(mode="json", exclude={"factforge"})
        return d

    def gold_calls(self) -> list[Call]:
        return [Call(name=a.name, arguments=a.arguments) for a in self.evaluation_criteria.actions]

    def naive_calls(self) -> list[Call]:
        return [Call(name=a.name, arguments=a.arguments) for a in self.factforge.naive_actions]

    @property
    def naive_passes(self) -> bool:
        """Whether the naive reference agent (naive actions, no policy statements) passes."""
        return self.factforge.naive_passes and not self.evaluation_criteria.communicate_info


class SuiteSummary(StrictModel):
    tests: int
    traps: int
    trap_share: float
    by_trap: dict[str, int]
    with_writes: int
    naive_passes: int
    numeric_facts: int
    numeric_facts_covered: int
    numeric_fact_coverage: float
    uncovered_numeric_facts: list[str]
    operations_used: list[str]


class SimSuite(StrictModel):
    schema_version: str = SIMTEST_SCHEMA_VERSION
    domain: str
    variant: Optional[str] = None
    seed: int
    db_hash: str
    facts_hash: str
    tests: list[SimTest]
    summary: SuiteSummary

    @property
    def hash(self) -> str:
        return content_hash(self.model_dump(mode="json"))


# --------------------------------------------------------------------------- drafts

@dataclass
class Scenario:
    """A test as a domain writes it. `gold` and `naive` are (operation, arguments) pairs."""
    slug: str
    trap: TrapKind
    purpose: str
    reason: str
    opening: str
    gold: list[tuple[str, dict[str, Any]]]
    naive: list[tuple[str, dict[str, Any]]]
    facts: list[str]
    known: list[str] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    instructions: list[str] = field(default_factory=list)
    persona: Optional[str] = None
    customer_id: Optional[str] = None
    communicate: list[str] = field(default_factory=list)
    nl: list[str] = field(default_factory=list)
    answers: list[ScriptAnswer] = field(default_factory=list)
    confirm: str = "Yes, please go ahead."
    pushback: Optional[str] = None
    closing: str = "Thank you, that's all I needed."
    value_keys: list[str] = field(default_factory=list)
    notes: Optional[str] = None


def answer(topic: str, keywords: list[str] | str, reply: str) -> ScriptAnswer:
    return ScriptAnswer(topic=topic, keywords=[keywords] if isinstance(keywords, str) else list(keywords),
                        reply=reply)


def amount_text(x: float) -> str:
    """How a money amount appears in `communicate_info`: 45, 24.99, 1200 (no separators,
    no currency sign)."""
    r = round(float(x) + 0.0, 2)
    return str(int(r)) if r.is_integer() else f"{r:.2f}"


class FactIndex:
    """Finds the fact ids a scenario exercises. Every lookup must hit exactly one fact, so a
    policy edit that breaks a scenario fails the build loudly."""

    def __init__(self, factset: FactSet, feeds: Mapping[str, Any], world: Optional[FactSet] = None):
        """`factset` is what scenarios look facts up in (a variant's base policy); `world`, when
        given, is the facts of the world the tests are for (a variant's), whose ids the lookups
        return: a variant keeps each fact's hash and may rename its section."""
        self.factset = factset
        self.feeds = dict(feeds)
        self._by_id = factset.by_id()
        self._rename: dict[str, str] = {}
        if world is not None:
            by_hash = {f.id.rsplit(".", 1)[-1]: f for f in world.facts}
            for f in factset.facts:
                w = by_hash.get(f.id.rsplit(".", 1)[-1])
                if w is not None:
                    self._rename[f.id] = w.id
                    self._by_id[w.id] = w

    def _own(self, fact_id: str) -> str:
        return self._rename.get(fact_id, fact_id)

    def value(self, key: str) -> str:
        """The fact stating the seed value `key` (the pack's VALUE_FACTS)."""
        fd = self.feeds.get(key)
        if fd is None:
            raise FactforgeError(f"{self.factset.domain}: no fact states the seed value {key!r}")
        return self._own(fd.fact_id)

    def find(self, text: str, *conditions: str) -> str:
        """The one fact whose statement contains `text` (case-insensitive) and whose
        conditions include every value in `conditions`."""
        t = text.casefold()
        hits = [f for f in self.factset.facts if t in f.statement.casefold()
                and all(any(c.casefold() == x.value.casefold() for x in f.conditions) for c in conditions)]
        if len(hits) != 1:
            raise FactforgeError(f"{self.factset.domain}: {len(hits)} facts match {text!r} {list(conditions)} "
                                 "(a scenario needs exactly one)")
        return self._own(hits[0].id)

    def statement(self, fact_id: str) -> str:
        return self._by_id[fact_id].statement


@dataclass
class ScenarioContext:
    """What a domain's `scenarios` receives."""
    pack: Any
    db: dict[str, Any]          # the seed database (read it; never mutate it)
    values: dict[str, Any]      # the policy values in force
    facts: FactIndex
    api: DomainApi
    seed: int


def numeric_facts(factset: FactSet) -> list[Fact]:
    """Facts with a money, duration, count or percent slot (the value facts)."""
    return [f for f in factset.facts if any(s.type in NUMERIC_SLOTS for s in f.slots)]


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:40]


def _replayed(ctx: ScenarioContext, calls: list, what: str) -> dict:
    """A fresh copy of the seed database after `calls` (no calls: the seed database itself,
    to be read only); a call that fails raises, naming `what` actions and the call."""
    if not calls:
        return ctx.db
    db = copy_db(ctx.db)
    for i, out in enumerate(ctx.api.replay(db, [Call(name=n, arguments=a) for n, a in calls])):
        if not out.ok:
            raise FactforgeError(f"{what} action {i} ({out.name}) failed: {out.error.code}: {out.error.message} "
                                 f"{out.error.details}")
    return db


def seal(sc: Scenario, ctx: ScenarioContext, check, initial: str, domain: str) -> SimTest:
    """Replay a draft's gold and naive actions on fresh copies of the seed database and
    build the sealed test. Raises FactforgeError naming the scenario on any problem."""
    where = f"{domain} scenario {sc.slug!r}"
    if sc.trap not in ("none", *TRAP_KINDS):
        raise FactforgeError(f"{where}: unknown trap kind {sc.trap!r}")
    if not sc.facts:
        raise FactforgeError(f"{where}: exercises no fact")
    core = {"slug": sc.slug, "gold": sc.gold, "naive": sc.naive, "reason": sc.reason, "opening": sc.opening,
            "known": sc.known, "instructions": sc.instructions, "communicate": sc.communicate}
    tid = f"{domain}.{_slug(sc.slug)}.{content_hash(core)[:10]}"
    # a replay is deterministic: no calls leave the seed database (`initial`), and naive
    # actions that are the gold's leave the gold's database; neither is copied nor hashed again
    gold_db = _replayed(ctx, sc.gold, f"{where}: gold")
    problems = check(gold_db)
    if problems:
        raise FactforgeError(f"{where}: the gold outcome breaks the domain check: {problems[:3]}")
    expected = db_hash(gold_db) if sc.gold else initial
    if expected == initial and not sc.communicate:
        raise FactforgeError(f"{where}: a do-nothing agent would pass (no write and nothing to communicate)")
    if sc.naive == sc.gold:
        naive = expected
    else:
        naive = db_hash(_replayed(ctx, sc.naive, f"{where}: naive")) if sc.naive else initial
    if sc.trap != "none" and naive == expected and not sc.communicate:
        raise FactforgeError(f"{where}: a policy trap that the naive agent passes")

    def actions(calls, tag):
        return [Action(action_id=f"{tid}.{tag}{i}", name=n, arguments=a) for i, (n, a) in enumerate(calls)]

    rel = "\n".join(f"- {ctx.facts.statement(f)}" for f in dict.fromkeys(sc.facts))
    known = list(sc.known) + [f"Asked about {a.topic.replace('_', ' ')}, you say: {a.reply}" for a in sc.answers
                              if a.reply not in sc.known]
    return SimTest(
        id=tid,
        description=Description(purpose=sc.purpose, relevant_policies=rel, notes=sc.notes),
        user_scenario=UserScenario(persona=sc.persona, instructions=StructuredUserInstructions(
            domain=domain, reason_for_call=sc.reason, known_info="\n".join(known) or None,
            unknown_info="\n".join(sc.unknown) or None,
            task_instructions="\n".join(sc.instructions) or "Answer the agent's questions with what you know.")),
        evaluation_criteria=EvaluationCriteria(actions=actions(sc.gold, "g"), communicate_info=list(sc.communicate),
                                               nl_assertions=list(sc.nl), reward_basis=["DB", "COMMUNICATE"]),
        factforge=TestExtras(
            scenario=sc.slug, seed=ctx.seed, initial_db_hash=initial, expected_db_hash=expected,
            naive_db_hash=naive, trap=sc.trap, fact_ids=list(dict.fromkeys(sc.facts)),
            value_keys=list(dict.fromkeys(sc.value_keys)), customer_id=sc.customer_id,
            script=UserScript(opening=sc.opening, answers=sc.answers, confirm=sc.confirm, pushback=sc.pushback,
                              closing=sc.closing),
            naive_actions=actions(sc.naive, "n")))


def build_suite(pack, db: dict, factset: FactSet, values: Mapping[str, Any], seed: int, *,
                base=None, variant: Optional[str] = None, check=None) -> SimSuite:
    """Seal every scenario of a domain into a `SimSuite`. `pack` is the pack as built (a
    variant's rebranded pack), `base` the pack whose code and policy text it derives from
    (default: `pack`); `check(db) -> problems` defaults to the domain's own check under
    `values`."""
    base = base or pack
    code = base.code
    api = code.api(pack, values)
    if api is None:
        return _summarise(pack.name, variant, seed, db, factset, [], [])
    check = check or (lambda d: code.check(pack, d, values))
    base_facts = base.facts if base is not pack else factset
    idx = FactIndex(base_facts, resolve_value_facts(base, base_facts), world=factset if base is not pack else None)
    ctx = ScenarioContext(pack=pack, db=db, values=dict(values), facts=idx, api=api, seed=seed)
    initial = db_hash(db)
    seed_verdict: list = []

    def checked(d: dict) -> list[str]:
        """`check`, run once on the seed database (the outcome of every test whose gold writes nothing)."""
        if d is not db:
            return check(d)
        if not seed_verdict:
            seed_verdict.append(check(d))
        return seed_verdict[0]

    tests = [seal(sc, ctx, checked, initial, pack.name) for sc in code.scenarios(ctx)]
    if db_hash(db) != initial:
        raise FactforgeError(f"{pack.name}: scenario generation mutated the seed database")
    ids = [t.id for t in tests]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    if dup:
        raise FactforgeError(f"{pack.name}: duplicate test ids {dup[:5]}")
    return _summarise(pack.name, variant, seed, db, factset, tests, [o.name for o in api.operations()])


def _summarise(domain, variant, seed, db, factset, tests: list[SimTest], ops: list[str]) -> SimSuite:
    num = {f.id for f in numeric_facts(factset)}
    covered = {f for t in tests for f in t.factforge.fact_ids} & num
    by: dict[str, int] = {}
    for t in tests:
        by[t.factforge.trap] = by.get(t.factforge.trap, 0) + 1
    traps = sum(v for k, v in by.items() if k != "none")
    used = sorted({a.name for t in tests for a in t.evaluation_criteria.actions} & set(ops))
    writes = sum(1 for t in tests if t.factforge.expected_db_hash != t.factforge.initial_db_hash)
    summary = SuiteSummary(
        tests=len(tests), traps=traps, trap_share=round(traps / len(tests), 4) if tests else 0.0,
        by_trap=dict(sorted(by.items())), with_writes=writes, naive_passes=sum(t.naive_passes for t in tests),
        numeric_facts=len(num), numeric_facts_covered=len(covered),
        numeric_fact_coverage=round(len(covered) / len(num), 4) if num else 1.0,
        uncovered_numeric_facts=sorted(num - covered), operations_used=used)
    return SimSuite(domain=domain, variant=variant, seed=seed, db_hash=db_hash(db), facts_hash=factset.hash,
                    tests=tests, summary=summary)


SUITE_CHECKS = ("gold_replays", "gold_passes_domain_check", "test_ids_unique", "test_quotas")


def suite_problems(suite: SimSuite, api: Optional[DomainApi], db: dict, check, quota=None) -> dict[str, list[str]]:
    """Independent re-verification of a sealed suite, by check: every gold replays to its
    expected hash on a fresh copy of `db`; gold outcomes pass the domain `check`; ids are
    unique; the domain's `quota` (a `domains.contract.TestQuota`) is reached and the naive
    agent passes some tests but not all."""
    out: dict[str, list[str]] = {k: [] for k in SUITE_CHECKS}
    ids = [t.id for t in suite.tests]
    out["test_ids_unique"] = [f"duplicate test id {i}" for i in sorted({i for i in ids if ids.count(i) > 1})]
    if api is None:
        if suite.tests:
            out["gold_replays"].append(f"{suite.domain}: tests but no API to replay them")
        return out
    for t in suite.tests:
        d = copy_db(db)
        bad = [r for r in api.replay(d, t.gold_calls()) if not r.ok]
        if bad:
            out["gold_replays"].append(f"{t.id}: gold call {bad[0].name} failed: {bad[0].error.message}")
            continue
        if db_hash(d) != t.factforge.expected_db_hash:
            out["gold_replays"].append(f"{t.id}: gold replays to {db_hash(d)[:12]}, expected "
                                       f"{t.factforge.expected_db_hash[:12]}")
        p = check(d)
        if p:
            out["gold_passes_domain_check"].append(f"{t.id}: gold outcome breaks the domain check: {p[0]}")
    s, q = suite.summary, quota
    if q is not None:
        if s.tests < q.min_tests:
            out["test_quotas"].append(f"{suite.domain}: {s.tests} tests, at least {q.min_tests} required")
        if s.trap_share < q.min_trap_share:
            out["test_quotas"].append(f"{suite.domain}: trap share {s.trap_share:.0%} below {q.min_trap_share:.0%}")
        if q.full_value_coverage and s.uncovered_numeric_facts:
            out["test_quotas"].append(f"{suite.domain}: {len(s.uncovered_numeric_facts)} value facts exercised by "
                                      f"no test, e.g. {s.uncovered_numeric_facts[:3]}")
    if suite.tests and not 0 < s.naive_passes < s.tests:
        out["test_quotas"].append(f"{suite.domain}: the naive agent passes {s.naive_passes} of {s.tests} tests "
                                  "(it must pass some and fail some)")
    return out
