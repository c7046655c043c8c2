"""Recoverability audits on delivered files: a broken artifact fails the gate and is named;
distractors shown as current are caught; matching normalises surface forms."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from audits.extraction import extract_all, jobs_for
from audits.match import unhedged_mentions
from facts.match import TextIndex, match_fact
from audits.recoverability import check_recoverability, failures
from facts.models import Slot, SlotType
from transforms.base import RenderContext
from transforms.plan import FactMention
from transforms.planner import PlanConfig, plan_evidence
from transforms.render import base_key, lookup, render_artifacts
from transforms.writers import BuiltinWriter


def _fact(hand_facts, needle):
    return next(f for f in hand_facts if needle in f.statement)


@pytest.mark.parametrize("text", ["The security deposit is $50 per bike.",
                                  "Security deposit: fifty dollars for every bike",
                                  "Deposit (security) ... 50 dollars per bike",
                                  "SECURITY DEPOSIT | $50.00 | per bike"])
def test_value_forms_are_recovered(hand_facts, text):
    assert match_fact(_fact(hand_facts, "deposit"), TextIndex(text)).recovered


@pytest.mark.parametrize("text", ["The security deposit is $40 per bike.",
                                  "Late fee: $50.", "security deposit policy for bikes, see the desk"])
def test_wrong_or_absent_values_are_not(hand_facts, text):
    assert not match_fact(_fact(hand_facts, "deposit"), TextIndex(text)).recovered


def test_hedged_distractor_is_fine_unhedged_is_caught():
    wrong = Slot(name="deposit", type=SlotType.money, text="$40", value=40, unit="USD")
    assert unhedged_mentions(wrong, TextIndex("Customer: I thought the deposit was $40? Agent: it is $50.")) == []
    assert unhedged_mentions(wrong, TextIndex("Deposit per bike: $40.")) != []


def test_a_rival_value_counts_only_when_said_of_its_fact(hand_facts):
    """The value of small talk is nobody's rival: a wrong value counts as presented as current
    only with the fact's anchors beside it, as the matcher requires of a carrier."""
    fact = _fact(hand_facts, "late fee is")  # "The late fee is $12 for each started hour after the rental ends."
    wrong = Slot(name="fee", type=SlotType.money, text="$12", value=12, unit="USD")
    chat = TextIndex("Customer: parking cost me $12 this morning, what a day!\nAgent: sorry to hear that.")
    assert unhedged_mentions(wrong, chat) != []            # the number alone
    assert unhedged_mentions(wrong, chat, of=fact) == []   # not said of the fact
    said = TextIndex("Agent: the late fee is $12 for every hour after the rental ends.")
    assert unhedged_mentions(wrong, said, of=fact) != []


def _plan_for(hand_facts, kinds, mock_pack):
    from facts.models import FactSet
    fs = FactSet(domain="_mock", source_file="policy.md", facts=hand_facts)
    # no routine traffic (`volume=0`): only the files that carry the facts are rendered and read
    cfg = PlanConfig(kinds=kinds, noise_ratio=0, distractor_rate=0, superseded_rate=0, volume=0)
    return fs, plan_evidence(fs, 3, cfg, now=mock_pack.info.now)


def _extract(plan, fs, files, tmp_path):
    return extract_all(jobs_for(plan.artifacts, files, fs.by_id()), tmp_path / "cache").by_id


@pytest.mark.slow
def test_screenshot_without_a_value_fails_the_gate_by_ocr(mock_pack, hand_facts, tmp_path):
    fs, plan = _plan_for(hand_facts, ["visuals/web_screenshot"], mock_pack)
    ctx = RenderContext(pack=mock_pack, facts=fs.by_id(), writer=BuiltinWriter(mock_pack), db={})
    rendered = render_artifacts(plan.artifacts, ctx, tmp_path / "render")
    files = {r.artifact_id: (Path(r.file), r.sha256) for r in rendered}
    report = check_recoverability(plan, fs, _extract(plan, fs, files, tmp_path))
    assert report["summary"]["facts_recovered"] == len(hand_facts), failures(report)
    assert report["summary"]["by_modality"]["png"]["extractors"][0].startswith("ocr-")

    # Break it: re-render the artifact that carries the deposit without that fact, deliver
    # it in place of the real one; the plan still says it carries the deposit.
    victim = _fact(hand_facts, "deposit")
    spec = next(a for a in plan.artifacts if victim.id in a.fact_ids)
    broken = spec.model_copy(update={"facts": [m for m in spec.facts if m.fact_id != victim.id]})
    (br,) = render_artifacts([broken], ctx, tmp_path / "broken")
    files[spec.id] = (Path(br.file), br.sha256)
    report = check_recoverability(plan, fs, _extract(plan, fs, files, tmp_path))
    assert report["summary"]["facts_unrecovered"] == [victim.id]
    msg = "\n".join(failures(report))
    assert victim.id in msg and spec.path in msg and "ocr-" in msg


