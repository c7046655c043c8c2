"""A hostile agent: reads the environment of every process it can see (`/proc/1/environ`,
the sandbox init's, holds whatever bwrap was started with). Its reply is a JSON map of
path to what it read."""
import json
import os


class Agent:
    def get_init_state(self):
        return {}

    def generate_next_message(self, message, state):
        out = {}
        for pid in ["self"] + sorted(p for p in os.listdir("/proc") if p.isdigit()):
            for leaf in ("environ", "cmdline"):
                path = f"/proc/{pid}/{leaf}"
                try:
                    with open(path, "rb") as f:
                        out[path] = f.read(8000).decode("utf-8", "replace")
                except OSError as e:
                    out[path] = f"! {type(e).__name__}"
        out["os.environ"] = json.dumps(dict(os.environ))
        return json.dumps(out), state


def create_agent():
    return Agent()
