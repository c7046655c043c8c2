"""Lists, labels and titles on screens and in documents, as the tau2 banking_knowledge import
showed them wrong: a list's lead printed above each of its items, a clause printed as a card's
title above the sentence that repeats it, one step drawn twice, a heading or a title in the
words of a statement the file voices."""
from __future__ import annotations

import random
import re

import pytest

from facts.models import Fact, FactKind, Slot, SlotType, SourceSpan, make_fact_id
from transforms import registry
from transforms.base import ExtractContext, RenderContext
from transforms.plan import ArtifactSpec, FactMention


def make_spec(kind, facts, seed=7, rendition="canonical"):
    return ArtifactSpec(id=f"{kind.split('/')[1]}-0001", kind=kind, path=f"evidence/{kind}", seed=seed,
                        date="2026-02-14", facts=[FactMention(fact_id=f.id, rendition=rendition) for f in facts])


def _fact(text: str, line: int, kind=FactKind.rule, slots=(), section=("Fraud checks",), anchors=()) -> Fact:
    f = Fact(id="tmp", domain="_mock", section=list(section), kind=kind, statement=text, slots=list(slots),
             conditions=[], source=SourceSpan(file="policy.md", start_line=line, end_line=line),
             anchors=list(anchors))
    f.id = make_fact_id("_mock", f.section, f"{f.template()} {line}", [])
    return f


LEAD = "C4. Amount vs Daily Limit - Compare attempted amount to card's daily ATM withdrawal limit"


def _scored() -> list[Fact]:
    """Two items under one lead that itself holds a colon-less clause, each with a value after a
    second colon (the shape tau2's fraud-score checklist gives)."""
    from facts.values import parse_slots

    a, b = f"{LEAD}: 80-100% of limit: 1 point.", f"{LEAD}: Multiple attempts totaling more than daily limit: 2 points."
    return [_fact(a, 40, FactKind.value, parse_slots(a), anchors=["daily limit", "points"]),
            _fact(b, 41, FactKind.value, parse_slots(b), anchors=["daily limit", "multiple attempts"])]


def test_is_name_tells_a_label_from_a_clause():
    from transforms.common import is_name

    assert is_name("Early closure fee") and is_name("Checked bag allowance (Premier, Navigator, Basic Economy)")
    assert not is_name("Before calling transfer_funds_between_bank_accounts_7291, the agent should")
    assert not is_name(f"{LEAD}: 80-100% of limit")
    assert not is_name("From account opening to qualify your") and not is_name("")
    assert not is_name("Larkspur Loop has four tiers")


def test_merge_lists_says_a_lead_once_and_a_sentence_once():
    """The longest opening up to a colon that two sentences share is said once, even when the
    items hold a colon of their own; two facts stated alike are one sentence; every fact is
    still carried by what is left (the audits' matcher); other sentences stay where they were."""
    from facts.match import matches
    from transforms.common import merge_lists

    a, b = _scored()
    step = _fact("Third-party ATM operator fees may still apply.", 50, anchors=["operator fees"])
    twin = _fact("Third-party ATM operator fees may still apply.", 90, section=("Foreign ATM",),
                 anchors=["operator fees"])
    other = _fact("Single-use protection: Generate one-time cards for isolated purchases.", 60)
    texts = [a.statement, other.statement, step.statement, b.statement, twin.statement]
    out = merge_lists(texts, [a, other, step, b, twin], "USD")
    assert [idx for idx, _t in out] == [[0, 3], [1], [2, 4]]
    merged = out[0][1]
    assert merged.count("Compare attempted amount") == 1
    assert merged == f"{LEAD}: 80-100% of limit: 1 point; Multiple attempts totaling more than daily limit: 2 points."
    assert matches(a, merged) and matches(b, merged)
    assert out[2][1] == step.statement
    # items of another key (a card's own title) are not merged
    assert [idx for idx, _t in merge_lists([a.statement, b.statement], [a, b], "USD", keys=["x", "y"])] == [[0], [1]]


def _ctx(mock_pack, facts, tmp_path):
    from transforms.writers import BuiltinWriter

    return RenderContext(pack=mock_pack, facts={f.id: f for f in facts}, writer=BuiltinWriter(mock_pack), db={},
                         workdir=tmp_path)


