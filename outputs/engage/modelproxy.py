"""The provider proxy: a developer's own model traffic, credentialed and metered outside its
boundary.

Served by the engagement's process on a Unix socket (bound into the boundary, where the loopback
relay `looprelay.py` exposes it as `http://127.0.0.1:PORT`), it accepts the three wire formats
coding agents speak and forwards each call to the provider's base URL:

| route | wire | default provider |
|---|---|---|
| `POST /v1/messages` (streaming included) | Anthropic Messages | `anthropic` |
| `POST /v1/messages/count_tokens` | Anthropic token count (metered, costs nothing) | `anthropic` |
| `POST /v1/responses` (streaming included) | OpenAI Responses | `openai` |
| `POST /v1/chat/completions` (streaming included) | OpenAI Chat Completions | `openai` |
| `GET /v1/models` | the provider's model list (not metered) | `anthropic` when the client sends `anthropic-version`, else `openai` |

`/NAME/v1/...` reaches the configured upstream NAME instead of the default (for a provider with
an OpenAI- or Anthropic-compatible endpoint). A query string is passed on.

**Credentials.** Each upstream's key is given at construction and lives only in this object's
memory: it is added to the forwarded request (`x-api-key` for an Anthropic-kind upstream,
`Authorization: Bearer` for an OpenAI-kind one), never written, never logged, never part of a
record or an answer (`Upstream`'s repr hides it). Whatever credential the client sends
(`Authorization`, `x-api-key`, `api-key`, `Proxy-Authorization`, cookies, organisation and
project ids) is dropped: a program inside the boundary can hold a dummy key and cannot choose
the account.

**The answer** is streamed back as the upstream sends it, byte for byte (status, headers other
than the hop-by-hop ones and cookies, body; the upstream is asked for an uncompressed body).
One change is made to a request: a streamed Chat Completions call without
`stream_options.include_usage` gets it, because without it the provider reports no usage and
the call could not be metered (the client then sees the provider's usage chunk, whose `choices`
is empty, before `[DONE]`).

**Metering.** Every forwarded call, answered or failed, is one record (see `metering.py` for
where the tokens are read): provider, wire, model, stream, status, tokens as the provider
reported them, cost in dollars from litellm's price map (`None` for a model it does not price
or a call without reported usage), latency to the first byte and to the end, and an error line.
Records are kept in `records` and appended, one JSON object per line, to
`RECORD_DIR/model_calls.jsonl` as each call ends (a client may hold its whole answer a moment
before its call is recorded: `settle()` waits for the calls in flight).

**Bounds** (like the evaluator's model gateway): at most `max_connections` connections open
(the next gets 503), at most `concurrency` calls forwarded at once (the rest wait), a request
head within 16 KiB and 100 fields, a Content-Length required (411), decimal (400) and at most
`body_limit` (413), never a byte read past it, a JSON object body nested at most 100 deep with a
string `model` (400 otherwise), a connection silent for `idle_timeout_s` closed. Every refusal
is one line of JSON in the shape both providers' clients read
(`{"type": "error", "error": {"type", "code", "message"}}`) and nothing is printed.
"""
from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Optional

import httpx

from outputs.httphead import HEADER_LIMIT, REASONS, Refused, RequestHead, parse_head
from outputs.jsondepth import nested_deeper

from .metering import EventStream, PriceMap, Usage, usage_of_answer

BODY_LIMIT = 32 << 20          # a request body (long agent contexts with images run to MiBs)
ANSWER_PARSE_LIMIT = 32 << 20  # a JSON answer kept to read its usage; a larger one is passed on unmetered
MAX_DEPTH = 100
MAX_CONNECTIONS = 64
CONCURRENCY = 8
IDLE_TIMEOUT_S = 120.0
UPSTREAM_TIMEOUT_S = 600.0
RECORDS_FILE = "model_calls.jsonl"
WRITE_BUFFER = 1 << 20         # bytes of answer held for a slow client before waiting for it

ROUTES = {("POST", "/v1/messages"): "messages", ("POST", "/v1/messages/count_tokens"): "count_tokens",
          ("POST", "/v1/responses"): "responses", ("POST", "/v1/chat/completions"): "chat",
          ("GET", "/v1/models"): "models"}
WIRE_KIND = {"messages": "anthropic", "count_tokens": "anthropic", "responses": "openai", "chat": "openai"}
CREDENTIAL_HEADERS = {"authorization", "x-api-key", "api-key", "proxy-authorization", "cookie",
                      "openai-organization", "openai-project", "anthropic-admin-api-key", "x-goog-api-key"}
HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade", "host",
              "content-length", "expect", "accept-encoding", "proxy-connection"}
ANSWER_DROPPED = {"connection", "keep-alive", "transfer-encoding", "content-length", "set-cookie", "trailer",
                  "upgrade", "proxy-connection"}


@dataclass(frozen=True)
class Upstream:
    """One provider endpoint: `kind` says how the key is sent ("anthropic": `x-api-key`;
    "openai": `Authorization: Bearer`)."""
    kind: str
    base_url: str
    api_key: str = field(repr=False)

    def __post_init__(self) -> None:
        if self.kind not in ("anthropic", "openai"):
            raise ValueError(f"unknown upstream kind {self.kind!r} (anthropic or openai)")

    def credential(self) -> tuple[str, str]:
        return ("x-api-key", self.api_key) if self.kind == "anthropic" else ("authorization", f"Bearer {self.api_key}")


def _error(status: int, code: str, message: str) -> tuple[int, bytes]:
    return status, json.dumps({"type": "error", "error": {"type": code, "code": code, "message": message}}).encode()


@dataclass
class _Call:
    """What is known of one forwarded call while it runs."""
    provider: str
    wire: str
    endpoint: str
    model: str
    stream: bool
    started: float
    status: int = 0
    first_byte_s: Optional[float] = None
    error: Optional[str] = None
    usage: Usage = field(default_factory=Usage)
    counted_tokens: Optional[int] = None


