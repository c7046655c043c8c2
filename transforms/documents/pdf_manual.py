"""documents/pdf_manual: a multi-page SOP / policy manual (reportlab platypus).

Title page (brand, title, document id, version, effective date, owner), table of contents,
numbered sections built from the facts' section paths, one numbered clause per fact (kept
on one page so headers and footers never cut a sentence), "applies to" tables for facts
with conditions, callout boxes (important rules, common misconceptions, contacts), running
header and "Page X of Y" footer, and a revision history at the end where superseded values
appear as dated old values followed by what replaced them.

This module holds the manual's wording and chooses its content; `manual_layout` lays it out
with reportlab.
"""
from __future__ import annotations

from collections import OrderedDict
from pathlib import Path

from .. import catalog as K
from ..base import ExtractContext, Extraction, RenderContext, Transformer
from ..common import Item, check_capacity, plan_content
from ..extract.pdf import pdf_text
from ..headings import condition_values, heading_path, section_of
from ..plan import ArtifactSpec
from ..registry import register


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


@register
class PdfManual(Transformer):
    family = "documents"
    kind = "pdf_manual"
    ext = ".pdf"
    modality = "pdf"
    max_facts = 400
    weight = 1.0
    tabulates_cells = True  # catalog cells go into schedule grids (`_schedule_row`)
    description = ("Multi-page SOP / policy manual PDF: title page, contents, numbered clauses, schedules, "
                   "revision history.")

    def render(self, spec: ArtifactSpec, ctx: RenderContext, out: Path) -> None:
        from .manual_layout import Manual, register_fonts  # noqa: PLC0415  (reportlab is heavy; loaded on first use)

        check_capacity(spec, self.max_facts)
        register_fonts()
        rng = spec.rng("pdf_manual")
        content = plan_content(spec, ctx, rng, role="colleague", correct=("distractor",), register="manual")
        out.write_bytes(Manual(spec, ctx, content, rng).build())

    def extract(self, path: Path, ctx: ExtractContext) -> Extraction:
        return Extraction(text=pdf_text(path), extractor="pdf-text-pypdf")
