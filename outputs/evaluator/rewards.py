"""Reward components, one scorer each (Inspect-style: a score in [0, 1] plus the detail of
why), and the reward: the product over the components in force.

| component | passes when |
|---|---|
| `DB` | the conversation's committed writes, replayed in order on a fresh copy of the test database, give the test's `expected_db_hash` (the gold replay's hash) |
| `COMMUNICATE` | every `communicate_info` string appears in the agent's messages: a number as a number token of equal value (`45` matches `$45.00` and `45`, never `145` or `4.5`), anything else as a case-insensitive whole-word phrase |
| `ACTION` | every gold action was called with its arguments (`compare_args` when set) and succeeded |
| `ENV_ASSERTION` | the domain's own check finds no problem in the replayed database |
| `NL_ASSERTION` | an LLM judge (opt-in) says every assertion holds; an empty or malformed verdict fails; its token usage is recorded |
| `PHRASING` | the task's phrasing rules hold on the agent's messages (only when the task has rules) |

Components in force: the test's `reward_basis`, plus `PHRASING` when the task has phrasing
rules, plus `NL_ASSERTION` when a judge is configured and the test has assertions.
"""
from __future__ import annotations

import json
import pickle
import os
import re
from typing import Any, Callable, Mapping, Optional

from domains.apikit import Call, DomainApi, db_hash
from domains.simtests import SimTest

from .models import Component

_NUMBER = re.compile(r"(?<![\w.])-?\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\w])|(?<![\w.,])-?\d+(?:\.\d+)?(?![\w])")
_NUMERIC = re.compile(r"^-?\d+(?:\.\d+)?$")


def _numbers(text: str) -> list[float]:
    out = []
    for m in _NUMBER.finditer(text.replace("$", " ")):
        tok = m.group(0).rstrip(".").replace(",", "")
        try:
            out.append(float(tok))
        except ValueError:
            continue
    return out


def mentions(text: str, info: str) -> bool:
    """Whether `text` states `info` (see the module table)."""
    want = info.strip().replace(",", "")
    if _NUMERIC.match(want):
        return any(abs(x - float(want)) < 1e-9 for x in _numbers(text))
    return re.search(r"(?<!\w)" + re.escape(info.strip()) + r"(?!\w)", text, re.IGNORECASE) is not None


def replay_db(api: DomainApi, seed_db: dict, calls: list[Call]) -> tuple[dict, list[str]]:
    """A fresh copy of `seed_db` with `calls` applied; failed replays by name. Without calls
    it is `seed_db` itself (read it, never mutate it). The copy is a pickle round trip (exact,
    several times faster than `copy.deepcopy` on a large database)."""
    if not calls:
        return seed_db, []
    db = pickle.loads(pickle.dumps(seed_db, protocol=pickle.HIGHEST_PROTOCOL))
    failed = [f"{o.name}: {o.error.code}" for o in api.replay(db, calls) if not o.ok]
    return db, failed


def score_db(test: SimTest, final_db: dict, failed: list[str], got: Optional[str] = None) -> Component:
    """`got`: the final database's hash when the caller knows it (no call replayed)."""
    got = got or db_hash(final_db)
    want = test.factforge.expected_db_hash
    return Component(name="DB", score=float(got == want),
                     detail={"hash": got, "expected": want, "failed_replays": failed})


def score_communicate(test: SimTest, agent_messages: list[str]) -> Component:
    text = "\n".join(agent_messages)
    missing = [c for c in test.evaluation_criteria.communicate_info if not mentions(text, c)]
    return Component(name="COMMUNICATE", score=float(not missing),
                     detail={"expected": list(test.evaluation_criteria.communicate_info), "missing": missing})


def _matches(action_args: Mapping[str, Any], call_args: Mapping[str, Any], keys: Optional[list[str]]) -> bool:
    keys = list(action_args) if keys is None else keys
    return all(call_args.get(k) == action_args.get(k) for k in keys)


