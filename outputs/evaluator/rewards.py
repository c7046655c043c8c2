"""Reward components, one scorer each (Inspect-style: a score in [0, 1] plus the detail of
why), and the reward: the product over the components in force.

| component | passes when |
|---|---|
| `DB` | the conversation's committed writes, replayed in order on a fresh copy of the test database, give the test's `expected_db_hash` (the gold replay's hash) |
| `COMMUNICATE` | every `communicate_info` item is said in the agent's messages, and no wrong value is said beside it (the rule below) |
| `ACTION` | every gold action was called with its arguments (`compare_args` when set) and succeeded |
| `ENV_ASSERTION` | the domain's own check finds no problem in the replayed database |
| `NL_ASSERTION` | an LLM judge (opt-in) says every assertion holds; an empty or malformed verdict fails; its token usage is recorded |
| `PHRASING` | the task's phrasing rules hold on the agent's messages (only when the task has rules) |

Components in force: the test's `reward_basis`, plus `PHRASING` when the task has phrasing
rules, plus `NL_ASSERTION` when a judge is configured and the test has assertions.

`COMMUNICATE`, value by value (`facts.values.stated_values` reads the messages,
`facts.values.same_value` compares):

| the item | is said when the messages state | and the check fails on |
|---|---|---|
| a bare number (`45`, `5-7`) | a value of that number of any type: `$45.00`, `45 dollars`, `45%`, `45 days`; a range by both ends ("5 to 7", "5–7", "between 5 and 7"); never `145` or `4.5` | — |
| a typed value (`4%`, `4 GB`, `24 hours`, `$45`, `2026-03-05`) | the same value in any written form: `4.0%`, `4GB`, `4 gigabytes`, `1 day`, `45.00 dollars`, `March 5, 2026`, `5 March 2026`, `Mar 5` (a date without its year states that month and day) | — |
| a phrase (`final sale`, `PO`, an identifier) | the phrase, case-insensitive, whole words | — |
| any typed item | — | a **wrong value**: a value of a kind some gold item has (below) that equals no gold item and is not grounded |

The kinds a test checks are those of its gold items: a typed item's own kind, a bare
number's the kinds it was said as (`45` said as `$45.00` makes money checked). A kind is a
type (money, percent, duration, date), a measured count's unit (`4 GB`: size in GB) or a
plain count's noun (`3 bikes`: bikes); a bare number the agent says ("step 2") has no kind
and is never checked. A value is **grounded** when its number (both ends of a range), or for
a date its month and day, appears in something the agent received: a user message, or a
result of the agent's API calls (every logged read and committed write, recomputed on the
clean API in log order; a JSON number counts as that number). So an agent that repeats an
order total from a tool result, or the amount the customer asked for, is not penalised; one
that recites the policy's other fees, windows or rates beside the gold one, or states a
plausible wrong value, fails.
"""
from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any, Callable, Iterable, Mapping, Optional

from domains.apikit import Call, DomainApi, copy_db, db_hash
from domains.simtests import SimTest
from facts.llm import litellm_module
from facts.models import NUMERIC_TYPES, SlotType, value_key
from facts.values import Stated, StatedIndex, normalise, stated_values
from outputs.packs.phrasing import check

from .models import Component

_PHRASE_TYPES = (SlotType.enum, SlotType.identifier)


def _gold_value(info: str) -> Optional[tuple]:
    """The typed value a communicate string is ((type, value, value_max, unit)), or None for
    a phrase (words, enums, identifiers)."""
    v = normalise(info.strip())
    return None if v is None or v[0] in _PHRASE_TYPES else v


def _said(text: str, info: str, stated: StatedIndex) -> list[Stated]:
    """The statements in `text` that say `info` (a phrase: one pseudo-statement when it occurs)."""
    want = _gold_value(info)
    if want is None:
        found = re.search(r"(?<!\w)" + re.escape(info.strip()) + r"(?!\w)", text, re.IGNORECASE)
        return [Stated(SlotType.enum, info.strip().lower(), None, None, *found.span())] if found else []
    return stated.saying(want)


def mentions(text: str, info: str) -> bool:
    """Whether `text` states `info` (see the module table)."""
    return bool(_said(text, info, _read(text)[0]))


def value_kind(v: tuple) -> Optional[tuple]:
    """What a stated value is a value of, for the wrong-value rule: its type (money, percent,
    duration, date), a measured count's unit ("4 GB": ("count", "GB")) or a plain count's
    noun ("3 bikes": ("count", "bike")); None for a bare number, which is never checked."""
    typ = SlotType(v[0])
    if typ in (SlotType.money, SlotType.percent, SlotType.duration, SlotType.date):
        return (typ.value,)
    if typ == SlotType.count:
        unit = v[3] or (v[6] if len(v) > 6 else None)
        if unit:
            return ("count", unit[:-1] if unit.endswith("s") and len(unit) > 3 else unit)
    return None


def _grounds(texts: Iterable[str]) -> tuple[set, set]:
    """The numbers and the dates (month-day) stated in `texts`."""
    nums, dates = set(), set()
    for t in texts:
        for s in stated_values(t):
            if s.type == SlotType.date:
                dates.add(str(s.value)[-5:])
            elif s.type in NUMERIC_TYPES:
                nums.update(_num_key(x) for x in (s.value, s.value_max) if x is not None)
    return nums, dates


def _num_key(x: Any) -> Any:
    return value_key(SlotType.count, x)[1]


def grounded(v: Stated, nums: set, dates: set) -> bool:
    if v.type == SlotType.date:
        return str(v.value)[-5:] in dates
    return all(_num_key(x) in nums for x in (v.value, v.value_max) if x is not None)


