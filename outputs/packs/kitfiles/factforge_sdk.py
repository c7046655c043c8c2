"""The factforge agent SDK, shipped in every task kit as `sdk/factforge_sdk.py`.

Standard library only. Two clients:

- `ApiClient`: calls the client's production API over HTTP by operation id, built from the
  kit's `api/openapi.json` (GET operations send their arguments as query parameters, POST
  operations as a JSON body; `{name}` segments of a path are filled from the arguments).
  Errors raise `ApiError` carrying the HTTP status, the error envelope
  (`{"error": {"code", "message", "details"}}`) and the response headers (`Retry-After`,
  `Location`, ...). The SDK does not retry, page or poll: handling the API's behaviour is
  the agent's job.
- `Gateway`: the model gateway, an OpenAI-compatible `POST /v1/chat/completions` endpoint
  that meters credits; only the task's menu models are served.

Both read their base URL from the environment the evaluator sets: `FACTFORGE_API_URL`,
`FACTFORGE_GATEWAY_URL`; `FACTFORGE_KIT` is the kit directory.
"""
from __future__ import annotations

import json
import os
import re
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any, Optional


def wait(seconds: float) -> None:
    """Wait before retrying or polling. The evaluator may replace this function to advance a
    virtual clock instead of sleeping."""
    time.sleep(max(0.0, float(seconds)))


class ApiError(Exception):
    """A non-2xx answer of the API (or a transport failure, status 0)."""

    def __init__(self, status: int, code: str, message: str, details: Optional[dict] = None,
                 headers: Optional[dict] = None):
        self.status, self.code, self.message = status, code, message
        self.details, self.headers = dict(details or {}), dict(headers or {})
        super().__init__(f"{status} {code}: {message}")

    def envelope(self) -> dict:
        return {"error": {"code": self.code, "message": self.message, "details": self.details}}


class Response(dict):
    """A successful API answer: the JSON body, with `.status` and `.headers`."""
    status: int = 200
    headers: dict = {}


def _request(method: str, url: str, body: Optional[dict], headers: dict, timeout: float) -> tuple[int, dict, Any]:
    data = json.dumps(body).encode("utf-8") if body is not None else None
    h = {"Accept": "application/json", **headers}
    if data is not None:
        h["Content-Type"] = "application/json"
    req = urllib.request.Request(url, data=data, method=method, headers=h)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            raw = resp.read()
            return resp.status, dict(resp.headers.items()), json.loads(raw) if raw else {}
    except urllib.error.HTTPError as e:
        raw = e.read()
        try:
            payload = json.loads(raw) if raw else {}
        except json.JSONDecodeError:
            payload = {"error": {"code": "http_error", "message": raw.decode("utf-8", "replace")[:200]}}
        return e.code, dict(e.headers.items()), payload
    except (urllib.error.URLError, TimeoutError, ConnectionError) as e:
        raise ApiError(0, "transport_error", str(e)) from None


class ApiClient:
    def __init__(self, base_url: str, openapi: dict, timeout: float = 30.0):
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.spec = openapi
        self.ops: dict[str, dict] = {}
        for path, methods in openapi.get("paths", {}).items():
            for method, op in methods.items():
                if isinstance(op, dict) and "operationId" in op:
                    self.ops[op["operationId"]] = {"method": method.upper(), "path": path, "op": op}

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

    def call(self, operation: str, args: Optional[dict] = None, headers: Optional[dict] = None) -> Response:
        """Call `operation` with `args`; returns the JSON body (a `Response`), raises `ApiError`."""
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
