"""The developer's tools in an engagement, served from outside the developer's boundary.

```python
svc = ToolService(pack_dir, "_mock-client-knows", workspace)
svc.call("ask_owner", {"message": "Do pass holders get a discount on late fees?"})
paths = svc.start(sock_dir)       # {"tools", "mcp", "api", "gateway"}: Unix sockets
...                               # the developer works; svc.submitted is set by `submit`
svc.stop(); svc.events; svc.usage()
```

| tool | what it does | quota |
|---|---|---|
| `ask_owner(message)` | one message to the task's client simulator, its reply; a capability it switches on or a fix it deploys takes effect on the development API at once, and in the deployment the work is scored on | the task's owner turns |
| `call_api(method, path, body?, headers?)` | one request to the development API: the kit's development data behind the task's deployment, at its development exposure rate | none |
| `run_samples(ids?)` | the workspace agent on the kit's training scenarios (development data): transcripts, reward and breakdown per scenario | `SAMPLE_RUNS` runs |
| `run_live(id?)` | the workspace agent on the task's live ids (the sealed test database): transcripts and pass or fail per conversation, nothing else | `LIVE_RUNS_PER_ID` runs per live id |
| `list_models()` | the task's models, their rates, the serving budget, what the experiment gateway has spent | none |
| `submit(note?)` | ends the engagement | once |

Every call, answered or refused, is one event of `events` (seconds since the service was
made, the tool, its arguments clipped, ok, a one-line summary, and what the record measures:
the owner's reply kind and the facts it revealed, the API's status and the defects hit, a
run's pass counts). A refusal is a `ToolError`: one line the developer sees. Both faces (the
`tools` socket of JSON lines, used by `ff`, and the `mcp` socket, used through `ff-mcp`) call
`call`, so the same requests through either give the same events.
"""
from __future__ import annotations

import json
import re
import threading
import time
import urllib.parse
from pathlib import Path
from typing import Any, Callable, Optional

from fastapi.testclient import TestClient

from facts.errors import FactforgeError
from outputs.api.app import build_app
from outputs.api.server import ApiServer
from outputs.client.simulator import ClientSimulator
from outputs.evaluator.engine import TaskContext

from .errors import ToolError
from .experiments import ExperimentGateway, run_live, run_samples
from .faces import JsonLinesFace, McpFace, McpHttpFace, socket_path

__all__ = ["ToolError", "ToolService", "TOOLS"]

SAMPLE_RUNS = 10              # run_samples calls per engagement
LIVE_RUNS_PER_ID = 2          # run_live calls per live id of the task
MAX_MESSAGE = 4000            # characters of one message to the owner
MAX_NOTE = 2000               # characters of the submit note
MAX_PATH = 2048               # characters of an API path with its query
MAX_HEADERS = 20
API_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")
REQUEST_LIMIT = 1 << 20       # the development API's own request limit
KEPT_HEADERS = ("content-type", "retry-after", "location", "link", "x-next-cursor", "idempotency-key")
REFUSED_HEADERS = {"host", "content-length", "transfer-encoding", "connection", "authorization"}
_HEADER_NAME = re.compile(r"^[A-Za-z0-9-]{1,64}$")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
CLIP = 300                    # characters of one argument kept in an event

