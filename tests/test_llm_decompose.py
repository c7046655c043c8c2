"""The optional LLM decomposer, driven only by litellm's mock_response (never a live call)."""
from __future__ import annotations

import json

import pytest

from domains.decompose import decompose_pack
from facts.decompose import decompose_markdown
from facts.errors import FactforgeError
from facts.llm import decompose_markdown_llm, section_chunks
from facts.models import FactKind, SlotType

POLICY = "# Pedal Policy\n\n## Late returns\n\n- The late fee is $12 for each started hour after the rental ends.\n"
GOOD = {"facts": [{
    "statement": "The late fee is $12 for each started hour after the rental ends.",
    "kind": "value", "lines": [5, 5],
    "slots": [{"name": "fee", "type": "money", "text": "$12", "value": 12, "unit": "USD"}],
    "conditions": [], "anchors": ["late", "fee"]}]}


def test_chunks_follow_sections():
    chunks = section_chunks("# T\n\nIntro.\n\n## A\n\nOne.\n\n```\n# not a heading\n```\n\n### B\n\nTwo.\n")
    assert [(c[0], c[1], c[2]) for c in chunks] == [(["T"], 3, 3), (["A"], 7, 11), (["A", "B"], 15, 15)]


def test_mock_response_becomes_validated_facts():
    fs = decompose_markdown_llm(POLICY, "_mock", mock_response=json.dumps(GOOD))
    assert fs.decomposer == "llm" and fs.unparsed == []
    (f,) = fs.facts
    assert f.kind == FactKind.value and f.section == ["Late returns"]
    assert (f.source.start_line, f.source.end_line) == (5, 5)
    assert f.slots[0].type == SlotType.money and f.slots[0].value == 12
    # same id as the built-in decomposer gives the same statement
    builtin = decompose_markdown(POLICY, "_mock")
    assert f.id == builtin.facts[0].id


def test_fenced_json_and_missing_lines_fall_back_to_chunk_span():
    item = dict(GOOD["facts"][0])
    item.pop("lines")
    item.pop("anchors")
    raw = "```json\n" + json.dumps({"facts": [item]}) + "\n```"
    (f,) = decompose_markdown_llm(POLICY, "_mock", mock_response=raw).facts
    assert (f.source.start_line, f.source.end_line) == (5, 5)
    assert "late" in f.anchors


@pytest.mark.parametrize("raw,needle", [
    ("this is not json", "invalid JSON"),
    (json.dumps({"items": []}), "no 'facts' list"),
    (json.dumps({"facts": [{"statement": "Fee is $12.", "kind": "value",
                            "slots": [{"name": "fee", "type": "money", "text": "$13", "value": 13}]}]}),
     "does not occur"),
    (json.dumps({"facts": [{"statement": "Fee is $12.", "kind": "opinion"}]}), "opinion"),
    (json.dumps({"facts": [{"statement": "Fee is $12.", "kind": "value", "lines": [1, 9]}]}), "outside the section"),
    (json.dumps({"facts": [{"statement": "Fee is $12.", "kind": "value",
                            "slots": [{"name": "fee", "type": "cash", "text": "$12", "value": 12}]}]}), "fact #1"),
])
def test_invalid_output_raises_with_file_and_line(raw, needle):
    with pytest.raises(FactforgeError) as e:
        decompose_markdown_llm(POLICY, "_mock", "policy.md", mock_response=raw)
    assert needle in e.value.problem
    assert (e.value.file, e.value.line) == ("policy.md", 5)


def test_uncovered_lines_are_reported():
    text = POLICY + "- Pass holders get a 20% discount on late fees.\n"
    fs = decompose_markdown_llm(text, "_mock", mock_response=json.dumps(GOOD))
    assert [(u.line, u.reason) for u in fs.unparsed] == [(6, "not covered by the LLM decomposition")]


def test_decompose_pack_with_llm(mock_pack, monkeypatch):
    monkeypatch.setenv("FACTFORGE_LLM_MODEL", "gpt-4o-mini")
    resp = json.dumps({"facts": [{"statement": "A standard rental lasts 24 hours.", "kind": "value",
                                  "slots": [{"name": "hours", "type": "duration", "text": "24 hours",
                                             "value": 24, "unit": "hour"}]}]})
    fs = decompose_pack(mock_pack, decomposer="llm", mock_response=resp)
    assert fs.decomposer == "llm"
    assert len(fs.facts) == 4  # one answer per section chunk (preamble + 3 sections)
    assert len({f.id for f in fs.facts}) == 4
    with pytest.raises(FactforgeError):
        decompose_pack(mock_pack, decomposer="magic")
