"""Hostile agents (tests/agents/hostile_*.py) against the sandbox: each probe is contained,
fails as the agent's own failure where it should, and leaves the evaluator's memory (its
peak resident set, measured from just before the probe) under 400 MB."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from outputs.evaluator.sandbox import (LOG_MAX, LOG_TAIL, MAX_PROCESSES, REPLY_MAX, AgentError, InfraError, Sandbox,
                                       SandboxHost, proc_stats)

ROOT = Path(__file__).resolve().parents[1]
AGENTS = Path(__file__).resolve().parent / "agents"
TASK = "_mock-client-knows"
EVALUATOR_RISE_MAX = 150 << 20  # what one hostile agent may cost the evaluator (it was over 1 GB)

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap (bwrap) is not installed")


@pytest.fixture(scope="module")
def pack(mock_task_pack_copy):
    return mock_task_pack_copy


@pytest.fixture()
def run_dir(tmp_path, pack):
    from outputs.packs.store import Pack
    (tmp_path / "sock").mkdir()
    Pack(pack).materialize(TASK, "kit", tmp_path / "kit")
    return tmp_path


def _status_bytes(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    raise AssertionError(f"no {field}")


@pytest.fixture()
def evaluator_rss():
    """How far the evaluator's peak resident set rose during the test (VmHWM, reset at its start,
    less the resident set it started from). The test process also holds whatever earlier tests
    of its worker left, so the rise is what this test's hostile agent cost the evaluator; the
    evaluator's whole footprint alone is measured by benchmarks/bench_sandbox.py."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        pytest.skip("the peak resident set cannot be reset on this machine")
    start = _status_bytes("VmRSS")

    def peak() -> int:
        return _status_bytes("VmHWM") - start
    return peak


def _host(run_dir, module, timeout=60.0, memory_gb=4.0, cpu_seconds=None, fresh=True):
    sb = Sandbox(kit=run_dir / "kit", workspace=AGENTS, sockets=run_dir / "sock", log=run_dir / "agent.log",
                 memory_gb=memory_gb, cpu_seconds=cpu_seconds)
    assert sb.isolation == "sandbox"
    return SandboxHost(sb, module, timeout, fresh=fresh)


def _alive(pids):
    """The pids of `pids` still running (a zombie runs nothing)."""
    out = []
    for p in pids:
        try:
            state = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if state != "Z":
            out.append(p)
    return out


class _Census:
    """Every pid seen under a process while it runs (sampled every 50 ms)."""

    def __init__(self, root: int):
        import threading
        self.root, self.seen, self.done = root, set(), threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        from outputs.evaluator.sandbox import process_tree
        while not self.done.wait(0.05):
            self.seen |= set(process_tree(self.root, proc_stats()))

    def stop(self):
        self.done.set()
        self.thread.join()
        return self.seen


def _run(pack, agent, **kw):
    from outputs.evaluator.engine import EvalConfig, run_eval
    return run_eval(EvalConfig(pack=pack, task=TASK, agent=str(agent), **kw))


# --------------------------------------------------------------------------- what it sees

def test_no_process_of_the_sandbox_holds_the_evaluators_environment(run_dir, monkeypatch, evaluator_rss):
    canary = "ff-canary-" + os.urandom(8).hex()
    monkeypatch.setenv("FACTFORGE_TEST_CANARY", canary)
    h = _host(run_dir, "hostile_environ")
    try:
        h.start(None)
        seen = json.loads(h.step("go"))
    finally:
        h.close()
    assert "/proc/1/environ" in seen and "/proc/self/environ" in seen
    assert "FACTFORGE_KIT=/kit" in seen["/proc/self/environ"]         # it did read environments
    assert [p for p, text in seen.items() if canary in text or "FACTFORGE_TEST_CANARY" in text] == []
    assert "PYTHONPATH" not in seen["/proc/1/environ"] and "FACTFORGE" not in seen["/proc/1/environ"]
    assert evaluator_rss() < EVALUATOR_RISE_MAX, evaluator_rss() >> 20


