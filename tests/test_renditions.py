"""The writer never hands a renderer an authoritative sentence the audits'
matcher would reject, and the planner never gives a speech kind a fact speech recognition
cannot carry. Checked on every built-in pack and on imported tau2 packs (the multi-document
fixture, and the shared airline and retail folders when present)."""
from __future__ import annotations

import copy
import random
import re
from pathlib import Path

import pytest

from domains import get_pack, load_pack
from domains.tau2 import import_tau2_domain
from facts.match import matches
from transforms import common as C
from transforms import registry
from transforms.base import RenderContext
from transforms.planner import PROFILES, SPEECH_MODALITIES, PlanConfig, _speakable, plan_evidence
from transforms.writers import BuiltinWriter

from .conftest import SHARED

MULTIDOC = Path(__file__).resolve().parent / "fixtures" / "tau2_layouts" / "telecom_multidoc"


@pytest.fixture(scope="module")
def packs(tmp_path_factory):
    out = {name: get_pack(name) for name in ("_mock", "airline", "retail", "telecom", "banking")}
    into = tmp_path_factory.mktemp("imported")
    out["wireless"] = load_pack(import_tau2_domain(MULTIDOC, "wireless", into, decompose=False).path)
    for folder in ("airline", "retail"):
        if (SHARED / folder).is_dir():
            out[f"tau2_{folder}"] = load_pack(import_tau2_domain(SHARED / folder, f"tau2_{folder}", into,
                                                                decompose=False).path)
    return out


def _ctx(pack) -> RenderContext:
    fs = pack.facts
    return RenderContext(pack=pack, facts=fs.by_id(), writer=BuiltinWriter(pack))


@pytest.mark.slow
def test_every_authoritative_rendition_is_recovered_by_the_matcher(packs):
    rephrased = 0
    for name, pack in packs.items():
        ctx = _ctx(pack)
        facts = pack.facts.facts
        seeds = (0,) if len(facts) > 1000 else (0, 1, 2)
        for f in facts:
            for seed in seeds:
                # the planner voices only what the realiser can voice (voicing.voiceable); the
                # others stay canonical
                voiceable = ctx.writer.voiceable(f)
                for rendition in ("canonical", "voiced") if voiceable else ("canonical",):
                    for after_wrong in (False, True):
                        it = C.Item(f, rendition)
                        text = C.authoritative(ctx, it, random.Random(f"{seed}:{f.id}"), after_wrong)
                        assert matches(f, text, pack.info.currency), (name, f.statement, text)
                if voiceable:
                    raw = ctx.writer.statement(f, "voiced", random.Random(f"{seed}:{f.id}"))
                    rephrased += not matches(f, raw, pack.info.currency)

    # the realiser checks recoverability itself (transforms.realise.recoverable) before it returns
    # a voiced wording, so no raw paraphrase needs the safety net of common.recoverable any more
    assert rephrased == 0


def test_the_multidoc_schema_fact_is_voiced_recoverably(packs):
    """A multi-document schema fact ("every line has these attributes: line ID", once rejected
    by the matcher after the build): the realiser's own voiced wordings now carry it, and so does what
    the renderers get through common.authoritative."""
    pack = packs["wireless"]
    f = next(x for x in pack.facts.facts if x.statement == "Each line has the following attributes: line ID.")
    ctx = _ctx(pack)
    raws = [ctx.writer.statement(f, "voiced", random.Random(s)) for s in range(20)]
    assert all(matches(f, r) for r in raws), raws
    for s in range(20):
        assert matches(f, C.authoritative(ctx, C.Item(f, "voiced"), random.Random(s), False))


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_speech_kinds_carry_only_speakable_facts(packs, profile):
    for name, pack in packs.items():
        fs = pack.facts
        plan = plan_evidence(fs, 0, PlanConfig(profile=profile), now=pack.info.now)
        by_id = fs.by_id()
        routed = {r.fact_id for r in plan.routes}  # stated whole nowhere, by design (multi-hop routes)
        assert set(plan.carriers()) | routed == set(by_id), name
        for a in plan.artifacts:
            if registry.get(a.kind).modality in SPEECH_MODALITIES:
                bad = [by_id[m.fact_id].statement for m in a.facts if not _speakable(by_id[m.fact_id])]
                assert not bad, (name, profile, a.id, bad)


