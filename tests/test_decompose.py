"""The built-in decomposer: structure, per-tier and table facts, ids, unparsed lines, errors,
and coverage of every policy value of the tau2-bench airline and retail policies."""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from domains.decompose import decompose_pack
from facts.decompose import decompose_markdown
from facts.errors import FactforgeError
from facts.models import Condition, FactKind, Slot, SlotType

from .conftest import tau2_data

POLICY = """# Test Air Policy

The current time is 2024-05-15 15:00:00 EST.

## Membership

There are three membership levels: **regular**, **silver**, **gold**.

Gold members get 3 free bags, silver 2, regular 1.

## Fees

- Change fee: basic economy: $100; economy: $75.
- Each extra bag is 50 dollars.
- Agents must not waive a fee above $60.

## Refunds

1. Confirm the reservation id.
2. Check the refund reason.
3. Refund the original payment method within 5 to 7 business days.
"""


def _by_statement(fs) -> dict:
    return {f.statement: f for f in fs.facts}


def test_sections_kinds_and_spans():
    fs = decompose_markdown(POLICY, "t")
    facts = _by_statement(fs)
    pre = facts["The current time is 2024-05-15 15:00:00 EST."]
    assert pre.section == ["Test Air Policy"] and pre.source.start_line == 3
    assert facts["Each extra bag is 50 dollars."].kind == FactKind.value
    assert facts["Agents must not waive a fee above $60."].kind == FactKind.prohibition
    steps = [f for f in fs.facts if f.section == ["Refunds"]]
    assert [f.kind for f in steps] == [FactKind.procedure_step] * 3
    assert [f.source.start_line for f in steps] == [19, 20, 21]
    assert steps[1].depends_on == [steps[0].id] and steps[2].depends_on == [steps[1].id]
    assert facts["There are three membership levels: regular, silver, gold."].kind == FactKind.definition
    assert fs.unparsed == []
    assert len({f.id for f in fs.facts}) == len(fs.facts)


def test_per_tier_statements_become_one_fact_per_value():
    facts = _by_statement(decompose_markdown(POLICY, "t"))
    for tier, n in (("Gold", 3), ("Silver", 2), ("Regular", 1)):
        f = facts[f"{tier} members get {n} free bags."]
        assert f.conditions == [Condition(attribute="membership level", value=tier.lower())]
        assert [(s.type, s.value) for s in f.slots] == [(SlotType.count, n)]
        assert tier.lower() in f.anchors
    for cabin, v in (("basic economy", 100), ("economy", 75)):
        f = facts[f"Change fee for {cabin}: ${v}."]
        assert f.conditions == [Condition(attribute="tier", value=cabin)]
        assert [(s.type, s.value) for s in f.slots] == [(SlotType.money, v)]
        assert f.section == ["Fees"]


def test_percent_per_category_split():
    facts = _by_statement(decompose_markdown("## Rewards\n\nEarn 3% on dining, 2% on groceries, and 1% on "
                                             "everything else.\n", "t"))
    assert set(facts) == {"Earn 3% on dining.", "Earn 2% on groceries.", "Earn 1% on everything else."}
    assert facts["Earn 2% on groceries."].conditions == [Condition(attribute="category", value="groceries")]


def test_nested_bullets_take_parent_context_and_conditions():
    text = ("# P\n\nThere are three cabin classes: **basic economy**, **economy**, **business**.\n\n"
            "## Bags\n\nCheck bag allowance:\n- If the booking user is a gold member:\n"
            "  - 2 free checked bags for each basic economy passenger\n"
            "  - 4 free checked bags for each business passenger\n")
    fs = decompose_markdown(text, "t")
    bags = [f for f in fs.facts if f.section == ["Bags", "Check bag allowance"]]
    assert [f.statement for f in bags] == [
        "If the booking user is a gold member: 2 free checked bags for each basic economy passenger.",
        "If the booking user is a gold member: 4 free checked bags for each business passenger."]
    assert bags[0].conditions == [Condition(attribute="cabin class", value="basic economy")]
    assert bags[1].conditions == [Condition(attribute="cabin class", value="business")]
    assert [f.source.start_line for f in bags] == [9, 10]


