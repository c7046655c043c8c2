"""Running an evaluation: a task of a pack, an agent, K trials of every held-out test.

Per conversation (test x trial): the API backend is reset to the test database (the sealed
`db.json`), the agent starts fresh (`create_agent()`, `get_init_state()`), the user opens
and the two alternate until the user's stop token, the step limit, or an error; pending
asynchronous work is settled; then the conversation is graded (`rewards`) from what the
backend recorded, never from what the agent claims.

Errors: an exception, a timeout or a malformed reply of the agent is the agent's failure
(`error`, reward 0). A failure of ours (the sandbox, the API backend, the gateway's
upstream, the user simulator) is an infrastructure error (`infra_error`, reward 0 too,
counted apart in the summary and never dropped from the means).
"""
from __future__ import annotations

import datetime as dt
import functools
import json
import shutil
import tempfile
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from statistics import fmean
from typing import Any, Callable, Literal, Optional

from domains.apikit import Call, DomainApi, db_hash
from domains.simtests import SimTest
from domains.variants import resolve
from facts.errors import FactforgeError
from facts.hashing import content_hash, sha256_hex
from outputs.api.deployment import clean_deployment, deployment_path, load_deployment, parse_deployment
from outputs.packs.menu import Menu, load_menu
from outputs.packs.phrasing import comply, rules_from_json
from outputs.packs.store import Pack

from . import metrics, rewards
from .adversaries import guess_reply, recital
from .gateway import ModelGateway
from .models import Component, ConversationResult, Interval, Message, Results, RunInfo, Summary
from .sandbox import AgentError, InfraError, Sandbox, SandboxHost, agent_workspace, resolve_agent
from .users import LlmUser, ScriptedUser, UserError

REFERENCE_AGENTS = ("oracle", "naive", "null", "reciter", "guesser")
ADVERSARIES = ("reciter", "guesser")
Isolation = Literal["sandbox", "process"]


@dataclass
class EvalConfig:
    pack: Path
    task: str
    agent: str                       # a path, or a reference agent (REFERENCE_AGENTS)
    trials: int = 1
    user: Literal["offline", "llm"] = "offline"
    user_model: Optional[str] = None
    user_mock_response: Optional[str] = None
    judge: Optional[str] = None
    judge_mock_response: Optional[str] = None
    split: Literal["test", "live"] = "test"
    tests: Optional[list[str]] = None
    max_steps: int = 30
    step_timeout_s: float = 120.0
    cpu_seconds: Optional[float] = None  # CPU time per conversation; None: the task's cpus x step_timeout_s
    isolation: Isolation = "sandbox"
    deployment: Optional[str] = None     # evaluate under another deployment of the domain (id or TOML path)
    capabilities: Optional[list[str]] = None  # the task's hidden operations switched on ("all": every one)
    fixes: Optional[list[str]] = None         # the task's deployable fixes deployed, by defect index ("all")
    gateway_mock_response: Any = None
    seed: int = 0
    domains_dirs: list[str] = field(default_factory=list)


# --------------------------------------------------------------------------- the task

