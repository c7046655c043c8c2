"""Each lint finds its bad example (the generator tells it exists for) and leaves good writing alone."""
from __future__ import annotations

from audits import lints as L


def _lints(text: str, kind: str, modality: str, **kw) -> set[str]:
    return {h.lint for h in L.lint_text(text, kind, modality, **kw)}


def test_aside_in_a_controlled_manual():
    bad = "4.2 An overweight bag - as far as I know - in Lite or Main costs an extra $100."
    assert "aside_in_controlled" in _lints(bad, "documents/pdf_manual", "pdf")
    assert "aside_in_controlled" not in _lints(bad, "conversations/chat_transcript", "text")
    quoted = "Common misconception. Heard on the floor: \u201cI think the fee is $40.\u201d"
    assert "aside_in_controlled" not in _lints(quoted, "documents/pdf_manual", "pdf")
    # the quotation keeps its closing mark where the next clause starts on the same line
    callout = ("Common misconception\nHeard on the floor: \u201cSomeone said the fee is $40; not\ncorrect, I think?\u201d "
               "4.2 The fee is $50.\n")
    assert "aside_in_controlled" not in _lints(callout, "documents/pdf_manual", "pdf")
    slide = "Since the last version\nSomeone said the fee is $40; not correct, I think?\nRefunds\n"
    assert "aside_in_controlled" in _lints(slide, "visuals/slide_deck", "png")


def test_agreement_errors():
    assert "agreement" in _lints("Agents has to never read out a full card number.", "documents/memo", "docx")
    assert "agreement" in _lints("Each passenger may bring a extra bag on board.", "documents/memo", "docx")
    good = "Agents have to confirm an hour before departure whether a one-way trip is booked."
    assert "agreement" not in _lints(good, "documents/memo", "docx")
    # capitals said as a word take "a" ("a SIM"), spelt-out ones by their letter ("an SMS")
    assert "agreement" not in _lints("A SIM locks after 3 wrong PIN entries. Send an SMS.", "visuals/app_screenshot",
                                     "png")
    assert "agreement" in _lints("Order an SIM card for the customer.", "visuals/app_screenshot", "png")
    # a plural noun inside a prepositional phrase is not the verb's subject
    assert "agreement" not in _lints("For mobile deposits, the daily limit for Premier clients is $25,000.",
                                     "documents/kb_article", "html")
    assert "agreement" in _lints("Premier clients is eligible for a waiver.", "documents/kb_article", "html")


def test_product_name_losing_its_capitalisation():
    names = ["Credit Builder Card"]
    assert "product_case" in _lints("You can apply for the credit Builder Card online.", "documents/kb_article",
                                    "html", names=names)
    assert "product_case" not in _lints("You can apply for the Credit Builder Card online. CREDIT BUILDER CARD",
                                        "documents/kb_article", "html", names=names)
    assert "product_case" in _lints("Apply for the credit builder card online.", "documents/kb_article", "html",
                                    names=names, strict=names)  # a product all in lower case
    # catalog row labels in sentence case are ordinary words mid-sentence; a lower-case word of
    # a name may take a capital
    labels = ["Canceled recurring charge", "Metal Private Client Reserve card", "Vehicle Loan"]
    assert "product_case" not in _lints("Can a canceled recurring charge be disputed? The Metal Private Client "
                                        "Reserve Card is replaced for free. I'll update the vehicle loan article.",
                                        "conversations/chat_transcript", "text", names=labels)
    assert "product_case" in _lints("The metal Private client Reserve card is replaced for free.",
                                    "conversations/chat_transcript", "text", names=labels)