def test_teen_values_stay_off_speech_kinds():
    """13 to 19 (and numbers ending so) are what the recogniser hears as the tens: 'valid for 13
    months' came back 'thirty month' through every re-voicing of airline@halcyon's call."""
    from facts.decompose import decompose_markdown  # noqa: PLC0415

    md = ("# P\n\n## Rules\n\n- A tier, once earned, remains valid for 13 months.\n"
          "- Express shipping costs $14.95 per order.\n- A late fee of $115 is charged.\n"
          "- A late fee of $30 is charged.\n- Refunds arrive within 20 days.\n")
    by = {f.statement: _speakable(f) for f in decompose_markdown(md, domain="t").facts}
    assert by == {"A tier, once earned, remains valid for 13 months.": False,
                  "Express shipping costs $14.95 per order.": False, "A late fee of $115 is charged.": False,
                  "A late fee of $30 is charged.": True, "Refunds arrive within 20 days.": True}, by


def test_table_cells_keep_the_unit_of_a_measured_count(mock_pack, tmp_path):
    """A rate sheet writes plain counts as numbers; a count with a unit ("2GB", "once") stays
    text, or its extraction ("1") would no longer equal the fact's value (1 time)."""
    from facts.decompose import decompose_markdown  # noqa: PLC0415
    from transforms.base import ExtractContext
    from transforms.plan import ArtifactSpec, FactMention

    fs = decompose_markdown("## Helmets\n\n- A helmet can be swapped at most once per rental.\n"
                            "- A rental includes at most 2GB of route downloads.\n", "_mock")
    ctx = RenderContext(pack=mock_pack, facts=fs.by_id(), writer=BuiltinWriter(mock_pack))
    t = registry.get("tables/rate_sheet")
    spec = ArtifactSpec(id="rate_sheet-0001", kind=t.key(), path="evidence/x.xlsx", seed=3, date="2026-02-14",
                        facts=[FactMention(fact_id=f.id, rendition=r) for f in fs.facts for r in ("voiced",)])
    out = tmp_path / "r.xlsx"
    t.render(spec, ctx, out)
    text = t.extract(out, ExtractContext()).text
    assert [s.unit for f in fs.facts for s in f.slots] == ["time", "GB"]
    for f in fs.facts:
        assert matches(f, text), (f.statement, text[:400])
    from transforms.tables.xlsx_cells import typed_value  # noqa: PLC0415
    once, gb = (f.slots[0] for f in fs.facts)
    assert typed_value(once, fs.facts[0].statement)[0] == "once" and typed_value(gb, fs.facts[1].statement)[0] == "2GB"
    assert matches(fs.facts[0], "L-003 | Helmets | A helmet can be swapped | once | Maximum per rental | 2025-10-07")


def test_no_sentence_copies_the_policy_of_another_fact_its_file_voices(packs):
    """The multidoc text-only build (seed 0) failed the lint gate: a memo voicing both "Offer a
    2GB top-up at the plan's per-GB price." and "When a line runs out of data, you can add a
    top-up at the per-GB price of its plan." worded the first "... offers a 2 GB top-up at the
    per-GB price of the plan", a 6-word run of the second's policy statement, which the lint
    charges to the second. A file's sentences are now checked against the statements it voices
    as they are written (`common.Voiced`) and re-worded inside the run."""
    from audits.language import shared_runs
    from transforms.plan import ArtifactSpec, FactMention

    pack = packs["wireless"]
    ctx = _ctx(pack)
    offer = next(f for f in pack.facts.facts if f.statement == "Offer a 2GB top-up at the plan's per-GB price.")
    add = next(f for f in pack.facts.facts if f.statement.startswith("When a line runs out of data, you can add"))
    # the writer alone keeps the offer clear of its own statement, not of its neighbour's
    raws = [ctx.writer.statement(offer, "voiced", random.Random(s), register="memo") for s in range(10)]
    assert all(shared_runs(add.statement, r) for r in raws), raws
    for s in range(10):
        spec = ArtifactSpec(id=f"memo-{s:04d}", kind="documents/memo", path=f"evidence/memo-{s:04d}.docx", seed=s,
                            date="2025-03-10", facts=[FactMention(fact_id=offer.id, rendition="voiced"),
                                                      FactMention(fact_id=add.id, rendition="voiced")])
        items = C.plan_content(spec, ctx, random.Random(s), role="colleague", register="memo").items
        for it in items:
            assert matches(it.fact, it.text, pack.info.currency), it.text
            for f in (offer, add):
                assert shared_runs(f.statement, it.text) == [], (f.statement, it.text)
    # a run the file states canonically is its own copy: nothing to re-word
    spec = ArtifactSpec(id="memo-x", kind="documents/memo", path="evidence/memo-x.docx", seed=0, date="2025-03-10",
                        facts=[FactMention(fact_id=add.id, rendition="voiced"),
                               FactMention(fact_id=add.id, rendition="canonical")])
    assert C.Voiced.of(spec, ctx).borrowed(add.statement) == []


