"""What the oracle and the naive agent share: replay a list of calls once, then keep saying
the reply the evaluator composed."""
from __future__ import annotations


class ReplayAgent:
    def __init__(self, reference: dict, client):
        self.actions = list(reference.get("actions", []))
        self.reply = str(reference.get("reply", ""))
        self.client = client

    def get_init_state(self) -> dict:
        return {"done": False, "calls": []}

    def generate_next_message(self, message: str, state: dict) -> tuple[str, dict]:
        state = dict(state)
        if not state["done"]:
            outcomes = []
            for a in self.actions:
                outcomes.append(self.client.call(a["name"], dict(a["arguments"])))
            state["done"] = True
            state["calls"] = len(outcomes)
        return self.reply, state