def test_lead_in_paragraph_is_context_for_its_list():
    fs = decompose_markdown("## Cancel\n\nA flight can be cancelled if any of the following is true:\n\n"
                            "- The booking was made within the last 24 hrs\n- It is a business flight\n", "t")
    assert [f.statement for f in fs.facts] == [
        "A flight can be cancelled if any of the following is true: The booking was made within the last 24 hrs.",
        "A flight can be cancelled if any of the following is true: It is a business flight."]
    assert fs.facts[0].slots[0].display() == "24 hour"
    assert fs.facts[0].slots[0].key() == Slot(name="d", type=SlotType.duration, text="1 day", value=1, unit="day").key()


def test_table_gives_one_fact_per_cell():
    text = ("## Cards\n\n| Card | Annual fee | APR | Notes |\n| --- | --- | ---: | --- |\n"
            "| Gold Card | $95 | 19.99% | |\n| Silver Card | $0.00 | 21% | no rewards |\n")
    fs = decompose_markdown(text, "bank")
    assert [f.statement for f in fs.facts] == [
        "Gold Card — Annual fee: $95.", "Gold Card — APR: 19.99%.",
        "Silver Card — Annual fee: $0.00.", "Silver Card — APR: 21%.", "Silver Card — Notes: no rewards."]
    f = fs.facts[1]
    assert f.conditions == [Condition(attribute="Card", value="Gold Card"),
                            Condition(attribute="attribute", value="APR")]
    assert [(s.type, s.value, s.name) for s in f.slots] == [(SlotType.percent, 19.99, "gold_card")]
    assert f.kind == FactKind.value and f.source.start_line == 5
    assert "gold card" in f.anchors
    assert fs.facts[2].slots[0].value == 0


def test_table_bare_number_cell_is_a_count():
    fs = decompose_markdown("## Limits\n\n| Item | Value |\n|---|---|\n| Monthly withdrawal limit | 20 |\n", "b")
    (f,) = fs.facts
    assert [(s.type, s.value) for s in f.slots] == [(SlotType.count, 20)]


def test_sentences_do_not_split_on_abbreviations_or_decimals():
    text = ("## Notes\n\nFees apply, e.g. the $1.50 charge for U.S. cards. Mr. Smith approves them. "
            "A second sentence follows!\n")
    fs = decompose_markdown(text, "t")
    assert [f.statement for f in fs.facts] == [
        "Fees apply, e.g. the $1.50 charge for U.S. cards.", "Mr. Smith approves them.",
        "A second sentence follows!"]


def test_inline_numbered_steps_are_split():
    fs = decompose_markdown("## Open\n\nSteps: 1) Verify customer identity, 2) Check eligibility, "
                            "3) Use open_bank_account_4821 to open the account.\n", "b")
    assert [f.statement for f in fs.facts] == [
        "Steps: Verify customer identity.", "Steps: Check eligibility.",
        "Steps: Use open_bank_account_4821 to open the account."]
    assert fs.facts[2].slots[0].type == SlotType.identifier
    assert fs.facts[2].depends_on == [fs.facts[1].id]


def test_unparsed_lines_are_reported_with_reasons():
    text = ("## A\n\nValid sentence about fees here.\n\n---\n\n- ok\n\n```\ncall_tool(x=1)\n```\n\n"
            "- \n\n<!-- -->\n")
    fs = decompose_markdown(text, "t")
    reasons = {u.line: u.reason for u in fs.unparsed}
    assert reasons[5].startswith("markup only")
    assert reasons[7].startswith("too short")
    assert reasons[10] == "inside a code block"
    assert reasons[13] == "empty list item"
    assert 15 not in reasons, "an HTML comment is an author's note (structure), not an unparsed line"
    assert [f.statement for f in fs.facts] == ["Valid sentence about fees here."]


def test_html_comments_are_structure_and_unclosed_ones_are_errors():
    fs = decompose_markdown("## A\n\n<!-- Write one rule per bullet.\nKeep units. -->\n\n- The fee is $5 per bag.\n", "t")
    assert [f.statement for f in fs.facts] == ["The fee is $5 per bag."] and not fs.unparsed
    with pytest.raises(FactforgeError) as e:
        decompose_markdown("## A\n\n<!-- never closed\n- The fee is $5.\n", "t", "p.md")
    assert (e.value.file, e.value.line) == ("p.md", 3) and "HTML comment" in e.value.problem


def test_malformed_table_names_file_and_line():
    text = "## T\n\n| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 | 5 |\n"
    with pytest.raises(FactforgeError) as e:
        decompose_markdown(text, "t", "policy/fees.md")
    assert (e.value.file, e.value.line) == ("policy/fees.md", 6)
    assert "3 cells" in e.value.problem and "header has 2" in e.value.problem


