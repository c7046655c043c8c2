"""The engagement: set-up, the reference developers (starting, scripted through MCP and
through ff, cmd), the boundary against hostile developers, the contamination scan, the time
limit, scoring exactly as `factforge eval`, engagement.json and report.html."""
from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from outputs.evaluator.sandbox import bwrap_path

ROOT = Path(__file__).resolve().parents[1]
HELD = "_mock.late-returns.ea475b5c32"
GREETING = "Thank you for contacting Pedalwise Rentals."
AGENT = textwrap.dedent('''
    class Agent:
        def get_init_state(self):
            return {}

        def generate_next_message(self, message, state):
            return "Thank you for contacting Pedalwise Rentals. The security deposit is $50.00 per bike.", state


    def create_agent():
        return Agent()
''')
SCRIPT_STEPS = [
    {"tool": "ask_owner", "args": {"message": "Do pass holders get a discount on late fees?"}},
    {"tool": "call_api", "args": {"method": "GET", "path": "/customers/CU1000"}},
    {"write": "agent.py", "text": AGENT},
    {"tool": "run_samples"},
    {"tool": "run_live"},
    {"tool": "run_live"},
    {"tool": "run_live"},
    {"tool": "submit", "args": {"note": "A first agent."}},
]
TIMINGS = {"t", "seconds", "started", "face", "wall_seconds", "cpu_seconds", "engagement_seconds",
           "peak_memory_bytes", "peak_processes"}

needs_bwrap = pytest.mark.skipif(bwrap_path() is None, reason="bubblewrap (bwrap) is not installed")


@pytest.fixture(scope="module")
def pack(mock_task_pack):
    return mock_task_pack


def engage(pack, task, developer, out, **kw):
    from outputs.engage.run import EngageConfig, run_engagement
    return run_engagement(EngageConfig(pack=pack, task=task, developer=developer, out=out, **kw))


def evaluate(pack, task, agent, **kw):
    from outputs.evaluator.engine import EvalConfig, run_eval
    return run_eval(EvalConfig(pack=pack, task=task, agent=str(agent), **kw))


def script(tmp_path, face, steps=SCRIPT_STEPS, name="dev.json") -> str:
    p = tmp_path / name
    p.write_text(json.dumps({"face": face, "steps": steps}), encoding="utf-8")
    return f"scripted:{p}"


def without_timings(data):
    if isinstance(data, dict):
        return {k: without_timings(v) for k, v in data.items() if k not in TIMINGS}
    if isinstance(data, list):
        return [without_timings(v) for v in data]
    return data


# --------------------------------------------------------------------------- set-up and the floor

@pytest.mark.slow
@pytest.mark.parametrize("task", ["_mock-records-only", "_mock-client-knows"])
def test_starting_developer_scores_what_eval_gives_the_starting_workspace(pack, task, tmp_path):
    rec = engage(pack, task, "starting", tmp_path / "e", gateway_mock_response=GREETING)
    out = tmp_path / "e"
    assert rec["schema_version"] == "1.1"
    assert rec["end"]["reason"] == "starting"
    assert rec["evidence_read"]["files"] == 0 and rec["evidence_read"]["files_total"] > 0
    assert rec["workspace"]["files_changed"] == 0 and rec["contamination"]["clean"]
    assert rec["engagement"]["starting_workspace"] == ("empty" if task == "_mock-records-only" else "seeded")
    # the starting workspace, copied out of a fresh kit, scored by the evaluator directly
    from outputs.evaluator.engine import TaskContext
    kit = TaskContext.load(pack, task).materialize_kit(tmp_path / "kit")
    if (kit / "workspace").is_dir():
        agent = kit / "workspace"
    else:
        agent = tmp_path / "empty"
        agent.mkdir()
        shutil.copyfile(out / "workspace" / "agent.py", agent / "agent.py")
    direct = evaluate(pack, task, agent, gateway_mock_response=GREETING).summary.model_dump(mode="json")
    for k in ("final_score", "mean_reward", "penalty", "pass_hat_k", "ci", "credits_mean", "conversations",
              "infra_errors", "agent_errors"):
        assert rec["score"][k] == direct[k], k
    saved = json.loads((out / "evaluation" / "results.json").read_text())
    assert saved["summary"]["final_score"] == rec["score"]["final_score"]
    # the kit is the pack's kit plus bin/, read-only; the workspace is one deterministic commit
    assert os.access(out / "kit" / "bin" / "ff", os.X_OK) and (out / "kit" / "bin" / "ff-mcp").is_file()
    assert not (out / "kit" / "README.md").stat().st_mode & 0o222
    log = subprocess.run(["git", "log", "--format=%H %an %ad %s", "--date=iso"], cwd=out / "workspace",
                         capture_output=True, text=True, check=True).stdout.splitlines()
    assert len(log) == 1 and log[0].endswith("Initial import") and "2000-01-01" in log[0]
    assert log[0].split()[0] == rec["engagement"]["initial_commit"]
    if task == "_mock-records-only":   # an empty workspace's agent says nothing, like the null agent
        assert rec["score"]["final_score"] == 0.0
        assert rec["engagement"]["initial_commit"] == engage(pack, task, "starting", tmp_path / "again")[
            "engagement"]["initial_commit"]