def test_headings_ids_and_cells_pasted_into_speech():
    heads = ["Refund amounts after the risk-free window"]
    bad = "[10:00:01] Ana Ruiz: What's the rule on refund amounts after the risk-free window?"
    assert "heading_in_speech" in _lints(bad, "conversations/chat_transcript", "text", headings=heads)
    cell = "[10:00:05] Ben Ode: Premier \u2014 Qualifying delay: $150."
    assert "heading_in_speech" in _lints(cell, "conversations/chat_transcript", "text")
    fid = "[10:00:09] Ben Ode: See airline.change-fees.eeb4ea67fb for that."
    assert "heading_in_speech" in _lints(fid, "conversations/chat_transcript", "text")
    good = "[10:00:01] Ana Ruiz: I cancelled reservation LKM4WZK on Tuesday, how much comes back to my card?"
    assert "heading_in_speech" not in _lints(good, "conversations/chat_transcript", "text", headings=heads)
    route = "[10:00:12] Ana Ruiz: I'm booked from Chicago to New York \u2014 I wanted to ask: can I add a passenger?"
    assert "heading_in_speech" not in _lints(route, "conversations/chat_transcript", "text")


def test_slides_printing_a_bullet_twice():
    slide = "Refund rules\nRefunds go back to the original card first\nRefunds go back to the original card first\n"
    assert "duplicated_bullet" in _lints(slide, "visuals/slide_deck", "png")
    chrome = "".join(f"Slide {i}\nLarkspur Airways Internal - do not forward\n" for i in range(4))
    assert "duplicated_bullet" not in _lints(chrome, "visuals/slide_deck", "png")  # a running footer
    footer = "Internal - do not forward 1\nNext slide body text here\nInternal - do not forward 2\n"
    assert "duplicated_bullet" not in _lints(footer, "visuals/slide_deck", "png")
    # two blocks of one schedule, each headed by its products' names
    names = ["Business Premier Money Market", "Business Sweep Account"]
    schedule = "".join(f"Schedule 4.{k}: {g} by business account\nBusiness account\n{names[0]}\n{names[1]}\n"
                       f"{a}\n$32\n$100\n" for k, g, a in ((11, "fees", "Overdraft fee"), (12, "limits", "Daily limit")))
    assert "duplicated_bullet" not in _lints(schedule, "documents/pdf_manual", "pdf", names=names)
    assert "duplicated_bullet" in _lints(schedule + "Refunds go back to the original card\n" * 2,
                                         "documents/pdf_manual", "pdf", names=names)


def test_flowchart_whose_steps_are_fact_sentences(hand_facts):
    steps = "\n".join(f.statement for f in hand_facts[:3])
    assert "fact_steps" in _lints(steps, "visuals/flowchart", "png", facts=hand_facts)
    assert "fact_steps" not in _lints("Start\nIs the bike late?\nCharge the late fee\nEnd", "visuals/flowchart", "png",
                                      facts=hand_facts)
    # a procedure step's own words in its box are a step (hand_facts[4] is one)
    step = hand_facts[4]
    boxes = f"Start: Case opened\n1 {step.statement}\n2 {step.statement.replace('5', '7')}\nEnd: Close the case"
    assert "fact_steps" not in _lints(boxes, "visuals/flowchart", "png", facts=[step])


def test_contradicting_canned_replies():
    bad = ("2026-01-01 10:00 Ana: Does anyone know if the new headsets arrived?\n"
           "2026-01-01 10:05 Ben: They're in the storage room.\n2026-01-01 10:07 Cy: Not yet, maybe next week.")
    assert "contradicting_replies" in _lints(bad, "conversations/team_chat", "json")


def test_brand_map_internals_shown_to_readers():
    bad = "Definitions\nWayfarer: The name used in customer communications for our base tier."
    assert "brand_internals" in _lints(bad, "documents/pdf_manual", "pdf")


def test_voiced_runs_fail_the_gate():
    report = {"hits": [], "voiced_runs": [{"path": "evidence/x.txt", "fact_id": "f.1", "run": "a b c d e f"}]}
    assert L.failures(report) and "f.1" in L.failures(report)[0]
    assert L.failures({"hits": [], "voiced_runs": []}) == []


def test_voiced_runs_are_phrases_not_table_layout():
    from audits import language as La

    statement = "Corporate Purchasing Card \u2014 Free employee cards: 250 cards."
    grid = "Business card | Business Travel Elite Card | Corporate Purchasing Card\nFree employee cards | 50 | 250\n"
    assert La.shared_runs(statement, grid) == []  # a header row's last cell, then the next row's label
    wrapped = "Staff note: the Corporate Purchasing Card\nfree employee cards allowance is 250.\n"
    assert La.shared_runs(statement, grid + wrapped) == ["corporate purchasing card free employee cards"]