TOOLS: list[dict] = [
    {"name": "ask_owner",
     "description": "Ask the business owner one question (one specific rule at a time, or a report of what the "
                    "API did). Returns the owner's reply and how many questions remain. Where the kit's task.json "
                    "lists other people (client.people), `role` asks one of them instead.",
     "input_schema": {"type": "object", "properties": {
         "message": {"type": "string", "maxLength": MAX_MESSAGE, "description": "Your message to the owner."},
         "role": {"type": "string", "maxLength": 40, "description": "Whom to ask (default owner)."}},
         "required": ["message"], "additionalProperties": False}},
    {"name": "call_api",
     "description": "One HTTP request to the development API (the kit's development data behind the production "
                    "deployment, defects included). Returns status, headers and body.",
     "input_schema": {"type": "object", "properties": {
         "method": {"type": "string", "enum": list(API_METHODS)},
         "path": {"type": "string", "maxLength": MAX_PATH, "description": "The route, e.g. /customers/CU1000."},
         "body": {"description": "JSON body of a POST, PUT or PATCH."},
         "headers": {"type": "object", "additionalProperties": {"type": "string"}}},
         "required": ["method", "path"], "additionalProperties": False}},
    {"name": "run_samples",
     "description": "Run the workspace's current agent on the kit's training scenarios (development data). "
                    "Returns the transcript, reward and breakdown per scenario.",
     "input_schema": {"type": "object", "properties": {
         "ids": {"type": "array", "items": {"type": "string"}, "description": "Training ids (default: all)."}},
         "additionalProperties": False}},
    {"name": "run_live",
     "description": "Run the workspace's current agent on the task's live experiment ids. Returns the transcript "
                    "and pass or fail per conversation.",
     "input_schema": {"type": "object", "properties": {
         "id": {"type": "string", "description": "One live id (default: all of them)."}},
         "additionalProperties": False}},
    {"name": "list_models",
     "description": "The task's models with their credit rates, the serving budget per conversation, and what "
                    "your experiments through the gateway have spent.",
     "input_schema": {"type": "object", "properties": {}, "additionalProperties": False}},
    {"name": "submit",
     "description": "Deliver the workspace as it is now and end the engagement.",
     "input_schema": {"type": "object", "properties": {
         "note": {"type": "string", "maxLength": MAX_NOTE, "description": "A note to the client."}},
         "additionalProperties": False}},
]


def _type_ok(value: Any, t: Optional[str]) -> bool:
    if t is None:
        return True
    if t == "string":
        return isinstance(value, str)
    if t == "array":
        return isinstance(value, list)
    if t == "object":
        return isinstance(value, dict)
    return True


def check_args(tool: dict, args: Any) -> dict:
    """The arguments of `tool` checked against its input schema (types, required, no
    unknown names, string lengths, enums), or a ToolError naming the first problem."""
    name, schema = tool["name"], tool["input_schema"]
    if args is None:
        args = {}
    if not isinstance(args, dict):
        raise ToolError(f"{name}: the arguments must be a JSON object")
    props = schema.get("properties", {})
    unknown = sorted(k for k in args if k not in props)
    if unknown:
        raise ToolError(f"{name}: unknown argument {str(unknown[0])[:40]!r}; it takes {', '.join(props) or 'none'}")
    for k in schema.get("required", []):
        if k not in args:
            raise ToolError(f"{name}: missing argument {k!r}")
    for k, v in args.items():
        p = props[k]
        if not _type_ok(v, p.get("type")):
            raise ToolError(f"{name}: {k} must be a {p['type']}")
        if isinstance(v, str) and len(v) > p.get("maxLength", 1 << 30):
            raise ToolError(f"{name}: {k} is {len(v)} characters; at most {p['maxLength']}")
        if "enum" in p and v not in p["enum"]:
            raise ToolError(f"{name}: {k} must be one of {', '.join(p['enum'])}")
        items = p.get("items", {}).get("type")
        if isinstance(v, list) and items and not all(_type_ok(x, items) for x in v):
            raise ToolError(f"{name}: every item of {k} must be a {items}")
    return args


def clip(value: Any, depth: int = 0) -> Any:
    """An argument as an event keeps it: strings cut at CLIP characters, containers at 20
    items and 4 levels."""
    if isinstance(value, str):
        return value if len(value) <= CLIP else f"{value[:CLIP]}... ({len(value)} characters)"
    if depth >= 4 and isinstance(value, (dict, list)):
        return "..."
    if isinstance(value, dict):
        return {str(k)[:64]: clip(v, depth + 1) for k, v in list(value.items())[:20]}
    if isinstance(value, list):
        return [clip(v, depth + 1) for v in value[:20]]
    return value if value is None or isinstance(value, (bool, int, float)) else repr(value)[:CLIP]


def check_api_path(path: str) -> str:
    """An API route with its query: absolute, no scheme or host, no `..` or `.` segment,
    no control character or backslash."""
    if not path.startswith("/") or path.startswith("//"):
        raise ToolError("call_api: the path must be a route of the API, starting with one /")
    if _CONTROL.search(path) or "\\" in path or " " in path:
        raise ToolError("call_api: the path holds a space, a backslash or a control character")
    parts = urllib.parse.urlsplit(path)
    if parts.scheme or parts.netloc:
        raise ToolError("call_api: the path must be a route of the API, not a URL")
    segments = urllib.parse.unquote(parts.path).split("/")
    if any(s in ("..", ".") for s in segments):
        raise ToolError("call_api: the path may not hold . or .. segments")
    return path


