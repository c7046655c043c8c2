"""The agent runner: the program the sandbox runs (standard library only; it is copied into
the sandbox on its own, without the rest of factforge).

Two processes, so that the channel the evaluator reads is out of the agent's reach:

- the supervisor (`runner.py`) holds the evaluator's stdin and stdout (the protocol). It is
  started isolated (`python3 -I -S`: no `PYTHONPATH`, nothing of the workspace importable),
  makes itself non-dumpable (no other process of the sandbox may read its memory or its
  file descriptors), reads a per-sandbox key from the evaluator's first line and signs every
  message it sends with it (HMAC-SHA256 of the message, which carries a sequence number).
  It never runs agent code;
- the worker (`runner.py worker`), a fresh interpreter started by the supervisor (so no copy
  of the key is in its memory), loads the agent module and hosts one conversation at a time.
  Its stdin is /dev/null and its `print`s go to stderr; it answers the supervisor on a pipe
  of its own.

A line the agent manages to write into the evaluator's pipe anyway (through `/proc/1/fd/1`,
the sandbox init's copy) carries no valid signature and fails the conversation as the
agent's; a line the agent writes into its own pipe is checked by the supervisor (the request
it answers, its shape, the reply's size) before anything is signed.

    evaluator -> supervisor: {"key": "<hex>", "nproc": 256 | null}     (first line only)
    supervisor -> evaluator: <hmac hex> {"seq": 0, "ready": true}       (the worker runs, no agent code yet)
    {"id": i, "op": "start", "module": "agent", "reference": null}  ->  {"seq": n, "id": i, "ok": true}
    {"id": i, "op": "step", "message": "..."}                        ->  {"seq": n, "id": i, "ok": true, "reply": "..."}
    the agent's failure                       ->  {"seq": n, "id": i, "ok": false, "error": "Type: message"}
    the agent's process ended                 ->  {"seq": n, "ok": false, "exit": <status>}

`seq` counts the supervisor's messages and `id` is the evaluator's random id of the request
answered, so a request the agent injects through the init's copy of stdin is never taken
for the evaluator's. The runner's own failure ends it with status 70 (the evaluator reads
bwrap's exit status, never the agent's words).

`start` calls `create_agent()` (a reference agent gets `create_agent(reference)`) and
`get_init_state()`; `step` calls `generate_next_message(message, state)` and keeps the
returned state. The state crosses a JSON round trip after every call, so an agent whose
state is not JSON-serialisable fails as the contract says. A reply is at most `REPLY_MAX`
bytes of UTF-8.
"""
import importlib
import json
import os
import sys
import traceback

REPLY_MAX = 64 * 1024          # bytes of UTF-8 in one reply
LINE_MAX = 1 << 20             # bytes of one protocol line


def _error(e: BaseException) -> dict:
    tb = traceback.extract_tb(e.__traceback__)
    where = f" ({os.path.basename(tb[-1].filename)}:{tb[-1].lineno})" if tb else ""
    return {"ok": False, "error": f"{type(e).__name__}: {str(e)[:500]}{where}"}


# --------------------------------------------------------------------------- the worker

def _handle(req: dict, modules: dict, conv: dict) -> dict:
    if req["op"] == "start":
        name = req["module"]
        if name not in modules:
            modules[name] = importlib.import_module(name)
        mod = modules[name]
        ref = req.get("reference")
        conv["agent"] = mod.create_agent(ref) if ref is not None else mod.create_agent()
        conv["state"] = json.loads(json.dumps(conv["agent"].get_init_state()))
        return {"ok": True}
    if req["op"] == "step":
        if conv.get("agent") is None:
            raise RuntimeError("no conversation started")
        reply, new_state = conv["agent"].generate_next_message(req["message"], conv["state"])
        if not isinstance(reply, str):
            raise TypeError(f"generate_next_message returned {type(reply).__name__}, not (str, state)")
        size = len(reply.encode("utf-8", "surrogatepass"))
        if size > REPLY_MAX:
            raise ValueError(f"the reply is {size} bytes, over the limit of {REPLY_MAX} bytes")
        conv["state"] = json.loads(json.dumps(new_state))
        return {"ok": True, "reply": reply}
    raise ValueError(f"unknown op {req.get('op')!r}")