def test_site_furniture_left_out_of_the_distinct_measure():
    from audits import language as L

    nav = "Getting started Account Billing Policies Contact\nWas this article helpful?\nStill need help? Call us or chat.\n"
    own = [("Lockers open when you scan your boarding pass.", "The north team empties them every night."),
           ("Pets travel in the cabin in a soft carrier.", "Book the pet seat before you check in."),
           ("Lost property is kept for thirty days.", "Ask at the desk beside baggage claim."),
           ("Wheelchairs can be booked up to the day before.", "Staff meet you at the kerb.")]
    pages = [nav + f"{a}\n{b}\n" for a, b in own]
    running = L.running_lines(pages)
    assert L.mask("Was this article helpful?") in running
    assert not any("locker" in k or "pet" in k for k in running)  # the pages' own text stays
    kept = [u for p in pages for u in L.units(p, "html", running)]
    assert len(kept) == 8 and not any("helpful" in u for u in kept)
    assert L.running_lines(pages[:2]) == set()  # two pages are not a site


def test_a_tables_row_labels_are_furniture_its_prose_cells_are_not():
    from audits import language as L

    grid = ("Personal checking | Everyday Checking | Premier Checking\n"
            "Minimum daily balance to waive the monthly fee | $1,500 | $15,000\n"
            "Note on this table | Fees are waived for the first three months after opening. | -\n")
    kept = L.units(grid, "html")
    assert not any("waive the monthly fee" in u for u in kept)  # a row's label, figures beside it
    assert "Fees are waived for the first three months after opening." in kept  # a cell's sentence stays
    # a row without figures has no label column: its long cells are read as they are
    assert L.units("Minimum daily balance to waive the monthly fee | ask in branch", "html") == [
        "Minimum daily balance to waive the monthly fee"]


def test_a_run_never_crosses_a_sentence_end():
    """The last words of one rule and the first of the next (a memo's list of decisions) are
    no copy of a policy sentence; the same words inside one sentence are."""
    from audits.language import shared_runs

    statement = "Verify the customer with the email address on the account before sharing or changing anything."
    joined = "Refunds go back to the card on the account. Before sharing or changing anything, staff check."
    assert shared_runs(statement, joined) == []
    copied = "Staff verify the customer on the account before sharing or changing anything."
    assert "account before sharing or changing anything" in shared_runs(statement, copied)


def test_a_sentence_ending_in_capitals_ends_a_run():
    """"... to AWAITING PAYMENT. Once the customer accepts the ask" shares no run with "Use
    make_payment once the customer accepts the request." (the imported multi-document pack's
    knowledge-base article failed the gate on it); inside one sentence the words still count."""
    from audits.language import shared_runs

    statement = "Use make_payment once the customer accepts the request."
    page = ("Send the customer a payment request; this changes the bill to AWAITING PAYMENT.\n"
            "Once the customer accepts the ask, use make_payment.")
    assert shared_runs(statement, page) == []
    assert "make payment once the customer accepts" in shared_runs(
        statement, "Staff use make_payment once the customer accepts the ask.")


def test_ocr_tolerates_a_lost_first_capital_of_a_name_only():
    """Tesseract read a web page's bold header "Tau2 Telecom Multidoc" as "tau2 Telecom
    Multidoc": in text read from pixels a name that lost only its first capital is not
    reported; every other loss still is, and typed text is checked as before."""
    names, strict = ["Tau2 Telecom Multidoc", "Credit Builder Card"], ["Tau2 Telecom Multidoc"]
    header = "@ tau2 Telecom Multidoc Home Pricing Locations Help"
    assert "product_case" not in _lints(header, "visuals/web_screenshot", "png", names=names, strict=strict)
    assert "product_case" in _lints(header, "documents/kb_article", "html", names=names, strict=strict)
    for bad in ("Ask about the Credit builder Card today.", "Open the CREDIT builder Card today.",
                "Welcome to tau2 telecom multidoc."):
        assert "product_case" in _lints(bad, "visuals/web_screenshot", "png", names=names, strict=strict), bad


