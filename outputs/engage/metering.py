"""What a provider's answer says it used, and what that costs.

Token counts are read as the provider reported them, from a JSON answer or from the events of
a streamed one:

| wire | answer | streamed (server-sent events) |
|---|---|---|
| Anthropic Messages | `usage.input_tokens`, `output_tokens`, `cache_read_input_tokens`, `cache_creation_input_tokens` | `message_start`'s `message.usage`, then each `message_delta`'s `usage` (cumulative: the last value wins) |
| OpenAI Responses | `usage.input_tokens` (cached ones included, `input_tokens_details.cached_tokens`), `output_tokens` | the `usage` of `response.completed` (or `.incomplete`, `.failed`) |
| OpenAI Chat Completions | `usage.prompt_tokens` (`prompt_tokens_details.cached_tokens`), `completion_tokens` | the chunk carrying `usage` (sent when `stream_options.include_usage` is set) |

Cost in US dollars comes from litellm's price map, read from the file litellm ships
(`model_prices_and_context_window_backup.json`, the map `LITELLM_LOCAL_MODEL_COST_MAP=True`
loads) without importing litellm or touching the network: uncached input x
`input_cost_per_token` + cache reads x `cache_read_input_token_cost` + cache writes x
`cache_creation_input_token_cost` + output x `output_cost_per_token` (a cache rate the map lacks
falls back to the input rate). A model the map does not know has no cost (`None`), never zero.
"""
from __future__ import annotations

import importlib.util
import json
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

PRICE_FILE = "model_prices_and_context_window_backup.json"


@dataclass
class Usage:
    """Token counts of one call, as the provider reported them (`None` when it did not)."""
    input_tokens: Optional[int] = None   # Anthropic's excludes cache reads and writes, OpenAI's includes them
    output_tokens: Optional[int] = None
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0

    @property
    def reported(self) -> bool:
        return self.input_tokens is not None and self.output_tokens is not None


def _int(x: Any) -> Optional[int]:
    return x if isinstance(x, int) and not isinstance(x, bool) and x >= 0 else None


def _anthropic_usage(u: Any, into: Usage) -> None:
    if not isinstance(u, dict):
        return
    for key, attr in (("input_tokens", "input_tokens"), ("output_tokens", "output_tokens"),
                      ("cache_read_input_tokens", "cache_read_tokens"),
                      ("cache_creation_input_tokens", "cache_write_tokens")):
        v = _int(u.get(key))
        if v is not None:
            setattr(into, attr, v)


def _openai_usage(u: Any, into: Usage, inp: str, out: str, details: str) -> None:
    if not isinstance(u, dict):
        return
    i, o = _int(u.get(inp)), _int(u.get(out))
    if i is not None and o is not None:
        into.input_tokens, into.output_tokens = i, o
        d = u.get(details)
        into.cache_read_tokens = (_int(d.get("cached_tokens")) or 0) if isinstance(d, dict) else 0


def usage_of_answer(wire: str, data: Any) -> Usage:
    """The usage of a whole JSON answer of `wire` ("messages", "responses" or "chat")."""
    u = Usage()
    if isinstance(data, dict):
        if wire == "messages":
            _anthropic_usage(data.get("usage"), u)
        elif wire == "responses":
            _openai_usage(data.get("usage"), u, "input_tokens", "output_tokens", "input_tokens_details")
        elif wire == "chat":
            _openai_usage(data.get("usage"), u, "prompt_tokens", "completion_tokens", "prompt_tokens_details")
    return u


def add_event(wire: str, data: Any, into: Usage) -> Optional[str]:
    """Fold one streamed event's JSON into `into`; returns the model the event names, if any."""
    if not isinstance(data, dict):
        return None
    kind = data.get("type")
    if wire == "messages":
        if kind == "message_start" and isinstance(data.get("message"), dict):
            _anthropic_usage(data["message"].get("usage"), into)
            return data["message"].get("model")
        if kind == "message_delta":
            _anthropic_usage(data.get("usage"), into)
    elif wire == "responses":
        if kind in ("response.completed", "response.incomplete", "response.failed") \
                and isinstance(data.get("response"), dict):
            _openai_usage(data["response"].get("usage"), into, "input_tokens", "output_tokens", "input_tokens_details")
            return data["response"].get("model")
    elif wire == "chat":
        _openai_usage(data.get("usage"), into, "prompt_tokens", "completion_tokens", "prompt_tokens_details")
        return data.get("model")
    return None


