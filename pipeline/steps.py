"""Glue between the asset graph and the library packages: each function is what one asset
does, written so the asset body stays a few lines. No Dagster types here."""
from __future__ import annotations

import threading
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from audits.difficulty import difficulty_report
from audits.extraction import Extractions, brand_words, extract_all, jobs_for
from audits.leaks import scan
from audits.lints import lint_files
from audits.queue import AuditQueue
from audits.recoverability import check_recoverability
from domains.sandbox import time_limit
from domains.simtests import suite_problems
from domains.variants import World, resolve
from facts import GENERATOR_VERSION
from facts.hashing import content_hash
from facts.models import FactSet
from outputs.bundle import write_bundle
from transforms import registry
from transforms.base import RenderContext
from transforms.planner import EvidencePlan, PlanConfig, plan_evidence
from transforms.render import Rendered, render_artifacts


@dataclass
class SeedDB:
    tables: dict[str, Any]
    problems: list[str] = field(default_factory=list)

    @property
    def hash(self) -> str:
        return content_hash(self.tables)

    def counts(self) -> dict[str, int]:
        return {k: len(v) for k, v in self.tables.items() if isinstance(v, (list, dict))}


def seed_database(world: World, seed: int, timeout: Optional[float] = None) -> SeedDB:
    with time_limit(timeout):
        db = world.database(seed)
        return SeedDB(db, world.check_database(db))


def reseed_rounds(world: World, audit_db: Path) -> dict[str, int]:
    """Artifacts rejected by the human audit consensus get a new seed (their round)."""
    if not Path(audit_db).exists():
        return {}
    return AuditQueue(audit_db).rejected_artifacts(world.base.name, world.variant)


def make_plan(world: World, facts: FactSet, settings, audit_db: Path) -> EvidencePlan:
    cfg = PlanConfig(profile=settings.profile, carriers_per_fact=settings.carriers_per_fact,
                     noise_ratio=settings.noise_ratio, reseed=reseed_rounds(world, audit_db))
    return plan_evidence(facts, settings.seed, cfg, now=world.pack.info.now, variant=world.variant,
                         banned=world.base_values())


def render_family(world: World, family: str, plan: EvidencePlan, facts: FactSet, db: dict, writer,
                  cache_dir: Path, pool=None, progress=None) -> list[Rendered]:
    workdir = Path(cache_dir) / "tmp"
    workdir.mkdir(parents=True, exist_ok=True)
    ctx = RenderContext(pack=world.pack, facts=facts.by_id(), writer=writer, db=db, workdir=workdir,
                        speech_words=tuple(brand_words(world)), extraction_cache=Path(cache_dir))
    return render_artifacts(plan.by_family(family), ctx, Path(cache_dir) / "render", pool=pool,
                            progress=progress, scratch=Path(cache_dir) / "shared")


def modalities(plan: EvidencePlan) -> dict[str, int]:
    out: dict[str, int] = {}
    for a in plan.artifacts:
        m = registry.get(a.kind).modality
        out[m] = out.get(m, 0) + 1
    return dict(sorted(out.items()))


def extract(world: World, plan: EvidencePlan, facts: FactSet, rendered: list[Rendered], cache_dir: Path,
            pool=None, progress=None) -> Extractions:
    """Every delivered file's text (audits.extraction), cached and on the pool."""
    files = {r.artifact_id: (Path(r.file), r.sha256) for r in rendered}
    jobs = jobs_for(plan.artifacts, files, facts.by_id(), brand_words(world))
    heard = {r.artifact_id for r in rendered if r.heard}  # recordings extracted while rendered
    return extract_all(jobs, Path(cache_dir), pool=pool, progress=progress, fresh=heard,
                       currency=world.pack.info.currency)


def leak_scan(world: World, facts: FactSet, rendered: list[Rendered], extractions: Extractions, cache_dir: Path,
              db: dict) -> dict:
    if world.spec is None:
        return {"schema_version": "1.0", "variant": None, "summary": {"hits": 0, "files_scanned": 0}, "leaks": []}
    return scan(world, facts, rendered, cache_dir, db, jobs=list(extractions.jobs), extractions=extractions.by_id)


