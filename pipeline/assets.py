"""The asset graph, partitioned by domain (and domain@variant).

domain_pack -> atomic_facts -> seed_database -> evidence_plan -> one asset per family
(conversations, documents, tables, visuals, recordings) -> extractions (every delivered file's
text: OCR, speech recognition...) -> recoverability, lints, leak_scan -> task_bundle;
domain_pack -> domain_api -> test_suite (with seed_database). Families and extractions hand
their per-artifact units to the `execution` resource's pool. Blocking checks gate the
chain: fact ids unique, every fact with a source span and a parsed statement, database
consistent with the policy, every fact recoverable from the delivered files, no lint hits,
no leaked base values in a variant, the API's OpenAPI document valid, every test's gold
replaying to its expected hash and passing the domain check, test ids unique, the domain's
test quotas; task_bundle and test_suite -> task_pack (the domain's task specs as a pack of
kits and sealed parts; checks: ids resolve and are disjoint, gold replays, evidence proven,
tests learnable, kit scan clean). Asset bodies are thin: library code does the work.
"""

import dagster as dg

from audits import lints as lint
from audits import recoverability as rec
from domains import NAME_RE, discover, variants
from transforms.planner import EvidencePlan
from transforms.registry import FAMILIES

from . import steps
from .resources import BuildSettings, Execution, Workspace, WriterResource


def partition_keys() -> list[str]:
    keys = []
    for name, pack in sorted(discover(include_test=True).items()):
        keys.append(name)
        keys += [f"{name}@{v}" for v in variants.list_variants(pack) if NAME_RE.match(v)]
    return keys


domains_partitions = dg.StaticPartitionsDefinition(partition_keys())


def _world(context, settings: BuildSettings):
    return variants.resolve(context.partition_key, settings.domains_dirs)


@dg.asset(partitions_def=domains_partitions, group_name="domain")
def domain_pack(context: dg.AssetExecutionContext, settings: BuildSettings) -> dg.Output[str]:
    """The domain pack (or variant) this partition builds, identified by its content hash."""
    world = _world(context, settings)
    return dg.Output(world.key, metadata={"path": str(world.pack.path), "brand": world.pack.brand.company,
                                          "pack_hash": world.pack.pack_hash(), "variant": world.variant or ""})


def _check(name: str, asset: str, description: str) -> dg.AssetCheckSpec:
    return dg.AssetCheckSpec(name=name, asset=asset, blocking=True, description=description)


# Checks run inside their asset's step (Dagster's standalone checks are not per-partition):
# each is a blocking AssetCheckSpec, so a failure stops everything downstream in the run.
@dg.asset(partitions_def=domains_partitions, group_name="facts", deps=[domain_pack], check_specs=[
    _check("unique_fact_ids", "atomic_facts", "Fact ids are unique."),
    _check("facts_sourced_and_parsed", "atomic_facts",
           "Every fact has a source span and a parsed, non-empty statement (values or anchors).")])
def atomic_facts(context: dg.AssetExecutionContext, settings: BuildSettings):
    """Policy decomposed into atomic facts (variant values applied)."""
    fs = _world(context, settings).factset(settings.decomposer)
    yield dg.Output(fs, metadata=steps.facts_metadata(fs))
    dup, bad = steps.fact_problems(fs)
    yield dg.AssetCheckResult(check_name="unique_fact_ids", passed=not dup, metadata={"problems": dup[:50]})
    yield dg.AssetCheckResult(check_name="facts_sourced_and_parsed", passed=not bad, metadata={"problems": bad[:50]})


@dg.asset(partitions_def=domains_partitions, group_name="domain", deps=[domain_pack], check_specs=[
    _check("database_consistent", "seed_database", "Database obeys the domain's own rules.")])