@dataclass
class TaskContext:
    """Everything the evaluator reads from a pack for one task (sealed part included)."""
    pack: Any                            # outputs.packs.store.Pack (None for a suite context)
    task_id: str
    sealed: dict
    tests: list[SimTest]
    db: dict
    api: DomainApi
    check: Callable[[dict], list[str]]
    rules: list
    brand: dict
    budget: dict[str, float]
    deployment: Optional[dict]           # the deployment as plain data (what the oracle's client is given)
    deployment_id: str
    deployment_text: Optional[str]       # the deployment file's text (None: the clean deployment)
    enabled: frozenset = frozenset()     # capabilities switched on for this run
    fixed: frozenset = frozenset()       # defects whose fix the client deployed
    statements: Optional[list[str]] = None  # the policy's statements, when the caller has them decomposed

    @property
    def capabilities(self) -> list[str]:
        """The operations the task's deployment hides until the client switches them on."""
        from outputs.api.server import task_capabilities  # noqa: PLC0415  (deferred: fastapi)
        return task_capabilities(self.sealed)

    @property
    def fixable(self) -> list[int]:
        """The deployment's defects the task's client can deploy a fix for."""
        return list(self.sealed.get("fixable", []))

    def scored_deployment(self, capabilities: Optional[list[str]], fixes: Optional[list[str]]) -> Optional[dict]:
        """Set what the run's deployment has switched on and fixed (`capabilities` and `fixes`:
        names and defect indices, or "all"; None: nothing) and return its record, which
        `results.json` keeps; None for a task without capabilities or fixes (nothing to set)."""
        from outputs.api.server import switched  # noqa: PLC0415  (deferred: fastapi, only when the API is served)

        caps, fixable = self.capabilities, self.fixable
        enabled, fixed = switched(self.sealed, capabilities, fixes, self.task_id)
        self.enabled, self.fixed = frozenset(enabled), frozenset(fixed)
        if not caps and not fixable:
            return None
        state = {"deployment": self.deployment_id, "capabilities": caps, "enabled": sorted(enabled),
                 "fixable": fixable, "fixed": sorted(fixed)}
        return {**state, "hash": content_hash(state)[:16]}

    @classmethod
    def load(cls, pack_dir: Path, task_id: str, split: str = "test", domains_dirs: Optional[list] = None) -> "TaskContext":
        pack = Pack(Path(pack_dir))
        sealed = pack.json(task_id, "sealed", "task.json")
        raw = pack.json(task_id, "sealed", "tests.json" if split == "test" else "live.json")
        tests = [SimTest.model_validate(t) for t in raw]
        world = resolve(sealed["bundle"], domains_dirs)
        api = world.api()
        if api is None:
            raise FactforgeError(f"task {task_id}: domain {sealed['domain']!r} has no API to evaluate against")
        text = (pack.read(task_id, "sealed", "deployment.toml").decode("utf-8")
                if pack.has(task_id, "sealed", "deployment.toml") else None)
        return cls(pack=pack, task_id=task_id, sealed=sealed, tests=tests, db=pack.json(task_id, "sealed", "db.json"),
                   api=api, check=world.check_database, rules=rules_from_json(sealed["phrasing"]["rules"]),
                   brand=dict(sealed["brand"]), budget={k: float(v) for k, v in sealed["budget"].items()},
                   deployment=_toml(text), deployment_id=sealed["deployment"]["id"], deployment_text=text)

    def override_deployment(self, ref: str, domains_dirs: Optional[list] = None) -> None:
        """Evaluate under another deployment: an id of the domain's `deployments/` or a TOML path."""
        p = Path(ref)
        if not (p.suffix == ".toml" and p.is_file()):
            p = deployment_path(resolve(self.sealed["bundle"], domains_dirs).pack.path, ref)
        if p is None:
            self.deployment_id, self.deployment_text, self.deployment = "clean", None, None
            return
        dep, _ = load_deployment(p, self.api)
        self.deployment_id, self.deployment_text = dep.id, p.read_text(encoding="utf-8")
        self.deployment = _toml(self.deployment_text)


    # ---- what the run needs besides the tests ----------------------------------------------
    @functools.cached_property
    def policy_statements(self) -> list[str]:
        """Every fact statement of the task's policy, in order (what the policy reciter quotes):
        the sealed facts of a pack, the world's facts otherwise."""
        if self.statements is not None:
            return list(self.statements)
        if self.pack is not None and self.pack.has(self.task_id, "sealed", "facts.json"):
            return [f["statement"] for f in self.pack.json(self.task_id, "sealed", "facts.json")["facts"]]
        return [f.statement for f in resolve(self.sealed["bundle"]).factset().facts]

    @functools.cached_property
    def seed_hash(self) -> str:
        """The test database's hash (the final hash of a conversation that wrote nothing)."""
        return db_hash(self.db)

    @property
    def domain(self) -> str:
        return self.sealed["domain"]

    @property
    def pack_version(self) -> str:
        return self.pack.index.pack_version

    @property
    def allowed_models(self) -> list[str]:
        return list(self.sealed["menu"]["models"])

    @property
    def memory_gb(self) -> float:
        return float(self.sealed["spec"]["sandbox"]["memory_gb"])

    @property
    def cpus(self) -> int:
        return int(self.sealed["spec"]["sandbox"]["cpus"])

    def menu(self):
        """The task's menu from the kit, checked against the sha256 the sealed task pins."""
        raw = self.pack.read(self.task_id, "kit", "models/menu.toml")
        if sha256_hex(raw) != self.sealed["menu"]["sha256"]:
            raise FactforgeError(f"task {self.task_id}: the kit's models/menu.toml differs from the menu the task pins")
        return Menu.model_validate(_toml(raw.decode("utf-8")))

    def materialize_kit(self, dest: Path) -> Path:
        return self.pack.materialize(self.task_id, "kit", dest)

    def sealed_files(self) -> frozenset[tuple[int, str]]:
        """(size, sha256) of every sealed file of the task: what an agent's folder must not hold."""
        return frozenset((r.size, r.sha256) for r in self.pack.manifest(self.task_id, "sealed").files)