def test_runs_do_not_cross_a_heading_into_its_paragraph():
    from audits.language import ngrams, shared_runs
    statement = "Transfer the customer to a human agent when the request falls outside this policy."
    page = "Transfer to a human agent\nWhen the request falls beyond this policy, staff hand the caller over."
    assert shared_runs(statement, page) == []
    # a sentence wrapped over two lines still joins
    wrapped = "Staff transfer the customer to a human agent when\nthe request falls outside this policy."
    assert shared_runs(statement, wrapped)
    assert ("a", "human", "agent", "when", "the", "request") not in ngrams(page)


def test_a_run_that_only_names_a_label_is_not_a_copy():
    """A catalog column of six words or more is what the business calls the thing: its own
    schedules and every chat name it. Naming it is not the policy's phrasing; a run that adds
    the rule's own words, or joins two labels, still is."""
    from audits.language import name_words, shared_runs
    from facts.models import Condition, Fact, FactKind, SourceSpan

    statement = "Tax Reserve Savings \u2014 Cash deposit fee above the free amount: 0.30%."
    fact = Fact(id="b.1", domain="banking", section=["Business"], kind=FactKind.value, statement=statement,
                source=SourceSpan(file="policy.md", start_line=1, end_line=1), conditions=[Condition(attribute="Business account", value="Tax Reserve Savings"),
                            Condition(attribute="attribute", value="Cash deposit fee above the free amount")])
    names = name_words([fact])
    schedule = "4.36.2\nCash deposit fee above the\nfree amount\n0.45%\n"
    assert shared_runs(statement, schedule) == ["cash deposit fee above the free", "deposit fee above the free amount"]
    assert shared_runs(statement, schedule, names=names) == []
    # the label and the value together are the row itself, not a name
    assert shared_runs(statement, "fee above the free amount: 0.30%", names=names) == ["fee above the free amount 0.30%"]
    copied = "Tax Reserve Savings: cash deposit fee above the free amount is 0.30%."  # two labels joined
    assert "tax reserve savings cash deposit fee" in shared_runs(statement, copied, names=names)


def test_a_run_that_only_names_a_section_is_not_a_copy():
    """A heading of six words or more is the name of a guide: a help article may write
    "Understanding and Troubleshooting MMS (Picture/Video Messaging)" as the policy does. A
    run that adds the rule's own words is still a copy."""
    from audits.language import name_words, shared_runs
    from facts.models import Fact, FactKind, SourceSpan

    title = "Understanding and Troubleshooting MMS (Picture/Video Messaging)"
    statement = f"{title}: Covers issues related to sending and receiving multimedia messages."
    fact = Fact(id="t.1", domain="telecom", section=["Introduction", title], kind=FactKind.rule,
                statement=statement, source=SourceSpan(file="policy.md", start_line=1, end_line=1))
    names = name_words([fact])
    article = "See our guide, Understanding and Troubleshooting MMS (Picture/Video Messaging), for the steps."
    assert shared_runs(statement, article) != []
    assert shared_runs(statement, article, names=names) == []
    copied = "It covers issues related to sending and receiving multimedia messages."
    assert shared_runs(statement, copied, names=names) != []


def test_a_word_written_twice():
    assert "doubled_word" in _lints("Is the the queue page showing for everyone?", "conversations/meeting_transcript",
                                    "vtt")
    assert "doubled_word" in _lints("Should this go to the the team huddle?", "conversations/team_chat", "json")
    assert "doubled_word" not in _lints("I think that that is the one he had had in mind.",
                                        "conversations/team_chat", "json")
    # a phrasal verb before its preposition, a compound before its own word: English
    assert "doubled_word" not in _lints("Customer couldn't log in in the app; sign-on on Monday works.",
                                        "tables/case_ledger", "csv")
    # two columns or two lines read as one by OCR: a capital starts the next text
    assert "doubled_word" not in _lints("Minimum daily balance to waive the The Everyday Savings carries",
                                        "visuals/app_screenshot", "png")
    assert "doubled_word" in _lints("The the fee is due.", "visuals/app_screenshot", "png")


