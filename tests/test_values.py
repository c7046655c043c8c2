"""Typed value parsing (policy side) and normalisation (evidence side), and their agreement
with facts.surface.surface_forms."""
from __future__ import annotations

import pytest

from facts.models import Slot, SlotType
from facts.surface import surface_forms
from facts.values import clean_inline, find_values, normalise, parse_slots, slot_matches


def _one(text: str, currency: str = "USD") -> tuple:
    vals = find_values(text, currency)
    assert len(vals) == 1, (text, vals)
    return tuple(vals[0][:4])


@pytest.mark.parametrize("text,expected", [
    ("$75", (SlotType.money, 75, None, "USD")),
    ("$1,250.00", (SlotType.money, 1250, None, "USD")),
    ("USD 20", (SlotType.money, 20, None, "USD")),
    ("75 dollars", (SlotType.money, 75, None, "USD")),
    ("seventy-five dollars", (SlotType.money, 75, None, "USD")),
    ("seventy five dollars", (SlotType.money, 75, None, "USD")),
    ("$75.00", (SlotType.money, 75, None, "USD")),
    ("€10", (SlotType.money, 10, None, "EUR")),
    ("$1.50", (SlotType.money, 1.5, None, "USD")),
    ("24 hours", (SlotType.duration, 24, None, "hour")),
    ("twenty four hours", (SlotType.duration, 24, None, "hour")),
    ("24 hrs", (SlotType.duration, 24, None, "hour")),
    ("one day", (SlotType.duration, 1, None, "day")),
    ("5 business days", (SlotType.duration, 5, None, "business_day")),
    ("5 to 7 business days", (SlotType.duration, 5, 7, "business_day")),
    ("within 2 weeks", (SlotType.duration, 2, None, "week")),
    ("30 minutes", (SlotType.duration, 30, None, "minute")),
    ("a 14-day tenure", (SlotType.duration, 14, None, "day")),
    ("20%", (SlotType.percent, 20, None, "%")),
    ("twenty percent", (SlotType.percent, 20, None, "%")),
    ("1.5%", (SlotType.percent, 1.5, None, "%")),
    ("2024-05-15", (SlotType.date, "2024-05-15", None, None)),
    ("May 15, 2024", (SlotType.date, "2024-05-15", None, None)),
    ("15 May 2024", (SlotType.date, "2024-05-15", None, None)),
    ("SKY-1234", (SlotType.identifier, "sky-1234", None, None)),
    ("#W2378156", (SlotType.identifier, "#w2378156", None, None)),
    ("two", (SlotType.count, 2, None, None)),
    ("one hundred and twenty", (SlotType.count, 120, None, None)),
    ("2 to 4", (SlotType.count, 2, 4, None)),
    # speech-recognition output
    ("twelve dollars and fifty cents", (SlotType.money, 12.5, None, "USD")),
    ("one point five percent", (SlotType.percent, 1.5, None, "%")),
    ("five to seven business days", (SlotType.duration, 5, 7, "business_day")),
])
def test_find_values_normalises(text, expected):
    assert _one(text) == expected


def test_find_values_skips_times_and_glued_numbers():
    assert find_values("between 6 AM - 10 PM or at 15:00:00") == []
    assert find_values("the 2nd time, card_last") == []
    assert [v[0] for v in find_values("Use open_bank_account_4821 now")] == [SlotType.identifier]
    # the year inside a date is not a separate count
    assert [v[0] for v in find_values("on May 15, 2024.")] == [SlotType.date]


def test_find_values_spans_point_at_the_text():
    text = "Fee: $12, then 24 hours later 20% off."
    spans = [text[a:b] for *_, a, b in find_values(text)]
    assert spans == ["$12", "24 hours", "20%"]


def test_currency_follows_the_pack():
    assert _one("$75", "CAD") == (SlotType.money, 75, None, "CAD")
    assert _one("75 dollars", "CAD") == (SlotType.money, 75, None, "CAD")
    assert _one("75 dollars", "EUR") == (SlotType.money, 75, None, "USD")


def _slots(text: str) -> list[tuple]:
    return [(s.type, s.text, s.value, s.value_max, s.unit, s.qualifier) for s in parse_slots(text)]


def test_parse_slots_money_duration_percent():
    assert _slots("The late fee is $12 for each started hour.") == [(SlotType.money, "$12", 12, None, "USD", None)]
    assert _slots("Refunds go back within 5 to 7 business days.") == [
        (SlotType.duration, "5 to 7 business days", 5, 7, "business_day", None)]
    assert _slots("Pass holders get a 20% discount.") == [(SlotType.percent, "20%", 20, None, "%", None)]
    assert _slots("Each extra baggage is 50 dollars.") == [(SlotType.money, "50 dollars", 50, None, "USD", None)]


def test_parse_slots_counts_need_a_noun_or_qualifier():
    assert _slots("2 free checked bags for each business passenger") == [(SlotType.count, "2", 2, None, None, None)]
    assert _slots("Each reservation can have at most five passengers.") == [
        (SlotType.count, "five", 5, None, None, "at_most")]
    assert _slots("You may carry up to 5 items.") == [(SlotType.count, "5", 5, None, None, "up_to")]
    assert _slots("There are three types of payment methods.") == [(SlotType.count, "three", 3, None, None, None)]
    # list markers, section numbers, bare numbers are not counts
    assert _slots("1. Verify the customer.") == []
    assert _slots("See section 4.2 and step 3 for details.") == []
    assert _slots("Trips are one way or round trip.") == []


