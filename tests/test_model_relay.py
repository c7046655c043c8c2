"""A developer's own model traffic: a client inside the boundary reaches the provider proxy
through the loopback relay, the proxy adds the provider's key and meters the call, and a
scripted model server stands in for the provider. Every wire format, streamed and not, with the
official OpenAI client (the Anthropic one is not a dependency: httpx speaks its wire here)."""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from openai import OpenAI

from outputs.engage.metering import EventStream, PriceMap
from outputs.engage.modelproxy import ModelProxy, Upstream
from outputs.engage.scripted_model import ScriptedModel

ROOT = Path(__file__).resolve().parents[1]
CANARY_ANTHROPIC = "sk-ant-canary-7f3e9b1c44d2a8e6"
CANARY_OPENAI = "sk-proj-canary-5b8d2e0f9a7c3311"
CLIENT_KEY = "sk-client-dummy-inside-the-boundary"
TURN = {"text": "The refund window is thirty days, per the owner.",
        "tool_calls": [{"name": "ask_owner", "arguments": {"message": "Is the refund window 30 days?"}}],
        "input_tokens": 1234, "output_tokens": 56}
PRICES = PriceMap()


def relay_process(sock: Path) -> tuple[subprocess.Popen, int]:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    # -I -S: no site-packages and no project on the path, as in a bare boundary
    p = subprocess.Popen([sys.executable, "-I", "-S", str(ROOT / "outputs/engage/looprelay.py"), "--socket", str(sock),
                          "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    line = p.stdout.readline()
    assert line.startswith("listening 127.0.0.1:"), line + p.stderr.read()
    return p, int(line.rsplit(":", 1)[1])


class Stack:
    def __init__(self, tmp: Path, turns: list, **limits):
        self.anthropic = ScriptedModel(turns, loop=True, api_key=CANARY_ANTHROPIC, count_tokens=321)
        self.openai = ScriptedModel(turns, loop=True, api_key=CANARY_OPENAI)
        self.records_dir = tmp / "record"
        self.proxy = ModelProxy({"anthropic": Upstream("anthropic", self.anthropic.start(), CANARY_ANTHROPIC),
                                 "openai": Upstream("openai", self.openai.start(), CANARY_OPENAI)},
                                self.records_dir, prices=PRICES, **limits)
        self.sock = tmp / "model.sock"
        self.proxy.start(self.sock)
        self.relay, self.port = relay_process(self.sock)
        self.base = f"http://127.0.0.1:{self.port}"

    def close(self) -> None:
        self.relay.terminate()
        self.relay.wait(timeout=10)
        self.proxy.stop()
        self.anthropic.stop()
        self.openai.stop()


@pytest.fixture
def stack(tmp_path):
    s = Stack(tmp_path, [TURN])
    yield s
    s.close()


def anthropic_call(base: str, stream: bool, model: str = "claude-sonnet-4-5") -> httpx.Response:
    body = {"model": model, "max_tokens": 512, "stream": stream,
            "messages": [{"role": "user", "content": "What is the refund window?"}]}
    return httpx.post(f"{base}/v1/messages?beta=true", json=body, timeout=30,
                      headers={"x-api-key": CLIENT_KEY, "anthropic-version": "2023-06-01"})


def sse_events(text: str) -> list[dict]:
    return [json.loads(line[5:]) for line in text.splitlines() if line.startswith("data:") and line[5:].strip() != "[DONE]"]


def expected_cost(model: str) -> float:
    r = PRICES.rates("", model)
    return round(TURN["input_tokens"] * r["input_cost_per_token"] + TURN["output_tokens"] * r["output_cost_per_token"], 10)


def assert_metered(stack: Stack, wire: str, model: str, stream: bool) -> None:
    assert stack.proxy.settle()
    recs = [json.loads(line) for line in (stack.records_dir / "model_calls.jsonl").read_text().splitlines()]
    assert recs == stack.proxy.records and len(recs) == 1
    r = recs[0]
    assert (r["wire"], r["model"], r["stream"], r["status"], r["error"]) == (wire, model, stream, 200, None)
    assert (r["input_tokens"], r["output_tokens"]) == (TURN["input_tokens"], TURN["output_tokens"])
    assert r["cost_usd"] == expected_cost(model) and r["cost_usd"] > 0
    assert r["latency_s"] >= r["first_byte_s"] >= 0


def assert_credentials(upstream: ScriptedModel, kind: str) -> None:
    assert len(upstream.received) == 1
    h = upstream.received[0]["headers"]
    if kind == "anthropic":
        assert h["x-api-key"] == [CANARY_ANTHROPIC] and "authorization" not in h
    else:
        assert h["authorization"] == [f"Bearer {CANARY_OPENAI}"] and "x-api-key" not in h
    assert CLIENT_KEY not in json.dumps(upstream.received)


def assert_canary_absent(stack: Stack, *seen: str) -> None:
    for text in seen:
        assert CANARY_ANTHROPIC not in text and CANARY_OPENAI not in text
    for f in stack.records_dir.rglob("*"):
        data = f.read_bytes()
        assert CANARY_ANTHROPIC.encode() not in data and CANARY_OPENAI.encode() not in data
    for part in ("environ", "cmdline"):
        data = Path(f"/proc/{stack.relay.pid}/{part}").read_bytes()
        assert CANARY_ANTHROPIC.encode() not in data and CANARY_OPENAI.encode() not in data
    assert CANARY_ANTHROPIC not in repr(stack.proxy) + repr(stack.proxy._upstreams)


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
def test_anthropic_messages_through_relay(stack, stream):
    r = anthropic_call(stack.base, stream)
    assert r.status_code == 200
    if stream:
        events = sse_events(r.text)
        kinds = [e["type"] for e in events]
        assert kinds[0] == "message_start" and kinds[-2:] == ["message_delta", "message_stop"]
        text = "".join(e["delta"]["text"] for e in events if e["type"] == "content_block_delta"
                       and e["delta"]["type"] == "text_delta")
        args = json.loads("".join(e["delta"]["partial_json"] for e in events if e["type"] == "content_block_delta"
                                  and e["delta"]["type"] == "input_json_delta"))
        tool = next(e["content_block"]["name"] for e in events if e["type"] == "content_block_start"
                    and e["content_block"]["type"] == "tool_use")
        assert events[-2]["usage"]["output_tokens"] == TURN["output_tokens"]
    else:
        msg = r.json()
        text, use = msg["content"][0]["text"], msg["content"][1]
        tool, args = use["name"], use["input"]
        assert msg["stop_reason"] == "tool_use"
    assert text == TURN["text"]
    assert (tool, args) == (TURN["tool_calls"][0]["name"], TURN["tool_calls"][0]["arguments"])
    assert_metered(stack, "messages", "claude-sonnet-4-5", stream)
    assert_credentials(stack.anthropic, "anthropic")
    assert stack.anthropic.received[0]["path"] == "/v1/messages?beta=true"
    assert_canary_absent(stack, r.text, json.dumps(dict(r.headers)))


def test_anthropic_count_tokens_is_metered_free(stack):
    r = httpx.post(f"{stack.base}/v1/messages/count_tokens", timeout=30,
                   json={"model": "claude-sonnet-4-5", "messages": [{"role": "user", "content": "hi"}]},
                   headers={"x-api-key": CLIENT_KEY, "anthropic-version": "2023-06-01"})
    assert r.status_code == 200 and r.json() == {"input_tokens": 321}
    assert stack.proxy.settle()
    rec = stack.proxy.records[0]
    assert (rec["wire"], rec["counted_tokens"], rec["cost_usd"], rec["input_tokens"]) == ("count_tokens", 321, 0.0, 0)
    assert_credentials(stack.anthropic, "anthropic")
    assert_canary_absent(stack, r.text)


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
def test_openai_responses_through_relay(stack, stream):
    client = OpenAI(base_url=f"{stack.base}/v1", api_key=CLIENT_KEY, max_retries=0)
    if stream:
        events = list(client.responses.create(model="gpt-4.1-mini", input="What is the refund window?", stream=True))
        assert events[0].type == "response.created" and events[-1].type == "response.completed"
        assert [e.sequence_number for e in events] == list(range(len(events)))
        text = "".join(e.delta for e in events if e.type == "response.output_text.delta")
        call = next(e.item for e in events if e.type == "response.output_item.done" and e.item.type == "function_call")
        final = events[-1].response
        seen = "".join(e.model_dump_json() for e in events)
    else:
        final = client.responses.create(model="gpt-4.1-mini", input="What is the refund window?")
        text, call = final.output_text, final.output[1]
        seen = final.model_dump_json()
    assert text == TURN["text"]
    assert (call.name, json.loads(call.arguments)) == (TURN["tool_calls"][0]["name"], TURN["tool_calls"][0]["arguments"])
    assert (final.usage.input_tokens, final.usage.output_tokens) == (TURN["input_tokens"], TURN["output_tokens"])
    assert_metered(stack, "responses", "gpt-4.1-mini", stream)
    assert_credentials(stack.openai, "openai")
    assert_canary_absent(stack, seen)


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
def test_openai_chat_completions_through_relay(stack, stream):
    client = OpenAI(base_url=f"{stack.base}/v1", api_key=CLIENT_KEY, max_retries=0)
    messages = [{"role": "user", "content": "What is the refund window?"}]
    if stream:
        chunks = list(client.chat.completions.create(model="gpt-4.1-mini", messages=messages, stream=True))
        text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
        calls = [tc for c in chunks if c.choices for tc in (c.choices[0].delta.tool_calls or [])]
        name = calls[0].function.name
        args = json.loads("".join(tc.function.arguments or "" for tc in calls))
        usage = chunks[-1].usage   # the proxy asked for the usage chunk the client did not
        seen = "".join(c.model_dump_json() for c in chunks)
        assert stack.openai.received[0]["body"]["stream_options"] == {"include_usage": True}
    else:
        done = client.chat.completions.create(model="gpt-4.1-mini", messages=messages)
        msg = done.choices[0].message
        text, name, args = msg.content, msg.tool_calls[0].function.name, json.loads(msg.tool_calls[0].function.arguments)
        usage, seen = done.usage, done.model_dump_json()
    assert text == TURN["text"]
    assert (name, args) == (TURN["tool_calls"][0]["name"], TURN["tool_calls"][0]["arguments"])
    assert (usage.prompt_tokens, usage.completion_tokens) == (TURN["input_tokens"], TURN["output_tokens"])
    assert_metered(stack, "chat", "gpt-4.1-mini", stream)
    assert_credentials(stack.openai, "openai")
    assert_canary_absent(stack, seen)


def raw_request(port: int, data: bytes, timeout: float = 10.0) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(data)
        out = b""
        while chunk := s.recv(65536):
            out += chunk
    return out


def one_line_error(answer: bytes) -> tuple[int, dict]:
    head, _, body = answer.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    assert body.endswith(b"\n") and body.count(b"\n") == 1, body
    return status, json.loads(body)


def test_hostile_requests_get_one_line_and_the_proxy_keeps_serving(tmp_path):
    s = Stack(tmp_path, [TURN], body_limit=1 << 20)
    try:
        no_length = raw_request(s.port, b"POST /v1/messages HTTP/1.1\r\nHost: x\r\n\r\n{}")
        assert one_line_error(no_length)[0] == 411
        big = raw_request(s.port, b"POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Length: 2000000\r\n\r\n"
                          + b"x" * 4096)
        assert one_line_error(big)[0] == 413
        body = b"{not json"
        bad = raw_request(s.port, b"POST /v1/responses HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                          b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
        status, err = one_line_error(bad)
        assert status == 400 and err["error"]["message"] == "the body is not valid JSON"
        deep = json.dumps({"model": "m", "x": json.loads("[" * 150 + "]" * 150)}).encode()
        assert one_line_error(raw_request(s.port, b"POST /v1/chat/completions HTTP/1.1\r\nConnection: close\r\n"
                                          b"Content-Length: %d\r\n\r\n%s" % (len(deep), deep)))[0] == 400
        assert one_line_error(raw_request(s.port, b"GET /etc/passwd HTTP/1.1\r\n\r\n"))[0] == 404
        assert one_line_error(raw_request(s.port, b"garbage\r\n\r\n"))[0] == 400
        # a client that sends its own credentials has them dropped: the provider sees only ours
        r = httpx.post(f"{s.base}/v1/chat/completions", timeout=30,
                       json={"model": "gpt-4.1-mini", "messages": [{"role": "user", "content": "hi"}]},
                       headers={"Authorization": "Bearer stolen-or-guessed", "api-key": "x", "OpenAI-Organization": "o",
                                "Cookie": "session=1"})
        assert r.status_code == 200 and r.json()["choices"][0]["message"]["content"] == TURN["text"]
        assert s.proxy.settle()
        h = s.openai.received[-1]["headers"]
        assert h["authorization"] == [f"Bearer {CANARY_OPENAI}"]
        assert not {"api-key", "openai-organization", "cookie"} & set(h)
        assert len(s.proxy.records) == 1 and s.proxy.records[0]["input_tokens"] == TURN["input_tokens"]
        assert s.proxy.summary()["refused"] == 6
        assert_canary_absent(s, no_length.decode(), big.decode(), bad.decode(), r.text)
    finally:
        s.close()


def test_connections_beyond_the_limit_are_refused(tmp_path):
    s = Stack(tmp_path, [TURN], max_connections=2)
    try:
        idle = [socket.create_connection(("127.0.0.1", s.port), timeout=10) for _ in range(2)]
        deadline = time.monotonic() + 5
        while s.proxy.connections < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        third = raw_request(s.port, b"")
        assert one_line_error(third)[0] == 503
        for c in idle:
            c.close()
        while s.proxy.connections and time.monotonic() < deadline:
            time.sleep(0.01)
        assert anthropic_call(s.base, False).status_code == 200
    finally:
        s.close()


def test_unpriced_model_and_unreachable_provider_are_recorded(tmp_path):
    s = Stack(tmp_path, [TURN])
    try:
        assert anthropic_call(s.base, True, model="claude-scripted-unpriced").status_code == 200
        assert s.proxy.settle()
        rec = s.proxy.records[0]
        assert (rec["input_tokens"], rec["output_tokens"], rec["cost_usd"]) == (1234, 56, None)
        assert s.proxy.summary()["unpriced"] == 1
        s.anthropic.stop()
        r = anthropic_call(s.base, False)
        assert r.status_code == 502 and r.json()["error"]["code"] == "upstream_error"
        assert s.proxy.settle()
        assert s.proxy.records[1]["status"] == 502 and s.proxy.records[1]["error"].startswith("upstream unreachable")
    finally:
        s.close()


def test_event_stream_reads_usage_split_across_chunks():
    frames = (b'event: message_start\r\ndata: {"type":"message_start","message":{"model":"m","usage":'
              b'{"input_tokens":7,"output_tokens":1,"cache_read_input_tokens":3}}}\r\n\r\n'
              b'event: message_delta\ndata: {"type":"message_delta","usage":{"output_tokens":9}}\n\n')
    es = EventStream("messages")
    for i in range(len(frames)):
        es.feed(frames[i:i + 1])
    es.close()
    assert (es.usage.input_tokens, es.usage.output_tokens, es.usage.cache_read_tokens, es.model) == (7, 9, 3, "m")


def test_upstream_repr_hides_the_key():
    up = Upstream("openai", "http://127.0.0.1:1", CANARY_OPENAI)
    assert CANARY_OPENAI not in repr(up) and CANARY_OPENAI not in str(up)
    with pytest.raises(ValueError):
        Upstream("gemini", "http://127.0.0.1:1", "k")


def test_model_traffic_imports_no_dagster_and_no_media_library():
    code = ("import sys\nimport outputs.engage.modelproxy, outputs.engage.scripted_model\n"
            "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('dagster', 'litellm', 'moviepy', 'PIL', "
            "'reportlab', 'matplotlib'))\nprint(bad)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.stdout.strip() == "[]"
