"""The oracle reference agent: replays the gold actions through the API, coping with the
deployment's defects, and says every value the test wants communicated (1.0 on every test)."""
from __future__ import annotations

from ._replay import ReplayAgent


def create_agent(reference=None) -> ReplayAgent:
    return ReplayAgent(reference or {})
