"""The model gateway: menu models only, each model's constraints, credits metered from usage,
a response without usage is an error. Driven by litellm's mock_response (never a live call)."""
from __future__ import annotations

import http.client
import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from outputs.evaluator.gateway import ModelGateway
from outputs.packs.menu import load_menu

MSG = [{"role": "user", "content": "hello"}]


@pytest.fixture(scope="module")
def menu():
    return load_menu("standard-1").menu


def _gw(menu, allowed=("mid-fast", "small-fast"), **kw):
    kw.setdefault("mock_response", "Hi, how can I help?")
    return ModelGateway(menu, list(allowed), **kw)


def test_menu_model_answers_and_is_metered_from_usage(menu):
    gw = _gw(menu)
    gw.begin()
    status, body = gw.handle({"model": "mid-fast", "messages": MSG, "temperature": 0.2})
    assert status == 200 and body["model"] == "mid-fast"
    assert body["choices"][0]["message"]["content"] == "Hi, how can I help?"
    status, _ = gw.handle({"model": "small-fast", "messages": MSG})
    ledger = gw.end()
    # litellm's mock usage: 10 prompt, 20 completion tokens
    want = (10 * 0.5 + 20 * 3.2) / 1e6 + (10 * 0.25 + 20 * 1.6) / 1e6
    assert ledger.credits == pytest.approx(want)
    assert [(u.model, u.prompt_tokens, u.completion_tokens) for u in ledger.usage] == \
        [("mid-fast", 10, 20), ("small-fast", 10, 20)]
    assert gw.end().credits == 0.0                                    # a new conversation starts at zero


@pytest.mark.parametrize("body,status,code", [
    ({"model": "frontier-large", "messages": MSG}, 403, "model_not_allowed"),           # on the menu, not the task's
    ({"model": "anthropic/claude-haiku-4-5", "messages": MSG}, 403, "model_not_allowed"),  # the private litellm name
    ({"model": "gpt-4o", "messages": MSG}, 403, "model_not_allowed"),
    ({"model": "small-fast", "messages": MSG, "temperature": 0.0}, 422, "invalid_argument"),  # small-fast: 1.0 only
    ({"model": "mid-fast", "messages": MSG, "temperature": 1.5}, 422, "invalid_argument"),
    ({"model": "mid-fast", "messages": MSG, "max_tokens": 9000}, 422, "invalid_argument"),
    ({"model": "mid-fast", "messages": MSG, "api_base": "http://evil"}, 422, "invalid_argument"),
    ({"model": "mid-fast", "messages": []}, 422, "invalid_argument"),
    ({"model": "mid-fast", "messages": [{"role": "user", "content": "x" * 900_000}]}, 422, "context_window_exceeded"),
    ("not an object", 400, "bad_request"),
])
def test_constraints_refuse_without_reaching_a_model(menu, body, status, code):
    calls = []
    gw = _gw(menu, completion=lambda **kw: calls.append(kw))
    gw.begin()
    got, payload = gw.handle(body)
    assert (got, payload["error"]["code"]) == (status, code)
    assert calls == [] and gw.end().credits == 0.0


def test_call_limit_per_conversation(menu):
    m = menu.model_copy(deep=True)
    m.models = [x.model_copy(update={"max_calls_per_conversation": 2}) if x.name == "mid-fast" else x for x in m.models]
    gw = _gw(m)
    gw.begin()
    assert [gw.handle({"model": "mid-fast", "messages": MSG})[0] for _ in range(3)] == [200, 200, 429]
    assert len(gw.end().usage) == 2
    gw.begin()
    assert gw.handle({"model": "mid-fast", "messages": MSG})[0] == 200      # the limit is per conversation


def test_response_without_usage_is_an_error_never_free(menu):
    import litellm
    no_usage = litellm.ModelResponse(choices=[{"message": {"role": "assistant", "content": "x"}}], usage=None)
    gw = _gw(menu, mock_response=no_usage)
    gw.begin()
    status, body = gw.handle({"model": "mid-fast", "messages": MSG})
    ledger = gw.end()
    assert (status, body["error"]["code"]) == (502, "no_usage")
    assert ledger.errors and "without token usage" in ledger.errors[0]


