"""documents/memo: an internal memo / kickoff document (.docx, python-docx).

Letterhead header, MEMORANDUM title, TO/FROM/CC/DATE/RE block, purpose, background (where
earlier values and rumours are named as such), numbered decisions (the facts), an action
items table, next steps and a sign-off; footer with a confidentiality line and page field.
Core properties and zip entry timestamps are fixed so two renders are byte-identical.
"""
from __future__ import annotations

import datetime as dt
import io
import random
import zipfile
from pathlib import Path

from facts.hashing import sha256_hex
from facts.match import matches
from transforms.clock import fmt_date, spec_date
from transforms.common import Content, check_capacity, doc_number, initials, plan_content, shown_slot, shown_title
from transforms.headings import names_subject, section_topic, topic_of

from .. import catalog as K
from ..base import ExtractContext, Extraction, RenderContext, Transformer
from ..extract.docx import docx_text
from ..grammar import say
from ..plan import ArtifactSpec
from ..reading import read
from ..registry import register


_TEAMS = ["Customer Support team", "Front-line team leads", "Operations and Support staff", "All service staff",
          "Contact centre team", "Store and support managers", "Chat and email teams", "Phone team leads",
          "Quality and training team", "Complaints team", "Back-office operations team"]
_TITLES = ["Head of Customer Operations", "Service Policy Lead", "Operations Manager", "Director, Customer Experience",
           "Contact Centre Manager", "Quality Lead"]
# Memo wording is a grammar over the memo's own topics, products, meeting, sender and teams
# (`say`), so one domain's memos read as written by different people about different things.
_PURPOSE = ["This memo {records|sets out|confirms} the decisions from the <topic_l> review {held on|of} <meeting>{ and "
            "what each team needs to do next| and who does what next| for <to_l>|}.",
            "Following the {kickoff|working} meeting on <meeting>, this memo confirms how we {will handle|handle} "
            "<topic_l> {from now on|from <date>|across <to_l>}.",
            "The purpose of this memo is to confirm the agreed rules for <topic_l>{, so that everyone gives customers "
            "the same answer| for <to_l>| after the <meeting> review|}.",
            "We met on <meeting> to settle open questions on <topic_l>{ raised by <to_l>| from <cc_first>'s queue|}; "
            "the outcomes are {below|listed under Decisions}.",
            "{After|Following} {several|a run of} questions {from <to_l>|from the floor|in coaching} about <topic_l>, "
            "this memo {puts the agreed answers in one place|is the written reference}."]
_BACKGROUND = ["{Over the last quarter|Since <month>|In the last few weeks} we saw {inconsistent|different} answers "
               "{across channels|between chat and phone|from one shift to the next} on <topic_l>{, and {several|a "
               "handful of} complaints traced back to {outdated guidance|an old macro|a printed guide}|}.",
               "{Team leads|<cc_first> and the other team leads|Quality reviewers} asked for one written reference on "
               "<topic_l> after {questions came up in coaching sessions|the <month> calibration session|a run of "
               "escalations}.",
               "The review {looked at|went through} {recent tickets|<month>'s tickets|a sample of calls}, the customer "
               "terms{ for <topic_l>|} and feedback from {the floor|<to_l>|the complaints team}.",
               "{Several teams|Some of <to_l>} were still working from {printed guides|old macros|notes} on <topic_l> "
               "that predate the {last policy update|<month> update|current terms}."]
_ACTIONS = ["Update the help-centre article on <topic_l>", "Brief <to_l> on <topic_l> at the next stand-up",
            "Check the system configuration for <topic_l>", "Refresh the call scripts covering <topic_l>",
            "Add <topic_l> to the QA checklist", "Retire the old printed guide on <topic_l>",
            "Update the chat macros for <topic_l>", "Check last month's <topic_l> cases against these decisions",
            "Share this memo at the <wday> huddle", "Confirm the <p> pages on the website match"]
_DECIDE = ["The following was agreed{ on <meeting>|} and applies {with immediate effect|from <date>|to all channels}:",
           "{Effective today|From <date>|As of <date>}, the rules{ for <topic_l>|} are:",
           "We agreed the following{ on <meeting>| for <topic_l>|}:", "{Decisions|Agreed points}{ for <topic_l>|}, "
           "{in force from <date>|effective immediately}:"]
_NEXT = ["{Please|Team leads, please} {go through|read|walk through} {these decisions|the decisions above|this memo} with "
         "{your team|<to_l>} {this week|before <due>|at the <wday> huddle}{; questions go to <sender_first>|, and send "
         "questions to <sender_first>|}.",
         "We will review how {this|the <topic_l> change} is working at {the next monthly operations meeting|the "
         "<month> review|the <wday> leads' meeting}{, <sender_first> chairing|}.",
         "Reply to {this memo|<sender_first>} if anything above conflicts with a process {you use today|<to_l> "
         "follow|in your area}{, by <due>|}.",
         "{<cc_first> will|I will} {check in with|follow up with} {each team lead|<to_l>} {by <due>|next week} on "
         "<topic_l>."]