def test_a_possessive_before_an_article():
    assert "possessive_article" in _lints("About my the statement from March 31, I'm looking at my the statement.",
                                          "conversations/chat_transcript", "text")
    assert "possessive_article" not in _lints("About my statement from March 31: give her a call.",
                                              "conversations/chat_transcript", "text")
    # a picture's two card columns read by OCR as one line: a seam, not a phrase (the same words
    # written in a text file are a hit)
    seam = "Pedalwise Pass is our membership \u2014 our the app. team can tell you more."
    assert "possessive_article" not in _lints(seam, "visuals/web_screenshot", "png")
    assert "possessive_article" in _lints(seam, "documents/kb_article", "html")


def test_one_of_a_unit_in_the_plural():
    assert "singular_unit" in _lints("The paper statement fee? It is 1 dollars.", "documents/kb_article", "html")
    assert "singular_unit" in _lints("One dollars is the fee per extra withdrawal.", "documents/kb_article", "html")
    assert "singular_unit" not in _lints("It is 1 dollar. It takes 21 days, or 1.5 days, or one day.",
                                         "documents/kb_article", "html")


def test_a_set_phrase_broken_by_a_word_swap():
    assert "mangled_idiom" in _lints("A second card is no-cost of charge.", "documents/pdf_manual", "pdf")
    assert "mangled_idiom" not in _lints("A second card is free of charge. The agent in charge of it agrees.",
                                         "documents/pdf_manual", "pdf")


def test_a_body_line_on_half_the_pages_does_not_join_its_neighbours():
    """The airline text-only build (seed 0) failed the lint gate on its PDF manual: the line
    "certificate is forfeited." is on two of four pages (a definition, and its clause), so it
    is dropped as running chrome, and the line before it ("... any unused remainder of a") was
    joined to the next table row ("Exception A decision ...") into "a Exception", an agreement
    error no sentence of the file has. A dropped line now ends the wrapped line before it."""
    from audits.language import units

    head = "Larkspur Airways\nSOP-LAR-224 Rev. 4.2\n"
    pages = [head + "3 Definitions\nA travel certificate\nA travel certificate is used up in full when it is applied, "
                    "and any unused remainder of a\ncertificate is forfeited.\nException\nA decision that departs "
                    "from a clause of this manual.\nPage 1 of 4",
             head + "4 Baggage\nEach passenger may check one bag.\nPage 2 of 4",
             head + "6.1.5 A travel certificate is used up in full when it is applied, and any unused remainder "
                    "of a\ncertificate is forfeited.\n7 Revision history\nOlder versions are no longer in force.\n"
                    "Page 3 of 4",
             head + "End of SOP-LAR-224\nPage 4 of 4"]
    text = "\f".join(pages)
    assert "agreement" not in _lints(text, "documents/pdf_manual", "pdf")
    us = units(text, "pdf")
    assert not any("of a Exception" in u or "of a Older" in u for u in us), us
    assert not any("Larkspur Airways" in u for u in us)  # the running header is still dropped
    # an agreement error inside one wrapped sentence is still found
    bad = "\f".join(p.replace("A decision that departs", "A decision that depart from a\nexception") for p in pages)
    assert "agreement" in _lints(bad, "documents/pdf_manual", "pdf")


def test_a_message_quoted_in_capitals_is_not_read_as_abbreviations():
    """The tau2 airline import (text-only, seed 0) failed the lint gate on its own policy's
    quoted message "YOU ARE BEING TRANSFERRED TO A HUMAN AGENT. PLEASE HOLD ON.": "A HUMAN"
    was read as an abbreviation spelt out ("an H..."). Between words in capitals, a word in
    capitals is a word; alone, it is still an abbreviation."""
    quoted = "Then send the message 'YOU ARE BEING TRANSFERRED TO A HUMAN AGENT. PLEASE HOLD ON.' to the user."
    assert "agreement" not in _lints(quoted, "conversations/chat_transcript", "text")
    assert "agreement" in _lints("Send 'PLEASE HOLD FOR A HOUR' to the user.", "conversations/chat_transcript", "text")
    assert "agreement" not in _lints("A SIM locks after 3 wrong PIN entries. Send an SMS.", "visuals/app_screenshot",
                                     "png")
    assert "agreement" in _lints("Order an SIM card for the customer.", "visuals/app_screenshot", "png")