class EventStream:
    """Server-sent events parsed incrementally from the bytes of a streamed answer, folding each
    event's usage into `usage` (the bytes themselves are passed on untouched by the caller)."""

    LINE_LIMIT = 16 << 20   # one event's data larger than this is skipped, not buffered

    def __init__(self, wire: str):
        self.wire = wire
        self.usage = Usage()
        self.model: Optional[str] = None
        self.events = 0
        self._buf = b""
        self._data: list[bytes] = []

    def feed(self, chunk: bytes) -> None:
        self._buf += chunk
        while True:
            nl = self._buf.find(b"\n")
            if nl < 0:
                if len(self._buf) > self.LINE_LIMIT:
                    self._buf, self._data = b"", []
                return
            line, self._buf = self._buf[:nl].rstrip(b"\r"), self._buf[nl + 1:]
            self._line(line)

    def close(self) -> None:
        if self._buf:
            self._line(self._buf.rstrip(b"\r"))
            self._buf = b""
        self._line(b"")

    def _line(self, line: bytes) -> None:
        if line.startswith(b"data:"):
            self._data.append(line[5:].lstrip(b" "))
        elif not line and self._data:
            payload, self._data = b"\n".join(self._data), []
            self.events += 1
            if payload.strip() == b"[DONE]":
                return
            try:
                data = json.loads(payload)
            except (ValueError, RecursionError):
                return
            model = add_event(self.wire, data, self.usage)
            if isinstance(model, str) and model:
                self.model = model


class PriceMap:
    """litellm's price map, read once (lazily, in a thread-safe way) from the file it ships."""

    def __init__(self, path: Optional[Path] = None):
        self._path = path
        self._table: Optional[dict] = None
        self._lock = threading.Lock()

    def table(self) -> dict:
        with self._lock:
            if self._table is None:
                self._table = self._load()
            return self._table

    def _load(self) -> dict:
        path = self._path
        if path is None:
            spec = importlib.util.find_spec("litellm")
            roots = list(spec.submodule_search_locations or []) if spec else []
            found = [Path(r) / PRICE_FILE for r in roots if (Path(r) / PRICE_FILE).is_file()]
            path = found[0] if found else None
        if path is not None:
            data = json.loads(path.read_text(encoding="utf-8"))
            return data if isinstance(data, dict) else {}
        from facts.llm import litellm_module  # noqa: PLC0415  (deferred: pydantic, only without litellm's price file)
        return dict(litellm_module().model_cost)

    def rates(self, provider: str, model: str) -> Optional[dict]:
        t = self.table()
        for key in (model, f"{provider}/{model}"):
            entry = t.get(key)
            if isinstance(entry, dict) and isinstance(entry.get("input_cost_per_token"), (int, float)) \
                    and isinstance(entry.get("output_cost_per_token"), (int, float)):
                return entry
        return None

    def cost(self, provider: str, wire: str, model: str, u: Usage) -> Optional[float]:
        """US dollars for `u`, or None when the model is not priced or the usage not reported."""
        r = self.rates(provider, model) if isinstance(model, str) else None
        if r is None or not u.reported:
            return None
        inp, out = r["input_cost_per_token"], r["output_cost_per_token"]
        read = r.get("cache_read_input_token_cost", inp)
        write = r.get("cache_creation_input_token_cost", inp)
        uncached = u.input_tokens if wire == "messages" else max(0, u.input_tokens - u.cache_read_tokens)
        total = uncached * inp + u.output_tokens * out + u.cache_read_tokens * read + u.cache_write_tokens * write
        return round(total, 10)
