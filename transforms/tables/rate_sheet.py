"""Rate sheet (.xlsx): the controlled workbook a business keeps for its fees, rates and limits.
Sheets: Summary (document control), Changelog (revision history: superseded values and
rejected review comments, dated before the current release), Fees (money and percentages),
Limits (counts, durations, dates), Rules (facts without a number), Notes. Catalog cells
(a value per product and attribute) are not rows of their own: each catalog is one schedule
sheet, attributes down the side and products across (`transforms.catalog`), with footnotes.

One row per fact, grouped under a bold row naming its policy section: reference, item,
the case it applies to ("Applies to"), a typed value cell (money/percent/count with real
number formats), its unit or basis, the statement in words and the effective date. The words
column keeps the value recoverable whatever reader is used; the typed cell is what a
spreadsheet user filters and sums."""
from __future__ import annotations

import datetime as dt
import random
import re
from pathlib import Path

from facts.match import STOP_WORDS
from facts.models import SlotType
from transforms import catalog as K, clock as CK, common as C, headings, records as RC
from transforms.base import ExtractContext, Extraction, RenderContext, Transformer
from transforms.extract.text import extract_xlsx
from transforms.grammar import say
from transforms.plan import ArtifactSpec
from transforms.registry import register

from . import xlsx_cells as X


_FEES = {SlotType.money, SlotType.percent}
_LIMITS = {SlotType.count, SlotType.duration, SlotType.date}
# Changelog entries and workbook notes are worded from a grammar with this workbook's owner,
# approver, sections and service desk, so two workbooks of one business do not repeat each
# other.
_FILLER_CHANGES = ["{Initial release|First issue}{ by <owner_first>|}{ for <area>|}.",
                   "Added the 'Applies to' column{ for conditional values| to the <area> rows|}.",
                   "{Moved|Split} procedural rules {to|into} the Rules tab{ at <approver_first>'s request|}.",
                   "Corrected typos in item names{ in <area>|}.", "Re-ordered rows by section{ after the <area> review|}.",
                   "Added references to the policy register{ for <area>|}.",
                   "Split limits into their own tab{ for <area>|}.",
                   "{Annual|Yearly} review{ of <area>|}: no value changes."]
_NOTES = ["This workbook is maintained by <owner>{ and republished after each policy review| (<area>) and reissued "
          "whenever a value changes|}.",
          "{Do not edit values here|Values are locked}; raise a change request on the <short> service desk"
          "{ and copy <owner_first>|}.",
          "Where a row lists conditions under 'Applies to', the value applies only when {all of them hold|every one "
          "of them is met}{, for <area> as elsewhere|}.",
          "Refs (F-, L-, R-) {are stable|do not change} between versions; {quote them in tickets|use them when you "
          "cite a value{ to <approver_first>|}}.",
          "{Older versions are archived on the shared drive|Earlier issues of <doc> are kept on the shared "
          "drive}; the Changelog tab {summarises|lists} what changed{ since <since>|}.",
          "Questions about {this workbook|<area>}: <email>{, or <approver_first> when <owner_first> is away|}."]
_SUPPLIES = [("Printer paper A4, box of 5 reams", "Office Depot", "box", 38.90, 10),
             ("Toner cartridge, black", "Office Depot", "each", 64.50, 4),
             ("USB headset with noise cancelling", "TechSupply Co", "each", 41.95, 6),
             ("Hand sanitiser, 500 ml", "CleanPro", "bottle", 4.75, 20),
             ("Shipping envelopes, padded, pack of 50", "PackRight", "pack", 23.10, 5),
             ("Whiteboard markers, assorted, pack of 8", "Office Depot", "pack", 9.95, 6),
             ("Label roll, 62 mm", "PackRight", "roll", 12.40, 8),
             ("Coffee beans, 1 kg", "Bean There", "bag", 18.60, 4),
             ("Cable ties, pack of 100", "TechSupply Co", "pack", 6.30, 3),
             ("Receipt printer paper, 80 mm", "PackRight", "roll", 1.85, 40),
             ("Laptop stand, adjustable", "TechSupply Co", "each", 29.99, 2),
             ("First-aid kit refill", "CleanPro", "kit", 27.40, 2)]