# --------------------------------------------------------------------------- scripted developers

@pytest.fixture(scope="module")
def over_mcp(pack, tmp_path_factory):
    """The scripted developer through the MCP client SDK: (its spec, record, folder)."""
    tmp = tmp_path_factory.mktemp("overmcp")
    spec = script(tmp, "mcp")
    return spec, engage(pack, "_mock-client-knows", spec, tmp / "e"), tmp / "e"


@pytest.mark.slow
@needs_bwrap
def test_scripted_developer_over_mcp_is_recorded_step_by_step(pack, over_mcp):
    spec, rec, out = over_mcp
    assert rec["engagement"]["developer"] == {"kind": "scripted", "spec": spec, "face": "mcp",
                                              "steps": len(SCRIPT_STEPS)}
    assert rec["end"]["reason"] == "submitted"
    tl = rec["timeline"]
    assert [e["tool"] for e in tl] == ["ask_owner", "call_api", "run_samples", "run_live", "run_live", "run_live",
                                       "submit"]
    assert [e["ok"] for e in tl] == [True, True, True, True, True, False, True]
    assert "quota" in tl[5]["error"] and {e["face"] for e in tl} == {"mcp"}
    assert tl == sorted(tl, key=lambda e: e["t"]) and 0 <= tl[0]["t"] <= rec["time"]["wall_seconds"]
    u = rec["tools"]
    assert (u["owner"]["turns"], u["owner"]["quota"]) == (1, 8)
    assert (u["owner"]["held_elicited"], u["owner"]["held_total"]) == ([HELD], 1)
    assert u["api_calls"] == 1 and u["samples"]["runs"] == 1 and (u["live"]["runs"], u["live"]["quota"]) == (2, 2)
    assert u["refused"] == 1 and u["submitted"]
    assert rec["workspace"]["modified"] == ["agent.py"] and rec["workspace"]["added"] == []
    assert rec["contamination"]["clean"] and rec["evidence_read"]["files"] == 0
    assert (out / "workspace" / "agent.py").read_text() == AGENT
    # scored exactly as eval scores the delivered agent
    direct = evaluate(pack, "_mock-client-knows", out / "workspace").summary
    assert rec["score"]["final_score"] == direct.final_score and rec["score"]["conversations"] == direct.conversations
    html = (out / "report.html").read_text()
    assert html.count("<svg") == 2 and "<script" not in html and "<img" not in html
    assert "held facts elicited</td><td>1 of 1" in html


