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

from ..base import ArtifactSpec, Extraction, ExtractContext, RenderContext, Transformer
from ..extract.docx import docx_text
from ..registry import register
from transforms.common import Content, check_capacity, doc_number, fmt_date, initials, plan_content, spec_date

_TEAMS = ["Customer Support team", "Front-line team leads", "Operations and Support staff", "All service staff",
          "Contact centre team", "Store and support managers"]
_PURPOSE = ["This memo records the decisions from the {sec_l} review held on {meeting} and what each team needs "
            "to do next.",
            "Following the kickoff meeting on {meeting}, this memo confirms how we will handle {sec_l} from now on.",
            "The purpose of this memo is to confirm the agreed rules for {sec_l}, so that everyone gives customers "
            "the same answer.",
            "We met on {meeting} to settle open questions on {sec_l}. The outcomes are below."]
_BACKGROUND = ["Over the last quarter we saw inconsistent answers across channels, and several complaints "
               "traced back to outdated guidance.",
               "Team leads asked for one written reference after questions came up in coaching sessions.",
               "The review looked at recent tickets, the customer terms and feedback from the floor.",
               "Several teams were still working from printed guides that predate the last policy update."]
_ACTIONS = ["Update the help-centre article on {topic}", "Brief the team on {topic} at the next stand-up",
            "Check the system configuration for {topic}", "Refresh the call scripts covering {topic}",
            "Add {topic} to the QA checklist", "Retire the old printed guide on {topic}"]
_NEXT = ["Please read the decisions with your team this week. Questions go to the sender of this memo.",
         "We will review how this is working at the next monthly operations meeting.",
         "Reply to this memo if anything above conflicts with a process you use today."]
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
    from docx.oxml import OxmlElement  # noqa: PLC0415
    from docx.oxml.ns import qn  # noqa: PLC0415

    ppr = paragraph._p.get_or_add_pPr()
    bdr = OxmlElement("w:pBdr")
    bottom = OxmlElement("w:bottom")
    for k, v in (("w:val", "single"), ("w:sz", "8"), ("w:space", "4"), ("w:color", "1F4E79")):
        bottom.set(qn(k), v)
    bdr.append(bottom)
    ppr.append(bdr)


def _page_field(paragraph) -> None:
    from docx.oxml import OxmlElement  # noqa: PLC0415
    from docx.oxml.ns import qn  # noqa: PLC0415

    fld = OxmlElement("w:fldSimple")
    fld.set(qn("w:instr"), "PAGE")
    r = OxmlElement("w:r")
    t = OxmlElement("w:t")
    t.text = "1"
    r.append(t)
    fld.append(r)
    paragraph._p.append(fld)