def test_an_faq_fact_is_voiced_without_its_page_labels():
    """A fact written as an FAQ entry ("Q: ...? A: ...", in the tau2 banking_knowledge
    documents) is said as a question and its answer, never with the page's "Q:"/"A:" labels,
    and stays recoverable."""
    from facts.models import Fact, FactKind, SourceSpan
    from facts.values import parse_slots
    from transforms.reading import read
    from facts.match import carries
    from transforms.realise import Realiser
    from transforms.registers import REGISTERS

    st = "Q: Is there a fee to receive a domestic wire transfer? A: The incoming domestic wire fee is $0.00."
    f = Fact(id="x.faq", domain="d", section=["FAQ"], kind=FactKind.value, statement=st, slots=parse_slots(st),
             anchors=["incoming", "domestic", "wire", "fee"], source=SourceSpan(file="p.md", start_line=1, end_line=1))
    assert "Q:" not in read(f).text and "A:" not in read(f).text
    rl = Realiser(set())
    for k in range(6):
        text = rl.render(f, "voiced", random.Random(k), REGISTERS["chat"])
        assert not any(x in text for x in ("Q:", "A:", "q:")) and carries(f, text), text


def _bare_fact(fid: str, st: str, section=("Requirements",)):
    from facts.models import Fact, FactKind, SourceSpan
    from facts.values import parse_slots

    return Fact(id=fid, domain="d", section=list(section), kind=FactKind.rule, statement=st, slots=parse_slots(st),
                anchors=[], source=SourceSpan(file="p.md", start_line=1, end_line=1))


def _voicings(fact, registers, seeds: int) -> list[str]:
    """The plain realiser's voiced renditions of `fact` in each register, seeds 0..seeds-1."""
    from transforms.realise import Realiser
    from transforms.registers import REGISTERS

    rl = Realiser(set())
    return [rl.render(fact, "voiced", random.Random(k), REGISTERS[reg]) for reg in registers for k in range(seeds)]


def test_an_instruction_to_the_customer_is_said_of_the_customer_in_a_controlled_register():
    """"Keep your balance ... when you are below ..." in a manual is what the customer does:
    never "the agent keeps your balance", and its condition follows the person ("when they")."""
    from transforms.realise import Realiser
    from transforms.registers import REGISTERS

    f = _bare_fact("x.keep", "Keep your end-of-day balance at or above $5,000 to maintain account benefits and "
                             "avoid balance-related charges that can trigger when you are below the requirement.")
    rl = Realiser(set())
    seen = set()
    for k in range(12):
        text = rl.render(f, "voiced", random.Random(k), REGISTERS["manual"])
        low = text.lower()
        assert not any(s in low for s in ("agent keep", "staff keep", "staff retain", "agent retain",
                                          "member handling the case keep")), text
        assert "customer" in low and " your " not in f" {low} " and " you " not in f" {low} ", text
        seen.add(text)
    assert len(seen) > 1


def test_apply_is_swapped_by_its_sense():
    """"charges that may apply" is never "charges that may be used" (the sense of "apply a
    discount"): an intransitive apply is "come into play" or "kick in"."""
    f = _bare_fact("x.apply", "Maintain at least $5,000 to preserve account benefits and avoid balance-related "
                              "charges that may apply when you are below the requirement.")
    for text in _voicings(f, ("table", "chat", "manual"), 10):
        assert "be used" not in text and "may hold" not in text, text


