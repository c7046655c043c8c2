"""The factforge agent SDK, shipped in every task kit as `sdk/factforge_sdk.py`.

Standard library only. Two clients:

- `ApiClient`: calls the client's production API over HTTP by operation id, built from the
  kit's `api/openapi.json` (GET operations send their arguments as query parameters, POST
  operations as a JSON body; `{name}` segments of a path are filled from the arguments).
  An operation the kit's document does not name is looked up once more in the server's own
  `GET /openapi.json`, which also lists what the client has switched on since the kit was made.
  Errors raise `ApiError` carrying the HTTP status, the error envelope
  (`{"error": {"code", "message", "details"}}`) and the response headers (`Retry-After`,
  `Location`, ...). The SDK does not retry, page or poll: handling the API's behaviour is
  the agent's job.
- `Gateway`: the model gateway, an OpenAI-compatible `POST /v1/chat/completions` endpoint
  that meters credits; only the task's menu models are served.

Both read their base URL from the environment the evaluator sets: `FACTFORGE_API_URL`,
`FACTFORGE_GATEWAY_URL`; `FACTFORGE_KIT` is the kit directory. A base URL is `http://host:port`
or, inside a sandbox without a network, `http+unix://<percent-encoded socket path>` (a Unix
domain socket bind-mounted into the sandbox).

Waiting: the API's time may be virtual (evaluation runs a whole conversation in seconds).
Always wait through `wait(seconds)` (or `ApiClient.wait`), never `time.sleep`, before a retry
or a poll: it asks the API server to wait (`POST /_clock/wait {"seconds": s}`), which advances
a virtual clock at once or sleeps on a real one.
"""
from __future__ import annotations

import http.client
import json
import os
import re
import socket
import time
import urllib.parse
from pathlib import Path
from typing import Any, Optional


def wait(seconds: float) -> None:
    """Wait before retrying or polling: through the API server's clock when
    `FACTFORGE_API_URL` is set (virtual time advances at once), else by sleeping."""
    base = os.environ.get("FACTFORGE_API_URL")
    if base:
        _clock_wait(base, seconds)
    else:
        time.sleep(max(0.0, float(seconds)))


def _clock_wait(base: str, seconds: float) -> None:
    s = min(max(0.0, float(seconds)), 3600.0)
    try:
        status, _, _ = _request("POST", base.rstrip("/") + "/_clock/wait", {"seconds": s}, {}, s + 30.0)
    except ApiError:
        status = 0
    if status != 200:  # a server without a clock endpoint: wall time it is
        time.sleep(s)


class Headers(dict):
    """Response headers; names are case-insensitive (`h["Retry-After"]` == `h["retry-after"]`)."""

    def __init__(self, items=()):
        super().__init__((str(k).lower(), v) for k, v in (items.items() if isinstance(items, dict) else items))

    def __getitem__(self, key: str) -> str:
        return super().__getitem__(key.lower())

    def __contains__(self, key: object) -> bool:
        return super().__contains__(key.lower() if isinstance(key, str) else key)

    def get(self, key: str, default: Any = None) -> Any:
        return super().get(key.lower(), default)


class ApiError(Exception):
    """A non-2xx answer of the API (or a transport failure, status 0)."""

    def __init__(self, status: int, code: str, message: str, details: Optional[dict] = None,
                 headers: Optional[dict] = None):
        self.status, self.code, self.message = status, code, message
        self.details, self.headers = dict(details or {}), Headers(headers or {})
        super().__init__(f"{status} {code}: {message}")

    def envelope(self) -> dict:
        return {"error": {"code": self.code, "message": self.message, "details": self.details}}


class Response(dict):
    """A successful API answer: the JSON body, with `.status` and `.headers`."""
    status: int = 200
    headers: Headers = Headers()


class _UnixConnection(http.client.HTTPConnection):
    """HTTP over a Unix domain socket (`http+unix://` base URLs)."""

    def __init__(self, path: str, timeout: float):
        super().__init__("localhost", timeout=timeout)
        self._path = path

    def connect(self) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(self.timeout)
        self.sock.connect(self._path)


def _request(method: str, url: str, body: Optional[dict], headers: dict, timeout: float) -> tuple[int, dict, Any]:
    data = json.dumps(body).encode("utf-8") if body is not None else None
    h = {"Accept": "application/json", **headers}
    if data is not None:
        h["Content-Type"] = "application/json"
    u = urllib.parse.urlsplit(url)
    target = (u.path or "/") + (f"?{u.query}" if u.query else "")
    try:
        if u.scheme == "http+unix":
            conn: http.client.HTTPConnection = _UnixConnection(urllib.parse.unquote(u.netloc), timeout)
        elif u.scheme == "https":
            conn = http.client.HTTPSConnection(u.hostname or "", u.port, timeout=timeout)
        else:
            conn = http.client.HTTPConnection(u.hostname or "", u.port, timeout=timeout)
        try:
            conn.request(method, target, body=data, headers=h)
            resp = conn.getresponse()
            raw = resp.read()
            status, hdrs = resp.status, Headers(resp.getheaders())
        finally:
            conn.close()
    except (OSError, http.client.HTTPException) as e:
        raise ApiError(0, "transport_error", str(e)) from None
    try:
        payload = json.loads(raw) if raw else {}
    except (json.JSONDecodeError, UnicodeDecodeError):
        payload = {"error": {"code": "http_error", "message": raw.decode("utf-8", "replace")[:200]}}
    return status, hdrs, payload


