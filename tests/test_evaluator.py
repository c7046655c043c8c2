"""The evaluator: reference agents on every test of every built-in task, rewards,
metrics, users, results.json and the lean-import guarantee."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from domains.simtests import SimTest

ROOT = Path(__file__).resolve().parents[1]
MOCK_TASKS = ("_mock-records-only", "_mock-client-knows")


@pytest.fixture(scope="module")
def pack(mock_task_pack_copy):
    return mock_task_pack_copy


def _run(pack, task, agent, **kw):
    from outputs.evaluator.engine import EvalConfig, run_eval
    return run_eval(EvalConfig(pack=pack, task=task, agent=agent, **kw))


def _tests(pack, task):
    from outputs.packs.store import Pack
    return [SimTest.model_validate(t) for t in Pack(pack).json(task, "sealed", "tests.json")]


# --------------------------------------------------------------------------- reference agents

@pytest.mark.slow
@pytest.mark.parametrize("task", MOCK_TASKS)
def test_oracle_one_every_other_reference_agent_zero_on_sealed_tests(pack, task):
    """The sealing gate seals only tests that doing the job passes: the naive agent and the
    two adversaries fail every sealed test, in the sandbox as in the gate's in-process runs."""
    from outputs.packs.store import Pack
    runs = {a: _run(pack, task, a) for a in ("oracle", "null", "naive", "reciter", "guesser")}
    assert [c.reward for c in runs["oracle"].tests] == [1.0] * len(runs["oracle"].tests)
    for a in ("null", "naive", "reciter", "guesser"):
        assert [c.reward for c in runs[a].tests] == [0.0] * len(runs[a].tests), a
    assert not any(t.naive_passes for t in _tests(pack, task))
    recorded = json.loads(Pack(pack).read(task, "sealed", "task.json"))["reference"]
    assert recorded["mean"] == {a: r.summary.mean_reward for a, r in runs.items()}
    for r in runs.values():
        assert r.summary.infra_errors == 0 and r.summary.agent_errors == 0


def test_results_summary_fields_and_per_test_entries(pack):
    r = _run(pack, "_mock-client-knows", "oracle", trials=3)
    s = r.summary
    assert (s.final_score, s.mean_reward, s.penalty) == (1.0, 1.0, 0.0)
    assert s.pass_hat_k == {"1": 1.0, "2": 1.0, "3": 1.0}
    assert s.budget == {"medium": 0.05, "hard": 0.005}
    assert s.conversations == 3 * s.tests
    c = r.tests[0]
    assert set(c.breakdown) == {"DB", "COMMUNICATE", "PHRASING"}
    assert c.messages[0].role == "user" and c.messages[1].role == "assistant"
    assert c.facts and c.end == "user_stop"
    assert all(k.startswith("_mock.") for k in s.by_fact)


def test_reward_grades_the_replayed_database_not_the_agents_claims(pack):
    """The naive agent says 'I have done what you asked' and writes the wrong rental: DB fails."""
    r = _run(pack, "_mock-records-only", "naive")
    bad = [c for c in r.tests if c.breakdown["DB"].score == 0.0]
    assert bad and all(c.breakdown["DB"].detail["hash"] != c.breakdown["DB"].detail["expected"] for c in bad)
    assert all(any(x["committed"] for x in c.calls) for c in bad)


# --------------------------------------------------------------------------- metrics

def test_pass_hat_k_unbiased_estimator():
    from outputs.evaluator.metrics import pass_hat_k
    # one test 2/4 successes: pass^1 = 0.5, pass^2 = C(2,2)/C(4,2) = 1/6; another 4/4
    outcomes = {"a": [1, 0, 1, 0], "b": [1, 1, 1, 1]}
    assert pass_hat_k(outcomes, 1) == pytest.approx((0.5 + 1) / 2)
    assert pass_hat_k(outcomes, 2) == pytest.approx((1 / 6 + 1) / 2)
    assert pass_hat_k(outcomes, 4) == pytest.approx((0 + 1) / 2)
    with pytest.raises(ValueError):
        pass_hat_k(outcomes, 5)


