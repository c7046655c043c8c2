"""Build a task pack from the task specs of one or more domains.

For each task (`domains/<name>/tasks/<id>.toml`):

1. resolve every reference of the spec: the bundle (domain or variant), fact ids, policy
   sections, kinds, the deployment (`domains/<name>/deployments/<id>.toml`, pinned by
   sha256; `clean` without a file is the deployment without defects), the menu (name and
   sha256), phrasing rules, models, and every training, live-experiment and test id (a
   missing id is an error naming the spec's line: it never shrinks the denominator);
2. build the evidence surface (`evidence.EvidenceBuilder`: the domain's plan, narrowed,
   edited for the client, rendered through the shared cache) and prove it;
3. run the blocking checks (`CHECKS`): ids resolve and are disjoint, every gold replays to
   its expected database hash on a fresh copy of the task's test database, the evidence is
   proven (held facts absent, contested facts in two versions, carriers recoverable), every
   fact a test or live experiment exercises is learnable (recoverable from the kit, or
   known to the client), and the kit scan finds nothing sealed;
4. write the kit and the sealed part into the pack's object store (`store.PackWriter`).

Databases: the evidence and the kit's development data come from the domain's build seed
(`--seed`, the same database `factforge build` renders from); training scenarios are that
database's simulations. Live experiments and tests come from the spec's `test_seed`
database, which the kit never sees, so no gold argument of a held-out simulation (a
customer, a booking, a payment method) is in the kit.

Incremental: a task whose inputs (its spec, the domain's files, factforge's code, the menu,
the phrasing catalog, the deployment, the seed, the writer, the audit reseeds) hash the same
as in the pack already at `--out` is reused from it (objects re-hashed, nothing rebuilt); a
full rebuild still renders and extracts only what the shared caches lack.
"""
from __future__ import annotations

import os
import pickle
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from domains import DomainPack, discover, get_pack
from domains.apikit import db_hash
from domains.simtests import SimTest
from domains.variants import World, resolve
from facts import GENERATOR_VERSION
from facts.errors import FactforgeError
from facts.hashing import content_hash, file_sha256, sha256_hex

from . import phrasing as ph
from .evidence import EvidenceBuilder, Surface, audit_reseeds
from .menu import LoadedMenu, load_menu
from .presence import rivals_of
from .scan import KitText, Needles, gold_strings, raw_views, scan_kit, strings_in, text_file
from .spec import LoadedSpec, load_domain_specs
from .store import Pack, PackIndex, PackWriter, TaskEntry, TaskHashes, json_bytes, object_path
from .workspace import seeded_workspace, templates

CHECKS = ("ids_resolve_and_disjoint", "gold_replays", "evidence_proven", "tests_learnable", "kit_scan_clean")
KITFILES = Path(__file__).resolve().parent / "kitfiles"
SOURCE_PACKAGES = ("facts", "domains", "transforms", "audits", "outputs")


class BuildFailed(FactforgeError):
    pass


def default_workspace() -> Path:
    return Path(os.environ.get("FACTFORGE_WORKSPACE", str(Path.home() / ".factforge")))


@dataclass
class BuildOptions:
    seed: int = 0
    workspace: Path = field(default_factory=default_workspace)

    @property
    def cache_dir(self) -> Path:
        return Path(self.workspace) / "cache"

    @property
    def audit_db(self) -> Path:
        return Path(os.environ.get("FACTFORGE_AUDIT_DB", str(Path(self.workspace) / "audit.sqlite")))


def code_hash() -> str:
    """sha256 over factforge's library source (the packages a pack's content depends on)."""
    root = Path(__file__).resolve().parents[2]
    parts = {}
    for pkg in SOURCE_PACKAGES:
        for p in sorted((root / pkg).rglob("*")):
            if p.is_file() and p.suffix in (".py", ".j2", ".toml", ".md") and "__pycache__" not in p.parts \
                    and not (pkg == "domains" and len(p.relative_to(root / pkg).parts) > 1):
                parts[p.relative_to(root).as_posix()] = file_sha256(p)
    return content_hash(parts)