@pytest.mark.slow
def test_pipeline_gate_names_the_fact_of_a_broken_cached_artifact(tmp_path, mock_text_build_copy):
    """_mock built (the run's text-only seed-0 build, copied with its workspace): one delivered
    chat in the render cache replaced with a copy missing a fact, the build again: the blocking
    recoverability check fails, naming the fact and the file."""
    from domains.variants import resolve
    from pipeline import steps
    from pipeline.build import BuildFailed, build_partition
    from pipeline.resources import BuildSettings, Workspace

    bundle, out, root = mock_text_build_copy
    ws = Workspace(root=str(root), out=str(out))
    settings = BuildSettings(seed=0, profile="text-only")
    man = json.loads((bundle / "manifest.json").read_text())
    world = resolve("_mock")
    fs = world.factset()
    plan = steps.make_plan(world, fs, settings, Path(ws.audit_db))
    assert plan.hash == json.loads((bundle / "plan.json").read_text())["hash"]
    spec = next(a for a in plan.artifacts if a.kind == "conversations/chat_transcript" and a.facts)
    victim = spec.facts[0].fact_id
    ctx = RenderContext(pack=world.pack, facts=fs.by_id(), writer=BuiltinWriter(world.pack), db=world.database(0))
    cached = lookup(spec, ctx, base_key(spec, ctx), Path(ws.cache_dir) / "render")
    assert cached is not None and cached.exists()
    broken = spec.model_copy(update={"facts": [FactMention(fact_id=m.fact_id) for m in spec.facts[1:]]})
    (br,) = render_artifacts([broken], ctx, tmp_path / "broken")
    cached.write_bytes(Path(br.file).read_bytes())
    with pytest.raises(BuildFailed) as e:
        build_partition("_mock", ws, settings)
    assert "all_facts_recoverable" in str(e.value) and victim in str(e.value) and spec.path in str(e.value)
    assert any(f["path"] == spec.path for f in man["files"])


def test_a_table_cell_is_read_with_its_row_and_its_column_header():
    """Seen in a banking build: a rate sheet's 'Term' row sat six rows (more than the match
    window) under the header naming the product; a reader takes the column's header."""
    from facts.models import Fact, Slot, SlotType, SourceSpan
    f = Fact(id="x.term", domain="x", section=["Certificates"], kind="value",
             statement="IRA Bedrock Certificate \u2014 Term: 60 months.",
             slots=[Slot(name="term", type=SlotType.duration, text="60 months", value=60, unit="month")],
             source=SourceSpan(file="policy.md", start_line=1, end_line=1),
             anchors=["ira", "bedrock", "certificate", "term"])
    rows = "\n".join(f"Some long attribute name number {i} | {i} days | {i + 1} days" for i in range(8))
    table = f"Limits and terms\nCertificate | IRA Lighthouse Certificate | IRA Bedrock Certificate\n{rows}\n" \
            f"Term | 36 months | 60 months\n"
    assert match_fact(f, TextIndex(table)).recovered
    # only the value's own column header counts: under a header naming nothing of the fact,
    # with the fact's product in the next column, the row word alone is not enough
    other = table.replace("IRA Lighthouse Certificate", "Young Saver Plan").replace(
        "Term | 36 months | 60 months", "Term | 60 months | 36 months")
    assert not match_fact(f, TextIndex(other)).recovered


def test_a_route_table_row_with_an_en_dash_range_is_read():
    """The schedule row "SC-511 | - | 7–10 business days" proves the table hop: the text index
    holds normalised text (en dash as hyphen), and the value's forms are normalised the same
    way (the tau2 banking_knowledge build failed on exactly this row)."""
    from types import SimpleNamespace
    from audits.recoverability import prove_route
    from facts.match import TextIndex
    from facts.models import Fact, FactKind, Slot, SlotType, SourceSpan
    from transforms.plan import Hop, Route
    f = Fact(id="x", domain="d", section=["Shipping"], kind=FactKind.value,
             statement="Standard delivery: 7\u201310 business days; no fee.",
             slots=[Slot(name="d", type=SlotType.duration, text="7\u201310 business days", value=7, unit="business_day")],
             conditions=[], source=SourceSpan(file="p.md", start_line=1, end_line=1), anchors=["standard", "delivery"])
    r = Route(id="route-0001", fact_id="x", code="SC-511", hops=[Hop(artifact_id="k", part="key"),
                                                                   Hop(artifact_id="t", part="table")])
    idx = {"k": TextIndex("Standard delivery: the period set out under code SC-511 of the Schedule; no fee."),
           "t": TextIndex("Code | Line | Figure\nSC-511 | - | 7\u201310 business days")}
    specs = {"k": SimpleNamespace(path="k.docx"), "t": SimpleNamespace(path="t.xlsx")}
    out = prove_route(r, f, idx, specs, "USD")
    assert out["key_ok"] and out["table_ok"] and out["recovered"], out


def test_a_carrier_that_drops_a_floor_is_a_qualifier_mismatch(mock_pack, hand_facts):
    """The report counts a carrier that says a fact's value without its bound ("must be 16"
    for "must be at least 16"): recovered all the same (a measure, not the gate), with the
    fact, the file and the sentence."""
    from transforms.base import Extraction

    fs, plan = _plan_for(hand_facts, ["conversations/chat_transcript"], mock_pack)
    age = _fact(hand_facts, "at least 16")

    def texts(drop: bool) -> dict:
        out = {}
        for a in plan.artifacts:
            said = [fs.by_id()[i].statement for i in a.fact_ids]
            if drop:
                said = [s.replace("at least 16", "16") for s in said]
            out[a.id] = Extraction(text="Agent: " + "\nAgent: ".join(said), extractor="text")
        return out

    report = check_recoverability(plan, fs, texts(drop=False))
    assert report["summary"]["facts_recovered"] == len(hand_facts)
    assert report["summary"]["qualifier_mismatches"] == {"count": 0, "examples": []}
    report = check_recoverability(plan, fs, texts(drop=True))
    assert report["summary"]["facts_recovered"] == len(hand_facts)
    got = report["summary"]["qualifier_mismatches"]
    assert got["count"] >= 1 and {e["fact_id"] for e in got["examples"]} == {age.id}
    assert "must be 16 years old" in got["examples"][0]["text"]