def test_charge_is_swapped_by_its_sense_and_a_labels_clause_is_asked_about_its_subject():
    """"The ATM owner may charge a surcharge" once became "may fee", and its question "can
    operator surcharges: The ATM owner fee a further surcharge at the terminal?" (a customer's
    e-mail, banking_knowledge email_thread-0042): the verb is swapped as a verb, the label
    before the clause is the topic, and the question asks about the clause's subject."""
    from transforms.lexicon import LEX_BY_WORD
    from transforms.realise import Realiser

    f = _bare_fact("x.surcharge", "Operator surcharges: The ATM owner may charge an additional surcharge at the terminal.")
    for text in _voicings(f, ("table", "chat", "manual", "kb"), 10):
        assert "may fee" not in text.lower() and "can fee" not in text.lower(), text
        assert not re.search(r"(?:can|may|is) operator surcharges: the", text, re.I), text
    q = Realiser(set()).ask(f, random.Random(0))
    assert q == "Can the ATM owner charge an additional surcharge at the terminal?", q

    def swaps(text: str) -> list[str]:
        return [alt for rx, alts, _p in LEX_BY_WORD["charge"] if rx.search(text) for alt in alts]
    assert swaps("A charge of $5 applies.") == ["fee"] and swaps("The owner may charge a surcharge.") == ["bill"]
    assert swaps("We charge $5.") == ["bill"] and swaps("The charge for it is $5.") == ["fee"]


def test_an_adverb_stays_before_its_verb_and_an_example_is_a_case():
    """"Always verify the customer's identity before using this tool." was voiced "the always
    agent verifies" (the adverb put after the subject's first word) and "Say using this tool —
    ..." (an example-led wording that dropped the rule's "before"; banking_knowledge
    slide_deck-0007)."""
    f = _bare_fact("x.always", "Always verify the customer's identity before using this tool.")
    for text in _voicings(f, ("table", "chat", "manual", "kb", "slide"), 10):
        assert not re.search(r"\b(?:the|staff) (?:always|never) (?:agent|team)\b", text, re.I), text
        assert re.search(r"\b(?:before|ahead of) using this tool\b", text, re.I), text
        assert re.search(r"\balways (?:verif|check)", text), text


def test_a_noun_compound_before_its_verb_is_no_instruction():
    """"Transfer fees for this account tier are Yes." was read as the instruction "Transfer ..."
    and voiced "The agent transfers charges for that account tier are Yes." (a banking_knowledge
    web page); "Verify limits are set before release" stays an instruction."""
    from transforms.reading import _split_clause

    c = _split_clause("Transfer fees for this account tier are Yes")
    assert not c.imperative and c.subj == "Transfer fees for this account tier"
    assert _split_clause("Verify limits are set before release").imperative
    assert _split_clause("Transfer the customer to the security team").imperative
    f = _bare_fact("x.tf", "Transfer fees for this account tier are Yes.")
    for text in _voicings(f, ("table", "chat", "manual", "kb", "slide"), 6):
        assert "transfers" not in text.lower(), text


def test_a_rate_sheet_label_never_copies_a_statement_its_file_voices(mock_pack, tmp_path):
    """A row's item and "applies to" cells are short labels, and the sheet checks them like
    its sentences: a label that is the words of a statement the file voices ("Accounts
    opened within 2025-09-15", its own or another row's fact) is re-worded or left out."""
    from audits.language import shared_runs
    from facts.models import FactSet
    from transforms.base import ExtractContext
    from transforms.plan import ArtifactSpec, FactMention

    from facts.models import Fact, FactKind, SourceSpan
    from facts.values import parse_slots

    # a fact of the tau2 banking_knowledge documents, as decomposed
    st = "Accounts opened within 2025-09-15 through 2025-12-31 are eligible, subject to approval and program rules."
    f = Fact(id="x.window", domain="d", section=["Promotional window"], kind=FactKind.value, statement=st,
             slots=parse_slots(st), anchors=["accounts", "opened", "through", "subject", "approval", "program"],
             source=SourceSpan(file="p.md", start_line=7, end_line=7))
    pack = copy.copy(mock_pack)  # the fixture's pack is shared: a copy holds this one fact
    object.__setattr__(pack, "facts", FactSet(domain=pack.info.name, source_file="p.md", facts=[f], unparsed=[]))
    ctx = RenderContext(pack=pack, facts={f.id: f}, writer=BuiltinWriter(pack), db={}, workdir=tmp_path)
    spec = ArtifactSpec(id="rs-x", kind="tables/rate_sheet", path="evidence/rs-x.xlsx", seed=0, date="2025-10-01",
                        facts=[FactMention(fact_id=f.id, rendition="voiced")])
    t = registry.get("tables/rate_sheet")
    out = tmp_path / "rs-x.xlsx"
    t.render(spec, ctx, out)
    text = t.extract(out, ExtractContext()).text
    assert shared_runs(st, text) == [], text
    assert matches(f, text, pack.info.currency) or "2025-09-15" in text


