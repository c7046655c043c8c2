"""The offline client simulator over every built-in task with a client: every held fact asked
specifically is answered with that fact and nothing else; vague questions reveal nothing;
proposed readings of confirmable facts are confirmed or denied without the right value;
contested facts get the version in force; defects are confirmed only when a report meets
their disclosure conditions; the leak check flags what an LLM reply gives away; the prompt
is deterministic; the turn quota holds; the LLM mode runs through litellm's mock_response."""
from __future__ import annotations

import random
import re
import tomllib
from dataclasses import dataclass
from functools import lru_cache

import pytest

from domains import discover, get_pack
from domains.variants import resolve
from facts.values import slot_matches
from outputs.api.deployment import deployment_path, load_deployment
from facts.match import NUMERIC
from outputs.client.match import STOPWORDS
from outputs.client.simulator import ClientSimulator
from outputs.packs.spec import ApiLever, ClientLever, EvidenceLever, tasks_dir
from outputs.packs.withhold import contested_version

VAGUE = [
    "What rules do you have?",
    "Is there anything else I should know?",
    "Tell me everything the records don't say.",
    "What about fees?",
    "Any exceptions I should be aware of?",
    "What do you usually do for customers?",
    "Can you explain the policy?",
    "Hi, thanks for making time.",
]


@lru_cache(maxsize=None)
def _facts(bundle: str):
    return resolve(bundle).factset()


@dataclass(frozen=True)
class Spec:
    """The parts of a task spec the client and the API use, each validated by the task-pack
    spec model (a spec whose ids are not pinned yet still has a valid client)."""
    id: str
    domain: str
    evidence: EvidenceLever
    client: ClientLever
    api: ApiLever


def _specs() -> list[Spec]:
    out = []
    for name in sorted(discover(include_test=True)):
        for path in sorted(tasks_dir(get_pack(name)).glob("*.toml")):
            data = tomllib.loads(path.read_text())
            spec = Spec(data["id"], data["domain"], EvidenceLever.model_validate(data["evidence"]),
                        ClientLever.model_validate(data.get("client", {})), ApiLever.model_validate(data.get("api", {})))
            out.append(spec)
    return out


ALL_SPECS = _specs()
SPECS = [s for s in ALL_SPECS if s.client.enabled]


def _kf(f) -> dict:
    return {"fact_id": f.id, "section": list(f.section), "statement": f.statement, "values": [s.text for s in f.slots]}


def _sim(spec, turn_quota: int = 10_000, **kw) -> ClientSimulator:
    fs = _facts(spec.evidence.bundle)
    by = fs.by_id()
    c = spec.client
    contested = []
    for fid in c.contested:
        v = contested_version(by[fid], 0)
        contested.append({**_kf(by[fid]), "conflicting_statement": v.statement,
                          "conflicting_values": [s.text for s in v.slots], "current_in": [], "conflicting_in": []})
    knowledge = {"schema_version": "1.0", "enabled": True, "turn_quota": turn_quota, "held": [_kf(by[f]) for f in c.held],
                 "confirmable": [_kf(by[f]) for f in c.confirmable], "contested": contested}
    pack = get_pack(spec.domain)
    path = deployment_path(pack.path, spec.api.deployment)
    dep = load_deployment(path)[0] if path else None
    return ClientSimulator(knowledge, facts=fs, deployment=dep, task_id=spec.id, **kw)


def questions(fact) -> list[str]:
    """Specific questions about a fact, as a developer would word them: the rule with its
    values asked for, and the rule's key terms."""
    t = fact.template()
    for typ, ask in (("{money}", "how much"), ("{duration}", "how long"), ("{count}", "how many"),
                     ("{percent}", "what percentage"), ("{date}", "which date")):
        t = t.replace(typ, ask)
    t = t.replace("{", "").replace("}", "")
    words = [w for w in re.findall(r"[A-Za-z][\w-]*", fact.template())
             if (w.lower() not in STOPWORDS or (len(w) == 1 and w.isupper()))
             and w not in ("money", "duration", "count", "percent", "date")]
    random.Random(fact.id).shuffle(words)
    return [f"Could you tell me this: {t.rstrip('.')}?",
            f"Question on {fact.section[-1]}, about {', '.join(words)}: what applies?"]