def seed_database(context: dg.AssetExecutionContext, settings: BuildSettings, execution: Execution):
    """The domain's seed database (variant: renamed and re-valued consistently). With the
    local engine it also hands the held-out test suite to the pool (see test_suite)."""
    world = _world(context, settings)
    sdb = steps.seed_database(world, settings.seed, settings.seed_timeout)
    if execution.engine == "local" and not sdb.problems:
        steps.start_test_suite(context.partition_key, settings.domains_dirs, settings.seed, sdb, execution.pool(),
                               settings.seed_timeout)
    yield dg.Output(sdb, metadata={"tables": sdb.counts(), "db_hash": sdb.hash})
    yield dg.AssetCheckResult(check_name="database_consistent", passed=not sdb.problems,
                              metadata={"problems": sdb.problems[:50]})


@dg.asset(partitions_def=domains_partitions, group_name="tasks", deps=[domain_pack], check_specs=[
    _check("openapi_valid", "domain_api", "The domain API's OpenAPI 3.1 document validates.")])
def domain_api(context: dg.AssetExecutionContext, settings: BuildSettings):
    """The domain API's OpenAPI document (None for a pack without an API)."""
    doc, meta, problems = steps.domain_api(_world(context, settings))
    yield dg.Output(doc, metadata=meta)
    yield dg.AssetCheckResult(check_name="openapi_valid", passed=not problems, metadata={"problems": problems})


# Scheduled last (lowest priority): with the local engine its work has been running on the
# pool since the seed step (steps.start_test_suite), beside the evidence chain.
@dg.asset(name="test_suite", partitions_def=domains_partitions, group_name="tasks", deps=[domain_api],
          op_tags={"dagster/priority": "-1"},
          check_specs=[
    _check("gold_replays", "test_suite", "Every test's gold actions replay to its expected database hash."),
    _check("gold_passes_domain_check", "test_suite", "Every gold outcome passes the domain's own check."),
    _check("test_ids_unique", "test_suite", "Test ids are unique."),
    _check("test_quotas", "test_suite", "Test count, trap share and value-fact coverage reach the domain's quota; "
                                        "the naive agent passes some tests and fails some.")])
def held_out_tests(context: dg.AssetExecutionContext, seed_database, settings: BuildSettings):
    """Held-out simulations with gold actions, expected database hashes and scripted users."""
    world = _world(context, settings)
    suite, checks = steps.suite_and_checks(context.partition_key, world, settings.seed, seed_database,
                                           settings.seed_timeout)
    yield dg.Output(suite, metadata=steps.suite_metadata(suite))
    for name, problems in checks.items():
        yield dg.AssetCheckResult(check_name=name, passed=not problems, metadata={"problems": problems[:50],
                                                                                  "count": len(problems)})


@dg.asset(partitions_def=domains_partitions, group_name="plan")
def evidence_plan(context: dg.AssetExecutionContext, atomic_facts, settings: BuildSettings,
                  workspace: Workspace, execution: Execution) -> dg.Output[EvidencePlan]:
    """Which facts go into which artifacts; distractors and superseded values recorded."""
    plan = steps.make_plan(_world(context, settings), atomic_facts, settings, workspace.audit_db)
    execution.progress(context.partition_key).plan(steps.modalities(plan))
    kinds = {}
    for a in plan.artifacts:
        kinds[a.kind] = kinds.get(a.kind, 0) + 1
    return dg.Output(plan, metadata={"artifacts": len(plan.artifacts), "plan_hash": plan.hash, "by_kind": kinds,
                                     "distractors": sum(len(a.distractors) for a in plan.artifacts)})


def build_family_asset(family: str) -> dg.AssetsDefinition:
    @dg.asset(name=family, partitions_def=domains_partitions, group_name="transforms")
    def _family(context: dg.AssetExecutionContext, evidence_plan, atomic_facts, seed_database,
                settings: BuildSettings, workspace: Workspace, writer: WriterResource, execution: Execution):
        world = _world(context, settings)
        rendered = steps.render_family(world, family, evidence_plan, atomic_facts, seed_database.tables,
                                       writer.make(world.pack), workspace.cache_dir, execution.pool(),
                                       execution.progress(context.partition_key).stage("render", family))
        return dg.Output(rendered, metadata={"files": len(rendered), "cached": sum(r.cached for r in rendered),
                                             "revoiced_lines": sum(r.revoiced for r in rendered),
                                             "bytes": sum(r.size for r in rendered),
                                             "kinds": sorted({r.kind for r in rendered})})
    _family.__doc__ = f"Render the {family} artifacts of the plan (content-addressed cache)."
    return _family


