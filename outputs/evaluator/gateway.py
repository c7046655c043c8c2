"""The model gateway: the only way an agent reaches a model. OpenAI-compatible
`POST /v1/chat/completions` on a Unix socket bind-mounted into the sandbox; behind it,
litellm (imported on the first call, `LITELLM_LOCAL_MODEL_COST_MAP=True`).

Per call it enforces the task's menu (`models/menu.toml` of the kit, pinned by sha256 in the
sealed task):

| rule | answer when broken |
|---|---|
| the model is one of the task's menu models (by menu name; the litellm name stays private) | 403 `model_not_allowed` |
| at most `max_calls_per_conversation` calls of that model in this conversation | 429 `call_limit` |
| `temperature` within the model's range | 422 `invalid_argument` |
| `max_tokens` / `max_completion_tokens` at most `max_output_tokens` (the gateway sets it when absent) | 422 `invalid_argument` |
| `tools` only for a model with tools | 422 `invalid_argument` |
| the prompt (estimated at 4 characters per token) within `context_window` | 422 `context_window_exceeded` |
| only OpenAI chat parameters (messages, tools, tool_choice, temperature, top_p, max_tokens, max_completion_tokens, stop, seed, response_format, parallel_tool_calls) | 422 `invalid_argument` |

Metering: every answered call's credits = (prompt tokens x input rate + completion tokens x
output rate) / 1e6 at the model's tier rates, added to the current conversation's `Ledger`,
whatever happens to the conversation afterwards (a conversation that fails still costs
what it used). A model answer **without usage** cannot be metered: the agent gets 502
`no_usage` and the conversation is marked with an infrastructure error (never counted as
free). An upstream failure (litellm raising) is 502 `upstream_error`, recorded the same
way. Refused calls (403/422/429) reach no model and cost nothing.

The server is bounded whatever the agent sends (`_Server`): one asyncio loop reads every
connection, a pool of 4 threads answers requests, at most 32 connections are open at once
(the 33rd gets 503 `too_many_connections`), a connection silent for 60 s is closed, a
request needs a decimal Content-Length (411 without one, 400 if malformed, 413 over 8 MiB)
and no byte past it is read, a malformed request line or header is 400, a head over 16 KiB
or 100 fields is 431, and a body nested deeper than 100 levels is 400. Every refusal is a
JSON error; nothing is logged.
"""
from __future__ import annotations

import asyncio
import concurrent.futures
import json
import socket
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

from facts.llm import litellm_module
from outputs.httphead import HEADER_LIMIT, REASONS, Refused, RequestHead, parse_head
from outputs.jsondepth import nested_deeper
from outputs.packs.menu import Menu

from .models import ModelUsage

ALLOWED_PARAMS = {"messages", "tools", "tool_choice", "temperature", "top_p", "max_tokens", "max_completion_tokens",
                  "stop", "seed", "response_format", "parallel_tool_calls"}
REQUEST_LIMIT = 8 << 20       # a request body
MAX_DEPTH = 100               # nesting of a request body's arrays and objects
MAX_CONNECTIONS = 32          # open at once
WORKERS = 4                   # requests answered at once
IDLE_TIMEOUT_S = 60.0
LINGER_BYTES, LINGER_S = 1 << 20, 1.0   # read and discarded after a refusal, so its answer is not lost


@dataclass
class Ledger:
    """What one conversation spent and what went wrong at the gateway."""
    usage: list[ModelUsage] = field(default_factory=list)
    calls: dict[str, int] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)

    @property
    def credits(self) -> float:
        return sum(u.credits for u in self.usage)


def _err(status: int, code: str, message: str, **details: Any) -> tuple[int, dict]:
    return status, {"error": {"code": code, "message": message, "details": details}}


