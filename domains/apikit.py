"""The shared kit every domain API is built on (`domains/<name>/api.py`).

A domain API is a `Catalog` of typed operations over the domain's database (a plain JSON
dict, the seed database or a copy of it):

    CATALOG = Catalog("airline", title="Larkspur Airways API", description="...")

    class GetReservationArgs(Args):
        reservation_id: str

    @CATALOG.read("/reservations/{reservation_id}", resource="reservation_id")
    def get_reservation(ctx: ApiContext, db: dict, a: GetReservationArgs) -> Reservation:
        "Look up a reservation."
        ...

Each operation is marked **read** (never mutates the database) or **write**; its
arguments and result are pydantic models (the function's annotations), its HTTP route is
declared with it (GET for reads, POST for writes; `{name}` segments are path parameters,
other arguments are query parameters of a GET or the JSON body of a POST), and the
operation id is the function name. Registering two operations with the same name or
route raises.

Operations validate their input (types, enumerations, ids that must exist) but do **not**
enforce the policy: that is the built agent's job. Every quantity the policy decides (a
fee, a refund amount and where it goes, a compensation amount, whether to waive) is an
argument, so the database after a conversation shows whether the agent applied the
policy. Book-keeping a core system does by itself (ids, timestamps, balances, posting
states, dates that follow from a chosen type) is done by the operation; it may read the
published catalog of values through `ctx.values`, never to refuse or alter a request.

`catalog.bind(pack, values)` gives a `DomainApi` whose `call(db, name, args)` validates the
arguments, runs the operation (mutating `db` for writes), validates the result and returns
it as JSON data; every failure is an `ApiError` (code, message, details) that serialises
to the envelope `{"error": {"code", "message", "details"}}`. Operations check everything
before they change anything, so a failed call leaves the database as it was. Calls are
deterministic: timestamps are the pack's world clock (`ctx.now`) and new ids derive from
the database's content, so replaying the same calls on a fresh copy of the seed database
gives the same database hash (`db_hash`, sha256 of canonical sorted JSON).
"""
from __future__ import annotations

import copy
import datetime as dt
import inspect
import pickle
import re
import typing
from dataclasses import dataclass, field
from typing import Annotated, Any, Callable, Iterable, Literal, Mapping, Optional

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, create_model
from pydantic.json_schema import models_json_schema

from facts.hashing import content_hash

from .seedkit import iso

API_SCHEMA_VERSION = "1.0"
OPENAPI_VERSION = "3.1.0"

# Error code -> HTTP status the server answers with.
ERROR_STATUS: dict[str, int] = {
    "invalid_argument": 422,   # arguments that do not validate (types, enums, missing fields)
    "not_found": 404,          # an id that names no record (of the right owner)
    "conflict": 409,           # the record is in a state the operation cannot apply to
    "unknown_operation": 404,  # no such operation in the catalog
}
OpKind = Literal["read", "write"]
IDEMPOTENCY_HEADER: dict[str, Any] = {
    "name": "Idempotency-Key", "in": "header", "required": False,
    "description": "Makes a write safe to retry: a second request with the same key and the same operation and "
                   "arguments returns the first answer without writing again; the same key on a different request "
                   "is a 409.",
    "schema": {"type": "string", "minLength": 1, "maxLength": 255},
}


class ApiError(Exception):
    """A failed call: `code` (a key of ERROR_STATUS), a human message and structured details."""

    def __init__(self, code: str, message: str, details: Optional[dict[str, Any]] = None):
        if code not in ERROR_STATUS:
            raise ValueError(f"unknown API error code {code!r}")
        self.code, self.message, self.details = code, message, dict(details or {})
        super().__init__(f"{code}: {message}")

    @property
    def status(self) -> int:
        return ERROR_STATUS[self.code]

    def envelope(self) -> dict[str, Any]:
        return {"error": {"code": self.code, "message": self.message, "details": self.details}}


def not_found(resource: str, ident: Any, **details: Any) -> ApiError:
    return ApiError("not_found", f"{resource} {ident!r} not found", {"resource": resource, "id": ident, **details})


def conflict(message: str, **details: Any) -> ApiError:
    return ApiError("conflict", message, details)


def invalid(message: str, **details: Any) -> ApiError:
    return ApiError("invalid_argument", message, details)


class ErrorDetail(BaseModel):
    model_config = ConfigDict(extra="forbid")
    code: str
    message: str
    details: dict[str, Any] = Field(default_factory=dict)