class ApiClient:
    def __init__(self, base_url: str, openapi: dict, timeout: float = 30.0):
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.spec = openapi
        self.ops: dict[str, dict] = {}
        self._learn(openapi)

    def _learn(self, openapi: dict) -> None:
        for path, methods in openapi.get("paths", {}).items():
            for method, op in methods.items():
                if isinstance(op, dict) and "operationId" in op:
                    self.ops.setdefault(op["operationId"], {"method": method.upper(), "path": path, "op": op})

    def refresh(self) -> None:
        """Read the server's current contract (operations switched on since the kit was made)."""
        status, _, doc = _request("GET", self.base_url + "/openapi.json", None, {}, self.timeout)
        if status == 200 and isinstance(doc, dict):
            self.spec = doc
            self._learn(doc)

    @classmethod
    def from_env(cls) -> "ApiClient":
        base = os.environ["FACTFORGE_API_URL"]
        kit = os.environ.get("FACTFORGE_KIT")
        doc = Path(kit) / "api" / "openapi.json" if kit else None
        if doc is not None and doc.is_file():
            spec = json.loads(doc.read_text(encoding="utf-8"))
        else:
            status, _, spec = _request("GET", base.rstrip("/") + "/openapi.json", None, {}, 30.0)
            if status != 200:
                raise ApiError(status, "no_contract", "the API's OpenAPI document is not available")
        return cls(base, spec)

    def operations(self) -> list[str]:
        return sorted(self.ops)

    def wait(self, seconds: float) -> None:
        """Wait through this API server's clock (see the module docstring)."""
        _clock_wait(self.base_url, seconds)

    def call(self, operation: str, args: Optional[dict] = None, headers: Optional[dict] = None) -> Response:
        """Call `operation` with `args`; returns the JSON body (a `Response`), raises `ApiError`."""
        if operation not in self.ops:
            self.refresh()
        if operation not in self.ops:
            raise ApiError(404, "unknown_operation", f"no operation {operation!r}; known: {', '.join(self.operations())}")
        o = self.ops[operation]
        args = dict(args or {})
        names = re.findall(r"{(\w+)}", o["path"])
        missing = [n for n in names if n not in args]
        if missing:
            raise ApiError(422, "invalid_argument", f"missing path argument {missing[0]!r}")
        path = o["path"]
        for n in names:
            path = path.replace("{" + n + "}", urllib.parse.quote(str(args.pop(n)), safe=""))
        url = self.base_url + path
        body = None
        if o["method"] == "GET":
            if args:
                url += "?" + urllib.parse.urlencode({k: json.dumps(v) if isinstance(v, (dict, list)) else v
                                                     for k, v in args.items()}, doseq=False)
        else:
            body = args
        return self.request(o["method"], url, body, headers or {})

    def request(self, method: str, url: str, body: Optional[dict] = None, headers: Optional[dict] = None) -> Response:
        """A raw request (e.g. polling a status URL); absolute or relative to the base URL."""
        if url.startswith("/"):
            url = self.base_url + url
        status, hdrs, payload = _request(method, url, body, headers or {}, self.timeout)
        if status >= 400:
            err = payload.get("error", {}) if isinstance(payload, dict) else {}
            raise ApiError(status, err.get("code", "http_error"), err.get("message", ""), err.get("details"), hdrs)
        out = Response(payload if isinstance(payload, dict) else {"result": payload})
        out.status, out.headers = status, hdrs
        return out

    def tools(self) -> list[dict]:
        """The operations as OpenAI function tools (name, description, JSON-schema parameters)."""
        comps = self.spec.get("components", {}).get("schemas", {})
        out = []
        for name, o in sorted(self.ops.items()):
            op = o["op"]
            props: dict[str, Any] = {}
            required: list[str] = []
            for p in op.get("parameters", []):
                if p.get("in") == "header":  # transport (Idempotency-Key), not an argument
                    continue
                props[p["name"]] = _deref(p.get("schema", {}), comps)
                if p.get("required"):
                    required.append(p["name"])
            body = op.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
            if body:
                schema = _deref(body, comps)
                props.update(schema.get("properties", {}))
                required += schema.get("required", [])
            out.append({"type": "function", "function": {
                "name": name, "description": (op.get("description") or op.get("summary") or name)[:1000],
                "parameters": {"type": "object", "properties": props, "required": required}}})
        return out


def _deref(schema: Any, comps: dict, depth: int = 0) -> Any:
    """`schema` with `#/components/schemas/...` references replaced by their definitions
    (tool parameters must be self-contained)."""
    if depth > 12:
        return {}
    if isinstance(schema, dict):
        ref = schema.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/components/schemas/"):
            return _deref(comps.get(ref.rsplit("/", 1)[-1], {}), comps, depth + 1)
        return {k: _deref(v, comps, depth + 1) for k, v in schema.items()}
    if isinstance(schema, list):
        return [_deref(v, comps, depth + 1) for v in schema]
    return schema


class Gateway:
    """The model gateway: OpenAI-compatible chat completions, metered in credits."""

    def __init__(self, base_url: str, timeout: float = 120.0):
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout

    @classmethod
    def from_env(cls) -> "Gateway":
        return cls(os.environ["FACTFORGE_GATEWAY_URL"])

    def complete(self, model: str, messages: list[dict], tools: Optional[list[dict]] = None, **params: Any) -> dict:
        body: dict[str, Any] = {"model": model, "messages": messages, **params}
        if tools:
            body["tools"] = tools
        status, hdrs, payload = _request("POST", self.base_url + "/v1/chat/completions", body, {}, self.timeout)
        if status >= 400:
            err = payload.get("error", {}) if isinstance(payload, dict) else {}
            raise ApiError(status, err.get("code", "gateway_error"), err.get("message", ""), err.get("details"), hdrs)
        return payload
