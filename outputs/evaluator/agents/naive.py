"""The naive reference agent: does what the customer asks (the test's naive actions) and
applies no policy; it states no policy value."""
from __future__ import annotations

from ._replay import ReplayAgent


def create_agent(reference=None, client=None) -> ReplayAgent:
    if client is None:
        from factforge_sdk import ApiClient  # noqa: PLC0415  (the kit's SDK, inside the sandbox)
        client = ApiClient.from_env()
    return ReplayAgent(reference or {}, client)
