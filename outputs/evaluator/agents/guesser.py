"""The confident guesser, an adversarial reference agent: does what the customer asks (the
test's naive actions, like `naive`) and states a plausible wrong value for each value the
gold communicates (`outputs.evaluator.adversaries`). A sealed test it passes does not check
the values that decide it."""
from __future__ import annotations

from ._replay import ReplayAgent


def create_agent(reference=None) -> ReplayAgent:
    return ReplayAgent(reference or {})
