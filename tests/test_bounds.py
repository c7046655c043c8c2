"""A value keeps its bound: a cap stays a cap, a floor a floor, a per-unit value per unit,
an exact value exact. The kernel (`facts.bounds`) reads the bound off the policy and checks a
text for it; the realiser and the writers keep it; the recoverability report counts where a
carrier lost it."""
from __future__ import annotations

import random
import re

import pytest

from facts.bounds import Bound, bound_of, bound_words
from facts.match import TextIndex, keeps_bounds, qualifier_mismatches
from facts.models import Fact, FactKind, SourceSpan
from facts.values import parse_slots


def _fact(st: str, anchors=()) -> Fact:
    return Fact(id="x", domain="d", section=["S"], kind=FactKind.rule, statement=st, slots=parse_slots(st),
                anchors=list(anchors), source=SourceSpan(file="p.md", start_line=1, end_line=1))


def _bound(st: str, text: str) -> Bound:
    f = _fact(st)
    return bound_of(f, next(s for s in f.slots if s.text == text))


def test_the_bound_is_read_off_the_statement():
    assert _bound("The total charged for one reservation may not exceed $12,000.", "$12,000") == Bound("max")
    assert _bound("Essential Checking — Minimum opening deposit: $25.", "$25") == Bound("min")
    assert _bound("Essential Checking — Minimum credit limit: $500.", "$500") == Bound("min")  # "limit" is weak
    assert _bound("Essential Checking — Daily ATM withdrawal limit: $500.", "$500") == Bound("max", per=True)
    assert _bound("Essential Checking — Monthly maintenance fee: $6.", "$6") == Bound(None, per=True)
    assert _bound("TripGuard costs $35 per passenger.", "$35") == Bound(None, per=True)
    assert _bound("Tailwind Breeze — Time to activate: 15 minutes.", "15 minutes") == Bound()
    # the words before an earlier value are that value's: "per passenger" is not the delay's
    st = "TripGuard reimburses up to $150 per passenger for meals when a delay lasts 6 hours or more."
    assert _bound(st, "$150") == Bound("max", per=True) and _bound(st, "6 hours") == Bound("min")


def test_a_cap_said_as_a_plain_figure_is_a_mismatch():
    f = _fact("The total charged for one reservation may not exceed $12,000.", ["total", "charged", "reservation"])
    assert not keeps_bounds(f, "So how does the total charged for one reservation work for me? It comes to $12,000.")
    assert keeps_bounds(f, "The total charged for one reservation can't go over $12,000.")
    assert keeps_bounds(f, "What's the most the total charged for a reservation can be?\nAgent: Up to $12,000.")
    idx = TextIndex("Agent: the total charged for your reservation comes to $12,000.")
    assert qualifier_mismatches(f, idx) == ["Agent: the total charged for your reservation comes to $12,000."]


def test_a_floor_a_rate_per_unit_and_an_exact_figure():
    floor = _fact("Essential Checking — Minimum opening deposit: $25.", ["essential checking", "opening", "deposit"])
    assert keeps_bounds(floor, "Essential Checking needs an opening deposit of at least $25.")
    assert not keeps_bounds(floor, "Essential Checking takes an opening deposit of $25.")
    per = _fact("TripGuard costs $35 per passenger.", ["tripguard"])
    assert keeps_bounds(per, "TripGuard is thirty-five dollars a passenger.")
    assert not keeps_bounds(per, "TripGuard is thirty-five dollars.")
    exact = _fact("The same-day change fee is $75.", ["same-day", "change", "fee"])
    assert keeps_bounds(exact, "A same-day change costs $75.")
    assert not keeps_bounds(exact, "The same-day change fee is up to $75.")


def test_a_short_answer_says_the_bound():
    f = _fact("The total charged for one reservation may not exceed $12,000.")
    assert bound_words(f, next(s for s in f.slots if s.text == "$12,000")) == ("up to ", "")
    cell = _fact("Canada and Mexico — Texts per day: 500 texts.")
    assert bound_words(cell, cell.slots[0]) == ("", " per day")
    fee = _fact("Essential Checking — Monthly maintenance fee: $6.")
    assert bound_words(fee, fee.slots[0]) == ("", " a month")