def test_an_agent_file_beside_a_pack_sees_itself_alone_and_scores_zero(pack, tmp_path, evaluator_rss):
    run = tmp_path / "run"
    run.mkdir()
    shutil.copytree(pack, run / "pack")
    shutil.copyfile(AGENTS / "hostile_pack_reader.py", run / "agent.py")
    r = _run(run / "pack", run / "agent.py")
    assert r.summary.final_score == 0.0 and r.summary.mean_reward == 0.0
    for c in r.tests:
        report, _ = json.JSONDecoder().raw_decode(c.messages[1].content)
        assert report == {"workspace": ["agent.py"], "tests_found": 0}
    assert evaluator_rss() < EVALUATOR_RISE_MAX, evaluator_rss() >> 20


@pytest.mark.parametrize("planted", ["pack", "results.json", "sealed.json", "copy of a sealed file"])
def test_an_agent_folder_holding_anything_sealed_is_refused_with_one_line(pack, tmp_path, planted):
    from facts.errors import FactforgeError
    from outputs.packs.store import Pack, object_path
    folder = tmp_path / "agentdir"
    folder.mkdir()
    shutil.copyfile(AGENTS / "hostile_pack_reader.py", folder / "agent.py")
    if planted == "pack":
        shutil.copytree(pack, folder / "pack")
    elif planted == "copy of a sealed file":
        ref = next(r for r in Pack(pack).manifest(TASK, "sealed").files if r.path == "tests.json")
        shutil.copyfile(object_path(pack, ref.sha256), folder / "notes.dat")
    else:
        (folder / "data").mkdir()
        (folder / "data" / planted).write_text("{}")
    with pytest.raises(FactforgeError, match="the agent folder holds") as e:
        _run(pack, folder)
    assert "\n" not in str(e.value)


# --------------------------------------------------------------------------- bounded everything

def test_a_gigabyte_of_output_is_capped_on_the_host_and_read_from_the_end(run_dir, evaluator_rss):
    h = _host(run_dir, "hostile_flood", timeout=120)
    try:
        h.start(None)
        t0 = time.monotonic()
        with pytest.raises(AgentError, match=r"exited \(status 0\)") as e:
            h.step("go")
        assert time.monotonic() - t0 < 90
    finally:
        h.close()
    size = (run_dir / "agent.log").stat().st_size
    assert LOG_MAX <= size <= LOG_MAX + LOG_TAIL + 200
    assert "the flood's last words" in str(e.value)                    # the tail is the real end
    assert "bytes of output dropped" in (run_dir / "agent.log").read_bytes()[LOG_MAX:LOG_MAX + 200].decode()
    assert evaluator_rss() < EVALUATOR_RISE_MAX, evaluator_rss() >> 20


@pytest.mark.parametrize("probe,memory_gb,error", [
    ("tmp", 0.5, "memory limit"),          # 1 GiB into /tmp under a 0.5 GB task
    ("children", 0.5, "memory limit"),     # three children of 400 MB each under a 0.5 GB task
    ("fork", 4.0, "process limit"),        # a thousand processes
])
def test_memory_and_processes_are_limited_for_the_whole_sandbox(run_dir, probe, memory_gb, error, evaluator_rss):
    """Measured limits (no cgroup): the watchdog stops the sandbox past the limit. Under a
    cgroup the kernel may act first (an out-of-memory kill, a refused fork), which the
    agent survives at most to report fewer processes than the limit."""
    h = _host(run_dir, "hostile_memory", timeout=90, memory_gb=memory_gb)
    sb = h.sandbox
    try:
        h.start(None)
        census = _Census(sb.proc.pid)
        t0 = time.monotonic()
        try:
            out, err = h.step(probe), ""
        except AgentError as e:
            out, err = "", str(e)
        assert time.monotonic() - t0 < 45
    finally:
        h.close()
    seen = census.stop()
    if sb.limits == "measured":
        assert error in err
        assert (MAX_PROCESSES < sb.peak_processes) if probe == "fork" else (sb.peak_memory > sb.memory)
    else:
        assert error in err or "SIGKILL" in err or (probe == "fork" and int(out.split()[1]) < MAX_PROCESSES)
    assert sb.proc is None and len(seen) >= 4 and _alive(seen) == []   # every process of it is gone
    assert evaluator_rss() < EVALUATOR_RISE_MAX, evaluator_rss() >> 20


