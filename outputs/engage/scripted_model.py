"""A scripted model server: stands in for a provider in tests and benchmarks, on loopback.

It speaks the providers' real wire formats and answers each generating call with the next turn
of a script, so a program that talks to a real provider runs against it unchanged:

| route | answer | streamed (`"stream": true`) |
|---|---|---|
| `POST /v1/messages` | an Anthropic `message` with `text` and `tool_use` blocks and `usage` | `message_start`, `ping`, per block `content_block_start` / `_delta` (`text_delta`, `input_json_delta`) / `_stop`, `message_delta` (`stop_reason`, `usage.output_tokens`), `message_stop` |
| `POST /v1/messages/count_tokens` | `{"input_tokens": N}` (the script's `count_tokens`, else the body's length / 4) | |
| `POST /v1/responses` | a `response` with `message` and `function_call` output items and `usage` | `response.created`, `response.in_progress`, per item `response.output_item.added`, text: `response.content_part.added`, `response.output_text.delta`, `response.output_text.done`, `response.content_part.done`; call: `response.function_call_arguments.delta` / `.done`; `response.output_item.done`; `response.completed` with `usage` |
| `POST /v1/chat/completions` | a `chat.completion` with `content`, `tool_calls` and `usage` | `chat.completion.chunk`s, a final chunk with `finish_reason`, a usage chunk (`choices: []`) when `stream_options.include_usage` is set, `data: [DONE]` |
| `GET /v1/models` | the model list the script names | |

A turn is `{"text": str, "tool_calls": [{"name": str, "arguments": {...}}], "input_tokens": int,
"output_tokens": int}` (text and tool calls each optional); the usage reported is exactly the
turn's. A tool call may name a `namespace`, which a Responses `function_call` item carries (Codex
groups an MCP server's tools in one, `mcp__SERVER`). Ids are numbered by call, so the same script gives the same bytes (timestamps are 0).
When the script is used up, a call is answered 400 `script_exhausted` (or, with `loop`, the
script starts again). With `api_key` set, a call without that key (`x-api-key` for Anthropic
routes, `Authorization: Bearer` for OpenAI ones) is answered 401, as a provider would.
Every request received is kept in `received` (method, path, headers, parsed body).

    python -m outputs.engage.scripted_model --script turns.json [--port 0] [--api-key KEY] [--loop]
"""
from __future__ import annotations

import argparse
import asyncio
import json
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Optional

from outputs.httphead import HEADER_LIMIT, REASONS, Refused, parse_head

CHUNK_CHARS = 12   # a text delta carries at most this many characters


@dataclass
class Turn:
    text: str = ""
    tool_calls: list[dict] = field(default_factory=list)
    input_tokens: int = 0
    output_tokens: int = 0

    @classmethod
    def of(cls, d: dict) -> "Turn":
        calls = [{"name": str(c["name"]), "arguments": dict(c.get("arguments") or {}),
                  **({"namespace": str(c["namespace"])} if c.get("namespace") else {})} for c in d.get("tool_calls", [])]
        return cls(str(d.get("text", "")), calls, int(d.get("input_tokens", 0)), int(d.get("output_tokens", 0)))


def _pieces(s: str, n: int = CHUNK_CHARS) -> list[str]:
    return [s[i:i + n] for i in range(0, len(s), n)] or [""]


def _args(call: dict) -> str:
    return json.dumps(call["arguments"], sort_keys=True)


