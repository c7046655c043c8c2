"""What a task's client can do besides answering: capabilities (operations the deployment has
but the published contract leaves out, switched on when the developer asks for them) and fixes
the client deploys once a defect report convinces it; and the scored deployment that follows
from both, in `factforge eval` and in an engagement."""
from __future__ import annotations

import html
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from facts.errors import FactforgeError
from outputs.evaluator.sandbox import bwrap_path

ROOT = Path(__file__).resolve().parents[1]
TASK = "_mock-owner-switches-on"
SPEC = '''schema_version = "1.0"
id = "_mock-owner-switches-on"
domain = "_mock"
title = "Pedalwise rentals with a rental operation nobody published"
description = "Pedalwise's back office can start rentals, but the published API does not say so."

[evidence]
bundle = "_mock"
profile = "text-only"

[client]
enabled = true
turn_quota = 6
can_deploy_fix = [1]

[[client.capabilities]]
operation = "start_rental"
need = "start a rental"

[api]
deployment = "flaky-shop"

[models]
menu = "standard-1"
menu_sha256 = "d300db2b0aa226a235c97ba76183956fc9a770255a594e961f53bd908ffc2aeb"

[ids]
test_seed = 1
training = ["_mock.too-many-bikes.ef41b73f8c", "_mock.deposit-refund-timing.2507db13ce"]
live = ["_mock.rent-one-bike.2263203269"]
test = ["_mock.rent-the-maximum.4cdc06e2b4", "_mock.rent-2-bikes.635d0338d3", "_mock.rent-2-bikes.b0828ae90d",
        "_mock.rent-3-bikes.dad88920d3"]
'''
NEED = "Our agent needs to start a rental for a customer, but the API has no operation for that. Is there one?"
ACCEPT = "Yes please, switch it on."
REPORT = "start_rental answered 504 Gateway Timeout, but the rental was created anyway: we got a duplicate."
needs_bwrap = pytest.mark.skipif(bwrap_path() is None, reason="bubblewrap (bwrap) is not installed")


def _build(root: Path, spec: str, ws: Path, task: str = TASK):
    """Build a copy of the `_mock` domain whose only task is `spec` (the task `task`)."""
    from domains import get_pack, load_pack
    from outputs.packs.build import BuildOptions, Builder

    dst = root / "domains" / "_mock"
    shutil.copytree(get_pack("_mock").path, dst, ignore=shutil.ignore_patterns("__pycache__"))
    for p in (dst / "tasks").glob("*.toml"):
        p.unlink()
    (dst / "tasks" / f"{task}.toml").write_text(spec, encoding="utf-8")
    return Builder(root / "pack", BuildOptions(seed=0, workspace=ws)).build([load_pack(dst)])


def _built(tmp_path_factory, ws: Path, spec: str, task: str):
    """(pack, domains folder, the task's build result)."""
    root = tmp_path_factory.mktemp(task)
    path, _, results = _build(root, spec, ws, task)
    return path, str(root / "domains"), results[0]


@pytest.fixture(scope="module")
def lever_pack(tmp_path_factory, mock_task_ws_copy):
    return _built(tmp_path_factory, mock_task_ws_copy, SPEC, TASK)


@pytest.fixture
def domains_env(lever_pack, monkeypatch):
    monkeypatch.setenv("FACTFORGE_DOMAINS_DIR", lever_pack[1])
    return lever_pack


# --------------------------------------------------------------------------- the spec

@pytest.mark.parametrize("edit, problem, line_has", [
    (lambda s: s.replace('operation = "start_rental"', 'operation = "cancel_rental"'),
     "capability 'cancel_rental' is not an operation of the domain's API", 'operation = "cancel_rental"'),
    (lambda s: s.replace("can_deploy_fix = [1]", "can_deploy_fix = [4]"),
     "can_deploy_fix names defect 4, but the deployment 'flaky-shop' has 4 defects", "can_deploy_fix"),
    (lambda s: s.replace('deployment = "flaky-shop"', 'deployment = "clean"'),
     "can_deploy_fix names defect 1, but the deployment 'clean' has 0 defects", "can_deploy_fix"),
    (lambda s: s.replace("enabled = true", "enabled = false"),
     "client is disabled but lists held, confirmable or contested facts, capabilities or fixes", "[client]"),
    (lambda s: s.replace('need = "start a rental"', 'need = ""'), "client.capabilities.0.need", "need ="),
    (lambda s: s.replace('operation = "start_rental"', 'operation = "Start Rental"'), "must be an operation name",
     'operation = "Start Rental"'),
    (lambda s: s + '\n[[client.capabilities]]\noperation = "start_rental"\nneed = "open a rental"\n',
     "duplicate capability operations: start_rental", "[client]"),
])
def test_a_bad_capability_or_fix_is_one_line_naming_the_spec(tmp_path, mock_task_ws_copy, edit, problem, line_has):
    from outputs.packs.build import BuildFailed
    with pytest.raises((FactforgeError, BuildFailed)) as e:
        _build(tmp_path, edit(SPEC), mock_task_ws_copy)
    msg = str(e.value)
    assert problem in msg and f"{TASK}.toml:" in msg and "\n" not in msg.strip(), msg
    assert line_has in _line(edit(SPEC), msg, TASK), msg
    assert not (tmp_path / "pack").exists()


