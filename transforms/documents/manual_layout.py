"""The reportlab layout of a `documents/pdf_manual`: `Manual(spec, ctx, content, rng).build()`.

A manual is laid out part by part, in reading order: title page, contents, the fixed front
sections (purpose and scope, roles, definitions), the numbered fact sections (clauses,
schedule grids of catalog cells, "applies to" tables, callouts), the schedule of codes and
the revision history; every page after the title page carries the running header and footer
and a "Page X of Y" number. The parts draw from one random generator in that order, so a
spec renders the same bytes every time.
"""
from __future__ import annotations

import datetime as dt
import io
import random
from collections import OrderedDict
from xml.sax.saxutils import escape

from reportlab.lib import colors
from reportlab.lib.enums import TA_CENTER
from reportlab.lib.fonts import addMapping
from reportlab.lib.pagesizes import LETTER
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import inch
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen import canvas
from reportlab.platypus import (BaseDocTemplate, Frame, KeepTogether, NextPageTemplate, PageBreak, PageTemplate,
                                Paragraph, Spacer, Table, TableStyle)
from reportlab.platypus.tableofcontents import TableOfContents

from facts.models import FactKind

from .. import catalog as K
from ..base import RenderContext
from ..clock import fmt_date, spec_date
from ..common import Content, Item, doc_number, font_file, is_name, protect, route_rows, shown_slot
from ..grammar import say
from ..headings import condition_values, heading_path, names_subject, section_of
from ..plan import ArtifactSpec


# --------------------------------------------------------------------------- wording and content

_TITLES = ["{sec} Standard Operating Procedure", "{sec} Policy Manual", "{company} {sec} Handbook",
           "{sec} Procedures and Controls", "Operations Manual: {sec}"]
_NOISE_TITLES = ["Workplace Conduct Guidelines", "Records Management Procedure", "Office Safety Handbook",
                 "Information Security Awareness Standard", "Travel and Expenses Procedure"]
# Front matter: the same parts every controlled manual has, worded from this manual's own
# topic, sections, owner and approver (so two manuals of one company do not repeat each other).
_PURPOSE = [
    "{This document|This manual|This procedure} {sets out|describes|records} {the rules and procedures|how} <company> "
    "staff {apply|follow|use} {when handling|for} <topic>{, from <sec_a> to <sec_b>|, including <sec_a>|}.",
    "The purpose of this {manual|document} is to give {everyone at <company>|<company> teams|staff in every channel} "
    "one {consistent|shared|current} reference for <topic>{, in particular <sec_a>|}.",
    "{This procedure|This manual} documents how <company> handles <topic>{, covering <sec_a> and <sec_b>|}, so that "
    "customers {receive|get} the same answer whichever channel they use.",
]
_SCOPE = [
    "It applies to {all|every} {customer-facing employee, contractor and partner|employee, contractor and partner "
    "who deals with customers} {acting on behalf of <company>|working on these cases}.",
    "{It|The manual} covers {every channel|all channels}: {phone, chat, email and in-person service|calls, chat, "
    "email and the service desks}.",
    "{Staff|Everyone who handles these cases} {must read|reads} {it|this manual} during onboarding and {after every "
    "revision|again whenever <owner> publishes a new version}.",
    "Where {it|this manual} and an older guide {disagree|differ}, {this manual|the manual} {prevails|"
    "wins}{; report the conflict to <owner>|}.",
]
_RESPONSIBILITIES = [
    ("Policy owner", "<owner> {maintains|keeps} this {manual|document}{ up to date|}, {approves|signs off} "
                     "{changes|amendments} to <topic> and {runs|leads} the {annual|yearly} review due <review>."),
    ("Approver", "<approver> {approves|signs off} each {version|release} before it {is published|takes effect} "
                 "and {decides|rules on} exceptions {the owner refers|referred by <owner_first>}."),
    ("Team leads", "{Make sure|Check that} their teams {work|answer} from the current version{ of <doc_id>|} and "
                   "{escalate|refer} exceptions {on <sec_a>|} to <owner_first>."),
    ("Front-line staff", "{Apply|Follow} the {rules|clauses} {as written|as published} and {record|note} any "
                         "exception{ on <sec_b>|} in the customer file."),
    ("Quality assurance", "{Sample|Review} <qa_sample> interactions {each month|monthly}{ on <topic>|} and "
                          "{report|send} deviations to <owner_first>."),
]
_TERMS = [
    ("Exception", "{Any|A} decision on <topic> that departs from a clause of this manual; it needs written "
                  "approval from {a team lead|<approver_first> or a team lead} {before the customer is told|first}."),
    ("Customer file", "The record of every interaction with a customer, kept in the <short> service system"
                      "{, where staff note the clause applied| with the clause number applied|}."),
]
_INTROS = ["This section covers {sec}.", "The following rules apply to {sec}.",
           "Staff apply the clauses below when handling {sec}.", "Rules for {sec} are set out below.",
           "This section describes how we handle {sec}."]
