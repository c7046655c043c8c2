"""What the client knows about its production API's defects, and when it admits one.

For each defect of the task's deployment, `brief` renders three things from the declarative
record (kind, operations, activation, parameters), deterministically:

- **behaviour**: what the API actually does ("search_flights answers 429 from the 4th call;
  Retry-After says 1 s but the refusal lasts 3-6 s");
- **disclosure conditions**: what a developer's report must contain before the client
  confirms the defect: it names one of the affected operations (its id, its words or its
  path) and describes the symptom with the kind's evidence (below);
- **expected remediation**: what a correct integration does about it.

Symptom evidence per kind (any one of the terms, case-insensitive, outside identifiers such as
`list_customer_orders` or paths; `+` means both groups):

| kind | the report must mention |
|---|---|
| rate_limit | 429, rate limit, too many requests, throttl... |
| async_completion | 202, status url, pending, asynchronous, job |
| post_commit_timeout | 504, timeout, timed out, gateway + it went through anyway (committed, went through, was created, duplicate, twice, anyway, already) |
| projection_lag | stale, lag, out of date, outdated, not updated, still shows, old value |
| pagination | page, cursor, link header, 410, truncated, missing items, out of/wrong order, reverse, sorted |
| response_field_rename | the field's wrong name, or its right name + missing/renamed/absent |
| response_value_map | the field + one of the mapped values (or "string") |
| response_amount_sign | the record or one of its amount fields + negative/sign/minus |
| response_date_to_datetime | datetime, timestamp, T00:00, midnight, time part |

A report that talks about the API (a status code, "API", "endpoint", an operation) without
meeting any defect's conditions gets no confirmation: the client asks for the operation, what
was sent and what came back.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Optional

API_SIGNAL = re.compile(r"(?<![$\d.,])\b(?:202|410|429|502|503|504)\b(?![\d.,]*\s*(?:%|percent|dollars?|days?|hours?))|"
                        r"\b(?:api|endpoint|http|https|json|header|headers|status code|retry-after|idempotency|"
                        r"cursor|next_cursor)\b|\b[a-z]+_[a-z_]+\b", re.I)

_SYMPTOMS: dict[str, tuple[str, ...]] = {
    "rate_limit": ("429", "rate limit", "rate-limit", "ratelimit", "too many requests", "throttl"),
    "async_completion": ("202", "status url", "status_url", "pending", "asynchron", "job"),
    "post_commit_timeout": ("504", "timeout", "timed out", "time out", "gateway"),
    "projection_lag": ("stale", "lag", "out of date", "outdated", "not updated", "still show", "old value",
                       "old data", "not reflect"),
    "pagination": ("page", "cursor", "link header", "410", "truncat", "missing item", "missing record",
                   "out of order", "wrong order", "reverse", "sorted"),
    "response_date_to_datetime": ("datetime", "date-time", "timestamp", "t00:00", "midnight", "time part"),
}
_IDENT = re.compile(r"\b[a-z0-9]+_[a-z0-9_]+\b|/[\w/{}-]+")
_COMMITTED = ("committed", "went through", "was created", "was applied", "got created", "got applied",
              "duplicate", "twice", "anyway", "already", "did happen", "actually happened")
_RENAME_WORDS = ("missing", "renamed", "absent", "not there", "no longer", "different name", "instead")
_SIGN_WORDS = ("negative", "sign", "minus")


@dataclass(frozen=True)
class DefectBrief:
    index: int
    kind: str
    operations: tuple[str, ...]
    behaviour: str
    disclosure: str
    remediation: str
    params: dict

    def met_by(self, message: str, paths: Optional[dict[str, str]] = None) -> bool:
        """Whether a developer's report meets this defect's disclosure conditions."""
        low = message.lower()
        if not _names_operation(low, self.operations, paths or {}):
            return False
        raw, low = low, _IDENT.sub(" ", low)  # symptoms are read outside identifiers ("list_customer_orders")
        p = self.params
        if self.kind in _SYMPTOMS and not _any(low, _SYMPTOMS[self.kind]):
            return False
        if self.kind == "post_commit_timeout":
            return _any(low, _COMMITTED)
        if self.kind == "response_field_rename":
            return names(raw, p["to"]) or (names(raw, p["from"]) and _any(low, _RENAME_WORDS))
        if self.kind == "response_value_map":
            mapped = [str(v).lower() for v in p["map"].values()]
            return names(raw, p["field"]) and (any(names(low, m) for m in mapped) or "string" in low)
        if self.kind == "response_amount_sign":
            named = [p["record"], *p.get("fields", [])]
            return any(names(raw, n.lower()) for n in named) and _any(low, _SIGN_WORDS)
        return True


def _any(low: str, needles: tuple[str, ...]) -> bool:
    return any(n in low for n in needles)


def names(low: str, name: str) -> bool:
    """Whether a lower-cased text names `name` (an identifier, or its words: "start_rental" or
    "start rental"), as a word of its own."""
    n = str(name).lower()
    variants = {n, n.replace("_", " ")}
    return any(re.search(r"(?<![a-z0-9_])" + re.escape(v) + r"(?![a-z0-9_])", low) for v in variants)


def _names_operation(low: str, ops: tuple[str, ...], paths: dict[str, str]) -> bool:
    for op in ops:
        if names(low, op):
            return True
        path = paths.get(op)
        if path:
            literal = path.split("{")[0].rstrip("/")
            if literal and literal.lower() in low:
                return True
    return False


def _ops(ops: tuple[str, ...]) -> str:
    return ", ".join(ops)


def _activation(act: dict) -> str:
    parts = []
    if act.get("ordinals"):
        parts.append("on call " + ", ".join(str(n) for n in act["ordinals"]))
    elif act.get("from_ordinal"):
        parts.append(f"from call {act['from_ordinal']} on")
    if act.get("resources"):
        parts.append("for " + ", ".join(act["resources"]))
    if act.get("per_resource"):
        parts.append("(counting calls per record)")
    return (" " + " ".join(parts)) if parts else ""


def _span(p: dict) -> str:
    lo, hi = p.get("min_delay_s", 0), p.get("max_delay_s", 0)
    return f"{lo:g} s" if lo == hi else f"{lo:g}-{hi:g} s"


def _behaviour(kind: str, ops: tuple[str, ...], p: dict, act: dict) -> str:
    o, a = _ops(ops), _activation(act)
    if kind == "rate_limit":
        return (f"{o} answer 429 Too Many Requests{a}; Retry-After says {p['retry_after_s']} s but the refusal "
                f"lasts {_span(p)}")
    if kind == "async_completion":
        return f"{o} answer 202 with a status URL{a}; the change completes {_span(p)} later"
    if kind == "post_commit_timeout":
        return f"{o} answer 504{a} although the change was made"
    if kind == "projection_lag":
        return f"{o} serve data up to {_span(p)} old right after a write"
    if kind == "pagination":
        bits = [f"{o} return {p['page_size']} items per page with a cursor"]
        if p.get("truncate"):
            bits.append("the next page is only in the Link header")
        if p.get("lost_cursor_at_page"):
            bits.append(f"the cursor to page {p['lost_cursor_at_page']} expires once (410)")
        if p.get("order") == "reverse":
            bits.append("items come in reverse order")
        if p.get("limit_before_sort"):
            bits.append("each page is sorted on its own, not the whole list")
        return "; ".join(bits)
    if kind == "response_field_rename":
        rec = f" of {p['record']}" if p.get("record") else ""
        return f"{o} return the field {p['from']}{rec} as {p['to']}{a}"
    if kind == "response_value_map":
        pairs = ", ".join(f"{k} as {v!r}" for k, v in p["map"].items())
        return f"{o} send {p['field']} values {pairs}{a}"
    if kind == "response_amount_sign":
        fields = ", ".join(p.get("fields") or []) or "amounts"
        return f"{o} return {fields} of {p['record']} with the opposite sign{a}"
    if kind == "response_date_to_datetime":
        return f"{o} return dates as UTC-midnight datetimes{a}"
    raise ValueError(kind)


def _disclosure(kind: str, p: dict) -> str:
    need = "the report names the operation and "
    return need + {
        "rate_limit": "mentions the 429 or rate limiting",
        "async_completion": "mentions the 202, the status URL or that the change is pending",
        "post_commit_timeout": "mentions the 504 or timeout and that the change went through anyway",
        "projection_lag": "says a read right after a write was stale",
        "pagination": "mentions pages, cursors, missing items or the order of items",
        "response_field_rename": f"names the field {p.get('to')!r} (or {p.get('from')!r} as missing or renamed)",
        "response_value_map": f"names the field {p.get('field')!r} and the value it came back as",
        "response_amount_sign": f"names {p.get('record')!r} or its amount and says the sign is wrong",
        "response_date_to_datetime": "says a date came back as a datetime or timestamp",
    }[kind]


def _remediation(kind: str, p: dict) -> str:
    if kind == "rate_limit":
        return ("on 429 wait at least Retry-After and keep increasing the wait while it still refuses; the advertised "
                "value can be too short")
    if kind == "async_completion":
        return "treat 202 as accepted, not done: poll the status URL, waiting Retry-After, and never resend the write"
    if kind == "post_commit_timeout":
        return "send an Idempotency-Key with every write and retry a 504 with the same key; it never writes twice"
    if kind == "projection_lag":
        return "trust the write's own answer; if you must re-read, wait and read again until the change shows"
    if kind == "pagination":
        tail = f" and sort by {', '.join(p['sort_by'])} yourself" if p.get("sort_by") else ""
        return ("follow next_cursor or the Link rel=next header to the last page, restart the listing when a cursor "
                "expires" + tail)
    if kind == "response_field_rename":
        return f"read {p['to']} as {p['from']}"
    if kind == "response_value_map":
        return f"map the values back ({', '.join(f'{v!r} means {k}' for k, v in p['map'].items())})"
    if kind == "response_amount_sign":
        return f"take {p['record']} amounts as positive"
    if kind == "response_date_to_datetime":
        return "take the date part of the datetime"
    raise ValueError(kind)


def brief(deployment: Any) -> list[DefectBrief]:
    """The client's knowledge of a deployment (an `outputs.api.deployment.Deployment`, or its
    TOML parsed into a dict); [] for the clean deployment."""
    data = deployment.model_dump(mode="json", by_alias=True) if hasattr(deployment, "model_dump") else \
        dict(deployment or {})
    out = []
    for i, d in enumerate(data.get("defects", [])):
        ops = tuple(d["operations"])
        p, act = dict(d.get("params") or {}), dict(d.get("activation") or {})
        out.append(DefectBrief(i, d["kind"], ops, _behaviour(d["kind"], ops, p, act), _disclosure(d["kind"], p),
                               _remediation(d["kind"], p), p))
    return out


def about_api(message: str, briefs: list[DefectBrief]) -> bool:
    """Whether a message is a report about the API (rather than a question about a rule)."""
    low = message.lower()
    if API_SIGNAL.search(message):
        return True
    return any(_names_operation(low, b.operations, {}) for b in briefs)