def _category(fact) -> str:
    types = [s.type for s in fact.slots]
    if types and types[0] in _FEES:
        return "Fees"
    if types and types[0] in _LIMITS:
        return "Limits"
    return "Rules"


def _revisions(ctx: RenderContext, its: list, orphans: list, old_days: list[dt.date], day: dt.date, owner: str,
               approver: str, say_, rng: random.Random) -> tuple[list[tuple], list[str]]:
    """The workbook's revision history, in date order, and a version number for each row and
    for the current release after them: filler releases on `old_days`, superseded values,
    rejected review comments, open comments on values the release does not carry."""
    pack = ctx.pack
    history: list[tuple[dt.date, str, str, str, str]] = []  # (date, area, change, status, by)
    changes = [say_(t) for t in [_FILLER_CHANGES[0]] + rng.sample(_FILLER_CHANGES[1:], len(old_days) - 1)]
    for d0, change in zip(old_days, changes):
        history.append((d0, "All", change, "Released", owner))
    for it in its:
        for d in it.superseded:
            on = CK.earlier_day(d, day, rng, 5, 35)
            history.append((on, headings.section_topic(headings.section_of(it.fact)), C.hedged(ctx, it.fact, d, rng, on=on),
                            "Superseded", owner))
        for d in it.wrong:
            history.append((day - dt.timedelta(days=rng.randint(1, 6)), headings.section_topic(headings.section_of(it.fact)),
                            "Review comment: \u201c" + C.hedged(ctx, it.fact, d, rng, role="colleague") + "\u201d",
                            "Rejected", rng.choice(pack.brand.agents or [approver])))
    for fact, d in orphans:
        on = CK.earlier_day(d, day, rng, 1, 6)
        if d.role == "superseded":
            history.append((on, headings.section_topic(headings.section_of(fact)), C.hedged(ctx, fact, d, rng, on=on),
                            "Superseded", owner))
        else:
            history.append((on, headings.section_topic(headings.section_of(fact)), "Review comment: \u201c" +
                            C.hedged(ctx, fact, d, rng, role="colleague") + "\u201d",
                            "Open - not in this release", approver))
    history.sort(key=lambda h: (h[0], h[3] != "Released"))
    versions, major, minor = [], 1, 0
    for i, h in enumerate(history + [(day, "", "", "Current", "")]):
        if i and (h[3] != "Released" or rng.random() < 0.4):
            major, minor = (major + 1, 0) if h[3] == "Current" else (major, minor + 1)
        elif i:
            minor += 1
        versions.append(f"{major}.{minor}")
    return history, versions


