"""A coding agent's trajectory in one format: Harbor's Agent Trajectory Interchange Format (ATIF).

Each adapter's program leaves its own record in the developer's output folder; `read` turns it
into an ATIF-v1.4 document, written with the engagement as `trajectory.json`:

```json
{"schema_version": "ATIF-v1.4", "session_id": "...",
 "agent": {"name": "claude-code", "version": "2.1.197", "model_name": "claude-sonnet-4-5"},
 "steps": [{"step_id": 1, "source": "user", "message": "the instruction"},
           {"step_id": 2, "source": "agent", "message": "...", "reasoning_content": "...",
            "tool_calls": [{"tool_call_id": "...", "function_name": "...", "arguments": {...}}],
            "observation": {"results": [{"source_call_id": "...", "content": "..."}]},
            "metrics": {"prompt_tokens": 0, "completion_tokens": 0, "cached_tokens": 0}}],
 "final_metrics": {"total_prompt_tokens": 0, "total_completion_tokens": 0, "total_cached_tokens": 0,
                   "total_cost_usd": 0.0, "total_steps": 0, "extra": {"model_calls": 0}},
 "notes": "...", "extra": {"source": "developer/claude.jsonl", "format": "claude-stream-json"}}
```

| format | the program's record | an agent step is |
|---|---|---|
| `claude-stream-json` | Claude Code's `--output-format stream-json` events | one `assistant` message (blocks of one message id joined), its `tool_use` blocks answered by the next `user` message's `tool_result`s |
| `codex-exec-json` | `codex exec --json` events | one completed item: `agent_message`, `reasoning` (kept as the next step's reasoning), `mcp_tool_call`, `command_execution`, `file_change` |
| `opencode-json` | `opencode run --format json` events | one `text` or `tool_use` part (a tool part carries its input and output) |
| `mini-swe-agent` | mini-swe-agent's trajectory file (`-o`) | one `assistant` message, its `actions` answered by the `tool` messages with their ids |

`final_metrics` are the engagement's metering of the developer's model traffic (what the
provider reported through the proxy), not the program's own account. When the program's agent
steps are exactly its metered model calls (one answer per call, as Claude Code's messages and
mini-swe-agent's turns are), each step's `metrics` are its call's metered tokens and cost, in
order; otherwise they are what the program's record says, where it says anything. The program's record is hostile input: it is read as a regular
file of at most `SOURCE_LIMIT` bytes, a line or a field that is not what its format says is
skipped, and every text is clipped to `TEXT_LIMIT` characters.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Optional

from .prepare import read_regular

SCHEMA_VERSION = "ATIF-v1.4"
SOURCE_LIMIT = 64 << 20
TEXT_LIMIT = 20_000
MAX_STEPS = 5_000


def clip(x: Any) -> str:
    s = x if isinstance(x, str) else json.dumps(x, sort_keys=True, default=str)
    return s if len(s) <= TEXT_LIMIT else s[:TEXT_LIMIT] + f"... [{len(s) - TEXT_LIMIT} more characters]"


def _args(x: Any) -> dict:
    if isinstance(x, str):
        try:
            x = json.loads(x)
        except ValueError:
            return {"input": clip(x)}
    return x if isinstance(x, dict) else {"input": x}


def _int(x: Any) -> Optional[int]:
    return x if isinstance(x, int) and not isinstance(x, bool) and x >= 0 else None


def _text_of(content: Any) -> str:
    """The text of a message's content: a string, or the `text` of its blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(b["text"] for b in content if isinstance(b, dict) and isinstance(b.get("text"), str))
    return ""