def test_upstream_failure_is_recorded(menu):
    def boom(**kw):
        raise TimeoutError("provider down")
    gw = _gw(menu, completion=boom)
    gw.begin()
    status, body = gw.handle({"model": "mid-fast", "messages": MSG})
    ledger = gw.end()
    assert (status, body["error"]["code"]) == (502, "upstream_error")
    assert ledger.errors and ledger.usage[0].ok is False


class _Unix(http.client.HTTPConnection):
    def __init__(self, path):
        super().__init__("localhost", timeout=30)
        self.path_ = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.connect(self.path_)


def test_gateway_serves_http_on_a_unix_socket(menu, tmp_path):
    gw = _gw(menu).start(tmp_path / "gateway.sock")
    try:
        gw.begin()
        c = _Unix(str(tmp_path / "gateway.sock"))
        c.request("POST", "/v1/chat/completions", body=json.dumps({"model": "small-fast", "messages": MSG}),
                  headers={"Content-Type": "application/json"})
        r = c.getresponse()
        body = json.loads(r.read())
        assert r.status == 200 and body["usage"]["completion_tokens"] == 20
        c.request("POST", "/v1/chat/completions", body=b"{not json", headers={"Content-Type": "application/json"})
        r = c.getresponse()
        assert r.status == 400 and json.loads(r.read())["error"]["code"] == "bad_request"
        c.request("GET", "/v1/models")
        r = c.getresponse()
        assert [m["id"] for m in json.loads(r.read())["data"]] == ["mid-fast", "small-fast"]
        c.close()
        assert gw.end().credits == pytest.approx((10 * 0.25 + 20 * 1.6) / 1e6)
    finally:
        gw.stop()
    assert not (tmp_path / "gateway.sock").exists()


def test_a_call_in_flight_when_the_conversation_ends_is_billed_to_it(menu):
    import threading
    import time

    import litellm
    started = threading.Event()

    def slow(**kw):
        started.set()
        time.sleep(1.0)
        return litellm.completion(mock_response="late", **kw)
    gw = _gw(menu, mock_response=None, completion=slow)
    gw.begin()
    t = threading.Thread(target=gw.handle, args=({"model": "mid-fast", "messages": MSG},))
    t.start()
    started.wait(10)
    ledger = gw.end()                     # the agent gave up; its call is still running
    t.join()
    assert [u.model for u in ledger.usage] == ["mid-fast"] and ledger.credits > 0


def _raw(path, data: bytes, timeout: float = 10.0) -> bytes:
    """Send raw bytes on a fresh connection; everything the gateway answers until it closes."""
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(timeout)
    s.connect(str(path))
    try:
        s.sendall(data)
        s.shutdown(socket.SHUT_WR)
    except OSError:
        pass
    out = b""
    while chunk := s.recv(65536):
        out += chunk
    s.close()
    return out


def _status_and_code(answer: bytes) -> tuple[int, str]:
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split(b" ")[1]), json.loads(body)["error"]["code"]


OK_BODY = json.dumps({"model": "small-fast", "messages": MSG}).encode()