def test_other_malformed_inputs():
    with pytest.raises(FactforgeError) as e:
        decompose_markdown("## T\n\nText.\n\n```python\nx = 1\n", "t")
    assert e.value.line == 5 and "unclosed code fence" in e.value.problem
    with pytest.raises(FactforgeError) as e:
        decompose_markdown("## T\n\nok line\n".encode() + b"bad \xff byte\n", "t")
    assert e.value.line == 4 and "UTF-8" in e.value.problem
    with pytest.raises(FactforgeError) as e:
        decompose_markdown("## T\n\n| a | b |\n| 1 | 2 |\n", "t")
    assert e.value.line == 3


def test_ids_are_stable_when_unrelated_lines_are_inserted():
    base = decompose_markdown(POLICY, "t")
    edited = POLICY.replace("## Fees\n", "## Fees\n\nA brand new unrelated rule about pets.\n").replace(
        "# Test Air Policy\n", "# Test Air Policy\n\nIntro line added on top.\n")
    after = decompose_markdown(edited, "t")
    before_ids = {f.id: f for f in base.facts}
    after_ids = {f.id: f for f in after.facts}
    assert set(before_ids) <= set(after_ids)
    assert len(after_ids) == len(before_ids) + 2
    moved = after_ids[base.facts[-1].id]
    assert moved.source.start_line == base.facts[-1].source.start_line + 4
    # a value change keeps the id (the template is the identity)
    changed = decompose_markdown(POLICY.replace("50 dollars", "65 dollars"), "t")
    assert [f.id for f in changed.facts] == [f.id for f in base.facts]


def test_identical_statements_in_one_section_get_distinct_ids():
    fs = decompose_markdown("## A\n\n- Call the manager now.\n- Call the manager now.\n", "t")
    assert len(fs.facts) == 2 and fs.facts[0].id != fs.facts[1].id


def test_deterministic_output():
    a = decompose_markdown(POLICY, "t")
    b = decompose_markdown(POLICY, "t")
    assert a.hash == b.hash
    assert a.model_dump_json() == b.model_dump_json()


def test_mock_pack_matches_hand_built_facts(mock_pack, hand_facts):
    fs = decompose_pack(mock_pack)
    assert fs.source_file == "policy.md" and fs.decomposer == "builtin"
    assert all(f.source.file == "policy.md" for f in fs.facts)
    ids = {f.id for f in fs.facts}
    plain = [h for h in hand_facts if not h.conditions]
    assert plain and all(h.id in ids for h in plain)
    assert len(fs.facts) == 11 and fs.unparsed == []


def test_decompose_pack_cache_returns_independent_copies(mock_pack):
    a = decompose_pack(mock_pack)
    a.facts[0].statement = "mutated"
    b = decompose_pack(mock_pack)
    assert b.facts[0].statement != "mutated"
    assert b.hash == decompose_pack(mock_pack).hash


def test_decompose_pack_reads_policy_folder_and_rejects_bad_bytes(mock_pack, tmp_path):
    from domains import load_pack

    root = tmp_path / "pack"
    shutil.copytree(mock_pack.path, root)
    (root / "policy.md").unlink()
    (root / "policy").mkdir()
    (root / "policy" / "a.md").write_text("## Fees\n\n- The late fee is $12.\n", encoding="utf-8")
    (root / "policy" / "b.md").write_text("## Deposits\n\n- The deposit is $50.\n", encoding="utf-8")
    fs = decompose_pack(load_pack(root))
    assert [f.source.file for f in fs.facts] == ["policy/a.md", "policy/b.md"]
    (root / "policy" / "b.md").write_bytes(b"## Deposits\n\n- The deposit is \xa350.\n")
    with pytest.raises(FactforgeError) as e:
        decompose_pack(load_pack(root))
    assert (e.value.file, e.value.line) == ("policy/b.md", 3)


# --- tau2-bench policies ------------------------------------------------------------------------
_NUM = re.compile(r"(?<![\w:.,$-])\$?(\d+(?:,\d{3})*(?:\.\d+)?)(?![\w:])")
_WORD_NUM = re.compile(r"\b(?:at most|at least|up to|there are)\s+(one|two|three|four|five|six|seven|eight|nine|ten)\b",
                       re.IGNORECASE)
