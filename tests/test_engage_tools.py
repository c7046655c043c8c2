"""The engagement's developer tools (`outputs.engage`): the same steps through the official
MCP client SDK (over the `ff-mcp` relay) and through `ff` give the same events and usage;
quotas refuse the N+1th call and record it; a live result carries no gold; hostile requests
get one line and the service keeps serving."""
from __future__ import annotations

import ast
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ENGAGE = ROOT / "outputs" / "engage"
FF, RELAY = ENGAGE / "ff", ENGAGE / "relay.py"
TASK = "_mock-client-knows"
PY = shutil.which("python3") or sys.executable       # the system interpreter: ff and ff-mcp need no site packages
HELD_QUESTION = "Do pass holders get a discount on late fees?"
MOCK_REPLY = "Thank you for contacting Pedalwise Rentals."

AGENT = '''"""Answers the deposit question; model-free."""


class Agent:
    def get_init_state(self):
        return {"turn": 0}

    def generate_next_message(self, message, state):
        turn = state["turn"] + 1
        if turn == 1:
            return ("Thank you for contacting Pedalwise Rentals. The deposit is refunded to the original payment "
                    "method within 5 business days."), {"turn": turn}
        return "You are welcome.", {"turn": turn}


def create_agent():
    return Agent()
'''

# the same steps, as tool calls and as ff command lines
STEPS = [
    (("ask_owner", {"message": HELD_QUESTION}), ["ask", HELD_QUESTION]),
    (("call_api", {"method": "GET", "path": "/customers/CU1000"}), ["api", "GET", "/customers/CU1000"]),
    (("run_samples", {}), ["samples"]),
    (("run_live", {}), ["live"]),
    (("list_models", {}), ["models"]),
    (("submit", {"note": "done"}), ["submit", "done"]),
]


@pytest.fixture()
def workspace(mock_task_pack, tmp_path):
    from outputs.packs.store import Pack
    kit = Pack(mock_task_pack).materialize(TASK, "kit", tmp_path / "kit")
    ws = shutil.copytree(kit / "workspace", tmp_path / "workspace")
    (ws / "agent.py").write_text(AGENT, encoding="utf-8")
    return ws


def _service(pack, ws, **kw):
    from outputs.engage.tools import ToolService
    return ToolService(pack, TASK, ws, isolation="process", gateway_mock_response=MOCK_REPLY, **kw)


@pytest.fixture()
def served(mock_task_pack, workspace):
    """(service, socket folder): a started service, stopped at the end."""
    svc = _service(mock_task_pack, workspace)
    sock = Path(tempfile.mkdtemp(prefix="ff-", dir="/tmp"))
    svc.start(sock)
    yield svc, sock
    svc.stop()
    shutil.rmtree(sock, ignore_errors=True)


