"""Serving a built pack's task: in-process (`ApiServer.from_pack`), as a subprocess
(`factforge api serve`, which prints its address as one JSON line and stops cleanly on
SIGTERM), and the client simulator from the pack (`ClientSimulator.from_pack`,
`factforge client chat`); user mistakes are one line with exit 1, usage mistakes exit 2."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from domains.apikit import db_hash
from outputs.api.server import ApiServer
from outputs.client.simulator import ClientSimulator
from outputs.packs.store import Pack

ROOT = Path(__file__).resolve().parents[1]
TASK = "_mock-client-knows"


@pytest.fixture(scope="module")
def pack(mock_task_pack_copy):
    return mock_task_pack_copy


def _env(**extra) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT), **extra}
    env.pop("FACTFORGE_DEBUG", None)
    return env


def _cli(*args, stdin: str = "", **extra) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pipeline.cli", *args], input=stdin, capture_output=True, text=True,
                          env=_env(**extra), cwd=ROOT, timeout=300)


def test_from_pack_serves_the_sealed_database_or_the_kit_data(pack):
    p = Pack(pack)
    sealed, dev = p.json(TASK, "sealed", "db.json"), p.json(TASK, "kit", "data/dev_db.json")
    assert db_hash(sealed) != db_hash(dev)
    with ApiServer.from_pack(pack, TASK) as srv, httpx.Client(base_url=srv.url) as c:
        assert db_hash(srv.state.db) == db_hash(sealed)
        assert c.get("/_health").json()["deployment"] == "clean"
        assert c.get("/openapi.json").json()["paths"].keys() == p.json(TASK, "kit", "api/openapi.json")["paths"].keys()
    with ApiServer.from_pack(pack, TASK, dev=True) as srv:
        assert db_hash(srv.state.db) == db_hash(dev) and srv.state.layer.runtime.mode == "dev"


def test_api_serve_subprocess_prints_its_address_and_stops_on_sigterm(pack, tmp_path):
    proc = subprocess.Popen([sys.executable, "-m", "pipeline.cli", "api", "serve", str(pack), "--task", TASK,
                             "--clock", "virtual"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=_env(FACTFORGE_API_ADMIN_TOKEN="tok"), cwd=ROOT)
    try:
        ready = json.loads(proc.stdout.readline())
        assert ready["task"] == TASK and ready["clock"] == "virtual" and ready["deployment"] == "clean"
        with httpx.Client(base_url=ready["url"], timeout=30) as c:
            customers = c.get("/openapi.json").json()
            assert customers["openapi"].startswith("3.1")
            assert c.post("/_clock/wait", json={"seconds": 90}).json()["now_s"] == 90
            c.get("/customers/CU1000")
            log = c.get("/_admin/log", headers={"Authorization": "Bearer tok"}).json()
            assert [e["operation"] for e in log["entries"]] == ["get_customer"] and log["task_id"] == TASK
    finally:
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert "Traceback" not in err


def test_api_serve_over_a_unix_socket(pack, tmp_path):
    sock = tmp_path / "api.sock"
    proc = subprocess.Popen([sys.executable, "-m", "pipeline.cli", "api", "serve", str(pack), "--task", TASK,
                             "--uds", str(sock)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=_env(), cwd=ROOT)
    try:
        ready = json.loads(proc.stdout.readline())
        assert ready["url"].startswith("http+unix://") and ready["clock"] == "real"
        with httpx.Client(transport=httpx.HTTPTransport(uds=str(sock)), base_url="http://api") as c:
            assert c.get("/customers/CU1000").status_code == 200
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=30)
    assert proc.returncode == 0 and not sock.exists()


@pytest.mark.parametrize("args, problem", [
    (["api", "serve", "{pack}", "--task", "nope"], "no task 'nope' in this pack"),
    (["api", "serve", "{tmp}", "--task", TASK], "not a task pack"),
    (["client", "chat", "{pack}", "--task", "_mock-records-only"], "has no client to interview"),
])
def test_cli_mistakes_are_one_line(pack, tmp_path, args, problem):
    r = _cli(*[a.format(pack=pack, tmp=tmp_path) for a in args])
    assert r.returncode == 1, r.stderr
    assert problem in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr


@pytest.mark.parametrize("args, problem", [
    (["api", "serve", "{pack}", "--task", TASK, "--clock", "fast"], "'fast' is not one of 'real', 'virtual'"),
    (["api", "serve", "{pack}", "--task", TASK, "--port", "70000"], "'--port'"),
    (["client", "chat", "{pack}", "--task", TASK, "--mode", "llm"], "--mode llm needs --model"),
    (["client", "chat", "{pack}", "--task", TASK, "--mode", "chatty"], "'chatty' is not one of 'offline', 'llm'"),
])
def test_cli_usage_mistakes_are_one_line_with_exit_2(pack, tmp_path, args, problem):
    r = _cli(*[a.format(pack=pack, tmp=tmp_path) for a in args])
    assert r.returncode == 2, r.stderr
    assert problem in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    command = " ".join(["factforge", *args[:2]])
    assert r.stderr.startswith(f"error: {command}: ") and r.stderr.rstrip().endswith(f"(see '{command} --help')")


def test_client_chat_reads_stdin_and_writes_the_log(pack, tmp_path):
    log = tmp_path / "client.json"
    questions = ["What rules do you have?", "Do pass holders get a discount on late fees?",
                 "Is a standard rental 24 hours?", "Is a standard rental 12 hours?"]
    r = _cli("client", "chat", str(pack), "--task", TASK, "--json", "--log", str(log), stdin="\n".join(questions) + "\n")
    assert r.returncode == 0, r.stderr
    replies = [json.loads(x) for x in r.stdout.splitlines()]
    assert [x["kind"] for x in replies] == ["vague", "answer", "confirm", "deny"]
    assert replies[1]["text"] == "Pass holders get a 20% discount on late fees."
    saved = json.loads(log.read_text())
    assert [e["message"] for e in saved["exchanges"]] == questions and saved["task_id"] == TASK
    assert _cli("client", "chat", str(pack), "--task", TASK, "--show-prompt").stdout == \
        ClientSimulator.from_pack(pack, TASK).prompt


def test_simulator_from_pack_uses_the_sealed_knowledge(pack):
    p = Pack(pack)
    client = p.json(TASK, "sealed", "client.json")
    sim = ClientSimulator.from_pack(pack, TASK)
    assert sim.remaining == client["turn_quota"]
    for held in client["held"]:
        assert held["statement"] in sim.prompt
    for c in client["contested"]:
        r = sim.reply(f"Which is right: {c['statement']} or {c['conflicting_statement']}")
        assert r.kind == "in_force" and c["statement"] in r.text


def test_server_and_simulator_import_no_dagster_and_no_media(pack):
    code = ("import sys; import outputs.api.server, outputs.api.refclient, outputs.api.cli, outputs.client.cli; "
            "from outputs.api.server import ApiServer; from outputs.client.simulator import ClientSimulator; "
            f"s = ApiServer.from_pack({str(pack)!r}, {TASK!r}); c = ClientSimulator.from_pack({str(pack)!r}, {TASK!r}); "
            "c.reply('What about fees?'); "
            "bad = sorted(m for m in sys.modules if m.split('.')[0] in {'dagster', 'moviepy', 'PIL', 'reportlab', "
            "'matplotlib', 'pytesseract', 'pocketsphinx', 'pandas', 'openpyxl', 'pypdf', 'litellm', 'transforms', "
            "'audits', 'pipeline'}); print(bad)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=_env(), cwd=ROOT, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"


@pytest.mark.slow
def test_pack_build_refuses_a_deployment_the_server_cannot_load(tmp_path):
    import shutil

    from domains import get_pack, load_pack
    from facts.errors import FactforgeError
    from outputs.packs.build import resolve_deployment
    from outputs.packs.spec import load_spec

    src = get_pack("_mock")
    dst = tmp_path / "_mock"
    shutil.copytree(src.path, dst, ignore=shutil.ignore_patterns("__pycache__"))
    bad = dst / "deployments" / "flaky-shop.toml"
    bad.write_text(bad.read_text().replace('operations = ["start_rental"]', 'operations = ["start_rentals"]'))
    spec = dst / "tasks" / f"{TASK}.toml"
    spec.write_text(spec.read_text().replace('deployment = "clean"', 'deployment = "flaky-shop"'))
    with pytest.raises(FactforgeError) as e:
        resolve_deployment(load_pack(dst), load_spec(spec))
    assert "unknown operation 'start_rentals'" in e.value.problem and e.value.file == str(bad)
    assert "start_rentals" in bad.read_text().splitlines()[e.value.line - 1]
