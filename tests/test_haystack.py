"""The haystack generator: grounded in the seed database, deterministic, never showing an
avoided value, and varied enough that sentences rarely repeat across a domain."""
from __future__ import annotations

import random

import pytest

from audits.language import Distinct, units
from facts.values import find_values
from transforms import haystack as H
from transforms import haystack_staff as HS
from transforms import haystack_cases as HC
from transforms.base import RenderContext
from transforms.situations import money, view
from transforms.writers import make_writer


def _ctx(name: str) -> RenderContext:
    from domains.variants import resolve

    w = resolve(name, [])
    return RenderContext(pack=w.pack, facts={}, writer=make_writer(w.pack), db=w.database(0))


@pytest.fixture(scope="module")
def airline():
    return _ctx("airline")


def _dump(turns) -> str:
    return "\n".join(f"{t.who}: {t.text}" for t in turns)


def test_same_seed_same_text(airline):
    a = H.customer_exchange(airline, random.Random(5), channel="email")
    b = H.customer_exchange(airline, random.Random(5), channel="email")
    assert _dump(a.turns) == _dump(b.turns)
    t1 = HS.internal_thread(airline, random.Random(9), channel="team_chat")
    t2 = HS.internal_thread(airline, random.Random(9), channel="team_chat")
    assert (t1.subject, _dump(t1.turns)) == (t2.subject, _dump(t2.turns))


def test_customers_and_records_come_from_the_database(airline):
    v = view(airline.db)
    names = {c.name for c in v.customers}
    ids = {r.id for r in v.records}
    for seed in range(30):
        scenario = ["receipt", "status", "details", "copy", "charge", "name"][seed % 6]
        ex = H.customer_exchange(airline, random.Random(seed), channel="chat", scenario=scenario)
        assert ex.customer.name in names
        assert ex.record is not None and ex.record.id in ids
        text = _dump(ex.turns)
        assert ex.customer.first in text
        # a record-centred scenario names the record: by its id or its route
        assert ex.record.id in text or (ex.record.route.split(" to ")[0] in text)


def test_avoided_values_never_appear(airline):
    v = view(airline.db)
    cust = next(c for c in v.customers if any(r.amount for r in c.records))
    rec = next(r for r in cust.records if r.amount)
    wrong = money(rec.amount)
    for seed in range(20):
        ex = H.customer_exchange(airline, random.Random(seed), customer=cust, record=rec, scenario="receipt",
                                 avoid=[wrong])
        for t in ex.turns:
            assert not any(val == rec.amount for _t, val, *_ in find_values(t.text)), t.text
    # without `avoid` the amount is said (so the test above is not vacuous)
    ex = H.customer_exchange(airline, random.Random(0), customer=cust, record=rec, scenario="receipt")
    assert wrong in _dump(ex.turns)


def test_email_has_salutations_and_no_chat_rituals(airline):
    for seed in range(10):
        ex = H.customer_exchange(airline, random.Random(seed), channel="email")
        assert len(ex.turns) >= 2
        for t in ex.turns:
            first, *_rest = t.text.split("\n\n")
            assert first.split()[0].rstrip(",") in ("Hi", "Hello", "Dear", "Good"), t.text
            assert "anything else" not in t.text.lower()
        assert ex.turns[0].role == "customer"


def test_ticket_meeting_and_case_note(airline):
    rng = random.Random(3)
    for _ in range(6):
        tk = HC.ticket(airline, rng)
        assert tk.summary and tk.description and tk.reporter
    people = ["Beatriz Calloway", "Aiko Brandt", "Grace Nwosu"]
    turns = HS.meeting_item(airline, rng, people)
    assert turns[0].who == people[0] and len(turns) >= 3
    notes = [HC.case_entry(airline, rng, open_ok=i % 2 == 0) for i in range(40)]
    assert HC.case_note(airline, rng).endswith(".")
    grounded_notes = 0
    for i, n in enumerate(notes):
        assert n.text.endswith("."), n.text
        assert n.status in (("Resolved", "Closed", "Open", "Pending") if i % 2 == 0 else ("Resolved", "Closed"))
        rec = n.record
        grounded = [n.customer.name, n.customer.first, n.customer.email, n.customer.last] + \
            ([rec.id, rec.route.split(" to ")[0]] if rec is not None and rec.id else [])
        grounded_notes += any(g and g in n.text for g in grounded)
    assert grounded_notes >= 0.75 * len(notes)  # most name the customer or their own record
    assert len({n.text for n in notes}) == len(notes)
    assert len({n.scenario for n in notes}) >= 6


@pytest.mark.parametrize("name", ["_mock", "telecom"])
def test_other_databases(name):
    ctx = _ctx(name)
    rng = random.Random(1)
    for ch in ("chat", "email", "call", "ticket"):
        assert H.customer_exchange(ctx, rng, channel=ch).turns
    assert HS.internal_thread(ctx, rng).turns


def test_an_empty_database_falls_back_to_brand_customers(mock_pack):
    ctx = RenderContext(pack=mock_pack, facts={}, writer=make_writer(mock_pack), db={})
    ex = H.customer_exchange(ctx, random.Random(2))
    assert ex.customer.name in mock_pack.brand.customers or ex.customer.name


def test_sentences_rarely_repeat(airline):
    """At a domain's volume of routine traffic, at least 80% of sentences are distinct once
    numbers are masked, and none repeats more than 20 times."""
    rng = random.Random(0)
    d = Distinct()
    for _ in range(700):
        ex = H.customer_exchange(airline, rng, channel=rng.choice(["chat", "email", "call"]))
        for t in ex.turns:
            d.add(units(t.text, "eml" if "\n\n" in t.text else "vtt"))
    for _ in range(900):
        th = HS.internal_thread(airline, rng, channel=rng.choice(["email", "team_chat"]))
        for t in th.turns:
            d.add(units(t.text, "eml" if "\n\n" in t.text else "vtt"))
    assert d.total > 6000
    assert d.ratio >= 0.8, d.top(10)
    assert not d.over(20), d.over(20)