def test_the_airline_cap_is_answered_as_a_cap():
    """The review desk's case: "so how does the total charged for a one reservation work for
    me?" answered "It comes to $12,000." for a fact that says the total may not exceed it."""
    from domains import get_pack
    from transforms import common as C
    from transforms.base import RenderContext
    from transforms.writers import BuiltinWriter

    pack = get_pack("airline")
    f = next(f for f in pack.facts.facts if "may not exceed" in f.statement)
    w = BuiltinWriter(pack)
    ctx = RenderContext(pack=pack, facts=pack.facts.by_id(), writer=w)
    for s in range(12):
        short = w.short_answer(f, random.Random(s), register="chat")
        assert "comes to" not in short and re.search(r"\bup to\b", short, re.I), short
        q = "so how does the total charged for a one reservation work for me?"
        a = C.answer(ctx, C.Item(f, "voiced"), random.Random(s), q, register="chat")
        assert keeps_bounds(f, f"{q}\n{a}"), a


@pytest.mark.parametrize("name", ["telecom", "airline", "retail"])
def test_every_voiced_value_keeps_its_bound(name):
    """Every fact the realiser voices, in a conversational, a controlled and a staff register,
    says each bounded value with its bound, and no cell in the "has a <attribute> of" frame."""
    from audits.lints import frames_in
    from domains import get_pack
    from transforms.realise import RealiseError
    from transforms.voicing import voiceable
    from transforms.registers import REGISTERS
    from transforms.writers import BuiltinWriter

    pack = get_pack(name)
    w = BuiltinWriter(pack)
    for f in pack.facts.facts:
        if not voiceable(f):
            continue
        for reg in ("chat", "manual", "team_chat"):
            for k in range(2):
                try:
                    text = w.realiser.render(f, "voiced", random.Random(f"{k}:{f.id}"), REGISTERS[reg])
                except RealiseError:
                    continue
                assert keeps_bounds(f, text, pack.info.currency), (f.statement, text)
                assert not frames_in(text, pack.info.currency), (f.statement, text)


def test_a_wh_question_over_a_cap_is_answered_with_the_cap():
    """"... may be held for up to 7 business days" asked as a question: the question asks how
    long (never "be held for up?") and the answer says "up to"."""
    from transforms.reading import read
    from transforms.realise import Realiser
    from transforms.registers import REGISTERS

    f = _fact("Check deposits totaling more than $6,725 on a single day may be held for up to 7 business days.",
              ["check", "deposits", "held"])
    for k in range(4):
        d = Realiser(set())._wh_qa(read(f), random.Random(k), REGISTERS["chat"], None, None)
        q, a = d.text.split("? ", 1)
        assert q.endswith("be held") and a.lower().startswith("up to "), d.text
        assert keeps_bounds(f, d.text)


@pytest.mark.parametrize("name,column,says", [
    ("telecom", "Tailwind Storm \u2014 High-speed data added", r"adds .* of high-speed data|high-speed data added with"),
    ("telecom", "Tailwind Storm \u2014 Purchases allowed per billing cycle", r"up to one purchase per billing cycle"),
    ("telecom", "Tailwind Storm \u2014 Time to activate", r"activates within|takes .* to activate"),
    ("banking", "Essential Checking \u2014 Minimum opening deposit", r"at least|no less than"),
    ("banking", "Essential Checking \u2014 Daily ATM withdrawal limit", r"ATM withdrawals .*(?:limited|capped|up to)"
                                                                       r"|limits ATM withdrawals to"),
])
def test_a_catalog_attribute_is_said_by_what_it_means(name, column, says):
    """The cell's own construction (`Realiser._cell_meaning`) for each attribute class, over
    several seeds: the class's verb and bound, and never the "has a <attribute> of" frame."""
    from audits.lints import frames_in
    from domains import get_pack
    from transforms.reading import read
    from transforms.registers import REGISTERS
    from transforms.writers import BuiltinWriter

    pack = get_pack(name)
    w = BuiltinWriter(pack)
    f = next(f for f in pack.facts.facts if f.statement.startswith(column))
    for reg in ("chat", "manual"):
        for k in range(6):
            d = w.realiser._cell_meaning(read(f), random.Random(k), REGISTERS[reg], None, None)
            assert d is not None and re.search(says, d.text), d and d.text
            assert not frames_in(d.text) and keeps_bounds(f, d.text), d.text