class ErrorEnvelope(BaseModel):
    """The body of every error response."""
    model_config = ConfigDict(extra="forbid")
    error: ErrorDetail


class Args(BaseModel):
    """Base of argument models: unknown arguments are an error."""
    model_config = ConfigDict(extra="forbid")


class Result(BaseModel):
    """Base of result models: a projection of a database record (fields the model does not
    name are left out; the published schema is closed)."""
    model_config = ConfigDict(extra="ignore", json_schema_extra={"additionalProperties": False})


def projection(row: type[BaseModel], fields: Optional[str] = None, /, *, title: Optional[str] = None,
               **types: Any) -> type[Result]:
    """A result model that shows records of `row`, a database model of the pack's `model.py`:
    the fields named in `fields` (space-separated, in this order; all of the row's when None),
    each typed as in `row` unless `types` gives its type in the API, or its (type, default),
    which a field the row lacks needs. A field keeps the row's default; one that may be null
    and has none defaults to None. The model is named like `row` unless `title` names it."""
    spec: dict[str, Any] = {}
    for name in fields.split() if fields is not None else list(row.model_fields):
        src, t = row.model_fields.get(name), types.pop(name, None)
        if isinstance(t, tuple):
            spec[name] = t
        elif src is None:
            raise TypeError(f"{row.__name__} has no field {name!r}: give its (type, default)")
        else:
            t = src.annotation if t is None else t
            nullable = type(None) in typing.get_args(t)
            spec[name] = (t, src.default if not src.is_required() else None if nullable else ...)
    if types:
        raise TypeError(f"types given for fields not shown: {', '.join(sorted(types))}")
    return create_model(title or row.__name__, __base__=Result, **spec)


def _cents(x: float) -> float:
    if abs(round(x, 2) - x) > 1e-9:
        raise ValueError("an amount has at most 2 decimals")
    return round(x, 2) + 0.0


class _CentsInRequests:
    """JSON schema of a money argument: `multipleOf: 0.01` where it validates requests, so the
    contract states the 2-decimal rule the API enforces. Results leave it out: JSON-schema
    validators test `multipleOf` by float division (0.29 / 0.01 is not an integer), and the
    API only ever answers cents."""

    def __get_pydantic_json_schema__(self, core_schema: Any, handler: Any) -> dict:
        js = handler(core_schema)
        if handler.mode == "validation":
            js["multipleOf"] = 0.01
        return js


Money = Annotated[float, Field(ge=0, json_schema_extra={"format": "money"}), AfterValidator(_cents), _CentsInRequests()]
"""A non-negative amount in the pack's currency, at most 2 decimals."""
SignedMoney = Annotated[float, Field(json_schema_extra={"format": "money"}), AfterValidator(_cents), _CentsInRequests()]
"""An amount that may be negative (ledger entries, differences)."""


@dataclass
class ApiContext:
    """What an operation may read besides the database: the pack (brand, id prefixes), the
    world clock and the published values (book-keeping only, never to refuse a request)."""

    pack: Any
    values: Mapping[str, Any] = field(default_factory=dict)

    @property
    def now(self) -> dt.datetime:
        return self.pack.info.now

    @property
    def today(self) -> dt.date:
        return self.now.date()

    def ts(self, t: Optional[dt.datetime] = None) -> str:
        """An ISO timestamp in the pack's clock offset, to the second."""
        return iso(self.now if t is None else t, self.now.tzinfo)

    def prefix(self, entity: str, default: str) -> str:
        return self.pack.brand.id_prefixes.get(entity, default)


def row(db: dict, table: str, key: str, what: str) -> dict:
    """The record `key` of `table`, or the API's not-found error naming it as `what`."""
    r = db.get(table, {}).get(key)
    if r is None:
        raise not_found(what, key)
    return r


def owned(db: dict, table: str, owner: str, key: str = "customer_id") -> list[dict]:
    """The records of `table` whose `key` is `owner`, in the order of their keys."""
    return [r for _, r in sorted(db[table].items()) if r[key] == owner]


def next_id(existing: Iterable[str], prefix: str, start: int, digits: int = 0) -> str:
    """`prefix` + (largest number used after `prefix` + 1), at least `start`; zero-padded to
    `digits`. Deterministic in the database's content."""
    pat = re.compile(re.escape(prefix) + r"(\d+)$")
    nums = [int(m.group(1)) for e in existing if (m := pat.match(e))]
    n = max([start - 1, *nums]) + 1
    return f"{prefix}{n:0{digits}d}" if digits else f"{prefix}{n}"