def test_built_in_tasks_have_clients():
    assert SPECS, "no built-in task has a client"
    assert sum(len(s.client.held) for s in SPECS) >= 1


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.id)
def test_every_held_fact_asked_specifically_is_answered_alone(spec):
    sim = _sim(spec)
    by = _facts(spec.evidence.bundle).by_id()
    for fid in spec.client.held:
        for q in questions(by[fid]):
            r = sim.reply(q)
            assert r.kind == "answer", (q, r)
            assert r.text == by[fid].statement
            assert r.revealed == [fid] and r.flagged == [], (q, r)
    assert sim.log.flagged() == []


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.id)
def test_vague_questions_and_records_questions_reveal_nothing(spec):
    sim = _sim(spec)
    for q in VAGUE:
        r = sim.reply(q)
        assert r.kind == "vague" and r.revealed == [], (q, r)
    by = _facts(spec.evidence.bundle).by_id()
    for fid in spec.client.held:   # a topic is not a question: no held fact for a section's name
        r = sim.reply(f"What are the rules on {by[fid].section[-1]}?")
        assert r.kind != "answer" and r.revealed == [], r
    known = set(spec.client.held) | set(spec.client.confirmable) | set(spec.client.contested)
    others = [f for f in _facts(spec.evidence.bundle).facts if f.id not in known]
    for f in random.Random(spec.id).sample(others, min(25, len(others))):
        for q in questions(f):
            r = sim.reply(q)
            assert r.revealed == [] or set(r.revealed) <= set(spec.client.contested), (q, r)
            assert r.kind in ("records", "vague", "in_force"), (q, r)
    assert sim.log.flagged() == []


@pytest.mark.parametrize("spec", [s for s in SPECS if s.client.confirmable], ids=lambda s: s.id)
def test_confirmable_readings_are_confirmed_or_denied_never_supplied(spec):
    sim = _sim(spec)
    by = _facts(spec.evidence.bundle).by_id()
    for fid in spec.client.confirmable:
        f = by[fid]
        numeric = [s for s in f.slots if s.type in NUMERIC]
        assert numeric, f"{fid} has no value to propose"
        right = f"So I read it as: {f.statement}"
        r = sim.reply(right + " Is that right?")
        assert r.kind == "confirm" and r.text == "Yes, that's right.", r
        wrong = contested_version(f, 7, salt="reading")
        r = sim.reply(f"So I read it as: {wrong.statement} Is that right?")
        assert r.kind == "deny", r
        assert not any(slot_matches(s, r.text) for s in numeric)     # never supplies the right value
        r = sim.reply(questions(f)[0])
        assert r.kind == "records" and not any(slot_matches(s, r.text) for s in numeric), r
    assert sim.log.flagged() == []


@pytest.mark.parametrize("spec", [s for s in SPECS if s.client.contested], ids=lambda s: s.id)
def test_contested_facts_get_the_version_in_force(spec):
    sim = _sim(spec)
    by = _facts(spec.evidence.bundle).by_id()
    for fid in spec.client.contested:
        for q in questions(by[fid]):
            r = sim.reply(q)
            assert r.kind == "in_force" and by[fid].statement in r.text and r.revealed == [fid], (q, r)


def _airline_sim(deployment: str = "throttled-search", **kw):
    fs = _facts("airline")
    by = fs.by_id()
    held = ["airline.delays-cancellations-and.95210577db", "airline.extra-bags-and-limits.22fe6bd181"]
    knowledge = {"turn_quota": 6, "held": [_kf(by[f]) for f in held]}
    path = deployment_path(get_pack("airline").path, deployment)
    return ClientSimulator(knowledge, facts=fs, deployment=load_deployment(path)[0], company="Larkspur Airways", **kw)


def test_defects_are_confirmed_only_when_the_report_meets_the_disclosure_conditions():
    sim = _airline_sim()
    assert sim.reply("The API is broken, nothing works").kind == "defect_unconfirmed"
    assert sim.reply("search_flights gives me errors").kind == "defect_unconfirmed"   # no symptom
    assert sim.reply("I keep getting 429 Too Many Requests").kind == "defect_unconfirmed"  # no operation
    r = sim.reply("search_flights answers 429 Too Many Requests after a few calls, even after Retry-After")
    assert r.kind == "defect_confirmed" and r.defects == [0]
    assert "Retry-After" in r.text and "keep increasing" in r.text
    sim = _airline_sim("flaky-writes")
    assert sim.reply("cancel_reservation answered 504 Gateway Timeout").kind == "defect_unconfirmed"
    r = sim.reply("cancel_reservation answered 504 but the reservation was cancelled anyway")
    assert r.kind == "defect_confirmed" and "Idempotency-Key" in r.text
    sim = _airline_sim("legacy-responses")
    assert sim.reply("get_reservation has a field called payments").kind == "defect_confirmed"
    assert sim.reply("get_reservation: insurance comes back as yes").kind == "defect_confirmed"
    assert sim.reply("get_user returns date_of_birth as a timestamp at midnight").kind == "defect_confirmed"


