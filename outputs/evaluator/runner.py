"""The agent runner: the program the sandbox runs (standard library only; it is copied into
the sandbox on its own, without the rest of factforge).

It loads the agent module once and hosts one conversation at a time, speaking JSON lines
with the evaluator on private copies of the original stdin and stdout: the agent's stdin is
/dev/null and its own `print`s go to stderr, so it can neither read nor corrupt the protocol.

    {"op": "start", "module": "agent", "reference": null}  ->  {"ok": true}
    {"op": "step", "message": "..."}                        ->  {"ok": true, "reply": "..."}
    any failure                                             ->  {"ok": false, "error": "Type: message"}

`start` calls `create_agent()` (a reference agent gets `create_agent(reference)`) and
`get_init_state()`; `step` calls `generate_next_message(message, state)` and keeps the
returned state. The state crosses a JSON round trip after every call, so an agent whose
state is not JSON-serialisable fails as the contract says.
"""
import importlib
import json
import os
import sys
import traceback


def _error(e: BaseException) -> dict:
    tb = traceback.extract_tb(e.__traceback__)
    where = f" ({os.path.basename(tb[-1].filename)}:{tb[-1].lineno})" if tb else ""
    return {"ok": False, "error": f"{type(e).__name__}: {str(e)[:500]}{where}"}


def main() -> None:
    requests = os.fdopen(os.dup(0), "r", encoding="utf-8")
    proto = os.fdopen(os.dup(1), "w", encoding="utf-8")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    sys.stdin = open(os.devnull, encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    modules: dict = {}
    agent = state = None
    for line in requests:
        try:
            req = json.loads(line)
            if req["op"] == "start":
                name = req["module"]
                if name not in modules:
                    modules[name] = importlib.import_module(name)
                mod = modules[name]
                ref = req.get("reference")
                agent = mod.create_agent(ref) if ref is not None else mod.create_agent()
                state = json.loads(json.dumps(agent.get_init_state()))
                out = {"ok": True}
            elif req["op"] == "step":
                if agent is None:
                    raise RuntimeError("no conversation started")
                reply, new_state = agent.generate_next_message(req["message"], state)
                if not isinstance(reply, str):
                    raise TypeError(f"generate_next_message returned {type(reply).__name__}, not (str, state)")
                state = json.loads(json.dumps(new_state))
                out = {"ok": True, "reply": reply}
            else:
                raise ValueError(f"unknown op {req.get('op')!r}")
        except Exception as e:  # the agent's failure, reported to the evaluator
            out = _error(e)
        except SystemExit as e:
            out = {"ok": False, "error": f"SystemExit: the agent called exit({e.code})"}
        proto.write(json.dumps(out) + "\n")
        proto.flush()


if __name__ == "__main__":
    main()