def domain_files_hash(pack: DomainPack) -> str:
    """sha256 over a domain pack's files, its task specs left out (each task hashes its own)."""
    parts = {}
    for p in sorted(pack.path.rglob("*")):
        rel = p.relative_to(pack.path)
        if p.is_file() and rel.parts[0] != "tasks" and "__pycache__" not in rel.parts:
            parts[rel.as_posix()] = file_sha256(p)
    return content_hash(parts)


def _copy(db: dict) -> dict:
    return pickle.loads(pickle.dumps(db, protocol=pickle.HIGHEST_PROTOCOL))


class DomainBuild:
    """Everything the tasks of one domain share, computed once per build."""

    def __init__(self, pack: DomainPack, opts: BuildOptions):
        self.pack, self.opts = pack, opts
        self.files_hash = domain_files_hash(pack)
        self._worlds: dict[str, World] = {}
        self._facts: dict[str, object] = {}
        self._dbs: dict[tuple[str, int], dict] = {}
        self._suites: dict[tuple[str, int], object] = {}
        self._evidence: dict[str, EvidenceBuilder] = {}
        self._replays: dict[tuple[str, int, str], Optional[str]] = {}

    def world(self, key: str) -> World:
        if key not in self._worlds:
            self._worlds[key] = resolve(key)
        return self._worlds[key]

    def factset(self, key: str):
        if key not in self._facts:
            self._facts[key] = self.world(key).factset()
        return self._facts[key]

    def database(self, key: str, seed: int) -> dict:
        if (key, seed) not in self._dbs:
            self._dbs[(key, seed)] = self.world(key).database(seed)
        return self._dbs[(key, seed)]

    def suite(self, key: str, seed: int):
        if (key, seed) not in self._suites:
            self._suites[(key, seed)] = self.world(key).test_suite(seed, db=self.database(key, seed))
        return self._suites[(key, seed)]

    def evidence(self, key: str) -> EvidenceBuilder:
        if key not in self._evidence:
            self._evidence[key] = EvidenceBuilder(self.world(key), self.factset(key), self.database(key, self.opts.seed),
                                                  self.opts.seed, self.opts.cache_dir, self.opts.audit_db)
        return self._evidence[key]

    def replay(self, key: str, seed: int, test: SimTest) -> Optional[str]:
        """None when the test's gold replays to its expected hash on a fresh copy of the seed
        database and passes the domain's check; else the problem."""
        mk = (key, seed, test.id)
        if mk not in self._replays:
            world = self.world(key)
            db = _copy(self.database(key, seed))
            bad = [o for o in world.api().replay(db, test.gold_calls()) if not o.ok]
            if bad:
                self._replays[mk] = f"{test.id}: gold call {bad[0].name} failed: {bad[0].error.message}"
            elif db_hash(db) != test.factforge.expected_db_hash:
                self._replays[mk] = f"{test.id}: gold replays to {db_hash(db)[:12]}, expected " \
                                    f"{test.factforge.expected_db_hash[:12]}"
            else:
                problems = world.check_database(db)
                self._replays[mk] = f"{test.id}: gold outcome breaks the domain check: {problems[0]}" if problems \
                    else None
        return self._replays[mk]


@dataclass
class TaskResult:
    entry: TaskEntry
    checks: dict[str, list[str]]
    reused: bool = False
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not any(self.checks.values())


def resolve_deployment(pack: DomainPack, ls: LoadedSpec) -> tuple[Optional[bytes], Optional[str]]:
    """(file bytes, sha256) of the task's deployment; (None, None) for the built-in clean one."""
    dep = ls.spec.api.deployment
    d = pack.path / "deployments"
    p = d / f"{dep}.toml"
    if p.is_file():
        raw = p.read_bytes()
        return raw, sha256_hex(raw)
    if dep == "clean":
        return None, None
    avail = ["clean", *sorted(x.stem for x in d.glob("*.toml") if x.stem != "clean")] if d.is_dir() else ["clean"]
    raise ls.error(f"unknown deployment {dep!r}; available: {', '.join(avail)}", "api", "deployment")


