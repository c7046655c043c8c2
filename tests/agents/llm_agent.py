"""A model-backed agent for the gateway tests: it first asks for a model the task does not
allow (and must be refused), then answers every message with a menu model's completion."""
import json
import os

from factforge_sdk import ApiError, Gateway


class Agent:
    def __init__(self):
        self.llm = Gateway.from_env()
        task = json.load(open(os.path.join(os.environ["FACTFORGE_KIT"], "task.json")))
        self.model = task["models"]["models"][0]

    def get_init_state(self):
        try:
            self.llm.complete("frontier-large", [{"role": "user", "content": "hi"}])
            refused = None
        except ApiError as e:
            refused = [e.status, e.code]
        return {"refused": refused}

    def generate_next_message(self, message, state):
        r = self.llm.complete(self.model, [{"role": "user", "content": message}], temperature=1.0)
        return r["choices"][0]["message"]["content"] + f" (refused: {state['refused']})", state


def create_agent():
    return Agent()
