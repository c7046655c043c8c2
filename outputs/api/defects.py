"""The one layer that applies a deployment's defects, between HTTP and the clean service.

Like a fault-injecting proxy, `DefectLayer.handle` sees a request for an operation, decides
from the deployment's declarative records which defects hit it (activation by task, call
ordinal and resource id, or a seeded exposure rate in development runs) and answers as the
misbehaving production API would: a 429 inside a throttling window, a 202 with a status URL,
a 504 after a committed write, a read served from a lagging projection, a page of a
listing, or a clean answer rewritten (renamed fields, mapped values, flipped signs,
datetimes for dates). The clean service never sees a defect; the layer calls it exactly as
HTTP would. Every request lands in the call log with the defects applied.

Determinism: everything random is a hash fraction of (deployment, defect index, task, trial,
operation, ordinal, resource, seed), and time is the injected clock, so the same run gives
the same answers.
"""
from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field
from typing import Any, Literal, Optional
from urllib.parse import urlencode

from domains.apikit import Operation
from facts.hashing import content_hash

from .clock import RealClock, VirtualClock
from .contract import SchemaIndex
from .deployment import Deployment
from .service import Answer, CallLog, CleanService, LogEntry

Mode = Literal["eval", "dev"]


def fraction(*parts: Any) -> float:
    """A deterministic number in [0, 1) from `parts`."""
    return int(content_hash(list(parts))[:13], 16) / float(16 ** 13)


@dataclass
class Runtime:
    """Who is calling: the task and trial (evaluation) or a seeded development run."""
    task_id: Optional[str] = None
    trial: int = 0
    seed: int = 0
    mode: Mode = "eval"


@dataclass
class Request:
    op: Operation
    args: dict
    headers: dict[str, str] = field(default_factory=dict)   # lower-cased names
    cursor: Optional[str] = None
    path: str = ""

    @property
    def resource(self) -> Optional[str]:
        r = self.op.resource
        v = self.args.get(r) if r else None
        return None if v is None else str(v)

    @property
    def idempotency_key(self) -> Optional[str]:
        return self.headers.get("idempotency-key")


@dataclass
class _Job:
    id: str
    op: Operation
    args: dict
    key: Optional[str]
    due: float
    retry_after: int
    resource: Optional[str]
    ordinal: int
    answer: Optional[Answer] = None


@dataclass
class _Listing:
    defect: int
    op: str
    resource: Optional[str]
    pages: list[list]
    base: dict
    query: dict
    path: str


@dataclass
class _Commit:
    t: float
    op: str
    seq: int
    resource: Optional[str]
    before: dict


