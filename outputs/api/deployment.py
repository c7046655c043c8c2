"""Defect deployments: declarative, hashed files naming how a production API misbehaves.

A deployment is one TOML file, `domains/<name>/deployments/<id>.toml` (the id is the file
stem; `clean`, with no defects, always exists without a file). Each `[[defects]]` record
has a `kind`, the `operations` it targets, an `activation` and kind-specific `params`:

```toml
schema_version = "1.0"
id = "legacy-responses"
description = "Reservation reads come from a legacy service."

[[defects]]
kind = "response_value_map"
operations = ["get_reservation"]
activation = { ordinals = [1, 2] }          # which calls it hits (default: every call)
params = { field = "insurance", map = { "true" = "yes", "false" = "no" } }
```

The nine kinds (what `params` each takes is the matching `*Params` model below):

| kind | targets | what the client sees |
|---|---|---|
| `response_field_rename` | any op | a response field under another name |
| `response_value_map` | any op | a field's values mapped (`true` -> `"yes"`) |
| `response_amount_sign` | any op | money fields of one record type with the opposite sign |
| `response_date_to_datetime` | any op | dates as UTC-midnight datetimes |
| `pagination` | collection reads | cursor pages; header-only continuation (truncate); a lost cursor; limit before sort; canonical or reverse order |
| `rate_limit` | any op | 429 + Retry-After from a call ordinal until the real delay passes |
| `async_completion` | writes | 202 + status URL; the write completes after a delay |
| `post_commit_timeout` | writes | the write commits, the answer is 504; a retry with the same Idempotency-Key returns the committed result |
| `projection_lag` | reads | reads served from a projection that misses writes younger than the lag |

**Activation.** In an evaluation run (a task id, a trial) a defect hits a call when the
task is among `activation.tasks` (empty: every task on this deployment), the call's
ordinal (1-based, counting every request to that operation, per resource id with
`per_resource`) is in `ordinals`, or at least `from_ordinal` (neither: every call), and the
call's resource id (the operation's `resource` argument) is among `resources` (empty: any).
In a development run (the developer's own tests on the kit's data) ordinals and resources
are ignored: a seeded hash hits a fraction `exposure` of the calls. Every delay is
`min + f * (max - min)` with `f` a hash fraction of (deployment, defect, task, trial, ordinal,
resource): the same seed gives the same behaviour.

`load_deployment` is strict (unknown keys, unknown kinds, bad parameters and, given the
domain API, unknown operations, fields and record types are errors) and reports one
`FactforgeError` naming the file, the line and the problem. `deployment_path` resolves an
id in a domain pack (what the task-pack build calls to validate a spec's deployment).
"""
from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Annotated, Any, Iterable, Literal, Optional, Union

from pydantic import ConfigDict, Field, TypeAdapter, ValidationError, field_validator, model_validator

from facts.errors import FactforgeError
from facts.hashing import content_hash, sha256_hex
from facts.strict import StrictModel

from .contract import SchemaIndex

DEPLOYMENT_SCHEMA_VERSION = "1.0"
CLEAN = "clean"
DEPLOYMENT_ID = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
KINDS = ("response_field_rename", "response_value_map", "response_amount_sign", "response_date_to_datetime",
         "pagination", "rate_limit", "async_completion", "post_commit_timeout", "projection_lag")


class Activation(StrictModel):
    """Which calls a defect hits (see the module docstring)."""
    tasks: list[str] = Field(default_factory=list)
    ordinals: list[Annotated[int, Field(ge=1)]] = Field(default_factory=list)
    from_ordinal: Optional[int] = Field(None, ge=1)
    per_resource: bool = False
    resources: list[str] = Field(default_factory=list)
    exposure: float = Field(0.5, ge=0.0, le=1.0)

    @model_validator(mode="after")
    def _one_selector(self) -> "Activation":
        if self.ordinals and self.from_ordinal is not None:
            raise ValueError("give either ordinals or from_ordinal, not both")
        if len(set(self.ordinals)) != len(self.ordinals):
            raise ValueError("duplicate ordinals")
        return self

    def selects(self, ordinal: int) -> bool:
        if self.ordinals:
            return ordinal in self.ordinals
        if self.from_ordinal is not None:
            return ordinal >= self.from_ordinal
        return True