class ModelProxy:
    """The proxy's logic and its server (`start`/`stop`); `records` holds the metering."""

    def __init__(self, upstreams: Mapping[str, Upstream], record_dir: Path, *, body_limit: int = BODY_LIMIT,
                 max_connections: int = MAX_CONNECTIONS, concurrency: int = CONCURRENCY,
                 idle_timeout_s: float = IDLE_TIMEOUT_S, upstream_timeout_s: float = UPSTREAM_TIMEOUT_S,
                 prices: Optional[PriceMap] = None, clock: Callable[[], float] = time.monotonic):
        self._upstreams = dict(upstreams)
        self.record_dir = Path(record_dir)
        self.record_dir.mkdir(parents=True, exist_ok=True)
        self.records_path = self.record_dir / RECORDS_FILE
        self.records: list[dict] = []
        self.refused = 0
        self.prices = prices or PriceMap()
        self.clock = clock
        self.t0 = clock()
        self.limits = {"body_limit": body_limit, "max_connections": max_connections, "concurrency": concurrency,
                       "idle_timeout_s": idle_timeout_s, "upstream_timeout_s": upstream_timeout_s}
        self.lock = threading.Lock()
        self.idle = threading.Condition(self.lock)
        self.inflight = 0
        self.socket: Optional[Path] = None
        self._server: Optional[_Server] = None

    def __repr__(self) -> str:
        return f"ModelProxy(upstreams={sorted(self._upstreams)}, record_dir={str(self.record_dir)!r})"

    # ---- routing ------------------------------------------------------------------------
    def route(self, head: RequestHead) -> tuple[str, Upstream, str, str]:
        """(provider name, its upstream, wire, upstream path with query) of a request head;
        raises `Refused` for a route that is not served."""
        path, _, query = head.path.partition("?")
        provider = None
        parts = path.split("/", 2)
        if len(parts) == 3 and parts[1] in self._upstreams and parts[1] != "v1":
            provider, path = parts[1], "/" + parts[2]
        wire = ROUTES.get((head.method, path))
        if wire is None:
            raise Refused(404, "not_found", f"no route {head.method} {path}")
        if provider is None:
            kind = WIRE_KIND.get(wire) or ("anthropic" if head.header("anthropic-version") else "openai")
            provider = kind
        up = self._upstreams.get(provider)
        if up is None:
            raise Refused(404, "not_found", f"no upstream {provider!r} is configured")
        if wire in WIRE_KIND and WIRE_KIND[wire] != up.kind:
            raise Refused(404, "not_found", f"upstream {provider!r} does not speak {path}")
        return provider, up, wire, path + (f"?{query}" if query else "")

    def prepare(self, wire: str, body: bytes) -> tuple[dict, bytes]:
        """The parsed body and the bytes to forward; raises `Refused` for a malformed body."""
        try:
            data = json.loads(body)
        except (ValueError, UnicodeDecodeError):
            raise Refused(400, "invalid_request_error", "the body is not valid JSON") from None
        except RecursionError:
            raise Refused(400, "invalid_request_error", f"the body is nested deeper than {MAX_DEPTH} levels") from None
        if not isinstance(data, dict):
            raise Refused(400, "invalid_request_error", "the body must be a JSON object")
        if nested_deeper(data, MAX_DEPTH):
            raise Refused(400, "invalid_request_error", f"the body is nested deeper than {MAX_DEPTH} levels")
        if not isinstance(data.get("model"), str) or not data["model"]:
            raise Refused(400, "invalid_request_error", "the body needs a string 'model'")
        if wire == "chat" and data.get("stream") is True:
            opts = data.get("stream_options")
            if not isinstance(opts, dict) or opts.get("include_usage") is not True:
                data["stream_options"] = {**(opts if isinstance(opts, dict) else {}), "include_usage": True}
                body = json.dumps(data).encode()
        return data, body

    @staticmethod
    def forward_headers(head: RequestHead, up: Upstream) -> list[tuple[str, str]]:
        out = [(k, v) for k, vs in head.headers.items() if k not in CREDENTIAL_HEADERS and k not in HOP_BY_HOP
               for v in vs]
        out.append(("accept-encoding", "identity"))
        out.append(up.credential())
        return out

    # ---- metering -----------------------------------------------------------------------
    def meter(self, call: _Call) -> dict:
        u = call.usage
        if call.wire == "count_tokens":
            cost: Optional[float] = 0.0 if call.status == 200 else None
            inp, out = (0, 0) if call.status == 200 else (None, None)
        else:
            cost = self.prices.cost(call.provider, call.wire, call.model, u) if call.status == 200 else None
            inp, out = u.input_tokens, u.output_tokens
        end = self.clock()
        rec = {"t": round(call.started - self.t0, 6), "provider": call.provider, "wire": call.wire,
               "endpoint": call.endpoint, "model": call.model, "stream": call.stream, "status": call.status,
               "input_tokens": inp, "output_tokens": out, "cache_read_tokens": u.cache_read_tokens,
               "cache_write_tokens": u.cache_write_tokens, "usage_reported": u.reported or call.wire == "count_tokens",
               "cost_usd": cost, "latency_s": round(end - call.started, 6),
               "first_byte_s": None if call.first_byte_s is None else round(call.first_byte_s, 6),
               "error": call.error}
        if call.counted_tokens is not None:
            rec["counted_tokens"] = call.counted_tokens
        if call.status == 200 and not rec["usage_reported"] and call.error is None:
            rec["error"] = "the provider reported no usage"
        with self.lock:
            rec = {"seq": len(self.records), **rec}
            self.records.append(rec)
            with self.records_path.open("a", encoding="utf-8") as f:
                f.write(json.dumps(rec, sort_keys=True) + "\n")
        return rec

    def settle(self, wait_s: float = 30.0) -> bool:
        """Wait until no call is in flight (a client has its answer a moment before the call is
        recorded); False if calls are still running after `wait_s`."""
        with self.idle:
            return self.idle.wait_for(lambda: self.inflight == 0, timeout=wait_s)

    def _begun(self, delta: int) -> None:
        with self.idle:
            self.inflight += delta
            self.idle.notify_all()

    def summary(self) -> dict:
        """Totals over the records: calls, tokens, dollars, and per model."""
        with self.lock:
            recs = list(self.records)
        by_model: dict[str, dict] = {}
        for r in recs:
            m = by_model.setdefault(f"{r['provider']}/{r['model']}", {"calls": 0, "input_tokens": 0,
                                                                       "output_tokens": 0, "cost_usd": 0.0})
            m["calls"] += 1
            m["input_tokens"] += r["input_tokens"] or 0
            m["output_tokens"] += r["output_tokens"] or 0
            m["cost_usd"] = round(m["cost_usd"] + (r["cost_usd"] or 0.0), 10)
        return {"calls": len(recs), "failed": sum(1 for r in recs if r["status"] != 200 or r["error"]),
                "unpriced": sum(1 for r in recs if r["status"] == 200 and r["cost_usd"] is None),
                "input_tokens": sum(m["input_tokens"] for m in by_model.values()),
                "output_tokens": sum(m["output_tokens"] for m in by_model.values()),
                "cost_usd": round(sum(m["cost_usd"] for m in by_model.values()), 10),
                "by_model": by_model, "refused": self.refused}

    # ---- the server ---------------------------------------------------------------------
    def start(self, socket_path: Path) -> "ModelProxy":
        self.socket = Path(socket_path)
        if self.socket.exists() or self.socket.is_symlink():
            self.socket.unlink()
        self._server = _Server(self, self.socket)
        return self

    @property
    def connections(self) -> int:
        return self._server.open if self._server is not None else 0

    def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None
        if self.socket is not None and (self.socket.exists() or self.socket.is_symlink()):
            self.socket.unlink()


