"""`factforge client ...`: talk to a task's client simulator (mounted in pipeline/cli.py).

`factforge client chat PACK --task ID [--role R]` reads one message per line from stdin and
prints the client's (or stakeholder R's) reply (with `--json`, one JSON object per reply: turn, kind, text, asked, revealed,
flagged). It stops at end of input or when the turn quota is spent; `--log FILE` writes the
exchange log (schema 1.0) at the end; `--show-prompt` prints the rendered system prompt and
exits.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Literal, Optional

import typer

app = typer.Typer(add_completion=False, no_args_is_help=True, help="The client simulator of a task.\n\n"
                       "Example: factforge client chat pack --task _mock-client-knows < questions.txt")


@app.command("chat")
def chat(pack: Path = typer.Argument(..., help="A task pack directory (holding index.json)."),
         task: str = typer.Option(..., "--task", help="The task id."),
         role: str = typer.Option("owner", "--role", help="Whom to interview: owner, or a stakeholder's role (the kit's task.json client.people)."),
         mode: Literal["offline", "llm"] = typer.Option("offline", "--mode", help="offline (deterministic) or llm (litellm; needs --model)."),
         model: Optional[str] = typer.Option(None, "--model", help="litellm model name (llm mode)."),
         as_json: bool = typer.Option(False, "--json", help="One JSON object per reply."),
         log: Optional[Path] = typer.Option(None, "--log", help="Write the exchange log here at the end."),
         show_prompt: bool = typer.Option(False, "--show-prompt", help="Print the system prompt and exit.")):
    """Interview the task's client: one message per line on stdin, one reply per line.

    Example: factforge client chat pack --task _mock-client-knows < questions.txt
    """
    if mode == "llm" and not model:
        raise typer.BadParameter("--mode llm needs --model (a litellm model name)", param_hint="'--mode'")
    if mode == "llm":
        from facts.llm import litellm_module  # noqa: PLC0415  (deferred: keeps `factforge --help` fast)

        litellm_module()  # quiet: its banners would land among the replies on stdout
    from .simulator import ClientSimulator  # noqa: PLC0415  (deferred: keeps `factforge --help` fast)

    sim = ClientSimulator.from_pack(pack, task, mode=mode, model=model, role=role)  # type: ignore[arg-type]
    if show_prompt:
        sys.stdout.write(sim.prompt)
        return
    interactive = sys.stdin.isatty()
    if interactive:
        print(f"client of {task}: {sim.remaining} questions (end with Ctrl-D)", file=sys.stderr)
    try:
        for line in sys.stdin:
            message = line.strip()
            if not message:
                continue
            r = sim.reply(message)
            if as_json:
                print(json.dumps(r.model_dump(mode="json"), ensure_ascii=False))
            else:
                print(r.text)
            sys.stdout.flush()
            if r.kind == "quota" or sim.remaining == 0:
                break
    finally:
        if log is not None:
            sim.save_log(log)
