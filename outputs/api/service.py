"""The clean service: a domain API over a task's database, as HTTP-shaped answers.

`CleanService` knows the catalog and the database and nothing of defects. It runs an
operation (`execute`) and answers `Answer(status, body, headers)`: the operation's result
(200) or the error envelope with the code's status. Writes honour an `Idempotency-Key`: a
second request with the same key and the same operation and arguments returns the first
answer without writing again; the same key on a different request is a 409. The service
owns the working copy of the database (`reset` restores the seed) and the call log.

The log (`CallLog`) records every operation request: operation, arguments as received,
answer status, ordinal (1-based among requests to that operation), resource id, the
clock's time, whether the entry changed the database (`committed`), the defects applied
and the idempotency key. Grading replays the committed entries, in order, on a fresh copy
of the seed database (`replay_calls`).
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from domains.apikit import ApiError, Call, DomainApi, Operation, validation_errors
from facts.hashing import content_hash

LOG_SCHEMA_VERSION = "1.0"

# Codes the server adds to the catalog's (domains.apikit.ERROR_STATUS) for transport-level
# answers; every error body is the same envelope.
SERVER_ERRORS: dict[str, int] = {
    "bad_request": 400,
    "not_found": 404,
    "method_not_allowed": 405,
    "cursor_expired": 410,
    "payload_too_large": 413,
    "rate_limited": 429,
    "internal_error": 500,
    "response_too_large": 500,
    "gateway_timeout": 504,
}


def envelope(code: str, message: str, details: Optional[dict] = None) -> dict:
    return {"error": {"code": code, "message": message, "details": dict(details or {})}}


@dataclass
class Answer:
    status: int
    body: Any
    headers: dict[str, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    @classmethod
    def error(cls, code: str, message: str, details: Optional[dict] = None, status: Optional[int] = None,
              headers: Optional[dict] = None) -> "Answer":
        return cls(status or SERVER_ERRORS[code], envelope(code, message, details), dict(headers or {}))

    @classmethod
    def from_api_error(cls, e: ApiError) -> "Answer":
        return cls(e.status, e.envelope())

    def copy(self) -> "Answer":
        return Answer(self.status, copy.deepcopy(self.body), dict(self.headers))


class LogEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")
    seq: int
    operation: str
    kind: Literal["read", "write"]
    arguments: dict[str, Any]
    status: int
    ordinal: int
    resource: Optional[str] = None
    t: float
    committed: bool = False
    via: Literal["request", "job"] = "request"
    defects: list[str] = Field(default_factory=list)
    idempotency_key: Optional[str] = None
    error: Optional[str] = None


class CallLog(BaseModel):
    model_config = ConfigDict(extra="forbid")
    schema_version: str = LOG_SCHEMA_VERSION
    task_id: Optional[str] = None
    trial: int = 0
    deployment: str = "clean"
    entries: list[LogEntry] = Field(default_factory=list)

    def replay_calls(self) -> list[Call]:
        """The calls that changed the database, in commit order (what grading replays)."""
        return [Call(name=e.operation, arguments=e.arguments) for e in self.entries if e.committed]

    def defects_hit(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for e in self.entries:
            for k in e.defects:
                out[k] = out.get(k, 0) + 1
        return dict(sorted(out.items()))


def replay_log(api: DomainApi, seed_db: dict, log: CallLog) -> dict:
    """A fresh copy of `seed_db` with the log's committed calls applied (grading's database)."""
    db = copy.deepcopy(seed_db)
    api.replay(db, log.replay_calls())
    return db


class CleanService:
    """A DomainApi over a working copy of a database."""

    def __init__(self, api: DomainApi, seed_db: dict):
        self.api = api
        self.seed_db = seed_db
        self.db: dict = copy.deepcopy(seed_db)
        self._idem: dict[str, tuple[str, str, Answer]] = {}

    def reset(self) -> None:
        self.db = copy.deepcopy(self.seed_db)
        self._idem.clear()

    def validate(self, op: Operation, args: dict) -> Optional[Answer]:
        """The 422 answer for arguments that do not validate, else None (nothing runs)."""
        try:
            op.args.model_validate(args)
        except ValidationError as e:
            errs = validation_errors(e)
            first = errs[0]
            return Answer.from_api_error(ApiError(
                "invalid_argument", f"invalid arguments for {op.name}: {'.'.join(first['loc'])}: {first['msg']}",
                {"operation": op.name, "errors": errs}))
        return None

    def execute(self, op: Operation, args: dict, db: Optional[dict] = None) -> Answer:
        """Run a read (on `db`, default the working copy) or a write (always the working
        copy). Returns the answer; the database changed iff it is a 200 to a write."""
        target = self.db if (db is None or op.kind == "write") else db
        try:
            return Answer(200, self.api.call(target, op.name, args))
        except ApiError as e:
            return Answer.from_api_error(e)

    def write(self, op: Operation, args: dict, key: Optional[str]) -> tuple[Answer, bool]:
        """(answer, committed) for a write, honouring an Idempotency-Key."""
        fingerprint = content_hash([op.name, args])
        if key is not None and key in self._idem:
            name, fp, answer = self._idem[key]
            if (name, fp) != (op.name, fingerprint):
                return Answer.from_api_error(ApiError(
                    "conflict", "this Idempotency-Key was used for a different request",
                    {"idempotency_key": key, "operation": name})), False
            return answer.copy(), False
        answer = self.execute(op, args)
        if answer.status == 200 and key is not None:
            self._idem[key] = (op.name, fingerprint, answer.copy())
        return answer, answer.status == 200