def test_policy_casing_labels_and_faq_headings_are_not_tells():
    """Seen in the tau2 banking_knowledge build: a name the policy itself writes in lower
    case somewhere ("APY boost" beside a table's "APY Boost"), a label's letter ("Dispute A
    and"), an FAQ heading a customer asks verbatim, and a heading inside the statement of a
    fact the file mentions are not tells; the same name in a case the policy never writes,
    and a heading pasted into speech, still are."""
    from facts.models import Fact, FactKind, SourceSpan

    names = ["APY Boost"]
    policy = [Fact(id=f"x{i}", domain="d", section=["S"], kind=FactKind.rule, statement=st,
                   source=SourceSpan(file="p.md", start_line=1, end_line=1))
              for i, st in enumerate(["Linked: an APY Boost.", "Only the highest APY boost is applied."])]
    forms = L.policy_forms(policy, names)
    assert forms == ["APY boost"]
    assert L.product_case("the linked checking APY boost was not applied", names, policy=[])
    assert not L.product_case("the linked checking APY boost was not applied", names, policy=forms)
    assert not L.agreement("record 'keep_active' for Dispute A and 'freeze' for Dispute B")
    assert L.agreement("a extra bag")
    # the policy's own slip is its wording, carried over: tau2's telecom workflow heads a step
    # "Check if user is facing a MMS issue"; a writer's own slip still counts
    step = Fact(id="s1", domain="d", section=["Step 3.0: Check if user is facing a MMS issue"], kind=FactKind.rule,
                statement="Ask user if they can send an MMS message.", source=SourceSpan(file="p.md", start_line=1, end_line=1))
    said = "8.1.1 Step 3.0: Check if user is facing a MMS issue"
    assert L.policy_slips([step]) == ["a mms"]
    assert L.agreement(said) and not L.agreement(said, allowed=L.policy_slips([step]))
    assert L.agreement("a extra bag", allowed=L.policy_slips([step]))
    heads = ["What does a paper statement cost?", "How your deposits create environmental impact"]
    assert not L.headings_in_speech(["What does a paper statement cost?"], heads, "")
    said = ["The how your deposits create environmental impact for reforestation is 2 trees."]
    assert L.headings_in_speech(said, heads, "")
    assert not L.headings_in_speech(said, heads, "how your deposits create environmental impact: 2 trees")
    # a clause heading said as a clause is speech (seen in a tau2 banking_knowledge full build)
    heads.append("How the discount works")
    assert not L.headings_in_speech(["Can someone confirm how the discount works?"], heads, "")
    assert L.headings_in_speech(["Can someone confirm How the discount works?"], heads, "")
    assert L.headings_in_speech(["Questions on the how the discount works item."], heads, "")


def test_headings_the_policy_writes_and_wrapped_tails_are_not_tells():
    """Seen in the tau2 banking_knowledge build: "Fee summary" (one document's heading) beside
    another's "Fee Summary" is the policy's own casing; two clauses of a PDF that end in the
    same words wrap to the same last line, which is no duplicated bullet. A bullet printed
    twice still is, and so is a casing the policy never writes."""
    from facts.models import Fact, FactKind, SourceSpan

    def fact(i, sec, st):
        return Fact(id=f"x{i}", domain="d", section=sec, kind=FactKind.rule, statement=st,
                    source=SourceSpan(file="p.md", start_line=1, end_line=1))
    policy = [fact(0, ["Fee Summary"], "Fees are listed."), fact(1, ["Fee summary"], "A fee is $5.")]
    forms = L.policy_forms(policy, ["Fee Summary"])
    assert forms == ["Fee summary"]
    assert not L.product_case("Help Center › Fee summary explained", ["Fee Summary"], policy=forms)
    assert L.product_case("Help Center › fee Summary explained", ["Fee Summary"], policy=forms)
    wrapped = ("1.1 A waiver is granted on request when the fee appears in\nthe Schedule of charges and limits.\n"
               "1.2 A refund is made within five days for every fee listed in\nthe Schedule of charges and limits.")
    assert L.duplicated_lines(wrapped) == []
    bullets = "Fees:\n- A waiver is granted on request.\n- Refunds take five days.\n- A waiver is granted on request."
    assert L.duplicated_lines(bullets) == ["- A waiver is granted on request."]


