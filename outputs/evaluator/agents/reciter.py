"""The policy reciter, an adversarial reference agent: never calls the API; every reply is a
refusal line and the task's whole policy quoted (`outputs.evaluator.adversaries`). A sealed
test it passes rewards reciting, not doing the job."""
from __future__ import annotations


class ReciterAgent:
    def __init__(self, reference: dict):
        self.reply = str(reference.get("reply", ""))

    def get_init_state(self) -> dict:
        return {}

    def generate_next_message(self, message: str, state: dict) -> tuple[str, dict]:
        return self.reply, state


def create_agent(reference=None) -> ReciterAgent:
    return ReciterAgent(reference or {})
