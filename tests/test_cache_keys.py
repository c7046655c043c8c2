"""Honest cache keys: a rendered file or an extraction is reused only when nothing that shaped
it changed. Each input is changed in turn and must cause a miss: the kind's code (its module
or any project module it imports), the writer (name, model, settings), the external tools'
versions, the facts and database records the render read; inputs it did not depend on must
not."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from audits.extraction import Job, extract_all, jobs_for
from tests.kinds_util import make_spec
from transforms import fingerprint as F
from transforms import render as R
from transforms.base import RenderContext
from transforms.plan import ArtifactSpec, FactMention
from transforms.render import render_artifacts
from transforms.writers import BuiltinWriter, LLMWriter

CHAT = "conversations/chat_transcript"
WEB = "visuals/web_screenshot"
CALL = "recordings/call_audio"


def _copy_sources(dst: Path) -> Path:
    for pkg in F.PROJECT_PACKAGES:
        shutil.copytree(F.ROOT / pkg, dst / pkg, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return dst


def _edited(tmp_path: Path, rel: str) -> Path:
    root = _copy_sources(tmp_path / rel.replace("/", "_"))
    with open(root / rel, "a", encoding="utf-8") as f:
        f.write("\n# an edit\n")
    return root


@pytest.mark.slow
def test_code_fingerprint_follows_module_dependencies(tmp_path):
    mod = F.kind_module(CHAT)
    base = F.code_fingerprint(mod)
    assert F.code_fingerprint(mod, _copy_sources(tmp_path / "same")) == base
    # the kind itself, the writer interface and the realiser, grammar, haystack and situations,
    # the shared renderer module, a kernel module it reaches (the built-in writer's own module
    # joins every render key through the context: test_wording_code_is_in_every_render_key)
    for rel in ("transforms/conversations/chat_transcript.py", "transforms/writer_api.py", "transforms/realise.py",
                "transforms/grammar.py", "transforms/haystack.py", "transforms/situations.py", "transforms/common.py",
                "facts/surface.py"):
        assert F.code_fingerprint(mod, _edited(tmp_path, rel)) != base, rel
    # a renderer of another family is not a dependency
    assert F.code_fingerprint(mod, _edited(tmp_path, "transforms/visuals/flowchart.py")) == base
    assert {"transforms.writer_api", "transforms.common", "transforms.base"} <= set(F.module_closure(mod))


@pytest.mark.slow
def test_wording_code_is_in_every_render_key(tmp_path, mock_pack, hand_facts, monkeypatch):
    """The writer's module and what it imports (realiser, grammar) are in the render key of
    every kind, also one whose module never imports the writer (it reaches it through the
    context): a wording change can never reuse a file worded by the old code."""
    writer = BuiltinWriter(mock_pack)
    base = F.code_fingerprint(type(writer).__module__)
    for rel in ("transforms/writers.py", "transforms/realise.py", "transforms/grammar.py"):
        assert F.code_fingerprint(type(writer).__module__, _edited(tmp_path, rel)) != base, rel
    spec = make_spec(WEB, hand_facts)
    ctx = _ctx(mock_pack, hand_facts, mock_pack.database(0))
    key = R.base_key(spec, ctx)
    real = R.writer_fingerprint
    monkeypatch.setattr(R, "writer_fingerprint", lambda w: real(w) + "-edited")
    assert R.base_key(spec, ctx) != key


def test_tools_are_declared_by_the_modules_that_use_them():
    assert "espeak-ng" in F.declared_tools(F.kind_module(CALL))
    assert "pocketsphinx-model" in F.declared_tools(F.kind_module(CALL))
    assert "tesseract" in F.declared_tools(F.kind_module(WEB))
    assert "espeak-ng" not in F.declared_tools(F.kind_module(CHAT))
    assert "tesseract" not in F.declared_tools(F.kind_module(CHAT))


@pytest.fixture()
def fresh_fingerprints():
    def clear():
        F.tool_version.cache_clear()
        F.kind_fingerprint.cache_clear()
    clear()
    yield
    clear()


@pytest.mark.parametrize("tool,changed,unchanged", [
    ("espeak-ng", CALL, WEB), ("pocketsphinx-model", CALL, CHAT), ("tesseract", WEB, CHAT),
    ("ffmpeg", "recordings/screen_recording", CHAT)])
def test_kind_fingerprint_includes_tool_versions(monkeypatch, fresh_fingerprints, tool, changed, unchanged):
    before = {k: F.kind_fingerprint(k) for k in (changed, unchanged)}
    probe, purpose, hint = F.TOOLS[tool]
    monkeypatch.setitem(F.TOOLS, tool, (lambda: probe() + " (upgraded)", purpose, hint))
    F.tool_version.cache_clear()
    F.kind_fingerprint.cache_clear()
    assert F.kind_fingerprint(changed) != before[changed]
    assert F.kind_fingerprint(unchanged) == before[unchanged]


def _ctx(pack, facts, db, writer=None, workdir=None):
    return RenderContext(pack=pack, facts={f.id: f for f in facts}, writer=writer or BuiltinWriter(pack), db=db,
                         workdir=workdir)


def _cached(spec, ctx, cache) -> bool:
    (r,) = render_artifacts([spec], ctx, cache)
    return r.cached


def test_render_cache_misses_on_each_input_and_only_then(mock_pack, hand_facts, tmp_path, monkeypatch,
                                                         fresh_fingerprints):
    cache = tmp_path / "render"
    spec = make_spec(CHAT, hand_facts)
    db = mock_pack.database(0)
    ctx = _ctx(mock_pack, hand_facts, db)
    assert not _cached(spec, ctx, cache)
    assert _cached(spec, ctx, cache)

    # the writer: another writer, then another model of the same writer
    llm_a = LLMWriter(mock_pack, model="model-a", mock_response="unused")
    llm_b = LLMWriter(mock_pack, model="model-b", mock_response="unused")
    assert R.base_key(spec, _ctx(mock_pack, hand_facts, db, llm_a)) != R.base_key(spec, ctx)
    assert R.base_key(spec, _ctx(mock_pack, hand_facts, db, llm_a)) != R.base_key(spec, _ctx(mock_pack, hand_facts,
                                                                                               db, llm_b))
    # the kind's code
    real = R.kind_fingerprint
    monkeypatch.setattr(R, "kind_fingerprint", lambda k: real(k) + "-edited" if k == CHAT else real(k))
    assert not _cached(spec, ctx, cache)
    monkeypatch.setattr(R, "kind_fingerprint", real)
    assert _cached(spec, ctx, cache)

    # a fact the artifact carries changes its value: miss; a fact it does not mention: hit
    carried = next(f for f in hand_facts if "late fee" in f.statement)
    assert carried.id in spec.fact_ids or carried.id in {d.fact_id for d in spec.distractors}
    other = next(f for f in hand_facts if f.id not in spec.fact_ids and f.id not in {d.fact_id for d in spec.distractors})
    changed = carried.model_copy(update={"slots": [s.model_copy(update={"text": "$14", "value": 14})
                                                   for s in carried.slots],
                                         "statement": carried.statement.replace("$12", "$14")})
    facts2 = [changed if f.id == carried.id else f for f in hand_facts]
    assert not _cached(spec, _ctx(mock_pack, facts2, db), cache)
    renamed = other.model_copy(update={"statement": other.statement + " (revised)"})
    facts3 = [renamed if f.id == other.id else f for f in hand_facts]
    assert _cached(spec, _ctx(mock_pack, facts3, db), cache)

    # switching back to the first facts finds the first file again (traces are kept)
    assert _cached(spec, ctx, cache)


def test_render_cache_follows_the_database_records_it_read(mock_pack, hand_facts, tmp_path):
    """The render reads people and record ids (views) and, for some kinds, whole records: a
    change in a field no render looked at keeps every file; a change in what was read misses."""
    cache = tmp_path / "render"
    spec = make_spec(CHAT, hand_facts)
    db = mock_pack.database(0)
    assert not _cached(spec, _ctx(mock_pack, hand_facts, db), cache)
    tf = R._traces_file(cache, R.base_key(spec, _ctx(mock_pack, hand_facts, db)))
    import json
    reads = json.loads(tf.read_text())[0]["reads"]
    assert ["view", "people"] in reads or ["view", "records"] in reads

    table = next(t for t in sorted(db) if isinstance(db[t], dict) and db[t])
    first = sorted(db[table])[0]
    db2 = {k: (dict(v) if isinstance(v, dict) else v) for k, v in db.items()}
    db2[table] = dict(db2[table])
    db2[table][first] = {**db2[table][first], "internal_note": "not shown anywhere"}
    assert _cached(spec, _ctx(mock_pack, hand_facts, db2), cache), "an unread field re-rendered the file"

    people = [r for r in reads if r[0] == "view"]
    db3 = {k: (dict(v) if isinstance(v, dict) else v) for k, v in db.items()}
    if ["view", "people"] in people:
        tab = next(t for t in sorted(db3) if isinstance(db3[t], dict)
                   and any(isinstance(r, dict) and ("name" in r or "first_name" in r) for r in db3[t].values()))
        key = sorted(db3[tab])[0]
        rec = dict(db3[tab][key])
        if "name" in rec:
            rec["name"] = "Zed Quorum"
        else:
            rec["first_name"] = "Zed"
        db3[tab] = {**db3[tab], key: rec}
    else:
        tab = next(t for t in sorted(db3) if isinstance(db3[t], dict) and db3[t])
        db3[tab] = {**db3[tab], "NEW-1": {"id": "NEW-1"}}
    assert not _cached(spec, _ctx(mock_pack, hand_facts, db3), cache)


def test_extraction_key_includes_file_code_tools_and_vocabulary(mock_pack, hand_facts, tmp_path, monkeypatch,
                                                                fresh_fingerprints):
    spec = make_spec(WEB, hand_facts)
    (r,) = render_artifacts([spec], _ctx(mock_pack, hand_facts, mock_pack.database(0), workdir=tmp_path),
                            tmp_path / "render")
    (job,) = jobs_for([spec], {spec.id: (Path(r.file), r.sha256)}, {f.id: f for f in hand_facts})
    cache = tmp_path / "cache"
    assert extract_all([job], cache).cached == 0
    assert extract_all([job], cache).cached == 1
    assert Job(job.artifact_id, job.kind, job.file, "0" * 64).key != job.key
    assert Job(job.artifact_id, job.kind, job.file, job.sha256, ("extra words",)).key != job.key
    probe, purpose, hint = F.TOOLS["tesseract"]
    monkeypatch.setitem(F.TOOLS, "tesseract", (lambda: probe() + " (upgraded)", purpose, hint))
    F.tool_version.cache_clear()
    F.kind_fingerprint.cache_clear()
    assert extract_all([job], cache).cached == 0, "a new tesseract must read the file again"


def test_speech_vocabulary_is_scoped_to_the_file(mock_pack, hand_facts):
    """A file's speech vocabulary depends on its own facts and distractors only: changing the
    value of a fact it does not mention leaves it (and its extraction key) unchanged."""
    from audits.extraction import speech_candidates

    deposit = next(f for f in hand_facts if "deposit is" in f.statement)
    fee = next(f for f in hand_facts if "late fee" in f.statement)
    spec = ArtifactSpec(id="call-0001", kind=CALL, path="evidence/call-0001.wav", seed=1, date="2026-02-01",
                        facts=[FactMention(fact_id=deposit.id)])
    facts = {f.id: f for f in hand_facts}
    before = speech_candidates(spec, facts)
    assert "fifty dollars" in before and "deposit" in before
    other = fee.model_copy(update={"slots": [s.model_copy(update={"text": "$14", "value": 14}) for s in fee.slots]})
    assert speech_candidates(spec, {**facts, fee.id: other}) == before
    mine = deposit.model_copy(update={"slots": [s.model_copy(update={"text": "$55", "value": 55})
                                                for s in deposit.slots]})
    assert "fifty five dollars" in speech_candidates(spec, {**facts, deposit.id: mine})


def test_every_source_file_is_parsed_before_a_build_runs_its_steps(monkeypatch):
    """CPython 3.11's ast module counts recursion per interpreter, not per thread: an
    `ast.parse` for a code fingerprint in a step's thread while another thread parsed failed
    the LLM-writer build under load ("AST constructor recursion depth mismatch"). A build
    parses every project file first (`fingerprint.warm`); afterwards no fingerprint parses."""
    import ast
    from pathlib import Path

    from transforms import fingerprint as F

    n = F.warm()
    assert n == sum(1 for pkg in F.PROJECT_PACKAGES for _ in (Path(F.ROOT) / pkg).rglob("*.py"))

    def no_parse(*a, **k):
        raise AssertionError("parsed after warm-up")

    monkeypatch.setattr(ast, "parse", no_parse)
    for cached in (F._direct, F.module_closure, F.code_fingerprint):
        cached.cache_clear()  # recomputed below from the parsed files alone
    for kind in ("documents/memo", "tables/case_ledger", "recordings/voicemail"):
        assert F.code_fingerprint(F.kind_module(kind))
    assert F.code_fingerprint("audits.lints") and F.code_fingerprint("facts.match")