class SuiteContext(TaskContext):
    """A domain's whole held-out suite as one task, without a pack (benchmarks): the seed
    database of `seed`, every test of its suite, a deployment of the domain, the standard
    menu and no phrasing rules. The kit holds only what an agent needs to reach the API and
    the gateway (the contract, the SDK, the menu)."""

    @classmethod
    def from_world(cls, key: str, seed: int = 0, deployment: str = "clean") -> "SuiteContext":
        world = resolve(key)
        api = world.api()
        db = world.database(seed)
        suite = world.test_suite(seed=seed, db=db)
        menu = load_menu("standard-1")
        domain = suite.domain
        b = world.pack.brand
        ctx = cls(pack=None, task_id=f"suite:{key}@{seed}", tests=list(suite.tests), db=db, api=api,
                  check=world.check_database, rules=[], brand={"company": b.company, "short_name": b.short_name},
                  budget=menu.menu.budget(domain, ["easy", "medium", "hard"]), deployment=None, deployment_id="clean",
                  deployment_text=None,
                  sealed={"domain": domain, "bundle": key, "menu": {"models": [m.name for m in menu.menu.models]}})
        ctx._menu = menu
        if deployment != "clean":
            ctx.override_deployment(deployment)
        return ctx

    @property
    def pack_version(self) -> str:
        return "suite"

    @property
    def memory_gb(self) -> float:
        return 4.0

    @property
    def cpus(self) -> int:
        return 2

    def menu(self):
        return self._menu.menu

    def sealed_files(self) -> frozenset[tuple[int, str]]:
        return frozenset()

    def materialize_kit(self, dest: Path) -> Path:
        dest = Path(dest)
        (dest / "api").mkdir(parents=True)
        (dest / "api" / "openapi.json").write_text(json.dumps(self.api.openapi()), encoding="utf-8")
        (dest / "sdk").mkdir()
        shutil.copyfile(Path(__file__).resolve().parents[1] / "packs" / "kitfiles" / "factforge_sdk.py",
                        dest / "sdk" / "factforge_sdk.py")
        (dest / "models").mkdir()
        (dest / "models" / "menu.toml").write_bytes(self._menu.raw)
        (dest / "task.json").write_text(json.dumps({"id": self.task_id, "domain": self.domain,
                                                    "models": {"models": self.allowed_models}}), encoding="utf-8")
        return dest


def _toml(text: Optional[str]) -> Optional[dict]:
    return tomllib.loads(text) if text is not None else None


# --------------------------------------------------------------------------- the API backend

