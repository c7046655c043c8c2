"""A hostile agent for the whole-sandbox limits: "tmp" writes up to 1 GiB into /tmp; "children"
starts three children holding 400 MB each; "fork" starts up to 1,000 sleeping processes.
Each holds on for 10 s, then replies with what it managed (when it is still alive to reply)."""
import os
import time


def _fill_tmp():
    written = 0
    try:
        with open("/tmp/fill", "wb") as f:
            block = b"y" * (1 << 20)
            while written < (1 << 30):
                f.write(block)
                f.flush()
                written += len(block)
    except OSError:
        pass
    time.sleep(10)
    return f"wrote {written}"


def _children():
    for _ in range(3):
        if os.fork() == 0:
            hold = b"z" * (400 << 20)
            time.sleep(20 + len(hold) % 2)
            os._exit(0)
    time.sleep(10)
    return "children done"


def _fork():
    n = 0
    try:
        for _ in range(1000):
            if os.fork() == 0:
                time.sleep(20)
                os._exit(0)
            n += 1
    except OSError:
        pass
    time.sleep(10)
    return f"forked {n}"


class Agent:
    def get_init_state(self):
        return {}

    def generate_next_message(self, message, state):
        return {"tmp": _fill_tmp, "children": _children, "fork": _fork}[message](), state


def create_agent():
    return Agent()
