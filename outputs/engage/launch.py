#!/usr/bin/env python3
"""A coding agent's launcher: runs inside the developer's boundary, before and around the agent.

    python launch.py PLAN.json

The plan (written by `adapters.Adapter.plan`) says:

- `relay`: `{"script": PATH, "socket": PATH}` or null. The loopback relay (`looprelay.py`) is
  started on a port the system chooses, and the launcher waits for its `listening` line; its
  URL, `http://127.0.0.1:PORT`, replaces `@FF_RELAY@` in everything below and is given as
  `FF_MODEL_URL`. Without a relay the token stays unreplaced and nothing listens.
- `home_files`: `[{"path": P, "text": T}]`, files written under `$HOME` (a configuration the
  program writes to, such as `CODEX_HOME/config.toml`).
- `env`: variables added to the boundary's environment; `argv`: the program and its arguments.
- `stdout`: a file the program's standard output is copied to (at most `STDOUT_LIMIT` bytes;
  the rest is read and dropped), or null to leave it on the boundary's log.

The program's standard error stays on the log. The launcher exits with the program's status
and stops the relay. Standard library only.
"""
from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time

TOKEN = "@FF_RELAY@"
STDOUT_LIMIT = 64 << 20
RELAY_WAIT_S = 15.0


def start_relay(relay: dict) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([sys.executable, "-I", "-B", relay["script"], "--socket", relay["socket"], "--port", "0"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE)
    deadline = time.monotonic() + RELAY_WAIT_S
    line = b""
    while not line.endswith(b"\n") and time.monotonic() < deadline:
        ready, _, _ = select.select([proc.stdout], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            break
        chunk = os.read(proc.stdout.fileno(), 256)
        if not chunk:
            break
        line += chunk
    text = line.decode("utf-8", "replace").strip()
    if not text.startswith("listening 127.0.0.1:"):
        proc.kill()
        raise SystemExit(f"launch: the model relay did not start (loopback down?): {text or 'no answer'}")
    return proc, "http://" + text.split(" ", 1)[1]


def substitute(value, url: str):
    if isinstance(value, str):
        return value.replace(TOKEN, url)
    if isinstance(value, list):
        return [substitute(v, url) for v in value]
    if isinstance(value, dict):
        return {k: substitute(v, url) for k, v in value.items()}
    return value


def write_home_files(files: list, home: str) -> None:
    root = os.path.realpath(home)
    for f in files:
        path = os.path.realpath(os.path.join(root, f["path"]))
        if not path.startswith(root + os.sep):
            raise SystemExit(f"launch: {f['path']} is not a path under the home folder")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as out:
            out.write(f["text"])


def copy_capped(src, path: str) -> None:
    kept = 0
    with open(path, "wb") as out:
        while True:
            chunk = os.read(src.fileno(), 1 << 16)
            if not chunk:
                return
            if kept < STDOUT_LIMIT:
                out.write(chunk[:STDOUT_LIMIT - kept])
                out.flush()
                kept += len(chunk)


def main(argv: list) -> int:
    with open(argv[1], encoding="utf-8") as f:
        plan = json.load(f)
    relay, url = None, TOKEN
    if plan.get("relay"):
        relay, url = start_relay(plan["relay"])
    try:
        plan = substitute(plan, url)
        write_home_files(plan.get("home_files") or [], os.environ.get("HOME") or "/tmp")
        env = {**os.environ, **plan.get("env", {})}
        if relay is not None:
            env["FF_MODEL_URL"] = url
        print(f"launch: {plan['argv'][0]}" + (f" (model relay {url})" if relay else ""), file=sys.stderr, flush=True)
        out = subprocess.PIPE if plan.get("stdout") else None
        proc = subprocess.Popen(plan["argv"], stdin=subprocess.DEVNULL, stdout=out, env=env)
        signal.signal(signal.SIGTERM, lambda *_: proc.terminate())
        if out is not None:
            copy_capped(proc.stdout, plan["stdout"])
        return proc.wait()
    except OSError as e:
        print(f"launch: cannot run {plan['argv'][0]}: {e.strerror or e}", file=sys.stderr)
        return 127
    finally:
        if relay is not None:
            relay.terminate()
            try:
                relay.wait(5)
            except subprocess.TimeoutExpired:
                relay.kill()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
