"""The reference client: calls a production API the way a careful integrator would, coping
with every defect kind a deployment can have. The evaluator's oracle agent uses it; it is
standard library only (plus `contract.py` beside it) so it can ship beside the kit SDK.

It wraps any transport shaped like the kit SDK's `ApiClient` (`call(op, args, headers)`
returning a dict with `.status`/`.headers`, raising an error with `.status`, `.code` and
`.headers`; `request(method, url)`; `wait(seconds)`), and the API's OpenAPI document:

- **writes** carry an `Idempotency-Key` (deterministic per client and call); a 504, 502, 503
  or a transport failure is retried with the same key, so a write that committed before the
  timeout is never made twice;
- **429**: waits the advertised Retry-After, and keeps doubling the wait while the API
  still refuses (the advertised value may understate the real delay);
- **202** with a status URL (`Location` or `status_url`): polls it, waiting Retry-After
  between polls, until the operation's own answer arrives;
- **pages**: follows `next_cursor` in the body or a `Link: <...>; rel="next"` header,
  restarts a listing whose cursor is lost (410), removes duplicates and, given the sort
  fields, restores the canonical order;
- **answers are normalised to the contract**: an object of a known record type with one
  unknown field and one missing field gets the field back under its name; booleans sent as
  yes/no, Y/N, 1/0 become booleans; an enumeration's mapped value is mapped back (given the
  deployment); a datetime in a date field becomes the date; a negative amount in a field
  the contract says is non-negative is made positive (and, given the deployment, an amount
  whose sign is flipped on every call is flipped back);
- **projection lag**: after a write, a read that returns one of the written records with
  different values than the write answered is stale: wait and read again (doubling, up to
  `max_wait_s`); given the deployment, reads of a lagging operation after a write first
  wait the lag's maximum.

`deployment` (optional) is the deployment as plain data (the TOML parsed, as in the sealed
part): the oracle has it, an agent does not; without it the client still copes with
everything it can observe.
"""
from __future__ import annotations

import hashlib
import json
import re
import time
from typing import Any, Callable, Optional

from .contract import SchemaIndex

RETRYABLE = (0, 502, 503, 504)
TRUE_WORDS = {"yes", "y", "true", "t", "1", "on"}
FALSE_WORDS = {"no", "n", "false", "f", "0", "off"}
_LINK_NEXT = re.compile(r'<([^>]+)>\s*;\s*rel="?next"?')
_DATETIME = re.compile(r"^(\d{4}-\d{2}-\d{2})T")


