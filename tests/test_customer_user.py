"""The offline customer behaves like one: a careful agent that asks what the policy makes it
ask (the reason, the item's condition, where the refund goes, the maturity choice, the
one-time code) before acting is answered or told "not sure", never cut off, and reaches the
oracle's outcome; the scripted and the LLM user know the same things."""
from __future__ import annotations

from pathlib import Path

import pytest

from domains.apikit import Call
from outputs.evaluator.engine import EvalConfig, SuiteContext, converse, grade
from outputs.evaluator.users import NOT_SURE, ScriptedUser

QUESTIONS = (
    "Could you tell me the reason for your request?",
    "What condition is the item in?",
    "Where would you like the refund to go: your original payment method or Row Credit?",
    "What would you like to happen to the certificate at maturity?",
    "Please read me the one-time code we just sent to your phone.",
    "Could you give me your customer id?",
)


class _Backend:
    """The calls an in-process agent made, shaped like the evaluator's API backend."""

    def __init__(self, api):
        self.api, self.calls = api, []

    @property
    def log(self):
        writes = set(self.api.catalog.writes())
        return [{"operation": c.name, "arguments": c.arguments, "status": 200, "committed": c.name in writes}
                for c in self.calls]

    def committed(self):
        writes = set(self.api.catalog.writes())
        return [c for c in self.calls if c.name in writes]


class CarefulAgent:
    """Asks every question before acting, asks for a go-ahead, then makes the gold calls and
    states what the test wants said (the oracle's outcome, reached the careful way)."""

    def __init__(self, test, backend):
        self.test, self.backend = test, backend
        self.todo = list(QUESTIONS) + ["Shall I go ahead with that?"]
        self.heard: list[tuple[str, str]] = []
        self.acted_after_stop = False

    def step(self, user_text: str) -> str:
        if self.heard:
            self.heard[-1] = (self.heard[-1][0], user_text)
        if self.todo:
            q = self.todo.pop(0)
            self.heard.append((q, ""))
            return q
        self.backend.calls = list(self.test.gold_calls())
        info = self.test.evaluation_criteria.communicate_info
        return "All done under our policy." + (f" The figures that apply: {', '.join(info)}." if info else "")


def _careful_run(ctx, test):
    backend = _Backend(ctx.api)
    agent = CarefulAgent(test, backend)
    user = ScriptedUser(test.factforge.script)
    messages, end, err, infra = converse(agent, user, max_steps=40)
    comps = grade(test, ctx, EvalConfig(pack=Path("."), task=ctx.task_id, agent="careful"), messages, backend)
    return agent, messages, end, comps


@pytest.fixture(scope="module", params=["_mock", "retail"])
def suite_ctx(request):
    return SuiteContext.from_world(request.param, 0)


@pytest.mark.slow
def test_a_careful_agent_is_never_cut_off_and_scores_like_the_oracle(suite_ctx):
    for test in suite_ctx.tests:
        agent, messages, end, comps = _careful_run(suite_ctx, test)
        assert end == "user_stop" and not agent.todo, (test.id, [m.content for m in messages])
        assert "###STOP###" in messages[-1].content and messages[-2].role == "assistant"
        assert messages[-2].content.startswith("All done"), test.id      # stopped only after the outcome
        assert all(v.score == 1.0 for v in comps.values()), (test.id, {k: v.detail for k, v in comps.items()})


@pytest.mark.slow
def test_return_questions_get_the_customers_answers():
    ctx = SuiteContext.from_world("retail", 0)
    returns = [t for t in ctx.tests if any(a.name == "request_return" for a in t.evaluation_criteria.actions)]
    assert returns
    for t in returns:
        agent, *_ = _careful_run(ctx, t)
        said = dict(agent.heard)
        reason = t.evaluation_criteria.actions[-1].arguments["reason"]
        assert said[QUESTIONS[0]].lower().startswith(reason), said
        assert "unused" in said[QUESTIONS[1]] or "damaged" in said[QUESTIONS[1]]
        want = "Row Credit" if t.evaluation_criteria.actions[-1].arguments["refund_to"] == "row_credit" else "original"
        assert want in said[QUESTIONS[2]]
        assert said[QUESTIONS[3]] == NOT_SURE                                # nothing to do with a return


def test_an_uncovered_question_is_answered_not_sure_and_an_outcome_ends():
    ctx = SuiteContext.from_world("_mock", 0)
    u = ScriptedUser(ctx.tests[0].factforge.script)
    u.first()
    assert u.respond("What colour would you like the bike to be?") == NOT_SURE and not u.stopped
    assert u.respond("Please tell me your favourite route.") == NOT_SURE and not u.stopped
    assert u.respond("Could you give me your customer id?").startswith("My customer id is")
    assert u.respond("And your customer id once more?").startswith("My customer id is")  # asked again, said again
    assert u.respond("Your bike is booked.").endswith("###STOP###") and u.stopped


def test_a_wrap_up_question_ends_the_conversation():
    ctx = SuiteContext.from_world("_mock", 0)
    u = ScriptedUser(ctx.tests[0].factforge.script)
    u.first()
    assert u.respond("Your rental is started. Is there anything else I can help you with?").endswith("###STOP###")
