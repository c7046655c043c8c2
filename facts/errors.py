"""User-facing errors. Every error that a user can cause names the file, the line and the problem."""
from __future__ import annotations

from pathlib import Path


class FactforgeError(Exception):
    """An error caused by user input (a policy, a pack, a spec, a bundle). The CLI prints it as
    one line and exits non-zero, without a traceback."""

    def __init__(self, problem: str, file: str | Path | None = None, line: int | None = None):
        self.problem = problem
        self.file = str(file) if file is not None else None
        self.line = line
        super().__init__(self.render())

    def render(self) -> str:
        where = ""
        if self.file:
            where = self.file + (f":{self.line}" if self.line else "")
            where += ": "
        return where + self.problem
