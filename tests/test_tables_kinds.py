"""Round trips for the tables family (rate sheet .xlsx, case ledger .csv, ticket export .json):
valid file for its reader, every carried fact recoverable from the extraction next to its
anchors, distractors hedged and earlier, byte-identical re-renders (xlsx included: fixed
document properties and zip dates), other seeds differ, noise renders."""
from __future__ import annotations

import csv
import datetime as dt
import json
import re
import zipfile

import pytest

from transforms import registry
from transforms.base import ExtractContext
from transforms.plan import ArtifactSpec, Distractor, FactMention
from transforms.extract.text import format_number
from transforms.writers import HEDGE_MARKERS

from .kinds_util import located, make_spec

KINDS = ["tables/rate_sheet", "tables/case_ledger", "tables/ticket_export"]


def check_round_trip(kind, spec, render_ctx, tmp_path):
    t = registry.get(kind)
    out = tmp_path / f"a{t.ext}"
    t.render(spec, render_ctx, out)
    ex = t.extract(out, ExtractContext())
    for m in spec.facts:
        f = render_ctx.fact(m.fact_id)
        assert located(f, ex.text) >= 0, f"{kind}: {f.statement!r} not recoverable"
    low = ex.text.lower()
    for d in spec.distractors:
        lines = [ln for ln in low.splitlines() if re.search(re.escape(d.text.lower()) + r"(?![0-9])", ln)]
        assert lines and all(any(h in ln for h in HEDGE_MARKERS) for ln in lines), lines
        assert low.find(d.text.lower()) < located(render_ctx.fact(d.fact_id), ex.text)
    return out, ex


@pytest.mark.parametrize("kind", KINDS)
def test_round_trip_deterministic(kind, hand_facts, render_ctx, tmp_path):
    spec = make_spec(kind, hand_facts)
    out, _ = check_round_trip(kind, spec, render_ctx, tmp_path)
    t = registry.get(kind)
    again = tmp_path / f"b{t.ext}"
    t.render(spec, render_ctx, again)
    assert out.read_bytes() == again.read_bytes()
    other = tmp_path / f"c{t.ext}"
    t.render(spec.model_copy(update={"seed": 9}), render_ctx, other)
    assert other.read_bytes() != out.read_bytes()


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("seed", [2, 3])
def test_round_trip_voiced(kind, seed, hand_facts, render_ctx, tmp_path):
    check_round_trip(kind, make_spec(kind, hand_facts, seed=seed, renditions=("voiced",)), render_ctx, tmp_path)


@pytest.mark.parametrize("kind", KINDS)
def test_noise_renders(kind, hand_facts, render_ctx, tmp_path):
    t = registry.get(kind)
    out = tmp_path / f"n{t.ext}"
    t.render(make_spec(kind, hand_facts, noise=True), render_ctx, out)
    text = t.extract(out, ExtractContext()).text
    assert len(text.splitlines()) >= 10
    for f in hand_facts:
        assert f.statement.lower() not in text.lower()


def test_rate_sheet_workbook(hand_facts, render_ctx, tmp_path):
    import openpyxl
    import pandas as pd

    out, ex = check_round_trip("tables/rate_sheet", make_spec("tables/rate_sheet", hand_facts), render_ctx, tmp_path)
    wb = openpyxl.load_workbook(out)
    assert wb.sheetnames == ["Summary", "Changelog", "Fees", "Limits", "Notes"]
    fees = wb["Fees"]
    assert fees.freeze_panes == "A2" and fees["A1"].font.bold and fees["A1"].fill.fgColor.rgb.endswith("1F3864")
    values = {fees.cell(row=r, column=2).value: fees.cell(row=r, column=4) for r in range(2, fees.max_row + 1)
              if fees.cell(row=r, column=2).value}
    deposit = next(c for k, c in values.items() if "deposit" in k.lower())
    assert deposit.value == 50 and "$" in deposit.number_format
    discount = next(c for k, c in values.items() if "discount" in k.lower())
    assert discount.value == pytest.approx(0.2) and discount.number_format.endswith("%")
    assert "$50.00" in ex.text and "20%" in ex.text
    log = pd.read_excel(out, sheet_name="Changelog")
    assert list(log.columns) == ["Date", "Version", "Area", "Change", "Status", "By"]
    superseded = log[log["Status"] == "Superseded"]
    assert len(superseded) == 1 and superseded["Date"].iloc[0] == pd.Timestamp("2026-01-05")
    assert (log["Date"].diff().dropna() >= pd.Timedelta(0)).all()
    assert wb.properties.created == dt.datetime(2026, 2, 14, 9, 0)
    with zipfile.ZipFile(out) as z:
        assert {i.date_time for i in z.infolist()} == {(2026, 2, 14, 9, 0, 0)}
        assert b"2026-02-14T09:00:00Z" in z.read("docProps/core.xml")


