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
"""
from __future__ import annotations

import http.server
import json
import os
import socketserver
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

from outputs.packs.menu import Menu

from .models import ModelUsage

ALLOWED_PARAMS = {"messages", "tools", "tool_choice", "temperature", "top_p", "max_tokens", "max_completion_tokens",
                  "stop", "seed", "response_format", "parallel_tool_calls"}
REQUEST_LIMIT = 8 << 20


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
                 completion: Optional[Callable[..., Any]] = None):
        self.menu = menu
        self.allowed = list(allowed) or [m.name for m in menu.models]
        self.mock_response = mock_response
        self._completion = completion
        self.ledger = Ledger()
        self.lock = threading.Lock()
        self.idle = threading.Condition(self.lock)
        self._inflight = 0
        self._server: Optional[socketserver.BaseServer] = None
        self._thread: Optional[threading.Thread] = None
        self._warming: Optional[threading.Thread] = None
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
    def warm(self) -> None:
        """Import litellm in the background (seconds of CPU), so that an agent's first model
        call does not spend its step time on the gateway's start-up."""
        if self._completion is None and self._warming is None:
            self._warming = threading.Thread(target=self._import, name="factforge-gateway-warm", daemon=True)
            self._warming.start()

    def _import(self) -> None:
        os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        import litellm  # noqa: PLC0415
        self._completion = self._completion or litellm.completion

    def completion(self) -> Callable[..., Any]:
        if self._warming is not None:
            self._warming.join()
        if self._completion is None:
            self._import()
        return self._completion  # type: ignore[return-value]

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
        gw = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                """Quiet: the ledger is the gateway's record."""

            def _send(self, status: int, payload: dict) -> None:
                data = json.dumps(payload).encode("utf-8")
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self) -> None:  # noqa: N802
                n = int(self.headers.get("Content-Length") or 0)
                if self.path != "/v1/chat/completions":
                    return self._send(*_err(404, "not_found", f"no route POST {self.path}"))
                if n > REQUEST_LIMIT:
                    return self._send(*_err(413, "payload_too_large", "the request exceeds 8 MiB"))
                try:
                    body = json.loads(self.rfile.read(n) or b"null")
                except (json.JSONDecodeError, UnicodeDecodeError):
                    return self._send(*_err(400, "bad_request", "the body is not valid JSON"))
                self._send(*gw.handle(body))

            def do_GET(self) -> None:  # noqa: N802
                if self.path == "/v1/models":
                    return self._send(200, {"object": "list", "data": [{"id": n, "object": "model"} for n in gw.allowed]})
                self._send(*_err(404, "not_found", f"no route GET {self.path}"))

        class Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
            daemon_threads = True

            def get_request(self):  # BaseHTTPRequestHandler wants an address pair
                sock, _ = super().get_request()
                return sock, ("gateway", 0)

        self.socket = Path(socket_path)
        if self.socket.exists():
            self.socket.unlink()
        self._server = Server(str(self.socket), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.1},
                                        name="factforge-gateway", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
        if self.socket is not None and self.socket.exists():
            self.socket.unlink()