class _Delay(StrictModel):
    min_delay_s: float = Field(ge=0, le=3600)
    max_delay_s: float = Field(ge=0, le=3600)

    @model_validator(mode="after")
    def _order(self):
        if self.max_delay_s < self.min_delay_s:
            raise ValueError("max_delay_s is below min_delay_s")
        return self

    def delay(self, fraction: float) -> float:
        return round(self.min_delay_s + fraction * (self.max_delay_s - self.min_delay_s), 3)


class FieldRenameParams(StrictModel):
    from_: str = Field(alias="from")
    to: str
    record: Optional[str] = None   # only objects of this record type (a schema name); None: any object

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    @model_validator(mode="after")
    def _differ(self):
        if self.from_ == self.to:
            raise ValueError("from and to are the same field")
        return self


class ValueMapParams(StrictModel):
    field: str
    map: dict[str, Union[str, int, float, bool]] = Field(min_length=1)  # value as text ("true", "economy") -> value sent
    record: Optional[str] = None


class AmountSignParams(StrictModel):
    record: str                      # the record type (schema name) whose amounts flip sign
    fields: list[str] = Field(default_factory=list)  # default: the record's money-format fields


class DateToDatetimeParams(StrictModel):
    fields: list[str] = Field(default_factory=list)  # default: every date field
    record: Optional[str] = None


class PaginationParams(StrictModel):
    page_size: int = Field(ge=1, le=1000)
    order: Literal["canonical", "reverse"] = "canonical"
    sort_by: list[str] = Field(default_factory=list)  # item fields whose ascending order is the canonical order
    limit_before_sort: bool = False  # pages are cut from storage order, then sorted within the page
    truncate: bool = False           # the body is cut to the page; the continuation is only in the Link header
    lost_cursor_at_page: Optional[int] = Field(None, ge=2)  # following the cursor to this page fails once (410)

    @model_validator(mode="after")
    def _sortable(self):
        if (self.order == "reverse" or self.limit_before_sort) and not self.sort_by:
            raise ValueError("reverse order and limit_before_sort need sort_by (the canonical order's fields)")
        return self


class RateLimitParams(_Delay):
    retry_after_s: int = Field(ge=0, le=3600)  # advertised in Retry-After (may understate the real delay)
    max_windows: int = Field(1, ge=1, le=100)   # throttling windows per trial


class AsyncParams(_Delay):
    retry_after_s: Optional[int] = Field(None, ge=0, le=3600)  # advertised; default: the delay rounded up


class NoParams(StrictModel):
    pass


class ProjectionLagParams(_Delay):
    writes: list[str] = Field(default_factory=list)  # writes whose effects lag (default: every write)


class _Defect(StrictModel):
    operations: list[str] = Field(min_length=1)
    activation: Activation = Field(default_factory=Activation)
    note: str = ""   # free text for authors (not shown to agents)

    @field_validator("operations")
    @classmethod
    def _unique_ops(cls, v: list[str]) -> list[str]:
        if len(set(v)) != len(v):
            raise ValueError("duplicate operations")
        return v


class FieldRename(_Defect):
    kind: Literal["response_field_rename"]
    params: FieldRenameParams


class ValueMap(_Defect):
    kind: Literal["response_value_map"]
    params: ValueMapParams


class AmountSign(_Defect):
    kind: Literal["response_amount_sign"]
    params: AmountSignParams


class DateToDatetime(_Defect):
    kind: Literal["response_date_to_datetime"]
    params: DateToDatetimeParams = Field(default_factory=DateToDatetimeParams)