def test_bootstrap_ci_is_seeded_and_brackets_the_mean():
    from outputs.evaluator.metrics import bootstrap_ci
    vals = [0, 1, 1, 0, 1, 1, 1, 0, 1, 1]
    a, b = bootstrap_ci(vals, seed=3), bootstrap_ci(vals, seed=3)
    assert a == b and a[0] < 0.7 < a[1] and 0 <= a[0] and a[1] <= 1
    assert bootstrap_ci([1.0] * 5) == (1.0, 1.0)


def test_final_score_budget_penalty_sums_over_tiers():
    from outputs.evaluator.metrics import budget_penalty, final_score
    budget = {"medium": 0.05, "hard": 0.005}
    assert budget_penalty(0.004, budget) == 0.0
    assert budget_penalty(0.01, budget) == pytest.approx(1.0)           # twice the hard budget
    assert final_score(0.9, 0.0075, budget) == pytest.approx(0.9 - 0.5)
    assert final_score(0.9, 0.1, budget) == 0.0                        # never negative


# --------------------------------------------------------------------------- rewards

def test_communicate_matches_numbers_by_value_not_substring():
    from outputs.evaluator.rewards import mentions
    assert mentions("The fee is $45.00 per hour.", "45")
    assert mentions("Refund of 1,200 is on its way", "1200")
    assert mentions("It is 24.99.", "24.99")
    assert not mentions("The fee is $145.00.", "45")
    assert not mentions("It takes 4.5 days.", "45")
    assert not mentions("at most 3", "30")
    assert mentions("Please visit a Branch Manager", "branch manager")
    assert not mentions("the managerial desk", "manager")


def _says(*infos: str):
    """A test that wants `infos` communicated (the rest of it does not matter to COMMUNICATE)."""
    from domains.simtests import Description, EvaluationCriteria, StructuredUserInstructions, TestExtras, UserScenario
    from domains.simtests import UserScript
    return SimTest(id="t", description=Description(purpose="p"),
                   user_scenario=UserScenario(instructions=StructuredUserInstructions(
                       domain="d", reason_for_call="r", task_instructions="i")),
                   evaluation_criteria=EvaluationCriteria(actions=[], communicate_info=list(infos)),
                   factforge=TestExtras(scenario="s", seed=0, initial_db_hash="a", expected_db_hash="a",
                                        naive_db_hash="a", trap="none", fact_ids=["f"],
                                        script=UserScript(opening="o", confirm="c", closing="x"), naive_actions=[]))


def _communicate(infos, *agent, heard=(), seen=()):
    from outputs.evaluator.rewards import score_communicate
    return score_communicate(_says(*infos), list(agent), heard=list(heard), seen=lambda: list(seen))


def test_communicate_4_percent_equals_4_0_percent():
    assert _communicate(["4.0%"], "Your certificate earns 4% APY.").score == 1.0
    assert _communicate(["4%"], "Your certificate earns 4.0% APY.").score == 1.0
    assert _communicate(["18.0%"], "The rate is 18 percent.").score == 1.0
    assert _communicate(["4%"], "Your certificate earns 4.5% APY.").score == 0.0


def test_communicate_4_gb_equals_4gb():
    for said in ("a 4GB pass", "a 4 GB pass", "4 gigabytes of data"):
        assert _communicate(["4 GB"], said).score == 1.0, said
    assert _communicate(["4GB"], "a 4 GB pass").score == 1.0
    assert _communicate(["4 GB"], "a 40GB pass").score == 0.0


def test_communicate_range_5_to_7_equals_5_7():
    for said in ("5-7 business days", "5 to 7 business days", "5–7 business days", "between 5 and 7 business days"):
        assert _communicate(["5 to 7"], said).score == 1.0, said
        assert _communicate(["5-7"], said).score == 1.0, said
    assert _communicate(["5-7"], "5 business days").score == 0.0