def write(world: World, seed: int, out_dir: Path, facts: FactSet, plan: EvidencePlan, rendered: list[Rendered],
          recoverability: dict, leaks: dict, lints: dict, difficulty: Optional[dict] = None):
    reports = {"reports/recoverability.json": {k: v for k, v in recoverability.items() if not k.startswith("_")},
               "reports/lints.json": lints}
    if difficulty is not None:
        reports["reports/difficulty.json"] = difficulty
    if world.spec is not None:
        reports["reports/leaks.json"] = leaks
    facts_json = facts.model_dump(mode="json")
    facts_json["hash"] = facts.hash
    plan_json = plan.model_dump(mode="json")
    plan_json["hash"] = plan.hash
    arts = [{"path": r.path, "file": r.file, "family": r.family, "kind": r.kind, "artifact_id": r.artifact_id,
             "fact_ids": list(r.fact_ids)} for r in rendered]
    return write_bundle(out_dir, domain=world.base.name, seed=seed, generator_version=GENERATOR_VERSION,
                        facts_json=facts_json, plan_json=plan_json, artifacts=arts, reports=reports,
                        variant=world.variant, base_domain=world.base.name if world.variant else None,
                        variant_spec_hash=world.spec.hash if world.spec is not None else None)


def facts_metadata(fs: FactSet) -> dict:
    kinds: dict[str, int] = {}
    for f in fs.facts:
        kinds[f.kind.value] = kinds.get(f.kind.value, 0) + 1
    return {"facts": len(fs.facts), "unparsed_lines": len(fs.unparsed), "facts_hash": fs.hash, "by_kind": kinds}


def fact_problems(fs: FactSet) -> tuple[list[str], list[str]]:
    seen: dict[str, int] = {}
    for f in fs.facts:
        seen[f.id] = seen.get(f.id, 0) + 1
    dup = [f"duplicate fact id {i} ({n} facts)" for i, n in sorted(seen.items()) if n > 1]
    bad = [f"fact {f.id} ({f.source.file}:{f.source.start_line}) has no source span, statement, values or anchors"
           for f in fs.facts if not f.statement.strip() or not f.source.file or not (f.slots or f.anchors)]
    return dup, bad


def recoverability(world: World, plan: EvidencePlan, facts: FactSet, extractions: Extractions,
                   cache_dir: Optional[Path] = None) -> dict:
    return check_recoverability(plan, facts, extractions.by_id, currency=world.pack.info.currency,
                                values_cache=Path(cache_dir) if cache_dir else None)


def difficulty(world: World, plan: EvidencePlan, facts: FactSet, extractions: Extractions,
               rendered: list[Rendered], cache_dir: Path, pool=None, recoverability: Optional[dict] = None) -> dict:
    files = {r.artifact_id: Path(r.file) for r in rendered}
    b = world.pack.brand
    return difficulty_report(plan, facts, extractions.by_id, files, currency=world.pack.info.currency,
                             brand_terms=[b.company, b.short_name], pool=pool, scratch=Path(cache_dir) / "shared",
                             values_cache=Path(cache_dir),
                             policy_texts=policy_texts(world, facts), recoverability=recoverability)


def policy_texts(world: World, facts: FactSet) -> list[str]:
    """The policy as its reader has it: a base domain's policy files; a variant's facts by
    section (its policy is the base's with the variant's names and values, which no file holds)."""
    if world.spec is None:
        return [p.read_text(encoding="utf-8") for p in world.pack.policy_files()]
    sections: dict[tuple, list[str]] = {}
    for f in facts.facts:
        sections.setdefault(tuple(f.section), []).append(f.statement)
    return ["\n".join([" / ".join(sec), *lines]) for sec, lines in sections.items()]


def difficulty_metadata(report: dict) -> dict:
    s = report["summary"]
    keys = ("files", "tokens", "conversational_fact_free_share", "files_per_fact_plan", "files_per_fact_text",
            "wrong_value_separated_share", "wrong_value_hedged_share", "multi_hop_share_of_value_facts",
            "six_word_run_share", "topic_word_and_value_on_one_line_share")
    return {k: s[k] for k in keys if s.get(k) is not None}


def lints(world: World, plan: EvidencePlan, facts: FactSet, extractions: Extractions, cache_dir: Path,
          pool=None) -> dict:
    return lint_files(plan, facts, extractions.by_id, world.pack, pool=pool, scratch=Path(cache_dir) / "shared",
                      cache=Path(cache_dir))


def lints_metadata(report: dict) -> dict:
    s, m = report["summary"], report["measures"]
    return {"hits": s["hits"], "by_lint": s["by_lint"], "voiced_with_policy_run": s["voiced_with_policy_run"],
            "distinct_ratio": m["distinct_sentences"]["ratio"], "top_lead_in_share": m["lead_ins"]["most_common_share"]}


def recoverability_metadata(report: dict, extractions: Extractions) -> dict:
    s = report["summary"]
    return {"facts_total": s["facts_total"], "facts_recovered": s["facts_recovered"],
            "distractor_violations": s["distractor_violations"],
            "by_family": {k: f"{v['mentions_recovered']}/{v['mentions']}" for k, v in s["by_family"].items()},
            "extract_seconds": {k: round(v, 2) for k, v in extractions.seconds.items()},
            "extractions_cached": extractions.cached}