def code_id(existing: set[str], prefix: str, basis: Any, length: int = 6,
            alphabet: str = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789") -> str:
    """A short id derived from a hash of `basis` (content of the request and the database
    size), unique among `existing`."""
    salt = 0
    while True:
        h = int(content_hash([basis, salt]), 16)
        body = ""
        for _ in range(length):
            h, r = divmod(h, len(alphabet))
            body += alphabet[r]
        if prefix + body not in existing:
            return prefix + body
        salt += 1


@dataclass(frozen=True)
class Operation:
    """One operation of a catalog, with everything a server, a client or a grader needs."""

    name: str                 # operation id
    kind: OpKind
    summary: str
    description: str
    args: type[Args]
    result: type[BaseModel]
    handler: Callable[..., Any]
    method: str               # GET for reads, POST for writes
    path: str                 # route template, e.g. /reservations/{reservation_id}/cancel
    resource: Optional[str]   # the argument naming the record the call is about
    collection: Optional[str]  # the result field holding a list (pageable), if any
    tags: tuple[str, ...] = ()

    @property
    def path_params(self) -> list[str]:
        return re.findall(r"{(\w+)}", self.path)

    def split_args(self, args: Mapping[str, Any]) -> tuple[dict, dict]:
        """(path parameters, the rest: query parameters of a GET, body of a POST)."""
        pp = set(self.path_params)
        return ({k: v for k, v in args.items() if k in pp}, {k: v for k, v in args.items() if k not in pp})

    def metadata(self) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind, "method": self.method, "path": self.path,
                "resource": self.resource, "collection": self.collection, "summary": self.summary,
                "tags": list(self.tags)}


class Call(BaseModel):
    """An API call as recorded or prescribed: operation name and arguments."""
    model_config = ConfigDict(extra="forbid")
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)


class CallOutcome(BaseModel):
    """What one call did during a replay."""
    model_config = ConfigDict(extra="forbid")
    name: str
    arguments: dict[str, Any]
    kind: Optional[OpKind]
    ok: bool
    result: Optional[dict[str, Any]] = None
    error: Optional[ErrorDetail] = None


def db_hash(db: Any) -> str:
    """The database hash: sha256 of canonical (sorted, compact) JSON."""
    return content_hash(db)


def copy_db(db: dict) -> dict:
    """A fresh copy of a database to write on (a pickle round trip: dict order and exact floats
    kept, about a quarter of `copy.deepcopy`'s time on a banking database)."""
    return pickle.loads(pickle.dumps(db, protocol=pickle.HIGHEST_PROTOCOL))