@pytest.mark.slow
@needs_bwrap
def test_the_same_script_through_ff_gives_the_same_record(pack, over_mcp, tmp_path):
    mcp = json.loads(json.dumps(over_mcp[1]))
    ff = engage(pack, "_mock-client-knows", script(tmp_path, "ff"), tmp_path / "f")
    assert {e["face"] for e in ff["timeline"]} == {"ff"}
    for rec in (mcp, ff):
        assert rec["engagement"].pop("developer")["kind"] == "scripted"
        rec["engagement"].pop("pack")
    assert without_timings(mcp) == without_timings(ff)


@pytest.fixture(scope="module")
def flaky_pack(tmp_path_factory):
    """`_mock-client-knows` under the `flaky-shop` deployment (throttled reads, a timeout
    after a committed rental, ...), built from a copy of the domain: (pack, domains folder)."""
    from domains import get_pack, load_pack
    from outputs.packs.build import BuildOptions, Builder

    tmp = tmp_path_factory.mktemp("flaky")
    dst = tmp / "domains" / "_mock"
    shutil.copytree(get_pack("_mock").path, dst, ignore=shutil.ignore_patterns("__pycache__"))
    spec = dst / "tasks" / "_mock-client-knows.toml"
    spec.write_text(spec.read_text().replace('deployment = "clean"', 'deployment = "flaky-shop"'))
    path, _, _ = Builder(tmp / "pack", BuildOptions(seed=0, workspace=tmp / "ws")).build(
        [load_pack(dst)], ["_mock-client-knows"])
    return path, str(tmp / "domains")


@pytest.mark.slow
@needs_bwrap
def test_a_developer_sees_a_defect_of_the_dev_api_and_the_owner_confirms_its_report(flaky_pack, tmp_path):
    """The development API misbehaves like production (at the development exposure rate): the
    record counts the defects the developer's calls hit, and a report that names the operation
    and the symptom is confirmed by the owner."""
    pack, domains = flaky_pack
    steps = [{"tool": "call_api", "args": {"method": "GET", "path": "/customers/CU1000"}} for _ in range(8)]
    steps += [{"tool": "ask_owner", "args": {"message": "get_customer answers 429 Too Many Requests after a few "
                                                        "calls. Is that a rate limit on your side?"}},
              {"tool": "submit"}]
    rec = engage(pack, "_mock-client-knows", script(tmp_path, "mcp", steps), tmp_path / "e", domains_dirs=[domains],
                 gateway_mock_response=GREETING)
    tl = rec["timeline"]
    assert [e["tool"] for e in tl] == ["call_api"] * 8 + ["ask_owner", "submit"] and all(e["ok"] for e in tl)
    statuses = [e["status"] for e in tl[:8]]
    assert 429 in statuses and set(statuses) <= {200, 429}, statuses
    hit = [e for e in tl[:8] if e["defects"]]
    assert all(e["status"] == 429 for e in hit) and len(hit) == statuses.count(429)
    u = rec["tools"]
    assert u["api_calls"] == 8 and u["api_defects_hit"] == {"rate_limit": len(hit)}
    assert u["owner"]["defects_reported"] == 1 and len(u["owner"]["defects_confirmed"]) == 1
    assert u["owner"]["defects_total"] == 4
    assert tl[8]["kind"] == "defect_confirmed"


# --------------------------------------------------------------------------- isolation and contamination

PROBE = r'''
import json, os, socket, sys
pack = sys.argv[1]
out = {}
def attempt(name, fn):
    try:
        out[name] = ["got", repr(fn())]
    except Exception as e:
        out[name] = ["refused", type(e).__name__]
attempt("pack_index", lambda: open(os.path.join(pack, "index.json")).read())
attempt("pack_listing", lambda: os.listdir(pack))
attempt("environ", lambda: dict(os.environ))
attempt("init_environ", lambda: open("/proc/1/environ").read())
attempt("parent_environ", lambda: open(f"/proc/{os.getppid()}/environ").read())
attempt("pids", lambda: sorted(int(p) for p in os.listdir("/proc") if p.isdigit()))
attempt("net_ip", lambda: socket.create_connection(("1.1.1.1", 53), timeout=2))
attempt("net_loopback", lambda: socket.create_connection(("127.0.0.1", 22), timeout=2))
attempt("kit_write", lambda: open("/kit/planted", "w").write("x"))
found = []
for d, dirs, files in os.walk("/"):
    if d.startswith(("/proc", "/sys", "/usr", "/dev")) or "site-packages" in d:
        dirs[:] = []
        continue
    found += [os.path.join(d, f) for f in files
              if f in ("index.json", "sealed.json", "tests.json", "live.json", "db.json", "evidence_plan.json")]
out["sealed_named_files"] = found
open("/workspace/probe.json", "w").write(json.dumps(out))
'''


