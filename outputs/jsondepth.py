"""How deep a parsed JSON body nests: one definition for the servers that refuse deep bodies
(the task API and the evaluator's model gateway)."""
from __future__ import annotations

from typing import Any


def nested_deeper(data: Any, limit: int) -> bool:
    """Whether arrays or objects in `data` nest deeper than `limit` (walked without recursion,
    so any depth the parser accepted is measured safely)."""
    stack = [(data, 1)]
    while stack:
        x, d = stack.pop()
        if isinstance(x, (dict, list)):
            if d > limit:
                return True
            stack.extend((v, d + 1) for v in (x.values() if isinstance(x, dict) else x))
    return False