_WORDS = {w: i for i, w in enumerate("zero one two three four five six seven eight nine ten".split())}


def _policy(name: str) -> str:
    return tau2_data(name, "policy.md").read_text(encoding="utf-8")


def _expected_values(text: str) -> list[tuple[int, float, str]]:
    out = []
    for no, line in enumerate(text.split("\n"), 1):
        if line.strip().startswith("The current time is"):
            continue  # the world clock, not a policy value
        body = re.sub(r"^\s*(?:[-*]\s+)?\d+[.)]\s", " ", line)  # list markers are not values
        body = re.sub(r"\b(?:12|24)[- ]hour\s+(?:based|clock|format)\b", " ", body)  # a clock convention, not a value
        out += [(no, float(m.group(1).replace(",", "")), m.group(0)) for m in _NUM.finditer(body)
                if not re.search(r"\bstep\s*$", body[:m.start()], re.IGNORECASE)]
        out += [(no, float(_WORDS[m.group(1).lower()]), m.group(0)) for m in _WORD_NUM.finditer(line)]
    return out


@pytest.mark.parametrize("domain", ["airline", "retail"])
def test_every_policy_value_of_tau2_policies_is_in_a_slot(domain):
    text = _policy(domain)
    fs = decompose_markdown(text, domain)
    expected = _expected_values(text)
    assert len(expected) >= (15 if domain == "airline" else 4)
    missing = []
    for line, value, surface in expected:
        ok = any(f.source.start_line <= line <= f.source.end_line and any(
            s.type in (SlotType.money, SlotType.count, SlotType.duration, SlotType.percent)
            and value in (float(s.value), float(s.value_max) if s.value_max is not None else None)
            for s in f.slots) for f in fs.facts)
        if not ok:
            missing.append((line, surface))
    assert missing == []


@pytest.mark.parametrize("domain", ["airline", "retail"])
def test_every_tau2_policy_line_is_accounted_for(domain):
    text = _policy(domain)
    fs = decompose_markdown(text, domain)
    covered = {n for f in fs.facts for n in range(f.source.start_line, f.source.end_line + 1)}
    covered |= {u.line for u in fs.unparsed}
    for no, line in enumerate(text.split("\n"), 1):
        s = line.strip()
        if s and not s.startswith("#") and not s.endswith(":"):
            assert no in covered, (no, line)
    assert len({f.id for f in fs.facts}) == len(fs.facts)
    for f in fs.facts:
        assert 1 <= len(f.anchors) <= 6
        assert all(s.text in f.statement for s in f.slots)


def test_airline_checked_bags_carry_tier_and_cabin_conditions():
    fs = decompose_markdown(_policy("airline"), "airline")
    bag_facts = [f for f in fs.facts if f.section[-1] == "Checked bag allowance" and f.slots
                 and f.slots[0].type == SlotType.count]
    assert len(bag_facts) == 9
    table = {(next(c.value for c in f.conditions if c.attribute == "membership level"),
              next(c.value for c in f.conditions if c.attribute == "cabin class")): f.slots[0].value
             for f in bag_facts}
    assert table[("regular", "basic economy")] == 0
    assert table[("silver", "economy")] == 2
    assert table[("gold", "business")] == 4


def test_banking_documents_decompose_without_errors():
    folder = tau2_data("banking_knowledge", "documents")
    docs = sorted(folder.glob("*.json"))[::7]
    total = 0
    for p in docs:
        d = json.loads(p.read_text(encoding="utf-8"))
        fs = decompose_markdown(f"# {d['title']}\n\n{d['content']}", "banking", p.name)
        assert len({f.id for f in fs.facts}) == len(fs.facts)
        assert all(s.text in f.statement for f in fs.facts for s in f.slots)
        total += len(fs.facts)
    assert total > 8 * len(docs)


def test_policy_files_relative_paths(mock_pack):
    fs = decompose_pack(mock_pack)
    assert not Path(fs.facts[0].source.file).is_absolute()


def test_every_discovered_pack_decomposes():
    from domains import discover

    for name, pack in sorted(discover(include_test=True).items()):
        fs = pack.factset()
        assert fs.facts, name
        assert len({f.id for f in fs.facts}) == len(fs.facts), name
        assert all(s.text in f.statement for f in fs.facts for s in f.slots), name
        assert all(d in {x.id for x in fs.facts} for f in fs.facts for d in f.depends_on), name


