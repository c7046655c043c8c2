"""Coding agents as developers: the adapters' files, `factforge developers`, mini-swe-agent end to end
in its boundary against a scripted model reached through the loopback relay and the proxy (its
calls metered exactly, its trajectory in ATIF), and a provider key that never reaches the
boundary, the record or the report."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest

from facts.errors import FactforgeError
from outputs.engage import adapters, trajectory
from outputs.engage.scripted_model import ScriptedModel
from outputs.evaluator.sandbox import bwrap_path

ROOT = Path(__file__).resolve().parents[1]
TASK = "_mock-client-knows"
HELD = "_mock.late-returns.ea475b5c32"
CANARY = "sk-CANARY-7f3e9d1c5b2a4e6f"
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
needs_bwrap = pytest.mark.skipif(bwrap_path() is None, reason="bubblewrap (bwrap) is not installed")
needs_mini = pytest.mark.skipif(adapters.load("mini-swe-agent").find() is None,
                                reason="mini-swe-agent is not installed (pip install mini-swe-agent)")


def bash(command: str, text: str, input_tokens: int, output_tokens: int) -> dict:
    return {"text": text, "tool_calls": [{"name": "bash", "arguments": {"command": command}}],
            "input_tokens": input_tokens, "output_tokens": output_tokens}


MINI_TURNS = [
    bash('ff ask "Do pass holders get a discount on late fees?"', "I ask the owner first.", 1000, 30),
    bash(f"cat > agent.py <<'EOF'\n{AGENT}EOF", "Now the agent.", 1200, 120),
    bash("ff live", "", 1500, 10),
    bash('echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT; ff submit "a first agent"', "Done.", 1800, 15),
]


def engage(pack, out, developer, **kw):
    from outputs.engage.run import EngageConfig, run_engagement
    return run_engagement(EngageConfig(pack=pack, task=TASK, developer=developer, out=out, **kw))


def files_holding(root: Path, needle: str) -> list[str]:
    hits = []
    for dirpath, _, names in os.walk(root):
        for name in names:
            p = Path(dirpath) / name
            if not p.is_symlink() and p.is_file() and needle.encode() in p.read_bytes():
                hits.append(str(p.relative_to(root)))
    return hits


@pytest.fixture()
def canary_env(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", CANARY)
    monkeypatch.setenv("ANTHROPIC_API_KEY", CANARY)


# --------------------------------------------------------------------------- the adapters' files

def plan_of(name: str, tmp_path: Path, model: str = "m-1") -> tuple[adapters.Adapter, dict]:
    a = adapters.load(name)
    paths = {"kit": "/kit", "workspace": "/workspace", "sockets": "/run/ff", "stage": "/opt/ffdev",
             "home": "/home/developer", "out": "/var/developer", "ff_mcp": "/kit/bin/ff-mcp"}
    return a, a.plan(program=Path("/p/bin/prog"), model=model, paths=paths, instruction="Build it {braces}.",
                     stage=tmp_path)


def test_every_adapter_loads_and_says_how_it_is_run(tmp_path):
    assert adapters.names() == ["claude-code", "codex", "mini-swe-agent", "opencode"]
    for name in adapters.names():
        a, plan = plan_of(name, tmp_path / name)
        assert plan["argv"][0] == "/p/bin/prog" and "Build it {braces}." in plan["argv"]
        assert plan["relay"] == {"script": "/opt/ffdev/looprelay.py", "socket": "/run/ff/model.sock"}
        assert not any("{" in v and "}" in v for v in plan["env"].values()), name
        assert a.trajectory["format"] in trajectory.READERS


def test_claude_code_gets_its_mcp_config_and_waits_for_it(tmp_path):
    _, plan = plan_of("claude-code", tmp_path)
    mcp = json.loads((tmp_path / "mcp.json").read_text())
    assert mcp == {"mcpServers": {"ff": {"type": "stdio", "command": "/kit/bin/ff-mcp", "args": [],
                                         "env": {"FF_SOCKETS": "/run/ff"}}}}
    assert plan["argv"][1:5] == ["--print", "--output-format", "stream-json", "--verbose"]
    assert "--dangerously-skip-permissions" in plan["argv"] and "/opt/ffdev/mcp.json" in plan["argv"]
    env = plan["env"]
    assert env["ANTHROPIC_BASE_URL"] == "@FF_RELAY@" and env["IS_SANDBOX"] == "1"
    assert env["MCP_CONNECTION_NONBLOCKING"] == "false" and int(env["MCP_TIMEOUT"]) >= 30000
    assert env["ANTHROPIC_API_KEY"] == adapters.DUMMY_KEY
    assert plan["stdout"] == "/var/developer/claude.jsonl"


def test_codex_config_is_toml_with_a_responses_provider_and_the_mcp_server(tmp_path):
    _, plan = plan_of("codex", tmp_path, model="gpt-5")
    [cfg] = plan["home_files"]
    assert cfg["path"] == ".codex/config.toml" and plan["env"]["CODEX_HOME"] == "/home/developer/.codex"
    data = tomllib.loads(cfg["text"])
    assert data["model"] == "gpt-5" and data["model_provider"] == "ff"
    assert data["model_providers"]["ff"]["wire_api"] == "responses"
    assert data["model_providers"]["ff"]["base_url"] == "@FF_RELAY@/v1"
    assert data["mcp_servers"]["ff"]["command"] == "/kit/bin/ff-mcp"
    assert data["mcp_servers"]["ff"]["env"] == {"FF_SOCKETS": "/run/ff"}
    assert plan["argv"][1:3] == ["exec", "--json"]


def test_opencode_config_names_the_relay_and_the_mcp_server(tmp_path):
    _, plan = plan_of("opencode", tmp_path, model="gpt-5")
    [cfg] = plan["home_files"]
    data = json.loads(cfg["text"])
    assert plan["env"]["OPENCODE_CONFIG"] == "/home/developer/opencode.json"
    assert data["provider"]["ff"]["options"]["baseURL"] == "@FF_RELAY@/v1"
    assert data["provider"]["ff"]["models"] == {"gpt-5": {"name": "gpt-5"}}
    assert data["mcp"]["ff"] == {"type": "local", "command": ["/kit/bin/ff-mcp"], "enabled": True,
                                 "environment": {"FF_SOCKETS": "/run/ff"}}
    assert plan["argv"][1:4] == ["run", "--format", "json"] and "ff/gpt-5" in plan["argv"]


def test_mini_swe_agent_points_litellm_at_the_relay_by_the_model_prefix(tmp_path):
    a, plan = plan_of("mini-swe-agent", tmp_path, model="openai/gpt-4.1-mini")
    assert "model.model_kwargs.api_base=@FF_RELAY@/v1" in plan["argv"]
    assert plan["env"]["MSWEA_CONFIGURED"] == "true"
    assert plan["env"]["MSWEA_GLOBAL_CONFIG_DIR"].startswith("/home/developer/")
    _, plan = plan_of("mini-swe-agent", tmp_path, model="anthropic/claude-sonnet-4-5")
    assert "model.model_kwargs.api_base=@FF_RELAY@" in plan["argv"]
    assert a.provider_of("anthropic/claude-sonnet-4-5") == "anthropic" and a.provider_of("openai/x") == "openai"


def test_the_instruction_says_what_to_build_the_tools_and_submit(mock_task_pack, tmp_path):
    from outputs.evaluator.engine import TaskContext
    kit = TaskContext.load(mock_task_pack, TASK, "test", []).materialize_kit(tmp_path / "kit")
    paths = {"kit": "/kit", "workspace": "/workspace"}
    for name, tool_words in (("claude-code", "MCP server `ff`"), ("mini-swe-agent", "`ff ask")):
        text = adapters.instruction(adapters.load(name), kit, paths)
        assert tool_words in text and "submit" in text and "/workspace" in text and "agent.py" in text
        assert (kit / "README.md").read_text().splitlines()[0] in text


def test_developers_lists_the_adapters_and_what_is_installed():
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    r = subprocess.run([sys.executable, "-m", "pipeline.cli", "developers", "--json"], capture_output=True, text=True,
                       env=env, cwd=ROOT, timeout=120)
    assert r.returncode == 0, r.stderr
    rows = {row["name"]: row for row in json.loads(r.stdout)}
    assert set(rows) == set(adapters.names())
    mini = rows["mini-swe-agent"]
    assert mini["installed"] == (adapters.load("mini-swe-agent").find() is not None)
    assert rows["claude-code"]["package"] == "@anthropic-ai/claude-code" and rows["codex"]["registry"] == "npm"


def test_a_coding_agent_that_is_not_installed_or_has_no_key_is_refused_before_anything_is_written(
        mock_task_pack, tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    with pytest.raises(FactforgeError, match="not installed"):
        engage(mock_task_pack, tmp_path / "a", "codex", developer_prefix=tmp_path / "nothing")
    if adapters.load("mini-swe-agent").find() is not None:
        with pytest.raises(FactforgeError, match="OPENAI_API_KEY"):
            engage(mock_task_pack, tmp_path / "b", "mini-swe-agent")
    with pytest.raises(FactforgeError, match="http"):
        engage(mock_task_pack, tmp_path / "c", "mini-swe-agent", developer_upstream="file:///etc")
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists() and not (tmp_path / "c").exists()


# --------------------------------------------------------------------------- mini-swe-agent end to end

@pytest.mark.slow
@needs_bwrap
@needs_mini
def test_mini_swe_agent_takes_the_task_through_relay_and_proxy(mock_task_pack, tmp_path, canary_env):
    """The real program in its boundary; its model the scripted server outside, reached through
    the loopback relay and the proxy, which adds the key; the turns make it ask the owner, write
    agent.py, run a live experiment and submit; the engagement is scored and metered exactly."""
    model = ScriptedModel(MINI_TURNS, api_key=CANARY)
    url = model.start()
    try:
        rec = engage(mock_task_pack, tmp_path / "e", "mini-swe-agent", developer_model="openai/gpt-4.1-mini",
                     developer_upstream=url, gateway_mock_response=GREETING)
    finally:
        model.stop()
    out = tmp_path / "e"
    assert rec["end"]["reason"] == "submitted" and rec["engagement"]["isolation"] == "sandbox"
    dev = rec["engagement"]["developer"]
    assert dev["kind"] == "adapter" and dev["spec"] == "mini-swe-agent" and dev["model"] == "openai/gpt-4.1-mini"
    tools = rec["tools"]
    assert tools["owner"]["turns"] == 1 and tools["owner"]["held_elicited"] == [HELD]
    assert tools["live"]["runs"] == 1 and tools["live"]["results"][0]["infra_errors"] == 0
    assert tools["submitted"] is True
    assert rec["workspace"]["modified"] == ["agent.py"]
    assert (out / "workspace" / "agent.py").read_text() == AGENT

    # every call reached the scripted server with the real key, added by the proxy
    assert len(model.received) == 4
    assert all(r["headers"].get("authorization") == [f"Bearer {CANARY}"] for r in model.received)
    # metering equals the scripted token counts exactly
    m = rec["developer_model"]
    assert m["calls"] == 4 and m["failed"] == 0
    assert m["input_tokens"] == sum(t["input_tokens"] for t in MINI_TURNS)
    assert m["output_tokens"] == sum(t["output_tokens"] for t in MINI_TURNS)
    assert m["by_model"]["openai/gpt-4.1-mini"]["calls"] == 4 and m["cost_usd"] > 0
    lines = (out / "model_calls.jsonl").read_text().splitlines()
    assert [json.loads(x)["input_tokens"] for x in lines] == [t["input_tokens"] for t in MINI_TURNS]

    # the trajectory, in ATIF
    doc = json.loads((out / "trajectory.json").read_text())
    assert doc["schema_version"] == "ATIF-v1.4" and doc["agent"]["name"] == "mini-swe-agent"
    assert doc["steps"][0]["source"] == "user" and "ff ask" in doc["steps"][0]["message"]
    agent_steps = [s for s in doc["steps"] if s["source"] == "agent"]
    commands = [s["tool_calls"][0]["arguments"]["command"] for s in agent_steps]
    assert commands == [t["tool_calls"][0]["arguments"]["command"] for t in MINI_TURNS]
    assert "Pass holders get" in agent_steps[0]["observation"]["results"][0]["content"]
    assert [s["step_id"] for s in doc["steps"]] == list(range(1, len(doc["steps"]) + 1))
    assert doc["final_metrics"]["total_prompt_tokens"] == m["input_tokens"]
    assert [s["metrics"]["prompt_tokens"] for s in agent_steps] == [t["input_tokens"] for t in MINI_TURNS]
    assert rec["trajectory"]["tool_calls"] == {"bash": 4} and rec["trajectory"]["agent"]["version"]

    # scored as `factforge eval` scores the workspace
    from outputs.evaluator.engine import EvalConfig, run_eval
    direct = run_eval(EvalConfig(pack=mock_task_pack, task=TASK, agent=str(out / "workspace"),
                                 gateway_mock_response=GREETING)).summary
    assert rec["score"]["final_score"] == direct.final_score and "refused" not in rec["score"]
    assert rec["score"]["infra_errors"] == 0 and rec["score"]["conversations"] == direct.conversations

    report = (out / "report.html").read_text()
    assert "model traffic" in report and "Trajectory (mini-swe-agent" in report and "ff live" in report
    assert files_holding(out, CANARY) == []


PROBE = r'''
import glob, json, os, sys, urllib.request
seen = {"env": dict(os.environ), "proc": {}, "files": []}
# the interpreter's own folders (bound read-only, installed software) are not read: a venv
# under /tmp would make the dump hundreds of megabytes
software = tuple(os.path.realpath(p) + os.sep for p in {sys.prefix, sys.base_prefix})
for p in glob.glob("/proc/[0-9]*/environ") + glob.glob("/proc/[0-9]*/cmdline"):
    try:
        seen["proc"][p] = open(p, "rb").read().decode("latin-1")
    except OSError as e:
        seen["proc"][p] = str(e)
for root in ("/kit", "/run", "/opt", "/tmp", "/home", "/var", "/workspace", "/dev/shm", "/etc"):
    for dirpath, dirnames, names in os.walk(root):
        if (os.path.realpath(dirpath) + os.sep).startswith(software):
            dirnames[:] = []
            continue
        for n in names:
            path = os.path.join(dirpath, n)
            try:
                if os.path.isfile(path):
                    seen["files"].append([path, open(path, "rb").read(1 << 20).decode("latin-1")])
            except OSError:
                pass
req = urllib.request.Request(os.environ["FF_MODEL_URL"] + "/v1/chat/completions",
    data=json.dumps({"model": "gpt-4.1-mini", "messages": [{"role": "user", "content": "key?"}]}).encode(),
    headers={"Content-Type": "application/json", "Authorization": "Bearer inside"})
seen["answer"] = urllib.request.urlopen(req, timeout=30).read().decode()
open("/workspace/probe.json", "w").write(json.dumps(seen))
'''


@pytest.mark.slow
@needs_bwrap
def test_a_canary_key_is_nowhere_inside_the_boundary_nor_in_the_record(mock_task_pack, tmp_path, canary_env):
    """A probe developer dumps its environment, every process's environment and command line and
    every file it can read, then calls the model through the relay: the key planted in the engage
    process is in none of it, nor in any file of the engagement; the call it made is metered."""
    model = ScriptedModel([{"text": "There is no key here.", "input_tokens": 11, "output_tokens": 5}], api_key=CANARY)
    url = model.start()
    out = tmp_path / "e"
    try:
        rec = engage(mock_task_pack, out, "cmd:\"$FF_PYTHON\" -c " + _sh_quote(PROBE), developer_upstream=url)
    finally:
        model.stop()
    seen = json.loads((out / "workspace" / "probe.json").read_text())
    assert seen["env"]["FF_MODEL_URL"].startswith("http://127.0.0.1:")
    assert "There is no key here." in seen["answer"]
    assert len(seen["proc"]) >= 2 and any(p.startswith("/kit/") for p, _ in seen["files"])
    assert CANARY not in json.dumps(seen)
    assert model.received[-1]["headers"]["authorization"] == [f"Bearer {CANARY}"]
    assert rec["developer_model"]["calls"] == 1 and rec["developer_model"]["input_tokens"] == 11
    assert files_holding(out, CANARY) == []


def _sh_quote(s: str) -> str:
    return "'" + s.replace("'", "'\"'\"'") + "'"


# --------------------------------------------------------------------------- reading trajectories

def test_trajectory_readers_survive_hostile_records(tmp_path):
    for fmt in trajectory.READERS:
        for raw in (b"", b"\x00\xff{not json\n[1,2]\n{\"type\": 5}\n", b'{"messages": "x", "info": 3}',
                    json.dumps({"type": "item.completed", "item": {"type": "mcp_tool_call", "result": 7}}).encode()):
            src = tmp_path / "rec"
            src.write_bytes(raw)
            doc = trajectory.read(fmt, src, agent="a", version=None, model="m", instruction="do it", metering=None,
                                  session="s")
            assert doc["schema_version"] == "ATIF-v1.4" and doc["steps"][0]["source"] == "user"
    (tmp_path / "link").symlink_to("/etc/passwd")
    doc = trajectory.read("mini-swe-agent", tmp_path / "link", agent="a", version=None, model="m",
                          instruction="do it", metering=None, session="s")
    assert "no record" in doc["notes"] and "root:" not in json.dumps(doc)


# --------------------------------------------------------------------------- Claude Code, when installed

NPM_PREFIX = Path(os.environ["FACTFORGE_DEVELOPER_PREFIX"]) if os.environ.get("FACTFORGE_DEVELOPER_PREFIX") else None


def claude_turn(text: str, tool: str | None, args: dict, input_tokens: int, output_tokens: int) -> dict:
    return {"text": text, "tool_calls": [{"name": tool, "arguments": args}] if tool else [],
            "input_tokens": input_tokens, "output_tokens": output_tokens}


CLAUDE_TURNS = [
    claude_turn("I ask the owner first.", "mcp__ff__ask_owner", {"message": "Do pass holders get a discount on late fees?"},
                2000, 40),
    claude_turn("Now the agent.", "Bash", {"command": f"cat > agent.py <<'EOF'\n{AGENT}EOF"}, 2400, 160),
    claude_turn("", "mcp__ff__run_live", {}, 2600, 20),
    claude_turn("", "mcp__ff__submit", {"note": "a first agent"}, 2800, 20),
    claude_turn("Submitted.", None, {}, 3000, 10),
]


@needs_bwrap
@pytest.mark.skipif(adapters.load("claude-code").find(NPM_PREFIX) is None,
                    reason="Claude Code is not installed (npm install --prefix DIR @anthropic-ai/claude-code; "
                           "FACTFORGE_DEVELOPER_PREFIX=DIR)")
def test_claude_code_takes_the_task_over_mcp(mock_task_pack, tmp_path, canary_env):
    """The real Claude Code in its boundary, its MCP tools on ff-mcp, its model the scripted
    Anthropic Messages server (streamed) through relay and proxy."""
    model = ScriptedModel(CLAUDE_TURNS, api_key=CANARY, count_tokens=100, models=("claude-sonnet-4-5",))
    url = model.start()
    try:
        rec = engage(mock_task_pack, tmp_path / "e", "claude-code", developer_model="claude-sonnet-4-5",
                     developer_prefix=NPM_PREFIX, developer_upstream=url, gateway_mock_response=GREETING)
    finally:
        model.stop()
    out = tmp_path / "e"
    assert rec["end"]["reason"] == "submitted"
    assert rec["tools"]["owner"]["held_elicited"] == [HELD] and rec["tools"]["live"]["runs"] == 1
    assert (out / "workspace" / "agent.py").read_text() == AGENT
    generating = [r for r in model.received if r["path"].startswith("/v1/messages") and "count_tokens" not in r["path"]]
    assert all(r["body"].get("stream") is True for r in generating)
    m = rec["developer_model"]
    assert m["input_tokens"] == sum(t["input_tokens"] for t in CLAUDE_TURNS[:len(generating)])
    assert m["output_tokens"] == sum(t["output_tokens"] for t in CLAUDE_TURNS[:len(generating)])
    doc = json.loads((out / "trajectory.json").read_text())
    names = [c["function_name"] for s in doc["steps"] for c in s.get("tool_calls", [])]
    assert names[:4] == ["mcp__ff__ask_owner", "Bash", "mcp__ff__run_live", "mcp__ff__submit"]
    assert doc["extra"]["program"]["mcp_servers"] == [{"name": "ff", "status": "connected"}]
    assert files_holding(out, CANARY) == []