def test_the_sandbox_tmpfs_is_sized_to_the_tasks_memory(run_dir):
    sb = Sandbox(kit=run_dir / "kit", workspace=AGENTS, sockets=run_dir / "sock", log=run_dir / "agent.log",
                 memory_gb=0.5)
    argv = sb.argv()
    assert argv[argv.index("/tmp") - 3:argv.index("/tmp") + 1] == ["--size", str(1 << 29), "--tmpfs", "/tmp"]
    assert argv[argv.index("/dev/shm") - 3:argv.index("/dev/shm") - 1] == ["--size", str(1 << 29)]
    assert "--remount-ro" in argv


def test_with_cgroups_the_sandbox_runs_in_a_scope_limited_as_a_whole(run_dir, monkeypatch):
    """Where systemd-run accepts a transient scope, bwrap runs inside one with the task's memory
    and the process limit, started by `env -i` (no variable of the evaluator reaches bwrap)."""
    import outputs.evaluator.sandbox as sbmod
    monkeypatch.setattr(sbmod, "cgroup_prefix", lambda: ["/usr/bin/systemd-run", "--scope", "--quiet", "--collect"])
    sb = Sandbox(kit=run_dir / "kit", workspace=AGENTS, sockets=run_dir / "sock", log=run_dir / "agent.log",
                 memory_gb=0.5)
    argv = sb.argv()
    assert sb.limits == "cgroup"
    cut = argv.index("--")
    assert argv[:4] == ["/usr/bin/systemd-run", "--scope", "--quiet", "--collect"]
    assert {"MemoryMax=536870912", "MemorySwapMax=0", f"TasksMax={MAX_PROCESSES}"} <= set(argv[:cut])
    assert argv[cut + 1].endswith("env") and argv[cut + 2] == "-i" and argv[cut + 3].endswith("bwrap")


@pytest.mark.parametrize("message", ["big reply", "long"])
def test_an_oversized_reply_fails_fast_in_linear_time(run_dir, message, evaluator_rss):
    h = _host(run_dir, "hostile_forger", timeout=60)
    try:
        h.start(None)
        t0 = time.monotonic()
        with pytest.raises(AgentError, match=r"over the limit of 65536 bytes|over 1048576 bytes"):
            h.step(message)
        assert time.monotonic() - t0 < 10
        h.start(None)
        assert h.step("full reply") == "é" * (32 << 10)                 # 64 KiB of UTF-8: the most allowed
        assert len(("é" * (32 << 10)).encode()) == REPLY_MAX
    finally:
        h.close()
    assert evaluator_rss() < EVALUATOR_RISE_MAX, evaluator_rss() >> 20


# --------------------------------------------------------------------------- trials and the protocol

@pytest.mark.slow
def test_a_straggler_thread_never_reaches_the_next_trial(pack):
    r = _run(pack, AGENTS / "hostile_straggler.py", trials=3)
    tokens = []
    for c in r.tests:
        token = c.messages[1].content.split()[-1]
        mine = {e["arguments"]["customer_id"] for e in c.calls if e["operation"] == "get_customer"}
        assert mine and mine <= {f"straggler-{token}"}                  # only this conversation's process
        tokens.append(token)
    assert len(set(tokens)) == len(tokens) == 3 * r.summary.tests


def test_printing_bwraps_failure_is_the_agents_failure(run_dir):
    h = _host(run_dir, "hostile_fake_infra")
    try:
        h.start(None)
        with pytest.raises(AgentError, match=r"exited \(status 1\).*bwrap: Can't mount proc"):
            h.step("go")
    finally:
        h.close()


def test_a_sandbox_that_cannot_start_is_an_infrastructure_error(run_dir):
    sb = Sandbox(kit=run_dir / "no-such-kit", workspace=AGENTS, sockets=run_dir / "sock", log=run_dir / "agent.log")
    h = SandboxHost(sb, "agent", 30.0)
    try:
        with pytest.raises(InfraError, match="the sandbox did not start"):
            h.start(None)
    finally:
        h.close()