_NOTES = ["Questions about this section go to {email}.",
          "Exceptions not covered here must be escalated to a team lead before anything is promised "
          "to the customer.",
          "Record the outcome in the customer file, including the clause number applied.",
          "If the system shows a different figure, stop and contact {email} before proceeding."]
_NOISE_SECTIONS = [
    ("General principles", ["Treat colleagues and customers with courtesy and respect.",
                            "Raise concerns early and through the proper channel.",
                            "Keep shared areas tidy and leave meeting rooms as you found them."]),
    ("Records and documentation", ["Store working files in the team folder, not on personal devices.",
                                   "Name documents consistently so that others can find them.",
                                   "Dispose of paper records in the secure bins provided."]),
    ("Reporting concerns", ["Report incidents to your line manager as soon as practicable.",
                            "Reports can also be made anonymously through the ethics line.",
                            "Retaliation against anyone raising a concern in good faith is not tolerated."]),
    ("Training", ["Complete the assigned e-learning modules during onboarding.",
                  "Refresher training is scheduled by the learning team each year.",
                  "Team leads track completion and follow up on overdue modules."]),
]
_REVISION_NOTES = ["Initial release.", "Formatting and numbering updated.", "Annual review; no material changes.",
                   "Clarified escalation contacts.", "Aligned wording with the customer terms.",
                   "Added examples and cross-references."]
_NOW = ["Replaced in version {v}: now {value}.", "Version {v} sets it at {value}.", "Current figure since {v}: {value}.",
        "Now {value} (version {v})."]


def _schedule_row(it: Item) -> bool:
    """Catalog cells (a value per product and attribute, current or as they stood in an older
    version, no rumour to correct) go in a schedule grid (`transforms.catalog`) instead of a
    clause paragraph, whatever their rendition: a schedule's cell is a label and a figure, not
    anybody's sentence, so a manual never spells its catalog out one sentence per cell; a cell
    given by a schedule code stays a clause."""
    return (it.current or it.role == "stale") and not it.rumours and bool(it.value) and K.is_cell(it.fact)


def _applies(it: Item, names: bool = True) -> str:
    conds = [c for c in it.fact.conditions if c.attribute != "attribute"]
    values = condition_values(it.fact)  # as the statement writes them
    return "; ".join(f"{c.attribute}: {v}" if names else v for c, v in zip(conds, values))


def _rule_rows(conditioned: list[tuple[int, Item]]) -> list[tuple[str, str, str, str]]:
    """(applies to, rule, value, clause) rows of the conditions table: the rule without the
    condition the first column names. Rows of one rule stand together (in the order the
    rules first come) and the rule is written once for them, as a merged cell would be,
    not repeated line after line; the case a row applies to likewise, within a rule.
    A rule whose only label is its whole statement (no short label names it) is named by
    its section: the clause the row points to states it, and a table cell that copied the
    statement would put the policy's words beside a voiced clause."""
    rows = []
    for i, it in conditioned:
        rule = it.label
        if rule.strip().rstrip(".") == it.fact.statement.strip().rstrip("."):
            rule = section_of(it.fact, "Rule")
        shown = ", ".join(condition_values(it.fact))
        if shown and rule.endswith(f" ({shown})"):
            rule = rule[:-len(shown) - 3]
        rows.append((_applies(it), rule, it.value or "see clause", str(i)))
    first = {}
    for r in rows:
        first.setdefault(r[1], len(first))
    rows.sort(key=lambda r: first[r[1]])  # stable: clause order within a rule
    out, last, last_applies = [], None, None
    for applies, rule, value, i in rows:
        same_rule = rule == last
        shown_applies = "" if applies and same_rule and applies == last_applies else applies
        out.append((shown_applies or ("-" if not applies else ""), "" if same_rule else rule, value, i))
        last, last_applies = rule, applies
    return out


def _tree(items: list[Item]) -> "OrderedDict":
    root: OrderedDict = OrderedDict()
    for it in items:
        path = heading_path(it.fact) or ["General"]
        if len(path) > 3:
            path = path[:2] + [" / ".join(path[2:])]
        node = root
        for name in path:
            node = node.setdefault(name, OrderedDict())
        node.setdefault(None, []).append(it)
    return root