class Builder:
    """One pack build: specs of the requested domains -> a pack at `out`."""

    def __init__(self, out: Path, opts: BuildOptions, progress: Optional[Callable[[str], None]] = None):
        self.out, self.opts, self.progress = Path(out), opts, progress or (lambda s: None)
        self.code = code_hash()
        self.catalog, self.catalog_sha = ph.load_catalog()
        self._menus: dict[str, LoadedMenu] = {}
        self.previous = Pack(self.out) if (self.out / "index.json").is_file() else None

    def menu(self, ls: LoadedSpec) -> LoadedMenu:
        name = ls.spec.models.menu
        if name not in self._menus:
            try:
                self._menus[name] = load_menu(name)
            except FactforgeError as e:
                raise ls.error(e.problem, "models", "menu") from None
        m = self._menus[name]
        if m.sha256 != ls.spec.models.menu_sha256:
            raise ls.error(f"menu {name} has sha256 {m.sha256}, the spec pins {ls.spec.models.menu_sha256}",
                           "models", "menu_sha256")
        return m

    # ------------------------------------------------------------------ one task
    def build_task(self, ls: LoadedSpec, d: DomainBuild, writer: PackWriter) -> TaskResult:
        t0 = time.perf_counter()
        spec = ls.spec
        menu = self.menu(ls)
        dep_raw, dep_sha = resolve_deployment(d.pack, ls)
        rules = self._rules(ls)
        self._check_models(ls, menu)
        inputs = content_hash({"spec": ls.sha256, "domain": d.files_hash, "code": self.code, "menu": menu.sha256,
                               "phrasing": self.catalog_sha, "deployment": dep_sha, "seed": self.opts.seed,
                               "writer": os.environ.get("FACTFORGE_WRITER", "builtin"),
                               "reseed": audit_reseeds(d.world(spec.evidence.bundle), self.opts.audit_db),
                               "generator": GENERATOR_VERSION})
        reused = self._reuse(spec.id, inputs, writer)
        if reused is not None:
            return TaskResult(entry=reused, checks={c: [] for c in CHECKS}, reused=True,
                              seconds=time.perf_counter() - t0)

        key = spec.evidence.bundle
        world = d.world(key)
        fs = d.factset(key)
        by_id = fs.by_id()
        for lever, lst in (("client", "held"), ("client", "confirmable"), ("client", "contested"),
                           ("workspace", "stale_facts")):
            for i, fid in enumerate(getattr(getattr(spec, lever), lst)):
                if fid not in by_id:
                    raise ls.error(f"unknown fact id {fid} (bundle {key})", lever, lst, i)
        checks: dict[str, list[str]] = {c: [] for c in CHECKS}

        ev = d.evidence(key)
        try:
            surf = ev.surface(spec.evidence.profile, spec.evidence.difficulty, spec.evidence.sections,
                              spec.evidence.kinds, spec.client.held, spec.client.contested)
        except FactforgeError as e:
            raise ls.error(e.problem, "evidence") from None
        checks["evidence_proven"] += surf.problems()

        dev_suite = d.suite(key, self.opts.seed)
        test_suite = d.suite(key, spec.ids.test_seed)
        dev_tests = {t.id: t for t in dev_suite.tests}
        held_out = {t.id: t for t in test_suite.tests}
        training = self._resolve(ls, "training", dev_tests, f"the development suite (seed {self.opts.seed})")
        live = self._resolve(ls, "live", held_out, f"the test suite (seed {spec.ids.test_seed})")
        tests = self._resolve(ls, "test", held_out, f"the test suite (seed {spec.ids.test_seed})")
        checks["ids_resolve_and_disjoint"] += self._disjoint(training, live, tests)
        dev_db = d.database(key, self.opts.seed)
        test_db = d.database(key, spec.ids.test_seed)
        if db_hash(dev_db) == db_hash(test_db):
            checks["ids_resolve_and_disjoint"].append(
                f"test_seed {spec.ids.test_seed} gives the development database itself: the kit would hold the test database")
        for t in [*live, *tests]:
            p = d.replay(key, spec.ids.test_seed, t)
            if p:
                checks["gold_replays"].append(p)
        for t in training:
            p = d.replay(key, self.opts.seed, t)
            if p:
                checks["gold_replays"].append(p)

        c = spec.client
        client_known = set(c.held) | set(c.confirmable) | set(c.contested)
        learnable = surf.recovered | client_known
        for t in [*live, *tests]:
            missing = sorted(set(t.factforge.fact_ids) - learnable)
            if missing:
                checks["tests_learnable"].append(f"{t.id}: exercises facts neither in the kit nor known to the "
                                                 f"client: {', '.join(missing[:4])}")
        for t in training:
            leaked = sorted(set(t.factforge.fact_ids) & (set(c.held) | set(c.contested)))
            if leaked:
                checks["tests_learnable"].append(f"training {t.id} exercises client-held or contested facts "
                                                 f"{', '.join(leaked[:3])}: its gold would settle them in the kit")

        api = world.api()
        openapi = api.openapi()
        brand = world.pack.brand
        brand_map = {"company": brand.company, "short_name": brand.short_name or brand.company,
                     "phone": brand.phone, "website": brand.website}
        budget = menu.menu.budget(d.pack.name, list(spec.models.budget))
        models = [m for m in menu.menu.models if not spec.models.models or m.name in spec.models.models]

        kit: dict[str, bytes | tuple[Path, str]] = {}
        ledger = None
        if spec.workspace.kind == "seeded":
            cheapest = min(models, key=lambda m: (menu.menu.tiers[m.tier].output_per_mtok, m.name)).name
            files, ledger = seeded_workspace(spec, ls, fs.facts, surf.recovered, set(c.held) | set(c.contested),
                                             brand, [o.name for o in api.operations()], cheapest, self.opts.seed,
                                             world.pack.info.now)
            kit.update(files)
        for r in surf.rendered:
            kit[r.path] = (Path(r.file), r.sha256)
        kit_task = {
            "schema_version": "1.0", "id": spec.id, "domain": spec.domain, "title": spec.title,
            "description": spec.description, "company": brand.company, "business": world.pack.info.business,
            "evidence": {"files": len(surf.rendered), "profile": spec.evidence.profile,
                         "difficulty": spec.evidence.difficulty},
            "client": {"available": c.enabled, "turn_quota": c.turn_quota if c.enabled else 0},
            "workspace": spec.workspace.kind,
            "models": {"menu": spec.models.menu, "menu_sha256": menu.sha256, "models": [m.name for m in models],
                       "budget": budget},
            "phrasing": [r.model_dump(mode="json") for r in rules],
            "training_ids": [t.id for t in training], "live_ids": [t.id for t in live],
            "sandbox": spec.sandbox.model_dump(mode="json"),
        }
        kit["task.json"] = json_bytes(kit_task)
        kit["models/menu.toml"] = menu.raw
        kit["api/openapi.json"] = json_bytes(openapi)
        kit["data/dev_db.json"] = json_bytes(dev_db)
        kit["training/scenarios.json"] = json_bytes({
            "database": "data/dev_db.json", "initial_db_hash": db_hash(dev_db),
            "scenarios": [{"task": t.tau2(), "expected_db_hash": t.factforge.expected_db_hash} for t in training]})
        kit["sdk/factforge_sdk.py"] = (KITFILES / "factforge_sdk.py").read_bytes()
        env = templates()
        kit["AGENT_CONTRACT.md"] = env.get_template("AGENT_CONTRACT.md.j2").render(
            company=brand.company, business=world.pack.info.business, menu=menu.menu, models=models,
            tiers=menu.menu.tiers, budget=budget, rules=rules, client=c.enabled, turn_quota=c.turn_quota,
            sandbox=spec.sandbox).encode("utf-8")
        kit["README.md"] = self._readme(spec, brand.company, len(surf.rendered), training, live).encode("utf-8")

        scan = self._scan(kit, surf, ev, tests, [*live, *tests], dev_db, openapi, fs, c.held)
        checks["kit_scan_clean"] += [f"{h['path']}: {h['what']} {h['needle']!r} ({h['reader']}): "
                                     f"{h.get('context', '')[:120]}" for h in scan["hits"]]

        client = self._client_brief(spec, by_id, surf)
        resolved = {
            "schema_version": "1.0", "spec": spec.model_dump(mode="json"), "bundle": key,
            "domain": spec.domain, "seed": self.opts.seed, "test_seed": spec.ids.test_seed,
            "dev_db_hash": db_hash(dev_db), "test_db_hash": db_hash(test_db), "facts_hash": fs.hash,
            "plan_hash": surf.plan.hash, "company": brand.company, "brand": brand_map,
            "deployment": {"id": spec.api.deployment, "sha256": dep_sha},
            "menu": {"name": spec.models.menu, "sha256": menu.sha256, "models": [m.name for m in models]},
            "budget": budget, "phrasing": {"catalog_sha256": self.catalog_sha,
                                           "rules": [r.model_dump(mode="json") for r in rules]},
        }
        sealed: dict[str, bytes | tuple[Path, str]] = {
            "task.json": json_bytes(resolved), "spec.toml": ls.text.encode("utf-8"),
            "tests.json": json_bytes([t.model_dump(mode="json") for t in tests]),
            "live.json": json_bytes([t.model_dump(mode="json") for t in live]),
            "db.json": json_bytes(test_db), "client.json": json_bytes(client),
            "facts.json": json_bytes({**fs.model_dump(mode="json"), "hash": fs.hash}),
            "evidence.json": json_bytes({**surf.report, "files": [
                {"path": a.path, "kind": a.kind, "artifact_id": a.id, "fact_ids": a.fact_ids,
                 "extractor": surf.extractors[a.id]} for a in surf.plan.artifacts]}),
            "evidence_plan.json": json_bytes(surf.plan),
            "kit_scan.json": json_bytes(scan),
        }
        if dep_raw is not None:
            sealed["deployment.toml"] = dep_raw
        if ledger is not None:
            sealed["workspace_ledger.json"] = json_bytes(ledger)

        kit_sha, kit_size = writer.write_part(spec.id, "kit", self._put(writer, kit))
        sealed_sha, sealed_size = writer.write_part(spec.id, "sealed", self._put(writer, sealed))
        entry = TaskEntry(id=spec.id, domain=spec.domain, bundle=key, title=spec.title, levers=spec.levers(),
                          hashes=TaskHashes(spec=ls.sha256, inputs=inputs, kit=kit_sha, sealed=sealed_sha,
                                            menu=menu.sha256, phrasing=self.catalog_sha, deployment=dep_sha),
                          kit=kit_size, sealed=sealed_size)
        return TaskResult(entry=entry, checks=checks, seconds=time.perf_counter() - t0)

    # ------------------------------------------------------------------ helpers
    def _reuse(self, task_id: str, inputs: str, writer: PackWriter) -> Optional[TaskEntry]:
        if self.previous is None:
            return None
        try:
            old = self.previous.task(task_id)
        except FactforgeError:
            return None
        if old.hashes.inputs != inputs:
            return None
        try:
            for part in ("kit", "sealed"):
                man = self.previous.manifest(task_id, part)
                refs = {f.path: writer.put_file(object_path(self.previous.root, f.sha256), f.sha256) for f in man.files}
                writer.write_part(task_id, part, refs)
        except (FactforgeError, OSError):
            return None
        return old

    def _rules(self, ls: LoadedSpec) -> list:
        out = []
        for i, rid in enumerate(ls.spec.phrasing.rules):
            try:
                out.append(self.catalog.get(rid))
            except KeyError:
                raise ls.error(f"unknown phrasing rule {rid!r}; rules: {', '.join(r.id for r in self.catalog.rules)}",
                               "phrasing", "rules", i) from None
        return out

    @staticmethod
    def _check_models(ls: LoadedSpec, menu: LoadedMenu) -> None:
        names = {m.name for m in menu.menu.models}
        for i, m in enumerate(ls.spec.models.models):
            if m not in names:
                raise ls.error(f"model {m!r} is not on menu {menu.menu.name}; models: {', '.join(sorted(names))}",
                               "models", "models", i)
        if ls.spec.domain not in menu.menu.budgets:
            raise ls.error(f"menu {menu.menu.name} has no budgets for domain {ls.spec.domain!r}", "models", "menu")

    @staticmethod
    def _resolve(ls: LoadedSpec, name: str, pool: dict[str, SimTest], where: str) -> list[SimTest]:
        out = []
        for i, tid in enumerate(getattr(ls.spec.ids, name)):
            if tid not in pool:
                raise ls.error(f"{name} id {tid} does not resolve in {where} ({len(pool)} simulations)", "ids", name, i)
            out.append(pool[tid])
        return out

    @staticmethod
    def _disjoint(training: list, live: list, tests: list) -> list[str]:
        sets = {"training": {t.id for t in training}, "live": {t.id for t in live}, "test": {t.id for t in tests}}
        out = []
        for a, b in (("training", "live"), ("training", "test"), ("live", "test")):
            both = sets[a] & sets[b]
            if both:
                out.append(f"{a} and {b} ids overlap: {', '.join(sorted(both)[:3])}")
        for name, lst in (("training", training), ("live", live), ("test", tests)):
            if len(lst) != len(sets[name]):
                out.append(f"duplicate {name} ids")
        return out

    @staticmethod
    def _put(writer: PackWriter, files: dict) -> dict:
        out = {}
        for path, v in files.items():
            out[path] = writer.put_file(*v) if isinstance(v, tuple) else writer.put_bytes(v)
        return out

    def _scan(self, kit: dict, surf: Surface, ev: EvidenceBuilder, tests: list[SimTest], sealed_tests: list[SimTest],
              dev_db: dict, openapi: dict, fs, held: list[str]) -> dict:
        """Live-experiment ids are the developer's handle for live runs (in the kit's task.json);
        test ids are not. Gold arguments of both are sealed."""
        from transforms import registry  # noqa: PLC0415

        needles = Needles()
        needles.add("test_id", [t.id for t in tests])
        scan_gold, public = gold_strings(sealed_tests, strings_in(dev_db) | strings_in(openapi))
        needles.add("gold_argument", sorted(scan_gold))
        needles.add("fact_id", [f.id for f in fs.facts] + list(surf.facts.keys() - set(fs.by_id())))
        needles.add("answer_key_name", ["facts.json", "plan.json"])
        by_path = {a.path: a for a in surf.plan.artifacts}
        files: list[KitText] = []
        for path, v in sorted(kit.items()):
            if path in by_path:
                spec = by_path[path]
                src, sha = v
                views, tokens = raw_views(path, sha, Path(src).read_bytes())
                files.append(KitText(path=path, texts=[("extraction", surf.texts[spec.id]), *views], tokens=tokens,
                                     speech=registry.get(spec.kind).modality == "wav"))
            else:
                data = v if isinstance(v, bytes) else Path(v[0]).read_bytes()
                files.append(text_file(path, data))
        by_id = fs.by_id()
        held_facts = [by_id[h] for h in held]
        others = [f for f in fs.facts if f.id not in set(held)]
        rivals = {h.id: rivals_of(h, others) for h in held_facts}
        rep = scan_kit(files, needles, held_facts, rivals, ev.index)
        out = rep.as_dict()
        out["needles"]["gold_arguments_public"] = len(public)
        return out

    @staticmethod
    def _client_brief(spec, by_id: dict, surf: Surface) -> dict:
        c = spec.client

        def fact(fid: str) -> dict:
            f = by_id[fid]
            return {"fact_id": fid, "section": list(f.section), "statement": f.statement,
                    "values": [s.text for s in f.slots]}

        return {"schema_version": "1.0", "enabled": c.enabled, "turn_quota": c.turn_quota,
                "held": [fact(f) for f in c.held], "confirmable": [fact(f) for f in c.confirmable],
                "contested": [{**fact(f), "conflicting_statement": surf.edit.versions[f].statement,
                               "conflicting_values": [s.text for s in surf.edit.versions[f].slots],
                               "current_in": surf.report["contested"][f]["current_in"],
                               "conflicting_in": surf.report["contested"][f]["conflicting_in"]} for f in c.contested]}

    @staticmethod
    def _readme(spec, company: str, n_files: int, training: list, live: list) -> str:
        return "\n".join([
            f"# {spec.title}", "", spec.description or f"Build the customer-service agent of {company}.", "",
            "## What is here", "",
            f"- `evidence/`: {n_files} files the business keeps (conversations, documents, tables, screens, "
            "recordings). The policy your agent must apply is in them, not written down anywhere else.",
            "- `api/openapi.json`: the contract of the client's API; `sdk/factforge_sdk.py`: the client for it and "
            "for the model gateway.",
            "- `data/dev_db.json`: development data shaped like production (not the data you will be scored on).",
            f"- `training/scenarios.json`: {len(training)} example conversations on the development data, with the "
            "outcome expected.",
            f"- `task.json`: this task's settings ({len(live)} live-experiment ids you may request runs of).",
            "- `AGENT_CONTRACT.md`: what your agent must implement and may use; `models/menu.toml`: models, "
            "credit rates and budgets.",
            *(["- `workspace/`: the agent you start from."] if spec.workspace.kind == "seeded" else []),
            "",
        ])

    # ------------------------------------------------------------------ the pack
    def build(self, domains: list[DomainPack], task_ids: Optional[list[str]] = None) -> tuple[Path, PackIndex, list[TaskResult]]:
        writer = PackWriter(self.out)
        results: list[TaskResult] = []
        try:
            wanted = set(task_ids or [])
            for pack in domains:
                specs = [ls for ls in load_domain_specs(pack) if not wanted or ls.spec.id in wanted]
                if not specs:
                    continue
                d = DomainBuild(pack, self.opts)
                for ls in specs:
                    self.progress(f"{ls.spec.id}")
                    results.append(self.build_task(ls, d, writer))
            missing = wanted - {r.entry.id for r in results}
            if missing:
                raise FactforgeError(f"no task spec with id {sorted(missing)[0]!r} in the selected domains")
            if not results:
                raise FactforgeError("no task specs found (domains/<name>/tasks/*.toml)")
            failed = [(r.entry.id, name, probs) for r in results for name, probs in r.checks.items() if probs]
            if failed:
                lines = []
                for tid, name, probs in failed:
                    lines.append(f"check {name} failed on task {tid}:")
                    lines += [f"  - {p}" for p in probs[:12]]
                raise BuildFailed("\n".join(lines))
            index = PackIndex(generator_version=GENERATOR_VERSION, seed=self.opts.seed,
                              tasks=sorted((r.entry for r in results), key=lambda e: (e.domain, e.id)),
                              summary=summarise([r.entry for r in results]))
            return writer.commit(index), index, results
        except BaseException:
            writer.abort()
            raise