def test_contact_as_a_noun_is_not_swapped_as_the_verb():
    """"Contact verification" (a check on a payee) is a noun phrase: never "Get in touch with
    verification"; the verb ("contact the branch") is still said another way."""
    from transforms.lexicon import LEX_BY_WORD
    from transforms.realise import Realiser
    from transforms.registers import REGISTERS

    f = _bare_fact("x.contact", "Contact verification before first transaction: Yes.")

    rl = Realiser(set())
    for reg in ("manual", "chat", "table"):
        for k in range(8):
            text = rl.render(f, "voiced", random.Random(k), REGISTERS[reg])
            assert not any(s in text.lower() for s in ("touch with verification", "reach verification")), text
    rx = [r for r, _alts, _p in LEX_BY_WORD["contact"]]
    assert any(r.search("Customers must contact the branch") for r in rx)
    assert not any(r.search("Contact verification before first transaction") for r in rx)


def test_a_generic_or_question_heading_names_no_subject():
    """A manual's section intro ("This section covers {heading}.") and talk about a section
    need a heading that names a subject: never "This section covers general."."""
    from transforms.headings import names_subject

    assert names_subject("Checked bags") and names_subject("3.2 Wire transfers")
    assert not any(names_subject(h) for h in ("General", "24 General", "Overview", "How the fee is assessed",
                                              "Do I have to verify contacts before sending?"))


def test_a_condition_after_a_relative_clause_is_not_fronted():
    """"... balance-related charges that can trigger when you are below the requirement": the
    condition belongs to the relative clause; fronted ("When they are below the requirement,
    customers keep their balance ...") it would govern the whole rule."""
    f = _bare_fact("x.rel", "Keep your end-of-day balance at or above $5,000 to maintain account benefits and "
                            "avoid balance-related charges that can trigger when you are below the requirement.")
    for text in _voicings(f, ("manual", "chat", "table"), 12):
        assert not text.lower().startswith(("when you", "when they")), text


def test_a_subject_ending_in_it_is_singular():
    """"Endorse the check and note that it is for mobile deposit only." (tau2 banking_knowledge)
    was voiced "Endorse check & note that it are ...": the clause reader took "... and note
    that it" for a plural subject because of its "and"."""
    from transforms.reading import read
    from transforms.realise import RealiseError, Realiser
    from transforms.registers import REGISTERS

    f = _bare_fact("x.it", "Endorse the check and note that it is for mobile deposit only.")
    assert not read(f).main.plural
    rl = Realiser(set())
    for reg in ("kb", "chat", "manual", "table"):
        for k in range(4):
            try:
                text = rl.render(f, "voiced", random.Random(k), REGISTERS[reg])
            except RealiseError:
                continue  # no voiced wording: the planner states it canonically (`voiceable`)
            assert "it are" not in text, text


def test_a_placeholder_is_kept_and_complete_is_swapped_by_its_sense():
    """"[value not available]" became "[value not on offer]" (a bracketed placeholder of the
    tau2 banking documents, re-worded as if it were prose), and "Transfers ... complete in
    three business days" became "... full in three business days" (the adjective's swap put
    on a verb)."""
    from transforms.lexicon import LEX_BY_WORD

    f = _bare_fact("x.ph", "The transaction cannot be eligible for financing if the final settled amount exceeds "
                           "[value not available].")
    for text in _voicings(f, ("table", "chat", "manual", "kb"), 8):
        assert "[value not available]" in text, text

    def swaps(text: str) -> list[str]:
        return [alt for rx, alts, _p in LEX_BY_WORD["complete"] if rx.search(text) for alt in alts]
    assert "full" not in swaps("Transfers generally complete in three business days.")
    assert "full" in swaps("Keep a complete record.")