# --------------------------------------------------------------------------- layout

_FONTS = {"FFSans": ("sans", False), "FFSans-Bold": ("sans", True),
          "FFSans-Oblique": ("sans-oblique", False), "FFSans-BoldOblique": ("sans-oblique", True)}
_registered = False


def register_fonts() -> None:
    global _registered
    if _registered:
        return
    for name, file in _FONTS.items():
        pdfmetrics.registerFont(TTFont(name, font_file(*file)))
    addMapping("FFSans", 0, 0, "FFSans")
    addMapping("FFSans", 1, 0, "FFSans-Bold")
    addMapping("FFSans", 0, 1, "FFSans-Oblique")
    addMapping("FFSans", 1, 1, "FFSans-BoldOblique")
    _registered = True


_INK, _ACCENT = colors.HexColor("#1d2433"), colors.HexColor("#1f4e79")
_GREY = colors.HexColor("#5b6475")
_RULE = colors.HexColor("#c9d1de")


def _styles() -> dict[str, ParagraphStyle]:
    ink, accent = _INK, _ACCENT
    base = ParagraphStyle("body", fontName="FFSans", fontSize=9.5, leading=13.5, textColor=ink, spaceAfter=5)
    return {
        "body": base,
        "clause": ParagraphStyle("clause", parent=base),
        "small": ParagraphStyle("small", parent=base, fontSize=8, leading=10.5, textColor=colors.HexColor("#4a5363")),
        "cell": ParagraphStyle("cell", parent=base, fontSize=8.5, leading=11, spaceAfter=0),
        "cellhead": ParagraphStyle("cellhead", parent=base, fontName="FFSans-Bold", fontSize=8.5, leading=11,
                                   spaceAfter=0, textColor=colors.white),
        "h1": ParagraphStyle("h1", parent=base, fontName="FFSans-Bold", fontSize=15, leading=19, spaceBefore=14,
                             spaceAfter=8, textColor=accent, keepWithNext=1),
        "h2": ParagraphStyle("h2", parent=base, fontName="FFSans-Bold", fontSize=12, leading=15, spaceBefore=10,
                             spaceAfter=5, textColor=accent, keepWithNext=1),
        "h3": ParagraphStyle("h3", parent=base, fontName="FFSans-Bold", fontSize=10.5, leading=13.5, spaceBefore=8,
                             spaceAfter=4, textColor=ink, keepWithNext=1),
        "brand": ParagraphStyle("brand", parent=base, fontName="FFSans-Bold", fontSize=20, leading=24,
                                textColor=accent),
        "tagline": ParagraphStyle("tagline", parent=base, fontName="FFSans-Oblique", fontSize=10,
                                  textColor=_GREY),
        "title": ParagraphStyle("title", parent=base, fontName="FFSans-Bold", fontSize=24, leading=30,
                                spaceBefore=90, spaceAfter=18, textColor=ink),
        "center": ParagraphStyle("center", parent=base, alignment=TA_CENTER, fontSize=8,
                                 textColor=_GREY),
        "callout_head": ParagraphStyle("callout_head", parent=base, fontName="FFSans-Bold", fontSize=9,
                                       leading=12, spaceAfter=2),
    }