class Pagination(_Defect):
    kind: Literal["pagination"]
    params: PaginationParams


class RateLimit(_Defect):
    kind: Literal["rate_limit"]
    params: RateLimitParams


class AsyncCompletion(_Defect):
    kind: Literal["async_completion"]
    params: AsyncParams


class PostCommitTimeout(_Defect):
    kind: Literal["post_commit_timeout"]
    params: NoParams = Field(default_factory=NoParams)


class ProjectionLag(_Defect):
    kind: Literal["projection_lag"]
    params: ProjectionLagParams


Defect = Annotated[Union[FieldRename, ValueMap, AmountSign, DateToDatetime, Pagination, RateLimit,
                         AsyncCompletion, PostCommitTimeout, ProjectionLag], Field(discriminator="kind")]
RESPONSE_KINDS = ("response_field_rename", "response_value_map", "response_amount_sign", "response_date_to_datetime")


class Deployment(StrictModel):
    schema_version: Literal["1.0"] = DEPLOYMENT_SCHEMA_VERSION
    id: str
    description: str = ""
    defects: list[Defect] = Field(default_factory=list)

    @field_validator("id")
    @classmethod
    def _slug(cls, v: str) -> str:
        if not DEPLOYMENT_ID.match(v):
            raise ValueError(f"deployment id {v!r} must be lowercase letters, digits and dashes")
        return v

    @property
    def key(self) -> str:
        """A stable identity of the deployment's content (salts every hash fraction)."""
        return content_hash(self.model_dump(mode="json", by_alias=True))[:16]

    def kinds(self) -> list[str]:
        return sorted({d.kind for d in self.defects})


def clean_deployment() -> Deployment:
    return Deployment(id=CLEAN, description="The API as documented: no defects.")


_ADAPTER = TypeAdapter(Deployment)


# --------------------------------------------------------------------------- TOML lines

def _toml_paths(text: str) -> dict[tuple, int]:
    """Line of every table, array-of-tables item and key in a TOML text, by path
    (("defects", 1, "params", "page_size") -> line). Inline tables map their keys to the
    line of the key that holds them."""
    out: dict[tuple, int] = {}
    counts: dict[tuple, int] = {}
    table: tuple = ()
    for i, raw in enumerate(text.splitlines(), 1):
        s = raw.split("#", 1)[0].strip() if not raw.strip().startswith(("'", '"')) else raw.strip()
        if s.startswith("[["):
            name = tuple(p.strip() for p in s.strip("[]").split("."))
            n = counts.get(name, -1) + 1
            counts[name] = n
            table = name + (n,)
            out.setdefault(name, i)
            out[table] = i
            continue
        if s.startswith("["):
            parts = tuple(p.strip() for p in s.strip("[]").split("."))
            # a sub-table of the latest array item: [defects.params] after [[defects]]
            base = next(((*k, counts[k]) for k in sorted(counts, key=len, reverse=True)
                         if parts[:len(k)] == k), None)
            table = (*base, *parts[len(base) - 1:]) if base else parts
            out[table] = i
            continue
        if "=" in s:
            key = s.split("=", 1)[0].strip().strip('"')
            out.setdefault(table + (key,), i)
            rest = s.split("=", 1)[1]
            for m in re.finditer(r"([A-Za-z_][\w-]*|\"[^\"]+\")\s*=", rest):
                out.setdefault(table + (key, m.group(1).strip('"')), i)
    return out


def toml_line_of(text: str, loc: Iterable[Any]) -> Optional[int]:
    """The line of the deepest prefix of `loc` found in the text (pydantic locations may
    carry discriminator tags and aliases that the file does not: they are skipped)."""
    paths = _toml_paths(text)
    loc = [x for x in loc]
    best = None
    prefix: tuple = ()
    for x in loc:
        cand = prefix + (x,)
        if cand in paths:
            prefix = cand
            best = paths[cand]
        elif isinstance(x, str) and x.rstrip("_") != x and prefix + (x.rstrip("_"),) in paths:
            prefix = prefix + (x.rstrip("_"),)
            best = paths[prefix]
    return best


