"""What an evaluation run writes: `results.json` (schema 1.0).

```
{"schema_version", "run": {pack, pack_version, task, domain, agent, user, trials, split,
  deployment, scored_deployment, isolation, started, seconds, budget, judge, limits {cpu_seconds,
  step_timeout_s, memory_gb}},
 "summary": {final_score, mean_reward, penalty, pass_hat_k {k: value}, ci {low, high, level,
   resamples}, credits_mean, budget {tier: credits}, infra_errors, agent_errors,
   conversations, tests, pass_rate, by_trap, by_fact},
 "tests": [ConversationResult, ...]}       # one entry per (test, trial), in that order
```

Each `tests` entry is one conversation: the test `id` and `trial`, its `reward` (the
product over the test's reward basis) and the `breakdown` per component, the `credits` it
cost, the `messages` (the transcript), the API `calls` the agent made, the `defects_hit`
(by kind), the `facts` the test exercises, and any `error` (the agent's: a crash, a
timeout, a bad reply) or `infra_error` (ours: the sandbox, the API server, the gateway's
upstream or the user simulator failed). Both kinds of error score 0 and stay in every mean;
infra errors are also counted apart in the summary.
"""
from __future__ import annotations

from typing import Any, Literal, Optional

from pydantic import Field

from facts.strict import StrictModel

RESULTS_SCHEMA_VERSION = "1.0"


class Message(StrictModel):
    role: Literal["user", "assistant"]
    content: str


class Component(StrictModel):
    """One reward component: its score (0 or 1) and why."""
    name: str
    score: float
    detail: dict[str, Any] = Field(default_factory=dict)


class ModelUsage(StrictModel):
    model: str
    prompt_tokens: int
    completion_tokens: int
    credits: float
    ok: bool = True
    error: Optional[str] = None


class ConversationResult(StrictModel):
    id: str
    trial: int
    reward: float
    breakdown: dict[str, Component]
    credits: float
    usage: list[ModelUsage] = Field(default_factory=list)
    messages: list[Message]
    calls: list[dict[str, Any]] = Field(default_factory=list)
    defects_hit: dict[str, int] = Field(default_factory=dict)
    facts: list[str]
    trap: str
    end: Literal["user_stop", "step_limit", "agent_error", "infra_error"]
    error: Optional[str] = None
    infra_error: Optional[str] = None
    seconds: float


class Interval(StrictModel):
    low: float
    high: float
    level: float
    resamples: int


class Summary(StrictModel):
    final_score: float
    mean_reward: float
    penalty: float
    pass_hat_k: dict[str, float]
    ci: Interval
    credits_mean: float
    budget: dict[str, float]
    infra_errors: int
    agent_errors: int
    conversations: int
    tests: int
    pass_rate: float
    by_trap: dict[str, float]
    by_fact: dict[str, float]
    templates: int = 0                   # distinct scenarios the tests come from
    macro_reward: float = 0.0            # mean over scenarios of each scenario's mean reward
    by_template: dict[str, float] = {}   # scenario -> mean reward


class RunInfo(StrictModel):
    pack: str
    pack_version: str
    task: str
    domain: str
    agent: str
    user: str
    trials: int
    split: str
    deployment: str
    # a task with capabilities or deployable fixes: what the run's deployment switched on and fixed
    scored_deployment: Optional[dict] = None
    isolation: str
    judge: Optional[str] = None
    seed: int
    started: str
    seconds: float
    limits: dict[str, float] = Field(default_factory=dict)   # cpu_seconds (per conversation), step_timeout_s, memory_gb


class Results(StrictModel):
    schema_version: str = RESULTS_SCHEMA_VERSION
    run: RunInfo
    summary: Summary
    tests: list[ConversationResult]