def test_parse_slots_names_from_nearest_noun():
    names = [s.name for s in parse_slots("The security deposit is $50 and 2 free checked bags are included.")]
    assert names == ["deposit", "bags"]
    names = [s.name for s in parse_slots("Fee is $5, another fee is $6.")]
    assert names == ["fee", "fee_2"]


def test_parse_slots_age_keeps_number_only():
    (s,) = parse_slots("A customer must be at least 16 years old to rent a bike.")
    assert (s.type, s.text, s.value, s.qualifier, s.name) == (SlotType.count, "16", 16, "at_least", "age")


def test_parse_slots_dates_identifiers_enums():
    slots = parse_slots("Since 2024-05-15, use code SKY-1234 for **gold** members; status 'pending' only.")
    assert [(s.type, s.value) for s in slots] == [
        (SlotType.date, "2024-05-15"), (SlotType.identifier, "sky-1234"), (SlotType.enum, "gold"),
        (SlotType.enum, "pending")]
    # bold labels and whole-sentence emphasis are not values
    assert parse_slots("**Security Hold**: call the team.") == []
    assert parse_slots("**Always call the team first**") == []


def test_slot_texts_are_substrings_of_the_cleaned_text():
    raw = "Members on **gold** get `3` free bags, see [terms](http://x.example)."
    clean, bold = clean_inline(raw)
    assert clean == "Members on gold get 3 free bags, see terms."
    for s in parse_slots(raw):
        assert s.text in clean


SENTENCES = [
    "The fee is $75.", "A refund takes 5 to 7 business days.", "Wait 24 hours.", "Allow one day.",
    "It costs €10.", "Get 20% back.", "Up to 2 to 4 passengers.", "Pay 75 dollars.", "Keep $1,250.00 on hand.",
    "Earn 1.5% cash back.", "Within 2 weeks.", "At most five passengers.", "A 30 minutes hold.",
    "Maintain $250,000.", "Rebate of $0.0125 per point.", "The cap is $1.5 million.", "2 free checked bags.",
    "Balance after 90 days.", "Hold for 3 calendar days.", "Allow 12 months.",
]


@pytest.mark.parametrize("currency", ["USD", "EUR", "GBP", "CAD"])
def test_surface_forms_normalise_back_to_the_slot(currency):
    checked = 0
    for sentence in SENTENCES:
        for slot in parse_slots(sentence, currency):
            key = (slot.type, slot.value, slot.value_max, slot.unit)
            for form in surface_forms(slot):
                got = normalise(form, slot.unit if slot.type == SlotType.money else currency)
                assert got is not None, (slot, form)
                assert (got[0], float(got[1]), got[2], got[3]) == (key[0], float(key[1]), key[2], key[3]), (slot, form)
                assert slot_matches(slot, f"so {form}, right") is not None, (slot, form)
                checked += 1
    assert checked > 50


def test_slot_matches_is_type_aware():
    two = Slot(name="bags", type=SlotType.count, text="2", value=2)
    assert slot_matches(two, "you get two bags") == (8, 11)
    assert slot_matches(two, "you get 2 bags") == (8, 9)
    assert slot_matches(two, "it costs $2") is None
    assert slot_matches(two, "within 2 days") is None
    fee = Slot(name="fee", type=SlotType.money, text="$75", value=75, unit="USD")
    assert slot_matches(fee, "seventy five dollars") is not None
    assert slot_matches(fee, "€75") is None
    assert slot_matches(fee, "75 bags") is None


def test_slot_matches_duration_hour_day_conversion_only_when_exact():
    day = Slot(name="d", type=SlotType.duration, text="24 hours", value=24, unit="hour")
    assert slot_matches(day, "within one day") is not None
    assert slot_matches(day, "within 1 day") is not None
    assert slot_matches(day, "within 2 days") is None
    one_day = Slot(name="d", type=SlotType.duration, text="1 day", value=1, unit="day")
    assert slot_matches(one_day, "24 hrs") is not None
    assert slot_matches(one_day, "25 hours") is None
    assert slot_matches(one_day, "1 business day") is None
    rng = Slot(name="d", type=SlotType.duration, text="5 to 7 business days", value=5, value_max=7,
               unit="business_day")
    assert slot_matches(rng, "five to seven business days") is not None
    assert slot_matches(rng, "5 business days") is None


def test_slot_matches_enums_and_identifiers_ignore_case_and_separators():
    gold = Slot(name="tier", type=SlotType.enum, text="gold", value="gold")
    assert slot_matches(gold, "GOLD members") == (0, 4)
    assert slot_matches(gold, "goldfish") is None
    tool = Slot(name="id", type=SlotType.identifier, text="open_bank_account_4821", value="open_bank_account_4821")
    assert slot_matches(tool, "call Open Bank Account 4821 now") is not None


def test_large_text_is_scanned_in_one_pass():
    text = "The fee is $75 and refunds take 5 to 7 business days; gold gets 3 free bags. " * 5000
    vals = find_values(text)
    assert len(vals) == 3 * 5000
    assert {v[0] for v in vals} == {SlotType.money, SlotType.duration, SlotType.count}
