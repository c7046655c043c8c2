"""The null reference agent: does nothing and says nothing (scores 0.0 on every test)."""
from __future__ import annotations


class NullAgent:
    def get_init_state(self) -> dict:
        return {}

    def generate_next_message(self, message: str, state: dict) -> tuple[str, dict]:
        return "", state


def create_agent(reference=None) -> NullAgent:
    return NullAgent()
