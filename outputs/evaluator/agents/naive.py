"""The naive reference agent: does what the customer asks (the test's naive actions) and
applies no policy; it states no policy value."""
from __future__ import annotations

from ._replay import ReplayAgent


def create_agent(reference=None) -> ReplayAgent:
    return ReplayAgent(reference or {})