def score_actions(test: SimTest, calls: list[dict[str, Any]]) -> Component:
    """`calls`: the agent's calls ({operation, arguments, status})."""
    ok = [c for c in calls if 200 <= int(c.get("status", 0)) < 300]
    missing = [a.action_id for a in test.evaluation_criteria.actions
               if not any(c["operation"] == a.name and _matches(a.arguments, c["arguments"], a.compare_args) for c in ok)]
    return Component(name="ACTION", score=float(not missing), detail={"missing": missing})


def score_env(problems: list[str]) -> Component:
    return Component(name="ENV_ASSERTION", score=float(not problems), detail={"problems": problems[:10]})


def score_phrasing(rules: list, agent_messages: list[str], brand: Mapping[str, str]) -> Component:
    from outputs.packs.phrasing import check  # noqa: PLC0415

    v = check(rules, agent_messages, brand)
    return Component(name="PHRASING", score=float(not v),
                     detail={"violations": [x.model_dump(mode="json") for x in v[:20]]})


JUDGE_PROMPT = """You grade a customer-service conversation against assertions about the agent's behaviour.
Read the transcript and decide, for each numbered assertion, whether it holds.
Answer with JSON only: {"results": [{"index": 1, "met": true, "reason": "..."}, ...]}, one entry per assertion.

Assertions:
%s

Transcript:
%s
"""


def score_nl(test: SimTest, messages: list[dict[str, str]], model: str, *,
             mock_response: Optional[str] = None, completion: Optional[Callable] = None) -> Component:
    """The LLM judge. Fails on an exception, an empty or malformed verdict, or a verdict that
    does not cover every assertion; records usage either way."""
    assertions = test.evaluation_criteria.nl_assertions
    prompt = JUDGE_PROMPT % ("\n".join(f"{i}. {a}" for i, a in enumerate(assertions, 1)),
                             "\n".join(f"{m['role']}: {m['content']}" for m in messages))
    detail: dict[str, Any] = {"model": model, "assertions": list(assertions)}
    if completion is None:
        os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        import litellm  # noqa: PLC0415
        completion = litellm.completion
    kwargs: dict[str, Any] = {"model": model, "messages": [{"role": "user", "content": prompt}], "temperature": 0.0}
    if mock_response is not None:
        kwargs["mock_response"] = mock_response
    try:
        r = completion(**kwargs)
    except Exception as e:  # the judge failing is a failed verdict, never a pass
        detail["error"] = f"{type(e).__name__}: {str(e)[:200]}"
        return Component(name="NL_ASSERTION", score=0.0, detail=detail)
    u = getattr(r, "usage", None)
    detail["usage"] = ({"prompt_tokens": u.prompt_tokens, "completion_tokens": u.completion_tokens}
                       if u is not None else None)
    detail["cost_usd"] = _cost(r)
    text = (r.choices[0].message.content or "").strip()
    verdict = _parse_verdict(text, len(assertions))
    if verdict is None:
        detail["error"] = f"empty or malformed verdict: {text[:200]!r}"
        return Component(name="NL_ASSERTION", score=0.0, detail=detail)
    detail["results"] = verdict
    return Component(name="NL_ASSERTION", score=float(all(v["met"] for v in verdict)), detail=detail)


def _cost(response: Any) -> Optional[float]:
    try:
        import litellm  # noqa: PLC0415
        return float(litellm.completion_cost(completion_response=response))
    except Exception:  # a model without a price in litellm's map: tokens are still recorded
        return None


def _parse_verdict(text: str, n: int) -> Optional[list[dict[str, Any]]]:
    m = re.search(r"\{.*\}", text, re.DOTALL)
    if not m:
        return None
    try:
        data = json.loads(m.group(0))
    except json.JSONDecodeError:
        return None
    results = data.get("results") if isinstance(data, dict) else None
    if not isinstance(results, list) or len(results) != n:
        return None
    out = []
    for i, r in enumerate(results, 1):
        if not isinstance(r, dict) or r.get("index") != i or not isinstance(r.get("met"), bool):
            return None
        out.append({"index": i, "met": r["met"], "reason": str(r.get("reason", ""))[:300]})
    return out


def reward(components: list[Component]) -> float:
    """The product of the components' scores (1.0 for none)."""
    out = 1.0
    for c in components:
        out *= c.score
    return out
