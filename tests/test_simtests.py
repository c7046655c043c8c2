"""Held-out simulations: the tau2-shaped model, sealing (gold replay, domain check, the
do-nothing and naive agents), and the airline suite's quotas."""
from __future__ import annotations

import json

import pytest

from domains import get_pack
from domains.apikit import copy_db, db_hash
from domains.simtests import (Action, Scenario, ScenarioContext, SimTest, UserScenario, seal, suite_problems)
from domains.variants import resolve
from facts.errors import FactforgeError
from tests.conftest import tau2_data

TAU2_TASK_FIELDS = {"id", "description", "user_scenario", "initial_state", "evaluation_criteria"}


BUILT_IN = ["airline", "retail", "telecom", "banking"]
MIN_TESTS = {"airline": 60, "retail": 60, "telecom": 60, "banking": 150}


# a built-in domain's suite takes from seconds (telecom) to minutes (banking) to generate and check
@pytest.fixture(scope="module", params=[pytest.param(d, marks=pytest.mark.end_to_end) for d in BUILT_IN])
def built(request, sim_suite):
    """(world, seed database, its held-out suite): the suite generated once per run (shared
    with the guard's and the other tests' of the same world and seed)."""
    w = resolve(request.param)
    return w, w.database(0), sim_suite(request.param, 0)


def test_mock_suite_and_tau2_shape(mock_pack):
    w = resolve("_mock")
    suite = w.test_suite(0)
    assert suite.summary.tests == 9 and suite.summary.naive_passes == 1
    for t in suite.tests:
        task = t.tau2()
        assert set(task) == TAU2_TASK_FIELDS
        assert set(task["evaluation_criteria"]) == {"actions", "communicate_info", "nl_assertions", "reward_basis"}
        assert set(task["user_scenario"]["instructions"]) == {"domain", "reason_for_call", "known_info",
                                                               "unknown_info", "task_instructions"}
        assert SimTest.model_validate_json(t.model_dump_json()) == t
    assert w.test_suite(0).hash == suite.hash


def test_real_tau2_tasks_fit_our_task_parts():
    """The real tau2-bench tasks' user scenarios and actions parse into our models: the
    fields map one to one."""
    for domain in ("airline", "retail"):
        tasks = json.loads(tau2_data(domain, "tasks.json").read_text(encoding="utf-8"))
        for t in tasks:
            UserScenario.model_validate(t["user_scenario"])
            for a in t["evaluation_criteria"].get("actions") or []:
                Action.model_validate({k: v for k, v in a.items() if v is not None or k == "info"})


def _ctx(name: str):
    w = resolve(name)
    from domains.simtests import FactIndex
    from domains.value_feeds import resolve_value_facts
    pack, db = w.pack, w.database(0)
    values = pack.code.merged_values()
    return ScenarioContext(pack=pack, db=db, values=values, facts=FactIndex(pack.facts, resolve_value_facts(pack, pack.facts)),
                           api=pack.api(values), seed=0), w


def test_seal_refuses_tests_a_null_or_naive_agent_passes():
    ctx, w = _ctx("_mock")
    fact = ctx.facts.value("max_bikes")
    h0 = db_hash(ctx.db)

    def draft(**kw):
        base = dict(slug="x", trap="none", purpose="p", reason="r", opening="o", gold=[], naive=[], facts=[fact])
        return Scenario(**{**base, **kw})

    with pytest.raises(FactforgeError, match="do-nothing agent would pass"):
        seal(draft(), ctx, w.check_database, h0, "_mock")
    waive = ("waive_late_fee", {"rental_id": "PW2001", "amount": 19.2})
    with pytest.raises(FactforgeError, match="trap that the naive agent passes"):
        seal(draft(trap="fee", gold=[waive], naive=[waive]), ctx, w.check_database, h0, "_mock")
    with pytest.raises(FactforgeError, match="breaks the domain check"):
        seal(draft(gold=[("start_rental", {"customer_id": "CU1000", "bikes": 1, "deposit": 5})]), ctx,
             w.check_database, h0, "_mock")
    with pytest.raises(FactforgeError, match="gold action 0 .* failed: not_found"):
        seal(draft(gold=[("get_rental", {"rental_id": "NOPE"})], communicate=["x"]), ctx, w.check_database, h0,
             "_mock")
    t = seal(draft(gold=[waive], naive=[], communicate=[]), ctx, w.check_database, h0, "_mock")
    assert t.factforge.expected_db_hash != h0 == t.factforge.naive_db_hash and not t.naive_passes