def test_table_cells_that_wrap_alike_are_not_duplicated_bullets():
    """Seen in a tau2 banking_knowledge manual's conditions table: two cells wrapped to the
    same first line ("Item: APY boost with")."""
    cells = ("Item: APY boost with\nlinked Bronze Savings\nAPY boost — Details\n0.4%\n"
             "Item: APY boost with\nlinked Gold Plus Savings\nAPY boost — Details\n0.35%")
    assert L.duplicated_lines(cells) == []
    assert L.duplicated_lines(cells.replace("Gold Plus", "Bronze")) == ["Item: APY boost with linked Bronze Savings"]


def test_a_case_cell_repeated_under_two_rules_is_a_name():
    """A manual's conditions table lists one case under several rules ("Fee type: Foreign ATM
    Withdrawal Fee", wrapped); a name under its heading is no duplicated bullet, a line that
    only starts like one still is."""
    t = "Fee type: Foreign ATM\nWithdrawal Fee\nsee clause\n78.6\nFee type: Foreign ATM\nWithdrawal Fee\n"
    assert L.duplicated_lines(t, names=["Foreign ATM Withdrawal Fee"]) == []
    assert L.duplicated_lines(t, names=["Foreign ATM Deposit Fee"]) == ["Fee type: Foreign ATM"]


def test_an_attribute_frame_is_a_blocking_hit_and_still_counted():
    """"X has a <attribute name> of <value>" is an attribute said through its name: a hit
    (the lint gate fails on it) and, per attribute name, the report's measure. A frame the
    policy itself writes is its own wording; "has" without an attribute and a value is not one."""
    bad = "The Tailwind Storm has a high-speed data added of ten gigabytes. It has a price of $45."
    hits = [h for h in L.lint_text(bad, "visuals/web_screenshot", "html") if h.lint == "attribute_frame"]
    assert len(hits) == 2 and "high-speed data added of ten gigabytes" in hits[0].text
    plural = "The Tailwind Storm has purchases allowed per billing cycle of one purchase."
    assert "attribute_frame" in _lints(plural, "visuals/web_screenshot", "html")
    report = {"hits": [{"path": "p.html", "lint": h.lint, "text": h.text} for h in hits], "voiced_runs": []}
    assert len(L.failures(report)) == 2
    good = ("The Tailwind Storm adds ten gigabytes of high-speed data and costs $45. She has two bikes. He has "
            "been a member of the club for 3 years.")
    assert "attribute_frame" not in _lints(good, "visuals/web_screenshot", "html")
    quoted = "The Home Equity Line of Credit has a draw period of 10 years."
    assert "attribute_frame" in _lints(quoted, "documents/memo", "docx")
    assert "attribute_frame" not in _lints(quoted, "documents/memo", "docx", policy_frames=["draw period"])
    heard = "the then you like have you of twelve day him and eighty on five euro"  # a recogniser's guesses
    assert "attribute_frame" in _lints(heard, "documents/memo", "docx")
    assert "attribute_frame" not in _lints(heard, "recordings/call_audio", "wav")

    texts = [bad, "Business Checking has a monthly maintenance charge of $12.",
             "The plan costs $45 and comes with ten gigabytes.", "She has two bikes and a deposit of $50."]
    got = L.attribute_frames(texts)
    assert got["count"] == 3 and got["files"] == 2
    assert dict(got["top"]) == {"high-speed data added": 1, "price": 1, "monthly maintenance charge": 1}
    assert L.attribute_frames(texts, allowed=["price"])["count"] == 2


def test_the_policys_own_frames_are_its_wording():
    from facts.models import Fact, FactKind, SourceSpan

    st = "The Home Equity Line of Credit has a draw period of 10 years followed by a repayment period of 20 years."
    f = Fact(id="x", domain="d", section=["S"], kind=FactKind.rule, statement=st, slots=[], anchors=[],
             source=SourceSpan(file="p.md", start_line=1, end_line=1))
    assert L.policy_frames([f]) == ["draw period"]