def test_communicate_dates_in_three_forms():
    for said in ("due on 2026-03-05", "due on March 5, 2026", "due on 5 March 2026", "due on Mar 5",
                 "due on the 5th of March 2026"):
        assert _communicate(["2026-03-05"], said).score == 1.0, said
        assert _communicate(["March 5, 2026"], said).score == 1.0, said
    assert _communicate(["2026-03-05"], "due on March 6, 2026").score == 0.0


def test_communicate_money_forms_never_a_neighbour():
    for said in ("$45", "$45.00", "45 dollars", "USD 45"):
        assert _communicate(["45"], f"The fee is {said}.").score == 1.0, said
    for said in ("$145", "$4.50", "4.5"):
        assert _communicate(["45"], f"The fee is {said}.").score == 0.0, said


def test_communicate_wrong_value_beside_the_right_one_fails():
    c = _communicate(["45"], "The restocking fee is $45.00, or $60 for furniture.")
    assert c.score == 0.0 and c.detail["wrong"] == ["$60"] and c.detail["missing"] == []
    assert _communicate(["4%"], "Our certificates pay 4% or 4.25% APY.").score == 0.0
    assert _communicate(["30 days"], "Returns take 30 days, electronics 14 days.").score == 0.0
    assert _communicate(["3"], "You may rent at most 3 bikes, a family 5 bikes.").score == 0.0
    # the whole policy's numbers, the gold among them
    policy = "The security deposit is $50 per bike. The late fee is $12 for each started hour. Waivers above $60 ..."
    assert _communicate(["50"], "I cannot do that. Here is our policy: " + policy).score == 0.0


def test_communicate_grounded_extra_value_passes():
    said = "Your order total was $120.00; the restocking fee is $45.00."
    assert _communicate(["45"], said).score == 0.0                                  # $120 from nowhere
    assert _communicate(["45"], said, seen=["120"]).score == 1.0                      # a tool result's number
    assert _communicate(["45"], said, heard=["I paid $120 for it."]).score == 1.0     # the user said it
    # other kinds are not checked: a duration beside a money gold, a bare number, a step number
    assert _communicate(["45"], "The fee is $45.00; your refund arrives in 5 business days. Step 2: ...").score == 1.0


def test_communicate_grounds_on_the_agents_tool_results():
    from outputs.evaluator.rewards import result_texts
    from domains.variants import resolve
    w = resolve("_mock")
    db = w.database(0)
    rental = next(r for r in db["rentals"].values() if r["late_fee"])
    seen = result_texts(w.api(), db, [{"operation": "get_rental", "arguments": {"rental_id": rental["id"]},
                                        "status": 200, "committed": False}])
    fee = rental["late_fee"]
    said = f"You were charged ${fee:.2f}; the hourly late fee is $12.00."
    assert _communicate(["12"], said).score == 0.0
    assert _communicate(["12"], said, seen=seen).score == 1.0


def test_phrasing_component_fails_on_a_violation(pack):
    from outputs.evaluator.engine import TaskContext
    from outputs.evaluator.rewards import score_phrasing
    ctx = TaskContext.load(pack, "_mock-client-knows")
    ok = score_phrasing(ctx.rules, ["Thank you for contacting Pedalwise Rentals. The fee is $12.00."], ctx.brand)
    bad = score_phrasing(ctx.rules, ["Hi. I guarantee a refund of $12."], ctx.brand)
    assert ok.score == 1.0 and bad.score == 0.0
    assert {v["rule"] for v in bad.detail["violations"]} == {"greet-with-brand", "money-two-decimals", "no-promises"}


def _nl_test(pack):
    t = _tests(pack, "_mock-records-only")[0]
    t = t.model_copy(deep=True)
    t.evaluation_criteria.nl_assertions = ["The agent refuses politely.", "The agent names the limit."]
    return t