class Catalog:
    """The operations of one domain API. Operations are registered with `read`/`write`."""

    def __init__(self, domain: str, *, title: str, description: str = "", version: str = "1.0"):
        self.domain, self.title, self.description, self.version = domain, title, description, version
        self._ops: dict[str, Operation] = {}

    # ---- registration --------------------------------------------------------------------
    def read(self, path: str, *, resource: Optional[str] = None, collection: Optional[str] = None,
             tags: tuple[str, ...] = ()) -> Callable:
        return self._register("read", path, resource, collection, tags)

    def write(self, path: str, *, resource: Optional[str] = None, tags: tuple[str, ...] = ()) -> Callable:
        return self._register("write", path, resource, None, tags)

    def _register(self, kind: OpKind, path: str, resource, collection, tags) -> Callable:
        def deco(fn: Callable) -> Callable:
            hints = typing.get_type_hints(fn)
            params = list(inspect.signature(fn).parameters)
            if len(params) != 3:
                raise TypeError(f"operation {fn.__name__}: signature must be (ctx, db, args)")
            args_t, result_t = hints.get(params[2]), hints.get("return")
            if not (isinstance(args_t, type) and issubclass(args_t, Args)):
                raise TypeError(f"operation {fn.__name__}: its args must be annotated with an Args model")
            if not (isinstance(result_t, type) and issubclass(result_t, BaseModel)):
                raise TypeError(f"operation {fn.__name__}: its return must be annotated with a pydantic model")
            name = fn.__name__
            if name in self._ops:
                raise ValueError(f"operation {name!r} is registered twice in the {self.domain} catalog")
            method = "GET" if kind == "read" else "POST"
            if any(o.method == method and o.path == path for o in self._ops.values()):
                raise ValueError(f"route {method} {path} is registered twice in the {self.domain} catalog")
            doc = inspect.cleandoc(fn.__doc__ or "")
            if not doc:
                raise ValueError(f"operation {name!r} needs a docstring (its summary)")
            flat = " ".join(doc.split())
            summary = flat.split(". ")[0].rstrip(".") + "."
            op = Operation(name=name, kind=kind, summary=summary, description=flat, args=args_t,
                           result=result_t, handler=fn, method=method, path=path, resource=resource,
                           collection=collection, tags=tuple(tags))
            unknown = [p for p in op.path_params if p not in args_t.model_fields]
            if unknown:
                raise ValueError(f"operation {name!r}: path parameter {unknown[0]!r} is not an argument")
            if kind == "read":
                for fname, f in args_t.model_fields.items():
                    if _is_complex(f.annotation):
                        raise ValueError(f"read operation {name!r}: argument {fname!r} cannot be a query parameter")
            if resource is not None and resource not in args_t.model_fields:
                raise ValueError(f"operation {name!r}: resource {resource!r} is not an argument")
            if collection is not None and collection not in result_t.model_fields:
                raise ValueError(f"operation {name!r}: collection {collection!r} is not a result field")
            self._ops[name] = op
            return fn
        return deco

    # ---- lookup --------------------------------------------------------------------------
    def operations(self) -> list[Operation]:
        return [self._ops[k] for k in sorted(self._ops)]

    def get(self, name: str) -> Operation:
        op = self._ops.get(name)
        if op is None:
            raise ApiError("unknown_operation", f"no operation {name!r} in the {self.domain} API",
                           {"available": sorted(self._ops)})
        return op

    def reads(self) -> list[str]:
        return [o.name for o in self.operations() if o.kind == "read"]

    def writes(self) -> list[str]:
        return [o.name for o in self.operations() if o.kind == "write"]

    def bind(self, pack: Any, values: Optional[Mapping[str, Any]] = None) -> "DomainApi":
        return DomainApi(self, ApiContext(pack, dict(values or {})))

    # ---- OpenAPI -------------------------------------------------------------------------
    def openapi(self, server_url: Optional[str] = None, hidden: Iterable[str] = ()) -> dict[str, Any]:
        """The OpenAPI 3.1 document of the catalog (deterministic). `hidden`: operations left
        out, as though the catalog had never had them (no path, no schema of theirs alone)."""
        hidden = frozenset(hidden)
        ops = [op for op in self.operations() if op.name not in hidden]
        models: list[tuple[type[BaseModel], str]] = [(ErrorEnvelope, "validation")]
        for op in ops:
            models += [(op.args, "validation"), (op.result, "serialization")]
        _, defs = models_json_schema(models, ref_template="#/components/schemas/{model}")
        schemas = defs.get("$defs", {})
        paths: dict[str, dict] = {}
        err_ref = {"$ref": "#/components/schemas/ErrorEnvelope"}
        for op in ops:
            args_schema = schemas[op.args.__name__]
            props = args_schema.get("properties", {})
            required = set(args_schema.get("required", []))
            params = []
            for p in op.path_params:
                params.append({"name": p, "in": "path", "required": True, "schema": _strip_title(props[p])})
            entry: dict[str, Any] = {
                "operationId": op.name, "summary": op.summary, "tags": list(op.tags) or [self.domain],
                "x-factforge-kind": op.kind,
            }
            if op.description:
                entry["description"] = op.description
            if op.resource:
                entry["x-factforge-resource"] = op.resource
            if op.collection:
                entry["x-factforge-collection"] = op.collection
            rest = [k for k in props if k not in op.path_params]
            if op.method == "GET":
                for k in rest:
                    params.append({"name": k, "in": "query", "required": k in required,
                                   "schema": _strip_title(props[k])})
            else:
                params.append(copy.deepcopy(IDEMPOTENCY_HEADER))
            if op.method != "GET" and rest:
                body = {"type": "object", "properties": {k: props[k] for k in rest}, "additionalProperties": False}
                req = [k for k in rest if k in required]
                if req:
                    body["required"] = req
                entry["requestBody"] = {"required": True, "content": {"application/json": {"schema": body}}}
            if params:
                entry["parameters"] = params
            entry["responses"] = {
                "200": {"description": "Success", "content": {"application/json": {
                    "schema": {"$ref": f"#/components/schemas/{op.result.__name__}"}}}},
                **{str(s): {"description": d, "content": {"application/json": {"schema": err_ref}}}
                   for s, d in ((400, "Malformed request"), (404, "Not found"), (409, "Conflict"),
                                (422, "Invalid argument"))},
            }
            paths.setdefault(op.path, {})[op.method.lower()] = entry
        doc: dict[str, Any] = {
            "openapi": OPENAPI_VERSION,
            "info": {"title": self.title, "version": self.version, "description": self.description,
                     "x-factforge-domain": self.domain},
            "paths": dict(sorted(paths.items())),
            "components": {"schemas": dict(sorted(schemas.items()))},
        }
        if server_url:
            doc["servers"] = [{"url": server_url}]
        return doc


