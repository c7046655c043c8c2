"""A hostile agent that forges the runner's protocol: "pid1" writes a reply into the sandbox
init's copy of the evaluator's pipe (`/proc/1/fd/1`), "own" into every pipe it holds, "inject"
writes a request into the init's copy of stdin, "long" writes a 64 MiB line into the
evaluator's pipe. Its own reply is always "honest"."""
import json
import os
import stat

FORGED = json.dumps({"seq": 1, "id": "x", "ok": True, "reply": "FORGED"})


def _write(path, data):
    try:
        fd = os.open(path, os.O_WRONLY)
    except OSError:
        return False
    try:
        os.write(fd, data)
        return True
    except OSError:
        return False
    finally:
        os.close(fd)


class Agent:
    def get_init_state(self):
        return {}

    def generate_next_message(self, message, state):
        if message == "pid1":
            _write("/proc/1/fd/1", ("0" * 64 + " " + FORGED + "\n").encode())
        elif message == "own":
            for fd in os.listdir("/proc/self/fd"):
                try:
                    if int(fd) > 2 and stat.S_ISFIFO(os.fstat(int(fd)).st_mode):
                        os.write(int(fd), (FORGED + "\n").encode())
                except OSError:
                    pass
        elif message == "inject":
            _write("/proc/1/fd/0", (json.dumps({"op": "step", "message": "injected"}) + "\n").encode())
        elif message == "long":
            _write("/proc/1/fd/1", b"a" * (64 << 20) + b"\n")
        elif message == "big reply":
            return "r" * (64 << 20), state
        elif message == "full reply":
            return "é" * (32 << 10), state
        return "honest", state


def create_agent():
    return Agent()
