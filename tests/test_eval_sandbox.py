"""The agent sandbox (bubblewrap): a hostile agent cannot read the sealed part, the
evaluator's files or anything outside its kit and workspace; a misbehaving agent fails
alone; the model gateway enforces the menu and meters credits (litellm mock responses)."""
from __future__ import annotations

import http.client
import json
import shutil
import socket
from pathlib import Path

import pytest

from outputs.evaluator.sandbox import AgentError, Sandbox, SandboxHost

ROOT = Path(__file__).resolve().parents[1]
AGENTS = Path(__file__).resolve().parent / "agents"
TASK = "_mock-client-knows"

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap (bwrap) is not installed")


@pytest.fixture(scope="module")
def pack(mock_task_pack_copy):
    from outputs.packs.store import Pack
    return Pack(mock_task_pack_copy)


@pytest.fixture()
def run_dir(tmp_path, pack):
    (tmp_path / "sock").mkdir()
    pack.materialize(TASK, "kit", tmp_path / "kit")
    return tmp_path


def _host(run_dir, module, timeout=30.0, fresh=False, cpu_seconds=None):
    sb = Sandbox(kit=run_dir / "kit", workspace=AGENTS, sockets=run_dir / "sock", log=run_dir / "agent.log",
                 cpu_seconds=cpu_seconds)
    assert sb.isolation == "sandbox"
    return SandboxHost(sb, module, timeout, fresh=fresh)


def _whole(h, message):
    """A report the agent sends in pieces ("1" + piece while more follow, "0" + the last)."""
    out, reply = [], h.step(message)
    while reply[0] == "1":
        out.append(reply[1:])
        reply = h.step("more")
    return "".join(out) + reply[1:]


def test_isolation_every_attempt_to_read_sealed_data_fails(pack, run_dir):
    from outputs.packs.store import object_path
    sealed_files = [str(object_path(pack.root, r.sha256)) for r in pack.manifest(TASK, "sealed").files]
    evaluator_files = [str(ROOT / "outputs" / "evaluator" / "engine.py"), str(ROOT / "domains" / "simtests.py"),
                       str(pack.root / "index.json"), str(pack.root / "tasks" / TASK / "sealed.json"),
                       str(run_dir / "agent.log"), "/etc/passwd", "/work/notes/brief.md"]
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    targets = {"files": sealed_files + evaluator_files,
               "dirs": [str(pack.root), str(pack.root / "objects"), str(ROOT), str(run_dir), str(Path.home())],
               "tcp": [["127.0.0.1", listener.getsockname()[1]], ["1.1.1.1", 53]], "walk": True}
    h = _host(run_dir, "snoop_agent", timeout=120)
    try:
        h.start(None)
        report = json.loads(_whole(h, json.dumps(targets)))
    finally:
        h.close()
        listener.close()
    wanted = set(targets["files"])
    # open, parent paths, /proc/*/root, symlinks: nothing outside the sandbox was readable
    hits = [r["path"] for r in report["reads"] + report["symlinks"] if r["ok"]
            and any(r["path"].endswith(w) for w in wanted)]
    assert hits == []
    assert all(not r["ok"] for r in report["reads"] if r["path"] in wanted)
    assert all(r["ok"] is False for r in report["lists"] if r["path"] in targets["dirs"])
    visible = {r["path"] for r in report["lists"] if r["path"] == "/"}
    assert visible and next(r for r in report["lists"] if r["path"] == "/")["entries"] == \
        ["bin", "dev", "kit", "lib", "lib64", "opt", "proc", "run", "sbin", "tmp", "usr", "workspace"]
    # environment: only what the contract names
    assert set(report["env"]) <= {"FACTFORGE_API_URL", "FACTFORGE_GATEWAY_URL", "FACTFORGE_KIT", "PYTHONPATH",
                                  "HOME", "PATH", "PYTHONDONTWRITEBYTECODE", "LANG", "PWD"}
    # the sealed content (test ids, gold hashes, the test database) appears nowhere in what it read
    tests = pack.json(TASK, "sealed", "tests.json")
    db_hash = pack.json(TASK, "sealed", "task.json")["test_db_hash"]
    canaries = [t["id"] for t in tests] + [t["factforge"]["expected_db_hash"] for t in tests] + [db_hash]
    blob = json.dumps(report)
    assert [c for c in canaries if c in blob] == []
    # no network but the two sockets; kit and workspace are read-only
    assert [n["ok"] for n in report["net"]] == [False, False]
    assert [w["ok"] for w in report["writes"]] == [False, False, False]
    # it did see its kit (the test is not vacuous)
    assert any(r["ok"] and r["path"] == "/kit/task.json" for r in report["reads"])