def domain_api(world: World) -> tuple[Optional[dict], dict, list[str]]:
    """(OpenAPI document or None, metadata, problems) of the world's domain API."""
    api = world.api()
    if api is None:
        return None, {"operations": 0, "reads": 0, "writes": 0, "openapi_hash": ""}, []
    doc = api.openapi()
    problems: list[str] = []
    from openapi_spec_validator import validate  # noqa: PLC0415  (deferred: openapi-spec-validator)
    try:
        validate(doc)
    except Exception as e:  # the validator raises several exception types; each is a problem report
        problems.append(f"OpenAPI document invalid: {str(e).splitlines()[0]}")
    ops = api.operations()
    return doc, {"operations": len(ops), "reads": sum(o.kind == "read" for o in ops),
                 "writes": sum(o.kind == "write" for o in ops), "openapi_hash": content_hash(doc)}, problems


def held_out_suite(world: World, seed: int, db: dict):
    return world.test_suite(seed, db=db)


# --- the held-out test suite, computed beside the evidence chain -----------------------------
# Generating and re-verifying a domain's tests (replaying every gold, hashing databases,
# asking the pack's check) is pure Python that nothing of the evidence chain needs. With the
# local engine the seed step hands it to the build's pool as one unit (another process: a
# thread of this one would share its interpreter lock with the chain), where it runs while the
# chain plans, renders and extracts; the test_suite step, scheduled last, collects it. On the
# Dask engine (steps in other processes) the step computes it itself. Same result either way.
_SUITES: dict[tuple, Future] = {}
_SUITES_LOCK = threading.Lock()


def _suite_key(key: str, seed: int, db: "SeedDB") -> tuple:
    return (key, seed, db.hash)


def _suite_and_checks(world: World, seed: int, tables: dict, timeout: Optional[float]):
    with time_limit(timeout):
        suite = held_out_suite(world, seed, tables)
        return suite, suite_checks(world, suite, tables)


def suite_unit(key: str, domains_dirs: list[str], seed: int, tables: dict, timeout: Optional[float]):
    """One pool unit: the test suite of partition `key` and its checks."""
    return _suite_and_checks(resolve(key, domains_dirs), seed, tables, timeout)


def start_test_suite(key: str, domains_dirs: list[str], seed: int, db: "SeedDB", pool,
                     timeout: Optional[float] = None) -> None:
    """Submit the partition's test suite and its checks to `pool` (collected by
    `suite_and_checks`); a pool that takes no single units leaves it to the step."""
    fut = pool.submit(suite_unit, key, list(domains_dirs), seed, db.tables, timeout)
    if fut is not None:
        with _SUITES_LOCK:
            _SUITES[_suite_key(key, seed, db)] = fut


def suite_and_checks(key: str, world: World, seed: int, db: "SeedDB", timeout: Optional[float] = None):
    """(suite, problems per check): what `start_test_suite` submitted for these inputs, else
    computed now."""
    with _SUITES_LOCK:
        fut = _SUITES.pop(_suite_key(key, seed, db), None)
    return fut.result() if fut is not None else _suite_and_checks(world, seed, db.tables, timeout)


def suite_checks(world: World, suite, db: dict) -> dict[str, list[str]]:
    """Problems per blocking check (see `domains.simtests.suite_problems`)."""
    return suite_problems(suite, world.api(), db, world.check_database, world.base.code.test_quota)


def suite_metadata(suite) -> dict:
    s = suite.summary
    return {"tests": s.tests, "traps": s.traps, "trap_share": s.trap_share, "by_trap": s.by_trap,
            "with_writes": s.with_writes, "naive_passes": s.naive_passes,
            "value_fact_coverage": f"{s.numeric_facts_covered}/{s.numeric_facts}", "suite_hash": suite.hash}


def task_pack(world: World, seed: int, workspace):
    """The domain's task pack at <out>/packs/<domain> (a variant partition has no tasks of its
    own: its tasks live in the base domain). Returns the build outcome (`outputs.packs.build`)."""
    from outputs.packs.build import Builder, BuildOptions, BuildOutcome, CHECKS  # noqa: PLC0415  (deferred: pack builder)
    if world.variant:
        return BuildOutcome(results=[], checks={c: [] for c in CHECKS})
    opts = BuildOptions(seed=seed, workspace=Path(workspace.root))
    return Builder(Path(workspace.out_dir) / "packs" / world.base.name, opts).run([world.base])


def task_pack_metadata(outcome) -> dict:
    return {"path": str(outcome.path or ""), "tasks": len(outcome.results),
            "reused": sum(r.reused for r in outcome.results),
            "pack_version": outcome.index.pack_version if outcome.index else "",
            "kit_bytes": sum(r.entry.kit.bytes for r in outcome.results),
            "written": outcome.path is not None}
