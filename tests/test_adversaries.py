"""The adversarial reference agents (policy reciter, confident guesser), their in-process runs
and the sealing gate that refuses tests any reference agent but the oracle passes."""
from __future__ import annotations

from pathlib import Path

import pytest

from outputs.evaluator.adversaries import REFUSAL, guess_reply, recital, wrong_value


@pytest.mark.parametrize("value, wrong", [
    ("45", "54"), ("24.99", "29.99"), ("4.0%", "4.8%"), ("20%", "24%"), ("4 GB", "5 GB"), ("1,200", "1,440"),
    ("5 business days", "6 business days"), ("2026-03-05", "2026-03-06"), ("HAT123", "HAT148"), ("0", "1"),
])
def test_a_guess_is_a_different_value_of_the_same_shape(value, wrong):
    assert wrong_value(value) == wrong


def test_a_value_without_a_digit_is_left_unsaid():
    assert wrong_value("branch manager") is None
    assert guess_reply(["branch manager", "45"]) == "I have done what you asked. The figures that apply: 54."


def test_the_recital_quotes_every_statement_after_the_refusal():
    text = recital(["A customer may rent at most 3 bikes.", "The deposit is $50."])
    assert text.splitlines() == [REFUSAL, "- A customer may rent at most 3 bikes.", "- The deposit is $50."]


@pytest.fixture(scope="module")
def suite():
    from outputs.evaluator.engine import SuiteContext
    return SuiteContext.from_world("_mock", 1)


@pytest.mark.slow
def test_in_process_reference_runs_score_as_the_sandboxed_evaluator(suite):
    """The gate's in-process runs give, test by test, the rewards `factforge eval` gives."""
    from outputs.evaluator.engine import EvalConfig, REFERENCE_AGENTS, run_eval
    from outputs.evaluator.referee import reference_rewards
    fast = reference_rewards(suite, suite.tests, REFERENCE_AGENTS)
    for agent in REFERENCE_AGENTS:
        r = run_eval(EvalConfig(pack=Path("."), task=suite.task_id, agent=agent, isolation="process"), ctx=suite)
        assert {c.id: c.reward for c in r.tests} == {t: v[agent] for t, v in fast.items()}, agent
        assert r.summary.infra_errors == 0 and r.summary.agent_errors == 0


def test_the_gate_names_why_it_refuses(suite):
    from outputs.packs.gate import Gate
    why = {t.factforge.scenario: Gate(suite).why(t) for t in suite.tests}
    assert why["too-many-bikes"] == "the policy reciter passes it"      # no write, the limit is in the policy
    # the customer asks for a waiver the policy allows: doing what is asked is right, a plain test
    assert why["waive-small-fee"] is None
    assert [t.factforge.scenario for t in suite.tests if Gate(suite).plain(t)] == ["waive-small-fee"]
    # no write, but the refund timing must be said right: neither the naive agent nor a reciter says it
    assert why["deposit-refund-timing"] is None
    assert why["rent-the-maximum"] is None and why["rent-one-bike"] is None


def test_the_gate_refuses_a_trap_the_naive_agent_passes_and_a_guess_that_passes():
    from types import SimpleNamespace as NS

    from outputs.packs.gate import refusal
    ok = {"oracle": 1.0, "null": 0.0, "naive": 0.0, "reciter": 0.0, "guesser": 0.0}
    trap = NS(factforge=NS(trap="refuse", naive_db_hash="a", expected_db_hash="b"))
    quiet_trap = NS(factforge=NS(trap="refuse", naive_db_hash="a", expected_db_hash="a"))
    plain = NS(factforge=NS(trap="none", naive_db_hash="a", expected_db_hash="a"))
    assert refusal(trap, ok) is None
    assert refusal(trap, {**ok, "naive": 1.0, "guesser": 1.0}) == "a trap the naive agent passes"
    assert refusal(quiet_trap, ok) == "a trap whose gold is the naive outcome"
    assert refusal(plain, {**ok, "naive": 1.0, "guesser": 1.0}) is None
    assert refusal(plain, {**ok, "guesser": 1.0}) == "the confident guesser passes it"


def test_a_task_keeps_at_most_its_share_of_plain_tests():
    from types import SimpleNamespace as NS

    from outputs.packs.pin import tests_with_plain_share
    from outputs.packs.select import choose, plain_cap
    sims = {f"s{i}": NS(id=f"s{i}", factforge=NS(fact_ids=[])) for i in range(40)}

    def plain(t):
        return int(t.id[1:]) % 3 == 0                       # s0, s3, s6, ... are plain

    pinned = [f"s{i}" for i in range(20)]                    # seven of them plain
    ch = choose("t", {"training": [], "live": [], "test": pinned}, {}, sims, set(), set(), set(),
                lambda t: None, plain)
    assert len(ch.tests) == 20 and sum(map(plain, ch.tests)) == plain_cap(20) == 2 and not ch.problems
    assert [r["pinned"] for r in ch.replaced["test"]] == ["s6", "s9", "s12", "s15", "s18"]
    assert all("a plain test over the task's share" in r["why"] for r in ch.replaced["test"])
    assert not any(plain(sims[r["chosen"]]) for r in ch.replaced["test"])
    got = tests_with_plain_share(list(sims.values()), plain)   # 26 not plain, 14 plain
    assert len(got) == 28 and sum(map(plain, got)) == 2 <= plain_cap(len(got))


def test_learnable_selection_replaces_a_refused_test(suite):
    from outputs.packs.gate import Gate
    from outputs.packs.select import choose
    by = {t.id: t for t in suite.tests}
    refused = next(t.id for t in suite.tests if t.factforge.scenario == "too-many-bikes")
    all_facts = {f for t in suite.tests for f in t.factforge.fact_ids}
    ch = choose("a-task", {"training": [], "live": [], "test": [refused]}, {}, by, all_facts, all_facts, set(),
                Gate(suite).why)
    (rep,) = ch.replaced["test"]
    assert rep["pinned"] == refused and rep["why"] == "refused by the sealing gate: the policy reciter passes it"
    assert Gate(suite).why(by[rep["chosen"]]) is None and not ch.problems


@pytest.mark.slow
def test_pack_check_refuses_a_pinned_test_the_gate_refuses(tmp_path, monkeypatch):
    import shutil

    from typer.testing import CliRunner

    from outputs.packs.cli import app
    root = Path(__file__).resolve().parents[1]
    pack_dir = tmp_path / "domains" / "_mock"
    shutil.copytree(root / "domains" / "_mock", pack_dir, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setenv("FACTFORGE_DOMAINS_DIR", str(tmp_path / "domains"))
    spec = pack_dir / "tasks" / "_mock-records-only.toml"
    spec.write_text(spec.read_text().replace("_mock.rent-2-bikes.635d0338d3", "_mock.too-many-bikes.706584463b"))
    r = CliRunner().invoke(app, ["check", "--domain", "_mock", "--workspace", str(tmp_path / "ws")])
    assert r.exit_code == 1, r.output
    assert "_mock.too-many-bikes.706584463b: refused by the sealing gate: the policy reciter passes it" in r.output