_NOISE = [("Office move: schedule and logistics",
           ["The move to the new floor happens over one weekend; desks will be packed on Friday afternoon.",
            "Each team lead collects crates from facilities on the Wednesday before the move.",
            "Personal items should be taken home or packed in the labelled crates."]),
          ("Kickoff: service dashboard refresh",
           ["The dashboard refresh project starts this month, led by the operations analytics group.",
            "Team leads will review the draft layout before it is shared more widely.",
            "Weekly check-ins replace the ad-hoc status emails for the duration of the project."])]


@register
class Memo(Transformer):
    family = "documents"
    kind = "memo"
    ext = ".docx"
    modality = "docx"
    max_facts = 12
    weight = 1.0
    description = "Internal memo / kickoff document (.docx): header block, decisions, action items, sign-off."

    def render(self, spec: ArtifactSpec, ctx: RenderContext, out: Path) -> None:
        check_capacity(spec, self.max_facts)
        rng = spec.rng("memo")
        content = plan_content(spec, ctx, rng, role="colleague", register="memo")
        out.write_bytes(_fixed_zip(_document(spec, ctx, content, rng), spec_date(spec)))

    def extract(self, path: Path, ctx: ExtractContext) -> Extraction:
        return Extraction(text=docx_text(path), extractor="docx-python-docx")


def _rule(paragraph) -> None:
    """A bottom border under a paragraph (the line under the memo header block)."""
    from docx.oxml import OxmlElement  # noqa: PLC0415  (heavy; loaded on first use)
    from docx.oxml.ns import qn  # noqa: PLC0415  (heavy; loaded on first use)

    ppr = paragraph._p.get_or_add_pPr()
    bdr = OxmlElement("w:pBdr")
    bottom = OxmlElement("w:bottom")
    for k, v in (("w:val", "single"), ("w:sz", "8"), ("w:space", "4"), ("w:color", "1F4E79")):
        bottom.set(qn(k), v)
    bdr.append(bottom)
    ppr.append(bdr)


def _page_field(paragraph) -> None:
    from docx.oxml import OxmlElement  # noqa: PLC0415  (heavy; loaded on first use)
    from docx.oxml.ns import qn  # noqa: PLC0415  (heavy; loaded on first use)

    fld = OxmlElement("w:fldSimple")
    fld.set(qn("w:instr"), "PAGE")
    r = OxmlElement("w:r")
    t = OxmlElement("w:t")
    t.text = "1"
    r.append(t)
    fld.append(r)
    paragraph._p.append(fld)


def _letterhead(d, company: str, ref: str):
    """The Normal style, the header (company, "Internal memorandum", reference) and the footer
    (confidentiality line, page number); the accent colour."""
    from docx.enum.text import WD_ALIGN_PARAGRAPH  # noqa: PLC0415  (python-docx loads when a memo is made)
    from docx.shared import Pt, RGBColor  # noqa: PLC0415  (python-docx loads when a memo is made)

    normal = d.styles["Normal"]
    normal.font.name = "Calibri"
    normal.font.size = Pt(11)
    accent = RGBColor(0x1F, 0x4E, 0x79)
    section = d.sections[0]
    hp = section.header.paragraphs[0]
    run = hp.add_run(company)
    run.bold = True
    run.font.color.rgb = accent
    hp.add_run(f"\tInternal memorandum\t{ref}").font.size = Pt(9)
    fp = section.footer.paragraphs[0]
    fp.add_run(f"{company} - confidential, internal use only. Page ").font.size = Pt(8)
    _page_field(fp)
    fp.alignment = WD_ALIGN_PARAGRAPH.CENTER
    return accent


def _approved_tables(d, tabled: list) -> None:
    """The decided catalog figures as tables, products across, a figure in its cell."""
    for g, caption, block in _tables(tabled):
        d.add_paragraph(f"{K.title(g.section)} ({caption.lower()})")
        t = d.add_table(rows=1, cols=1 + len(block.products))
        t.style = "Light Grid Accent 1"
        for cell, h in zip(t.rows[0].cells, [g.dimension, *block.products]):
            cell.paragraphs[0].add_run(h).bold = True
        for a in block.attributes:
            cells = t.add_row().cells
            cells[0].text = a
            for j, pr in enumerate(block.products, 1):
                c = block.cell(a, pr)
                cells[j].text = c.slot.text if c else ""


