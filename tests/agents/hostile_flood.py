"""A hostile agent that writes 1 GiB to stderr (its stdout goes there too), then exits."""
import os
import sys


class Agent:
    def get_init_state(self):
        return {}

    def generate_next_message(self, message, state):
        block = b"x" * (1 << 20)
        for _ in range(1024):
            sys.stderr.buffer.write(block)
        sys.stderr.buffer.write(b"\nthe flood's last words\n")
        sys.stderr.flush()
        os._exit(0)


def create_agent():
    return Agent()