class ServerBackend:
    """The task's production API (`outputs.api`: the clean service behind the deployment's
    defect layer, on a virtual clock) served on the Unix socket the sandbox sees."""

    def __init__(self, ctx: TaskContext, socket_path: Path, seed: int = 0):
        from outputs.api.app import ApiState  # noqa: PLC0415  (deferred: fastapi, only when the API is served)
        from outputs.api.server import ApiServer  # noqa: PLC0415  (deferred: fastapi, only when the API is served)

        dep = (parse_deployment(ctx.deployment_text, Path(f"{ctx.deployment_id}.toml"), ctx.api)
               if ctx.deployment_text is not None else clean_deployment())
        state = ApiState(ctx.api, ctx.db, dep, task_id=ctx.task_id, trial=0, seed=seed, mode="eval", clock="virtual",
                         hidden=set(ctx.capabilities) - set(ctx.enabled), fixed=ctx.fixed)
        self.server = ApiServer(state, uds=socket_path)
        self.server.start()
        self.state = self.server.state
        self._log = None

    def reset(self, trial: int) -> None:
        self.state.reset(trial)
        self._log = None

    def settle(self) -> None:
        # the agent's sandbox is gone: what it sent before it died is answered and logged
        # here, in its own conversation, never after the next reset
        self.server.quiesce()
        self.state.settle()
        self._log = self.state.log

    @property
    def log(self) -> list[dict[str, Any]]:
        log = self._log if self._log is not None else self.state.log
        return [{"operation": e.operation, "arguments": e.arguments, "status": e.status, "committed": e.committed,
                 "defects": list(e.defects)} for e in log.entries]

    def committed(self) -> list[Call]:
        return (self._log if self._log is not None else self.state.log).replay_calls()

    def defects_hit(self) -> dict[str, int]:
        return (self._log if self._log is not None else self.state.log).defects_hit()

    def close(self) -> None:
        self.server.stop()


# --------------------------------------------------------------------------- reference payloads

def reference_payload(agent: str, test: SimTest, ctx: TaskContext) -> Optional[dict]:
    """What a reference agent replays, composed here (the agent never reads the sealed part).
    Every reply is put under the task's phrasing rules, the adversaries' too."""
    info = test.evaluation_criteria.communicate_info
    if agent == "oracle":
        text = ("I have looked into your request and handled it under our policy."
                + (f" The figures that apply: {', '.join(info)}." if info else ""))
        calls = test.gold_calls()
    elif agent == "naive":
        text, calls = "I have done what you asked.", test.naive_calls()
    elif agent == "guesser":
        text, calls = guess_reply(info), test.naive_calls()
    elif agent == "reciter":
        text, calls = recital(ctx.policy_statements), []
    else:
        return None
    return {"actions": [c.model_dump(mode="json") for c in calls], "reply": comply(ctx.rules, [text], ctx.brand)[0],
            "deployment": ctx.deployment}


# --------------------------------------------------------------------------- one conversation

def converse(host, user, max_steps: int) -> tuple[list[Message], str, Optional[str], Optional[str]]:
    """(messages, end, agent error, infra error)."""
    messages: list[Message] = []
    try:
        text = user.first()
    except UserError as e:
        return messages, "infra_error", None, str(e)
    messages.append(Message(role="user", content=text))
    steps = 1
    while not user.stopped:
        if steps >= max_steps:
            return messages, "step_limit", None, None
        try:
            reply = host.step(text)
        except AgentError as e:
            return messages, "agent_error", str(e), None
        except InfraError as e:
            return messages, "infra_error", None, str(e)
        messages.append(Message(role="assistant", content=reply))
        steps += 1
        if steps >= max_steps:
            return messages, "step_limit", None, None
        try:
            text = user.respond(reply)
        except UserError as e:
            return messages, "infra_error", None, str(e)
        messages.append(Message(role="user", content=text))
        steps += 1
    return messages, "user_stop", None, None


