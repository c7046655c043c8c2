"""What the developer is told when a tool refuses."""
from __future__ import annotations


class ToolError(Exception):
    """One line the developer sees (a refusal, a bad argument, a quota). `reason` says which
    kind for the record: refused, quota, unknown, ended, no_client, malformed, failed."""

    def __init__(self, message: str, reason: str = "refused"):
        super().__init__(" ".join(str(message).split()))
        self.reason = reason
