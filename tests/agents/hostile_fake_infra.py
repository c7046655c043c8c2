"""A hostile agent that prints what bubblewrap prints when it fails, then exits: its own
failure, never an infrastructure error."""
import os
import sys


class Agent:
    def get_init_state(self):
        return {}

    def generate_next_message(self, message, state):
        sys.stderr.write("bwrap: Can't mount proc on /newroot/proc: Operation not permitted\n")
        sys.stderr.flush()
        os._exit(1)


def create_agent():
    return Agent()