@pytest.mark.parametrize("verdict,score", [
    ('{"results": [{"index": 1, "met": true, "reason": "ok"}, {"index": 2, "met": true, "reason": "ok"}]}', 1.0),
    ('{"results": [{"index": 1, "met": true, "reason": "ok"}, {"index": 2, "met": false, "reason": "no"}]}', 0.0),
    ("", 0.0),                                                          # empty verdict fails
    ("Looks fine to me!", 0.0),                                         # malformed
    ('{"results": [{"index": 1, "met": true}]}', 0.0),                  # does not cover every assertion
    ('{"results": [{"index": 1, "met": "yes"}, {"index": 2, "met": true}]}', 0.0),
])
def test_nl_judge_through_litellm_mock(pack, verdict, score):
    from outputs.evaluator.rewards import score_nl
    msgs = [{"role": "user", "content": "4 bikes please"}, {"role": "assistant", "content": "At most 3, sorry."}]
    c = score_nl(_nl_test(pack), msgs, "openai/gpt-4o-mini", mock_response=verdict)
    assert c.score == score
    assert c.detail["usage"] == {"prompt_tokens": 10, "completion_tokens": 20}   # cost recorded either way
    if score == 0.0 and verdict in ("", "Looks fine to me!"):
        assert "malformed" in c.detail["error"]


def test_nl_assertions_in_the_basis_need_a_judge(pack, monkeypatch):
    from facts.errors import FactforgeError
    from outputs.evaluator import engine
    orig = engine.TaskContext.load

    def load(*a, **k):
        ctx = orig(*a, **k)
        for t in ctx.tests:
            t.evaluation_criteria.nl_assertions = ["The agent is polite."]
            t.evaluation_criteria.reward_basis = ["DB", "NL_ASSERTION"]
        return ctx
    monkeypatch.setattr(engine.TaskContext, "load", classmethod(lambda cls, *a, **k: load(*a, **k)))
    with pytest.raises(FactforgeError, match="--judge"):
        _run(pack, "_mock-records-only", "oracle")
    ok = '{"results": [{"index": 1, "met": true, "reason": "polite"}]}'
    r = _run(pack, "_mock-records-only", "oracle", judge="openai/gpt-4o-mini", judge_mock_response=ok)
    assert r.summary.mean_reward == 1.0 and all("NL_ASSERTION" in c.breakdown for c in r.tests)


# --------------------------------------------------------------------------- users

def test_scripted_user_is_deterministic_and_stops(pack):
    from outputs.evaluator.users import ScriptedUser
    t = next(t for t in _tests(pack, "_mock-records-only") if t.factforge.script.pushback)

    def talk():
        u = ScriptedUser(t.factforge.script)
        said = [u.first()]
        for agent in ("Sorry, I cannot rent you 4 bikes.", "The limit is 3 bikes.", "Anything else?"):
            if u.stopped:
                break
            said.append(u.respond(agent))
        return said, u.stopped
    a, b = talk(), talk()
    assert a == b and a[1]
    assert a[0][1] == t.factforge.script.pushback                       # pushes back once on a refusal
    assert a[0][-1].endswith("###STOP###")


def test_scripted_user_step_limit(pack):
    from outputs.evaluator.users import ScriptedUser
    t = _tests(pack, "_mock-records-only")[0]
    s = t.factforge.script.model_copy(update={"max_turns": 2})
    u = ScriptedUser(s)
    u.first()
    assert u.respond("Would you like me to go ahead?").endswith("###STOP###") and u.stopped


def test_llm_user_through_litellm_mock(pack):
    from outputs.evaluator.users import LlmUser
    t = _tests(pack, "_mock-records-only")[0]
    u = LlmUser(t, "openai/gpt-4o-mini", mock_response="Thanks, bye! ###STOP###")
    assert u.first() == t.factforge.script.opening
    assert u.respond("At most 3 bikes.") == "Thanks, bye! ###STOP###" and u.stopped
    assert "known" in u.history[0]["content"].lower() or t.user_scenario.instructions.reason_for_call in u.history[0]["content"]
    r = _run(pack, "_mock-records-only", "oracle", user="llm", user_model="openai/gpt-4o-mini",
             user_mock_response="Great, thanks. ###STOP###")
    assert r.summary.mean_reward == 1.0 and r.run.user == "llm"


# --------------------------------------------------------------------------- command and imports

