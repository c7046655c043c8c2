"""An agent that misbehaves on request (the message says how): crash, hang, print on stdout,
return a state that is not JSON, return a non-string reply, exit, leave a file in /tmp, busy-loop
(alone, or in forked children while it waits for them)."""
import os
import sys
import time


class Agent:
    def get_init_state(self):
        return {"n": 0}

    def generate_next_message(self, message, state):
        if message == "crash":
            raise ValueError("boom")
        if message == "hang":
            time.sleep(60)
        if message == "spin":
            while True:
                pass
        if message == "spin children":
            for _ in range(2):
                if os.fork() == 0:
                    while True:
                        pass
            while True:
                os.wait()
        if message == "read stdin":
            return repr(sys.stdin.read()), state
        if message == "print":
            print("noise on stdout")
            sys.stdout.flush()
            return "still fine", {"n": state["n"] + 1}
        if message == "bad state":
            return "ok", {"s": {1, 2}}
        if message == "bad reply":
            return 42, state
        if message == "marker":
            seen = os.path.exists("/tmp/marker")
            open("/tmp/marker", "w").close()
            return ("seen" if seen else "new"), state
        if message == "exit":
            sys.exit(3)
        return f"echo {message} {state['n']}", {"n": state["n"] + 1}


def create_agent():
    return Agent()