def _line(spec: str, msg: str, task: str) -> str:
    """The spec's line an error names (`FILE:LINE: problem`)."""
    return spec.splitlines()[int(msg.split(f"{task}.toml:")[1].split(":")[0]) - 1]


def test_a_spec_without_capabilities_or_fixes_seals_as_it_always_has():
    from outputs.packs.spec import load_spec
    ls = load_spec(ROOT / "domains" / "_mock" / "tasks" / "_mock-client-knows.toml")
    assert set(ls.spec.sealed_dump()["client"]) == {"enabled", "held", "confirmable", "contested", "turn_quota"}
    assert set(ls.spec.levers()["client"]) == {"enabled", "held", "confirmable", "contested", "turn_quota"}


# --------------------------------------------------------------------------- the API

def _client(state):
    from fastapi.testclient import TestClient
    from outputs.api.app import build_app
    return TestClient(build_app(state), base_url="http://api")


def test_a_hidden_operation_is_no_route_and_no_schema_until_switched_on():
    from domains.variants import resolve
    from outputs.api.app import ApiState
    world = resolve("_mock")
    state = ApiState(world.api(), world.database(0), hidden={"start_rental"})
    c = _client(state)
    doc = c.get("/openapi.json").json()
    ops = {op["operationId"] for m in doc["paths"].values() for op in m.values()}
    assert "start_rental" not in ops and "waive_late_fee" in ops
    assert "StartRentalArgs" not in doc["components"]["schemas"] and "start_rental" not in json.dumps(doc)
    body = {"customer_id": "CU1000", "bikes": 1, "deposit": 50}
    hidden = c.post("/rentals", json=body)
    unknown = c.post("/no-such-route", json=body)
    assert hidden.status_code == unknown.status_code == 404
    assert hidden.json()["error"]["code"] == unknown.json()["error"]["code"] == "not_found"
    assert hidden.json()["error"]["message"] == "no route POST /rentals"
    assert state.log.entries == []                       # never reached the service
    state.enable("start_rental")
    assert c.post("/rentals", json=body).status_code == 200
    doc = c.get("/openapi.json").json()
    assert doc == json.loads(json.dumps(world.api().openapi("http://api")))   # the whole contract now


def test_a_deployed_fix_takes_its_defect_out_of_play(tmp_path):
    from domains.variants import resolve
    from outputs.api.app import ApiState
    from outputs.api.deployment import load_deployment
    world = resolve("_mock")
    dep, _ = load_deployment(ROOT / "domains" / "_mock" / "deployments" / "flaky-shop.toml", world.api())
    body = {"customer_id": "CU1000", "bikes": 1, "deposit": 50}
    broken = ApiState(world.api(), world.database(0), dep, task_id=TASK)
    assert _client(broken).post("/rentals", json=body).status_code == 504      # committed, then a timeout
    fixed = ApiState(world.api(), world.database(0), dep, task_id=TASK, fixed={1})
    r = _client(fixed).post("/rentals", json=body)
    assert r.status_code == 200 and fixed.log.entries[0].defects == []
    later = ApiState(world.api(), world.database(0), dep, task_id=TASK)
    later.deploy_fix(1)
    assert _client(later).post("/rentals", json=body).status_code == 200


# --------------------------------------------------------------------------- the pack

def test_the_kit_never_names_a_capability_and_the_sealed_part_records_it(domains_env):
    from outputs.packs.store import Pack
    path, _, result = domains_env
    pack = Pack(path)
    kit = b"".join(pack.read(TASK, "kit", f.path) for f in pack.manifest(TASK, "kit").files)
    assert b"start_rental" not in kit and b"StartRental" not in kit
    sealed = pack.json(TASK, "sealed", "task.json")
    assert sealed["capabilities"] == [{"need": "start a rental", "operation": "start_rental"}]
    assert sealed["fixable"] == [1]
    client = pack.json(TASK, "sealed", "client.json")
    assert client["capabilities"][0]["method"] == "POST" and client["capabilities"][0]["path"] == "/rentals"
    assert client["can_deploy_fix"] == [1]
    # the sealing gate measures what a developer who got everything would be scored under
    assert result.reference["oracle"] == 1.0 and result.reference["null"] == 0.0