class _Server:
    """The proxy's HTTP/1.1 server: one asyncio loop in a thread, for reading requests and
    for forwarding them (httpx's async client), so a streamed answer costs no thread."""

    def __init__(self, proxy: ModelProxy, path: Path):
        self.proxy = proxy
        lim = proxy.limits
        self.body_limit, self.max_connections = lim["body_limit"], lim["max_connections"]
        self.idle_timeout_s, self.upstream_timeout_s = lim["idle_timeout_s"], lim["upstream_timeout_s"]
        self.open = 0
        self.loop = asyncio.new_event_loop()
        self.tasks: set[asyncio.Task] = set()
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.bind(str(path))
            sock.listen(128)
        except OSError:
            sock.close()
            raise

        async def setup() -> asyncio.AbstractServer:
            self.slots = asyncio.Semaphore(lim["concurrency"])
            self.client = httpx.AsyncClient(timeout=httpx.Timeout(self.upstream_timeout_s, connect=30.0),
                                            limits=httpx.Limits(max_connections=lim["concurrency"] * 2),
                                            trust_env=False, follow_redirects=False)
            return await asyncio.start_unix_server(self._connection, sock=sock, limit=HEADER_LIMIT)
        self.server = self.loop.run_until_complete(setup())
        self.thread = threading.Thread(target=self.loop.run_forever, name="factforge-modelproxy", daemon=True)
        self.thread.start()

    def close(self) -> None:
        async def shut() -> None:
            self.server.close()
            for t in list(self.tasks):
                t.cancel()
            await asyncio.sleep(0.05)
            await self.client.aclose()
            self.loop.stop()
        if self.loop.is_running():
            asyncio.run_coroutine_threadsafe(shut(), self.loop)
        self.thread.join(timeout=5)
        if not self.loop.is_running():
            self.loop.close()

    # ---- writing ------------------------------------------------------------------------
    async def _write(self, writer: asyncio.StreamWriter, data: bytes) -> None:
        """Write; wait (at most the idle timeout) only when the client is not reading fast
        enough for the transport's buffer to drain by itself."""
        writer.write(data)
        if writer.transport.get_write_buffer_size() > WRITE_BUFFER:
            await asyncio.wait_for(writer.drain(), self.idle_timeout_s)
        elif writer.transport.is_closing():
            raise ConnectionResetError("the client left")

    async def _send_error(self, writer: asyncio.StreamWriter, status: int, body: bytes, close: bool) -> None:
        body += b"\n"
        head = (f"HTTP/1.1 {status} {REASONS.get(status, 'Error')}\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\n" + ("Connection: close\r\n" if close else "") + "\r\n")
        await self._write(writer, head.encode("ascii") + body)

    async def _refuse(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, e: Refused) -> None:
        """Answer, then read and discard (at most 1 MiB, 1 s) what the client still sends before
        closing, so that it receives the answer rather than a reset."""
        self.proxy.refused += 1
        await self._send_error(writer, *_error(e.status, e.code, e.message), close=True)
        if writer.can_write_eof():
            writer.write_eof()
        deadline, n = self.loop.time() + 1.0, 0
        while n < (1 << 20) and (left := deadline - self.loop.time()) > 0:
            chunk = await asyncio.wait_for(reader.read(1 << 16), left)
            if not chunk:
                break
            n += len(chunk)

    # ---- reading ------------------------------------------------------------------------
    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self.tasks.add(task)
        over = self.open >= self.max_connections
        self.open += 1
        try:
            if over:
                await self._refuse(reader, writer, Refused(503, "too_many_connections",
                                                           f"at most {self.max_connections} connections at once"))
                return
            while await self._exchange(reader, writer):
                pass
        except (OSError, asyncio.TimeoutError, asyncio.IncompleteReadError, asyncio.CancelledError):
            pass   # the client left, went silent or the server is stopping
        finally:
            self.open -= 1
            self.tasks.discard(task)  # type: ignore[arg-type]
            writer.close()

    async def _exchange(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        """One request and its answer; False when the connection is to be closed."""
        try:
            raw = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), self.idle_timeout_s)
        except asyncio.IncompleteReadError:
            return False
        except asyncio.LimitOverrunError:
            await self._refuse(reader, writer, Refused(431, "headers_too_large",
                                                       f"the head exceeds {HEADER_LIMIT >> 10} KiB"))
            return False
        try:
            head = parse_head(raw, self.body_limit)
            provider, up, wire, upath = self.proxy.route(head)
        except Refused as e:
            await self._refuse(reader, writer, e)
            return False
        if head.expect_continue and head.length:
            await self._write(writer, b"HTTP/1.1 100 Continue\r\n\r\n")
        body = await asyncio.wait_for(reader.readexactly(head.length), self.idle_timeout_s) if head.length else b""
        if wire == "models":
            data, out = {}, b""
        else:
            try:
                data, out = self.proxy.prepare(wire, body)
            except Refused as e:
                self.proxy.refused += 1
                await self._send_error(writer, *_error(e.status, e.code, e.message), close=head.close)
                return not head.close
        call = _Call(provider, wire, upath.partition("?")[0], str(data.get("model", "")), data.get("stream") is True,
                     self.proxy.clock())
        self.proxy._begun(1)
        try:
            async with self.slots:
                keep = await self._forward(writer, head, up, upath, out, call)
        except asyncio.CancelledError:
            call.error = call.error or "the proxy stopped during the call"
            raise
        finally:
            try:
                if wire != "models":
                    self.proxy.meter(call)
            finally:
                self.proxy._begun(-1)
        return keep and not head.close

    # ---- forwarding ---------------------------------------------------------------------
    async def _forward(self, writer: asyncio.StreamWriter, head: RequestHead, up: Upstream, upath: str,
                       body: bytes, call: _Call) -> bool:
        """Forward one call and stream its answer back; False when the connection cannot go on."""
        url = up.base_url.rstrip("/") + upath
        req = self.client.build_request(head.method, url, headers=ModelProxy.forward_headers(head, up),
                                        content=body if head.method == "POST" else None)
        try:
            resp = await self.client.send(req, stream=True)
        except httpx.HTTPError as e:
            call.status, call.error = 502, f"upstream unreachable: {type(e).__name__}"
            await self._send_error(writer, *_error(502, "upstream_error",
                                                   f"the provider could not be reached ({type(e).__name__})"),
                                   close=head.close)
            return True
        try:
            return await self._relay_answer(writer, resp, call)
        finally:
            await resp.aclose()

    async def _relay_answer(self, writer: asyncio.StreamWriter, resp: httpx.Response, call: _Call) -> bool:
        call.status = resp.status_code
        ctype = resp.headers.get("content-type", "")
        sse = ctype.startswith("text/event-stream")
        length = resp.headers.get("content-length")
        chunked = length is None or not length.isdigit()
        lines = [f"HTTP/1.1 {resp.status_code} {resp.reason_phrase or REASONS.get(resp.status_code, 'Answer')}"]
        lines += [f"{k}: {v}" for k, v in resp.headers.multi_items() if k.lower() not in ANSWER_DROPPED]
        lines.append("Transfer-Encoding: chunked" if chunked else f"Content-Length: {length}")
        await self._write(writer, ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
        events = EventStream(call.wire) if sse else None
        kept: Optional[bytearray] = None if sse else bytearray()
        try:
            async for chunk in resp.aiter_raw():
                if call.first_byte_s is None:
                    call.first_byte_s = self.proxy.clock() - call.started
                if events is not None:
                    events.feed(chunk)
                elif kept is not None:
                    kept += chunk
                    if len(kept) > ANSWER_PARSE_LIMIT:
                        kept = None
                await self._write(writer, b"%x\r\n%s\r\n" % (len(chunk), chunk) if chunked else chunk)
        except httpx.HTTPError as e:
            call.error = f"the provider's answer broke off: {type(e).__name__}"
            return False
        except (OSError, asyncio.TimeoutError) as e:
            call.error = f"the client left during the answer: {type(e).__name__}"
            raise
        finally:
            self._read_usage(call, events, kept, ctype)
        if chunked:
            await self._write(writer, b"0\r\n\r\n")
        return True

    @staticmethod
    def _read_usage(call: _Call, events: Optional[EventStream], kept: Optional[bytearray], ctype: str) -> None:
        if events is not None:
            events.close()
            call.usage = events.usage
            return
        if kept is None or "json" not in ctype:
            return
        try:
            data = json.loads(bytes(kept))
        except (ValueError, UnicodeDecodeError, RecursionError):
            return
        if call.wire == "count_tokens":
            n = data.get("input_tokens") if isinstance(data, dict) else None
            call.counted_tokens = n if isinstance(n, int) else None
        elif call.status == 200:
            call.usage = usage_of_answer(call.wire, data)