def summarise(entries: list[TaskEntry]) -> dict:
    """Tasks per domain and how many tasks move each lever off its default."""
    by_domain: dict[str, int] = {}
    for e in entries:
        by_domain[e.domain] = by_domain.get(e.domain, 0) + 1
    lv = [e.levers for e in entries]
    levers = {
        "evidence": sum(1 for x in lv if "@" in x["evidence"]["bundle"] or x["evidence"]["profile"] != "full"
                        or x["evidence"]["difficulty"] != "standard" or x["evidence"]["sections"]
                        or x["evidence"]["kinds"]),
        "client": sum(1 for x in lv if x["client"]["enabled"]),
        "api": sum(1 for x in lv if x["api"]["deployment"] != "clean"),
        "workspace": sum(1 for x in lv if x["workspace"]["kind"] != "none"),
        "models": sum(1 for x in lv if x["models"]["models"] or x["models"]["budget"] != ["easy", "medium", "hard"]),
        "ids": sum(1 for x in lv if x["ids"]["training"] and x["ids"]["live"]),
        "phrasing": sum(1 for x in lv if x["phrasing"]["rules"]),
    }
    return {"tasks": len(entries), "by_domain": dict(sorted(by_domain.items())), "tasks_moving_lever": levers,
            "levers_covered": sorted(k for k, v in levers.items() if v)}


def select_domains(names: Optional[list[str]]) -> list[DomainPack]:
    """The named domains (test domains allowed by name), else every built-in, non-test domain."""
    if names:
        return [get_pack(n) for n in names]
    return [p for _, p in sorted(discover().items())]


def build_pack(out: Path, domains: Optional[list[str]] = None, task_ids: Optional[list[str]] = None,
               opts: Optional[BuildOptions] = None, progress: Optional[Callable[[str], None]] = None):
    """Build (or incrementally rebuild) the pack at `out`. Returns (path, index, results)."""
    return Builder(out, opts or BuildOptions(), progress).build(select_domains(domains), task_ids)