def _ff(sock: Path, *argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([PY, "-I", "-S", str(FF), *argv], capture_output=True, text=True, timeout=300,
                          env={"FF_SOCKETS": str(sock), "PATH": os.environ.get("PATH", "/usr/bin:/bin")})


def _mcp(sock: Path, steps: list[tuple[str, dict]]) -> tuple[list[str], list]:
    """(tool names listed, results) of one MCP session through the relay, with the SDK's client."""
    import anyio
    from mcp import ClientSession, StdioServerParameters, stdio_client

    out: list = []

    async def session() -> list[str]:
        params = StdioServerParameters(command=PY, args=["-I", "-S", str(RELAY)], env={"FF_SOCKETS": str(sock)})
        async with stdio_client(params) as (r, w), ClientSession(r, w) as s:
            await s.initialize()
            names = [t.name for t in (await s.list_tools()).tools]
            for name, args in steps:
                out.append(await s.call_tool(name, args))
            return names

    return anyio.run(session), out


def _held(pack) -> list[str]:
    from outputs.packs.store import Pack
    return [f["fact_id"] for f in Pack(pack).json(TASK, "sealed", "client.json")["held"]]


def _comparable(events: list[dict]) -> list[dict]:
    return [{k: v for k, v in e.items() if k not in ("t", "seconds", "face")} for e in events]


@pytest.mark.slow
def test_mcp_session_through_the_relay_runs_every_tool(served, mock_task_pack):
    svc, sock = served
    names, results = _mcp(sock, [s[0] for s in STEPS])
    assert names == [t["name"] for t in svc.tools]
    assert not any(r.is_error for r in results), [r.content[0].text for r in results if r.is_error]
    owner, api, samples, live, models, submitted = [r.structured_content for r in results]
    assert owner["turn"] == 1 and owner["remaining"] == 7 and "20%" in owner["reply"]
    assert api["status"] == 200 and api["body"]["id"] == "CU1000"
    assert [s["id"] for s in samples["scenarios"]] == svc.training_ids and samples["run"] == 1
    assert live["summary"] == {**live["summary"], "conversations": 1, "passed": 1}
    assert [m["name"] for m in models["models"]] == ["mid-fast", "small-fast"]
    assert submitted["submitted"] is True and svc.submitted.is_set()
    u = svc.usage()
    held = _held(mock_task_pack)
    assert u["owner"]["held_elicited"] == held and u["owner"]["held_total"] == len(held) == 1
    assert u["owner"]["turns"] == 1 and u["owner"]["quota"] == 8
    assert u["api_calls"] == 1 and u["api_tool_calls"] == 1
    assert (u["samples"]["runs"], u["samples"]["quota"], u["live"]["runs"], u["live"]["quota"]) == (1, 10, 1, 2)
    assert [e["tool"] for e in svc.events] == [s[0][0] for s in STEPS] and all(e["face"] == "mcp" for e in svc.events)
    assert svc.events[0]["kind"] == "answer" and svc.events[0]["revealed"] == held
    # the engagement is over: every further call is refused, and recorded
    _, (after,) = _mcp(sock, [("ask_owner", {"message": HELD_QUESTION})])
    assert after.is_error and "submitted" in after.content[0].text
    assert svc.events[-1]["ok"] is False and svc.events[-1]["reason"] == "ended"


@pytest.mark.slow
def test_ff_gives_the_same_events_and_usage_as_mcp(mock_task_pack, workspace, tmp_path):
    runs = {}
    for face in ("mcp", "ff"):
        ws = shutil.copytree(workspace, tmp_path / f"ws-{face}")
        svc = _service(mock_task_pack, ws)
        sock = Path(tempfile.mkdtemp(prefix="ff-", dir="/tmp"))
        try:
            svc.start(sock)
            if face == "mcp":
                _, results = _mcp(sock, [s[0] for s in STEPS])
                printed = [r.structured_content for r in results]
            else:
                done = [_ff(sock, *s[1]) for s in STEPS]
                assert [d.returncode for d in done] == [0] * len(STEPS), [d.stderr for d in done]
                printed = [json.loads(d.stdout) for d in done]
            runs[face] = (_comparable(svc.events), svc.usage(), printed)
            assert {e["face"] for e in svc.events} == {face}
        finally:
            svc.stop()
            shutil.rmtree(sock, ignore_errors=True)
    assert runs["ff"][0] == runs["mcp"][0]
    assert runs["ff"][1] == runs["mcp"][1]
    strip = lambda r: json.loads(json.dumps(r).replace('"seconds"', '"s"'))  # noqa: E731
    for a, b in zip(runs["ff"][2], runs["mcp"][2]):
        assert a.keys() == b.keys()
    assert runs["ff"][2][0] == runs["mcp"][2][0] and strip(runs["ff"][2][1]) == strip(runs["mcp"][2][1])


@pytest.mark.slow
def test_quotas_refuse_the_next_call_and_record_it(served):
    from outputs.engage.tools import ToolError
    svc, sock = served
    for i in range(8):
        svc.call("ask_owner", {"message": f"Question {i}: what is the late fee?"})
    r = _ff(sock, "ask", HELD_QUESTION)
    assert r.returncode == 1 and r.stdout == ""
    assert r.stderr == "ff: owner quota spent: 8 of 8 questions asked; work from the records\n"
    assert svc.usage()["owner"]["turns"] == 8 and svc.usage()["owner"]["held_elicited"] == []
    assert svc.events[-1] == {**svc.events[-1], "tool": "ask_owner", "ok": False, "reason": "quota", "face": "ff"}
    svc.quotas["live"] = 1
    assert svc.call("run_live", {})["remaining"] == 0
    with pytest.raises(ToolError, match=r"^live run quota spent: 1 of 1 used$"):
        svc.call("run_live", {})
    _, (mcp_refused,) = _mcp(sock, [("run_live", {})])
    assert mcp_refused.is_error and mcp_refused.content[0].text == "live run quota spent: 1 of 1 used"
    assert svc.usage()["live"] == {**svc.usage()["live"], "runs": 1, "quota": 1}
    assert [e["reason"] for e in svc.events if e["tool"] == "run_live" and not e["ok"]] == ["quota", "quota"]


def test_a_run_that_cannot_start_costs_no_quota(served):
    from outputs.engage.tools import ToolError
    svc, _ = served
    (svc.workspace / "agent.py").unlink()
    with pytest.raises(ToolError, match="no agent.py"):
        svc.call("run_samples", {})
    assert svc.usage()["samples"]["runs"] == 0 and svc.events[-1]["ok"] is False


def test_a_live_result_holds_no_gold(mock_task_pack, workspace):
    from domains.simtests import SimTest
    from outputs.packs.store import Pack
    svc = _service(mock_task_pack, workspace)
    result = svc.call("run_live", {})
    text = json.dumps(result)
    pack = Pack(mock_task_pack)
    assert result["conversations"] and result["conversations"][0]["passed"] is True
    for t in (SimTest.model_validate(x) for x in pack.json(TASK, "sealed", "live.json")):
        ff = t.factforge
        for h in (ff.expected_db_hash, ff.initial_db_hash, ff.naive_db_hash):
            assert h not in text
        for a in t.evaluation_criteria.actions:
            assert json.dumps(a.arguments) not in text and a.action_id not in text
        for fid in ff.fact_ids:
            assert fid not in text
    sealed_db, dev_db = pack.json(TASK, "sealed", "db.json"), pack.json(TASK, "kit", "data/dev_db.json")
    for table, rows in sealed_db.items():
        for key, row in (rows.items() if isinstance(rows, dict) else []):
            if dev_db.get(table, {}).get(key) != row:
                assert json.dumps(row) not in text
    assert pack.json(TASK, "sealed", "task.json")["test_db_hash"] not in text
    for conv in result["conversations"]:
        assert set(conv) == {"id", "trial", "passed", "end", "error", "infra_error", "messages", "calls", "credits",
                             "seconds"}
        assert all(set(c) == {"operation", "status", "committed"} for c in conv["calls"])


def _line(sock_path: Path, payload: bytes) -> dict:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(30)
    s.connect(str(sock_path))

    def send() -> None:
        try:
            s.sendall(payload)
        except OSError:
            pass

    t = threading.Thread(target=send, daemon=True)
    t.start()
    data = b""
    while not data.endswith(b"\n"):
        chunk = s.recv(1 << 16)
        if not chunk:
            break
        data += chunk
    s.close()
    return json.loads(data)


def test_hostile_requests_get_one_line_and_the_service_keeps_serving(served):
    from outputs.engage.faces import MAX_LINE
    svc, sock = served
    tools = sock / "tools.sock"
    bad = [b"not json\n", b"[" * 100_000 + b"\n", b'{"tool": "ask_owner", "args": []}\n', b'{"tool": "rm -rf"}\n',
           b'{"tool": "ask_owner", "args": {"message": "hi"}, "extra": 1}\n', b'"just a string"\n',
           json.dumps({"tool": "ask_owner", "args": {"message": "x" * 10_000}}).encode() + b"\n",
           json.dumps({"tool": "ask_owner", "args": {"message": "  "}}).encode() + b"\n",
           json.dumps({"tool": "run_live", "args": {"id": "../../sealed/tests.json"}}).encode() + b"\n",
           json.dumps({"tool": "run_samples", "args": {"ids": "/etc/passwd"}}).encode() + b"\n",
           b"x" * (MAX_LINE + 10)]
    for path in ("/../../etc/passwd", "/customers/%2e%2e/x", "//evil.example/x", "http://evil.example/", "customers",
                 "/a b", "/a\\b"):
        bad.append(json.dumps({"tool": "call_api", "args": {"method": "GET", "path": path}}).encode() + b"\n")
    for args in ({"method": "TRACE", "path": "/x"}, {"method": "GET", "path": "/x", "body": {"a": 1}},
                 {"method": "POST", "path": "/rentals", "headers": {"Host": "evil"}},
                 {"method": "POST", "path": "/rentals", "headers": {"X-A": "1\r\nX-B: 2"}},
                 {"method": "POST", "path": "/rentals", "body": "y" * (3 << 19)}):
        bad.append(json.dumps({"tool": "call_api", "args": args}).encode() + b"\n")
    replies = [_line(tools, b) for b in bad]
    for b, r in zip(bad, replies):
        assert r["ok"] is False and r["error"] and "\n" not in r["error"] and "Traceback" not in r["error"], b[:80]
    assert "at most" in replies[10]["error"]
    # the MCP socket: a line that is not JSON-RPC, then an oversized one; both only end their own session
    for payload in (b"garbage\n", b"y" * (MAX_LINE + 10)):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(30)
        s.connect(str(sock / "mcp.sock"))
        try:
            s.sendall(payload)
            s.shutdown(socket.SHUT_WR)
            while s.recv(1 << 16):
                pass
        except OSError:
            pass
        s.close()
    assert sum(1 for e in svc.events if e["face"] == "mcp" and not e["ok"]) == 2
    # ff's own argument mistakes, then the service still answers both faces
    r = _ff(sock, "api", "POST", "/rentals", "{not json")
    assert r.returncode == 1 and r.stderr.count("\n") == 1 and r.stderr.startswith("ff: not JSON")
    names, (ok,) = _mcp(sock, [("ask_owner", {"message": HELD_QUESTION})])
    assert "ask_owner" in names and not ok.is_error
    assert _ff(sock, "models").returncode == 0
    assert svc.usage()["owner"]["turns"] == 1 and svc.usage()["refused"] == len(bad) + 2


def test_without_the_service_ff_and_the_relay_say_so_in_one_line(tmp_path):
    r = _ff(tmp_path, "models")
    assert r.returncode == 1 and r.stderr.startswith("ff: cannot reach the engagement's tools") and r.stderr.count("\n") == 1
    r = subprocess.run([PY, "-I", "-S", str(RELAY)], input="", capture_output=True, text=True, timeout=60,
                       env={"FF_SOCKETS": str(tmp_path)})
    assert r.returncode == 1 and r.stderr.startswith("ff-mcp: cannot reach") and r.stderr.count("\n") == 1


@pytest.mark.parametrize("program", [FF, RELAY])
def test_ff_and_the_relay_import_the_standard_library_only(program):
    tree = ast.parse(program.read_text(encoding="utf-8"))
    mods = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    mods |= {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    assert mods and mods <= set(sys.stdlib_module_names), mods - set(sys.stdlib_module_names)
    assert os.access(program, os.X_OK) and program.read_text().startswith("#!/usr/bin/env python3\n")


def test_the_raw_api_and_the_experiment_gateway_sockets(served, mock_task_pack):
    import httpx

    from domains.apikit import db_hash
    from outputs.packs.menu import load_menu
    from outputs.packs.store import Pack
    svc, sock = served
    dev_db = Pack(mock_task_pack).json(TASK, "kit", "data/dev_db.json")
    assert svc.api.state.layer.runtime.mode == "dev" and db_hash(svc.api.state.db) == db_hash(dev_db)
    with httpx.Client(transport=httpx.HTTPTransport(uds=str(sock / "api.sock")), base_url="http://api") as c:
        assert c.get("/customers/CU1001").json()["id"] == "CU1001"
    with httpx.Client(transport=httpx.HTTPTransport(uds=str(sock / "gateway.sock")), base_url="http://gw",
                      timeout=120) as c:
        for _ in range(2):
            r = c.post("/v1/chat/completions", json={"model": "mid-fast", "messages": [{"role": "user", "content": "hi"}]})
            assert r.status_code == 200, r.text
        assert c.post("/v1/chat/completions", json={"model": "frontier-large", "messages": [
            {"role": "user", "content": "hi"}]}).status_code == 403      # off the task's menu
    u = svc.usage()
    assert u["api_calls"] == 1 and u["api_tool_calls"] == 0 and svc.events == []
    want = 2 * load_menu("standard-1").menu.credits("mid-fast", 10, 20)
    assert u["models"]["tried"] == ["mid-fast"] and u["models"]["calls"] == 2
    assert u["models"]["credits"] == pytest.approx(want)
    assert svc.call("list_models", {})["experiment_credits"] == pytest.approx(want)


def test_a_task_without_a_client_refuses_owner_questions(mock_task_pack, tmp_path):
    from outputs.engage.tools import ToolError, ToolService
    svc = ToolService(mock_task_pack, "_mock-records-only", tmp_path, isolation="process")
    with pytest.raises(ToolError, match="no owner to ask"):
        svc.call("ask_owner", {"message": HELD_QUESTION})
    with pytest.raises(ToolError, match="no agent.py"):
        svc.call("run_live", {})
    u = svc.usage()
    assert u["owner"] == {**u["owner"], "turns": 0, "quota": 0, "held_total": 0}
    assert [e["reason"] for e in svc.events] == ["no_client", "refused"] and u["live"]["runs"] == 0


def _stop(proc: subprocess.Popen) -> None:
    """SIGTERM, then 30 s to end; a process still there fails the test with what the kernel
    says of it (state, blocked, ignored and pending signals, where it waits), then is killed."""
    proc.terminate()
    try:
        proc.wait(timeout=30)
        return
    except subprocess.TimeoutExpired:
        pass
    seen = []
    for name in ("status", "wchan"):
        try:
            text = Path(f"/proc/{proc.pid}/{name}").read_text()
        except OSError as e:
            text = str(e)
        seen += [line for line in text.splitlines()
                 if name == "wchan" or line.split(":")[0] in ("Name", "State", "SigPnd", "ShdPnd", "SigBlk",
                                                             "SigIgn", "SigCgt", "Threads")]
    proc.kill()
    proc.wait(timeout=30)
    pytest.fail(f"the relay did not end on SIGTERM within 30 s: {'; '.join(seen)}")


def test_mcp_over_streamable_http_through_the_relay(served, mock_task_pack):
    import anyio
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    svc, sock = served
    relay = subprocess.Popen([PY, "-I", "-S", str(RELAY), "--http", "0"], stdout=subprocess.PIPE, text=True,
                             env={"FF_SOCKETS": str(sock)})
    try:
        url = relay.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:") and url.endswith("/mcp")

        async def session():
            async with streamable_http_client(url) as (r, w), ClientSession(r, w) as s:
                await s.initialize()
                names = [t.name for t in (await s.list_tools()).tools]
                return names, await s.call_tool("ask_owner", {"message": HELD_QUESTION})

        names, answer = anyio.run(session)
    finally:
        _stop(relay)
    assert names == [t["name"] for t in svc.tools] and not answer.is_error
    assert svc.usage()["owner"]["held_elicited"] == _held(mock_task_pack)
    assert [(e["tool"], e["face"]) for e in svc.events] == [("ask_owner", "mcp-http")]


def test_connections_beyond_the_limit_are_refused_and_the_socket_folder_is_checked(served, tmp_path):
    from facts.errors import FactforgeError
    from outputs.engage.faces import MAX_CONNECTIONS
    svc, sock = served
    held = []
    try:
        for _ in range(MAX_CONNECTIONS):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(str(sock / "tools.sock"))
            held.append(s)
        refused = _line(sock / "tools.sock", b"")
        assert refused == {"ok": False, "error": f"too many connections (at most {MAX_CONNECTIONS})"}
    finally:
        for s in held:
            s.close()
    assert _ff(sock, "models").returncode == 0          # served again once they are gone
    (tmp_path / "tools.sock").write_text("not a socket")
    with pytest.raises(FactforgeError, match="exists and is not a socket"):
        _service(svc.pack_dir, svc.workspace).start(tmp_path)
    assert (tmp_path / "tools.sock").read_text() == "not a socket"


def test_the_tools_import_no_dagster_and_no_media_library():
    code = ("import sys, outputs.engage.tools\n"
            "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('dagster', 'moviepy', 'PIL', 'reportlab', "
            "'pytesseract', 'pocketsphinx', 'cv2', 'imageio', 'matplotlib', 'pypdf', 'openpyxl', 'litellm'))\n"
            "print(bad)")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env={"PYTHONPATH": str(ROOT)},
                       timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "[]"