def test_rate_sheet_groups_rows_under_their_section(hand_facts, render_ctx, tmp_path):
    """A section is a bold row over its rows, never a column beside each value: a row holds
    its item, case and figure ("Pass holder", 20%), the section's name is on the line above."""
    import openpyxl

    out, ex = check_round_trip("tables/rate_sheet", make_spec("tables/rate_sheet", hand_facts), render_ctx, tmp_path)
    text = ex.text
    wb = openpyxl.load_workbook(out)
    fees = wb["Fees"]
    assert [c.value for c in fees[1]] == ["Ref", "Item", "Applies to", "Value", "Unit / basis", "Details",
                                          "Effective from"]
    groups = [r for r in range(2, fees.max_row + 1) if fees.cell(row=r, column=2).value is None]
    assert [fees.cell(row=r, column=1).value for r in groups] == ["Late returns", "Rentals"]
    assert all(fees.cell(row=r, column=1).font.bold for r in groups)
    rows = [[c.value for c in fees[r]] for r in range(2, fees.max_row + 1) if r not in groups]
    assert not any(str(v) in ("Rentals", "Late returns") for row in rows for v in row)
    discount = next(row for row in rows if row[3] == pytest.approx(0.2))
    assert discount[2] == "Pass holder"  # the case, without the condition's attribute name
    lines = text.splitlines()
    assert lines[lines.index("Late returns") + 1].startswith("F-001 | ")
    # a rule without a name of its own is not named by its section again on its row
    limits = wb["Limits"]
    items = [limits.cell(row=r, column=2).value for r in range(2, limits.max_row + 1)]
    assert "Rentals" not in items and "Late returns" not in items and "Refunds" not in items


def test_rate_sheet_many_facts(hand_facts, render_ctx, tmp_path):
    """Tables carry many facts: 60 variants of the hand facts (distinct ids and values)."""
    from transforms.base import RenderContext

    many = []
    for i in range(60):
        f = hand_facts[i % len(hand_facts)].model_copy(deep=True)
        f.id = f"{f.id}-{i}"
        slot = f.slots[0]
        new = slot.value + i + 1
        text = slot.text.replace(str(slot.value), str(new))
        f.statement = f.statement.replace(slot.text, text)
        f.slots = [slot.model_copy(update={"value": new, "text": text})]
        many.append(f)
    ctx = RenderContext(pack=render_ctx.pack, facts={f.id: f for f in many}, writer=render_ctx.writer, db=render_ctx.db)
    spec = ArtifactSpec(id="rs-many", kind="tables/rate_sheet", path="x.xlsx", seed=5, date="2026-02-14",
                        facts=[FactMention(fact_id=f.id) for f in many])
    t = registry.get("tables/rate_sheet")
    t.render(spec, ctx, tmp_path / "m.xlsx")
    text = t.extract(tmp_path / "m.xlsx", ExtractContext()).text
    assert all(located(f, text) >= 0 for f in many)