def _shown(kind: str, facts, mock_pack, tmp_path, seed: int = 3, rendition: str = "canonical") -> str:
    t = registry.get(kind)
    out = tmp_path / (kind.split("/")[1] + ".png")
    t.render(make_spec(kind, facts, seed=seed, rendition=rendition), _ctx(mock_pack, facts, tmp_path), out)
    return t.extract(out, ExtractContext()).text


@pytest.mark.slow
def test_a_slide_and_an_app_screen_print_a_lists_lead_once(mock_pack, tmp_path):
    """The slide said "The following ... qualify for APY boosts:" above each pairing and the app
    printed "Before calling transfer_funds_..., the agent should" as a card title over the same
    words (the duplicated-bullet lint, banking_knowledge full build): the lead is read once,
    no line twice, and every item is read back from the pixels."""
    from audits.lints import lint_text
    from facts.match import TextIndex, match_fact

    pairs = [_fact(f"The following checking and savings account pairings qualify for APY boosts: {p}.", 70 + i,
                   FactKind.eligibility, section=("Linked checking",), anchors=["pairings", p.split()[0].lower()])
             for i, p in enumerate(["Purple Account + Platinum Account", "Purple Account + Gold Account"])]
    calls = [_fact(f"Before calling transfer_funds_7291, the agent should: {x}.", 80 + i, section=("Preconditions",),
                   anchors=["transfer_funds_7291", x.split()[0].lower()])
             for i, x in enumerate(["Verify the source account has sufficient funds",
                                    "Ensure the two accounts belong to the same customer"])]
    for kind, facts, lead in (("visuals/slide_deck", pairs, "qualify for APY boosts"),
                              ("visuals/app_screenshot", calls, "the agent should"),
                              ("visuals/slide_deck", _scored(), "Compare attempted amount"),
                              ("visuals/web_screenshot", _scored(), "Compare attempted amount")):
        text = _shown(kind, facts, mock_pack, tmp_path)
        assert len(re.findall(lead, " ".join(text.split()), re.I)) == 1, (kind, text)
        assert [h.text for h in lint_text(text, kind.split("/")[1], "png") if h.lint == "duplicated_bullet"] == [], text
        idx = TextIndex(text)
        assert [f.statement for f in facts if not match_fact(f, idx).recovered] == [], (kind, text)


def test_a_flowchart_draws_one_step_stated_twice_once(mock_pack, tmp_path):
    """Two source documents give the same step (banking_knowledge flowchart-0005 drew "Third-party
    ATM operator fees may still apply." twice): one box carries both facts."""
    steps = [_fact("Third-party ATM operator fees may still apply.", 50 + i, FactKind.procedure_step,
                   section=(s,), anchors=["operator fees"]) for i, s in enumerate(("Foreign ATM", "ATM fees"))]
    text = _shown("visuals/flowchart", steps, mock_pack, tmp_path)
    assert len(re.findall(r"operator fees may still apply", text)) == 1, text


def test_a_web_page_of_untitled_cards_reads_down_one_column(mock_pack, tmp_path):
    """OCR read two untitled cards side by side from line to line across both ("C2. Round Number
    Testing - C3. Amount vs ..."; a page of marketing cards: "Cash withdrawal at an Friendly
    support"): such cards stand in one column, each read whole."""
    a = _fact("Round number testing: all attempted amounts are round hundreds, which scores as a flag.", 30)
    b = _fact("Velocity testing: three attempts inside ten minutes at different terminals are one flag.", 31)
    text = _shown("visuals/web_screenshot", [a, b], mock_pack, tmp_path)
    flat = " ".join(text.split())
    assert "all attempted amounts are round hundreds" in flat and "three attempts inside ten minutes" in flat, text