@pytest.mark.slow
@needs_bwrap
def test_a_hostile_developer_gets_nothing(pack, tmp_path, monkeypatch):
    monkeypatch.setenv("FACTFORGE_TEST_SECRET", "hunter2-secret")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-engage-secret")
    code = base64.b64encode(PROBE.encode()).decode()
    rec = engage(pack, "_mock-records-only",
                 f"cmd:python3 -c \"import base64; exec(base64.b64decode('{code}'))\" {pack.resolve()}", tmp_path / "e")
    probe = json.loads((tmp_path / "e" / "workspace" / "probe.json").read_text())
    for k in ("pack_index", "pack_listing", "net_ip", "net_loopback", "kit_write"):
        assert probe[k][0] == "refused", (k, probe[k])
    assert probe["sealed_named_files"] == []
    text = json.dumps(probe)
    assert "hunter2-secret" not in text and "sk-engage-secret" not in text
    env = eval(probe["environ"][1])  # noqa: S307  (the probe's own repr of a dict of strings)
    assert set(env) <= {"FF_SOCKETS", "FACTFORGE_KIT", "FACTFORGE_API_URL", "FACTFORGE_GATEWAY_URL", "FF_PYTHON",
                        "HOME", "PATH", "LANG", "TMPDIR", "PYTHONDONTWRITEBYTECODE", "PWD", "SHLVL", "_",
                        "FF_MODEL_URL"}     # with a provider key in the engage process: the loopback model relay
    assert env["FF_MODEL_URL"].startswith("http://127.0.0.1:")
    assert max(eval(probe["pids"][1])) < 20      # noqa: S307  (its own PID namespace)
    assert not (tmp_path / "e" / "kit" / "planted").exists()
    assert rec["end"]["reason"] == "exited" and rec["workspace"]["added"] == ["probe.json"]
    assert rec["contamination"]["clean"]


@pytest.mark.slow
@needs_bwrap
def test_a_sealed_test_id_written_into_the_workspace_is_flagged(pack, tmp_path):
    from outputs.packs.store import Pack
    leaked = Pack(pack).json("_mock-records-only", "sealed", "tests.json")   # the leaked fixture
    test_id = leaked[0]["id"]
    dev_db = Pack(pack).json("_mock-records-only", "kit", "data/dev_db.json")
    test_db = Pack(pack).json("_mock-records-only", "sealed", "db.json")
    record = next(r for table in test_db for k, r in test_db[table].items() if dev_db.get(table, {}).get(k) != r)
    steps = [{"write": "notes.md", "text": f"Remember {test_id} for later.\n"},
             {"write": "data/cases.json", "text": json.dumps({"case": record})},
             {"tool": "submit"}]
    rec = engage(pack, "_mock-records-only", script(tmp_path, "ff", steps), tmp_path / "e")
    c = rec["contamination"]
    assert not c["clean"]
    hits = {(h["path"], h["what"]) for h in c["hits"]}
    assert ("notes.md", "test_id") in hits and ("data/cases.json", "test_db_record") in hits
    assert any(h["needle"] == test_id.lower() for h in c["hits"])
    assert rec["workspace"]["added"] == ["data/cases.json", "notes.md"]
    assert "hit(s)" in (tmp_path / "e" / "report.html").read_text()


# --------------------------------------------------------------------------- the time limit