def test_cannot_be_keeps_its_force():
    """"The transaction cannot be eligible ..." was voiced "may not be eligible" (a possibility
    where the policy rules it out) or "is not able to be eligible": a state ruled out is said
    "can't be" or "will not be"."""
    f = _bare_fact("x.cb", "The transaction cannot be eligible for financing if the amount exceeds $500.")
    seen = _voicings(f, ("table", "chat", "manual", "kb"), 8)
    assert seen
    for text in seen:
        assert "may not be eligible" not in text and "able to be" not in text, text


def test_a_wh_question_asks_for_the_noun_its_value_belongs_to():
    """"How much is any transaction at a non-Rho ATM assessed a per-transaction fee?" (a
    banking_knowledge "label: clause" fact): the figure is the fee's, so the question asks
    for the fee, and a customer's question carries no policy label."""
    from transforms.realise import Realiser

    rl = Realiser(set())
    f = _bare_fact("x.wh", "Non-Rho ATM fees: Any transaction at a non-Rho ATM is assessed a per-transaction fee "
                           "of $2.50.")
    assert rl.ask(f, random.Random(0)) == "How much is the per-transaction fee for any transaction at a non-Rho ATM?"
    g = _bare_fact("x.wh2", "Customers are charged a late fee of $25 if the payment is missed.")
    assert rl.ask(g, random.Random(0)) == "How much is the late fee if the payment is missed?"
    for text in _voicings(g, ("chat", "kb"), 8):
        assert "are customers charged a late fee" not in text.lower(), text


def test_an_instruction_with_a_that_clause_keeps_its_clause_whole():
    """"Refresh the card list and verify that instant issuance is enabled (Yes)." was read as
    a subject "Refresh ... that instant issuance" with "are" ("instant issuance are enabled");
    a note dropped the subordinate clause's copula ("verify that instant issuance enabled");
    with a subject, the second verb stayed bare ("the agent refreshes ... and verify")."""
    for st in ("Refresh the card list and verify that instant issuance is enabled (Yes).",
               "Verify that instant issuance is enabled (Yes)."):
        seen = [t for t in _voicings(_bare_fact("x.ii", st), ("chat", "kb", "staff_email"), 8)]
        assert seen
        for text in seen:
            assert "issuance are" not in text and "issuance enabled" not in text, text
            assert not re.search(r"\b(?:refreshes|verifies)\b.* and (?:verify|check|confirm)\b", text), text


def test_marketing_sentences_keep_their_grammar():
    """Sentences of the tau2 banking documents as a slide and a chat said them:
    "please does not hesitate to get to out to our ... team" ("please" read as a subject,
    "reach" swapped inside "reach out"), "investigate every discrepancies", "Our team allowed
    to help you" (a note dropped the copula of "is allowed to"), "types of issues:." and "posting
    date of charge" (a note's dropped article made the idiom "of charge")."""
    from transforms.registers import REGISTERS
    from transforms.rewording import telegraph

    checks = {
        "If you've recently reviewed your account statement and noticed something that doesn't look quite right, "
        "please don't hesitate to reach out to our dedicated customer service team.":
            r"please does|please doesn't|get to out",
        "We take accuracy very seriously, and our representatives are fully equipped and trained to investigate any "
        "discrepancies on your behalf.": r"every discrepancies",
        "Our team can help you with the following types of issues:": r"team allowed|:\.$",
    }
    from transforms.realise import RealiseError, Realiser

    rl = Realiser(set())
    for st, bad in checks.items():
        for reg in ("chat", "kb", "slide"):
            for k in range(8):
                try:
                    text = rl.render(_bare_fact("x.mk", st), "voiced", random.Random(k), REGISTERS[reg])
                except RealiseError:
                    continue  # stated as written instead
                assert not re.search(bad, text), text
    assert "date of the charge" in telegraph("We note the posting date of the charge.", REGISTERS["chat"])
    assert "free of charge" in telegraph("Cards are issued free of charge.", REGISTERS["chat"])