class ModelGateway:
    """The gateway's logic (`handle`) and its server on a Unix socket (`start`/`stop`)."""

    def __init__(self, menu: Menu, allowed: list[str], *, mock_response: Any = None,
                 completion: Optional[Callable[..., Any]] = None, max_connections: int = MAX_CONNECTIONS,
                 workers: int = WORKERS, idle_timeout_s: float = IDLE_TIMEOUT_S):
        self.menu = menu
        self.allowed = list(allowed) or [m.name for m in menu.models]
        self.mock_response = mock_response
        self._completion = completion
        self.ledger = Ledger()
        self.lock = threading.Lock()
        self.idle = threading.Condition(self.lock)
        self._inflight = 0
        self.limits = {"max_connections": max_connections, "workers": workers, "idle_timeout_s": idle_timeout_s}
        self._server: Optional[_Server] = None
        self._importing = threading.Lock()  # one import, whichever request thread asks first
        self.socket: Optional[Path] = None

    # ---- conversations ------------------------------------------------------------------
    def begin(self) -> None:
        with self.lock:
            self.ledger = Ledger()

    def end(self, wait_s: float = 300.0) -> Ledger:
        """The conversation's ledger. Waits for model calls still in flight (an agent that
        timed out may have left one), so their cost lands in this conversation."""
        with self.idle:
            self.idle.wait_for(lambda: self._inflight == 0, timeout=wait_s)
            out, self.ledger = self.ledger, Ledger()
            return out

    # ---- one call -----------------------------------------------------------------------
    def completion(self) -> Callable[..., Any]:
        """litellm's `completion`, imported on the first model call of the run (about 4 s of
        CPU): a run whose agent never calls a model never pays for it. The first call's wait
        counts in that step's time, like any slow answer from a provider."""
        with self._importing:
            if self._completion is None:
                self._completion = litellm_module().completion
        return self._completion

    def handle(self, body: Any) -> tuple[int, dict]:
        if not isinstance(body, dict):
            return _err(400, "bad_request", "the body must be a JSON object")
        name = body.get("model")
        if name not in self.allowed:
            return _err(403, "model_not_allowed", f"model {name!r} is not on this task's menu",
                        allowed=self.allowed)
        m = self.menu.model(name)
        params = {k: v for k, v in body.items() if k != "model"}
        unknown = sorted(set(params) - ALLOWED_PARAMS)
        if unknown:
            return _err(422, "invalid_argument", f"unsupported parameter {unknown[0]!r}", allowed=sorted(ALLOWED_PARAMS))
        if not isinstance(params.get("messages"), list) or not params["messages"]:
            return _err(422, "invalid_argument", "messages must be a non-empty list")
        t = params.get("temperature")
        lo, hi = m.temperature
        if t is not None and (isinstance(t, bool) or not isinstance(t, (int, float)) or not lo <= t <= hi):
            return _err(422, "invalid_argument", f"{name}: temperature must be within {lo}..{hi}", got=t)
        for k in ("max_tokens", "max_completion_tokens"):
            v = params.get(k)
            if v is not None and (isinstance(v, bool) or not isinstance(v, int) or not 0 < v <= m.max_output_tokens):
                return _err(422, "invalid_argument", f"{name}: {k} must be 1..{m.max_output_tokens}", got=v)
        if params.get("tools") and not m.tools:
            return _err(422, "invalid_argument", f"{name} does not take tools")
        est = len(json.dumps([params.get("messages"), params.get("tools")])) // 4
        if est > m.context_window:
            return _err(422, "context_window_exceeded", f"{name}: about {est} prompt tokens, the context window is "
                        f"{m.context_window}", estimated_tokens=est)
        with self.lock:
            n = self.ledger.calls.get(name, 0)
            if n >= m.max_calls_per_conversation:
                return _err(429, "call_limit", f"{name}: at most {m.max_calls_per_conversation} calls per conversation")
            self.ledger.calls[name] = n + 1
            ledger = self.ledger
            self._inflight += 1
        try:
            return self._call(name, m, params, ledger)
        finally:
            with self.idle:
                self._inflight -= 1
                self.idle.notify_all()

    def _call(self, name: str, m: Any, params: dict, ledger: Ledger) -> tuple[int, dict]:
        if "max_tokens" not in params and "max_completion_tokens" not in params:
            params["max_tokens"] = m.max_output_tokens
        if self.mock_response is not None:
            params["mock_response"] = self.mock_response
        try:
            r = self.completion()(model=m.litellm_model, **params)
        except Exception as e:  # the provider failed: the agent is told, the run records it
            msg = f"{type(e).__name__}: {str(e)[:200]}"
            with self.lock:
                ledger.usage.append(ModelUsage(model=name, prompt_tokens=0, completion_tokens=0, credits=0.0, ok=False,
                                               error=msg))
                ledger.errors.append(f"upstream error from {name}: {msg}")
            return _err(502, "upstream_error", f"the model provider failed: {msg}")
        data = r.model_dump() if hasattr(r, "model_dump") else dict(r)
        u = data.get("usage") or {}
        p, c = u.get("prompt_tokens"), u.get("completion_tokens")
        if not isinstance(p, int) or not isinstance(c, int) or p < 0 or c < 0:
            with self.lock:
                ledger.usage.append(ModelUsage(model=name, prompt_tokens=0, completion_tokens=0, credits=0.0, ok=False,
                                               error="response without usage"))
                ledger.errors.append(f"{name} answered without token usage (cannot be metered)")
            return _err(502, "no_usage", "the model answered without token usage; the call cannot be metered")
        credits = self.menu.credits(name, p, c)
        with self.lock:
            ledger.usage.append(ModelUsage(model=name, prompt_tokens=p, completion_tokens=c, credits=credits))
        data["model"] = name
        return 200, data

    # ---- the server ---------------------------------------------------------------------
    def start(self, socket_path: Path) -> "ModelGateway":
        """Serve on a Unix socket: one asyncio loop (a thread) reads requests, a pool of
        `workers` threads answers them; see `_Server` for the limits."""
        self.socket = Path(socket_path)
        if self.socket.exists() or self.socket.is_symlink():
            self.socket.unlink()
        self._server = _Server(self, self.socket, **self.limits)
        return self

    @property
    def connections(self) -> int:
        """Connections open right now."""
        return self._server.open if self._server is not None else 0

    def stop(self) -> None:
        """Close the server."""
        if self._server is not None:
            self._server.close()
            self._server = None
        if self.socket is not None and (self.socket.exists() or self.socket.is_symlink()):
            self.socket.unlink()

    def answer(self, body: bytes) -> tuple[int, dict]:
        """One request body to its answer; whatever goes wrong is a JSON error, never an
        exception out of the server."""
        try:
            data = json.loads(body or b"null")
        except (json.JSONDecodeError, UnicodeDecodeError):
            return _err(400, "bad_request", "the body is not valid JSON")
        except RecursionError:
            data = _TOO_DEEP
        if data is _TOO_DEEP or nested_deeper(data, MAX_DEPTH):
            return _err(400, "bad_request", f"the body is nested deeper than {MAX_DEPTH} levels", max_depth=MAX_DEPTH)
        try:
            return self.handle(data)
        except Exception as e:  # noqa: BLE001  (a bug of ours answers 500; the ledger says so)
            with self.lock:
                self.ledger.errors.append(f"the gateway failed: {type(e).__name__}")
            return _err(500, "internal_error", f"the gateway failed: {type(e).__name__}")


