"""The scripted developer's program: runs inside the boundary, one step of its script at a time.

    python driver.py SCRIPT.json

The script (written by `developers.load_script` from the user's JSON or TOML) is
`{"face": "mcp" | "ff", "steps": [...]}`; a step is one of

- `{"tool": NAME, "args": {...}}`: a tool call, through the official MCP client SDK over the
  `ff-mcp` relay (face `mcp`: one session for the whole script) or through the `ff` command
  (face `ff`);
- `{"write": PATH, "text": TEXT}`: a file of the workspace written (PATH relative to it);
- `{"delete": PATH}`: a file of the workspace removed.

Each step prints one JSON line (`step`, `ok`, and the result or the refusal) on stdout, the
engagement's `developer.log`. A refused tool call does not stop the script. Standard library
only, but for the `mcp` package the MCP face imports (the engagement runs this file with the
interpreter that has it, `FF_PYTHON`).
"""
from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

FF_ARGS = {
    "ask_owner": lambda a: ["ask", str(a.get("message", "")), *(["--role", str(a["role"])] if a.get("role") else [])],
    "call_api": lambda a: ["api", str(a.get("method", "GET")), str(a.get("path", "/"))]
    + ([json.dumps(a["body"])] if a.get("body") is not None else []),
    "run_samples": lambda a: ["samples", *[str(i) for i in a.get("ids") or []]],
    "run_live": lambda a: ["live", *([str(a["id"])] if a.get("id") else [])],
    "list_models": lambda a: ["models"],
    "submit": lambda a: ["submit", *([str(a["note"])] if a.get("note") else [])],
}


def workspace_file(rel: str) -> Path:
    root = Path.cwd().resolve()
    p = (root / rel).resolve()
    if root not in p.parents:
        raise ValueError(f"{rel}: not a path inside the workspace")
    return p


def file_step(step: dict) -> dict:
    if "write" in step:
        p = workspace_file(step["write"])
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(str(step.get("text", "")), encoding="utf-8")
        return {"ok": True, "result": {"wrote": step["write"]}}
    p = workspace_file(step["delete"])
    p.unlink()
    return {"ok": True, "result": {"deleted": step["delete"]}}


def ff_call(name: str, args: dict) -> dict:
    if name not in FF_ARGS:
        return {"ok": False, "error": f"ff has no command for the tool {name!r}"}
    r = subprocess.run(["ff", *FF_ARGS[name](args)], capture_output=True, text=True)
    if r.returncode != 0:
        return {"ok": False, "error": (r.stderr or r.stdout).strip()}
    try:
        return {"ok": True, "result": json.loads(r.stdout)}
    except ValueError:
        return {"ok": True, "result": r.stdout.strip()}


def mcp_result(res) -> dict:
    text = "".join(getattr(c, "text", "") for c in res.content)
    body = getattr(res, "structured_content", None)
    if body is None:
        try:
            body = json.loads(text)
        except ValueError:
            body = text
    if getattr(res, "is_error", False):
        return {"ok": False, "error": text}
    return {"ok": True, "result": body}


def emit(i: int, step: dict, out: dict) -> None:
    what = step.get("tool") or ("write " + step["write"] if "write" in step else "delete " + step.get("delete", ""))
    print(json.dumps({"step": i, "do": what, **out}, sort_keys=True, default=str), flush=True)


def run_ff(steps: list[dict]) -> None:
    for i, step in enumerate(steps):
        try:
            out = ff_call(step["tool"], step.get("args") or {}) if "tool" in step else file_step(step)
        except (OSError, ValueError) as e:
            out = {"ok": False, "error": str(e)}
        emit(i, step, out)


async def run_mcp(steps: list[dict]) -> None:
    from mcp import ClientSession, StdioServerParameters  # noqa: PLC0415  (deferred: the MCP client)
    from mcp.client.stdio import stdio_client  # noqa: PLC0415  (deferred: the MCP client, only for an MCP developer)

    relay = str(Path(os.environ.get("FACTFORGE_KIT", "/kit")) / "bin" / "ff-mcp")
    params = StdioServerParameters(command=relay, env={"FF_SOCKETS": os.environ.get("FF_SOCKETS", "/run/ff")})
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        for i, step in enumerate(steps):
            try:
                if "tool" in step:
                    out = mcp_result(await session.call_tool(step["tool"], step.get("args") or {}))
                else:
                    out = file_step(step)
            except Exception as e:  # noqa: BLE001  (the script goes on; the log says what failed)
                out = {"ok": False, "error": f"{type(e).__name__}: {e}"}
            emit(i, step, out)


def main(argv: list[str]) -> int:
    script = json.loads(Path(argv[1]).read_text(encoding="utf-8"))
    steps = script["steps"]
    if script.get("face", "mcp") == "ff":
        run_ff(steps)
    else:
        asyncio.run(run_mcp(steps))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