@pytest.mark.parametrize("request_bytes,status,code", [
    (b"POST /v1/chat/completions HTTP/1.1\r\nContent-Length: -1\r\n\r\n" + b"x" * 65536, 400, "bad_request"),
    (b"POST /v1/chat/completions HTTP/1.1\r\nContent-Length: abc\r\n\r\n{}", 400, "bad_request"),
    (b"POST /v1/chat/completions HTTP/1.1\r\nContent-Length: +2\r\n\r\n{}", 400, "bad_request"),
    (b"POST /v1/chat/completions HTTP/1.1\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}", 400, "bad_request"),
    (b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n\r\n" + OK_BODY, 411, "length_required"),
    (b"POST /v1/chat/completions HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n", 411,
     "length_required"),
    (b"POST /v1/chat/completions HTTP/1.1\r\nContent-Length: %d\r\n\r\n" % ((8 << 20) + 1), 413, "payload_too_large"),
    (b"POST /v1/chat/completions HTTP/1.1\r\nContent-Length: 99999999999999999999\r\n\r\n", 400, "bad_request"),
    (b"GARBAGE\r\n\r\n", 400, "bad_request"),
    (b"POST  /v1/chat/completions HTTP/1.1\r\n\r\n", 400, "bad_request"),
    (b"GET /v1/models HTTP/1.1\r\nno colon here\r\n\r\n", 400, "bad_request"),
    (b"GET /v1/models HTTP/1.1\r\nBad Name: x\r\n\r\n", 400, "bad_request"),
    (b"GET /v1/models HTTP/1.1\r\nX: a\x00b\r\n\r\n", 400, "bad_request"),
    (b"GET /v1/models HTTP/1.1\r\n folded: x\r\n\r\n", 400, "bad_request"),
    (b"GET /v1/models HTTP/2.0\r\n\r\n", 505, "http_version_not_supported"),
    (b"GET /v1/models XTTP/1.1\r\n\r\n", 505, "http_version_not_supported"),
    (b"GET /v1/models HTTP/1.1\r\nX: " + b"a" * (20 << 10) + b"\r\n\r\n", 431, "headers_too_large"),
    (b"GET /v1/models HTTP/1.1\r\n" + b"X: a\r\n" * 101 + b"\r\n", 431, "headers_too_large"),
    (b"POST /v1/chat/completions HTTP/1.1\r\nContent-Length: 200000\r\n\r\n" + b"[" * 100_000 + b"]" * 100_000,
     400, "bad_request"),
])
def test_malformed_requests_get_one_json_error_and_the_connection_closes(menu, tmp_path, request_bytes, status, code):
    calls = []
    gw = _gw(menu, completion=lambda **kw: calls.append(kw)).start(tmp_path / "g.sock")
    try:
        answer = _raw(tmp_path / "g.sock", request_bytes)
        assert _status_and_code(answer) == (status, code), answer[:300]
        assert answer.count(b"\r\nContent-Type: ") == 1     # one answer, then closed: nothing after is read
        assert calls == [] and gw.end().credits == 0.0
    finally:
        gw.stop()


def test_keep_alive_pipelining_and_expect_continue(menu, tmp_path):
    gw = _gw(menu).start(tmp_path / "g.sock")
    try:
        one = b"POST /v1/chat/completions HTTP/1.1\r\nContent-Length: %d\r\n\r\n%s" % (len(OK_BODY), OK_BODY)
        models = b"GET /v1/models HTTP/1.1\r\nConnection: close\r\n\r\n"
        answer = _raw(tmp_path / "g.sock", one + one + models)
        assert [int(x.split(b" ")[0]) for x in answer.split(b"HTTP/1.1 ")[1:]] == [200, 200, 200]
        assert len(gw.end().usage) == 2
        gw.begin()
        answer = _raw(tmp_path / "g.sock", b"POST /v1/chat/completions HTTP/1.1\r\nExpect: 100-continue\r\n"
                      b"Connection: close\r\nContent-Length: %d\r\n\r\n%s" % (len(OK_BODY), OK_BODY))
        assert answer.startswith(b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n")
        assert _raw(tmp_path / "g.sock", b"GET /nowhere HTTP/1.0\r\n\r\n").startswith(b"HTTP/1.1 404 ")
    finally:
        gw.stop()


def test_a_failure_inside_the_gateway_is_a_json_500_and_an_infra_error(menu, tmp_path):
    gw = _gw(menu).start(tmp_path / "g.sock")
    gw.handle = lambda body: 1 / 0
    try:
        answer = _raw(tmp_path / "g.sock", b"POST /v1/chat/completions HTTP/1.1\r\nContent-Length: %d\r\n\r\n%s"
                      % (len(OK_BODY), OK_BODY))
        assert _status_and_code(answer) == (500, "internal_error")
        assert gw.end().errors == ["the gateway failed: ZeroDivisionError"]
    finally:
        gw.stop()


def test_litellm_is_imported_only_when_a_model_is_called(tmp_path):
    """A run whose agent never calls a model never imports litellm (seconds of CPU for every
    `eval` and engagement); the first call imports it. In a fresh interpreter, so that litellm
    is not already imported."""
    script = (
        "import sys\n"
        "from outputs.evaluator.gateway import ModelGateway\n"
        "from outputs.packs.menu import load_menu\n"
        "gw = ModelGateway(load_menu('standard-1').menu, ['mid-fast'], mock_response='hi')\n"
        f"gw.start({str(tmp_path / 'gw.sock')!r})\n"
        "before = 'litellm' in sys.modules\n"
        "status, _ = gw.handle({'model': 'mid-fast', 'messages': [{'role': 'user', 'content': 'x'}]})\n"
        "gw.stop()\n"
        "print(before, status, 'litellm' in sys.modules)\n"
    )
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                       cwd=Path(__file__).resolve().parents[1])
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.split() == ["False", "200", "True"]