@register
class RateSheet(Transformer):
    family = "tables"
    kind = "rate_sheet"
    ext = ".xlsx"
    modality = "xlsx"
    max_facts = 200
    voices = True  # a quoted fact's row quotes the approved wording; any other row is the workbook's own terse
    # wording (its schedules quote rows and columns either way)
    weight = 1.0
    description = "Controlled rate/fee/limit workbook (xlsx): typed value cells, changelog of superseded values."

    def render(self, spec: ArtifactSpec, ctx: RenderContext, out: Path) -> None:
        import openpyxl  # noqa: PLC0415  (heavy; loaded on first use)
        from openpyxl.comments import Comment  # noqa: PLC0415  (heavy; loaded on first use)
        from openpyxl.styles import Font  # noqa: PLC0415  (heavy; loaded on first use)

        rng = spec.rng("rate-sheet")
        w, pack = ctx.writer, ctx.pack
        its, orphans = C.items(spec, ctx)
        day = CK.spec_date(spec)
        owner = RC.staff(ctx, rng, "manager", 1)[0]
        approver = RC.staff(ctx, rng, "manager", 1, exclude=(owner,))[0]
        pre = RC.id_prefix(pack, "document", "policy", "case")

        # revision history: filler versions, superseded values, rejected review comments, current
        n_old = rng.randint(3, 5)
        old_days = sorted({day - dt.timedelta(days=rng.randint(40, 700)) for _ in range(n_old)})
        areas = sorted({headings.section_topic(headings.section_of(it.fact)) for it in its}) or ["office supplies"]
        slots = {"owner": owner, "owner_first": RC.first(owner), "approver_first": RC.first(approver), "doc": "this workbook",
                 "short": RC.brand_short(pack), "email": w.email(owner),
                 "since": f"{min(old_days):%B %Y}" if old_days else "last year"}

        def say_(template: str) -> str:
            return say(template, rng, {**slots, "area": rng.choice(areas)})

        history, versions = _revisions(ctx, its, orphans, old_days, day, owner, approver, say_, rng)
        current = versions[-1]
        codes = C.route_rows(spec, ctx)
        if spec.series:  # versions of one workbook: one document number, the later version higher
            srng = random.Random(f"series:{spec.series}")
            current = f"{srng.randint(1, 4) + (spec.version or 1)}.0"
        history.append((day, "All", say_("{Current release|This release|Release for sign-off|Current version}: "
                                         "{values confirmed and approved|figures checked and approved|values "
                                         "reviewed and signed off|all rows confirmed against the policy}.")
                        if its else "Prices checked against supplier catalogues.", "Current", approver))

        wb = openpyxl.Workbook()
        ws = wb.active
        ws.title = "Summary"
        if spec.title:  # a schedule named for its subject, not the policy section's title
            sub = " / ".join(headings.section_topic(t) for t in spec.title.split(" / "))
            title = rng.choice([f"{sub} schedule", f"{sub}: rates, fees and limits", f"{sub} price schedule",
                                f"Schedule of charges: {sub}"])
        else:
            title = "Rates, Fees & Limits" if its else "Supplies & Equipment Price List"
        doc_id = f"RC-{pre}-{day:%Y}-{rng.randint(1, 40):02d}"
        if spec.series:
            doc_id = f"RC-{pre}-{random.Random(f'series-id:{spec.series}').randint(1, 40):02d}"
        slots["doc"] = doc_id
        ws["A1"] = pack.brand.company
        ws["A1"].font = Font(bold=True, size=14)
        ws["A2"] = title
        ws["A2"].font = Font(bold=True, size=12, color=X.HEADER_FILL)
        grids, _loose = K.grids([(it.fact, C.shown_slot(it), bool(it.superseded)) for it in its
                                 if K.is_cell(it.fact) and (it.current or it.role == "stale")])
        in_grid = {c.fact.id for g in grids for c in g.cells.values()}
        cats = {"Fees": [], "Limits": [], "Rules": []}
        for it in sorted(its, key=lambda i: (i.fact.section, i.fact.source.start_line)):
            if it.fact.id not in in_grid:
                cats[_category(it.fact)].append(it)
        meta = [("Document", doc_id), ("Version", current), ("Effective date", dt.datetime(day.year, day.month, day.day)),
                ("Owner", f"{owner}, Operations"), ("Approved by", approver),
                ("Classification", "Internal - staff use"), ("Currency", pack.info.currency)]
        if its:
            meta.append(("Contents", "; ".join([f"{K.title(g.section)} schedule" for g in grids] +
                                               [f"{k}: {len(v)} items" for k, v in cats.items() if v]) +
                         "; Changelog; Notes"))
        for r, (k, v) in enumerate(meta, 4):
            ws.cell(row=r, column=1, value=k).font = Font(bold=True)
            cell = ws.cell(row=r, column=2, value=v)
            if isinstance(v, dt.datetime):
                cell.number_format = "yyyy-mm-dd"
        r = 4 + len(meta) + 1
        ws.cell(row=r, column=1, value=say_("{Values in this workbook|The values in <doc>} are the approved figures "
                                            "for the version above{, signed off by <approver_first>|}. Earlier values "
                                            "appear in the Changelog tab{ for audit only| and nowhere else|}."))
        X.fit_columns(ws, {1: 18, 2: 60})

        ch = wb.create_sheet("Changelog")
        X.table(ch, ["Date", "Version", "Area", "Change", "Status", "By"],
                [[dt.datetime(h[0].year, h[0].month, h[0].day), v, h[1], h[2], h[3], h[4]]
                 for h, v in zip(history, versions)],
                formats={(i, 0): "yyyy-mm-dd" for i in range(len(history))})
        X.fit_columns(ch, {4: 80})

        eff_pool = [d0 for d0 in old_days] + [day]
        stamp = f"{doc_id}, version {current}, effective {day.isoformat()}. Approved by {approver}."
        for g in grids:
            name = K.title(g.section, 31)
            X.grid_sheet(wb.create_sheet(name if name not in wb.sheetnames else name[:28] + " 2"), g,
                         f"{K.title(g.section)}: schedule by {g.dimension.lower()}", stamp)
        if any(cats.values()):
            self._fact_sheets(wb, ctx, rng, cats, day, eff_pool, owner, Comment)
        elif not its and not codes:
            self._price_list(wb, rng, pack.info.currency, [d.text for d in spec.distractors])
        if codes:
            sc = wb.create_sheet("Schedule codes")
            rows = [[c, label or "-", v] for c, label, v in codes]
            X.table(sc, ["Code", "Line", "Figure"], rows)
            X.fit_columns(sc, {2: 40})
        notes = wb.create_sheet("Notes")
        X.table(notes, ["#", "Note"], [[i + 1, say_(t)] for i, t in enumerate(_NOTES)], autofilter=False)
        X.fit_columns(notes, {2: 100})
        wb.properties.creator = owner
        wb.properties.lastModifiedBy = approver
        wb.properties.title = f"{pack.brand.company} - {title}"
        X.save_reproducible(wb, out, CK.at(pack, day, 9))

    def _fact_sheets(self, wb, ctx, rng: random.Random, cats, day, eff_pool, owner, Comment) -> None:
        """One sheet per category; its rows grouped under a bold row naming their policy section
        (as a controlled workbook groups them), not a section column repeated on every row."""
        from openpyxl.styles import Font  # noqa: PLC0415  (heavy; loaded on first use)

        w = ctx.writer
        for name, rows_its in cats.items():
            if not rows_its:
                continue
            ws = wb.create_sheet(name)
            letter = name[0]
            rows, formats, at, groups = [], {}, [], []
            section = None
            for i, it in enumerate(rows_its):
                f = it.fact
                sec = headings.section_topic(headings.section_of(f))
                if sec != section:
                    section = sec
                    groups.append(len(rows))
                    rows.append([sec])
                conds = [c for c in f.conditions if c.attribute != "attribute"]  # a cell's column is its item
                # the case it applies to, as the sheet's readers name it ("Summit", "Gold members");
                # the column's heading says what the names are
                # a long condition ("Accounts opened within 2025-09-15") can be the words of a
                # statement the file voices: said another way, or not at all
                applies = C.cell(ctx, it, "; ".join(headings.condition_values(f)), "See details") if conds else "All"
                # a current figure is in force from this release (an old sheet's figure, from one of
                # its own earlier releases), so no old sheet shows a later date than a newer one
                eff = day if it.distractors or it.role != "stale" else rng.choice(eff_pool)
                # canonical: the writer's statement; voiced: the writer's terse table label
                details = C.authoritative(ctx, it, rng, after_wrong=False, register="table")
                item = _named(w.topic(f)) if it.rendition == "canonical" else _terse(w.topic(f))
                item = C.cell(ctx, it, item[:1].upper() + item[1:], "\u2014") if item else "\u2014"
                if not w.label(f) and not any(c.attribute == "attribute" for c in f.conditions):
                    item = "\u2014"  # a rule with no name of its own: the section row above names it
                ref = f"{letter}-{i + 1:03d}"
                at.append(len(rows))
                if name == "Rules":
                    formats[(len(rows), 4)] = "yyyy-mm-dd"
                    rows.append([ref, item, applies, details, dt.datetime(eff.year, eff.month, eff.day)])
                    continue
                shown = C.shown_slot(it)
                value, fmt, unit = X.typed_value(shown, f.statement.replace(f.slots[0].text, shown.text, 1))
                if it.rendition == "voiced":  # the basis column must not quote the policy's words
                    unit = " ".join(unit.split()[:3])
                formats[(len(rows), 3)] = fmt
                formats[(len(rows), 6)] = "yyyy-mm-dd"
                rows.append([ref, item, applies, value, unit, details, dt.datetime(eff.year, eff.month, eff.day)])
            header = (["Ref", "Rule", "Applies to", "Details", "Effective from"] if name == "Rules" else
                      ["Ref", "Item", "Applies to", "Value", "Unit / basis", "Details", "Effective from"])
            X.table(ws, header, rows, formats=formats)
            for g in groups:
                ws.cell(row=g + 2, column=1).font = Font(bold=True)
            X.fit_columns(ws, {4 if name == "Rules" else 6: 70})
            for i, it in enumerate(rows_its):
                if rng.random() < 0.25:
                    ws.cell(row=at[i] + 2, column=2).comment = Comment(
                        f"Checked against policy register line {it.fact.source.start_line}.", owner)

    def _price_list(self, wb, rng: random.Random, currency: str, avoid: list[str]) -> None:
        """Office supplies; a price that equals a distractor's number is left out, so a stray
        wrong value never appears unhedged by coincidence."""
        ws = wb.create_sheet("Price list")
        numbers = {float(n.replace(",", "")) for t in avoid for n in re.findall(r"\d[\d,]*(?:\.\d+)?", t)}
        pool = [s for s in _SUPPLIES if s[3] not in numbers]
        items = rng.sample(pool, rng.randint(min(7, len(pool)), len(pool)))
        rows, formats = [], {}
        for i, (name, supplier, unit, price, reorder) in enumerate(items):
            rows.append([f"SUP-{100 + i:03d}", name, supplier, unit, price, reorder])
            formats[(i, 4)] = X.money_format(currency)
        X.table(ws, ["Code", "Item", "Supplier", "Unit", "Unit price", "Reorder at"], rows, formats=formats)
        X.fit_columns(ws)

    def extract(self, path: Path, ctx: ExtractContext) -> Extraction:
        return Extraction(text=extract_xlsx(path), extractor="xlsx-openpyxl")


# the words a label never ends on: the function words talk trims the same way (`spoken_topic`)
_DANGLING = STOP_WORDS | {"my"}


def _named(topic: str, n: int = 0) -> str:
    """A table's label from a fact's topic: its first `n` words (all when 0), never ending on
    a word that leads into the next ("Window begins on your" once stood before the row's own
    "The ..."; "From account opening to qualify your" ran into "The referred business"), the
    whole topic when nothing else is left; "" for a clause cut out of a sentence ("Once your
    available rewards", "After you use": no name for the row, its section row names it)."""
    if topic.split()[:1] and topic.split()[0].lower() in _DANGLING | {"once"}:
        return ""
    words = topic.split()[:n] if n else topic.split()
    while words and words[-1].lower() in _DANGLING:
        words.pop()
    return " ".join(words) if len(words) >= 2 or len(topic.split()) <= 1 else topic


def _terse(topic: str) -> str:
    """A table's short label: the topic's first four words (`_named`)."""
    return _named(topic, 4)
