"""Catalog cells as real tables: banking's catalog cells in a rate sheet and a PDF manual come
out as product-by-attribute schedules with footnotes, never as one "Product — Attribute:
value" line per cell, and every cell stays recoverable from the delivered file."""
from __future__ import annotations

import random
import re

import pytest

from audits.match import unhedged_mentions
from facts.match import TextIndex, match_fact
from domains.variants import resolve
from facts.values import parse_slots
from transforms import catalog as K
from transforms import registry
from transforms.base import ExtractContext, RenderContext
from transforms.plan import ArtifactSpec, Distractor, FactMention
from transforms.voicing import voiceable
from transforms.writers import make_writer


@pytest.fixture(scope="module")
def banking():
    w = resolve("banking", [])
    facts = w.factset().facts
    ctx = RenderContext(pack=w.pack, facts={f.id: f for f in facts}, writer=make_writer(w.pack), db=w.database(0))
    cells = [f for f in facts if K.is_cell(f) and f.section[0] in ("Personal checking catalog", "Home loan catalog")]
    return ctx, random.Random(7).sample(cells, 60)


def _spec(kind: str, facts) -> ArtifactSpec:
    t = registry.get(kind)
    old = facts[0]
    return ArtifactSpec(
        id="cat-0001", kind=kind, path=f"evidence/x{t.ext}", seed=5, date="2026-02-14",
        facts=[FactMention(fact_id=f.id, rendition="voiced" if i % 2 and voiceable(f) else "canonical")
               for i, f in enumerate(facts)],
        distractors=[Distractor(fact_id=old.id, slot=old.slots[0].name, text="$777", role="superseded",
                                date="2026-01-05")])


def _dumps(text: str, facts) -> list[str]:
    """Lines that state a cell the way the policy's table was decomposed."""
    heads = {f.statement.split(":")[0] for f in facts}
    return [ln for ln in text.splitlines() if any(h in ln for h in heads)]


@pytest.mark.parametrize("kind", ["tables/rate_sheet", "documents/pdf_manual"])
def test_catalog_cells_print_as_schedules(banking, kind, tmp_path):
    ctx, facts = banking
    t = registry.get(kind)
    out = tmp_path / f"cat{t.ext}"
    t.render(_spec(kind, facts), ctx, out)
    text = t.extract(out, ExtractContext()).text
    idx = TextIndex(text)
    missing = [f.statement for f in facts if not match_fact(f, idx).recovered]
    assert not missing, missing
    assert not _dumps(text, facts)  # no "Product — Attribute" line anywhere
    grids, _ = K.grids([(f, f.slots[0], False) for f in facts])
    assert {g.dimension for g in grids} == {"Checking product", "Home loan"}
    flat = " ".join(text.split())
    for g in grids:  # products across a header row under a schedule caption
        assert re.search(rf"schedule[^|]{{0,40}} by {g.dimension.lower()}", flat, re.I)
        if kind == "tables/rate_sheet":
            heads = [ln.split(" | ") for ln in text.splitlines() if ln.startswith(g.dimension + " | ")]
            assert heads and all(set(h[1:]) <= set(g.products) and len(h) <= 5 for h in heads)
            assert {p for h in heads for p in h[1:]} == set(g.products)
    assert "blank cell" in text.lower() and re.search(r"AP[RY]: annual percentage (rate|yield)", text)  # footnotes
    assert "Changed in this version" in text  # the superseded cell is marked; its old value only hedged
    old = parse_slots("$777")[0]
    assert idx.occurrences(old) and not unhedged_mentions(old, idx)


def test_grid_blocks_keep_values_beside_their_names(banking):
    _ctx, facts = banking
    grids, left = K.grids([(f, f.slots[0], False) for f in facts])
    assert not left and sum(len(g.cells) for g in grids) == len(facts)
    for g in grids:
        seen = set()
        for _caption, block in g.blocks(width=4, height=6):
            assert len(block.products) <= 4 and len(block.attributes) <= 6
            assert all(any(block.cell(a, p) for p in block.products) for a in block.attributes)
            seen |= set(block.cells)
            assert {g.group(a) for a in block.attributes} == {_caption}
        assert seen == set(g.cells)


def test_a_help_pages_grid_legend_is_worded_several_ways(banking):
    """Dozens of help pages print a grid with APR in it; their legends are worded as different
    authors word them (no one legend on a fifth of the pages), a document keeps one legend."""
    import random
    from collections import Counter

    from audits.language import mask

    ctx, _facts = banking
    cells = [f for f in ctx.facts.values() if K.is_cell(f)]
    grids, _ = K.grids([(f, f.slots[0], False) for f in cells])
    g = next(g for g in grids if any("APR" in a for a in g.attributes))
    seen = Counter(mask(g.footnotes(random.Random(i))[0]) for i in range(200))
    assert len(seen) >= 8 and max(seen.values()) <= 40, seen.most_common(3)
    assert g.footnotes() == g.footnotes()  # without a generator: one legend
    assert "APR" in g.footnotes()[0] and "annual percentage rate" in g.footnotes()[0]