class ReferenceClient:
    def __init__(self, transport: Any, openapi: dict, *, deployment: Optional[dict] = None,
                 wait: Optional[Callable[[float], None]] = None, max_attempts: int = 12, max_wait_s: float = 120.0):
        self.t = transport
        self.index = SchemaIndex(openapi)
        self.deployment = deployment or {}
        self.wait = wait or getattr(transport, "wait", None) or time.sleep
        self.max_attempts, self.max_wait_s = max_attempts, max_wait_s
        self.waited = 0.0
        self._n = 0
        self._written: dict[tuple, dict] = {}
        self._lag_pending = False

    # ---- the one entry point -------------------------------------------------------------
    def call(self, operation: str, args: Optional[dict] = None) -> dict:
        """The operation's answer as the clean contract describes it; raises the transport's
        error for a real failure (a 4xx of the operation itself, or retries exhausted)."""
        args = dict(args or {})
        self._n += 1
        kind = self.index.kind(operation)
        if kind == "write":
            key = "ref-" + hashlib.sha256(json.dumps([self._n, operation, args], sort_keys=True,
                                                     default=str).encode()).hexdigest()[:24]
            body = self._send(operation, args, {"Idempotency-Key": key})
            body = self._normalise(operation, body)
            self._remember(operation, body)
            self._lag_pending = True
            return body
        lag = self._lag_wait(operation)
        if self._lag_pending and lag:
            self._do_wait(lag)
            self._lag_pending = False
        delay = 0.5
        for _ in range(self.max_attempts):
            body = self._normalise(operation, self._read(operation, args))
            if not self._stale(operation, body):
                return body
            self._do_wait(delay)
            delay = min(delay * 2, 16.0)
        return body

    # ---- transport with retries -------------------------------------------------------------
    def _do_wait(self, seconds: float) -> None:
        self.waited += seconds
        self.wait(seconds)

    def _send(self, operation: str, args: dict, headers: dict, cursor: Optional[str] = None) -> Any:
        backoff = None
        for attempt in range(self.max_attempts):
            try:
                a = dict(args)
                if cursor is not None:
                    a["cursor"] = cursor
                resp = self.t.call(operation, a, headers)
            except Exception as e:  # noqa: BLE001 - the transport's ApiError (any SDK)
                status = getattr(e, "status", None)
                if status is None:
                    raise
                if status == 429:
                    hint = _seconds(getattr(e, "headers", {}).get("Retry-After")) or 1.0
                    backoff = hint if backoff is None else max(hint, backoff * 2)
                    self._do_wait(min(backoff, self.max_wait_s))
                    continue
                if status in RETRYABLE and attempt + 1 < self.max_attempts:
                    self._do_wait(min(0.5 * 2 ** attempt, 8.0))
                    continue
                raise
            if getattr(resp, "status", 200) == 202:
                return self._poll(resp)
            return resp
        raise RuntimeError(f"{operation}: gave up after {self.max_attempts} attempts")

    def _poll(self, resp: Any) -> Any:
        headers = getattr(resp, "headers", {}) or {}
        url = headers.get("Location") or resp.get("status_url")
        for _ in range(self.max_attempts * 4):
            self._do_wait(_seconds(headers.get("Retry-After")) or 1.0)
            resp = self.t.request("GET", url)
            if getattr(resp, "status", 200) != 202:
                return resp
            headers = getattr(resp, "headers", {}) or {}
        raise RuntimeError(f"the job at {url} never completed")

    # ---- reads: pages ------------------------------------------------------------------------------
    def _read(self, operation: str, args: dict) -> dict:
        coll = self.index.collection(operation)
        for _restart in range(4):
            try:
                return self._listing(operation, args, coll)
            except Exception as e:  # noqa: BLE001
                if getattr(e, "status", None) == 410:
                    continue
                raise
        raise RuntimeError(f"{operation}: the listing's cursor kept getting lost")

    def _listing(self, operation: str, args: dict, coll: Optional[str]) -> dict:
        first = self._send(operation, args, {})
        body = dict(first)
        nxt = self._next(first)
        if not coll or nxt is None:
            body.pop("next_cursor", None)
            return self._order(operation, body, coll)
        items = list(body.get(coll) or [])
        seen = {json.dumps(x, sort_keys=True) for x in items}
        for _ in range(10_000):
            page = self._send(operation, args, {}, cursor=nxt)
            for x in page.get(coll) or []:
                k = json.dumps(x, sort_keys=True)
                if k not in seen:
                    seen.add(k)
                    items.append(x)
            nxt = self._next(page)
            if nxt is None:
                break
        body[coll] = items
        body.pop("next_cursor", None)
        return self._order(operation, body, coll)

    @staticmethod
    def _next(resp: Any) -> Optional[str]:
        if isinstance(resp, dict) and resp.get("next_cursor"):
            return str(resp["next_cursor"])
        link = (getattr(resp, "headers", {}) or {}).get("Link")
        m = _LINK_NEXT.search(link or "")
        if m:
            q = dict(p.split("=", 1) for p in m.group(1).split("?", 1)[-1].split("&") if "=" in p)
            return q.get("cursor")
        return None

    def _order(self, operation: str, body: dict, coll: Optional[str]) -> dict:
        if not coll:
            return body
        for d in self._defects("pagination", operation):
            keys = (d.get("params") or {}).get("sort_by") or []
            if keys and isinstance(body.get(coll), list):
                body[coll] = sorted(body[coll], key=lambda x: tuple(_sortable(x.get(k)) for k in keys))
        return body

    # ---- normalising answers ---------------------------------------------------------------------
    def _defects(self, kind: str, operation: str) -> list[dict]:
        return [d for d in self.deployment.get("defects", []) if d.get("kind") == kind
                and operation in d.get("operations", [])]

    def _normalise(self, operation: str, body: Any) -> dict:
        body = dict(body) if isinstance(body, dict) else {"result": body}
        body.pop("next_cursor", None)
        renames = {(d["params"].get("record"), d["params"]["to"]): d["params"]["from"]
                   for d in self._defects("response_field_rename", operation)}
        maps = [d["params"] for d in self._defects("response_value_map", operation)]
        signs = [d["params"] for d in self._defects("response_amount_sign", operation)
                 if _unconditional(d.get("activation") or {})]
        for record, obj in list(self.index.walk(operation, body)):
            props = self.index.properties(record)
            for (rec, to), frm in renames.items():
                if (rec in (None, record)) and to in obj and frm not in obj and frm in props:
                    obj[frm] = obj.pop(to)
            unknown = [k for k in obj if k not in props]
            missing = [k for k in props if k not in obj]
            if len(unknown) == 1 and len(missing) == 1:
                obj[missing[0]] = obj.pop(unknown[0])
            for p in maps:
                f = p["field"]
                if p.get("record") in (None, record) and f in obj:
                    inverse = {json.dumps(v): k for k, v in p["map"].items()}
                    k = json.dumps(obj[f])
                    if k in inverse and not self._valid(record, f, obj[f]):
                        obj[f] = _from_text(inverse[k], record, f, self.index)
            for p in signs:
                if p.get("record") == record:
                    for f in p.get("fields") or self.index.money_fields(record):
                        if isinstance(obj.get(f), (int, float)) and not isinstance(obj.get(f), bool):
                            obj[f] = -obj[f] + 0
            for f, v in list(obj.items()):
                if f not in props:
                    continue
                if self.index.field_is(record, f, "boolean") and isinstance(v, str):
                    if v.strip().lower() in TRUE_WORDS:
                        obj[f] = True
                    elif v.strip().lower() in FALSE_WORDS:
                        obj[f] = False
                elif self.index.field_is(record, f, "date") and isinstance(v, str) and _DATETIME.match(v):
                    obj[f] = v[:10]
                elif self.index.field_is(record, f, "money") and isinstance(v, (int, float)) \
                        and not isinstance(v, bool) and v < 0 and self.index.non_negative(record, f):
                    obj[f] = -v
        return body

    def _valid(self, record: str, field: str, value: Any) -> bool:
        enum = self.index.enum(record, field)
        if enum is not None:
            return value in enum
        if self.index.field_is(record, field, "boolean"):
            return isinstance(value, bool)
        return False

    # ---- projection lag ------------------------------------------------------------------------------
    def _lag_wait(self, operation: str) -> float:
        return max([float((d.get("params") or {}).get("max_delay_s", 0))
                    for d in self._defects("projection_lag", operation)] or [0.0])

    def _identity(self, record: str, obj: dict) -> Optional[tuple]:
        props = list(self.index.properties(record))
        if props and props[0].endswith("id") and isinstance(obj.get(props[0]), (str, int)):
            return (record, obj[props[0]])
        return None

    def _remember(self, operation: str, body: dict) -> None:
        for record, obj in self.index.walk(operation, body):
            ident = self._identity(record, obj)
            if ident is not None:
                self._written[ident] = {k: v for k, v in obj.items() if not isinstance(v, (dict, list))}

    def _stale(self, operation: str, body: dict) -> bool:
        if not self._written:
            return False
        for record, obj in self.index.walk(operation, body):
            ident = self._identity(record, obj)
            w = self._written.get(ident) if ident else None
            if w and any(k in obj and obj[k] != v for k, v in w.items()):
                return True
        return False


def _unconditional(act: dict) -> bool:
    return not (act.get("ordinals") or act.get("from_ordinal") or act.get("resources"))


def _seconds(v: Any) -> Optional[float]:
    try:
        return max(0.0, float(v))
    except (TypeError, ValueError):
        return None


def _sortable(v: Any) -> tuple:
    return (v is None, isinstance(v, str), v if v is not None else 0)


def _from_text(text: str, record: str, field: str, index: SchemaIndex) -> Any:
    """The original value a value map names by its text ("true" -> True, "12" -> 12)."""
    if index.field_is(record, field, "boolean"):
        return text == "true"
    if index.field_is(record, field, "number"):
        try:
            n = float(text)
            return int(n) if n.is_integer() else n
        except ValueError:
            return text
    return None if text == "null" else text
