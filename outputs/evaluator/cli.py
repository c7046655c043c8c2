"""`factforge eval PACK --task ID --agent PATH|oracle|naive|null|reciter|guesser ...` (mounted in pipeline/cli.py).

Only typer is imported at module level, so `factforge eval --help` answers fast; the
evaluator's modules are imported when the command runs. A run whose every conversation
failed on our side (the infrastructure: most often a provider key that is not set) writes
its results as usual, then exits 1 with one line naming the cause.
"""
from __future__ import annotations

import math
import re
import sys
import time
from pathlib import Path
from typing import List, Literal, Optional

import typer
from rich.console import Console

from facts.errors import FactforgeError

KEY_NAME = re.compile(r"\b[A-Z][A-Z0-9]*_(?:API_KEY|AUTH_TOKEN)\b")
MISSING_KEY = re.compile(r"missing (?:credentials|[a-z]+ api key)|api[_ ]key .{0,40}(?:not set|missing)|no api key",
                         re.IGNORECASE)


def _positive_seconds(value: Optional[float]) -> Optional[float]:
    if value is not None and not 0 < value < math.inf:
        raise typer.BadParameter(f"{value:g} is not a positive, finite number of seconds")
    return value


def _missing_keys(models: list[str]) -> list[str]:
    """Environment variables litellm needs for these models and does not find."""
    from facts.llm import litellm_module  # noqa: PLC0415  (deferred: keeps `factforge --help` fast)

    litellm = litellm_module()

    keys: set[str] = set()
    for m in models:
        try:
            keys.update(litellm.validate_environment(model=m).get("missing_keys") or [])
        except Exception:  # noqa: BLE001,S112  (a model litellm cannot place names no key)
            continue
    return sorted(keys)


def infra_cause(results) -> Optional[str]:
    """One line for a run whose every conversation failed on the infrastructure (None when any
    conversation was scored): the provider keys that are not set when credentials were
    missing, else the common error (or the first, with how many others there were)."""
    convs = results.tests
    if not convs or not all(c.infra_error for c in convs):
        return None
    errors = [c.infra_error for c in convs]
    if all(MISSING_KEY.search(e) for e in errors):
        models = sorted({u.model for c in convs for u in c.usage if not u.ok})
        keys = _missing_keys(_litellm_names(results, models)) or sorted(
            {m.group(0) for e in errors for m in [KEY_NAME.search(e)] if m})
        what = " and ".join(keys) if keys else "the model provider's API key"
        return f"missing credentials for the model provider: set {what} in the environment"
    others = len(set(errors)) - 1
    return errors[0] + (f" (and {others} other causes)" if others else "")


def _litellm_names(results, menu_names: list[str]) -> list[str]:
    """litellm model names of the task's menu models named (by menu name)."""
    try:
        from outputs.packs.menu import load_menu  # noqa: PLC0415  (deferred: keeps `factforge --help` fast)
        from outputs.packs.store import Pack  # noqa: PLC0415  (deferred: keeps `factforge --help` fast)

        task = Pack(Path(results.run.pack)).json(results.run.task, "kit", "task.json")
        menu = load_menu(task["models"]["menu"]).menu
        return [menu.model(n).litellm_model for n in menu_names]
    except Exception:  # noqa: BLE001  (naming the key is a courtesy; the error stays in results.json)
        return []


class _Progress:
    """A run's progress: a status line on a terminal; otherwise one line per finished
    conversation on stderr."""

    def __init__(self):
        self.tty = sys.stderr.isatty()
        self.done = 0
        self.t0 = time.perf_counter()
        self._status = None

    def __call__(self, line: str) -> None:
        self.done += 1
        text = f"conversation {self.done} done: {line} ({time.perf_counter() - self.t0:.0f}s)"
        if self._status is not None:
            self._status.update(text)
        else:
            print(text, file=sys.stderr, flush=True)

    def __enter__(self) -> "_Progress":
        if self.tty:
            self._status = Console(stderr=True).status("starting the run...")
            self._status.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        if self._status is not None:
            self._status.__exit__(*exc)