def grade(test: SimTest, ctx: TaskContext, cfg: EvalConfig, messages: list[Message], backend) -> dict[str, Component]:
    agent_msgs = [m.content for m in messages if m.role == "assistant"]
    calls = backend.committed()
    out: dict[str, Component] = {}
    basis = list(test.evaluation_criteria.reward_basis)
    if cfg.judge and test.evaluation_criteria.nl_assertions and "NL_ASSERTION" not in basis:
        basis.append("NL_ASSERTION")
    for b in basis:
        if b == "DB":
            out[b] = rewards.score_db(test, *rewards.replay_outcome(ctx.api, ctx.db, ctx.seed_hash, calls))
        elif b == "COMMUNICATE":
            out[b] = rewards.score_communicate(
                test, agent_msgs, heard=[m.content for m in messages if m.role == "user"],
                seen=lambda: rewards.result_texts(ctx.api, ctx.db, backend.log))
        elif b == "ACTION":
            out[b] = rewards.score_actions(test, backend.log)
        elif b == "ENV_ASSERTION":
            out[b] = rewards.score_env(ctx.check(rewards.replay_db(ctx.api, ctx.db, calls)[0]))
        elif b == "NL_ASSERTION":
            out[b] = rewards.score_nl(test, [m.model_dump() for m in messages], cfg.judge,
                                      mock_response=cfg.judge_mock_response)
    if ctx.rules:
        out["PHRASING"] = rewards.score_phrasing(ctx.rules, agent_msgs, ctx.brand)
    return out


def make_user(test: SimTest, cfg: EvalConfig):
    if cfg.user == "llm":
        return LlmUser(test, cfg.user_model or "", mock_response=cfg.user_mock_response)
    return ScriptedUser(test.factforge.script)


def run_conversation(test: SimTest, trial: int, ctx: TaskContext, cfg: EvalConfig, host, backend,
                     gateway: ModelGateway) -> ConversationResult:
    t0 = time.perf_counter()
    agent_error = infra_error = None
    messages: list[Message] = []
    gateway.begin()
    try:
        backend.reset(trial)
    except Exception as e:  # noqa: BLE001  (the backend is ours: whatever breaks it is an infra error)
        end, infra_error = "infra_error", f"the API backend could not reset: {type(e).__name__}: {e}"
    else:
        try:
            host.start(reference_payload(cfg.agent, test, ctx))
        except AgentError as e:
            end, agent_error = "agent_error", str(e)
        except InfraError as e:
            end, infra_error = "infra_error", str(e)
        else:
            messages, end, agent_error, infra_error = converse(host, make_user(test, cfg), cfg.max_steps)
        host.finish()                    # the agent's processes are gone before anything is settled or reset
        try:
            backend.settle()
        except Exception as e:  # noqa: BLE001
            end, infra_error = "infra_error", f"the API backend could not settle: {type(e).__name__}: {e}"
    ledger = gateway.end()
    if ledger.errors and not infra_error:
        infra_error = "; ".join(ledger.errors[:3])
        end = "infra_error"
    if infra_error:
        breakdown: dict[str, Component] = {}
        r = 0.0
    else:
        breakdown = grade(test, ctx, cfg, messages, backend)
        r = 0.0 if agent_error else rewards.reward(list(breakdown.values()))
    return ConversationResult(
        id=test.id, trial=trial, reward=r, breakdown=breakdown, credits=round(ledger.credits, 10), usage=ledger.usage,
        messages=messages, calls=[{k: e[k] for k in ("operation", "arguments", "status", "committed")} for e in backend.log],
        defects_hit=backend.defects_hit(), facts=list(test.factforge.fact_ids), trap=test.factforge.trap, end=end,
        error=agent_error, infra_error=infra_error, seconds=round(time.perf_counter() - t0, 4))


# --------------------------------------------------------------------------- a run

def select_tests(ctx: TaskContext, ids: Optional[list[str]]) -> list[SimTest]:
    if not ids:
        return ctx.tests
    by = {t.id: t for t in ctx.tests}
    unknown = [i for i in ids if i not in by]
    if unknown:
        raise FactforgeError(f"task {ctx.task_id}: no test {unknown[0]!r}; tests: {', '.join(by)}")
    return [by[i] for i in ids]