@pytest.mark.slow
def test_eval_scores_under_the_deployment_it_is_told_and_records_it(domains_env):
    from outputs.evaluator.engine import EvalConfig, run_eval
    path = domains_env[0]

    def run(**kw):
        return run_eval(EvalConfig(pack=path, task=TASK, agent="oracle", trials=1, isolation="process", **kw))

    published = run()
    assert published.summary.final_score == 0.0 and published.summary.agent_errors == 4
    assert published.run.scored_deployment["enabled"] == [] and published.run.scored_deployment["fixed"] == []
    on = run(capabilities=["all"])
    assert on.summary.final_score == 1.0
    assert on.run.scored_deployment["enabled"] == ["start_rental"]
    both = run(capabilities=["start_rental"], fixes=["1"])
    assert both.summary.final_score == 1.0 and both.run.scored_deployment["fixed"] == [1]
    assert both.run.scored_deployment["hash"] != on.run.scored_deployment["hash"]
    with pytest.raises(FactforgeError, match="has no capability 'waive_late_fee'; capabilities: start_rental"):
        run(capabilities=["waive_late_fee"])
    with pytest.raises(FactforgeError, match=r"has no deployable fix '0'; fixes \(defect indices\): 1"):
        run(fixes=["0"])


def test_a_task_without_levers_records_no_scored_deployment(mock_task_pack):
    from outputs.evaluator.engine import EvalConfig, run_eval
    r = run_eval(EvalConfig(pack=mock_task_pack, task="_mock-records-only", agent="null", trials=1,
                            isolation="process", tests=["_mock.rent-2-bikes.635d0338d3"]))
    assert r.run.scored_deployment is None
    with pytest.raises(FactforgeError, match="has no capability 'start_rental'; capabilities: none"):
        run_eval(EvalConfig(pack=mock_task_pack, task="_mock-records-only", agent="null", trials=1,
                            isolation="process", capabilities=["start_rental"]))


