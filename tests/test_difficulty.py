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


# --------------------------------------------------------------------------- the shallow reader

FEE = Fact(id="m.1", domain="_mock", section=["Late returns"], kind=FactKind.value,
           statement="The late fee is $12 for each started hour after the rental ends.",
           source=SourceSpan(file="policy.md", start_line=1, end_line=1),
           slots=[Slot(name="fee", type=SlotType.money, value=12, unit="USD", text="$12")])


def test_the_shallow_reader_asks_without_the_answer_and_takes_the_best_window():
    from audits.readers import Index, query_terms, read

    assert "12" not in " ".join(query_terms(FEE)) and {"late", "fee", "started", "hour"} <= set(query_terms(FEE))
    plain = Index(["Thanks for riding with us!", "Heads up: the late fee is twelve dollars for each started hour."])
    (a,) = read(plain, [FEE])
    assert a.correct and a.answer == "twelve dollars"
    # an old figure in the sentence that echoes the question best wins over the current one said briefly
    misled = Index(["Back then the late fee was $10 for each started hour after the rental ends.",
                    "Late? That's $12 now."])
    (b,) = read(misled, [FEE])
    assert not b.correct and b.answer == "$10"
    # no window with a money value: no answer
    (c,) = read(Index(["The late fee applies after the rental ends."]), [FEE])
    assert c.answer is None and not c.correct and c.majority is None and not c.majority_correct


def test_the_shallow_readers_majority_follows_repetition_not_rank():
    from audits.readers import Index, read

    # the best window states the current fee; three older ones state the old fee: the majority
    # of the best windows is the old one
    index = Index(["The late fee is $12 for each started hour after the rental ends.",
                   "Late fee: $10 for each started hour, see the rental terms.",
                   "Reminder that the late fee is $10 for each started hour.",
                   "The late fee per started hour? $10, as always.",
                   "Thanks for riding with us!"])
    (a,) = read(index, [FEE])
    assert a.correct and a.answer == "$12"
    assert not a.majority_correct and a.majority == "$10"
    # a tie goes to the better-ranked value
    (b,) = read(Index(["The late fee is $12 for each started hour after the rental ends.",
                       "Late fee: $10 for each started hour."]), [FEE])
    assert b.majority == "$12" and b.majority_correct


def test_windows_that_score_the_same_rank_alike_wherever_they_stand():
    """A tie is not settled by the order of the bundle's files (the planner's order, current
    values first), so the same windows in any order give the same answer."""
    from audits.readers import Index, read

    current = "The late fee is $12 for each started hour after the rental ends."
    old = "The late fee is $10 for each started hour after the rental ends."
    (a,) = read(Index([current, old]), [FEE])
    (b,) = read(Index([old, current]), [FEE])
    assert a.answer == b.answer and a.answer in ("$12", "$10")
    assert len({read(Index(order), [FEE])[0].answer for order in ([current, old, "Thanks!"],
                                                                  ["Thanks!", old, current])}) == 1


def test_a_table_row_is_one_window():
    from audits.readers import windows

    assert windows("Fees | Late fee | $12\nDeposits | Security deposit | $50") == [
        "Fees | Late fee | $12", "Deposits | Security deposit | $50"]
    assert windows("One. Two? Three!\nFour") == ["One.", "Two?", "Three!", "Four"]


def test_the_deep_reader_needs_the_fact_recovered_and_every_rival_resolved():
    value = _fact("v.1", "The fee is $5.", slots=[Slot(name="fee", type=SlotType.money, value=5, unit="USD", text="$5")])
    other = _fact("v.2", "The cap is $9.", slots=[Slot(name="cap", type=SlotType.money, value=9, unit="USD", text="$9")])
    lost = _fact("v.3", "The limit is $7.", slots=[Slot(name="limit", type=SlotType.money, value=7, unit="USD", text="$7")])
    rep = {"facts": [{"fact_id": "v.1", "recovered": True}, {"fact_id": "v.2", "recovered": True},
                     {"fact_id": "v.3", "recovered": False}],
           "artifacts": [{"distractor_violations": [{"fact_id": "v.2", "value": "$8", "resolution": "date",
                                                     "text": "no file that states the current value shows a later date"}]}]}
    assert D.deep_reader(rep, [value, other, lost]) == {"v.1": True, "v.2": False, "v.3": False}