class Steps:
    """ATIF steps as they are read: `agent` opens a step, `result` answers a call of any step."""

    def __init__(self):
        self.steps: list[dict] = []
        self.calls: dict[str, dict] = {}

    def user(self, message: str) -> None:
        self._add({"source": "user", "message": clip(message)})

    def agent(self, message: str = "", *, reasoning: str = "", calls: Optional[list[dict]] = None,
              metrics: Optional[dict] = None, model: Optional[str] = None) -> Optional[dict]:
        prev = self.steps[-1] if self.steps else None
        if calls and not message and prev is not None and prev["source"] == "agent" \
                and "tool_calls" not in prev and "observation" not in prev:
            # the calls of the answer whose text the program reported as its own event
            step = prev
            _extend(self, step, "", reasoning, calls)
            if metrics and "metrics" not in step:
                step["metrics"] = {k: v for k, v in metrics.items() if v is not None}
            return step
        step: dict[str, Any] = {"source": "agent", "message": clip(message)}
        if model:
            step["model_name"] = str(model)
        if reasoning:
            step["reasoning_content"] = clip(reasoning)
        if calls:
            step["tool_calls"] = [{"tool_call_id": str(c["id"]), "function_name": str(c["name"]),
                                   "arguments": _args(c.get("arguments"))} for c in calls]
        if metrics:
            step["metrics"] = {k: v for k, v in metrics.items() if v is not None}
        return self._add(step)

    def result(self, call_id: Optional[str], content: Any, step: Optional[dict] = None) -> None:
        step = step or self.calls.get(str(call_id)) or (self.steps[-1] if self.steps else None)
        if step is None:
            return
        res = {"content": clip(content)}
        if call_id is not None:
            res["source_call_id"] = str(call_id)
        step.setdefault("observation", {"results": []})["results"].append(res)

    def _add(self, step: dict) -> Optional[dict]:
        if len(self.steps) >= MAX_STEPS:
            return None
        step = {"step_id": len(self.steps) + 1, **step}
        self.steps.append(step)
        for c in step.get("tool_calls", []):
            self.calls[c["tool_call_id"]] = step
        return step


def _json_lines(raw: bytes):
    for line in raw.decode("utf-8", "replace").splitlines():
        line = line.strip()
        if line.startswith("{"):
            try:
                ev = json.loads(line)
            except (ValueError, RecursionError):
                continue
            if isinstance(ev, dict):
                yield ev


# ---- the programs' records ----------------------------------------------------------------------
def from_claude(raw: bytes, s: Steps) -> dict:
    """Claude Code's stream-json: `system` init, `assistant` and `user` messages, `result`."""
    meta: dict[str, Any] = {}
    by_id: dict[str, dict] = {}
    for ev in _json_lines(raw):
        kind, msg = ev.get("type"), ev.get("message")
        if kind == "system" and ev.get("subtype") == "init":
            meta["session_id"] = ev.get("session_id")
            meta["mcp_servers"] = ev.get("mcp_servers")
            meta["tools"] = len(ev.get("tools") or [])
        elif kind == "assistant" and isinstance(msg, dict):
            blocks = [b for b in msg.get("content") or [] if isinstance(b, dict)]
            text = "\n".join(b.get("text", "") for b in blocks if b.get("type") == "text")
            thinking = "\n".join(str(b.get("thinking", "")) for b in blocks if b.get("type") == "thinking")
            calls = [{"id": b.get("id"), "name": b.get("name"), "arguments": b.get("input")}
                     for b in blocks if b.get("type") == "tool_use"]
            u = msg.get("usage") if isinstance(msg.get("usage"), dict) else {}
            step = by_id.get(str(msg.get("id")))
            if step is None:
                metrics = {"prompt_tokens": _sum(u, "input_tokens", "cache_read_input_tokens",
                                                 "cache_creation_input_tokens"),
                           "completion_tokens": _int(u.get("output_tokens")),
                           "cached_tokens": _int(u.get("cache_read_input_tokens"))}
                step = s.agent(text, reasoning=thinking, calls=calls, metrics=metrics, model=msg.get("model"))
                if step is not None and msg.get("id"):
                    by_id[str(msg["id"])] = step
            else:
                _extend(s, step, text, thinking, calls)
        elif kind == "user" and isinstance(msg, dict):
            for b in msg.get("content") or []:
                if isinstance(b, dict) and b.get("type") == "tool_result":
                    s.result(b.get("tool_use_id"), _text_of(b.get("content")) or b.get("content") or "")
        elif kind == "result":
            meta.update(result=ev.get("subtype"), num_turns=ev.get("num_turns"),
                        program_cost_usd=ev.get("total_cost_usd"), is_error=ev.get("is_error"))
    return meta


def _sum(u: dict, *keys: str) -> Optional[int]:
    vals = [_int(u.get(k)) for k in keys]
    return None if vals[0] is None else sum(v or 0 for v in vals)


def _extend(s: Steps, step: dict, text: str, thinking: str, calls: list[dict]) -> None:
    if text:
        step["message"] = clip((step["message"] + "\n" + text).strip())
    if thinking:
        step["reasoning_content"] = clip((step.get("reasoning_content", "") + "\n" + thinking).strip())
    for c in calls:
        tc = {"tool_call_id": str(c["id"]), "function_name": str(c["name"]), "arguments": _args(c.get("arguments"))}
        step.setdefault("tool_calls", []).append(tc)
        s.calls[tc["tool_call_id"]] = step


