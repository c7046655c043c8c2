"""Per-file audit results kept in the workspace cache: the lints of a file are loaded when
nothing they depend on changed, and computed again exactly where something did."""
from __future__ import annotations

import json
from pathlib import Path

from audits import lints as LI
from audits.extraction import extract_all, jobs_for
from audits.readings import text_index
from audits.recoverability import check_recoverability
from facts.models import FactSet
from transforms.base import RenderContext
from transforms.planner import PlanConfig, plan_evidence
from transforms.render import render_artifacts
from transforms.writers import BuiltinWriter

KINDS = ["conversations/email_thread", "conversations/chat_transcript", "documents/kb_article"]


def _built(mock_pack, facts, tmp_path):
    fs = FactSet(domain="_mock", source_file="policy.md", facts=facts)
    plan = plan_evidence(fs, 3, PlanConfig(kinds=KINDS), now=mock_pack.info.now)
    ctx = RenderContext(pack=mock_pack, facts=fs.by_id(), writer=BuiltinWriter(mock_pack), db={})
    rendered = render_artifacts(plan.artifacts, ctx, tmp_path / "render")
    files = {r.artifact_id: (Path(r.file), r.sha256) for r in rendered}
    ex = extract_all(jobs_for(plan.artifacts, files, fs.by_id()), tmp_path / "cache", currency="USD").by_id
    return fs, plan, ex


def _report(plan, fs, ex, pack, cache=None) -> str:
    return json.dumps(LI.lint_files(plan, fs, ex, pack, cache=cache), sort_keys=True)


def test_kept_lints_give_the_same_report_and_are_loaded(mock_pack, hand_facts, tmp_path, monkeypatch):
    fs, plan, ex = _built(mock_pack, hand_facts, tmp_path)
    assert len(plan.artifacts) >= 3
    plain = _report(plan, fs, ex, mock_pack)
    assert _report(plan, fs, ex, mock_pack, tmp_path / "cache") == plain    # computed and kept
    calls = []
    real = LI._lint_one
    monkeypatch.setattr(LI, "_lint_one", lambda *a: calls.append(a[1].path) or real(*a))
    assert _report(plan, fs, ex, mock_pack, tmp_path / "cache") == plain    # loaded
    assert calls == []


def test_a_changed_fact_reads_again_exactly_the_files_that_name_it(mock_pack, hand_facts, tmp_path, monkeypatch):
    fs, plan, ex = _built(mock_pack, hand_facts, tmp_path)
    _report(plan, fs, ex, mock_pack, tmp_path / "cache")
    target = next(a for a in plan.artifacts if a.facts)
    fid = target.facts[0].fact_id
    # a file names a fact in any role, a wrong value included (the heading lint reads the
    # statements of every fact a file mentions)
    naming = {a.path for a in plan.artifacts if fid in a.mentioned_ids}
    assert naming and naming != {a.path for a in plan.artifacts}, "some files name the fact, some do not"
    changed = [f.model_copy(update={"statement": f.statement + " (checked)"}) if f.id == fid else f for f in fs.facts]
    fs2 = FactSet(domain="_mock", source_file="policy.md", facts=changed)
    calls = []
    real = LI._lint_one
    monkeypatch.setattr(LI, "_lint_one", lambda *a: calls.append(a[1].path) or real(*a))
    kept = _report(plan, fs2, ex, mock_pack, tmp_path / "cache")
    assert set(calls) == naming
    monkeypatch.setattr(LI, "_lint_one", real)
    assert kept == _report(plan, fs2, ex, mock_pack)


def test_the_extraction_keeps_the_values_the_audits_load(mock_pack, hand_facts, tmp_path):
    fs, plan, ex = _built(mock_pack, hand_facts, tmp_path)
    kept = list((tmp_path / "cache").rglob("values-v1/*/*.pkl"))
    assert len(kept) == len({e.text for e in ex.values()})
    assert (json.dumps(check_recoverability(plan, fs, ex, values_cache=tmp_path / "cache"), sort_keys=True)
            == json.dumps(check_recoverability(plan, fs, ex), sort_keys=True))
    a = next(iter(ex.values())).text
    assert text_index(a, "USD", tmp_path / "cache").spans == text_index(a, "USD").spans