def _action_items(d, ctx: RenderContext, secs: list[str], slots: dict, date: dt.date, rng: random.Random) -> None:
    """The action items table: number, action, owner, due date."""
    w = ctx.writer
    tbl = d.add_table(rows=1, cols=4)
    tbl.style = "Light Grid Accent 1"
    for cell, h in zip(tbl.rows[0].cells, ("#", "Action", "Owner", "Due")):
        cell.paragraphs[0].add_run(h).bold = True
    topics = list(dict.fromkeys(ctx.writer.lower_first(section_topic(s)) for s in secs)) or \
        ["the new process", "the schedule", "the checklist"]
    actions = rng.sample(_ACTIONS, min(len(_ACTIONS), max(2, min(5, len(topics) + 1))))
    for i, a in enumerate(actions, 1):
        cells = tbl.add_row().cells
        due = date + dt.timedelta(days=rng.randint(3, 21))
        cells[0].text = str(i)
        cells[1].text = say(a, rng, {**slots, "topic_l": topics[(i - 1) % len(topics)]})
        cells[2].text = w.person(rng, "agent")
        cells[3].text = fmt_date(due, "short")


def _properties(d, sender: str, re_line: str, date: dt.date, rng: random.Random) -> None:
    """Fixed document properties, so the same memo gives the same bytes."""
    cp = d.core_properties
    fixed = dt.datetime(date.year, date.month, date.day, 9, 0, 0)
    cp.author = sender
    cp.last_modified_by = sender
    cp.title = re_line
    cp.subject = "Internal memorandum"
    cp.comments = ""
    cp.keywords = ""
    cp.category = "Memo"
    cp.created = fixed
    cp.modified = fixed
    cp.last_printed = fixed
    cp.revision = 1 + rng.randint(0, 4)


def _document(spec: ArtifactSpec, ctx: RenderContext, content: Content, rng: random.Random) -> bytes:
    import docx  # noqa: PLC0415  (heavy; loaded on first use)
    from docx.shared import Pt  # noqa: PLC0415  (heavy; loaded on first use)

    brand, w = ctx.pack.brand, ctx.writer
    date = spec_date(spec)
    items = content.items
    # named in prose: noun-phrase headings, never "General" ("Add general to the QA checklist")
    secs = list(dict.fromkeys(t for it in items if names_subject(t := topic_of(it.fact))))
    sender = w.person(rng, "manager")
    sender_title = _TITLES[int(sha256_hex(f"{ctx.pack.name}:{sender}")[:8], 16) % len(_TITLES)]  # one title a person
    cc = w.person(rng, "agent")
    meeting = date - dt.timedelta(days=rng.randint(1, 6))
    if spec.noise:
        re_line, noise_paras = rng.choice(_NOISE)
        sec_l = re_line.lower()
    else:
        sec_l = " and ".join(ctx.writer.lower_first(section_topic(s)) for s in secs[:2]) or "policy"
        re_line = shown_title(ctx, spec, items, "") or w.subject([it.fact for it in items], rng)
    to = rng.choice(_TEAMS)
    rows = list(dict.fromkeys(r.cell["row"] for it in items if (r := read(it.fact)).cell))
    to_l = to.lower() if to.startswith("All") else "the " + to.lower()
    slots = {"topic_l": sec_l, "meeting": fmt_date(meeting, "short"), "date": fmt_date(date, "short"),
             "month": (date - dt.timedelta(days=rng.randint(20, 80))).strftime("%B"), "to_l": to_l,
             "cc_first": cc.split()[0], "sender_first": sender.split()[0],
             "wday": rng.choice(["Monday", "Tuesday", "Wednesday", "Thursday"]),
             "due": fmt_date(date + dt.timedelta(days=rng.randint(5, 14)), "short"),
             "p": rows[0] if rows else w.lower_first(section_topic(secs[0])) if secs else "policy"}
    ref = doc_number(ctx, rng, "MEMO")

    d = docx.Document()
    accent = _letterhead(d, brand.company, ref)

    t = d.add_paragraph()
    r = t.add_run("MEMORANDUM")
    r.bold = True
    r.font.size = Pt(22)
    r.font.color.rgb = accent

    # the header block as a typed memo sets it: one tab-aligned line a field
    head = [("TO:", to), ("FROM:", f"{sender}, {sender_title} ({w.email(sender)})"), ("CC:", cc),
            ("DATE:", fmt_date(date)), ("RE:", re_line)]
    if spec.series:
        head.append(("VERSION:", f"{spec.version or 1} (replaces earlier versions)" if (spec.version or 1) > 1 else "1"))
    if not spec.noise:
        head.append(("APPROVED BY:", f"{sender}, {sender_title}"))
    for k, v in head:
        hp_ = d.add_paragraph()
        hp_.paragraph_format.space_after = Pt(0)
        hp_.paragraph_format.tab_stops.add_tab_stop(Pt(90))
        hp_.add_run(k).bold = True
        hp_.add_run(f"\t{v}")
    _rule(d.add_paragraph())

    d.add_heading("Purpose", level=2)
    if spec.noise:
        d.add_paragraph(f"This memo sets out the plan for {sec_l}.")
    else:
        d.add_paragraph(say(rng.choice(_PURPOSE), rng, slots))

    d.add_heading("Background", level=2)
    d.add_paragraph(say(rng.choice(_BACKGROUND), rng, slots))
    hedges = content.hedges
    if hedges:
        d.add_paragraph("For the record, these are the points that caused confusion:")
        for h in hedges:
            d.add_paragraph(f"\u201c{h.text}\u201d", style="List Bullet")  # what people said, quoted

    if spec.noise:
        d.add_heading("Plan", level=2)
        for p in noise_paras:
            d.add_paragraph(p, style="List Number")
    else:
        d.add_heading("Decisions", level=2)
        d.add_paragraph(say(rng.choice(_DECIDE), rng, slots))
        said: set[str] = set()
        # decided catalog figures go in a table under the list, products across, as a memo
        # attaches the schedule it approves (the figure in its cell, the measure in its row)
        tabled = [it for it in items if it.current and K.is_cell(it.fact)]
        lost = _unread_in_tables(tabled, ctx)
        tabled = [it for it in tabled if it.fact.id not in lost]
        for it in items:
            if it in tabled:
                continue
            if it.role == "hop" and it.route is not None and it.route.label:
                if it.route.code in said:  # a catalog row names its schedule code once
                    continue
                said.add(it.route.code)
            d.add_paragraph(it.text, style="List Number")
        if tabled:
            d.add_paragraph(rng.choice(["The approved figures:", "Figures as approved:", "The figures we agreed:",
                                        "For reference, the figures now in force:"]))
        _approved_tables(d, tabled)

    d.add_heading("Action items", level=2)
    _action_items(d, ctx, secs, slots, date, rng)

    d.add_heading("Next steps", level=2)
    d.add_paragraph(say(rng.choice(_NEXT), rng, slots))
    d.add_paragraph(rng.choice(["Regards,", "Thanks,", "Best regards,", "Many thanks,"]))
    sig = d.add_paragraph()  # signed with the name: title and address are in the header
    sig.add_run(sender).bold = True
    d.add_paragraph(f"{initials(sender)}/{initials(cc)}  Ref. {ref}").runs[0].font.size = Pt(8)

    _properties(d, sender, re_line, date, rng)
    buf = io.BytesIO()
    d.save(buf)
    return buf.getvalue()