family_assets = [build_family_asset(f) for f in FAMILIES]


@dg.asset(partitions_def=domains_partitions, group_name="audits")
def extractions(context: dg.AssetExecutionContext, evidence_plan, atomic_facts, settings: BuildSettings,
                workspace: Workspace, execution: Execution, conversations, documents, tables, visuals, recordings):
    """The text of every delivered file, read back from the file itself (text layer, parser,
    OCR of pixels, speech recognition of audio); cached, on the execution pool."""
    rendered = [*conversations, *documents, *tables, *visuals, *recordings]
    ex = steps.extract(_world(context, settings), evidence_plan, atomic_facts, rendered, workspace.cache_dir,
                       execution.pool(), execution.progress(context.partition_key).stage("extract", "all"))
    return dg.Output(ex, metadata={"files": len(ex.by_id), "cached": ex.cached,
                                   "seconds": {k: round(v, 2) for k, v in ex.seconds.items()}})


@dg.asset(partitions_def=domains_partitions, group_name="audits", check_specs=[
    _check("all_facts_recoverable", "recoverability",
           "Every fact is recoverable from a delivered file; no distractor shown as current.")])
def recoverability(context: dg.AssetExecutionContext, evidence_plan, atomic_facts, extractions,
                   settings: BuildSettings, workspace: Workspace):
    """Match every fact against the extracted text of the files meant to carry it."""
    report = steps.recoverability(_world(context, settings), evidence_plan, atomic_facts, extractions,
                                  workspace.cache_dir)
    yield dg.Output(report, metadata=steps.recoverability_metadata(report, extractions))
    problems = rec.failures(report)
    yield dg.AssetCheckResult(check_name="all_facts_recoverable", passed=not problems,
                              metadata={"problems": problems[:100], "count": len(problems)})


@dg.asset(partitions_def=domains_partitions, group_name="audits")
def difficulty(context: dg.AssetExecutionContext, evidence_plan, atomic_facts, extractions, recoverability,
               settings: BuildSettings, workspace: Workspace, execution: Execution, conversations, documents, tables,
               visuals, recordings):
    """How hard the bundle is for a reader, measured on the delivered files' extractions:
    volume, haystack share, carriers per fact, wrong-value separation and hedging, multi-hop,
    the shallow and the deep reader (reports/difficulty.json)."""
    rendered = [*conversations, *documents, *tables, *visuals, *recordings]
    report = steps.difficulty(_world(context, settings), evidence_plan, atomic_facts, extractions, rendered,
                              workspace.cache_dir, execution.pool(), recoverability=recoverability)
    return dg.Output(report, metadata=steps.difficulty_metadata(report))


@dg.asset(partitions_def=domains_partitions, group_name="audits", check_specs=[
    _check("no_lint_hits", "lints",
           "No generator tells in the delivered files; no voiced rendition shares a 6-word run with its policy.")])
def lints(context: dg.AssetExecutionContext, evidence_plan, atomic_facts, extractions, recoverability,
          settings: BuildSettings, workspace: Workspace, execution: Execution):
    """Read every delivered file (the build's extractions) for asides, agreement errors, lost
    capitalisation, headings in speech, duplicated bullets, brand internals; measure voiced
    runs, distinct sentences and lead-ins."""
    report = steps.lints(_world(context, settings), evidence_plan, atomic_facts, extractions, workspace.cache_dir,
                         execution.pool())
    yield dg.Output(report, metadata=steps.lints_metadata(report))
    problems = lint.failures(report)
    yield dg.AssetCheckResult(check_name="no_lint_hits", passed=not problems,
                              metadata={"problems": problems[:100], "count": len(problems)})


@dg.asset(partitions_def=domains_partitions, group_name="audits", check_specs=[
    _check("no_leaks", "leak_scan", "Variant files carry no base-brand name, identifier or base value.")])