_TOO_DEEP = object()


class _Server:
    """The gateway's HTTP/1.1 server, bounded in every dimension an agent controls:

    | limit | value | when exceeded |
    |---|---|---|
    | connections open at once | `max_connections` (32) | 503 `too_many_connections`, closed |
    | requests answered at once | `workers` (4 threads) | the request waits its turn |
    | silence before a request's head is complete, and time to send its body | `idle_timeout_s` (60 s) | closed |
    | request line and headers | 16 KiB, 100 fields | 431, closed |
    | body | Content-Length required (411), a decimal (400), at most 8 MiB (413); never read past it | closed after the answer |
    """

    def __init__(self, gw: ModelGateway, path: Path, *, max_connections: int = MAX_CONNECTIONS,
                 workers: int = WORKERS, idle_timeout_s: float = IDLE_TIMEOUT_S):
        self.gw = gw
        self.max_connections, self.idle_timeout_s = max_connections, idle_timeout_s
        self.open = 0
        self.pool = concurrent.futures.ThreadPoolExecutor(max_workers=workers, thread_name_prefix="factforge-gateway-call")
        self.loop = asyncio.new_event_loop()
        self.slots = asyncio.Semaphore(workers)
        self.tasks: set[asyncio.Task] = set()
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.bind(str(path))
            sock.listen(128)
        except OSError:
            sock.close()
            raise
        self.server = self.loop.run_until_complete(
            asyncio.start_unix_server(self._connection, sock=sock, limit=HEADER_LIMIT))
        self.thread = threading.Thread(target=self.loop.run_forever, name="factforge-gateway", daemon=True)
        self.thread.start()

    def close(self) -> None:
        def shut() -> None:
            self.server.close()
            for t in self.tasks:
                t.cancel()
            self.loop.call_later(0.2, self.loop.stop)
        if self.loop.is_running():
            self.loop.call_soon_threadsafe(shut)
        self.thread.join(timeout=5)
        self.pool.shutdown(wait=False, cancel_futures=True)
        if not self.loop.is_running():
            self.loop.close()

    async def _send(self, writer: asyncio.StreamWriter, status: int, payload: dict, close: bool) -> None:
        data = json.dumps(payload).encode("utf-8")
        head = (f"HTTP/1.1 {status} {REASONS.get(status, 'Error')}\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(data)}\r\n" + ("Connection: close\r\n" if close else "") + "\r\n")
        writer.write(head.encode("ascii") + data)
        await asyncio.wait_for(writer.drain(), self.idle_timeout_s)

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self.tasks.add(task)
        over = self.open >= self.max_connections
        self.open += 1
        try:
            if over:
                await self._send(writer, *_err(503, "too_many_connections",
                                               f"at most {self.max_connections} connections at once"), close=True)
                return
            while await self._exchange(reader, writer):
                pass
        except (OSError, asyncio.TimeoutError, asyncio.IncompleteReadError, asyncio.CancelledError):
            pass   # the client left, went silent or the server is stopping: nothing to answer
        finally:
            self.open -= 1
            self.tasks.discard(task)  # type: ignore[arg-type]
            writer.close()

    async def _refuse(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, status: int,
                      payload: dict) -> None:
        """Answer, then read and discard what the client is still sending (at most 1 MiB, for
        at most a second) before closing: closing on unread bytes resets the connection and the
        client could lose the answer."""
        await self._send(writer, status, payload, close=True)
        if writer.can_write_eof():
            writer.write_eof()
        deadline, n = self.loop.time() + LINGER_S, 0
        while n < LINGER_BYTES and (left := deadline - self.loop.time()) > 0:
            chunk = await asyncio.wait_for(reader.read(1 << 16), left)
            if not chunk:
                break
            n += len(chunk)

    async def _exchange(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        """One request and its answer; False when the connection is to be closed."""
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), self.idle_timeout_s)
        except asyncio.IncompleteReadError:
            return False
        except asyncio.LimitOverrunError:
            await self._refuse(reader, writer, *_err(431, "headers_too_large",
                                                     f"the head exceeds {HEADER_LIMIT >> 10} KiB"))
            return False
        try:
            req = parse_head(head, REQUEST_LIMIT)
        except Refused as e:
            await self._refuse(reader, writer, *_err(e.status, e.code, e.message))
            return False
        async with self.slots:
            if req.expect_continue and req.length:
                writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
            body = await asyncio.wait_for(reader.readexactly(req.length), self.idle_timeout_s) if req.length else b""
            status, payload = await self._route(req, body)
        await self._send(writer, status, payload, close=req.close)
        return not req.close

    async def _route(self, req: RequestHead, body: bytes) -> tuple[int, dict]:
        gw = self.gw
        if (req.method, req.path) == ("POST", "/v1/chat/completions"):
            return await self.loop.run_in_executor(self.pool, gw.answer, body)
        if (req.method, req.path) == ("GET", "/v1/models"):
            return 200, {"object": "list", "data": [{"id": n, "object": "model"} for n in gw.allowed]}
        return _err(404, "not_found", f"no route {req.method} {req.path}")
