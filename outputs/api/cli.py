"""`factforge api ...`: serve a task's production API (mounted in pipeline/cli.py).

`factforge api serve PACK --task ID` prints one JSON line when it listens (`url`, `domain`,
`deployment`, `defects`, `clock`, `mode`, `task`) and serves until SIGINT or SIGTERM, so a
parent process (the evaluator) can start it and read its address. The clock defaults to
real time (live use); `--clock virtual` is what evaluation uses. Admin routes (reset, log,
settle) exist only when `$FACTFORGE_API_ADMIN_TOKEN` is set.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import List, Literal, Optional

import typer

from facts.errors import FactforgeError

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="The client's production API of a task (with its deployment's defects).\n\n"
                       "Example: factforge api serve pack --task _mock-client-knows --clock virtual")


@app.command("serve")
def serve(pack: Path = typer.Argument(..., help="A task pack directory (holding index.json)."),
          task: str = typer.Option(..., "--task", help="The task id."),
          host: str = typer.Option("127.0.0.1", "--host", help="Interface to listen on."),
          port: int = typer.Option(0, "--port", min=0, max=65535, help="TCP port (0: a free port, printed)."),
          uds: Optional[Path] = typer.Option(None, "--uds", help="Listen on this Unix socket instead of TCP."),
          clock: Literal["real", "virtual"] = typer.Option("real", "--clock", help="real (wall time) or virtual (time moves on /_clock/wait)."),
          dev: bool = typer.Option(False, "--dev", help="Development run: the kit's data and the seeded exposure rate."),
          trial: int = typer.Option(0, "--trial", min=0, help="Trial number (salts every delay)."),
          seed: int = typer.Option(0, "--seed", help="Seed of a development run's exposure."),
          enable: Optional[List[str]] = typer.Option(None, "--enable", metavar="<operation>", help="Switch on one of the task's capabilities (hidden until the client enables it); repeatable; all: every one."),
          fixed: Optional[List[str]] = typer.Option(None, "--fixed", metavar="<defect>", help="Serve with the client's fix of one of the deployment's defects deployed (its index); repeatable; all: every one it can deploy.")):
    """Serve the task's API over its database until interrupted.

    Prints one JSON line when it listens (url, domain, deployment, defects, clock, mode, task).

    Example: factforge api serve pack --task _mock-client-knows --clock virtual
    """
    from .server import ApiServer, describe, switched  # noqa: PLC0415  (deferred: keeps `factforge --help` fast)

    if not (pack / "index.json").is_file():
        raise FactforgeError("not a task pack (no index.json)", pack)
    from outputs.packs.store import Pack  # noqa: PLC0415  (deferred: keeps `factforge --help` fast)

    on, off = switched(Pack(pack).json(task, "sealed", "task.json"), list(enable or []) or None,
                       list(fixed or []) or None)
    srv = ApiServer.from_pack(pack, task, dev=dev, trial=trial, seed=seed, clock=clock, enabled=tuple(on),
                              fixed=tuple(off),
                              admin_token=os.environ.get("FACTFORGE_API_ADMIN_TOKEN") or None,
                              host=host, port=port, uds=uds)
    srv.serve_forever(ready=lambda: (print(describe(srv)), sys.stdout.flush()))