# ---- Anthropic Messages -------------------------------------------------------------------
def anthropic_message(turn: Turn, model: str, n: int) -> dict:
    content: list[dict] = [{"type": "text", "text": turn.text}] if turn.text else []
    content += [{"type": "tool_use", "id": f"toolu_scripted_{n:04d}_{i}", "name": c["name"], "input": c["arguments"]}
                for i, c in enumerate(turn.tool_calls)]
    return {"id": f"msg_scripted_{n:04d}", "type": "message", "role": "assistant", "model": model,
            "content": content, "stop_reason": "tool_use" if turn.tool_calls else "end_turn", "stop_sequence": None,
            "usage": {"input_tokens": turn.input_tokens, "output_tokens": turn.output_tokens,
                      "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}}


def anthropic_events(turn: Turn, model: str, n: int) -> Iterator[tuple[str, dict]]:
    whole = anthropic_message(turn, model, n)
    start = {**whole, "content": [], "stop_reason": None,
             "usage": {**whole["usage"], "output_tokens": 1}}
    yield "message_start", {"type": "message_start", "message": start}
    yield "ping", {"type": "ping"}
    for i, block in enumerate(whole["content"]):
        if block["type"] == "text":
            yield "content_block_start", {"type": "content_block_start", "index": i,
                                          "content_block": {"type": "text", "text": ""}}
            for p in _pieces(block["text"]):
                yield "content_block_delta", {"type": "content_block_delta", "index": i,
                                              "delta": {"type": "text_delta", "text": p}}
        else:
            yield "content_block_start", {"type": "content_block_start", "index": i,
                                          "content_block": {**block, "input": {}}}
            for p in _pieces(json.dumps(block["input"], sort_keys=True), 24):
                yield "content_block_delta", {"type": "content_block_delta", "index": i,
                                              "delta": {"type": "input_json_delta", "partial_json": p}}
        yield "content_block_stop", {"type": "content_block_stop", "index": i}
    yield "message_delta", {"type": "message_delta",
                            "delta": {"stop_reason": whole["stop_reason"], "stop_sequence": None},
                            "usage": {"output_tokens": turn.output_tokens}}
    yield "message_stop", {"type": "message_stop"}


# ---- OpenAI Responses ---------------------------------------------------------------------
def _response_items(turn: Turn, n: int) -> list[dict]:
    items: list[dict] = []
    if turn.text:
        items.append({"type": "message", "id": f"msg_scripted_{n:04d}", "status": "completed", "role": "assistant",
                      "content": [{"type": "output_text", "text": turn.text, "annotations": [], "logprobs": []}]})
    items += [{"type": "function_call", "id": f"fc_scripted_{n:04d}_{i}", "call_id": f"call_scripted_{n:04d}_{i}",
               "name": c["name"], "arguments": _args(c), "status": "completed",
               **({"namespace": c["namespace"]} if c.get("namespace") else {})} for i, c in enumerate(turn.tool_calls)]
    return items


def response_object(turn: Turn, model: str, n: int, status: str = "completed") -> dict:
    done = status == "completed"
    return {"id": f"resp_scripted_{n:04d}", "object": "response", "created_at": 0, "status": status, "model": model,
            "output": _response_items(turn, n) if done else [], "error": None, "incomplete_details": None,
            "instructions": None, "metadata": {}, "parallel_tool_calls": True, "temperature": None, "top_p": None,
            "tool_choice": "auto", "tools": [],
            "usage": {"input_tokens": turn.input_tokens, "input_tokens_details": {"cached_tokens": 0},
                      "output_tokens": turn.output_tokens, "output_tokens_details": {"reasoning_tokens": 0},
                      "total_tokens": turn.input_tokens + turn.output_tokens} if done else None}


def response_events(turn: Turn, model: str, n: int) -> Iterator[tuple[str, dict]]:
    seq = iter(range(1 << 30))

    def ev(kind: str, **fields: Any) -> tuple[str, dict]:
        return kind, {"type": kind, "sequence_number": next(seq), **fields}
    yield ev("response.created", response=response_object(turn, model, n, "in_progress"))
    yield ev("response.in_progress", response=response_object(turn, model, n, "in_progress"))
    for i, item in enumerate(_response_items(turn, n)):
        if item["type"] == "message":
            text = item["content"][0]["text"]
            yield ev("response.output_item.added", output_index=i,
                     item={**item, "status": "in_progress", "content": []})
            part = {"type": "output_text", "text": "", "annotations": [], "logprobs": []}
            yield ev("response.content_part.added", item_id=item["id"], output_index=i, content_index=0, part=part)
            for p in _pieces(text):
                yield ev("response.output_text.delta", item_id=item["id"], output_index=i, content_index=0,
                         delta=p, logprobs=[])
            yield ev("response.output_text.done", item_id=item["id"], output_index=i, content_index=0, text=text,
                     logprobs=[])
            yield ev("response.content_part.done", item_id=item["id"], output_index=i, content_index=0,
                     part={**part, "text": text})
        else:
            yield ev("response.output_item.added", output_index=i,
                     item={**item, "status": "in_progress", "arguments": ""})
            for p in _pieces(item["arguments"], 24):
                yield ev("response.function_call_arguments.delta", item_id=item["id"], output_index=i, delta=p)
            yield ev("response.function_call_arguments.done", item_id=item["id"], output_index=i,
                     name=item["name"], arguments=item["arguments"])
        yield ev("response.output_item.done", output_index=i, item=item)
    yield ev("response.completed", response=response_object(turn, model, n))


# ---- OpenAI Chat Completions --------------------------------------------------------------
def _chat_usage(turn: Turn) -> dict:
    return {"prompt_tokens": turn.input_tokens, "completion_tokens": turn.output_tokens,
            "total_tokens": turn.input_tokens + turn.output_tokens}


def chat_completion(turn: Turn, model: str, n: int) -> dict:
    msg: dict[str, Any] = {"role": "assistant", "content": turn.text or None}
    if turn.tool_calls:
        msg["tool_calls"] = [{"id": f"call_scripted_{n:04d}_{i}", "type": "function",
                              "function": {"name": c["name"], "arguments": _args(c)}}
                             for i, c in enumerate(turn.tool_calls)]
    return {"id": f"chatcmpl-scripted-{n:04d}", "object": "chat.completion", "created": 0, "model": model,
            "choices": [{"index": 0, "message": msg, "logprobs": None,
                         "finish_reason": "tool_calls" if turn.tool_calls else "stop"}],
            "usage": _chat_usage(turn)}


def chat_chunks(turn: Turn, model: str, n: int, include_usage: bool) -> Iterator[dict]:
    base = {"id": f"chatcmpl-scripted-{n:04d}", "object": "chat.completion.chunk", "created": 0, "model": model}

    def chunk(delta: dict, finish: Optional[str] = None) -> dict:
        c = {**base, "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]}
        return {**c, "usage": None} if include_usage else c
    yield chunk({"role": "assistant", "content": ""})
    for p in _pieces(turn.text) if turn.text else []:
        yield chunk({"content": p})
    for i, c in enumerate(turn.tool_calls):
        yield chunk({"tool_calls": [{"index": i, "id": f"call_scripted_{n:04d}_{i}", "type": "function",
                                     "function": {"name": c["name"], "arguments": ""}}]})
        for p in _pieces(_args(c), 24):
            yield chunk({"tool_calls": [{"index": i, "function": {"arguments": p}}]})
    yield chunk({}, "tool_calls" if turn.tool_calls else "stop")
    if include_usage:
        yield {**base, "choices": [], "usage": _chat_usage(turn)}


# ---- the server ---------------------------------------------------------------------------
def _sse(kind: Optional[str], data: dict) -> bytes:
    return (f"event: {kind}\n" if kind else "").encode() + b"data: " + json.dumps(data).encode() + b"\n\n"


class ScriptedModel:
    """The server (`start` returns its base URL, `stop`), its script and what it received."""

    def __init__(self, turns: list, *, loop: bool = False, api_key: Optional[str] = None,
                 count_tokens: Optional[int] = None, models: tuple[str, ...] = ("scripted",)):
        self.turns = [t if isinstance(t, Turn) else Turn.of(t) for t in turns]
        self.loop_script, self.api_key, self.count_tokens, self.models = loop, api_key, count_tokens, models
        self.calls = 0
        self.received: list[dict] = []
        self.lock = threading.Lock()
        self._loop: Optional[asyncio.AbstractEventLoop] = None
        self._server: Optional[asyncio.AbstractServer] = None
        self._tasks: set = set()
        self._thread: Optional[threading.Thread] = None
        self.base_url = ""

    def next_turn(self) -> tuple[Optional[Turn], int]:
        with self.lock:
            n = self.calls
            self.calls += 1
        if n >= len(self.turns) and not (self.loop_script and self.turns):
            return None, n
        return self.turns[n % len(self.turns)], n

    def authorised(self, path: str, headers: dict[str, list[str]]) -> bool:
        if self.api_key is None:
            return True
        if path.startswith("/v1/messages"):
            return headers.get("x-api-key") == [self.api_key]
        return headers.get("authorization") == [f"Bearer {self.api_key}"]

    def answer(self, method: str, path: str, headers: dict[str, list[str]], body: Any
               ) -> tuple[int, Any, Optional[Iterator[bytes]]]:
        """(status, JSON answer, or None and an iterator of SSE frames)."""
        path = path.partition("?")[0]
        if not self.authorised(path, headers):
            return 401, {"type": "error", "error": {"type": "authentication_error", "message": "invalid key"}}, None
        if (method, path) == ("GET", "/v1/models"):
            listed = [{"id": m, "object": "model", "type": "model"} for m in self.models]
            return 200, {"object": "list", "data": listed}, None
        if method != "POST" or path not in ("/v1/messages", "/v1/messages/count_tokens", "/v1/responses",
                                            "/v1/chat/completions"):
            return 404, {"error": {"type": "not_found", "message": f"no route {method} {path}"}}, None
        if not isinstance(body, dict) or not isinstance(body.get("model"), str):
            return 400, {"error": {"type": "invalid_request_error", "message": "a JSON body with a model"}}, None
        model, stream = body["model"], body.get("stream") is True
        if path == "/v1/messages/count_tokens":
            n = self.count_tokens if self.count_tokens is not None else len(json.dumps(body)) // 4
            return 200, {"input_tokens": n}, None
        turn, n = self.next_turn()
        if turn is None:
            return 400, {"type": "error", "error": {"type": "script_exhausted",
                                                    "message": f"the script has {len(self.turns)} turns"}}, None
        if path == "/v1/messages":
            if stream:
                return 200, None, (_sse(k, d) for k, d in anthropic_events(turn, model, n))
            return 200, anthropic_message(turn, model, n), None
        if path == "/v1/responses":
            if stream:
                return 200, None, (_sse(k, d) for k, d in response_events(turn, model, n))
            return 200, response_object(turn, model, n), None
        if stream:
            opts = body.get("stream_options")
            usage = isinstance(opts, dict) and opts.get("include_usage") is True
            frames = [_sse(None, c) for c in chat_chunks(turn, model, n, usage)] + [b"data: [DONE]\n\n"]
            return 200, None, iter(frames)
        return 200, chat_completion(turn, model, n), None

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        self._tasks.add(task)
        try:
            while True:
                try:
                    raw = await reader.readuntil(b"\r\n\r\n")
                    head = parse_head(raw, 64 << 20)
                except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, Refused):
                    return
                data = await reader.readexactly(head.length) if head.length else b""
                try:
                    body = json.loads(data) if data else None
                except ValueError:
                    body = None
                with self.lock:
                    self.received.append({"method": head.method, "path": head.path,
                                          "headers": {k: list(v) for k, v in head.headers.items()}, "body": body})
                status, payload, frames = self.answer(head.method, head.path, head.headers, body)
                reason = REASONS.get(status, "Answer")
                if frames is None:
                    out = json.dumps(payload).encode()
                    writer.write(f"HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\n"
                                 f"request-id: req_scripted\r\nContent-Length: {len(out)}\r\n\r\n".encode() + out)
                else:
                    writer.write(f"HTTP/1.1 {status} {reason}\r\nContent-Type: text/event-stream; charset=utf-8\r\n"
                                 "Cache-Control: no-cache\r\nTransfer-Encoding: chunked\r\n\r\n".encode())
                    for f in frames:
                        writer.write(b"%x\r\n%s\r\n" % (len(f), f))
                        await writer.drain()
                    writer.write(b"0\r\n\r\n")
                await writer.drain()
                if head.close:
                    return
        except (OSError, asyncio.IncompleteReadError, asyncio.CancelledError):
            return
        finally:
            self._tasks.discard(task)
            writer.close()

    def start(self, port: int = 0, host: str = "127.0.0.1") -> str:
        ready = threading.Event()
        box: dict[str, Any] = {}

        def run() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            try:
                server = loop.run_until_complete(asyncio.start_server(self._connection, host, port,
                                                                      limit=HEADER_LIMIT))
            except OSError as e:
                box["error"] = e
                ready.set()
                return
            box["port"] = server.sockets[0].getsockname()[1]
            self._server = server
            ready.set()
            loop.run_forever()
            loop.close()
        self._thread = threading.Thread(target=run, name="factforge-scripted-model", daemon=True)
        self._thread.start()
        ready.wait()
        if "error" in box:
            raise box["error"]
        self.base_url = f"http://{host}:{box['port']}"
        return self.base_url

    def stop(self) -> None:
        """Stop listening, close every open connection, end the thread."""
        async def shut() -> None:
            if self._server is not None:
                self._server.close()
            for t in list(self._tasks):
                t.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)
            asyncio.get_running_loop().stop()
        if self._loop is not None and self._loop.is_running():
            asyncio.run_coroutine_threadsafe(shut(), self._loop)
        if self._thread is not None:
            self._thread.join(timeout=5)


def load_script(path: Path) -> dict:
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    return {"turns": data} if isinstance(data, list) else data


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="scripted_model", description="a scripted model server on loopback")
    ap.add_argument("--script", required=True, type=Path, help="JSON: a list of turns, or {turns, count_tokens}")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--api-key", default=None, help="require this key, as a provider would")
    ap.add_argument("--loop", action="store_true", help="start the script again when it is used up")
    args = ap.parse_args(argv)
    try:
        script = load_script(args.script)
        model = ScriptedModel(script["turns"], loop=args.loop, api_key=args.api_key,
                              count_tokens=script.get("count_tokens"))
        url = model.start(args.port)
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"error: scripted_model: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    print(f"listening {url}", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    model.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
