"""Calls a model, then crashes: its conversation must still cost what the call used."""
import json
import os

from factforge_sdk import Gateway


class Agent:
    def get_init_state(self):
        return {}

    def generate_next_message(self, message, state):
        task = json.load(open(os.path.join(os.environ["FACTFORGE_KIT"], "task.json")))
        Gateway.from_env().complete(task["models"]["models"][0], [{"role": "user", "content": message}],
                                    temperature=1.0)
        raise RuntimeError("crashed after the model call")


def create_agent():
    return Agent()