def from_codex(raw: bytes, s: Steps) -> dict:
    """`codex exec --json`: `thread.started`, `item.completed` items, `turn.completed` usage."""
    meta: dict[str, Any] = {"turns": 0}
    reasoning = ""
    for ev in _json_lines(raw):
        kind, item = ev.get("type"), ev.get("item")
        if kind == "thread.started":
            meta["session_id"] = ev.get("thread_id")
        elif kind == "turn.completed":
            meta["turns"] += 1
        elif kind == "turn.failed" or kind == "error":
            meta["error"] = clip(ev.get("error") or ev.get("message") or "")
        elif kind == "item.completed" and isinstance(item, dict):
            t = item.get("type") or item.get("item_type")
            iid = str(item.get("id", f"item_{len(s.steps)}"))
            if t == "reasoning":
                reasoning = (reasoning + "\n" + str(item.get("text", ""))).strip()
                continue
            if t == "agent_message":
                s.agent(str(item.get("text", "")), reasoning=reasoning)
            elif t == "mcp_tool_call":
                step = s.agent(reasoning=reasoning, calls=[{"id": iid, "name": f"{item.get('server')}.{item.get('tool')}",
                                                            "arguments": item.get("arguments")}])
                res = item.get("result")
                out = _text_of(res.get("content")) if isinstance(res, dict) else ""
                s.result(iid, out or item.get("error") or res or "", step)
            elif t == "command_execution":
                step = s.agent(reasoning=reasoning, calls=[{"id": iid, "name": "shell",
                                                            "arguments": {"command": item.get("command")}}])
                s.result(iid, item.get("aggregated_output", ""), step)
            elif t == "file_change":
                step = s.agent(reasoning=reasoning, calls=[{"id": iid, "name": "file_change",
                                                            "arguments": {"changes": item.get("changes")}}])
                s.result(iid, item.get("status", ""), step)
            else:
                continue
            reasoning = ""
    return meta


def from_opencode(raw: bytes, s: Steps) -> dict:
    """`opencode run --format json`: `text`, `tool_use`, `step_finish` events with their parts."""
    meta: dict[str, Any] = {"steps_finished": 0}
    for ev in _json_lines(raw):
        part = ev.get("part") if isinstance(ev.get("part"), dict) else {}
        meta.setdefault("session_id", ev.get("sessionID") or part.get("sessionID"))
        kind = ev.get("type")
        if kind == "text" and part.get("text"):
            s.agent(str(part["text"]))
        elif kind == "reasoning" and part.get("text"):
            s.agent(reasoning=str(part["text"]))
        elif kind == "tool_use":
            state = part.get("state") if isinstance(part.get("state"), dict) else {}
            cid = str(part.get("callID") or part.get("id") or f"call_{len(s.steps)}")
            step = s.agent(calls=[{"id": cid, "name": part.get("tool"), "arguments": state.get("input")}])
            s.result(cid, state.get("output") or state.get("error") or state.get("status") or "", step)
        elif kind == "step_finish":
            meta["steps_finished"] += 1
        elif kind == "error":
            meta["error"] = clip(ev.get("error") or "")
    return meta


def from_mini(raw: bytes, s: Steps) -> dict:
    """mini-swe-agent's trajectory file: `messages` (system, user, assistant, tool, exit), `info`."""
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        return {"error": "the trajectory file is not JSON"}
    if not isinstance(data, dict):
        return {"error": "the trajectory file is not a JSON object"}
    msgs = data.get("messages") if isinstance(data.get("messages"), list) else []
    first_user = True
    for m in msgs:
        if not isinstance(m, dict):
            continue
        role, extra = m.get("role"), m.get("extra") if isinstance(m.get("extra"), dict) else {}
        if role == "user" and first_user:
            s.user(_text_of(m.get("content")))
            first_user = False
        elif role == "assistant":
            calls = []
            for i, a in enumerate(extra.get("actions") or []):
                if isinstance(a, dict):
                    calls.append({"id": a.get("tool_call_id") or f"action_{len(s.steps)}_{i}", "name": "bash",
                                  "arguments": {"command": a.get("command")}})
            u = (extra.get("response") or {}).get("usage") if isinstance(extra.get("response"), dict) else None
            u = u if isinstance(u, dict) else {}
            s.agent(_text_of(m.get("content")), calls=calls,
                    metrics={"prompt_tokens": _int(u.get("prompt_tokens")),
                             "completion_tokens": _int(u.get("completion_tokens"))})
        elif role in ("tool", "user"):
            s.result(m.get("tool_call_id"), _text_of(m.get("content")))
        elif role == "exit":
            s.result(None, _text_of(m.get("content")))
    info = data.get("info") if isinstance(data.get("info"), dict) else {}
    return {"exit_status": info.get("exit_status"), "mini_version": info.get("mini_version")}