def test_clause_headings_and_titles_never_print_a_voiced_statement(mock_pack):
    """"If Direct Integration Is Not Supported" is a clause, not a subject; a memo's RE line
    drops an FAQ question heading that is the words of a statement it voices; a
    title-case heading keeps its capitals ("Contact Us")."""
    from transforms.common import Item, Voiced, shown_title
    from transforms.headings import names_subject, topic_of
    from transforms.writers import BuiltinWriter

    assert not names_subject("If Direct Integration Is Not Supported") and not names_subject("Unless stated")
    f = _fact("Select your cryptocurrency and choose Manual Address.", 10,
              section=("Supported wallet connections", "If Direct Integration Is Not Supported"))
    assert topic_of(f) == "Supported wallet connections"
    q = _fact("Do you charge to receive domestic wire transfers? Yes.", 11,
              section=("Common questions", "Do you charge to receive domestic wire transfers?"))
    spec = make_spec("documents/memo", [q])
    spec.title = " / ".join(q.section)
    ctx = _ctx(mock_pack, [q], None)
    it = Item(q, "voiced", voiced=Voiced(((q.id, q.statement),)))
    assert shown_title(ctx, spec, [it], "fallback") == "Common questions"
    plain = Item(q, "canonical")
    assert shown_title(ctx, spec, [plain], "fallback") == "Common questions / Do you charge to receive domestic wire transfers?"
    w = BuiltinWriter(mock_pack)
    assert w.lower_first("Contact Us") == "Contact Us"


def test_a_short_answer_never_copies_the_policy_across_the_turn(mock_pack):
    """'what is the lowest to redeem to crypto?' '30 dollars' said the policy's 'to redeem to
    crypto 30 dollars' across question and answer (kb_article-0279): the short answer goes
    when the pair copies a run the question alone does not; another reply is said instead."""
    from transforms.common import Item, Voiced, answer

    f = _fact("Minimum to redeem to crypto: $30.", 12, FactKind.value,
              [Slot(name="min", type=SlotType.money, text="$30", value=30, unit="USD")], section=("Crypto payouts",),
              anchors=["redeem", "crypto"])
    ctx = _ctx(mock_pack, [f], None)
    it = Item(f, "voiced", voiced=Voiced(((f.id, f.statement),)))
    q = "Quick question: what is the lowest to redeem to crypto?"
    assert not it.voiced.borrowed(q)
    for seed in range(8):
        a = answer(ctx, it, random.Random(seed), q, short_rate=1.0)
        assert not it.voiced.borrowed(f"{q} {a}"), a


def test_a_rate_sheet_item_is_never_a_clause_cut_from_a_sentence():
    from transforms.tables.rate_sheet import _named, _terse

    assert _named("From account opening to qualify your") == ""
    assert _named("Once your available rewards") == "" and _terse("After you use") == ""
    assert _named("Monitor upcoming installment dates and amounts so you") == \
        "Monitor upcoming installment dates and amounts"
    assert _terse("window begins on your account opening date") == "window begins"


def test_an_email_subject_names_a_labels_subject_not_its_rule(mock_pack):
    from transforms.writers import BuiltinWriter

    f = _fact("Out-of-network usage: Any transaction at a non-Rho ATM is assessed a per-transaction fee of $2.50.", 13,
              FactKind.value, [Slot(name="fee", type=SlotType.money, text="$2.50", value=2.5, unit="USD")],
              section=("Where ATM fees apply for Navy Blue",))
    w = BuiltinWriter(mock_pack)
    for seed in range(6):
        s = w.subject([f], random.Random(seed))
        assert "Any transaction" not in s and "any transaction" not in s, s


def test_a_slide_agenda_names_subjects_not_a_questions_first_word(mock_pack, tmp_path):
    """The agenda said "1. What" for a section headed "What can be changed" (airline's deck) and
    "1. Category C:" for "Category C: Amount Flags": it names the heading above a question or
    a clause, as people name the subject."""
    f = _fact("Passengers cannot be added to a reservation after booking.", 20,
              section=("Changing a reservation", "What can be changed"), anchors=["passengers", "added"])
    text = _shown("visuals/slide_deck", [f], mock_pack, tmp_path)
    agenda = text.split("Agenda", 1)[1].split("\n\n")[0] if "Agenda" in text else ""
    assert "Changing a reservation" in agenda and "What" not in agenda, text


def test_an_email_subject_names_a_subject_never_a_clause_heading(mock_pack):
    """"Re: How to confirm what: which version is right" (a banking_knowledge e-mail): the
    subject names the noun-phrase heading above a clause or a question."""
    from transforms.writers import BuiltinWriter

    f = _fact("Ask the customer for the last four digits of the card on file.", 14,
              section=("Card verification", "How to confirm what the customer holds"))
    w = BuiltinWriter(mock_pack)
    for seed in range(6):
        s = w.subject([f], random.Random(seed))
        assert "How to" not in s and "how to" not in s, s


