"""The model gateway: menu models only, each model's constraints, credits metered from usage,
a response without usage is an error. Driven by litellm's mock_response (never a live call)."""
from __future__ import annotations

import http.client
import json
import socket

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