def worker() -> None:
    requests = os.fdopen(os.dup(0), "rb")
    answers = os.fdopen(os.dup(1), "wb")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    sys.stdin = open(os.devnull, encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    path = os.environ.get("PYTHONPATH", "")          # started isolated: the agent's path only now
    sys.path[:0] = [p for p in path.split(":") if p]

    def send(out: dict) -> None:
        answers.write(json.dumps(out, ensure_ascii=False).encode("utf-8", "surrogatepass") + b"\n")
        answers.flush()

    send({"n": 0, "ready": True})
    modules: dict = {}
    conv: dict = {}
    for line in requests:
        req = json.loads(line)
        try:
            out = _handle(req, modules, conv)
        except Exception as e:  # the agent's failure, reported to the evaluator
            out = _error(e)
        except SystemExit as e:
            out = {"ok": False, "error": f"SystemExit: the agent called exit({e.code})"}
        out["n"] = req["n"]
        send(out)


# --------------------------------------------------------------------------- the supervisor

def _nondumpable() -> None:
    """No process of the sandbox may read this one's memory or open its descriptors."""
    import ctypes  # noqa: PLC0415  (the supervisor's alone: the worker starts without it)
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(4, 0, 0, 0, 0) != 0:                     # PR_SET_DUMPABLE, 0
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_DUMPABLE) failed")


def _own_user_namespace() -> bool:
    try:
        with open("/proc/self/uid_map", encoding="ascii") as f:
            return f.read().split() != ["0", "0", "4294967295"]
    except OSError:
        return False


def _checked(resp: bytes, req: dict, n: int) -> dict:
    """The worker's answer to request `n`, as the evaluator may see it; raises ValueError
    on anything the worker loop would not have written."""
    if not resp.endswith(b"\n"):
        raise ValueError("an unterminated or oversized line")
    out = json.loads(resp)
    if not isinstance(out, dict) or out.get("n") != n or not isinstance(out.get("ok"), bool):
        raise ValueError("a line answering no request")
    if out["ok"]:
        if req.get("op") == "step":
            reply = out.get("reply")
            if not isinstance(reply, str) or len(reply.encode("utf-8", "surrogatepass")) > REPLY_MAX:
                raise ValueError("a reply that is no string of at most REPLY_MAX bytes")
            return {"ok": True, "reply": reply}
        return {"ok": True}
    return {"ok": False, "error": str(out.get("error", "the agent failed"))[:2000]}


def supervise() -> None:
    import hashlib  # noqa: PLC0415  (the supervisor's alone: the worker starts without them)
    import hmac  # noqa: PLC0415  (the supervisor's alone, like hashlib)
    import subprocess  # noqa: PLC0415  (the supervisor's alone, like hashlib)

    _nondumpable()
    requests = os.fdopen(os.dup(0), "rb")
    proto = os.fdopen(os.dup(1), "wb", buffering=0)
    hello = json.loads(requests.readline(LINE_MAX))
    key = bytes.fromhex(hello["key"])
    if hello.get("nproc") and _own_user_namespace():
        import resource  # noqa: PLC0415  (the supervisor's alone: the worker starts without it)
        resource.setrlimit(resource.RLIMIT_NPROC, (int(hello["nproc"]), int(hello["nproc"])))
    seq = 0

    def send(body: dict) -> None:
        body["seq"] = seq
        payload = json.dumps(body, ensure_ascii=False).encode("utf-8", "surrogatepass")
        proto.write(hmac.new(key, payload, hashlib.sha256).hexdigest().encode("ascii") + b" " + payload + b"\n")

    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    work = subprocess.Popen([sys.executable, "-I", "-S", "-B", os.path.abspath(__file__), "worker"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, close_fds=True)
    first = work.stdout.readline(LINE_MAX)
    if json.loads(first or b"{}").get("ready") is not True:
        raise RuntimeError(f"the worker did not start (status {work.wait()})")
    send({"ready": True})
    while True:
        line = requests.readline(LINE_MAX)
        if not line:
            return
        seq += 1
        try:
            req = json.loads(line)
            rid = str(req["id"])
        except (ValueError, TypeError, KeyError):       # the evaluator writes none: the agent did
            work.kill()
            send({"ok": False, "error": "the agent wrote to the runner's protocol channel (a request)"})
            return
        try:
            work.stdin.write(json.dumps(dict(req, n=seq), ensure_ascii=False).encode("utf-8", "surrogatepass") + b"\n")
            work.stdin.flush()
            resp = work.stdout.readline(LINE_MAX)
        except OSError:
            resp = b""
        if not resp:
            work.kill()
            send({"ok": False, "exit": work.wait()})
            return
        try:
            out = _checked(resp, req, seq)
        except ValueError as e:
            work.kill()
            send({"ok": False, "error": f"the agent wrote to the runner's protocol channel ({e})"})
            return
        out["id"] = rid
        send(out)


def main() -> None:
    if sys.argv[1:] == ["worker"]:
        worker()
        return
    try:
        supervise()
    except Exception as e:  # noqa: BLE001  (a failure of the runner itself: said so, signed)
        print(f"factforge runner: {type(e).__name__}: {e}", file=sys.stderr)
        raise SystemExit(70) from None


if __name__ == "__main__":
    main()