def test_a_heading_that_opens_with_a_time_conjunction_is_a_clause():
    from transforms.headings import names_subject

    assert not names_subject("After You Submit") and not names_subject("Before you start")
    assert not names_subject("While a line is suspended")
    assert names_subject("After-sales support") and names_subject("Onboarding")


def test_a_formula_with_a_minus_sign_is_read_back_from_a_slide(mock_pack, tmp_path):
    """"Net rewards converted = Your available rewards × (1 − 1.25%)." (tau2 banking_knowledge):
    OCR reads the minus sign as an em dash, and "(1 — 1.25%)" was the range 1 to 1.25%, so the
    slide carrying the fact was never recovered. A spaced em dash makes no range; a voiced
    rendition never says "your on offer rewards"."""
    from facts.match import matches
    from facts.values import parse_slots

    st = "Net rewards converted = Your available rewards × (1 − 1.25%)."
    f = _fact(st, 12, FactKind.value, parse_slots(st), section=("Estimating your crypto payout",),
              anchors=["net", "rewards", "converted", "available"])
    assert [s.text for s in f.slots] == ["1.25%"]
    text = _shown("visuals/slide_deck", [f], mock_pack, tmp_path)
    assert matches(f, text), text
    assert matches(f, "Net rewards converted = Your available rewards x (1 — 1.25%).")
    assert not matches(f, "Net rewards converted = Your available rewards x (1 - 1.25%).")  # a range, as written
    from transforms.lexicon import _LEX_RE

    # "available" is never swapped for "on offer", which changes its register and meaning
    assert not [rx for rx, alts in _LEX_RE if "on offer" in alts]


def test_a_slide_title_cut_to_its_first_section_is_numbered_not_repeated(mock_pack, tmp_path):
    """Slide 3 "Notice Something Wrong on Your Statement? We Can Help" and slide 4 "Notice ...
    & Interest compounding", cut to its first section to fit, printed one title twice (the
    lint `duplicated_bullet`, banking_knowledge slide_deck-0004): a cut title is numbered with
    the slides it repeats."""
    from audits.lints import duplicated_lines

    a = ("Notice Something Wrong on Your Statement? We Can Help",)
    facts = [_fact(st, 60 + i, section=a) for i, st in enumerate([
        "Statement errors must be reported within sixty days of the statement date.",
        "Missing rebates are investigated by the disputes team.",
        "Duplicate charges are reversed once the merchant confirms them.",
        "Unrecognised transactions are escalated to the fraud team."])]
    facts.append(_fact("Interest on the savings account is compounded daily.", 80,
                       section=("Interest compounding across every linked savings product",)))
    text = _shown("visuals/slide_deck", facts, mock_pack, tmp_path)
    assert "(1 of 2)" in text and "(2 of 2)" in text, text
    assert not duplicated_lines(text), duplicated_lines(text)


def test_a_sentence_no_rewording_clears_is_drawn_again(mock_pack, monkeypatch):
    """A renamed tau2 retail build (kb_article-0002) said "The user must provide a payment method
    to get the refund" beside its voiced rule "The user must provide a payment method to pay or
    receive refund of the price difference": the re-wording found no way out of the shared run
    and the sentence stayed, so the lint gate refused the build. A sentence no re-wording clears
    is drawn again until a draw copies no run and still carries its fact."""
    import transforms.common as common
    from transforms.common import Item, Voiced, matches, word

    modify = _fact("The user must provide a payment method to pay or receive refund of the price difference.", 40,
                   section=("Modify items",))
    ret = _fact("The user needs to provide a payment method to receive the refund.", 41,
                section=("Return delivered order",))
    ctx = _ctx(mock_pack, [modify, ret], None)
    voiced = Voiced(((modify.id, modify.statement), (ret.id, ret.statement)))
    it = Item(ret, "voiced", voiced=voiced)
    monkeypatch.setattr(common, "_unborrowed", lambda *a, **k: None)  # no re-wording clears a run
    monkeypatch.setattr(common, "REDRAWS", 0)
    first = [word(ctx, it, random.Random(seed)) for seed in range(40)]
    copied = [s for s in first if voiced.borrowed(s)]
    assert copied, "no draw copied a run: the case is not exercised"
    monkeypatch.setattr(common, "REDRAWS", 8)
    for seed in range(40):
        s = word(ctx, it, random.Random(seed))
        assert not voiced.borrowed(s), s
        assert matches(ret, s, mock_pack.info.currency), s


