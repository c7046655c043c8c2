"""What the faces and the experiments need of the engagement's tool service.

`tools.ToolService` is the one implementation; the faces (`faces`) and the sample and live
runs (`experiments`) are written against these protocols, so that neither imports the
service that serves them.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional, Protocol

if TYPE_CHECKING:
    from outputs.evaluator.engine import TaskContext


class ToolHost(Protocol):
    """The tools a face serves: their descriptions, a call, a refusal to record."""

    tools: list[dict]

    def call(self, name: str, args: dict, *, face: str = "python") -> dict:
        """Run one tool; raises ToolError (a refusal, recorded like an answer)."""
        ...

    def refuse(self, message: str, face: str) -> None:
        """Record a request a face could not read as a tool call (malformed, oversized)."""
        ...


class RunHost(Protocol):
    """The engagement as a sample or live run reads it: the pack, the task, the developer's
    workspace, the evaluator's settings, the live context and the training context once made."""

    pack_dir: Path
    task_id: str
    workspace: Path
    seed: int
    isolation: str
    gateway_mock_response: Any
    ctx: "TaskContext"
    samples_ctx: Optional["TaskContext"]
