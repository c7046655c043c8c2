"""The HTTP face of a domain API: a FastAPI app generated from the catalog.

Routes: one per operation (the catalog's method and path; GET arguments are query
parameters, POST arguments the JSON body, `{name}` segments path parameters), plus

| route | what |
|---|---|
| `GET /openapi.json` | the catalog's OpenAPI 3.1 document (the kit's `api/openapi.json`, with `servers`), without the capabilities not switched on |
| `GET /_clock` | `{"mode", "now_s"}`: the server clock (seconds since the trial started) |
| `POST /_clock/wait` `{"seconds": s}` | wait `s` seconds (0..3600): a virtual clock advances at once, a real one sleeps |
| `GET /_jobs/{job_id}` | an asynchronous job: 202 + Retry-After while pending, then the operation's own answer |
| `GET /_health` | `{"status": "ok"}` |
| `POST /_admin/reset` `{"trial": k}`, `GET /_admin/log`, `POST /_admin/settle` | only with the admin token (`Authorization: Bearer TOKEN`); the evaluator's in-process API does the same without HTTP |

Every error, including unknown routes (404), wrong methods (405), bodies that are not
JSON or nested deeper than 64 levels (400), oversized requests (413, over 1 MiB) and answers
over 4 MiB (500), is the envelope `{"error": {"code", "message", "details"}}`. Answers are compact JSON.

**Capabilities and fixes.** A task may hide operations the deployment has (`hidden`: its
capabilities, `outputs/packs/spec.Capability`): until `enable(name)`, a hidden operation is
answered exactly as a route that does not exist and is absent from `/openapi.json`.
`deploy_fix(i)` takes the deployment's defect `i` out of play from the next request on.
"""
from __future__ import annotations

import hmac
import json
import threading
from typing import Any, Optional

from fastapi import FastAPI, Request
from fastapi.responses import Response
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

from domains.apikit import DomainApi, Operation
from outputs.jsondepth import nested_deeper

from .clock import MAX_WAIT_S, make_clock
from .defects import DefectLayer, Request as ApiRequest, Runtime
from .deployment import Deployment, clean_deployment
from .service import Answer, CallLog, CleanService, envelope

REQUEST_LIMIT = 1 << 20      # 1 MiB
RESPONSE_LIMIT = 4 << 20     # 4 MiB
MAX_DEPTH = 64               # nesting of a JSON body (arrays and objects)
_TOO_DEEP = object()
CURSOR_PARAM = "cursor"