def summarise(convs: list[ConversationResult], budget: dict[str, float], trials: int, seed: int) -> Summary:
    by_test: dict[str, list[float]] = {}
    for c in convs:
        by_test.setdefault(c.id, []).append(c.reward)
    per_test = [fmean(v) for v in by_test.values()]
    mean_reward = fmean(c.reward for c in convs) if convs else 0.0
    credits_mean = fmean(c.credits for c in convs) if convs else 0.0
    lo, hi = metrics.bootstrap_ci(per_test, seed=seed)
    per_template: dict[str, list[float]] = {}
    for tid, v in by_test.items():
        per_template.setdefault(template_of(tid), []).append(fmean(v))
    by_template = {k: round(fmean(v), 6) for k, v in sorted(per_template.items())}
    def rate(group: Callable[[ConversationResult], list[str]]) -> dict[str, float]:
        acc: dict[str, list[float]] = {}
        for c in convs:
            for g in group(c):
                acc.setdefault(g, []).append(float(c.reward >= metrics.SUCCESS))
        return {k: round(fmean(v), 6) for k, v in sorted(acc.items())}
    return Summary(
        final_score=round(metrics.final_score(mean_reward, credits_mean, budget), 6),
        mean_reward=round(mean_reward, 6), penalty=round(metrics.budget_penalty(credits_mean, budget), 6),
        pass_hat_k={str(k): round(metrics.pass_hat_k(by_test, k), 6) for k in range(1, trials + 1)},
        ci=Interval(low=round(lo, 6), high=round(hi, 6), level=0.95, resamples=2000),
        credits_mean=round(credits_mean, 8), budget=budget,
        infra_errors=sum(1 for c in convs if c.infra_error),
        agent_errors=sum(1 for c in convs if c.error and not c.infra_error),  # a failure is counted once
        conversations=len(convs), tests=len(by_test),
        pass_rate=round(fmean(float(c.reward >= metrics.SUCCESS) for c in convs), 6) if convs else 0.0,
        by_trap=rate(lambda c: [c.trap]), by_fact=rate(lambda c: c.facts),
        templates=len(by_template), macro_reward=round(fmean(by_template.values()), 6) if by_template else 0.0,
        by_template=by_template)


def template_of(test_id: str) -> str:
    """The scenario a test id comes from (`domain.scenario.hash` -> `domain.scenario`)."""
    return test_id.rsplit(".", 1)[0] if test_id.count(".") >= 2 else test_id


def cpu_budget(cfg: EvalConfig, ctx: TaskContext) -> float:
    """CPU seconds a conversation may use, all the agent's processes together: `--cpu-seconds`,
    else the task's sandbox CPUs busy for one reply's whole time limit."""
    return cfg.cpu_seconds if cfg.cpu_seconds is not None else ctx.cpus * cfg.step_timeout_s


def make_host(cfg: EvalConfig, ctx: TaskContext, run_dir: Path) -> SandboxHost:
    """The agent's sandbox: the kit materialized read-only, the agent alone as its workspace (a
    copy of its file, or its folder when that holds nothing sealed; an empty one for a
    reference agent, whose module is mounted by the sandbox)."""
    reference = cfg.agent in REFERENCE_AGENTS
    if reference:
        workspace, module = run_dir / "workspace", f"ffagents.{cfg.agent}"
        workspace.mkdir()
    else:
        path, module = resolve_agent(cfg.agent, ctx.sealed_files())
        workspace = agent_workspace(path, run_dir / "workspace")
    kit = ctx.materialize_kit(run_dir / "kit")
    sandbox = Sandbox(kit=kit, workspace=workspace, sockets=run_dir / "sock", log=run_dir / "agent.log",
                      reference=reference, memory_gb=ctx.memory_gb, cpu_seconds=cpu_budget(cfg, ctx),
                      isolation=cfg.isolation)
    return SandboxHost(sandbox, module, cfg.step_timeout_s, fresh=not reference)