# --------------------------------------------------------------------------- loading

def _where(loc: Iterable[Any]) -> str:
    """A location as written: defects[1].params.page_size."""
    out = ""
    for x in loc:
        out += f"[{x}]" if isinstance(x, int) else (("." if out else "") + str(x).rstrip("_"))
    return out


def parse_deployment(text: str, path: Path | str, api: Any = None) -> Deployment:
    """Validate a deployment's TOML text (and, given the domain's `DomainApi`, its targets)."""
    path = Path(path)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise FactforgeError(f"invalid TOML: {str(e).split(' (at line')[0]}", path, getattr(e, "lineno", None)) from None
    try:
        dep = _ADAPTER.validate_python(data)
    except ValidationError as e:
        err = e.errors()[0]
        loc = tuple(err["loc"])
        msg = err["msg"].removeprefix("Value error, ")
        if err["type"] in ("union_tag_invalid", "union_tag_not_found"):
            kind = err["input"].get("kind") if isinstance(err.get("input"), dict) else None
            msg = f"unknown defect kind {kind!r}; kinds: {', '.join(KINDS)}" if kind else "a defect needs a kind"
            loc = (*loc, "kind")
        where = _where(x for x in loc if not (isinstance(x, str) and x in KINDS)) or "deployment"
        raise FactforgeError(f"{where}: {msg}", path, toml_line_of(text, loc)) from None
    if dep.id != path.stem:
        raise FactforgeError(f"deployment id {dep.id!r} differs from the file name ({path.stem})", path,
                             toml_line_of(text, ("id",)))
    if api is not None:
        problems = check_against_api(dep, api)
        if problems:
            loc, problem = problems[0]
            raise FactforgeError(problem, path, toml_line_of(text, loc))
    return dep


def load_deployment(path: Path | str, api: Any = None) -> tuple[Deployment, str]:
    """(the deployment, sha256 of the file's bytes). `api`: the domain's DomainApi, to check
    operations, fields and record types."""
    path = Path(path)
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise FactforgeError(f"not UTF-8 text (byte {e.start})", path) from None
    return parse_deployment(text, path, api), sha256_hex(raw)


def deployment_path(domain_dir: Path | str, dep_id: str) -> Optional[Path]:
    """The file of deployment `dep_id` in a domain pack's folder; None for the built-in
    clean deployment. Raises FactforgeError (listing what exists) for an unknown id."""
    d = Path(domain_dir) / "deployments"
    p = d / f"{dep_id}.toml"
    if p.is_file():
        return p
    if dep_id == CLEAN:
        return None
    raise FactforgeError(f"unknown deployment {dep_id!r}; available: {', '.join(available(domain_dir))}")


def available(domain_dir: Path | str) -> list[str]:
    d = Path(domain_dir) / "deployments"
    return [CLEAN, *sorted(p.stem for p in d.glob("*.toml") if p.stem != CLEAN)] if d.is_dir() else [CLEAN]


# --------------------------------------------------------------------------- targets