@pytest.mark.slow
def test_the_eval_command_takes_enable_and_fixed(domains_env, tmp_path):
    path = domains_env[0]
    r = subprocess.run([sys.executable, "-m", "pipeline.cli", "eval", str(path), "--task", TASK, "--agent", "oracle",
                        "--trials", "1", "--isolation", "process", "--enable", "all", "--fixed", "1",
                        "--out", str(tmp_path / "ev")], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    assert "final score 1.0000" in r.stdout
    run = json.loads((tmp_path / "ev" / "results.json").read_text())["run"]
    assert run["scored_deployment"]["enabled"] == ["start_rental"] and run["scored_deployment"]["fixed"] == [1]
    bad = subprocess.run([sys.executable, "-m", "pipeline.cli", "eval", str(path), "--task", TASK, "--agent", "oracle",
                          "--enable", "cancel_everything", "--out", str(tmp_path / "ev2")],
                         capture_output=True, text=True, timeout=600)
    assert bad.returncode == 1 and "Traceback" not in bad.stderr
    assert bad.stderr.strip().splitlines()[-1].endswith("has no capability 'cancel_everything'; capabilities: "
                                                         "start_rental")


# --------------------------------------------------------------------------- the client

def _conversation(path, messages):
    from outputs.client.simulator import ClientSimulator
    sim = ClientSimulator.from_pack(path, TASK)
    return sim, [sim.reply(m) for m in messages]


def test_the_client_offers_a_capability_for_a_need_and_switches_it_on_when_accepted(domains_env):
    sim, (vague, policy, offer, yes, again) = _conversation(domains_env[0], [
        "How do I start a rental?", "How many bikes can one rental have?", NEED, ACCEPT, NEED])
    assert vague.kind == "vague" and not vague.offered          # a question, not a need of the integration
    assert policy.kind != "offer" and not policy.offered
    assert offer.kind == "offer" and offer.offered == ["start_rental"] and "POST /rentals" in offer.text
    assert yes.kind == "enabled" and yes.enabled == ["start_rental"]
    assert again.kind == "offer" and not again.offered and "switched on already" in again.text
    assert sim.log.enabled() == ["start_rental"] and sim.log.flagged() == []


def test_an_offer_declined_or_never_made_switches_nothing_on(domains_env):
    sim, replies = _conversation(domains_env[0], [ACCEPT, NEED, "No, don't switch it on, thanks."])
    assert [r.kind for r in replies[:2]] == ["vague", "offer"] and replies[2].kind != "enabled"
    assert sim.log.enabled() == []


def test_a_convincing_report_of_a_fixable_defect_deploys_its_fix(domains_env):
    sim, (vague_report, report, again) = _conversation(domains_env[0], [
        "The API gave me an error when I started a rental.", REPORT, REPORT])
    assert vague_report.kind == "defect_unconfirmed" and not vague_report.fixes
    assert report.kind == "defect_confirmed" and report.defects == [1] and report.fixes == [1]
    assert "I've had it deployed: start_rental now behaves as documented" in report.text
    assert again.fixes == [] and sim.log.fixes() == [1]           # deployed once


def test_the_client_is_reproducible_byte_for_byte(domains_env, tmp_path):
    messages = [NEED, ACCEPT, REPORT, "What is the late fee per hour?", "yes"]
    for name in ("a", "b"):
        sim, _ = _conversation(domains_env[0], messages)
        sim.save_log(tmp_path / f"{name}.json")
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()


# --------------------------------------------------------------------------- the engagement

def _steps(ask: bool) -> list[dict]:
    rental = {"tool": "call_api", "args": {"method": "POST", "path": "/rentals",
                                           "body": {"customer_id": "CU1000", "bikes": 1, "deposit": 50}}}
    steps = [rental]
    if ask:
        steps += [{"tool": "ask_owner", "args": {"message": NEED}}, {"tool": "ask_owner", "args": {"message": ACCEPT}},
                  rental, {"tool": "ask_owner", "args": {"message": REPORT}}]
    return steps + [{"tool": "submit"}]


@pytest.mark.slow
@needs_bwrap
def test_an_engagement_scores_under_what_the_developer_got_switched_on_and_fixed(domains_env, tmp_path):
    from outputs.engage.run import EngageConfig, run_engagement
    path, domains, _ = domains_env

    def engage(name, ask):
        p = tmp_path / f"{name}.json"
        p.write_text(json.dumps({"face": "ff", "steps": _steps(ask)}), encoding="utf-8")
        return run_engagement(EngageConfig(pack=path, task=TASK, developer=f"scripted:{p}", out=tmp_path / name,
                                           domains_dirs=[domains], gateway_mock_response="Hello."))

    asked = engage("asked", True)
    tl = asked["timeline"]
    assert [e["tool"] for e in tl] == ["call_api", "ask_owner", "ask_owner", "call_api", "ask_owner", "submit"]
    assert tl[0]["status"] == 404                           # hidden until the client switches it on
    assert tl[1]["offered"] == ["start_rental"] and tl[2]["enabled"] == ["start_rental"]
    assert tl[3]["status"] in (200, 504)                    # there now (504: the defect, at its dev exposure)
    assert tl[4]["fixes"] == [1]
    owner = asked["tools"]["owner"]
    assert owner["capabilities_enabled"] == ["start_rental"] and owner["fixes_deployed"] == [1]
    assert owner["capabilities_total"] == 1 and owner["fixes_total"] == 1
    sd = asked["scored_deployment"]
    assert sd["enabled"] == ["start_rental"] and sd["fixed"] == [1] and sd["deployment"] == "flaky-shop"
    results = json.loads((tmp_path / "asked" / "evaluation" / "results.json").read_text())
    assert results["run"]["scored_deployment"] == sd
    page = (tmp_path / "asked" / "report.html").read_text()
    assert "<td>capabilities switched on</td><td>1 of 1: start_rental</td>" in page
    assert (f"<td>scored deployment</td><td>flaky-shop; switched on: start_rental; fixed defects: 1 "
            f"(hash {sd['hash']})</td>") in page

    silent = engage("silent", False)
    assert silent["timeline"][0]["status"] == 404
    assert silent["scored_deployment"]["enabled"] == [] and silent["scored_deployment"]["fixed"] == []
    assert silent["tools"]["owner"]["capabilities_enabled"] == []


# --------------------------------------------------------------------------- several stakeholders

PEOPLE_TASK = "_mock-three-voices"
PEOPLE_SPEC = '''schema_version = "1.0"
id = "_mock-three-voices"
domain = "_mock"
title = "Pedalwise rentals where the finance lead and the floor disagree"
description = "Pedalwise's late-fee discount is finance's rule; the shop floor remembers it otherwise."

[evidence]
bundle = "_mock"
profile = "text-only"

[client]
enabled = true
confirmable = ["_mock.rentals.9a754fa838"]
turn_quota = 6

[[stakeholders]]
role = "finance"
title = "the finance lead"
persona = "Precise and brief; speaks for the fee schedule."
held = ["_mock.late-returns.ea475b5c32"]
governs = ["Late returns"]
turn_quota = 4

[[stakeholders]]
role = "floor"
title = "the shop floor supervisor"
habits = ["_mock.late-returns.ea475b5c32"]
turn_quota = 2

[models]
menu = "standard-1"
menu_sha256 = "d300db2b0aa226a235c97ba76183956fc9a770255a594e961f53bd908ffc2aeb"

[ids]
test_seed = 1
training = ["_mock.too-many-bikes.ef41b73f8c", "_mock.rent-one-bike.a2dd685d72"]
live = ["_mock.rent-one-bike.2263203269"]
test = ["_mock.explain-late-fee.3b4dfc2cd2", "_mock.rent-the-maximum.4cdc06e2b4", "_mock.rent-3-bikes.dad88920d3",
        "_mock.rent-2-bikes.b0828ae90d"]
'''
DISCOUNT = "_mock.late-returns.ea475b5c32"
ASK_DISCOUNT = "Do pass holders get a discount on late fees?"
WHO = "Who has the final word on the pass holder discount on late fees?"


@pytest.fixture(scope="module")
def people_pack(tmp_path_factory, mock_task_ws_copy):
    return _built(tmp_path_factory, mock_task_ws_copy, PEOPLE_SPEC, PEOPLE_TASK)


@pytest.fixture
def people_env(people_pack, monkeypatch):
    monkeypatch.setenv("FACTFORGE_DOMAINS_DIR", people_pack[1])
    return people_pack


@pytest.mark.parametrize("edit, problem, line_has", [
    (lambda s: s.replace('role = "floor"', 'role = "owner"'), "role 'owner' must be", "[[stakeholders]]"),
    (lambda s: s.replace('role = "floor"', 'role = "finance"'), "duplicate stakeholder roles: finance",
     'role = "finance"'),
    (lambda s: s.replace('habits = ["_mock.late-returns.ea475b5c32"]', 'habits = ["_mock.rentals.2b581ad62c"]'),
     "stakeholder 'floor' misstates _mock.rentals.2b581ad62c, which nobody holds", 'role = "floor"'),
    (lambda s: s.replace('confirmable = ["_mock.rentals.9a754fa838"]', 'held = ["_mock.late-returns.ea475b5c32"]'),
     "stakeholder 'finance' knows _mock.late-returns.ea475b5c32, which owner knows already", 'role = "finance"'),
    (lambda s: s.replace('enabled = true\nconfirmable = ["_mock.rentals.9a754fa838"]\nturn_quota = 6',
                         "enabled = false"),
     "stakeholders need the owner too: set 'enabled' in [client]", "enabled = false"),
    (lambda s: s.replace('governs = ["Late returns"]', 'governs = ["Late fees"]'),
     "stakeholder finance governs 'Late fees', which is no top-level policy section", "governs"),
    (lambda s: s.replace('governs = ["Late returns"]', 'governs = ["Rentals"]'),
     "stakeholder floor misstates _mock.late-returns.ea475b5c32, but finance, who holds it, does not govern its "
     "section 'Late returns'", "habits"),
    (lambda s: s.replace('habits = ["_mock.late-returns.ea475b5c32"]', 'held = ["_mock.nope.0000000000"]'),
     "stakeholder floor: unknown fact id _mock.nope.0000000000", "held"),
    (lambda s: s.replace('held = ["_mock.late-returns.ea475b5c32"]', 'held = ["_mock.refunds.46a24a503a"]')
     .replace('habits = ["_mock.late-returns.ea475b5c32"]', 'habits = ["_mock.refunds.46a24a503a"]')
     .replace('governs = ["Late returns"]', 'governs = ["Refunds"]'),
     "stakeholder floor cannot misstate _mock.refunds.46a24a503a: fact _mock.refunds.46a24a503a has no numeric value",
     "habits"),
])
def test_a_bad_stakeholder_is_one_line_naming_the_spec(tmp_path, mock_task_ws_copy, edit, problem, line_has):
    from outputs.packs.build import BuildFailed
    with pytest.raises((FactforgeError, BuildFailed)) as e:
        _build(tmp_path, edit(PEOPLE_SPEC), mock_task_ws_copy, PEOPLE_TASK)
    msg = str(e.value)
    assert problem in msg and f"{PEOPLE_TASK}.toml:" in msg and "\n" not in msg.strip(), msg
    assert line_has in _line(edit(PEOPLE_SPEC), msg, PEOPLE_TASK), msg
    assert not (tmp_path / "pack").exists()


@pytest.mark.slow
def test_a_stakeholders_fact_leaves_the_kit_and_the_kit_names_the_people(people_env):
    from outputs.packs.store import Pack
    path, _, result = people_env
    pack = Pack(path)
    assert result.checks["kit_scan_clean"] == [] and result.reference["oracle"] == 1.0
    task = pack.json(PEOPLE_TASK, "kit", "task.json")
    assert [(p["role"], p["turn_quota"]) for p in task["client"]["people"]] == [("owner", 6), ("finance", 4),
                                                                                ("floor", 2)]
    readme = pack.read(PEOPLE_TASK, "kit", "README.md").decode()
    assert "- `finance`: the finance lead (4 questions)." in readme
    kit = b"".join(pack.read(PEOPLE_TASK, "kit", f.path) for f in pack.manifest(PEOPLE_TASK, "kit").files)
    assert b"20% discount" not in kit and b"Pass holders get" not in kit
    people = {p["role"]: p for p in pack.json(PEOPLE_TASK, "sealed", "client.json")["stakeholders"]}
    assert people["finance"]["held"][0]["statement"] == "Pass holders get a 20% discount on late fees."
    habit = people["floor"]["habits"][0]
    assert habit["fact_id"] == DISCOUNT and habit["values"] != ["20%"] and habit["statement"].startswith("Pass holders")


def test_each_person_answers_from_what_they_know_and_says_whose_word_decides(people_env):
    from outputs.client.simulator import ClientSimulator
    cast = ClientSimulator.cast(people_env[0], PEOPLE_TASK)
    assert list(cast) == ["owner", "finance", "floor"]
    owner, finance, floor = (cast[r].reply(ASK_DISCOUNT) for r in cast)
    assert owner.kind == "refer" and "ask finance (the finance lead)" in owner.text and not owner.revealed
    assert finance.kind == "answer" and finance.text == "Pass holders get a 20% discount on late fees."
    assert floor.kind == "answer" and "20%" not in floor.text and floor.revealed == [DISCOUNT]
    who = {r: cast[r].reply(WHO) for r in cast}
    assert who["owner"].text == "On Late returns, it's the finance lead's call: ask finance."
    assert who["floor"].text == who["owner"].text and who["finance"].text == "On Late returns, my word goes."
    assert all(r.kind == "governs" for r in who.values())
    assert cast["finance"].reply("Is a standard rental 24 hours long?").kind == "refer"
    assert cast["owner"].reply("Is a standard rental 24 hours long?").kind == "confirm"
    # no one speaks for another: the owner's and the floor's words never carry finance's rule
    said = " ".join(e.text for r in ("owner", "floor") for e in cast[r].log.exchanges)
    assert cast["finance"].k.revealed(said) == []


def test_the_tests_follow_the_governing_version(people_env, tmp_path):
    """The sealed test that exercises the disputed rule expects finance's value: an agent that
    took the floor's word fails it, one that took finance's passes."""
    from outputs.evaluator.engine import EvalConfig, run_eval
    from outputs.packs.store import Pack
    path = people_env[0]
    pack = Pack(path)
    (test,) = [t for t in pack.json(PEOPLE_TASK, "sealed", "tests.json") if DISCOUNT in t["factforge"]["fact_ids"]]
    assert "20%" in test["evaluation_criteria"]["communicate_info"]
    habit = pack.json(PEOPLE_TASK, "sealed", "client.json")["stakeholders"][1]["habits"][0]["values"][0]
    scores = {}
    for version in ("20%", habit):
        agent = tmp_path / version.replace("%", "pct") / "agent.py"
        agent.parent.mkdir()
        agent.write_text(
            "class Agent:\n    def get_init_state(self):\n        return {}\n\n"
            "    def generate_next_message(self, message, state):\n"
            "        return ('Thank you for contacting Pedalwise Rentals. The late fee is $12 for each started hour, '\n"
            f"                'and pass holders get a {version} discount on late fees.'), state\n\n\n"
            "def create_agent():\n    return Agent()\n")
        r = run_eval(EvalConfig(pack=path, task=PEOPLE_TASK, agent=str(agent.parent), trials=1, isolation="process",
                                tests=[test["id"]]))
        scores[version] = r.summary.final_score
    assert scores == {"20%": 1.0, habit: 0.0}


def test_people_are_reproducible_byte_for_byte(people_env, tmp_path):
    from outputs.client.simulator import ClientSimulator
    for name in ("a", "b"):
        cast = ClientSimulator.cast(people_env[0], PEOPLE_TASK)
        for role, sim in cast.items():
            for m in (ASK_DISCOUNT, WHO, "anything else?"):
                sim.reply(m)
            sim.save_log(tmp_path / f"{name}-{role}.json")
    for role in ("owner", "finance", "floor"):
        assert (tmp_path / f"a-{role}.json").read_bytes() == (tmp_path / f"b-{role}.json").read_bytes()


@pytest.mark.slow
@needs_bwrap
def test_an_engagement_addresses_people_by_role_and_records_each(people_env, tmp_path):
    from outputs.engage.run import EngageConfig, run_engagement
    path, domains, _ = people_env
    steps = [{"tool": "ask_owner", "args": {"message": ASK_DISCOUNT, "role": "floor"}},
             {"tool": "ask_owner", "args": {"message": WHO}},
             {"tool": "ask_owner", "args": {"message": ASK_DISCOUNT, "role": "finance"}},
             {"tool": "ask_owner", "args": {"message": WHO, "role": "floor"}},
             {"tool": "ask_owner", "args": {"message": ASK_DISCOUNT, "role": "floor"}},
             {"tool": "ask_owner", "args": {"message": ASK_DISCOUNT, "role": "nobody"}},
             {"tool": "submit"}]
    p = tmp_path / "dev.json"
    p.write_text(json.dumps({"face": "ff", "steps": steps}), encoding="utf-8")
    rec = run_engagement(EngageConfig(pack=path, task=PEOPLE_TASK, developer=f"scripted:{p}", out=tmp_path / "e",
                                      domains_dirs=[domains], gateway_mock_response="Hello."))
    tl = rec["timeline"]
    assert [e["ok"] for e in tl] == [True, True, True, True, False, False, True]
    assert [e.get("role") for e in tl[:4]] == ["floor", "owner", "finance", "floor"]
    assert "floor quota spent: 2 of 2" in tl[4]["summary"] and "nobody called 'nobody'" in tl[5]["summary"]
    people = rec["tools"]["people"]
    assert people["finance"]["held_elicited"] == [DISCOUNT] and people["finance"]["turns"] == 1
    assert people["floor"]["habits_voiced"] == [DISCOUNT] and people["floor"]["held_total"] == 0
    assert people["owner"]["turns"] == 1 and people["floor"]["turns"] == 2
    assert all(v["cross_revealed"] == [] and v["flagged"] == [] for v in people.values())
    page = (tmp_path / "e" / "report.html").read_text()
    assert html.escape(f"2 of 2 turns; 0 of 0 of their facts elicited; habits heard: {DISCOUNT}; other people's "
                       "facts revealed: 0") in page
    assert "scored deployment" not in page


def test_the_tau2_export_carries_the_levers_in_its_own_namespace(domains_env, people_env, tmp_path):
    from outputs.packs.store import Pack
    from outputs.packs.tau2 import export_tau2
    export_tau2(Pack(domains_env[0]), tmp_path / "a")
    export_tau2(Pack(people_env[0]), tmp_path / "b")
    caps = json.loads((tmp_path / "a" / TASK / "tasks.json").read_text())[0]
    people = json.loads((tmp_path / "b" / PEOPLE_TASK / "tasks.json").read_text())[0]
    assert caps["factforge"]["capabilities"] == ["start_rental"] and caps["factforge"]["fixable_defects"] == [1]
    assert people["factforge"]["stakeholders"] == [{"role": "finance", "governs": ["Late returns"]},
                                                   {"role": "floor", "governs": []}]
    assert "stakeholders" not in caps["factforge"] and "capabilities" not in people["factforge"]


def test_the_client_chat_command_interviews_a_stakeholder(people_env):
    r = subprocess.run([sys.executable, "-m", "pipeline.cli", "client", "chat", str(people_env[0]), "--task",
                        PEOPLE_TASK, "--role", "floor", "--json"], input=ASK_DISCOUNT + "\n" + WHO + "\n",
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    replies = [json.loads(x) for x in r.stdout.splitlines()]
    assert [x["kind"] for x in replies] == ["answer", "governs"] and "20%" not in replies[0]["text"]
    bad = subprocess.run([sys.executable, "-m", "pipeline.cli", "client", "chat", str(people_env[0]), "--task",
                          PEOPLE_TASK, "--role", "ceo"], input="hi\n", capture_output=True, text=True, timeout=300)
    assert bad.returncode == 1 and "Traceback" not in bad.stderr
    assert "has nobody called 'ceo' to ask; people: owner, finance, floor" in bad.stderr


# --------------------------------------------------------------------------- discovery tiers

def _owner(tier: str):
    from domains.variants import resolve
    from outputs.client.knowledge import ClientKnowledge
    from outputs.client.simulator import ClientSimulator
    data = ClientKnowledge(turn_quota=10, held=[{"fact_id": DISCOUNT, "section": ["Late returns"],
                                                "statement": "Pass holders get a 20% discount on late fees.",
                                                "values": ["20%"]}], tiers={DISCOUNT: tier} if tier else {})
    return ClientSimulator(data, facts=resolve("_mock").factset())


def test_a_pointer_tier_fact_is_pointed_to_once_the_talk_turns_to_its_section():
    sim = _owner("pointer")
    off_topic = sim.reply("How many bikes can one customer rent?")
    assert not off_topic.pointed
    r = sim.reply("Tell me about late returns.")
    assert r.pointed == [DISCOUNT] and r.revealed == [] and "20%" not in r.text
    assert 'One more thing on Late returns, which isn\'t written down anywhere: "Pass holders get a … discount on ' \
           'late fees". Ask me for that one.' in r.text
    assert not sim.reply("Tell me about late returns.").pointed           # once
    exact = sim.reply(ASK_DISCOUNT)
    assert exact.kind == "answer" and exact.revealed == [DISCOUNT] and exact.flagged == []
    silent = _owner("exact")
    assert not silent.reply("Tell me about late returns.").pointed


def test_a_caveat_tier_fact_is_answered_hedged_to_a_loose_question_and_an_exact_one_is_not():
    loose = "What do pass holders get?"
    hedged = _owner("caveat").reply(loose)
    assert hedged.kind == "answer" and hedged.text.startswith("If you mean this one, and check it before you rely on")
    assert hedged.revealed == [DISCOUNT] and hedged.flagged == []          # the tier answers it: no leak
    for tier in ("exact", ""):
        assert _owner(tier).reply(loose).kind == "vague"
    assert _owner("exact").reply(ASK_DISCOUNT).revealed == [DISCOUNT]


@pytest.mark.slow
def test_tiers_name_held_facts_and_reach_the_sealed_client(tmp_path, mock_task_ws_copy):
    from outputs.packs.spec import load_spec
    from outputs.packs.store import Pack
    src = (ROOT / "domains" / "_mock" / "tasks" / "_mock-client-knows.toml").read_text()
    spec = src.replace("turn_quota = 8", f'turn_quota = 8\ntiers = {{ "{DISCOUNT}" = "pointer" }}')
    bad = tmp_path / "bad" / "_mock-client-knows.toml"
    bad.parent.mkdir()
    bad.write_text(spec.replace(f'"{DISCOUNT}" = "pointer"', '"_mock.rentals.9a754fa838" = "pointer"'))
    with pytest.raises(FactforgeError, match="tiers names _mock.rentals.9a754fa838, which is not a held fact"):
        load_spec(bad)
    path, _, _ = _build(tmp_path / "good", spec, mock_task_ws_copy, "_mock-client-knows")
    assert Pack(path).json("_mock-client-knows", "sealed", "client.json")["tiers"] == {DISCOUNT: "pointer"}


def test_in_llm_mode_the_deployment_changes_by_rule_and_each_person_has_their_prompt(domains_env, people_env):
    """An LLM client phrases the talk, but what changes the scored deployment (an offer, a
    switch, a fix) follows the offline rules, so it never depends on a model's wording; a
    stakeholder's prompt is theirs: their title, persona and whose word decides what."""
    from outputs.client.simulator import ClientSimulator
    sim = ClientSimulator.from_pack(domains_env[0], TASK, mode="llm", model="gpt-4o-mini",
                                    llm_params={"mock_response": "Sure, whatever you need."})
    assert sim.reply("Hello, how are you?").kind == "llm"
    assert sim.reply(NEED).kind == "offer" and sim.reply(ACCEPT).enabled == ["start_rental"]
    assert sim.reply(REPORT).fixes == [1]
    cast = ClientSimulator.cast(people_env[0], PEOPLE_TASK, mode="llm", model="gpt-4o-mini",
                                llm_params={"mock_response": "Pass holders get a 20% discount on late fees."})
    assert cast["finance"].prompt.startswith("You are the finance lead at Pedalwise Rentals.")
    assert "Precise and brief; speaks for the fee schedule." in cast["finance"].prompt
    assert "- Late returns: the finance lead (finance)" in cast["floor"].prompt
    assert "Pass holders get a 20% discount" not in cast["floor"].prompt       # not theirs to know
    r = cast["floor"].reply("Hi there")
    assert r.kind == "llm" and r.flagged == []          # not their version: the record's cross_revealed counts it
    assert cast["finance"].reply("Hi there").flagged == [DISCOUNT]            # their own, unasked: flagged


def test_a_person_who_says_another_persons_version_is_counted(people_env, tmp_path):
    from outputs.client.simulator import Exchange
    from outputs.engage.tools import ToolService
    svc = ToolService(people_env[0], PEOPLE_TASK, tmp_path)
    svc.call("ask_owner", {"message": ASK_DISCOUNT, "role": "floor"})             # their habit: their own
    assert svc.usage()["people"]["floor"]["cross_revealed"] == []
    svc.people["floor"].log.exchanges.append(Exchange(turn=2, message="Hi", kind="llm",
                                                      text="Pass holders get a 20% discount on late fees."))
    assert svc.usage()["people"]["floor"]["cross_revealed"] == [DISCOUNT]       # finance's version, not theirs


@pytest.mark.slow
def test_a_habit_no_test_exercises_fails_the_build(tmp_path, mock_task_ws_copy):
    from outputs.packs.build import BuildFailed
    spec = PEOPLE_SPEC.replace('"_mock.explain-late-fee.3b4dfc2cd2", ', '"_mock.rent-2-bikes.635d0338d3", ')
    with pytest.raises(BuildFailed, match=f"stakeholder floor's habit {DISCOUNT}: no test exercises it"):
        _build(tmp_path, spec, mock_task_ws_copy, PEOPLE_TASK)


@pytest.mark.slow
def test_a_stakeholder_has_discovery_tiers_too(tmp_path, mock_task_ws_copy, monkeypatch):
    from outputs.client.simulator import ClientSimulator
    spec = PEOPLE_SPEC.replace('governs = ["Late returns"]\nturn_quota = 4',
                               f'governs = ["Late returns"]\nturn_quota = 4\ntiers = {{ "{DISCOUNT}" = "pointer" }}')
    assert spec != PEOPLE_SPEC
    path, _, _ = _build(tmp_path / "good", spec, mock_task_ws_copy, PEOPLE_TASK)
    monkeypatch.setenv("FACTFORGE_DOMAINS_DIR", str(tmp_path / "good" / "domains"))
    finance = ClientSimulator.from_pack(path, PEOPLE_TASK, role="finance")
    r = finance.reply("Tell me about late returns.")
    assert r.pointed == [DISCOUNT] and "20%" not in r.text
    bad = spec.replace(f'tiers = {{ "{DISCOUNT}" = "pointer" }}', 'tiers = { "_mock.rentals.9a754fa838" = "caveat" }')
    from outputs.packs.build import BuildFailed
    with pytest.raises((FactforgeError, BuildFailed), match="stakeholder finance's tiers name _mock.rentals.9a754fa838"):
        _build(tmp_path / "bad", bad, mock_task_ws_copy, PEOPLE_TASK)