class DefectLayer:
    """Applies `deployment` over `service`; owns the log and the per-trial defect state."""

    def __init__(self, service: CleanService, deployment: Deployment, clock: VirtualClock | RealClock,
                 runtime: Runtime):
        self.service, self.deployment, self.clock, self.runtime = service, deployment, clock, runtime
        self.index = SchemaIndex(service.api.openapi())
        self._lag_defects = [i for i, d in enumerate(deployment.defects) if d.kind == "projection_lag"]
        self.fixed: set[int] = set()   # defects a deployed fix has taken out of play
        self.reset(runtime.trial)

    # ---- per-trial state ---------------------------------------------------------------
    def reset(self, trial: int) -> None:
        self.runtime.trial = trial
        self.service.reset()
        self.clock.reset()
        self.log = CallLog(task_id=self.runtime.task_id, trial=trial, deployment=self.deployment.id)
        self._ordinals: dict[tuple, int] = {}
        self._windows: dict[int, list[float]] = {}     # defect -> window end times opened
        self._jobs: dict[str, _Job] = {}
        self._job_keys: dict[str, str] = {}
        self._listings: dict[str, _Listing] = {}
        self._cursors: dict[str, tuple[str, int]] = {}
        self._lost: set[tuple] = set()
        self._commits: list[_Commit] = []
        self._writes = 0

    # ---- activation --------------------------------------------------------------------
    def _count(self, op: str, resource: Optional[str]) -> tuple[int, int]:
        a = self._ordinals[(op,)] = self._ordinals.get((op,), 0) + 1
        b = self._ordinals[(op, resource)] = self._ordinals.get((op, resource), 0) + 1
        return a, b

    def _hits(self, i: int, op: str, ordinals: tuple[int, int], resource: Optional[str]) -> bool:
        d = self.deployment.defects[i]
        act = d.activation
        if op not in d.operations or i in self.fixed:
            return False
        if act.tasks and self.runtime.task_id not in act.tasks:
            return False
        n = ordinals[1] if act.per_resource else ordinals[0]
        if self.runtime.mode == "dev":
            return fraction(self.deployment.key, i, "exposure", self.runtime.seed, self.runtime.trial, op, n,
                            resource) < act.exposure
        return act.selects(n) and (not act.resources or resource in act.resources)

    def _fraction(self, i: int, op: str, ordinal: int, resource: Optional[str]) -> float:
        rt = self.runtime
        return fraction(self.deployment.key, i, rt.task_id, rt.trial, rt.seed, op, ordinal, resource)

    # ---- the request path ----------------------------------------------------------------
    def handle(self, req: Request) -> Answer:
        self.settle_due()
        op, resource = req.op, req.resource
        ordinals = self._count(op.name, resource)
        now = self.clock.now()
        hits = [i for i, _ in enumerate(self.deployment.defects) if self._hits(i, op.name, ordinals, resource)]
        kinds = {self.deployment.defects[i].kind: i for i in hits}
        applied: list[str] = []

        def log(answer: Answer, committed: bool = False) -> Answer:
            err = answer.body.get("error", {}).get("code") if isinstance(answer.body, dict) and not answer.ok else None
            self._log(op, req.args, answer.status, ordinals[0], resource, now, committed, applied,
                      req.idempotency_key, err, "request")
            return answer

        throttled = self._rate_limit(op.name, hits, now)
        if throttled is not None:
            applied.append("rate_limit")
            return log(throttled)
        if req.cursor is not None:
            page = self._next_page(req, now)
            if page is not None:
                applied.append("pagination")
                return log(self._rewrite(op, page, hits, applied))
        if op.kind == "write":
            if "async_completion" in kinds:
                return log(self._start_job(req, kinds["async_completion"], ordinals[0], now, applied))
            answer, committed = self._commit(op, req.args, req.idempotency_key, resource, now)
            if committed and "post_commit_timeout" in kinds:
                applied.append("post_commit_timeout")
                return log(Answer.error("gateway_timeout", "the upstream service did not answer in time",
                                        {"operation": op.name}), committed=True)
            return log(self._rewrite(op, answer, hits, applied), committed)
        db = self._projection(hits, now, applied)
        answer = self.service.execute(op, req.args, db)
        if answer.ok and "pagination" in kinds:
            answer = self._first_page(req, kinds["pagination"], answer, applied)
        return log(self._rewrite(op, answer, hits, applied))

    def _log(self, op: Operation, args: dict, status: int, ordinal: int, resource: Optional[str], t: float,
             committed: bool, defects: list[str], key: Optional[str], error: Optional[str], via: str) -> None:
        self.log.entries.append(LogEntry(
            seq=len(self.log.entries) + 1, operation=op.name, kind=op.kind, arguments=copy.deepcopy(args),
            status=status, ordinal=ordinal, resource=resource, t=round(t, 6), committed=committed, via=via,
            defects=list(dict.fromkeys(defects)), idempotency_key=key, error=error))

    def _commit(self, op: Operation, args: dict, key: Optional[str], resource: Optional[str],
                t: float) -> tuple[Answer, bool]:
        before = copy.deepcopy(self.service.db) if self._lag_defects else None
        answer, committed = self.service.write(op, args, key)
        if committed:
            self._writes += 1
            if before is not None:
                self._commits.append(_Commit(t, op.name, self._writes, resource, before))
        return answer, committed

    # ---- rate_limit ------------------------------------------------------------------------
    def _rate_limit(self, op: str, hits: list[int], now: float) -> Optional[Answer]:
        for i, d in enumerate(self.deployment.defects):
            if d.kind != "rate_limit" or op not in d.operations or i in self.fixed:
                continue
            windows = self._windows.setdefault(i, [])
            if windows and now < windows[-1]:
                return self._too_many(d)
            if i in hits and len(windows) < d.params.max_windows:
                delay = d.params.delay(self._fraction(i, op, len(windows) + 1, None))
                windows.append(now + delay)
                if delay > 0:
                    return self._too_many(d)
        return None

    @staticmethod
    def _too_many(d) -> Answer:
        return Answer.error("rate_limited", "too many requests; retry later",
                            {"retry_after_s": d.params.retry_after_s},
                            headers={"Retry-After": str(d.params.retry_after_s)})

    # ---- async_completion ----------------------------------------------------------------
    def _start_job(self, req: Request, i: int, ordinal: int, now: float, applied: list[str]) -> Answer:
        op = req.op
        bad = self.service.validate(op, req.args)
        if bad is not None:
            return bad
        key = req.idempotency_key
        if key is not None and key in self._job_keys:
            job = self._jobs[self._job_keys[key]]
            if job.answer is not None:
                return job.answer.copy()
            applied.append("async_completion")
            return self._pending(job, now)
        d = self.deployment.defects[i]
        delay = d.params.delay(self._fraction(i, op.name, ordinal, req.resource))
        retry = d.params.retry_after_s if d.params.retry_after_s is not None else max(1, math.ceil(delay))
        jid = "job_" + content_hash([self.deployment.key, self.runtime.task_id, self.runtime.trial, op.name,
                                     ordinal, len(self._jobs)])[:16]
        job = _Job(jid, op, copy.deepcopy(req.args), key, now + delay, retry, req.resource, ordinal)
        self._jobs[jid] = job
        if key is not None:
            self._job_keys[key] = jid
        applied.append("async_completion")
        return self._pending(job, now)

    def _pending(self, job: _Job, now: float) -> Answer:
        url = f"/_jobs/{job.id}"
        return Answer(202, {"status": "pending", "job_id": job.id, "status_url": url},
                      {"Location": url, "Retry-After": str(job.retry_after)})

    def settle_due(self, until: Optional[float] = None) -> None:
        """Complete every pending job due by `until` (default: now), in due order."""
        t = self.clock.now() if until is None else until
        due = sorted((j for j in self._jobs.values() if j.answer is None and j.due <= t), key=lambda j: (j.due, j.id))
        for job in due:
            answer, committed = self._commit(job.op, job.args, job.key, job.resource, job.due)
            hits = [i for i, d in enumerate(self.deployment.defects) if d.kind in
                    ("response_field_rename", "response_value_map", "response_amount_sign",
                     "response_date_to_datetime") and job.op.name in d.operations and i not in self.fixed]
            applied: list[str] = []
            job.answer = self._rewrite(job.op, answer, hits, applied)
            err = answer.body.get("error", {}).get("code") if not answer.ok else None
            self._log(job.op, job.args, answer.status, job.ordinal, job.resource, job.due, committed,
                      ["async_completion", *applied], job.key, err, "job")

    def settle(self) -> None:
        """Complete every pending job (the end of a conversation: the backend finishes its
        work whether or not the client polls)."""
        if any(j.answer is None for j in self._jobs.values()):
            self.settle_due(max(j.due for j in self._jobs.values()))

    def job_status(self, job_id: str) -> Answer:
        self.settle_due()
        job = self._jobs.get(job_id)
        if job is None:
            return Answer.error("not_found", f"no job {job_id!r}", {"job_id": job_id})
        if job.answer is None:
            return self._pending(job, self.clock.now())
        return job.answer.copy()

    # ---- projection_lag ----------------------------------------------------------------------
    def _projection(self, hits: list[int], now: float, applied: list[str]) -> Optional[dict]:
        """The database a read is served from: the state before the oldest write still
        invisible to a lagging projection that hits this read (None: the live database)."""
        for i in hits:
            d = self.deployment.defects[i]
            if d.kind != "projection_lag":
                continue
            for c in self._commits:
                if d.params.writes and c.op not in d.params.writes:
                    continue
                lag = d.params.delay(self._fraction(i, c.op, c.seq, c.resource))
                if now < c.t + lag:
                    applied.append("projection_lag")
                    return c.before
        horizon = max((self.deployment.defects[i].params.max_delay_s for i in self._lag_defects), default=0)
        self._commits = [c for c in self._commits if now < c.t + horizon]
        return None

    # ---- pagination --------------------------------------------------------------------------
    def _first_page(self, req: Request, i: int, answer: Answer, applied: list[str]) -> Answer:
        d = self.deployment.defects[i]
        p = d.params
        coll = req.op.collection
        items = list(answer.body.get(coll) or [])
        lid = "l" + content_hash([self.deployment.key, self.runtime.task_id, self.runtime.trial, req.op.name,
                                  len(self._listings), req.resource])[:12]
        canon = list(range(len(items)))
        if p.limit_before_sort:
            storage = sorted(canon, key=lambda k: fraction(lid, k))
            pages = [sorted(storage[s:s + p.page_size], reverse=p.order == "reverse")
                     for s in range(0, len(storage), p.page_size)]
        else:
            order = canon[::-1] if p.order == "reverse" else canon
            pages = [order[s:s + p.page_size] for s in range(0, len(order), p.page_size)]
        pages = [[items[k] for k in page] for page in pages] or [[]]
        base = {k: v for k, v in answer.body.items() if k != coll}
        query = {k: v for k, v in req.args.items() if k not in req.op.path_params}
        self._listings[lid] = _Listing(i, req.op.name, req.resource, pages, base, query, req.path)
        applied.append("pagination")
        return self._page(lid, 0)

    def _page(self, lid: str, n: int) -> Answer:
        lst = self._listings[lid]
        p = self.deployment.defects[lst.defect].params
        body = {**lst.base, self.service.api.catalog.get(lst.op).collection: copy.deepcopy(lst.pages[n])}
        headers: dict[str, str] = {}
        cursor = None
        if n + 1 < len(lst.pages):
            cursor = "c" + content_hash([lid, n + 1])[:15]
            self._cursors[cursor] = (lid, n + 1)
        if p.truncate:
            if cursor:
                headers["Link"] = f'<{lst.path}?{urlencode({**lst.query, "cursor": cursor})}>; rel="next"'
        else:
            body["next_cursor"] = cursor
        return Answer(200, body, headers)

    def _next_page(self, req: Request, now: float) -> Optional[Answer]:
        """The page a cursor names (None when no pagination defect covers the operation: the
        clean service then rejects the unknown `cursor` argument)."""
        if not any(d.kind == "pagination" and req.op.name in d.operations for d in self.deployment.defects):
            return None
        ref = self._cursors.get(req.cursor)
        if ref is None:
            return Answer.error("cursor_expired", "this cursor is unknown or has expired; start the listing again",
                                {"cursor": req.cursor})
        lid, n = ref
        lst = self._listings[lid]
        p = self.deployment.defects[lst.defect].params
        lost_key = (lst.defect, lst.op, lst.resource)
        if p.lost_cursor_at_page is not None and n + 1 == p.lost_cursor_at_page and lost_key not in self._lost:
            self._lost.add(lost_key)
            for c in [c for c, (l2, _) in self._cursors.items() if l2 == lid]:
                del self._cursors[c]
            return Answer.error("cursor_expired", "this cursor is unknown or has expired; start the listing again",
                                {"cursor": req.cursor})
        return self._page(lid, n)

    # ---- response rewrites -------------------------------------------------------------------
    def _rewrite(self, op: Operation, answer: Answer, hits: list[int], applied: list[str]) -> Answer:
        if not answer.ok or not isinstance(answer.body, dict) or answer.status == 202:
            return answer
        defects = [(i, self.deployment.defects[i]) for i in hits]
        defects = [x for x in defects if x[1].kind in ("response_amount_sign", "response_value_map",
                                                       "response_date_to_datetime")] + \
                  [x for x in defects if x[1].kind == "response_field_rename"]
        if not defects:
            return answer
        nodes = list(self.index.walk(op.name, answer.body))
        for _, d in defects:
            changed = False
            p = d.params
            for record, obj in nodes:
                if d.kind == "response_amount_sign":
                    if record != p.record:
                        continue
                    for f in p.fields or self.index.money_fields(record):
                        v = obj.get(f)
                        if isinstance(v, (int, float)) and not isinstance(v, bool) and v != 0:
                            obj[f] = -v
                            changed = True
                elif d.kind == "response_value_map":
                    if (p.record and record != p.record) or p.field not in obj:
                        continue
                    k = _value_key(obj[p.field])
                    if k in p.map:
                        obj[p.field] = p.map[k]
                        changed = True
                elif d.kind == "response_date_to_datetime":
                    if p.record and record != p.record:
                        continue
                    for f in p.fields or self.index.date_fields({record}):
                        v = obj.get(f)
                        if isinstance(v, str) and len(v) == 10 and self.index.field_is(record, f, "date"):
                            obj[f] = v + "T00:00:00Z"
                            changed = True
                else:
                    if (p.record and record != p.record) or p.from_ not in obj:
                        continue
                    obj[p.to] = obj.pop(p.from_)
                    changed = True
            if changed:
                applied.append(d.kind)
        return answer


def _value_key(v: Any) -> str:
    """A value as the text a value map names it by ("true", "economy", "12.5", "null")."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return "null"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)