def check_against_api(dep: Deployment, api: Any) -> list[tuple[tuple, str]]:
    """(location, problem) for every target the domain API does not have: unknown
    operations, a kind applied to the wrong kind of operation, unknown record types and
    fields, sort fields not in the collection's items."""
    ops = {o.name: o for o in api.operations()}
    idx = SchemaIndex(api.openapi())
    out: list[tuple[tuple, str]] = []
    for i, d in enumerate(dep.defects):
        base = ("defects", i)
        for name in d.operations:
            op = ops.get(name)
            if op is None:
                out.append(((*base, "operations"), f"defects[{i}]: unknown operation {name!r}; "
                                                   f"operations: {', '.join(sorted(ops))}"))
                continue
            need = {"pagination": "read", "projection_lag": "read", "async_completion": "write",
                    "post_commit_timeout": "write"}.get(d.kind)
            if need and op.kind != need:
                out.append(((*base, "operations"), f"defects[{i}]: {d.kind} applies to {need} operations; "
                                                   f"{name} is a {op.kind}"))
            if d.kind == "pagination" and not op.collection:
                out.append(((*base, "operations"), f"defects[{i}]: {name} returns no collection to paginate"))
        if out:
            continue
        p = d.params
        records = idx.records_of([ops[n] for n in d.operations])
        if d.kind in ("response_field_rename", "response_value_map", "response_date_to_datetime") and p.record \
                and p.record not in records:
            out.append(((*base, "params", "record"), f"defects[{i}]: record {p.record!r} is not in the responses of "
                                                     f"{', '.join(d.operations)}; records: {', '.join(sorted(records))}"))
            continue
        if d.kind == "response_field_rename":
            fields = idx.fields_of(records, p.record)
            if p.from_ not in fields:
                out.append(((*base, "params", "from"), f"defects[{i}]: no field {p.from_!r} in the responses"))
        elif d.kind == "response_value_map":
            if p.field not in idx.fields_of(records, p.record):
                out.append(((*base, "params", "field"), f"defects[{i}]: no field {p.field!r} in the responses"))
        elif d.kind == "response_amount_sign":
            if p.record not in records:
                out.append(((*base, "params", "record"), f"defects[{i}]: record {p.record!r} is not in the responses "
                                                         f"of {', '.join(d.operations)}; records: "
                                                         f"{', '.join(sorted(records))}"))
            else:
                numeric = idx.numeric_fields(p.record)
                fields = p.fields or idx.money_fields(p.record)
                bad = [f for f in fields if f not in numeric]
                if not fields:
                    out.append(((*base, "params", "record"), f"defects[{i}]: record {p.record!r} has no money-format "
                                                             f"field; name its amount fields in params.fields"))
                elif bad:
                    out.append(((*base, "params", "fields"), f"defects[{i}]: {bad[0]!r} is not a numeric field of "
                                                             f"{p.record}; numeric fields: {', '.join(numeric)}"))
        elif d.kind == "response_date_to_datetime":
            dates = idx.date_fields(records, p.record)
            bad = [f for f in p.fields if f not in dates]
            if not dates:
                out.append(((*base, "operations"), f"defects[{i}]: the responses have no date field"))
            elif bad:
                out.append(((*base, "params", "fields"), f"defects[{i}]: {bad[0]!r} is not a date field; "
                                                         f"date fields: {', '.join(sorted(dates))}"))
        elif d.kind == "pagination":
            for name in d.operations:
                item = idx.item_fields(ops[name])
                bad = [f for f in p.sort_by if f not in item]
                if bad:
                    out.append(((*base, "params", "sort_by"), f"defects[{i}]: {bad[0]!r} is not a field of "
                                                              f"{name}'s items"))
        elif d.kind == "projection_lag":
            for w in p.writes:
                if w not in ops or ops[w].kind != "write":
                    out.append(((*base, "params", "writes"), f"defects[{i}]: {w!r} is not a write operation"))
    for i, d in enumerate(dep.defects):
        for t in d.activation.tasks:
            if not re.match(r"^[a-z_][a-z0-9_]*(-[a-z0-9]+)+$", t):
                out.append((("defects", i, "activation", "tasks"), f"defects[{i}]: {t!r} is not a task id"))
    return out


def builtin_deployments(domain_dir: Path | str, api: Any = None) -> dict[str, Deployment]:
    """Every deployment file of a domain pack, validated (against `api` when given)."""
    d = Path(domain_dir) / "deployments"
    return {p.stem: load_deployment(p, api)[0] for p in sorted(d.glob("*.toml"))} if d.is_dir() else {}