@pytest.mark.slow
def test_eval_command_writes_results_json(pack, tmp_path):
    from outputs.packs.spec import load_spec
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    p = subprocess.run([sys.executable, "-m", "pipeline.cli", "eval", str(pack), "--task", "_mock-records-only",
                        "--agent", "null", "--out", str(tmp_path / "o")],
                       capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert p.returncode == 0, p.stderr
    data = json.loads((tmp_path / "o" / "results.json").read_text())
    assert set(data["summary"]) >= {"final_score", "mean_reward", "penalty", "pass_hat_k", "ci", "credits_mean",
                                    "budget", "infra_errors"}
    n_tests = len(load_spec(ROOT / "domains/_mock/tasks/_mock-records-only.toml").spec.ids.test)
    assert data["summary"]["final_score"] == 0.0 and n_tests >= 3
    assert data["run"]["trials"] == 3 and len(data["tests"]) == 3 * n_tests     # three trials by default
    assert set(data["summary"]["pass_hat_k"]) == {"1", "2", "3"}
    assert data["summary"]["templates"] == len(data["summary"]["by_template"]) == n_tests
    report = (tmp_path / "o" / "report.html").read_text()
    assert report.count("<svg") == 3 and "final score 0.0000" in report
    assert all(t["id"] in report for t in data["tests"])
    bad = subprocess.run([sys.executable, "-m", "pipeline.cli", "eval", str(pack), "--task", "nope", "--agent", "null"],
                         capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert bad.returncode == 1 and "no task 'nope'" in bad.stderr and "Traceback" not in bad.stderr


def test_evaluator_imports_no_dagster_and_no_media_library():
    code = ("import sys, outputs.evaluator.engine, outputs.evaluator.cli, outputs.evaluator.users, "
            "outputs.evaluator.rewards, outputs.evaluator.metrics\n"
            "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('dagster', 'moviepy', 'PIL', 'reportlab', "
            "'pytesseract', 'pocketsphinx', 'cv2', 'imageio', 'matplotlib', 'pypdf', 'openpyxl', 'litellm', 'numpy'))\n"
            "print(bad)")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env={"PYTHONPATH": str(ROOT)},
                       timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "[]"


def test_kit_agent_contract_states_what_the_evaluator_enforces(pack):
    """The kit's AGENT_CONTRACT.md (what a developer agent reads) names the limits and rules
    the evaluator applies: interpreter, mounts, sockets, fresh process per conversation, step
    timeout, CPU and memory limits from the task, the gateway's refusals with their codes."""
    import inspect

    from outputs.evaluator import gateway, sandbox
    from outputs.evaluator.engine import EvalConfig
    from outputs.packs.store import Pack
    p = Pack(pack)
    for t in MOCK_TASKS:
        text = " ".join(p.read(t, "kit", "AGENT_CONTRACT.md").decode("utf-8").split())
        limits = p.json(t, "sealed", "task.json")["spec"]["sandbox"]
        cfg = EvalConfig(pack=pack, task=t, agent="null")
        for phrase in ("python3 -S", "`/workspace`", "`/kit`", "`/tmp`", "http+unix://", "new process",
                       "create_agent()` (no argument)", "JSON-serialisable",
                       f"{cfg.step_timeout_s:g} seconds",
                       f"{int(limits['cpus'] * cfg.step_timeout_s)} CPU-seconds per conversation",
                       f"{limits['memory_gb']:g} GB"):
            assert phrase in text, (t, phrase)
        from outputs.evaluator.users import NOT_SURE
        assert NOT_SURE in text and "`###STOP###`" in text and "never ends the conversation" in text  # the customers
        for status, code in ((403, "model_not_allowed"), (429, "call_limit"), (422, "invalid_argument"),
                             (422, "context_window_exceeded")):
            assert f"{status} `{code}`" in text
            assert f'_err({status}, "{code}"' in inspect.getsource(gateway)     # the gateway really answers so
    env = sandbox.Sandbox._env(None, "/kit", "/workspace", "/run/factforge", "/opt/factforge")
    assert env["FACTFORGE_KIT"] == "/kit" and env["HOME"] == "/tmp" and env["PYTHONPATH"].startswith("/workspace:/kit/sdk")
    assert sandbox.PYTHON.endswith("python3")