def test_turn_quota_and_log():
    sim = _airline_sim()
    for _ in range(6):
        sim.reply("What about fees?")
    assert sim.remaining == 0
    r = sim.reply("How much is the meal voucher for passengers delayed at the airport?")
    assert r.kind == "quota" and r.revealed == []
    assert [e.turn for e in sim.log.exchanges] == list(range(1, 8))


def test_prompt_is_deterministic_and_groups_the_knowledge():
    a, b = _airline_sim().prompt, _airline_sim().prompt
    assert a == b
    assert "## Only you know" in a and "$20 per passenger" in a and "## Your production API's known problems" in a
    assert "Larkspur Airways' customer-service rules" in a


@pytest.mark.slow
def test_llm_mode_runs_through_litellm_and_leaks_are_flagged():
    meal = "Passengers delayed 4 hours or more at the airport receive a meal voucher of $20 per passenger."
    bag = "An overweight bag in Lite or Main that weighs 51 to 70 lb costs an extra $100."
    sim = _airline_sim(mode="llm", model="gpt-4o-mini", llm_params={"mock_response": f"{meal} Also: {bag}"})
    r = sim.reply("How much is the meal voucher for passengers delayed at the airport?")
    assert r.kind == "llm" and r.text.startswith("Passengers delayed")
    assert r.revealed == ["airline.delays-cancellations-and.95210577db", "airline.extra-bags-and-limits.22fe6bd181"]
    assert r.flagged == ["airline.extra-bags-and-limits.22fe6bd181"]     # the bag fee was not asked about
    assert [e.turn for e in sim.log.flagged()] == [1]


def _report(d) -> tuple[str, str]:
    """(a report meeting the defect's disclosure conditions, one naming the operation without
    the evidence)."""
    op, p = d.operations[0], d.params.model_dump(by_alias=True)
    full = {
        "rate_limit": f"{op} keeps answering 429 Too Many Requests",
        "async_completion": f"{op} answered 202 with a status URL and the change is pending",
        "post_commit_timeout": f"{op} answered 504 Gateway Timeout but the change went through anyway",
        "projection_lag": f"right after a write, {op} returned stale data",
        "pagination": f"{op} only gave me the first page and a cursor",
        "response_field_rename": f"{op} returns a field called {p.get('to')}",
        "response_value_map": f"{op} sends {p.get('field')} as {next(iter(p.get('map', {}).values()), '')!r}",
        "response_amount_sign": f"{op} gives {p.get('record')} amounts with a negative sign",
        "response_date_to_datetime": f"{op} returns dates as datetimes at midnight",
    }[d.kind]
    return full, f"{op} is behaving oddly, can you check?"


def test_every_shipped_defect_is_confirmed_on_a_report_that_meets_its_conditions_only():
    from outputs.api.deployment import builtin_deployments

    n = 0
    for name in sorted(discover(include_test=True)):
        pack = discover(include_test=True)[name]
        api = resolve(name).api()
        if api is None:
            continue
        for dep in builtin_deployments(pack.path, api).values():
            for i, d in enumerate(dep.defects):
                sim = ClientSimulator({"turn_quota": 10, "held": []}, deployment=dep, company="X")
                full, weak = _report(d)
                r = sim.reply(weak)
                assert r.kind == "defect_unconfirmed" and r.defects == [], (dep.id, d.kind, r)
                r = sim.reply(full)
                assert r.kind == "defect_confirmed" and i in r.defects, (dep.id, d.kind, full, r)
                assert sim.briefs[i].remediation in r.text
                n += 1
    assert n >= 9


@pytest.mark.parametrize("spec", ALL_SPECS, ids=lambda s: s.id)
def test_every_task_specs_deployment_loads(spec):
    path = deployment_path(get_pack(spec.domain).path, spec.api.deployment)
    if path is not None:
        dep, _ = load_deployment(path, resolve(spec.evidence.bundle).api())
        assert dep.id == spec.api.deployment and dep.defects