@pytest.mark.slow
def test_suites_meet_their_quotas(built):
    w, db, suite = built
    s = suite.summary
    q = w.base.code.test_quota
    assert s.tests >= q.min_tests >= MIN_TESTS[w.base.name] and s.trap_share >= q.min_trap_share >= 0.4
    if w.base.name != "banking":
        assert q.full_value_coverage and s.numeric_fact_coverage == 1.0 and s.uncovered_numeric_facts == []
    assert 0 < s.naive_passes < s.tests
    assert set(s.by_trap) >= {"none", "refuse", "fee", "transfer"}
    problems = suite_problems(suite, w.api(), db, w.check_database, w.base.code.test_quota)
    assert all(v == [] for v in problems.values()), problems


@pytest.mark.slow
def test_tests_fail_the_null_agent_and_replay_on_fresh_copies(built):
    """The naive actions replay to their sealed hash on a fresh copy (the gold's replay to its
    hash is `suite_problems`' check, in the quota test above)."""
    w, db, suite = built
    api = w.api()
    h0 = db_hash(db)
    for t in suite.tests:
        assert t.factforge.expected_db_hash != h0 or t.evaluation_criteria.communicate_info, t.id
        if t.factforge.trap != "none":
            assert not t.naive_passes, t.id
        naive = copy_db(db)
        assert all(r.ok for r in api.replay(naive, t.naive_calls()))
        assert db_hash(naive) == t.factforge.naive_db_hash
    assert db_hash(db) == h0


def test_tests_carry_a_scripted_user_and_real_facts(built):
    w, _, suite = built
    facts = w.factset().by_id()
    for t in suite.tests:
        assert t.factforge.script.opening and t.factforge.fact_ids
        assert all(f in facts for f in t.factforge.fact_ids)
        assert t.description.relevant_policies.count("\n- ") + 1 == len(t.factforge.fact_ids)
    fees = [t for t in suite.tests if t.factforge.trap == "fee"]
    assert fees and all(t.factforge.expected_db_hash != t.factforge.naive_db_hash for t in fees)


def test_what_the_scripted_user_answers_the_llm_user_knows(built):
    """The same knowledge for both users: every scripted answer is in `known_info`, the
    one-time codes included; returns and certificates answer what the policy makes the agent
    ask."""
    w, _, suite = built
    code = {"telecom": "482913", "banking": "731904"}.get(w.base.name)
    for t in suite.tests:
        known = t.user_scenario.instructions.known_info or ""
        assert all(a.reply in known for a in t.factforge.script.answers), t.id
        if code:
            assert code in known, t.id
        ops = {a.name for a in t.evaluation_criteria.actions}
        topics = {a.topic for a in t.factforge.script.answers}
        if "request_return" in ops:
            assert {"return_reason", "condition", "refund_destination"} <= topics, t.id
        if "open_certificate" in ops:
            assert "maturity" in topics, t.id
        if "cancel_reservation" in ops:
            assert "cancel_reason" in topics, t.id


@pytest.mark.end_to_end
def test_airline_fee_trap_charges_what_the_policy_says(sim_suite):
    suite = sim_suite("airline", 0)
    fee = next(t for t in suite.tests if t.factforge.scenario == "cancel-main-fee")
    args = fee.evaluation_criteria.actions[-1].arguments
    naive = fee.factforge.naive_actions[-1].arguments
    assert sum(x["amount"] for x in args["refunds"]) < sum(x["amount"] for x in naive["refunds"])


def test_pack_without_api_has_no_tests(tmp_path):
    from domains.tau2 import import_tau2_domain
    import_tau2_domain(tau2_data("retail"), "tau2_retail_t", tmp_path)
    from domains import load_pack
    pack = load_pack(tmp_path / "tau2_retail_t")
    assert pack.api() is None
    from domains.simtests import build_suite
    suite = build_suite(pack, pack.database(0), pack.facts, {}, 0)
    assert suite.tests == [] and suite.summary.tests == 0
    assert get_pack("airline").api() is not None