def leak_scan(context: dg.AssetExecutionContext, atomic_facts, extractions, seed_database, settings: BuildSettings,
              workspace: Workspace, conversations, documents, tables, visuals, recordings):
    """Variants only (empty report for a base domain): no base brand, identifier or
    substituted base value in any delivered file, read through the same extractions."""
    rendered = [*conversations, *documents, *tables, *visuals, *recordings]
    report = steps.leak_scan(_world(context, settings), atomic_facts, rendered, extractions, workspace.cache_dir,
                             seed_database.tables)
    yield dg.Output(report, metadata={"hits": report["summary"]["hits"]})
    yield dg.AssetCheckResult(check_name="no_leaks", passed=report["summary"]["hits"] == 0,
                              metadata={"problems": [f"{x['file']}: {x['what']} {x['term']!r} ({x['extractor']}): "
                                                     f"{x.get('text', '')}" for x in report["leaks"][:50]]})


@dg.asset(partitions_def=domains_partitions, group_name="outputs")
def task_bundle(context: dg.AssetExecutionContext, evidence_plan, atomic_facts, recoverability, leak_scan, lints,
                difficulty, settings: BuildSettings, workspace: Workspace, execution: Execution, conversations,
                documents, tables, visuals, recordings) -> dg.MaterializeResult:
    """The versioned, content-addressed bundle, written atomically."""
    rendered = [*conversations, *documents, *tables, *visuals, *recordings]
    path, man = steps.write(_world(context, settings), settings.seed, workspace.out_dir, atomic_facts,
                            evidence_plan, rendered, recoverability, leak_scan, lints, difficulty)
    execution.progress(context.partition_key).finished()
    return dg.MaterializeResult(metadata={"path": str(path), "bundle_version": man.bundle_version,
                                          "files": len(man.files), "content_hash": man.content_hash})


@dg.asset(partitions_def=domains_partitions, group_name="outputs", deps=[task_bundle, held_out_tests], check_specs=[
    _check("ids_resolve_and_disjoint", "task_pack", "Training, live and test ids resolve and are disjoint; the "
                                                    "test database is not the development database."),
    _check("gold_replays", "task_pack", "Every selected simulation's gold replays to its expected database hash."),
    _check("evidence_proven", "task_pack", "Held facts absent from every delivered file (read with the "
                                           "recoverability extractors); contested facts in two versions."),
    _check("tests_learnable", "task_pack", "Every fact a test exercises is in the kit or known to the client; no "
                                           "training scenario settles a held or contested fact."),
    _check("kit_scan_clean", "task_pack", "No kit file (extracted media text included) holds a test id, a sealed "
                                          "gold argument, a client-held fact, a fact id or an answer-key file."),
    _check("adversaries_fail", "task_pack", "The sealing gate: no held-out test passes for the null agent, the "
                                            "policy reciter or a confident guess; plain tests within their share.")])
def task_pack(context: dg.AssetExecutionContext, settings: BuildSettings, workspace: Workspace):
    """The domain's task pack (`domains/<name>/tasks/*.toml`) at <out>/packs/<domain>: each task's
    kit and sealed part; written only when every check passes."""
    outcome = steps.task_pack(_world(context, settings), settings.seed, workspace)
    yield dg.Output(str(outcome.path or ""), metadata=steps.task_pack_metadata(outcome))
    for name, problems in outcome.checks.items():
        yield dg.AssetCheckResult(check_name=name, passed=not problems, metadata={"problems": problems[:50],
                                                                                  "count": len(problems)})


ALL_ASSETS = [domain_pack, atomic_facts, seed_database, domain_api, held_out_tests, evidence_plan, *family_assets,
              extractions, recoverability, difficulty, leak_scan, lints, task_bundle, task_pack]
# `factforge build` writes bundles; task packs are `factforge pack build` (or this asset in `dagster dev`).
BUNDLE_ASSETS = [a for a in ALL_ASSETS if a is not task_pack]
ALL_CHECKS: list = []