def check_headers(headers: Optional[dict]) -> dict[str, str]:
    out: dict[str, str] = {}
    for k, v in (headers or {}).items():
        if len(out) >= MAX_HEADERS:
            raise ToolError(f"call_api: at most {MAX_HEADERS} headers")
        if not _HEADER_NAME.match(k):
            raise ToolError("call_api: a header name is letters, digits and dashes (at most 64)")
        if k.lower() in REFUSED_HEADERS:
            raise ToolError(f"call_api: the header {k} is set by the tool, not by you")
        if not isinstance(v, str) or _CONTROL.search(v) or len(v) > 1000:
            raise ToolError(f"call_api: the value of header {k} must be one line of at most 1000 characters")
        out[k] = v
    return out


class ToolService:
    """The tools of one engagement (see the module docstring)."""

    def __init__(self, pack_dir: Path, task_id: str, workspace: Path, *, seed: int = 0,
                 client_mode: str = "offline", client_model: Optional[str] = None,
                 isolation: str = "sandbox", clock: Callable[[], float] = time.monotonic,
                 gateway_mock_response: Any = None, quotas: Optional[dict[str, int]] = None):
        self.pack_dir, self.task_id, self.workspace = Path(pack_dir), task_id, Path(workspace)
        self.seed, self.isolation, self.clock = seed, isolation, clock
        self.gateway_mock_response = gateway_mock_response
        self.ctx = TaskContext.load(self.pack_dir, task_id, "live")
        self.kit_task = self.ctx.pack.json(task_id, "kit", "task.json")
        self.people: dict[str, ClientSimulator] = (
            ClientSimulator.cast(self.pack_dir, task_id, mode=client_mode, model=client_model)  # type: ignore[arg-type]
            if self.kit_task.get("client", {}).get("available") else {})
        self.client = self.people.get("owner")
        self.api = ApiServer.from_pack(self.pack_dir, task_id, dev=True, seed=seed, clock="real")
        self.gateway = ExperimentGateway(self.ctx.menu(), self.ctx.allowed_models, mock_response=gateway_mock_response)
        self.live_ids = [t.id for t in self.ctx.tests]
        self.training_ids = list(self.kit_task.get("training_ids", []))
        self.quotas = {"owner": self.client.k.data.turn_quota if self.client else 0, "samples": SAMPLE_RUNS,
                       "live": LIVE_RUNS_PER_ID * len(self.live_ids), **(quotas or {})}
        self.used = {"samples": 0, "live": 0}
        self.runs: dict[str, list[dict]] = {"samples": [], "live": []}
        self.tools: list[dict] = json.loads(json.dumps(TOOLS))
        self._by_name = {t["name"]: t for t in self.tools}
        self._handlers: dict[str, Callable[[dict], tuple[dict, dict]]] = {
            "ask_owner": self._ask_owner, "call_api": self._call_api, "run_samples": self._run_samples,
            "run_live": self._run_live, "list_models": self._list_models, "submit": self._submit}
        self.submitted = threading.Event()
        self.events: list[dict] = []
        self._t0 = clock()
        self._lock = threading.Lock()         # events, quotas
        self._owner_lock = threading.Lock()   # one owner conversation
        self._run_lock = threading.Lock()     # one agent run at a time (the task's CPUs)
        self._api_client = None
        self._faces: list[Any] = []
        self._sockets: dict[str, Path] = {}
        self.samples_ctx: Optional[TaskContext] = None    # the training scenarios' context, made on first use

    # ---- calls ----------------------------------------------------------------------------
    def call(self, name: str, args: dict, *, face: str = "python") -> dict:
        """Run one tool; raises ToolError (a refusal, recorded like an answer)."""
        t = self._now()
        shown_name = name if isinstance(name, str) else repr(name)
        try:
            tool = self._by_name.get(name) if isinstance(name, str) else None
            if tool is None:
                raise ToolError(f"no tool {str(shown_name)[:60]!r}; tools: {', '.join(self._by_name)}", "unknown")
            args = check_args(tool, args)
            if self.submitted.is_set():
                raise ToolError("the engagement has ended: the work was submitted", "ended")
            result, detail = self._handlers[name](args)
        except ToolError as e:
            self._record(t, shown_name, args, False, str(e), face, {"error": str(e), "reason": e.reason})
            raise
        except FactforgeError as e:
            err = ToolError(f"{name}: {e}")
            self._record(t, shown_name, args, False, str(err), face, {"error": str(err), "reason": "failed"})
            raise err from None
        except Exception as e:  # noqa: BLE001  (a failure of ours is one line to the developer, the record keeps it)
            err = ToolError(f"{name} failed: {type(e).__name__}")
            self._record(t, shown_name, args, False, str(err), face, {"error": f"{type(e).__name__}: {e}"[:500],
                                                                      "reason": "failed"})
            raise err from None
        self._record(t, name, args, True, detail.pop("summary", ""), face, detail)
        return result

    def refuse(self, message: str, face: str) -> None:
        """Record a request a face could not read as a tool call (malformed, oversized)."""
        self._record(self._now(), None, None, False, message, face, {"error": message, "reason": "malformed"})

    def _now(self) -> float:
        return self.clock() - self._t0

    def _record(self, t: float, name: Any, args: Any, ok: bool, summary: str, face: str, detail: dict) -> None:
        event = {"t": round(t, 3), "tool": name, "args": clip(args), "ok": ok, "summary": summary[:500], "face": face,
                 "seconds": round(self._now() - t, 3), **detail}
        with self._lock:
            self.events.append(event)

    def _take(self, kind: str, what: str) -> None:
        with self._lock:
            if self.used[kind] >= self.quotas[kind]:
                raise ToolError(f"{what} quota spent: {self.used[kind]} of {self.quotas[kind]} used", "quota")
            self.used[kind] += 1

    def _give_back(self, kind: str) -> None:
        with self._lock:
            self.used[kind] -= 1

    # ---- the tools -----------------------------------------------------------------------
    def _ask_owner(self, args: dict) -> tuple[dict, dict]:
        message = args["message"].strip()
        role = args.get("role") or "owner"
        if not message:
            raise ToolError("ask_owner: the message is empty")
        if self.client is None:
            raise ToolError("this task has no owner to ask (the kit's task.json: client not available)", "no_client")
        person = self.people.get(role)
        if person is None:
            raise ToolError(f"ask_owner: nobody called {role[:40]!r} to ask; people: {', '.join(self.people)}",
                            "unknown")
        with self._owner_lock:
            if person.remaining == 0:
                q = person.k.data.turn_quota
                raise ToolError(f"{'owner' if role == 'owner' else role} quota spent: {q} of {q} questions asked; "
                                "work from the records", "quota")
            r = person.reply(message)
            for op in r.enabled:          # the client switched a capability on: the development API has it now
                self.api.state.enable(op)
            for i in r.fixes:             # the client deployed a fix: the development API lacks that defect now
                self.api.state.deploy_fix(i)
        levers = {k: v for k, v in (("offered", r.offered), ("enabled", r.enabled), ("fixes", r.fixes)) if v}
        if len(self.people) > 1:
            levers["role"] = role
        who = "" if role == "owner" else f"{role} "
        return ({"reply": r.text, "turn": r.turn, "remaining": person.remaining},
                {"summary": f"{who}turn {r.turn}: {r.kind}", "kind": r.kind, "revealed": list(r.revealed),
                 "defects": list(r.defects), **levers})

    def _api(self):
        if self._api_client is None:
            self._api_client = TestClient(build_app(self.api.state), base_url="http://dev-api",
                                          raise_server_exceptions=False)
        return self._api_client

    def _call_api(self, args: dict) -> tuple[dict, dict]:
        method, path = args["method"], check_api_path(args["path"])
        headers = check_headers(args.get("headers"))
        content = None
        if "body" in args and args["body"] is not None:
            if method in ("GET", "DELETE"):
                raise ToolError(f"call_api: a {method} sends no body; put its arguments in the path's query")
            content = json.dumps(args["body"], ensure_ascii=False).encode("utf-8")
            if len(content) > REQUEST_LIMIT:
                raise ToolError(f"call_api: the body is {len(content)} bytes; the API takes at most {REQUEST_LIMIT}")
            headers.setdefault("Content-Type", "application/json")
        state = self.api.state
        with state.lock:
            before = len(state.layer.log.entries)
        resp = self._api().request(method, path, content=content, headers=headers)
        with state.lock:
            new = state.layer.log.entries[before:]
            defects = sorted({d for e in new for d in e.defects})
        try:
            body: Any = resp.json()
        except ValueError:
            body = resp.text[:REQUEST_LIMIT]
        kept = {k: resp.headers[k] for k in KEPT_HEADERS if k in resp.headers}
        return ({"status": resp.status_code, "headers": kept, "body": body},
                {"summary": f"{method} {path[:120]} -> {resp.status_code}", "status": resp.status_code,
                 "defects": defects})

    def _run_samples(self, args: dict) -> tuple[dict, dict]:
        ids = args.get("ids") or None
        unknown = [i for i in ids or [] if i not in self.training_ids]
        if unknown:
            raise ToolError(f"run_samples: no training scenario {unknown[0][:80]!r}; "
                            f"ids: {', '.join(self.training_ids)}")
        return self._run("samples", "sample run", lambda: run_samples(self, ids))

    def _run_live(self, args: dict) -> tuple[dict, dict]:
        tid = args.get("id")
        if tid is not None and tid not in self.live_ids:
            raise ToolError(f"run_live: no live id {tid[:80]!r}; live ids: {', '.join(self.live_ids)}")
        return self._run("live", "live run", lambda: run_live(self, [tid] if tid else None))

    def _run(self, kind: str, what: str, run: Callable[[], dict]) -> tuple[dict, dict]:
        self._take(kind, what)
        try:
            with self._run_lock:
                result = run()
        except BaseException:
            self._give_back(kind)        # a run that could not start (no agent.py, a sealed file) costs nothing
            raise
        with self._lock:
            result["run"], result["remaining"] = self.used[kind], self.quotas[kind] - self.used[kind]
            self.runs[kind].append({"run": result["run"], **result["summary"]})
        s = result["summary"]
        return result, {"summary": f"{what} {result['run']}: {s['passed']} of {s['conversations']} passed",
                        "run": result["run"], "passed": s["passed"], "conversations": s["conversations"]}

    def _list_models(self, args: dict) -> tuple[dict, dict]:
        menu = self.ctx.menu()
        models = []
        for name in self.ctx.allowed_models:
            m = menu.model(name)
            tier = menu.tiers[m.tier]
            models.append({"name": m.name, "tier": m.tier, "input_per_mtok": tier.input_per_mtok,
                           "output_per_mtok": tier.output_per_mtok, "context_window": m.context_window,
                           "max_output_tokens": m.max_output_tokens, "tools": m.tools,
                           "temperature": list(m.temperature)})
        return ({"models": models, "serving_budget": dict(self.ctx.budget),
                 "gateway": "gateway.sock in the tool socket folder ($FF_SOCKETS): POST /v1/chat/completions, "
                            "OpenAI-compatible; metered apart from serving",
                 "experiment_credits": round(self.gateway.total_credits, 10)},
                {"summary": f"{len(models)} models"})

    def _submit(self, args: dict) -> tuple[dict, dict]:
        note = (args.get("note") or "").strip()
        with self._lock:
            if self.submitted.is_set():
                raise ToolError("the engagement has ended: the work was submitted", "ended")
            self.submitted.set()
        return {"submitted": True, "note": note}, {"summary": "submitted", "note": note[:MAX_NOTE]}

    # ---- the record ----------------------------------------------------------------------
    def usage(self) -> dict:
        """The tool-side measures of the engagement's record, computed from the logs."""
        owner: dict[str, Any] = {"turns": 0, "quota": self.quotas["owner"], "held_elicited": [], "held_total": 0,
                                 "contested_settled": [], "contested_total": 0, "defects_reported": 0,
                                 "defects_confirmed": [], "defects_total": 0, "flagged": [],
                                 "capabilities_total": 0, "capabilities_offered": [], "capabilities_enabled": [],
                                 "fixes_total": 0, "fixes_deployed": []}
        if self.client is not None:
            k, ex = self.client.k, self.client.log.exchanges
            revealed = {f for e in ex for f in e.revealed}
            owner.update(
                turns=len(ex), held_total=len(k.data.held), contested_total=len(k.data.contested),
                held_elicited=sorted(f for f in revealed if k.role(f) == "held"),
                contested_settled=sorted(f for f in revealed if k.role(f) == "contested"),
                defects_reported=sum(1 for e in ex if e.kind in ("defect_confirmed", "defect_unconfirmed")),
                defects_confirmed=sorted({d for e in ex for d in e.defects}), defects_total=len(self.client.briefs),
                flagged=sorted({f for e in ex for f in e.flagged}),
                capabilities_total=len(self.client.capabilities),
                capabilities_offered=sorted({c for e in ex for c in e.offered}),
                capabilities_enabled=self.client.log.enabled(), fixes_total=len(self.client.fixable),
                fixes_deployed=self.client.log.fixes())
        people = self._people_usage() if len(self.people) > 1 else None
        with self.api.state.lock:
            log = self.api.state.layer.log
            api_calls, defects_hit = len(log.entries), log.defects_hit()
        with self._lock:
            tool_api = sum(1 for e in self.events if e["tool"] == "call_api" and e["ok"])
            samples = {"runs": self.used["samples"], "quota": self.quotas["samples"], "results": list(self.runs["samples"])}
            live = {"runs": self.used["live"], "quota": self.quotas["live"], "results": list(self.runs["live"])}
            refused = sum(1 for e in self.events if not e["ok"])
            calls = len(self.events)
        return {"owner": owner, **({"people": people} if people is not None else {}),
                "samples": samples, "live": live, "api_calls": api_calls,
                "api_tool_calls": tool_api, "api_defects_hit": defects_hit, "models": self.gateway.usage(),
                "tool_calls": calls, "refused": refused, "submitted": self.submitted.is_set()}

    def _people_usage(self) -> dict:
        """Per person (a task with stakeholders): turns of their quota, the facts they hold that
        a reply conveyed, the habits they voiced, and `cross_revealed`: other people's held facts
        their replies conveyed (a person never speaks for another: 0 is the rule)."""
        out = {}
        for role, person in self.people.items():
            ex = person.log.exchanges
            own = set(person.k.held)
            others: set[str] = set()
            for e in ex:   # in each reply, another's fact their own version does not explain
                theirs = set(person.k.revealed(e.text))
                others |= {f for r, p in self.people.items() if r != role for f in p.k.revealed(e.text)
                           if f not in theirs}
            habits = {f.fact_id for f in next((s.habits for s in self.client.k.data.stakeholders if s.role == role),
                                              [])}
            revealed = {f for e in ex for f in e.revealed}
            out[role] = {"turns": len(ex), "quota": person.k.data.turn_quota,
                         "held_elicited": sorted(f for f in revealed if f in own - habits),
                         "held_total": len(own - habits), "habits_voiced": sorted(revealed & habits),
                         "flagged": sorted({f for e in ex for f in e.flagged}), "cross_revealed": sorted(others)}
        return out

    # ---- serving -------------------------------------------------------------------------
    def start(self, sock_dir: Path) -> dict[str, Path]:
        """Serve the tools on Unix sockets in `sock_dir`: `tools.sock` (JSON lines), `mcp.sock`
        (MCP sessions, one per connection), `mcp-http.sock` (MCP over streamable HTTP),
        `api.sock` (the development API), `gateway.sock` (the experiment model gateway).
        Returns the paths by name."""
        if self._sockets:
            return dict(self._sockets)
        sock_dir = Path(sock_dir)
        sock_dir.mkdir(parents=True, exist_ok=True)
        paths = {name: socket_path(sock_dir, name) for name in ("tools", "mcp", "mcp-http", "api", "gateway")}
        try:
            self.api.uds = paths["api"]
            self.api.start()
            self.gateway.start(paths["gateway"])
            self._faces.append(JsonLinesFace(self, paths["tools"]).start())
            self._faces.append(McpFace(self, paths["mcp"]).start())
            self._faces.append(McpHttpFace(self, paths["mcp-http"]).start())
        except BaseException:
            self.stop()
            raise
        self._sockets = paths
        return dict(paths)

    def stop(self, wait_s: float = 60.0) -> None:
        """Stop serving; a sample or live run under way is given `wait_s` to finish (its
        conversations are bounded by the evaluator's step and CPU limits)."""
        for face in reversed(self._faces):
            face.stop()
        self._faces = []
        if self._run_lock.acquire(timeout=wait_s):
            self._run_lock.release()
        self.api.stop()
        self.gateway.stop()
        if self._api_client is not None:
            self._api_client.close()
            self._api_client = None
        self._sockets = {}