def test_a_manuals_definitions_name_terms_never_a_lists_lead(mock_pack, tmp_path):
    """tau2's telecom manual lists "Common reasons include:" with a nested item "Roaming Issues
    (When User is Abroad):"; each of its facts reads "X is Y" somewhere, and the manual's
    Definitions table took the words before " is " as the term: "Common reasons include:
    Roaming Issues (When User" printed on two rows (the lint `duplicated_bullet`, a renamed
    import at seed 1). A term is a name; a clause up to " is " is none."""
    from audits.lints import lint_text

    roaming = "Common reasons include: Roaming Issues (When User is Abroad)"
    facts = [_fact(f"{roaming}: Data Roaming is turned OFF on the phone.", 90, FactKind.definition,
                   section=("Common Mobile Data Issues and Causes",)),
             _fact(f"{roaming}: The line is not roaming enabled.", 91, FactKind.definition,
                   section=("Common Mobile Data Issues and Causes",)),
             _fact("A customer file is the record of every interaction with a customer.", 92, FactKind.definition,
                   section=("Common Mobile Data Issues and Causes",))]
    text = _shown("documents/pdf_manual", facts, mock_pack, tmp_path)
    assert [h.text for h in lint_text(text, "documents/pdf_manual", "pdf") if h.lint == "duplicated_bullet"] == [], text
    definitions = text.split("Definitions", 1)[1].split("Meaning", 1)[1][:400]
    assert "A customer file" in definitions
    assert " ".join(text.split()).count("Common reasons include") == 2, text  # each fact's own clause, no term


def test_a_manual_introduces_two_sections_of_one_name_once(mock_pack, tmp_path, monkeypatch):
    """tau2's telecom policy has a "Line Suspension" section in two documents; the manual
    printed "This section covers Line Suspension." above both (the lint `duplicated_bullet`,
    a renamed import at seed 1). An intro is said once a document (here the manual has one
    intro to choose from, so both sections draw it)."""
    from transforms.documents import manual_layout

    monkeypatch.setattr(manual_layout, "_INTROS", ["This section covers {sec}."])
    facts = [_fact("The user is not going to have cellular service if the line is suspended.", 95,
                   section=("Common service issues", "Line Suspension")),
             _fact("A suspended line is resumed only after every overdue bill is paid.", 96,
                   section=("Billing rules", "Line Suspension"))]
    text = " ".join(_shown("documents/pdf_manual", facts, mock_pack, tmp_path).split())
    assert text.count("This section covers Line Suspension.") == 1, text
    assert "5.1.1 A suspended line is resumed" in text and "4.1.1 The user is not going" in text


def test_a_wrong_value_said_in_its_own_facts_words_is_no_copy(mock_pack):
    """The multi-document fixture's workflow says "Turn airplane mode off and wait 30 seconds"
    (a step) and "Is airplane mode on? If yes, turn airplane mode off and wait 30 seconds" (a
    decision). A manual voiced the step and named the decision with an old value ("... wait
    21 seconds"), in the decision's own words: the lint read the shared run as the step's
    policy phrasing copied. A fact the file names with a wrong or old value may be said in
    its own words, as a fact stated canonically may; the voiced fact's own words still count."""
    from transforms.plan import Distractor
    from transforms.common import Voiced

    step = _fact("Turn airplane mode off and wait 30 seconds before restarting the phone.", 97,
                 section=("No service",))
    decision = _fact("Is airplane mode on? If yes, turn airplane mode off and wait 30 seconds (step 3).", 98,
                     section=("No service",))
    spec = make_spec("documents/pdf_manual", [step], rendition="voiced")
    spec.distractors = [Distractor(fact_id=decision.id, slot="s", text="21 seconds", role="superseded",
                                   resolution="version")]
    assert spec.quoted_ids == [decision.id]
    voiced = Voiced.of(spec, _ctx(mock_pack, [step, decision], None))
    assert voiced.borrowed("Is airplane mode on? If yes, turn airplane mode off and wait 21 seconds (step 3).") == []
    assert "wait 30 seconds before restarting the" in voiced.borrowed("Wait 30 seconds before restarting the phone.")
    both = make_spec("documents/pdf_manual", [step, decision], rendition="voiced")
    both.distractors = spec.distractors
    assert both.quoted_ids == []  # a wrong value of a fact the file voices is no licence to quote it