def test_a_grid_shows_only_cells_one_figure_can_stand_for():
    """Cells a grid would show as one bare figure under names that do not say which stay
    lines (seen in the tau2 banking_knowledge documents, where such grids failed
    recoverability): prose cells, two-figure cells, cells keyed by a figure, a two-column
    table's value cells. Plain catalog
    cells ("$35 per item") are still grid cells, showing the figure in their value part."""
    from facts.models import Condition, Fact, FactKind, Slot, SlotType, SourceSpan

    def cell(statement, slots):
        return Fact(id="x", domain="d", section=["Fees"], kind=FactKind.value, statement=statement,
                    slots=[Slot(name=f"s{i}", type=t, text=x, value=v) for i, (x, t, v) in enumerate(slots)],
                    conditions=[Condition(attribute="product", value=statement.split(" \u2014 ")[0])],
                    source=SourceSpan(file="p.md", start_line=1, end_line=1))

    m = SlotType.money
    plain = cell("Premier Checking \u2014 Overdraft fee: $35 per item.", [("$35", m, 35)])
    assert K.is_cell(plain) and K.cell_slot(plain).text == "$35"
    for f in [cell("International ATM Withdrawal Fee \u2014 Amount: 2.5% of the withdrawal amount, minimum $4.00.",
                   [("2.5%", SlotType.percent, 2.5), ("$4.00", m, 4)]),
              cell("$40 \u2014 Percentage fee at 1%: $0.40.", [("$40", m, 40), ("1%", SlotType.percent, 1),
                                                               ("$0.40", m, 0.4)]),
              cell("Monthly Maintenance Fee \u2014 How to confirm: Check the Fee Summary on your statement and "
                   "verify whether your balance met $2,500 for the period.", [("$2,500", m, 2500)]),
              cell("Supported currencies \u2014 Value: 35.", [("35", SlotType.count, 35)])]:
        assert not K.is_cell(f), f.statement


def test_a_table_row_no_grid_can_show_is_said_as_prose():
    """A row a grid cannot show is read as the sentence it says, not realised from its
    parts: the tau2 banking_knowledge documents' phrase headings came out in chats as "the
    how your deposits create environmental impact for reforestation with a how your account
    contributes is 2 trees are planted ...". Value rows say what the row names, prose cells
    say it about the row, a measure column stays the measure; every voiced wording keeps
    the fact recoverable and no heading of the table is spoken; a row keyed by a figure and
    a grid cell stay cells."""
    from facts.models import Condition, Fact, FactKind, SourceSpan
    from transforms.reading import read
    from facts.match import carries
    from transforms.realise import Realiser
    from transforms.registers import REGISTERS

    def cell(statement, section="How your deposits create environmental impact", attr="impact channel"):
        row = statement.split(" \u2014 ")[0]
        return Fact(id="x." + row.lower().replace(" ", "-"), domain="d", section=[section], kind=FactKind.value,
                    statement=statement, anchors=[w.lower() for w in row.split() if len(w) > 3],
                    slots=parse_slots(statement),
                    conditions=[Condition(attribute=attr, value=row)],
                    source=SourceSpan(file="p.md", start_line=1, end_line=1))

    said = {
        "Reforestation \u2014 How your account contributes: 2 trees are planted for every $1,000 in average balance.":
            "For reforestation, 2 trees are planted for every $1,000 in average balance",
        "Returned deposit fee \u2014 Amount: $17.50.": "The returned deposit fee is $17.50",
        "Deposit must be made within \u2014 Value: 90 days.": "Deposit must be made within 90 days",
        # a row with a capital past its first letter keeps the case the policy writes it in
        "Daily ATM withdrawal limit \u2014 Details: $400.": "The Daily ATM withdrawal limit is $400",
        "Out-of-network ATM fee reimbursements \u2014 Monthly inclusion: Up to $32 in eligible fee reimbursements.":
            "For Out-of-network ATM fee reimbursements, the monthly inclusion is up to $32 in eligible fee "
             "reimbursements",
    }
    rl = Realiser(set())
    for statement, text in said.items():
        f = cell(statement)
        r = read(f)
        assert r.cell is None and r.table is not None and r.text == text, (statement, r.text)
        assert rl.render(f, "canonical", random.Random(0), REGISTERS["manual"]) == text + "."
        for name in ("chat", "customer_email", "team_chat"):
            for k in range(4):
                said_ = rl.render(f, "voiced", random.Random(k), REGISTERS[name])
                assert carries(f, said_), said_
                assert "how your" not in said_.lower() and "environmental impact" not in said_.lower(), said_
    # a row keyed by a figure says what the figure is, when the table names it
    example = cell("$40 \u2014 Percentage fee at 1%: $0.40.", attr="Cash withdrawal")
    assert read(example).text == "For a cash withdrawal of $40, the percentage fee at 1% is $0.40"
    score = cell("5-7 \u2014 Risk Level: MEDIUM.", section="STEP 3: Apply Score Thresholds", attr="Total Score")
    assert read(score).text == "For a total score of 5-7, the risk level is MEDIUM"
    unnamed = cell("$40 \u2014 Percentage fee at 1%: $0.40.", attr="Item")
    grid = cell("Premier Checking \u2014 Overdraft fee: $35 per item.", section="Fees")
    assert read(unnamed).cell is not None and read(grid).cell is not None and read(grid).table is None