def test_case_ledger_csv(hand_facts, render_ctx, tmp_path):
    out, ex = check_round_trip("tables/case_ledger", make_spec("tables/case_ledger", hand_facts), render_ctx, tmp_path)
    with open(out, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert list(rows[0]) == ["case_id", "opened_at", "closed_at", "customer", "customer_id", "category", "channel",
                             "status", "amount", "currency", "resolution_note", "policy_ref", "agent"]
    assert len(rows) >= 20 and len({r["case_id"] for r in rows}) == len(rows)
    opened = [r["opened_at"] for r in rows]
    assert opened == sorted(opened)
    assert all(r["closed_at"] >= r["opened_at"] for r in rows if r["closed_at"])
    fact_rows = [r for r in rows if r["policy_ref"] and r["status"] == "Resolved"]
    assert len(fact_rows) == len(hand_facts)
    # filed under the desk's own categories, never under the policy's section titles
    assert {r["category"] for r in fact_rows} <= {"Charges", "Account change", "Service request", "General"}
    assert {r["category"] for r in fact_rows if r["amount"]} == {"Charges"}
    assert {r["amount"] for r in fact_rows} >= {"50.00", "12.00"}
    assert {r["customer_id"] for r in rows} <= set(render_ctx.db["customers"])
    assert len(ex.text.splitlines()) == len(rows) + 1


def test_ticket_export_json(hand_facts, render_ctx, tmp_path):
    out, _ = check_round_trip("tables/ticket_export", make_spec("tables/ticket_export", hand_facts), render_ctx, tmp_path)
    data = json.loads(out.read_text(encoding="utf-8"))
    tickets = data["tickets"]
    assert data["total"] == len(tickets) >= 6
    keys = [int(t["key"].split("-")[1]) for t in tickets]
    assert keys == sorted(keys) and all(t["key"].startswith(data["project"]["key"] + "-") for t in tickets)
    policy = [t for t in tickets if t["type"] == "Policy clarification"]
    assert policy and all(t["status"] == "Resolved" for t in policy)
    for t in tickets:
        stamps = [t["created"]] + [c["created"] for c in t["comments"]]
        assert stamps == sorted(stamps)
    with_wrong = next(t for t in policy if any("$40" in c["body"] for c in t["comments"]))
    bodies = [c["body"] for c in with_wrong["comments"]]
    from facts.values import slot_matches
    deposit = hand_facts[1].slots[0]  # $50, in any surface form the writer chose
    assert next(i for i, b in enumerate(bodies) if "$40" in b) < next(i for i, b in enumerate(bodies)
                                                                       if slot_matches(deposit, b) is not None)


def test_ticket_case_answers_the_customers_question(hand_facts, render_ctx, tmp_path):
    """A rule applied to a customer's record is a request whose description quotes what they
    asked and whose comment answers it for their record; question and answer together give the
    fact, and the answer usually leaves the subject to the question ("It's $50.")."""
    t = registry.get("tables/ticket_export")
    short = 0
    for seed in range(1, 5):
        spec = ArtifactSpec(id="tk-case", kind="tables/ticket_export", path="x.json", seed=seed, date="2026-02-14",
                            facts=[FactMention(fact_id=f.id, role="case", rendition="canonical") for f in hand_facts])
        out = tmp_path / f"c{seed}.json"
        t.render(spec, render_ctx, out)
        requests = [tk for tk in json.loads(out.read_text(encoding="utf-8"))["tickets"]
                    if tk["type"] == "Customer request" and 'Asked: "' in tk["description"]]
        assert len(requests) == len(hand_facts)
        for tk in requests:
            body = tk["comments"][0]["body"]
            found = [f for f in hand_facts if located(f, tk["description"] + "\n" + body) >= 0]
            assert found, tk
            short += any(located(f, body) < 0 for f in found)  # the answer alone does not name the rule
    assert short


@pytest.mark.parametrize("value,fmt,shown", [
    (75, '"$"#,##0.00', "$75.00"), (1234.5, '"$"#,##0.00', "$1,234.50"), (0.2, "0%", "20%"),
    (0.125, "0.0#%", "12.5%"), (0.1234, "0.0##%", "12.34%"), (0.12, "0.0#%", "12.0%"), (12, "General", "12"), (12.5, "General", "12.5"), (1500, "#,##0", "1,500"),
    (9.5, '"€"#,##0.00', "€9.50"), (40, '#,##0.00 "CHF"', "40.00 CHF"), (-3, '"£"#,##0.00', "-£3.00")])
def test_format_number(value, fmt, shown):
    assert format_number(value, fmt) == shown


@pytest.mark.parametrize("kind", KINDS)
def test_noise_keeps_stray_distractors_hedged(kind, hand_facts, render_ctx, tmp_path):
    t = registry.get(kind)
    for seed in range(4):
        spec = ArtifactSpec(id=f"n-{seed}", kind=kind, path="x", seed=seed, date="2026-02-14", noise=True,
                            distractors=[Distractor(fact_id=hand_facts[1].id, slot="deposit", text="$41.95",
                                                    role="distractor")])
        out = tmp_path / f"s{t.ext}"
        t.render(spec, render_ctx, out)
        lines = [ln for ln in t.extract(out, ExtractContext()).text.lower().splitlines() if "$41.95" in ln]
        assert lines and all(any(h in ln for h in HEDGE_MARKERS) for ln in lines), (kind, seed)


def test_ticket_lead_does_not_run_into_the_answer_as_the_policy():
    """A ticket's resolution lead ends in ":" and a reader runs it into the answer under it: a
    lead naming the topic is drawn again (else a lead without the topic is used) when, with the
    answer's first words, it makes a run of the policy statement the answer alone avoids
    (banking, text+image+audio: "Ruling from Margaret on business credit card:" over "The
    business owner ..." failed the lint gate)."""
    from types import SimpleNamespace

    from facts.runs import ngrams
    from transforms.tables.ticket_export import _RESOLVE_LEAD, _lead

    fact = SimpleNamespace(statement="For a business credit card, the business owner must sign a personal guarantee.")
    answer = "The business owner must personally guarantee it."
    bad = "Ruling from Margaret on business credit card:"
    assert not ngrams(answer) & ngrams(fact.statement) and ngrams(f"{bad}\n{answer}") & ngrams(fact.statement)
    calls = []

    def line(pool, reporter, f):
        calls.append(pool)
        return "Confirmed with the policy team this morning:" if pool == _RESOLVE_LEAD[2:] else bad

    got = _lead(bad, line, "Ana", fact, answer)
    assert got == "Confirmed with the policy team this morning:" and len(calls) == 7
    assert _lead("Answer from Margaret:", line, "Ana", fact, answer) == "Answer from Margaret:"
    quoted = "For a business credit card, the business owner must sign a personal guarantee."
    assert _lead(bad, line, "Ana", fact, quoted) == bad  # a canonical answer quotes the policy anyway