READERS: dict[str, Callable[[bytes, Steps], dict]] = {
    "claude-stream-json": from_claude, "codex-exec-json": from_codex, "opencode-json": from_opencode,
    "mini-swe-agent": from_mini}


def attach_calls(steps: list[dict], calls: list[dict]) -> bool:
    """Each agent step's metrics from its metered call, when steps and generating calls match
    one to one; True if they did."""
    gen = [c for c in calls if c.get("wire") in ("messages", "responses", "chat") and c.get("status") == 200]
    agent_steps = [st for st in steps if st["source"] == "agent"]
    if not gen or len(gen) != len(agent_steps):
        return False
    for st, c in zip(agent_steps, gen):
        cached = c.get("cache_read_tokens") or 0
        prompt = (c.get("input_tokens") or 0) + (cached + (c.get("cache_write_tokens") or 0)
                                                 if c.get("wire") == "messages" else 0)
        st["metrics"] = {"prompt_tokens": prompt, "completion_tokens": c.get("output_tokens") or 0,
                         "cached_tokens": cached, "cost_usd": c.get("cost_usd"),
                         "extra": {"metered_call": c.get("seq"), "cache_write_tokens": c.get("cache_write_tokens") or 0}}
        if st["metrics"]["cost_usd"] is None:
            del st["metrics"]["cost_usd"]
    return True


def read(fmt: str, source: Path, *, agent: str, version: Optional[str], model: str, instruction: str,
         metering: Optional[dict], session: str, calls: Optional[list[dict]] = None) -> dict:
    """The ATIF document of the program's record `source` (its format `fmt`)."""
    raw = read_regular(source, SOURCE_LIMIT)
    s = Steps()
    notes = []
    if fmt != "mini-swe-agent":
        s.user(instruction)
    if raw is None:
        meta: dict = {}
        notes.append(f"the program left no record ({source.name} is missing or not a regular file)")
    else:
        meta = READERS[fmt](raw, s)
        if fmt == "mini-swe-agent" and not s.steps:
            s.user(instruction)
    if len(s.steps) >= MAX_STEPS:
        notes.append(f"only the first {MAX_STEPS} steps are kept")
    if attach_calls(s.steps, calls or []):
        notes.append("each agent step's metrics are its metered model call's")
    m = metering or {}
    final = {"total_prompt_tokens": m.get("input_tokens", 0), "total_completion_tokens": m.get("output_tokens", 0),
             "total_cached_tokens": m.get("cache_read_tokens", 0), "total_cost_usd": m.get("cost_usd", 0.0),
             "total_steps": len(s.steps), "extra": {"model_calls": m.get("calls", 0),
                                                    "metered_by": "the engagement's model proxy"}}
    doc = {"schema_version": SCHEMA_VERSION, "session_id": str(meta.get("session_id") or session),
           "agent": {"name": agent, "version": version or "unknown", "model_name": model},
           "steps": s.steps, "final_metrics": final,
           "extra": {"format": fmt, "source": f"developer/{source.name}",
                     "program": {k: v for k, v in meta.items() if k != "session_id" and v is not None}}}
    if notes:
        doc["notes"] = "; ".join(notes)
    return doc


def summary(doc: dict) -> dict:
    """What the record keeps of a trajectory: steps, agent turns, tool calls by name."""
    calls: dict[str, int] = {}
    for st in doc["steps"]:
        for c in st.get("tool_calls", []):
            calls[c["function_name"]] = calls.get(c["function_name"], 0) + 1
    return {"file": "trajectory.json", "schema_version": doc["schema_version"], "steps": len(doc["steps"]),
            "agent_steps": sum(1 for st in doc["steps"] if st["source"] == "agent"),
            "tool_calls": dict(sorted(calls.items())), "agent": doc["agent"], "notes": doc.get("notes", "")}


def write(doc: dict, out: Path) -> Path:
    target = Path(out) / "trajectory.json"
    target.write_text(json.dumps(doc, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
    return target