@pytest.mark.parametrize("message,error", [
    ("pid1", "did not sign"),
    ("own", "protocol channel"),
])
def test_a_forged_reply_is_never_recorded(run_dir, message, error):
    h = _host(run_dir, "hostile_forger")
    try:
        h.start(None)
        assert h.step("hello") == "honest"
        with pytest.raises(AgentError, match=error):
            h.step(message)
    finally:
        h.close()


@pytest.mark.parametrize("pause", [0.0, 1.0])
def test_an_injected_request_is_never_taken_for_the_evaluators(run_dir, pause):
    """The runner reads the injected line as soon as it has answered, refuses it and exits;
    the next request gets that refusal whether or not the sandbox has ended by then (it is
    never restarted halfway through a conversation)."""
    h = _host(run_dir, "hostile_forger")
    try:
        h.start(None)
        assert h.step("inject") == "honest"
        time.sleep(pause)
        with pytest.raises(AgentError, match="protocol channel"):
            h.step("hello")
    finally:
        h.close()


def test_the_key_is_out_of_the_agents_reach(run_dir):
    """The supervisor is not dumpable: the agent can neither read its memory nor its fds."""
    h = _host(run_dir, "hostile_environ")
    try:
        h.start(None)
        seen = json.loads(h.step("go"))
    finally:
        h.close()
    supervisors = [p.rsplit("/", 1)[0] for p, text in seen.items()
                   if p.endswith("/cmdline") and "runner.py" in text and "worker" not in text
                   and "--unshare-all" not in text]                    # not bwrap's init
    assert len(supervisors) == 1
    for proc in supervisors:
        assert seen[f"{proc}/environ"].startswith("! PermissionError")


def test_reference_agents_keep_their_scores(pack):
    assert {c.reward for c in _run(pack, "oracle").tests} == {1.0}
    assert {c.reward for c in _run(pack, "null").tests} == {0.0}


def test_the_evaluator_cli_answers_in_one_line_for_an_agent_folder_with_a_pack(pack, tmp_path):
    folder = tmp_path / "agentdir"
    folder.mkdir()
    (folder / "agent.py").write_text("def create_agent():\n    return None\n")
    shutil.copytree(pack, folder / "pack")
    p = subprocess.run([str(Path(sys.executable).parent / "factforge"), "eval", str(pack), "--task", TASK,
                        "--agent", str(folder), "--out", str(tmp_path / "out")], capture_output=True, text=True,
                        timeout=300, cwd=ROOT)
    lines = [line for line in (p.stderr + p.stdout).splitlines() if line.strip()]
    assert p.returncode != 0 and len(lines) == 1 and "pack/index.json" in lines[0]
    assert not (tmp_path / "out").exists()


def test_the_kit_contract_names_the_sandbox_limits(pack):
    from outputs.packs.store import Pack
    text = " ".join(Pack(pack).read(TASK, "kit", "AGENT_CONTRACT.md").decode("utf-8").split())
    for phrase in (f"at most {REPLY_MAX // 1024} KiB ({REPLY_MAX:,} bytes of UTF-8)",
                   f"at most {MAX_PROCESSES} processes", f"up to {LOG_MAX >> 20} MiB per run",
                   "`/tmp` and `/dev/shm` hold", "must hold only the agent"):
        assert phrase in text, phrase


def test_the_pack_reader_would_replay_the_gold_were_the_pack_in_its_workspace(pack, tmp_path, monkeypatch):
    """The same agent, given the folder beside it as its workspace, finds the sealed tests and
    gets every database and every value to communicate right: the containment above is what
    stops it."""
    import outputs.evaluator.engine as engine
    run = tmp_path / "run"
    run.mkdir()
    shutil.copytree(pack, run / "pack")
    shutil.copyfile(AGENTS / "hostile_pack_reader.py", run / "agent.py")
    monkeypatch.setattr(engine, "agent_workspace", lambda path, dest: path.parent)
    r = _run(run / "pack", run / "agent.py")
    found = [json.JSONDecoder().raw_decode(c.messages[1].content)[0]["tests_found"] for c in r.tests]
    assert min(found) > 0
    assert [(c.breakdown["DB"].score, c.breakdown["COMMUNICATE"].score) for c in r.tests] == [(1.0, 1.0)] * len(r.tests)