def _document(spec: ArtifactSpec, ctx: RenderContext, content: Content, rng: random.Random) -> bytes:
    import docx  # noqa: PLC0415
    from docx.enum.table import WD_TABLE_ALIGNMENT  # noqa: PLC0415
    from docx.enum.text import WD_ALIGN_PARAGRAPH  # noqa: PLC0415
    from docx.shared import Pt, RGBColor  # noqa: PLC0415

    brand, w = ctx.pack.brand, ctx.writer
    date = spec_date(spec)
    items = content.items
    secs = list(dict.fromkeys((it.fact.section[-1] if it.fact.section else "General") for it in items))
    sender = w.person(rng, "manager")
    sender_title = rng.choice(["Head of Customer Operations", "Service Policy Lead", "Operations Manager",
                               "Director, Customer Experience"])
    cc = w.person(rng, "agent")
    meeting = date - dt.timedelta(days=rng.randint(1, 6))
    if spec.noise:
        re_line, noise_paras = rng.choice(_NOISE)
        sec_l = re_line.lower()
    else:
        sec_l = " and ".join(ctx.writer.lower_first(s) for s in secs[:2]) or "policy"
        re_line = spec.title or w.subject([it.fact for it in items], rng)
    ref = doc_number(ctx, rng, "MEMO")

    d = docx.Document()
    normal = d.styles["Normal"]
    normal.font.name = "Calibri"
    normal.font.size = Pt(11)
    accent = RGBColor(0x1F, 0x4E, 0x79)
    section = d.sections[0]
    hp = section.header.paragraphs[0]
    run = hp.add_run(brand.company)
    run.bold = True
    run.font.color.rgb = accent
    hp.add_run(f"\tInternal memorandum\t{ref}").font.size = Pt(9)
    fp = section.footer.paragraphs[0]
    fp.add_run(f"{brand.company} - confidential, internal use only. Page ").font.size = Pt(8)
    _page_field(fp)
    fp.alignment = WD_ALIGN_PARAGRAPH.CENTER

    t = d.add_paragraph()
    r = t.add_run("MEMORANDUM")
    r.bold = True
    r.font.size = Pt(22)
    r.font.color.rgb = accent

    block = d.add_table(rows=0, cols=2)
    block.alignment = WD_TABLE_ALIGNMENT.LEFT
    to = rng.choice(_TEAMS)
    head = [("TO:", to), ("FROM:", f"{sender}, {sender_title}"), ("CC:", cc), ("DATE:", fmt_date(date)),
            ("RE:", re_line)]
    if spec.series:
        head.append(("VERSION:", f"{spec.version or 1} (this version replaces any earlier one with the same title)"
                     if (spec.version or 1) > 1 else "1"))
    if not spec.noise:
        head.append(("APPROVED BY:", f"{sender}, {sender_title}"))
    for k, v in head:
        cells = block.add_row().cells
        cells[0].paragraphs[0].add_run(k).bold = True
        cells[1].paragraphs[0].add_run(v)
    _rule(d.add_paragraph())

    d.add_heading("Purpose", level=2)
    if spec.noise:
        d.add_paragraph(f"This memo sets out the plan for {sec_l}.")
    else:
        d.add_paragraph(rng.choice(_PURPOSE).format(sec_l=sec_l, meeting=fmt_date(meeting, "short")))

    d.add_heading("Background", level=2)
    d.add_paragraph(rng.choice(_BACKGROUND))
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
        d.add_paragraph(rng.choice(["The following was agreed and applies with immediate effect:",
                                    "Effective today, the rules are:", "We agreed the following:"]))
        said: set[str] = set()
        for it in items:
            if it.role == "hop" and it.route is not None and it.route.label:
                if it.route.code in said:  # a catalog row names its schedule code once
                    continue
                said.add(it.route.code)
            d.add_paragraph(it.text, style="List Number")

    d.add_heading("Action items", level=2)
    tbl = d.add_table(rows=1, cols=4)
    tbl.style = "Light Grid Accent 1"
    for cell, h in zip(tbl.rows[0].cells, ("#", "Action", "Owner", "Due")):
        cell.paragraphs[0].add_run(h).bold = True
    topics = list(dict.fromkeys(ctx.writer.lower_first(s) for s in secs)) or ["the new process", "the schedule", "the checklist"]
    actions = rng.sample(_ACTIONS, min(len(_ACTIONS), max(2, min(5, len(topics) + 1))))
    for i, a in enumerate(actions, 1):
        cells = tbl.add_row().cells
        due = date + dt.timedelta(days=rng.randint(3, 21))
        cells[0].text = str(i)
        cells[1].text = a.format(topic=topics[(i - 1) % len(topics)])
        cells[2].text = w.person(rng, "agent")
        cells[3].text = fmt_date(due, "short")

    d.add_heading("Next steps", level=2)
    d.add_paragraph(rng.choice(_NEXT))
    d.add_paragraph(rng.choice(["Regards,", "Thanks,", "Best regards,", "Many thanks,"]))
    sig = d.add_paragraph()
    sig.add_run(sender).bold = True
    sig.add_run(f"\n{sender_title}\n{brand.company}\n{w.email(sender)}")
    d.add_paragraph(f"{initials(sender)}/{initials(cc)}  Ref. {ref}").runs[0].font.size = Pt(8)

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
