"""The reference agents run in-process: the same conversation loop (`engine.converse`), the
same offline user and the same graders (`engine.grade`) as `factforge eval`, without a
sandbox or an API server.

A reference agent's behaviour is fixed by its payload (`engine.reference_payload`): it makes
its calls once, through a client that copes with every defect of the deployment, so what it
commits is its list of calls; and it says one composed reply to every message. Here its
calls are replayed on a fresh copy of the test database and its reply is spoken to the
scripted user, so a conversation costs a replay and a grading, nothing else. `pack build`'s
sealing gate scores every candidate test this way; `factforge eval --agent reciter` (or any
reference agent) scores the same tests the same way through the real sandbox and API.
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterable, Optional

from domains.apikit import Call
from domains.simtests import SimTest

from . import rewards
from .engine import EvalConfig, TaskContext, converse, grade, reference_payload
from .users import ScriptedUser


class _SayHost:
    """An agent that says `reply` to every message (null: the empty reply)."""

    def __init__(self, reply: str):
        self.reply = reply

    def step(self, text: str) -> str:
        return self.reply


class _Committed:
    """The backend as the graders read it: every call committed, with a success status."""

    def __init__(self, calls: list[Call]):
        self.calls = calls
        self.log = [{"operation": c.name, "arguments": c.arguments, "status": 200, "committed": True, "defects": []}
                    for c in calls]

    def committed(self) -> list[Call]:
        return self.calls


def reference_reward(agent: str, test: SimTest, ctx: TaskContext, cfg: Optional[EvalConfig] = None) -> float:
    """The reward of the reference agent `agent` on `test` (offline user, no judge)."""
    cfg = cfg or EvalConfig(pack=Path("."), task=ctx.task_id, agent=agent)
    payload = reference_payload(agent, test, ctx)
    reply = str(payload["reply"]) if payload else ""
    calls = [Call(name=a["name"], arguments=a["arguments"]) for a in payload["actions"]] if payload else []
    messages, _end, agent_error, infra_error = converse(_SayHost(reply), ScriptedUser(test.factforge.script),
                                                        cfg.max_steps)
    if agent_error or infra_error:
        return 0.0
    return rewards.reward(list(grade(test, ctx, cfg, messages, _Committed(calls)).values()))


def reference_rewards(ctx: TaskContext, tests: Iterable[SimTest], agents: Iterable[str]) -> dict[str, dict[str, float]]:
    """test id -> agent -> reward."""
    agents = list(agents)
    return {t.id: {a: reference_reward(a, t, ctx) for a in agents} for t in tests}