class _NumberedCanvas(canvas.Canvas):
    """Keeps every page until the end, then numbers them "Page X of Y" (the title page unnumbered)."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self._pages: list[dict] = []

    def showPage(self):
        self._pages.append(dict(self.__dict__))
        self._startPage()

    def save(self):
        total = len(self._pages)
        for state in self._pages:
            self.__dict__.update(state)
            if self._pageNumber > 1:
                self.setFont("FFSans", 8)
                self.setFillColor(_GREY)
                self.drawRightString(LETTER[0] - 0.8 * inch, 0.55 * inch,
                                     f"Page {self._pageNumber} of {total}")
            super().showPage()
        super().save()


class _Doc(BaseDocTemplate):
    """Headings (`Manual.heading`) become bookmarks, outline entries and contents lines."""

    def afterFlowable(self, flowable):
        level = getattr(flowable, "_toc_level", None)
        if level is not None:
            key = getattr(flowable, "_toc_key")
            self.canv.bookmarkPage(key)
            self.canv.addOutlineEntry(flowable._toc_text, key, level=level, closed=level > 0)
            self.notify("TOCEntry", (level, flowable._toc_text, self.page, key))


class Manual:
    """One manual: its front matter (title, document id, version, owner and approver, and `fm`,
    the slots its wording is filled from), the document template, and the story its parts add
    to; `n` is the number of the last top-level section."""

    def __init__(self, spec: ArtifactSpec, ctx: RenderContext, content: Content, rng: random.Random):
        self.spec, self.ctx, self.content, self.rng = spec, ctx, content, rng
        self.S = _styles()
        self.brand = ctx.pack.brand
        self.w = ctx.writer
        self.date = spec_date(spec)
        self.items = content.items
        self.facts = [it.fact for it in self.items]
        self._front_matter()
        self.buf = io.BytesIO()
        self.doc = self._template()
        self.story: list = []
        self.n = 0
        self._headings = 0
        self._intros: set[str] = set()

    def _front_matter(self) -> None:
        spec, ctx, rng, brand, w, date, items = self.spec, self.ctx, self.rng, self.brand, self.w, self.date, self.items
        top = list(dict.fromkeys(heading_path(it.fact)[0] for it in items if heading_path(it.fact)))
        if len(top) > 2:
            topic = f"{ctx.pack.info.business.title()} Operations"
        elif top:
            topic = " and ".join(top)
        else:
            topic = "Company Procedures"
        if spec.title:
            title = spec.title
        elif spec.noise:
            title = rng.choice(_NOISE_TITLES)
        else:
            title = rng.choice(_TITLES).format(sec=topic, company=brand.short_name or brand.company)
        doc_id = doc_number(ctx, rng, "SOP" if rng.random() < 0.6 else "POL")
        major, minor = rng.randint(2, 6), rng.randint(0, 3)
        if spec.series:  # versions of one document share its number; a later version has a higher one
            srng = random.Random(f"series:{spec.series}")
            doc_id = doc_number(ctx, srng, "SOP" if srng.random() < 0.6 else "POL")
            major, minor = srng.randint(1, 4) + (spec.version or 1), 0
        version = f"{major}.{minor}"
        owner = w.person(rng, "manager")
        approver = w.person(rng, "manager")
        if approver == owner:
            approver = w.person(random.Random(rng.random()), "agent")
        # the sections the scope names, as a sentence names them: subjects ("including checked bags"),
        # never a question heading ("including What can be changed")
        subs = list(dict.fromkeys(w.lower_first(s) for it in items if heading_path(it.fact)
                                  if names_subject(s := section_of(it.fact)))) or [w.lower_first(topic)]
        sec_a, sec_b = (rng.sample(subs, 2) if len(subs) > 1 else subs * 2)
        review = (date.replace(year=date.year + 1) if not (date.month == 2 and date.day == 29)
                  else date + dt.timedelta(days=365))
        topic_l = " and ".join(w.lower_first(t) for t in top) if 0 < len(top) <= 2 else w.lower_first(topic)
        self.fm = {"company": brand.company, "topic": topic_l, "sec_a": sec_a, "sec_b": sec_b, "owner": owner,
                   "owner_first": owner.split()[0], "approver": approver, "approver_first": approver.split()[0],
                   "doc_id": doc_id, "review": fmt_date(review), "short": brand.short_name or brand.company,
                   "qa_sample": rng.choice(["a sample of", "ten", "twenty", "a random set of", "at least fifteen"]),
                   "version": version}
        self.title, self.doc_id, self.major, self.minor, self.version = title, doc_id, major, minor, version
        self.owner, self.approver, self.review = owner, approver, review

    def _template(self) -> _Doc:
        brand = self.brand
        doc = _Doc(self.buf, pagesize=LETTER, invariant=1, leftMargin=0.8 * inch, rightMargin=0.8 * inch,
                   topMargin=0.85 * inch, bottomMargin=0.9 * inch, title=self.title, author=self.owner,
                   subject=f"{brand.company} {self.doc_id}", creator=f"{brand.company} document control",
                   producer=f"{brand.company} document control")
        frame = Frame(doc.leftMargin, doc.bottomMargin, doc.width, doc.height, id="f")
        doc.addPageTemplates([PageTemplate(id="title", frames=[frame]),
                              PageTemplate(id="body", frames=[frame], onPage=self._on_body)])
        return doc

    # --- page furniture ---------------------------------------------------------------
    def _on_body(self, canv, doc):
        canv.saveState()
        width, height = LETTER
        canv.setFont("FFSans-Bold", 8)
        canv.setFillColor(_ACCENT)
        canv.drawString(0.8 * inch, height - 0.55 * inch, self.brand.company)
        canv.setFont("FFSans", 8)
        canv.setFillColor(_GREY)
        canv.drawCentredString(width / 2, height - 0.55 * inch, self.title[:70])
        canv.drawRightString(width - 0.8 * inch, height - 0.55 * inch, f"{self.doc_id}  Rev. {self.version}")
        canv.setStrokeColor(_RULE)
        canv.setLineWidth(0.6)
        canv.line(0.8 * inch, height - 0.62 * inch, width - 0.8 * inch, height - 0.62 * inch)
        canv.line(0.8 * inch, 0.72 * inch, width - 0.8 * inch, 0.72 * inch)
        canv.drawString(0.8 * inch, 0.55 * inch, f"Internal use only. Printed copies are uncontrolled. "
                                                 f"Effective {fmt_date(self.date, 'short')}")
        canv.restoreState()

    # --- flowables ------------------------------------------------------------------------
    def P(self, text: str, style: str = "body") -> Paragraph:
        return Paragraph(escape(protect(text, self.facts)), self.S[style])

    def heading(self, text: str, level: int) -> Paragraph:
        p = Paragraph(escape(text), self.S[f"h{level + 1}"])
        self._headings += 1
        p._toc_level, p._toc_text, p._toc_key = level, text, f"h{self._headings}"
        return p

    def table(self, rows: list[list], widths: list[float], header_rows: int = 1) -> Table:
        t = Table(rows, colWidths=widths, repeatRows=header_rows, hAlign="LEFT")
        style = [("VALIGN", (0, 0), (-1, -1), "TOP"), ("GRID", (0, 0), (-1, -1), 0.5, _RULE),
                 ("TOPPADDING", (0, 0), (-1, -1), 3), ("BOTTOMPADDING", (0, 0), (-1, -1), 4),
                 ("BACKGROUND", (0, 0), (-1, header_rows - 1), _ACCENT),
                 ("ROWBACKGROUNDS", (0, header_rows), (-1, -1), [colors.white, colors.HexColor("#f3f6fa")])]
        if header_rows == 2:
            style += [("SPAN", (0, 0), (-1, 0)), ("BACKGROUND", (0, 0), (-1, 0), _INK)]
        t.setStyle(TableStyle(style))
        return t

    def callout(self, head: str, body: list[str], tone: str) -> Table:
        fill, edge = {"warn": ("#fff4e0", "#d9822b"), "info": ("#eaf2fb", "#1f4e79"),
                      "stop": ("#fdecec", "#b42318")}[tone]
        cell = [Paragraph(escape(head), self.S["callout_head"])] + [self.P(b, "cell") for b in body]
        t = Table([[cell]], colWidths=[self.doc.width - 12], hAlign="CENTER", spaceBefore=3, spaceAfter=7)
        t.setStyle(TableStyle([("BACKGROUND", (0, 0), (-1, -1), colors.HexColor(fill)),
                               ("LINEBEFORE", (0, 0), (0, -1), 3, colors.HexColor(edge)),
                               ("LEFTPADDING", (0, 0), (-1, -1), 10), ("RIGHTPADDING", (0, 0), (-1, -1), 8),
                               ("TOPPADDING", (0, 0), (-1, -1), 6), ("BOTTOMPADDING", (0, 0), (-1, -1), 7)]))
        return t

    # --- the parts, in reading order ----------------------------------------------------------
    def build(self) -> bytes:
        self.title_page()
        self.contents()
        self.front_sections()
        self.fact_sections()
        self.code_schedule()
        self.revision_history()
        self.doc.multiBuild(self.story, canvasmaker=_NumberedCanvas)
        return self.buf.getvalue()

    def title_page(self) -> None:
        S, brand, rng, story = self.S, self.brand, self.rng, self.story
        story += [Paragraph(escape(brand.company), S["brand"])]
        if brand.tagline and rng.random() < 0.3:  # only some of the templates print the brand's tagline
            story.append(Paragraph(escape(brand.tagline), S["tagline"]))
        story += [Paragraph(escape(self.title), S["title"])]
        meta = [["Document ID", self.doc_id], ["Version", self.version], ["Effective date", fmt_date(self.date)],
                ["Document owner", self.owner], ["Approved by", self.approver],
                ["Next review", fmt_date(self.review)],
                ["Classification", "Internal"]]
        mt = Table([[Paragraph(escape(k), S["cellhead"]), Paragraph(escape(v), S["cell"])] for k, v in meta],
                   colWidths=[1.6 * inch, 3.6 * inch], hAlign="LEFT")
        mt.setStyle(TableStyle([("BACKGROUND", (0, 0), (0, -1), _ACCENT), ("GRID", (0, 0), (-1, -1), 0.5, _RULE),
                                ("TOPPADDING", (0, 0), (-1, -1), 4), ("BOTTOMPADDING", (0, 0), (-1, -1), 5)]))
        story += [mt, Spacer(1, 2.2 * inch)]
        contact = f"{self.w.email(self.owner)}" + (f"  |  {brand.phone}" if brand.phone else "")
        story.append(Paragraph(escape(f"Owner contact: {contact}. " + say(
            "{This document is controlled|<doc_id> is a controlled document}; {the current version is published on "
            "the intranet|only the intranet copy is current|<owner_first> publishes each new version on the "
            "intranet}. {Do not distribute|Not for distribution|Do not share it} outside <company>{ without "
            "<approver_first>'s approval|}.", rng, self.fm)), S["small"]))
        story += [NextPageTemplate("body"), PageBreak()]

    def contents(self) -> None:
        S = self.S
        toc = TableOfContents(dotsMinLevel=0)
        toc.levelStyles = [S["body"].clone("toc0", fontName="FFSans-Bold", leftIndent=0, spaceBefore=4),
                           S["body"].clone("toc1", leftIndent=18, spaceAfter=1),
                           S["body"].clone("toc2", leftIndent=36, fontSize=8.5, spaceAfter=0)]
        self.story += [Paragraph("Contents", S["h1"]), toc, PageBreak()]

    def front_sections(self) -> None:
        """The fixed sections every controlled manual opens with: purpose and scope, roles and
        responsibilities, definitions."""
        S, rng, fm, story, P = self.S, self.rng, self.fm, self.story, self.P
        self.n += 1
        story.append(self.heading(f"{self.n} Purpose and scope", 0))
        story.append(P(say(rng.choice(_PURPOSE), rng, fm)))
        story.append(P(" ".join(say(t, rng, fm) for t in rng.sample(_SCOPE, 2))))
        self.n += 1
        story.append(self.heading(f"{self.n} Roles and responsibilities", 0))
        rows = [[Paragraph("Role", S["cellhead"]), Paragraph("Responsibility", S["cellhead"])]]
        rows += [[P(r, "cell"), P(say(d, rng, fm), "cell")] for r, d in _RESPONSIBILITIES]
        story += [self.table(rows, [1.6 * inch, self.doc.width - 1.6 * inch]), Spacer(1, 6)]
        # a term is a name ("Customer file"), never a clause up to its " is " ("Common reasons
        # include: Roaming Issues (When User is Abroad)": its wrapped lines would print twice)
        defined = {}
        for d in self.items:
            if d.fact.kind == FactKind.definition and " is " in d.fact.statement and d.rendition == "canonical":
                term = d.fact.statement.split(" is ")[0]
                if is_name(term):
                    defined[term] = d.fact.statement
        terms = list(defined.items())[:6]
        terms += [(t, say(d, rng, fm)) for t, d in _TERMS]
        self.n += 1
        story.append(self.heading(f"{self.n} Definitions", 0))
        rows = [[Paragraph("Term", S["cellhead"]), Paragraph("Meaning", S["cellhead"])]]
        rows += [[P(t, "cell"), P(d, "cell")] for t, d in terms]
        story += [self.table(rows, [1.6 * inch, self.doc.width - 1.6 * inch]), Spacer(1, 6)]

    def fact_sections(self) -> None:
        """One numbered section per top heading of the facts (the filler sections of a noise
        manual), with a note callout after some of them."""
        w, brand, rng, story = self.w, self.brand, self.rng, self.story
        email = w.email("policy team") if not brand.email_domain else f"policy@{brand.email_domain}"
        if self.spec.noise:
            self._noise_sections(email)
            return
        notes = rng.sample(_NOTES, len(_NOTES))
        for name, child in _tree(self.items).items():
            self.n += 1
            story.append(self.heading(f"{self.n} {name}", 0))
            self._emit(child, str(self.n), 0, [name])
            if rng.random() < 0.45 and notes:
                story.append(self.callout("Note", [notes.pop().format(email=email)], "info"))
        if self.content.orphans:
            story.append(self.callout("Common misconceptions", [f"\u201c{h.text}\u201d" for h in self.content.orphans],
                                      "warn"))

    def _noise_sections(self, email: str) -> None:
        rng, story = self.rng, self.story
        noise_notes = rng.sample(_NOTES, len(_NOTES))
        for name, paras in _NOISE_SECTIONS:
            self.n += 1
            story.append(self.heading(f"{self.n} {name}", 0))
            for i, para in enumerate(paras, 1):
                story.append(self.P(f"{self.n}.{i}\u2003{para}", "clause"))
            if rng.random() < 0.5 and noise_notes:
                story.append(self.callout("Note", [noise_notes.pop().format(email=email)], "info"))

    def _emit(self, node: OrderedDict, num: str, level: int, path: list[str]) -> None:
        """Section `num` (heading path `path`): its own items, then its subsections, numbered
        after them."""
        leaf_items: list[Item] = node.get(None, [])
        if leaf_items:
            self._leaf(leaf_items, num, path)
        sub = [(k, v) for k, v in node.items() if k is not None]
        for j, (name, child) in enumerate(sub, len(leaf_items) + 1):
            cnum = f"{num}.{j}"
            self.story.append(self.heading(f"{cnum} {name}", min(level + 1, 2)))
            self._emit(child, cnum, level + 1, path + [name])

    def _leaf(self, leaf_items: list[Item], num: str, path: list[str]) -> None:
        """A section's own items: its intro, one numbered clause per item (misconception and
        prohibition callouts kept with it), schedule grids of its catalog cells and the
        "applies to" table of its conditioned clauses."""
        S, story, w = self.S, self.story, self.w
        if names_subject(path[-1]):  # never "This section covers general."
            intro = self.rng.choice(_INTROS).format(sec=w.lower_first(path[-1]))
            if intro not in self._intros:  # two sections of one name ("Line Suspension" in two
                self._intros.add(intro)    # policy documents) are introduced once
                story.append(self.P(intro))
        clauses = [it for it in leaf_items if not _schedule_row(it)]
        rows_in = [it for it in leaf_items if _schedule_row(it)]
        for i, it in enumerate(clauses, 1):
            block = []
            for h in it.rumours:
                block.append(self.callout("Common misconception", [f"Heard on the floor: \u201c{h.text}\u201d"],
                                          "warn"))
            if it.fact.kind == FactKind.prohibition:
                block.append(self.callout(f"Important - clause {num}.{i}", [it.text], "stop"))
            else:
                text = f"<b>{num}.{i}</b>\u2003" + escape(protect(it.text, self.facts))
                block.append(Paragraph(text, S["clause"]))
            story.append(KeepTogether(block))
        if rows_in:
            self._schedules(rows_in, num, len(clauses))
        conditioned = [(i, it) for i, it in enumerate(clauses, 1) if it.fact.conditions and not K.is_cell(it.fact)]
        if conditioned:
            P = self.P
            rows = [[Paragraph(h, S["cellhead"]) for h in ("Applies to", "Rule", "Value", "Clause")]]
            for applies, rule, value, i in _rule_rows(conditioned):
                rows.append([P(applies, "cell"), P(rule, "cell"), P(value, "cell"), P(f"{num}.{i}", "cell")])
            story.extend([Spacer(1, 2), self.table(rows, [1.7 * inch, self.doc.width - 3.9 * inch, 1.4 * inch,
                                                          0.8 * inch]), Spacer(1, 6)])

    def _schedules(self, rows_in: list[Item], num: str, k: int) -> None:
        """Schedule grids (product by attribute) of a section's catalog cells, numbered on from
        its `k` clauses, with the grids' footnotes."""
        S, story, P = self.S, self.story, self.P
        grids, _loose = K.grids([(it.fact, shown_slot(it), bool(it.superseded_hedges)) for it in rows_in],
                                min_cells=1)
        for g in grids:
            for caption, block in g.blocks(width=4, height=8):
                k += 1
                head = Paragraph(escape(f"Schedule {num}.{k}: {caption.lower()} by "
                                        f"{g.dimension.lower()}"), S["cellhead"])
                # items numbered as a schedule's are (the number also keeps the
                # header row's last product apart from the first item in the text layer)
                rows = [[head] + [""] * (len(block.products) + 1)]
                rows.append([Paragraph(escape(h), S["cellhead"])
                             for h in ["Item", g.dimension] + block.products])
                for r, attr in enumerate(block.attributes, 1):
                    cells = [block.cell(attr, p) for p in block.products]
                    mark = " *" if any(c is not None and c.changed for c in cells) else ""
                    rows.append([P(f"{num}.{k}.{r}", "cell"), P(attr + mark, "cell")] +
                                [P(c.slot.text if c else "", "cell") for c in cells])
                ref, side = 0.62 * inch, 1.9 * inch
                t = self.table(rows, [ref, side] + [(self.doc.width - ref - side) / len(block.products)] *
                               len(block.products), header_rows=2)
                story.extend([Spacer(1, 4), t])
            for note in g.footnotes():
                star = note.startswith("Changed in this version")
                story.append(P(("* " if star else "Note: ") + note, "small"))
            story.append(Spacer(1, 6))

    def code_schedule(self) -> None:
        """The schedule of codes (route tables): figures other documents cite by code."""
        codes = route_rows(self.spec, self.ctx)
        if not codes:
            return
        S, story, P = self.S, self.story, self.P
        self.n += 1
        story.append(self.heading(f"{self.n} {self.spec.title or 'Schedule of charges and limits'}", 0))
        story.append(P(say("{Figures referred to by code elsewhere in our documents|Amounts, periods and limits that "
                           "other documents cite by code}{ are set out below| are listed here}. {Quote the figure "
                           "against the code|Use the figure on the code's line}.", self.rng, self.fm)))
        rows = [[Paragraph(h, S["cellhead"]) for h in ("Code", "Line", "Figure")]]
        rows += [[P(c, "cell"), P(label or "-", "cell"), P(v, "cell")] for c, label, v in codes]
        story += [self.table(rows, [1.0 * inch, self.doc.width - 2.6 * inch, 1.6 * inch]), Spacer(1, 8)]

    def revision_history(self) -> None:
        S, story = self.S, self.story
        self.n += 1
        story.append(self.heading(f"{self.n} Revision history", 0))
        intro = self.P(say("{Older versions|Versions before <version>|Earlier versions of <doc_id>} {are withdrawn|"
                           "have been withdrawn|are no longer in force}{.|;} {Values listed against {them|earlier "
                           "versions} are no longer valid|Figures in older copies must not be quoted to customers|"
                           "Only the current version's values apply to <topic>}.", self.rng, self.fm))
        intro.keepWithNext = 1
        story.append(intro)
        story.append(self._revision_table())
        story += [Spacer(1, 14), Paragraph(escape(f"End of {self.doc_id}"), S["center"])]

    def _revision_table(self) -> Table:
        """Earlier versions (dated, each with its author and change) up to the current one; a
        superseded value is an entry of its own, dated when it was replaced."""
        rng, w, date, major, minor, P = self.rng, self.w, self.date, self.major, self.minor, self.P
        entries: list[tuple[dt.date, str, str, bool]] = []  # (date, author, change, a superseded value)
        start = date - dt.timedelta(days=rng.randint(700, 1400))
        entries.append((start, w.person(rng, "manager"), _REVISION_NOTES[0], False))
        for k, note in enumerate(rng.sample(_REVISION_NOTES[1:], rng.randint(1, 3))):
            d = start + dt.timedelta(days=(k + 1) * rng.randint(120, 200))
            if d < date:
                entries.append((d, w.person(rng, "agent"), note, False))
        for it in self.content.items:
            for h in it.superseded_hedges:
                try:
                    d = dt.date.fromisoformat((h.distractor.date or "")[:10])
                except ValueError:
                    d = date - dt.timedelta(days=rng.randint(60, 300))
                if d >= date:
                    d = date - dt.timedelta(days=1)
                # the current value, worded differently entry by entry (one phrase down a column of
                # changes reads as a template)
                now = " " + _NOW[sum(1 for e in entries if e[3]) % len(_NOW)].format(
                    v=f"{major}.{minor}", value=it.value) if it.value else ""
                entries.append((d, w.person(rng, "manager"), h.text + now, True))
        for h in self.content.orphans:
            if h.distractor.role == "superseded":
                entries.append((date - dt.timedelta(days=rng.randint(60, 300)), w.person(rng, "manager"), h.text, True))
        entries.sort(key=lambda e: e[0])
        older = len(entries)
        rows = [[Paragraph(h, self.S["cellhead"]) for h in ("Version", "Date", "Author", "Change")]]
        minors: dict[int, int] = {}
        for i, (d, who, change, _old) in enumerate(entries):
            mj = 1 + (i * (major - 1)) // older
            minors[mj] = minors.get(mj, -1) + 1
            v = f"{mj}.{minors[mj]}"
            rows.append([P(v, "cell"), P(d.isoformat(), "cell"), P(who, "cell"), P(change, "cell")])
        rows.append([P(f"{major}.{minor}", "cell"), P(date.isoformat(), "cell"), P(self.fm["owner"], "cell"),
                     P(say("Current version{, approved by <approver>|, signed off by <approver_first>|}. {Supersedes "
                           "all previous versions|Replaces every earlier version|Earlier versions withdrawn}{ for "
                           "<topic>|}.", rng, self.fm), "cell")])
        return self.table(rows, [0.7 * inch, 0.95 * inch, 1.3 * inch, self.doc.width - 2.95 * inch])
