"""An agent stuck in a busy loop on its first reply (the CPU limit must stop it)."""


class Agent:
    def get_init_state(self):
        return {}

    def generate_next_message(self, message, state):
        while True:
            pass


def create_agent():
    return Agent()