@pytest.mark.parametrize("message,error", [
    ("crash", "ValueError: boom"),
    ("bad state", "not JSON serializable"),
    ("bad reply", "not (str, state)"),
    ("exit", "exit(3)"),
])
def test_agent_failures_are_the_agents_and_the_sandbox_goes_on(run_dir, message, error):
    h = _host(run_dir, "misbehaving_agent")
    try:
        h.start(None)
        with pytest.raises(AgentError, match=error.replace("(", r"\(").replace(")", r"\)")):
            h.step(message)
        h.start(None)                                    # the next conversation starts clean
        assert h.step("hello") == "echo hello 0"
        assert h.step("print") == "still fine"           # printing does not break the protocol
        assert h.step("read stdin") == "''"             # nor does reading stdin
        assert h.step("again") == "echo again 2"
    finally:
        h.close()


@pytest.mark.slow
def test_agent_timeout_kills_the_sandbox_and_the_next_conversation_starts_fresh(run_dir):
    h = _host(run_dir, "misbehaving_agent", timeout=2.0)
    try:
        h.start(None)
        with pytest.raises(AgentError, match="timeout"):
            h.step("hang")
        assert h.sandbox.proc is None
        h.start(None)
        assert h.step("hi") == "echo hi 0"
    finally:
        h.close()
    assert h.sandbox.proc is None


def test_process_fallback_runs_the_same_protocol_and_says_so(run_dir):
    sb = Sandbox(kit=run_dir / "kit", workspace=AGENTS, sockets=run_dir / "sock", log=run_dir / "agent.log",
                 isolation="process")
    assert sb.isolation == "process" and "bwrap" not in sb.argv()[0]
    h = SandboxHost(sb, "misbehaving_agent", 30.0)
    try:
        h.start(None)
        assert h.step("hi") == "echo hi 0"
    finally:
        h.close()


@pytest.mark.parametrize("fresh,second", [(True, "new"), (False, "seen")])
def test_fresh_sandbox_per_conversation_keeps_trials_independent(run_dir, fresh, second):
    h = _host(run_dir, "misbehaving_agent", fresh=fresh)
    try:
        h.start(None)
        assert h.step("marker") == "new"
        h.start(None)
        assert h.step("marker") == second
    finally:
        h.close()


@pytest.mark.slow
@pytest.mark.parametrize("message", ["spin", "spin children"])
def test_cpu_limit_stops_a_busy_agent_as_the_agents_failure(run_dir, message):
    """A busy loop (or two forked busy children while the agent waits for them, which no
    per-process limit would see) is stopped once the conversation's CPU time passes the
    budget, long before the step's wall-clock limit; the next conversation starts fresh."""
    import time
    h = _host(run_dir, "misbehaving_agent", timeout=90.0, cpu_seconds=1.5)
    try:
        h.start(None)
        t0 = time.monotonic()
        with pytest.raises(AgentError, match=r"CPU limit") as e:
            h.step(message)
        assert time.monotonic() - t0 < 60
        assert "over its limit of 1.5 s" in str(e.value)
        assert h.sandbox.proc is None
        assert h.sandbox.conversation_cpu() > 1.5        # measured when it was stopped
        h.start(None)
        assert h.step("hi") == "echo hi 0"
        assert h.cpu_seconds() < 1.5
    finally:
        h.close()


@pytest.mark.slow
def test_kernel_cpu_limit_backs_up_the_evaluators_poll(run_dir, monkeypatch):
    """With the evaluator's poll out of the way, the kernel's RLIMIT_CPU (inherited through
    bubblewrap) ends the busy agent with SIGXCPU: still the agent's failure."""
    import outputs.evaluator.sandbox as sbmod
    monkeypatch.setattr(sbmod, "CPU_POLL_S", 3600.0)
    h = _host(run_dir, "misbehaving_agent", timeout=90.0, cpu_seconds=1.0)
    try:
        h.start(None)
        with pytest.raises(AgentError, match=r"SIGXCPU, CPU limit"):
            h.step("spin")
    finally:
        h.close()


def test_memory_counts_the_sandboxes_tmpfs_not_the_machines_tmp(tmp_path):
    """A tree whose inner process still sees this machine's root (bwrap's child before it
    switches to the sandbox's) holds none of the machine's `/tmp`: only a tmpfs of the
    sandbox's own counts as its memory."""
    import subprocess
    import time

    from outputs.evaluator.sandbox import TreeUsage

    (tmp_path / "ballast").write_bytes(b"\1" * (8 << 20))   # the machine's /tmp holds something
    proc = subprocess.Popen(["sh", "-c", "sleep 30; :"])
    try:
        deadline = time.monotonic() + 10
        u = TreeUsage(proc.pid, True)
        while u.processes < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
            u = TreeUsage(proc.pid, True)
        assert u.processes == 2
        assert u.tmp == 0 and u.memory == u.rss < 64 << 20
    finally:
        proc.kill()
        proc.wait()