@pytest.mark.slow
@needs_bwrap
def test_the_time_limit_ends_a_developer_that_never_submits_and_it_is_still_scored(pack, tmp_path):
    agent = base64.b64encode(AGENT.encode()).decode()
    rec = engage(pack, "_mock-records-only",
                 f"cmd:echo {agent} | base64 -d > agent.py; sleep 600 & sleep 600", tmp_path / "e", hours=1.5 / 3600)
    assert rec["end"]["reason"] == "time_limit" and "time limit" in rec["end"]["detail"]
    assert 1.5 <= rec["time"]["wall_seconds"] < 15
    assert rec["workspace"]["modified"] == ["agent.py"]
    assert rec["score"]["conversations"] == 3 and "refused" not in rec["score"]
    direct = evaluate(pack, "_mock-records-only", tmp_path / "e" / "workspace").summary
    assert rec["score"]["final_score"] == direct.final_score
    left = [p for p in os.listdir("/proc") if p.isdigit() and _cmdline(p) == "sleep600"]
    assert left == []


def _cmdline(pid: str) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b"").decode()
    except OSError:
        return ""


# --------------------------------------------------------------------------- small parts

def test_snapshot_and_diff_ignore_git_and_never_follow_links(tmp_path):
    from outputs.engage.prepare import diff, snapshot
    ws = tmp_path / "ws"
    (ws / ".git").mkdir(parents=True)
    (ws / "a.py").write_text("a")
    (ws / "b.py").write_text("b")
    before = snapshot(ws)
    (ws / "a.py").write_text("changed")
    (ws / "b.py").unlink()
    (ws / ".git" / "config").write_text("[core]\nfsmonitor = touch /tmp/owned\n")
    (ws / "link").symlink_to("/etc/passwd")
    os.mkfifo(ws / "pipe")
    after = snapshot(ws)
    assert diff(before, after) == {"added": ["link", "pipe"], "modified": ["a.py"], "deleted": ["b.py"]}
    assert after.entries["link"].kind == "link" and after.entries["pipe"].kind == "other"


@pytest.mark.parametrize("text,problem", [
    ('{"face": "email", "steps": []}', "face 'email'"),
    ('{"steps": [{"tool": "submit", "write": "x"}]}', "step 1"),
    ('{"steps": [], "extra": 1}', "unknown key 'extra'"),
    ("not json", "not a JSON developer script"),
])
def test_a_bad_developer_script_is_one_line(tmp_path, text, problem):
    from facts.errors import FactforgeError
    from outputs.engage.developers import parse
    p = tmp_path / "dev.json"
    p.write_text(text)
    with pytest.raises(FactforgeError) as e:
        parse(f"scripted:{p}")
    assert problem in str(e.value) and "\n" not in str(e.value)


@pytest.mark.slow
def test_the_command_refuses_usage_mistakes_in_one_line(pack, tmp_path):
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("x")
    for dev, out, want, rc in (("robot", tmp_path / "o1", "unknown developer 'robot'", 2),
                               ("starting", tmp_path / "full", "not empty", 1)):
        r = subprocess.run([sys.executable, "-m", "pipeline.cli", "engage", str(pack), "--task", "_mock-records-only",
                            "--developer", dev, "--out", str(out)], capture_output=True, text=True, cwd=ROOT,
                           env={**os.environ, "PYTHONPATH": str(ROOT)})
        assert r.returncode == rc and want in r.stderr, r.stderr
        assert r.stderr.startswith("error: ") and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert not (tmp_path / "o1").exists()


def test_the_engagement_imports_no_dagster_media_or_matplotlib():
    code = ("import sys, outputs.engage.run, outputs.engage.cli, outputs.engage.report, outputs.engage.record;"
            "bad = [m for m in ('dagster', 'matplotlib', 'PIL', 'numpy') if m in sys.modules]; print(bad)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                       env={**os.environ, "PYTHONPATH": str(ROOT)}, check=True)
    assert r.stdout.strip() == "[]"