def _fixed_zip(data: bytes, date: dt.date) -> bytes:
    """Rewrite the zip with fixed entry timestamps and attributes (deterministic bytes)."""
    stamp = (max(date.year, 1980), date.month, date.day, 9, 0, 0)
    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            zi = zipfile.ZipInfo(info.filename, date_time=stamp)
            zi.compress_type = zipfile.ZIP_DEFLATED
            zi.external_attr = 0o600 << 16
            zi.create_system = 0
            dst.writestr(zi, src.read(info.filename))
    return out.getvalue()


def _tables(tabled) -> list:
    """(grid, caption, block) for the memo's catalog figures (`transforms.catalog`)."""
    grids, _ = K.grids([(it.fact, shown_slot(it), False) for it in tabled], min_cells=1)
    return [(g, caption, block) for g in grids for caption, block in g.blocks(width=3, height=6)]


def _row_line(cells: list[str]) -> str:
    """A table row as the docx extractor prints it (`transforms.extract.docx`): cells joined by
    " | ", an empty cell left out (and a merged cell's repeat)."""
    out: list[str] = []
    for t in cells:
        t = t.strip()
        if t and (not out or out[-1] != t):
            out.append(t)
    return " | ".join(out)


def _unread_in_tables(tabled, ctx: RenderContext) -> set[str]:
    """Facts whose figure the audits' matcher would not read from the tables as the extractor
    prints them (a row per line, cells joined by " | ", empty cells left out: a row whose last
    figure stands alone at its end runs into the next row's label, "... per billing cycle |
    4" above "Time to activate" reads "4 Time"): those stay in the list."""
    lost: set[str] = set()
    for g, _caption, block in _tables(tabled):
        lines = [_row_line([g.dimension, *block.products])]
        lines += [_row_line([a] + [(c.slot.text if (c := block.cell(a, p)) else "") for p in block.products])
                  for a in block.attributes]
        text = "\n".join(lines)
        for c in block.cells.values():
            if not matches(c.fact, text, ctx.pack.info.currency):
                lost.add(c.fact.id)
    return lost
