"""`factforge eval PACK --task ID --agent PATH|oracle|naive|null ...` (mounted in pipeline/cli.py).

Only typer is imported at module level, so `factforge eval --help` answers fast; the
evaluator's modules are imported when the command runs.
"""
from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer


def eval_command(
    pack: Path = typer.Argument(..., help="A task pack directory (holding index.json)."),
    task: str = typer.Option(..., "--task", help="The task id to evaluate."),
    agent: str = typer.Option(..., "--agent", help="An agent module (a .py file, or a directory holding agent.py), or a reference agent: oracle, naive, null."),
    trials: int = typer.Option(1, "--trials", "-k", help="Trials per test (pass^k for k = 1..K)."),
    user: str = typer.Option("offline", "--user", help="offline (scripted, deterministic) or llm (litellm; --user-model)."),
    out: Path = typer.Option(Path("eval-results"), "--out", help="Where results.json and report.html go."),
    user_model: Optional[str] = typer.Option(None, "--user-model", help="litellm model of the LLM user."),
    judge: Optional[str] = typer.Option(None, "--judge", help="litellm model of the NL-assertion judge (opt-in)."),
    split: str = typer.Option("test", "--split", help="test (held-out tests) or live (live experiments)."),
    test: Optional[List[str]] = typer.Option(None, "--test", help="Only these test ids; repeatable."),
    max_steps: int = typer.Option(30, "--max-steps", help="Messages per conversation (user and agent) before it is cut."),
    step_timeout: float = typer.Option(120.0, "--step-timeout", help="Seconds the agent may take for one reply (then the conversation fails and its sandbox is restarted)."),
    cpu_seconds: Optional[float] = typer.Option(None, "--cpu-seconds", help="CPU time one conversation may use, all the agent's processes together (then it fails). Default: the task's sandbox CPUs x --step-timeout."),
    deployment: Optional[str] = typer.Option(None, "--deployment", help="Evaluate under another deployment of the domain: an id of its deployments/ folder, a TOML file, or clean."),
    isolation: str = typer.Option("sandbox", "--isolation", help="sandbox (bubblewrap; the default) or process (a plain child process: no isolation, for machines without bwrap)."),
    seed: int = typer.Option(0, "--seed", help="Seed of the bootstrap interval."),
    user_mock_response: Optional[str] = typer.Option(None, "--user-mock-response", hidden=True),
    judge_mock_response: Optional[str] = typer.Option(None, "--judge-mock-response", hidden=True),
):
    """Score an agent on a task's sealed tests: results.json and report.html in --out."""
    from facts.errors import FactforgeError  # noqa: PLC0415

    if user not in ("offline", "llm"):
        raise FactforgeError(f"--user must be offline or llm, not {user!r}")
    if split not in ("test", "live"):
        raise FactforgeError(f"--split must be test or live, not {split!r}")
    if isolation not in ("sandbox", "process"):
        raise FactforgeError(f"--isolation must be sandbox or process, not {isolation!r}")
    from .engine import EvalConfig, run_eval, write_results  # noqa: PLC0415
    from .report import write_report  # noqa: PLC0415

    cfg = EvalConfig(pack=pack, task=task, agent=agent, trials=trials, user=user, user_model=user_model,  # type: ignore[arg-type]
                     user_mock_response=user_mock_response, judge=judge, judge_mock_response=judge_mock_response,
                     split=split, tests=list(test or []) or None, max_steps=max_steps, step_timeout_s=step_timeout,  # type: ignore[arg-type]
                     cpu_seconds=cpu_seconds,
                     isolation=isolation, deployment=deployment, seed=seed)  # type: ignore[arg-type]
    results = run_eval(cfg)
    path = write_results(results, out)
    write_report(results, out)
    s = results.summary
    typer.echo(f"{task} {agent} on pack {results.run.pack_version}: final score {s.final_score:.4f} (mean reward {s.mean_reward:.4f}, penalty "
               f"{s.penalty:.4f}, 95% CI {s.ci.low:.3f}-{s.ci.high:.3f}), {s.conversations} conversations, "
               f"{s.infra_errors} infra errors, {s.agent_errors} agent errors; {path} and report.html")