def eval_command(
    pack: Path = typer.Argument(..., help="A task pack directory (holding index.json)."),
    task: str = typer.Option(..., "--task", help="The task id to evaluate."),
    agent: str = typer.Option(..., "--agent", help="An agent module (a .py file, or a directory holding agent.py), or a reference agent: oracle, naive, null, or the adversaries reciter (recites the policy) and guesser (does what is asked, states wrong values)."),
    trials: int = typer.Option(3, "--trials", "-k", min=1, help="Trials per test (pass^k for k = 1..K)."),
    user: Literal["offline", "llm"] = typer.Option("offline", "--user", help="offline (scripted, deterministic) or llm (litellm; needs --user-model)."),
    out: Path = typer.Option(Path("eval-results"), "--out", help="Where results.json and report.html go."),
    user_model: Optional[str] = typer.Option(None, "--user-model", help="litellm model of the LLM user."),
    judge: Optional[str] = typer.Option(None, "--judge", help="litellm model of the NL-assertion judge (opt-in)."),
    split: Literal["test", "live"] = typer.Option("test", "--split", help="test (held-out tests) or live (live experiments)."),
    test: Optional[List[str]] = typer.Option(None, "--test", metavar="<id>", help="Only these test ids; repeatable."),
    max_steps: int = typer.Option(30, "--max-steps", min=2, help="Messages per conversation (user and agent) before it is cut."),
    step_timeout: float = typer.Option(120.0, "--step-timeout", callback=_positive_seconds, help="Seconds the agent may take for one reply (then the conversation fails and its sandbox is restarted)."),
    cpu_seconds: Optional[float] = typer.Option(None, "--cpu-seconds", callback=_positive_seconds, help="CPU time one conversation may use, all the agent's processes together (then it fails). Default: the task's sandbox CPUs x --step-timeout."),
    deployment: Optional[str] = typer.Option(None, "--deployment", help="Evaluate under another deployment of the domain: an id of its deployments/ folder, a TOML file, or clean."),
    enable: Optional[List[str]] = typer.Option(None, "--enable", metavar="<operation>", help="Switch on one of the task's capabilities (an operation its deployment hides until the client enables it), as an engagement would have; repeatable; all: every one."),
    fixed: Optional[List[str]] = typer.Option(None, "--fixed", metavar="<defect>", help="Score with the client's fix of one of the deployment's defects deployed (its index), as an engagement would have; repeatable; all: every fix the client can deploy."),
    isolation: Literal["sandbox", "process"] = typer.Option("sandbox", "--isolation", help="sandbox (bubblewrap; the default) or process (a plain child process: no isolation, for machines without bwrap)."),
    seed: int = typer.Option(0, "--seed", help="Seed of the bootstrap interval."),
    user_mock_response: Optional[str] = typer.Option(None, "--user-mock-response", hidden=True),
    judge_mock_response: Optional[str] = typer.Option(None, "--judge-mock-response", hidden=True),
):
    """Score an agent on a task's sealed tests: results.json and report.html in --out.

    Progress is a status line on a terminal, otherwise a line per conversation on stderr. Exits 1 with one line when every conversation failed on our side (such as a provider
    key that is not set); the details stay in results.json.

    Example: factforge eval pack --task _mock-records-only --agent oracle --out eval-results
    """
    if user == "llm" and not user_model:
        raise typer.BadParameter("--user llm needs --user-model (a litellm model name)", param_hint="'--user'")
    from .engine import EvalConfig, run_eval, write_results  # noqa: PLC0415  (deferred: keeps `factforge --help` fast)
    from .report import write_report  # noqa: PLC0415  (deferred: keeps `factforge --help` fast)

    cfg = EvalConfig(pack=pack, task=task, agent=agent, trials=trials, user=user, user_model=user_model,
                     user_mock_response=user_mock_response, judge=judge, judge_mock_response=judge_mock_response,
                     split=split, tests=list(test or []) or None, max_steps=max_steps, step_timeout_s=step_timeout,
                     cpu_seconds=cpu_seconds,
                     isolation=isolation, deployment=deployment, capabilities=list(enable or []) or None,
                     fixes=list(fixed or []) or None, seed=seed)
    with _Progress() as progress:
        results = run_eval(cfg, progress=progress)
    path = write_results(results, out)
    write_report(results, out)
    s = results.summary
    cause = infra_cause(results)
    if cause is not None:
        raise FactforgeError(f"all {s.conversations} conversations failed on the infrastructure, none was scored: "
                             f"{cause} (details in {path})")
    typer.echo(f"{task} {agent} on pack {results.run.pack_version}: final score {s.final_score:.4f} (mean reward {s.mean_reward:.4f}, penalty "
               f"{s.penalty:.4f}, 95% CI {s.ci.low:.3f}-{s.ci.high:.3f}), {s.conversations} conversations, "
               f"{s.infra_errors} infra errors, {s.agent_errors} agent errors; {path} and report.html")