def run_eval(cfg: EvalConfig, progress: Optional[Callable[[str], None]] = None,
             ctx: Optional[TaskContext] = None) -> Results:
    """Evaluate `cfg.agent` on the task `cfg.task` of `cfg.pack` (or on `ctx`, a context
    built otherwise, e.g. a domain's whole suite)."""
    if cfg.trials < 1:
        raise FactforgeError("--trials must be at least 1")
    if cfg.cpu_seconds is not None and cfg.cpu_seconds <= 0:
        raise FactforgeError("--cpu-seconds must be positive")
    if cfg.agent not in REFERENCE_AGENTS:
        resolve_agent(cfg.agent)         # refused before anything is built; again with the sealed files below
    if cfg.user == "llm" and not cfg.user_model:
        raise FactforgeError("--user llm needs --user-model (a litellm model name)")
    started = dt.datetime.now(dt.timezone.utc).replace(microsecond=0).isoformat()
    t0 = time.perf_counter()
    ctx = ctx or TaskContext.load(cfg.pack, cfg.task, cfg.split, cfg.domains_dirs)
    if cfg.deployment:
        ctx.override_deployment(cfg.deployment, cfg.domains_dirs)
    scored = ctx.scored_deployment(cfg.capabilities, cfg.fixes)
    tests = select_tests(ctx, cfg.tests)
    needs_judge = [t.id for t in tests if "NL_ASSERTION" in t.evaluation_criteria.reward_basis]
    if needs_judge and not cfg.judge:
        raise FactforgeError(f"test {needs_judge[0]} is scored on NL assertions: pass --judge MODEL")
    menu = ctx.menu()
    convs: list[ConversationResult] = []
    with tempfile.TemporaryDirectory(prefix="factforge-eval-") as tmp:
        run_dir = Path(tmp)
        (run_dir / "sock").mkdir()
        gateway = ModelGateway(menu, ctx.allowed_models, mock_response=cfg.gateway_mock_response)
        backend = host = None
        try:
            gateway.start(run_dir / "sock" / "gateway.sock")
            backend = ServerBackend(ctx, run_dir / "sock" / "api.sock", cfg.seed)
            host = make_host(cfg, ctx, run_dir)
            isolation = host.sandbox.isolation
            for test in tests:
                for trial in range(cfg.trials):
                    convs.append(run_conversation(test, trial, ctx, cfg, host, backend, gateway))
                    if progress:
                        progress(f"{test.id} trial {trial}: reward {convs[-1].reward:g}")
        finally:
            if host is not None:
                host.close()
            if backend is not None:
                backend.close()
            gateway.stop()
    run = RunInfo(pack=str(Path(cfg.pack).resolve()) if ctx.pack is not None else ctx.task_id,
                  pack_version=ctx.pack_version, task=cfg.task, domain=ctx.domain, agent=cfg.agent, user=cfg.user, trials=cfg.trials, split=cfg.split,
                  deployment=ctx.deployment_id, scored_deployment=scored, isolation=isolation, judge=cfg.judge,
                  seed=cfg.seed,
                  started=started, seconds=round(time.perf_counter() - t0, 3),
                  limits={"cpu_seconds": cpu_budget(cfg, ctx), "step_timeout_s": cfg.step_timeout_s,
                          "memory_gb": ctx.memory_gb})
    return Results(run=run, summary=summarise(convs, ctx.budget, cfg.trials, cfg.seed), tests=convs)


def write_results(results: Results, out: Path) -> Path:
    """`out/results.json` (written whole, then renamed into place)."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    target = out / "results.json"
    tmp = out / ".results.json.tmp"
    tmp.write_text(json.dumps(results.model_dump(mode="json"), indent=2, sort_keys=True, ensure_ascii=False) + "\n",
                   encoding="utf-8")
    tmp.replace(target)
    return target