class ApiState:
    """Everything one served task holds: the clean service over the task's database, the
    deployment's defect layer, the clock and the call log. Thread-safe for the Python API
    (reset, log, settle) used while the server thread answers requests."""

    def __init__(self, api: DomainApi, db: dict, deployment: Optional[Deployment] = None, *,
                 task_id: Optional[str] = None, trial: int = 0, seed: int = 0, mode: str = "eval",
                 clock: str = "virtual", admin_token: Optional[str] = None, hidden: Any = (),
                 fixed: Any = ()):
        self.api = api
        self.hidden: set[str] = set(hidden)
        self.deployment = deployment or clean_deployment()
        self.clock = make_clock(clock)  # type: ignore[arg-type]
        self.service = CleanService(api, db)
        self.layer = DefectLayer(self.service, self.deployment, self.clock,
                                 Runtime(task_id=task_id, trial=trial, seed=seed, mode=mode))  # type: ignore[arg-type]
        self.layer.fixed = set(fixed)
        self.admin_token = admin_token
        self.lock = threading.RLock()
        self._doc_cache: dict[str, bytes] = {}

    # ---- the Python API ---------------------------------------------------------------
    def reset(self, trial: Optional[int] = None) -> None:
        """A fresh trial: the seed database, an empty log, the clock at 0, no defect state."""
        with self.lock:
            self.layer.reset(self.layer.runtime.trial + 1 if trial is None else trial)

    def settle(self) -> None:
        """Complete pending asynchronous jobs (call at the end of a conversation)."""
        with self.lock:
            self.layer.settle()

    @property
    def log(self) -> CallLog:
        with self.lock:
            return self.layer.log.model_copy(deep=True)

    @property
    def db(self) -> dict:
        return self.service.db

    def handle(self, req: ApiRequest) -> Answer:
        with self.lock:
            return self.layer.handle(req)

    def job(self, job_id: str) -> Answer:
        with self.lock:
            return self.layer.job_status(job_id)

    def enable(self, operation: str) -> None:
        """Switch a hidden operation on (a capability the client enabled)."""
        with self.lock:
            self.hidden.discard(operation)
            self._doc_cache.clear()

    def deploy_fix(self, defect: int) -> None:
        """Take the deployment's defect `defect` out of play (a fix the client deployed)."""
        with self.lock:
            self.layer.fixed.add(defect)

    def openapi_bytes(self, base_url: str) -> bytes:
        with self.lock:
            if base_url not in self._doc_cache:
                doc = self.api.openapi(base_url or None, self.hidden)
                self._doc_cache[base_url] = json.dumps(doc, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
            return self._doc_cache[base_url]


def _json(status: int, body: Any, headers: Optional[dict] = None) -> Response:
    data = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    if len(data) > RESPONSE_LIMIT:
        status, headers = 500, {}
        data = json.dumps(envelope("response_too_large", f"the answer exceeds {RESPONSE_LIMIT} bytes; narrow the "
                                   "request", {"limit": RESPONSE_LIMIT})).encode("utf-8")
    return Response(data, status_code=status, headers=headers or {}, media_type="application/json")


def _answer(a: Answer) -> Response:
    return _json(a.status, a.body, a.headers)


def _error(status: int, code: str, message: str, details: Optional[dict] = None,
           headers: Optional[dict] = None) -> Response:
    return _json(status, envelope(code, message, details), headers)


async def _body(request: Request) -> tuple[Optional[bytes], Optional[Response]]:
    """The request body within the limit, or the 413 answer."""
    cl = request.headers.get("content-length")
    if cl is not None and cl.isdigit() and int(cl) > REQUEST_LIMIT:
        return None, _error(413, "payload_too_large", f"the request body exceeds {REQUEST_LIMIT} bytes",
                            {"limit": REQUEST_LIMIT})
    chunks, n = [], 0
    async for chunk in request.stream():
        n += len(chunk)
        if n > REQUEST_LIMIT:
            return None, _error(413, "payload_too_large", f"the request body exceeds {REQUEST_LIMIT} bytes",
                                {"limit": REQUEST_LIMIT})
        chunks.append(chunk)
    return b"".join(chunks), None


async def _json_object(request: Request) -> tuple[Optional[dict], Optional[Response]]:
    raw, err = await _body(request)
    if err is not None:
        return None, err
    if not raw.strip():
        return {}, None
    try:
        data = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        return None, _error(400, "bad_request", f"the body is not valid JSON: {e}")
    except RecursionError:
        data = _TOO_DEEP
    if data is _TOO_DEEP or nested_deeper(data, MAX_DEPTH):
        return None, _error(400, "bad_request", f"the body is nested deeper than {MAX_DEPTH} levels",
                            {"max_depth": MAX_DEPTH})
    if not isinstance(data, dict):
        return None, _error(422, "invalid_argument", "the body must be a JSON object")
    return data, None


def _allowed(request: Request) -> list[str]:
    """Every method some route serves at this path (Starlette names only the first route's)."""
    methods: set[str] = set()
    for route in request.app.router.routes:
        match, _ = route.matches({**request.scope, "method": "GET"})
        if match != Match.NONE and getattr(route, "methods", None):
            match_any = [route.matches({**request.scope, "method": m})[0] for m in route.methods]
            if Match.FULL in match_any:
                methods |= set(route.methods)
    return sorted(methods)


def _route_key(path: str) -> tuple:
    """Literal segments before parameters, so /customers/by-email wins over /customers/{id}."""
    return tuple((seg.startswith("{"), seg) for seg in path.strip("/").split("/"))


def _no_route(request: Request) -> Response:
    """The answer to a route that does not exist (or must look as though it did not)."""
    return _error(404, "not_found", f"no route {request.method} {request.url.path}",
                  {"method": request.method, "path": request.url.path})


def _endpoint(state: ApiState, op: Operation):
    async def endpoint(request: Request) -> Response:
        if op.name in state.hidden:   # a capability not switched on: no such route
            return _no_route(request)
        path_args = dict(request.path_params)
        cursor = None
        if op.method == "GET":
            query = dict(request.query_params)
            if len(query) != len(request.query_params.multi_items()):
                return _error(422, "invalid_argument", "a query parameter is repeated")
            cursor = query.pop(CURSOR_PARAM, None)
            clash = sorted(set(query) & set(path_args))
            args = {**query, **path_args}
        else:
            body, err = await _json_object(request)
            if err is not None:
                return err
            if request.query_params:
                return _error(422, "invalid_argument", f"{op.name} takes its arguments in the JSON body, not the query",
                              {"query": sorted(request.query_params.keys())})
            clash = sorted(set(body) & set(path_args))
            args = {**body, **path_args}
        if clash:
            return _error(422, "invalid_argument", f"argument {clash[0]!r} is given in the path; do not repeat it",
                          {"argument": clash[0]})
        headers = {k.lower(): v for k, v in request.headers.items()}
        key = headers.get("idempotency-key")
        if key is not None and not 1 <= len(key) <= 255:
            return _error(422, "invalid_argument", "Idempotency-Key must be 1 to 255 characters")
        return _answer(state.handle(ApiRequest(op, args, headers, cursor, request.url.path)))
    endpoint.__name__ = op.name
    return endpoint


def build_app(state: ApiState) -> FastAPI:
    """The FastAPI app of one served task. FastAPI's own OpenAPI and docs are off: the
    contract is the catalog's document."""
    app = FastAPI(openapi_url=None, docs_url=None, redoc_url=None, title=state.api.catalog.title)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        code = {404: "not_found", 405: "method_not_allowed", 400: "bad_request"}.get(exc.status_code, "bad_request")
        msg = {404: f"no route {request.method} {request.url.path}",
               405: f"{request.method} is not allowed on {request.url.path}"}.get(exc.status_code, str(exc.detail))
        headers = dict(exc.headers or {})
        if exc.status_code == 405:
            headers["Allow"] = ", ".join(_allowed(request))
        return _error(exc.status_code, code, msg, {"method": request.method, "path": request.url.path}, headers)

    @app.exception_handler(Exception)
    async def crash(request: Request, exc: Exception) -> Response:
        return _error(500, "internal_error", f"the server failed: {type(exc).__name__}")

    @app.get("/openapi.json", include_in_schema=False)
    async def openapi(request: Request) -> Response:
        base = str(request.base_url).rstrip("/")
        return Response(state.openapi_bytes(base), media_type="application/json")

    @app.get("/_health", include_in_schema=False)
    async def health() -> Response:
        return _json(200, {"status": "ok", "domain": state.api.domain, "deployment": state.deployment.id})

    @app.get("/_clock", include_in_schema=False)
    async def clock_now() -> Response:
        return _json(200, {"mode": state.clock.mode, "now_s": state.clock.now()})

    @app.post("/_clock/wait", include_in_schema=False)
    async def clock_wait(request: Request) -> Response:
        body, err = await _json_object(request)
        if err is not None:
            return err
        s = body.get("seconds")
        if isinstance(s, bool) or not isinstance(s, (int, float)) or not 0 <= s <= MAX_WAIT_S or set(body) - {"seconds"}:
            return _error(422, "invalid_argument", f"body must be {{\"seconds\": 0..{MAX_WAIT_S:g}}}", {"got": body})
        now = await state.clock.wait(float(s))
        with state.lock:
            state.layer.settle_due()
        return _json(200, {"mode": state.clock.mode, "now_s": now, "waited_s": float(s)})

    @app.get("/_jobs/{job_id}", include_in_schema=False)
    async def job(job_id: str) -> Response:
        return _answer(state.job(job_id))

    def admin(request: Request) -> Optional[Response]:
        token = state.admin_token
        got = request.headers.get("authorization", "")
        if not token or not hmac.compare_digest(got, f"Bearer {token}"):
            return _no_route(request)
        return None

    @app.post("/_admin/reset", include_in_schema=False)
    async def admin_reset(request: Request) -> Response:
        denied = admin(request)
        if denied is not None:
            return denied
        body, err = await _json_object(request)
        if err is not None:
            return err
        trial = body.get("trial")
        if trial is not None and (isinstance(trial, bool) or not isinstance(trial, int) or trial < 0):
            return _error(422, "invalid_argument", "trial must be a non-negative integer")
        state.reset(trial)
        return _json(200, {"trial": state.layer.runtime.trial})

    @app.post("/_admin/settle", include_in_schema=False)
    async def admin_settle(request: Request) -> Response:
        denied = admin(request)
        if denied is not None:
            return denied
        state.settle()
        return _json(200, {"settled": True})

    @app.get("/_admin/log", include_in_schema=False)
    async def admin_log(request: Request) -> Response:
        denied = admin(request)
        return denied if denied is not None else _json(200, state.log.model_dump(mode="json"))

    for op in sorted(state.api.operations(), key=lambda o: _route_key(o.path)):
        app.add_api_route(op.path, _endpoint(state, op), methods=[op.method], include_in_schema=False,
                          name=op.name)
    return app