# --- kinds, conditions, thresholds, splits -----------------------------------------------------
SHOP = """# Harbor Cycles Policy

## Domain basics

There are three payment types: **voucher**, **debit card**, **store credit**.

Each rental has the following attributes:
- rental ID
- bike size

## Tools

- `find_rental(rental_id)`: Look up a rental by its id.
- `close_rental(rental_id)`: Close a rental and stop the clock.

## Payment

- Each rental can use at most one voucher, at most two debit cards, and at most three store credits.
- A refund reaches the customer immediately if it is store credit, otherwise within 3 to 5 business days.
- Voucher rentals cannot be extended.
- Helmets can be swapped once per rental, and a bike twice per season.
- The rental app needs at least a 3G network connection and at most 2GB of storage.

## Returns

Late returns are billed per hour. <!-- draft: $9 per hour --> The late fee is $6 per hour.
Inspect the bike on return.
This helps us catch damage early.

If the lock is jammed:
If the lock works:
- Return the key at the desk.
"""


def _shop():
    return {f.statement: f for f in decompose_markdown(SHOP, "shop").facts}, decompose_markdown(SHOP, "shop")


def test_schema_bullets_and_tool_descriptions_are_definitions():
    facts, _ = _shop()
    assert facts["Each rental has the following attributes: rental ID."].kind == FactKind.definition
    assert facts["Each rental has the following attributes: bike size."].kind == FactKind.definition
    assert facts["find_rental(rental_id): Look up a rental by its id."].kind == FactKind.definition
    assert facts["close_rental(rental_id): Close a rental and stop the clock."].kind == FactKind.definition


def test_compound_limits_split_into_one_fact_per_limit():
    facts, _ = _shop()
    for noun, n in (("one voucher", 1), ("two debit cards", 2), ("three store credits", 3)):
        f = facts[f"Each rental can use at most {noun}."]
        assert [(s.type, s.value, s.qualifier) for s in f.slots] == [(SlotType.count, n, "at_most")]
        assert f.kind == FactKind.value and f.conditions == []


def test_conditions_bind_to_their_own_alternative():
    facts, _ = _shop()
    now = facts["A refund reaches the customer immediately if it is store credit."]
    later = facts["A refund reaches the customer within 3 to 5 business days if it is not store credit."]
    assert now.slots == [] and now.conditions == [Condition(attribute="payment type", value="store credit")]
    assert [(s.value, s.value_max, s.unit) for s in later.slots] == [(3, 5, "business_day")]
    assert later.conditions == [Condition(attribute="payment type", value="not store credit")]
    subject = facts["Voucher rentals cannot be extended."]
    assert subject.kind == FactKind.prohibition
    assert subject.conditions == [Condition(attribute="payment type", value="voucher")]


def test_word_and_unit_thresholds_are_slots():
    facts, _ = _shop()
    f = facts["Helmets can be swapped once per rental, and a bike twice per season."]
    assert [(s.text, s.value) for s in f.slots] == [("once", 1), ("twice", 2)]
    g = facts["The rental app needs at least a 3G network connection."]
    h = facts["The rental app needs at most 2GB of storage."]
    assert [(s.text, s.value, s.unit, s.qualifier) for s in g.slots + h.slots] == [("3G", 3, "G", "at_least"),
                                                                                  ("2GB", 2, "GB", "at_most")]
    assert decompose_markdown("## A\n\nOnce the bike is back, close the rental.\n", "t").facts[0].slots == []


def test_inline_comments_pronouns_and_claimless_conditions():
    facts, fs = _shop()
    assert "The late fee is $6 per hour." in facts
    assert not any("draft" in s or "$9" in s for s in facts)
    assert "Inspect the bike on return; this helps us catch damage early." in facts
    assert not any(s.startswith("This") for s in facts)
    assert "If the lock works: Return the key at the desk." in facts
    assert not any(s.startswith("If the lock is jammed") for s in facts)
    jammed = [u for u in fs.unparsed if u.text == "If the lock is jammed:"]
    assert jammed and "without a claim" in jammed[0].reason


def test_a_category_list_is_not_a_prohibition():
    text = ("## Disputes\n\ndispute_category - Must be exactly one of:\n"
            "- 'not_received': Paid but never received the item.\n- 'duplicate': Charged twice for one purchase.\n")
    kinds = {f.statement: f.kind for f in decompose_markdown(text, "b").facts}
    assert set(kinds.values()) == {FactKind.definition}, kinds
