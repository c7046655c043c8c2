"""End-to-end evaluation runs: agents in the sandbox, the task's API served by outputs.api
behind a deployment's defects, the model gateway metering credits (litellm mock responses)."""
from __future__ import annotations

from pathlib import Path

import pytest

AGENTS = Path(__file__).resolve().parent / "agents"
TASK = "_mock-client-knows"


@pytest.fixture(scope="module")
def pack(mock_task_pack_copy):
    return mock_task_pack_copy


def _run(pack, agent, task=TASK, **kw):
    from outputs.evaluator.engine import EvalConfig, run_eval
    return run_eval(EvalConfig(pack=pack, task=task, agent=str(agent), **kw))


@pytest.mark.slow
@pytest.mark.parametrize("deployment", ["flaky-shop", "legacy-shop"])
def test_reference_agents_under_every_mock_deployment(pack, deployment):
    oracle = _run(pack, "oracle", deployment=deployment, trials=2)
    assert oracle.run.deployment == deployment
    assert [c.reward for c in oracle.tests] == [1.0] * len(oracle.tests)
    assert sum(sum(c.defects_hit.values()) for c in oracle.tests) > 0          # the defects were met and coped with
    null = _run(pack, "null", deployment=deployment)
    assert [c.reward for c in null.tests] == [0.0] * len(null.tests)
    naive = _run(pack, "naive", deployment=deployment)
    assert [c.reward for c in naive.tests] == [0.0] * len(naive.tests)        # the sealing gate admits no naive pass


def test_llm_agent_through_the_gateway_is_metered(pack):
    from outputs.packs.menu import load_menu
    r = _run(pack, AGENTS / "llm_agent.py", gateway_mock_response="Thank you for contacting Pedalwise Rentals.")
    menu = load_menu("standard-1").menu
    c = r.tests[0]
    assert c.error is None and c.infra_error is None
    assert "(refused: [403, 'model_not_allowed'])" in c.messages[1].content     # a model off the task's menu
    calls = sum(1 for m in c.messages if m.role == "assistant")
    assert [u.model for u in c.usage] == ["mid-fast"] * calls
    assert c.credits == pytest.approx(calls * menu.credits("mid-fast", 10, 20))
    assert r.summary.credits_mean == pytest.approx(sum(x.credits for x in r.tests) / len(r.tests))
    assert r.summary.penalty == 0.0


def test_failed_conversation_counts_at_its_real_cost(pack):
    from outputs.packs.menu import load_menu
    r = _run(pack, AGENTS / "llm_crash_agent.py", gateway_mock_response="hello")
    want = load_menu("standard-1").menu.credits("mid-fast", 10, 20)
    for c in r.tests:
        assert c.reward == 0.0 and c.end == "agent_error" and "crashed after the model call" in c.error
        assert c.credits == pytest.approx(want)
    assert r.summary.agent_errors == len(r.tests) and r.summary.credits_mean == pytest.approx(want)


def test_over_budget_is_penalised(pack):
    import litellm
    big = litellm.ModelResponse(choices=[{"message": {"role": "assistant", "content": "ok"}}],
                                usage={"prompt_tokens": 100_000, "completion_tokens": 0, "total_tokens": 100_000})
    r = _run(pack, AGENTS / "llm_agent.py", gateway_mock_response=big, tests=None)
    s = r.summary
    # mid-fast: 100k prompt tokens x 0.5 / 1e6 = 0.05 credits per call; budgets medium 0.05, hard 0.005
    per_conv = [c.credits for c in r.tests]
    assert all(x >= 0.05 for x in per_conv)
    want = max(0, s.credits_mean / 0.05 - 1) + max(0, s.credits_mean / 0.005 - 1)
    assert s.penalty == pytest.approx(want, rel=1e-6) and s.penalty >= 9.0   # 0.05 is 10x the hard budget
    assert s.final_score == max(0.0, s.mean_reward - s.penalty) == 0.0


def test_response_without_usage_is_an_infra_error_never_dropped(pack):
    import litellm
    no_usage = litellm.ModelResponse(choices=[{"message": {"role": "assistant", "content": "ok"}}], usage=None)
    r = _run(pack, AGENTS / "llm_agent.py", gateway_mock_response=no_usage)
    assert r.summary.infra_errors == len(r.tests) == r.summary.conversations
    assert all(c.reward == 0.0 and "without token usage" in c.infra_error for c in r.tests)
    assert r.summary.mean_reward == 0.0


def test_step_limit_ends_the_conversation(pack):
    r = _run(pack, "oracle", max_steps=2)
    assert {c.end for c in r.tests} == {"step_limit"}
    assert all(len(c.messages) == 2 for c in r.tests)


def test_unknown_agent_path_is_one_clear_error(pack, tmp_path):
    from facts.errors import FactforgeError
    with pytest.raises(FactforgeError, match="no such agent"):
        _run(pack, tmp_path / "missing.py")
    (tmp_path / "empty").mkdir()
    with pytest.raises(FactforgeError, match="must hold agent.py"):
        _run(pack, tmp_path / "empty")


@pytest.mark.slow
@pytest.mark.parametrize("deployment", ["clean", "flaky-shop", "legacy-shop"])
def test_whole_mock_suite_without_a_pack(deployment):
    """Every test of the _mock suite (the pool tasks draw from), no pack: the oracle passes
    all, null none, naive exactly the suite's naive passes."""
    from outputs.evaluator.engine import EvalConfig, SuiteContext, run_eval
    ctx = SuiteContext.from_world("_mock", 0, deployment)
    res = {a: run_eval(EvalConfig(pack=Path("."), task=ctx.task_id, agent=a), ctx=ctx) for a in ("oracle", "null", "naive")}
    assert [c.reward for c in res["oracle"].tests] == [1.0] * len(ctx.tests)
    assert [c.reward for c in res["null"].tests] == [0.0] * len(ctx.tests)
    assert {c.id for c in res["naive"].tests if c.reward == 1.0} == {t.id for t in ctx.tests if t.naive_passes}
    assert res["oracle"].run.deployment == deployment


@pytest.mark.slow
def test_busy_agent_is_stopped_by_the_cpu_limit_and_scored_as_its_failure(pack):
    """A busy-looping agent passes the conversation's CPU budget long before the step's wall
    clock limit: the sandbox is stopped, the conversation scores 0 as the agent's error, and
    nothing is counted as an infrastructure error."""
    from outputs.evaluator.engine import TaskContext
    tests = [t.id for t in TaskContext.load(pack, TASK).tests][:2]
    r = _run(pack, AGENTS / "busy_agent.py", tests=tests, cpu_seconds=1.0, step_timeout_s=90.0)
    assert [c.id for c in r.tests] == tests
    for c in r.tests:
        assert c.reward == 0.0 and c.end == "agent_error" and c.infra_error is None
        assert "CPU limit" in c.error and c.seconds < 60
    assert r.summary.agent_errors == len(tests) and r.summary.infra_errors == 0
    assert r.run.limits["cpu_seconds"] == 1.0


def test_cpu_budget_defaults_to_the_tasks_cpus_for_one_reply(pack):
    r = _run(pack, "null", step_timeout_s=30.0)
    from outputs.packs.store import Pack
    cpus = Pack(pack).json(TASK, "sealed", "task.json")["spec"]["sandbox"]["cpus"]
    assert r.run.limits == {"cpu_seconds": cpus * 30.0, "step_timeout_s": 30.0,
                            "memory_gb": Pack(pack).json(TASK, "sealed", "task.json")["spec"]["sandbox"]["memory_gb"]}