def result_texts(api: DomainApi, seed_db: dict, log: list[dict[str, Any]]) -> list[str]:
    """What the agent's calls answered, recomputed on the clean API: the logged reads (every
    one) and committed writes replayed in order on a fresh copy of `seed_db`, each result or
    error as JSON text (numbers and strings alike; a JSON number reads as a bare number)."""
    reads = set(api.catalog.reads())
    calls = [Call(name=e["operation"], arguments=e["arguments"]) for e in log
             if e.get("committed") or e["operation"] in reads]
    if not calls:
        return []
    writes = any(e.get("committed") for e in log)
    db = copy_db(seed_db) if writes else seed_db
    out = []
    for o in api.replay(db, calls):
        body = o.result if o.ok else (o.error.model_dump(mode="json") if o.error else None)
        out.extend(_strings(body))
    return out


def _strings(data: Any) -> Iterable[str]:
    if isinstance(data, dict):
        for v in data.values():
            yield from _strings(v)
    elif isinstance(data, list):
        for v in data:
            yield from _strings(v)
    elif isinstance(data, str):
        yield data
    elif isinstance(data, (int, float)) and not isinstance(data, bool):
        yield repr(float(data)).removesuffix(".0")


def replay_db(api: DomainApi, seed_db: dict, calls: list[Call]) -> tuple[dict, list[str]]:
    """A fresh copy of `seed_db` with `calls` applied; failed replays by name. Without calls
    it is `seed_db` itself (read it, never mutate it). The copy is a pickle round trip (exact,
    several times faster than `copy.deepcopy` on a large database)."""
    if not calls:
        return seed_db, []
    db = copy_db(seed_db)
    failed = [f"{o.name}: {o.error.code}" for o in api.replay(db, calls) if not o.ok]
    return db, failed


_REPLAYED: dict[tuple, tuple[str, tuple[str, ...]]] = {}


def replay_outcome(api: DomainApi, seed_db: dict, seed_hash: str, calls: list[Call]) -> tuple[str, list[str]]:
    """(hash of the database `calls` leave on `seed_db`, failed replays by name): a pure
    function of the seed database (`seed_hash` is its hash), the API's fingerprint and the
    calls, remembered. The reference agents make the same calls on every rules set of a
    domain, and copying and hashing a large database costs more than replaying: a call list
    seen before is neither replayed nor hashed again."""
    if not calls:
        return seed_hash, []
    key = (seed_hash, api.fingerprint, json.dumps([[c.name, c.arguments] for c in calls], sort_keys=True, default=str))
    got = _REPLAYED.get(key)
    if got is None:
        if len(_REPLAYED) >= 65536:
            _REPLAYED.clear()
        final_db, failed = replay_db(api, seed_db, calls)
        got = _REPLAYED[key] = (db_hash(final_db), tuple(failed))
    return got[0], list(got[1])


def score_db(test: SimTest, got: str, failed: list[str]) -> Component:
    """`got`: the hash of the database the conversation's writes left (`replay_outcome`)."""
    want = test.factforge.expected_db_hash
    return Component(name="DB", score=float(got == want),
                     detail={"hash": got, "expected": want, "failed_replays": failed})


@lru_cache(maxsize=4096)
def _missing_and_other_values(text: str, infos: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[Stated, ...]]:
    """The gold items `text` does not say, and the values it states of a gold item's kind that
    are no gold value (before grounding). Memoised: a reference agent says the same reply to
    every customer, and a long reply holds thousands of values."""
    stated, stated_kinds = _read(text)
    missing, kinds, golds = [], set(), []
    for info in infos:
        hits = _said(text, info, stated)
        if not hits:
            missing.append(info)
        want = _gold_value(info)
        if want is None:
            continue
        golds.append(want)
        kinds.update(k for k in ([value_kind(want)] if value_kind(want) else [value_kind(h) for h in hits]) if k)
    gold_said = {(s.start, s.end) for g in golds for s in stated.saying(g)}
    extra = [s for s, kind in zip(stated.stated, stated_kinds) if kind in kinds and (s.start, s.end) not in gold_said]
    return tuple(missing), tuple(extra)


@lru_cache(maxsize=256)
def _read(text: str) -> tuple[StatedIndex, tuple]:
    """The values `text` states, indexed, and the kind of each (`value_kind`)."""
    index = StatedIndex(stated_values(text))
    return index, tuple(value_kind(s) for s in index.stated)


def score_communicate(test: SimTest, agent_messages: list[str], heard: Iterable[str] = (),
                      seen: Optional[Callable[[], list[str]]] = None) -> Component:
    """Every gold item said, and no wrong value beside it (the module table). `heard`: the
    user's messages; `seen()`: the texts of the tool results the agent received (called only
    when a value needs grounding)."""
    text = "\n".join(agent_messages)
    infos = list(test.evaluation_criteria.communicate_info)
    missing, extra = _missing_and_other_values(text, tuple(infos))
    missing, wrong = list(missing), []
    if extra:
        nums, dates = _grounds([*heard, *(seen() if seen else [])])
        for s in extra:                  # the first 20 distinct ungrounded values are reported
            said = text[s.start:s.end]
            if said not in wrong and not grounded(s, nums, dates):
                wrong.append(said)
                if len(wrong) == 20:
                    break
    return Component(name="COMMUNICATE", score=float(not missing and not wrong),
                     detail={"expected": infos, "missing": missing, "wrong": wrong})


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
        completion = litellm_module().completion
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
        return float(litellm_module().completion_cost(completion_response=response))
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
