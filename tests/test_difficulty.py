"""The shallow-reader measures of the difficulty report, file by file."""
from __future__ import annotations

from audits import difficulty as D
from facts.models import Condition, Fact, FactKind, Slot, SlotType, SourceSpan


def _fact(fid: str, statement: str, conditions=(), slots=()) -> Fact:
    return Fact(id=fid, domain="bank", section=["Business deposit accounts"], kind=FactKind.value,
                statement=statement, source=SourceSpan(file="policy.md", start_line=1, end_line=1),
                conditions=list(conditions), slots=list(slots))


CELL = _fact("b.1", "Tax Reserve Savings \u2014 Cash deposit fee above the free amount: 0.30%.",
             [Condition(attribute="Business account", value="Tax Reserve Savings"),
              Condition(attribute="attribute", value="Cash deposit fee above the free amount")],
             [Slot(name="rate", type=SlotType.percent, value=0.3, unit="%", text="0.30%")])
RULE = _fact("b.2", "Wires sent after 4 pm go out on the next business day.")


def _runs(text: str) -> set[str]:
    ctx = D._reading_context([CELL, RULE], [CELL], frozenset(), "USD")
    return D._verbatim_in(text, ctx)[1]


def test_a_prose_copy_is_a_run():
    assert _runs("Note: wires sent after 4 pm go out on the next business day.") == {"b.2"}
    # a sentence wrapped over two lines is still one phrase
    assert _runs("Wires sent after 4 pm go out on\nthe next business day, as agreed.") == {"b.2"}


def test_a_schedule_is_not_a_copy_of_a_sentence():
    # the product header then the first row's label: two cells, no phrase anybody wrote
    table = "Business account | Tax Reserve Savings\nCash deposit fee above the free amount | 0.45%\n"
    assert _runs(table) == set()
    # a label alone, wrapped in a PDF schedule, only names the column
    assert _runs("4.36.2\nCash deposit fee above the\nfree amount\n0.45%\n") == set()


def test_the_label_with_the_value_is_a_run():
    assert _runs("The cash deposit fee above the free amount 0.30% applies.") == {"b.1"}


def test_runs_stop_at_a_sentence_end():
    assert _runs("Sent after 4 pm go out on the next shift.") == {"b.2"}
    assert _runs("Sent after 4 pm. Go out on the next shift.") == set()