@pytest.fixture(scope="module")
def banking():
    return _ctx("banking")


def test_team_chat_follow_ups_vary_and_fit_their_storyline(banking):
    """A banking channel's volume of staff threads with follow-ups (a team-chat export holds ~55
    threads, a domain ~65 exports): sentences distinct at 80%, none over 20, no doubled word,
    and every follow-up exchange addresses someone other than its speaker."""
    from audits.lints import doubled_words, possessive_articles

    rng = random.Random(0)
    d = Distinct()
    for _ in range(2500):
        th = HS.internal_thread(banking, rng, channel="team_chat", follow_ups=rng.randint(0, 5))
        for t in th.turns:
            d.add(units(t.text, "vtt"))
            assert not doubled_words(t.text) and not possessive_articles(t.text), t.text
            first = t.who.split()[0]
            assert not t.text.rstrip(".!?").endswith(f", {first}"), (t.who, t.text)  # nobody talks to themselves
        if th.scenario == "shift":
            assert not any("same thing happened" in t.text or "did the same to me" in t.text for t in th.turns)
    assert d.total > 15000
    assert d.ratio >= 0.8, d.top(10)
    assert not d.over(20), d.over(20)


def test_records_are_named_as_customers_name_them(banking):
    """A statement by its account's product, a card payment by its merchant, a transfer by its
    payee: never by an internal id."""
    v = view(banking.db)
    rng = random.Random(4)
    stmt = next(r for r in v.records if r.kind == "statement")
    assert stmt.detail and stmt.detail in H.record_name(stmt, rng)
    assert stmt.id not in H.record_name(stmt, rng)
    buy = next(r for r in v.records if r.kind == "transaction" and r.detail)
    names = {H.record_name(buy, random.Random(i)) for i in range(10)}
    assert all(buy.detail in n and buy.id not in n for n in names), names


def test_a_duplicate_case_is_the_same_customer_asking_again(banking):
    rng = random.Random(2)
    texts = set()
    for _ in range(300):
        first = HC.case_entry(banking, rng)
        note = HC.duplicate_note(banking, rng, first)
        assert "{dup}" in note and note.endswith(".")
        assert first.customer.first in note or first.customer.name in note or "ust" in note
        texts.add(note)
    assert len(texts) >= 290


def test_ticket_summaries_name_the_customer(banking):
    rng = random.Random(6)
    customer = 0
    names = {c.name for c in view(banking.db).customers}
    for _ in range(200):
        tk = HC.ticket(banking, rng)
        if tk.type == "Customer request":
            customer += 1
            assert any(n in tk.summary for n in names), tk.summary
    assert customer > 60


def test_meeting_small_talk_varies(banking):
    """A domain's meetings (~65, ~25 small-talk lines each, four people in a room) do not repeat
    one another's small talk, and never write 'the the' around an agenda item."""
    from audits.lints import doubled_words
    from transforms.smalltalk import meeting_chatter, meeting_opener

    rng = random.Random(1)
    staff = sorted({p.split()[0] for p in banking.pack.brand.agents + banking.pack.brand.managers})
    d = Distinct()
    for _ in range(65):
        people = rng.sample(staff, 4)
        for k in range(25):
            slots = {"first": rng.choice(people[1:]), "other": rng.choice(people[1:]), "owner_first": people[0],
                     "wday": rng.choice(["Monday", "Tuesday", "Thursday"]), "topic": rng.choice(["queue", "rota",
                                                                                                "personal checking"]),
                     "time": rng.choice(["noon", "four", "half past three"]), "room": "the Maple room"}
            for line in ([meeting_opener(rng, slots)] if k == 0 else []) + meeting_chatter(rng, slots, 1):
                assert not doubled_words(line), line
                d.add(units(line, "vtt"))
    assert d.ratio >= 0.8, d.top(10)
    assert not d.over(20), d.over(20)


def test_a_tool_named_after_the_brand_keeps_its_capital_mid_sentence():
    """The tau2 airline import (text-only, seed 0) failed the lint gate: "Tau2 Airline Desk
    shows nothing for it" was put mid-sentence as "and tau2 Airline Desk shows nothing for it"
    (the brand lost its capital). A clause opening with a capitalised name keeps it."""
    assert HS._mid_sentence("Tau2 Airline Desk shows nothing for it.", "Tau2 Airline Desk") == \
        "Tau2 Airline Desk shows nothing for it."
    assert HS._mid_sentence("The CRM shows nothing for it.", "the CRM") == "the CRM shows nothing for it."
    assert HS._mid_sentence("It says Pending.", "Tau2 Airline Desk") == "it says Pending."


def test_products_with_two_word_names_are_not_customers():
    """The seed database's people view (ledgers, tickets and letters take their customers from
    it) holds people only: retail's catalog names ("Sawtooth Pellet Smoker") are neither
    customers nor the owners of records."""
    from transforms.trace import view as db_view

    ctx = _ctx("retail")
    products = {p["name"] for p in ctx.db["products"].values()}
    customers = {c["name"] for c in ctx.db["customers"].values()}
    people = {p.name for p in db_view(ctx.db, "people")}
    assert people == customers
    assert not people & products
    records = db_view(ctx.db, "records")
    assert records and not {r.owner for r in records} & products
    assert not {r.id for r in records} & {p["product_id"] for p in ctx.db["products"].values()}