def _is_complex(annotation: Any) -> bool:
    """True for list/dict/model annotations (not expressible as a query parameter)."""
    origin = typing.get_origin(annotation)
    if origin in (list, dict, tuple, set):
        return True
    if origin is not None:
        return any(_is_complex(a) for a in typing.get_args(annotation) if a is not type(None))
    return isinstance(annotation, type) and issubclass(annotation, BaseModel)


def _strip_title(schema: dict) -> dict:
    return {k: v for k, v in schema.items() if k != "title"}


class DomainApi:
    """A catalog bound to a pack (world clock, id prefixes) and its published values."""

    def __init__(self, catalog: Catalog, ctx: ApiContext):
        self.catalog, self.ctx = catalog, ctx
        self._fingerprint: Optional[str] = None

    @property
    def domain(self) -> str:
        return self.catalog.domain

    @property
    def fingerprint(self) -> str:
        """What the operations' results depend on besides the database: the domain, the world
        clock, the brand (id prefixes, product and staff names) and the values, as a hash. Two
        APIs with one fingerprint leave the same database after the same calls."""
        if self._fingerprint is None:
            brand = getattr(self.ctx.pack, "brand", None)
            self._fingerprint = content_hash([
                self.catalog.domain, str(getattr(getattr(self.ctx.pack, "info", None), "now", None)),
                brand.model_dump(mode="json") if isinstance(brand, BaseModel) else None,
                dict(self.ctx.values)])  # canonical JSON: key order does not count
        return self._fingerprint

    def operations(self) -> list[Operation]:
        return self.catalog.operations()

    def openapi(self, server_url: Optional[str] = None, hidden: Iterable[str] = ()) -> dict[str, Any]:
        return self.catalog.openapi(server_url, hidden)

    def call(self, db: dict, name: str, args: Optional[Mapping[str, Any]] = None) -> dict[str, Any]:
        """Run one operation on `db` (mutated by writes) and return its result as JSON data.
        Raises ApiError for an unknown operation, invalid arguments or a failed operation."""
        op = self.catalog.get(name)
        if args is not None and not isinstance(args, Mapping):
            raise ApiError("invalid_argument", "arguments must be a JSON object", {"operation": name})
        try:
            a = op.args.model_validate(dict(args or {}))
        except ValidationError as e:
            errs = validation_errors(e)
            first = errs[0]
            raise ApiError("invalid_argument", f"invalid arguments for {name}: {'.'.join(first['loc'])}: "
                                               f"{first['msg']}", {"operation": name, "errors": errs}) from None
        res = op.handler(self.ctx, db, a)
        try:
            out = op.result.model_validate(res) if not isinstance(res, op.result) else res
        except ValidationError as e:  # the operation broke its own contract: a bug, not the caller's
            raise RuntimeError(f"{self.domain}.{name} returned an invalid result: {validation_errors(e)[:3]}") from e
        return out.model_dump(mode="json")

    def replay(self, db: dict, calls: Iterable[Call | Mapping[str, Any]]) -> list[CallOutcome]:
        """Apply calls in order; a failed call is recorded (it changed nothing) and the
        replay goes on."""
        outcomes = []
        for c in calls:
            c = c if isinstance(c, Call) else Call.model_validate(c)
            kind = self.catalog._ops[c.name].kind if c.name in self.catalog._ops else None
            try:
                res = self.call(db, c.name, c.arguments)
                outcomes.append(CallOutcome(name=c.name, arguments=c.arguments, kind=kind, ok=True, result=res))
            except ApiError as e:
                outcomes.append(CallOutcome(name=c.name, arguments=c.arguments, kind=kind, ok=False,
                                            error=ErrorDetail(**e.envelope()["error"])))
        return outcomes


def validation_errors(e: ValidationError) -> list[dict[str, Any]]:
    """A validation error as JSON-ready entries (location, message, type), as the API reports it."""
    return [{"loc": [str(x) for x in err["loc"]], "msg": err["msg"], "type": err["type"]} for err in e.errors()]
