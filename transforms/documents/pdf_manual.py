"""documents/pdf_manual: a multi-page SOP / policy manual (reportlab platypus).

Title page (brand, title, document id, version, effective date, owner), table of contents,
numbered sections built from the facts' section paths, one numbered clause per fact (kept
on one page so headers and footers never cut a sentence), "applies to" tables for facts
with conditions, callout boxes (important rules, common misconceptions, contacts), running
header and "Page X of Y" footer, and a revision history at the end where superseded values
appear as dated old values followed by what replaced them.

The manual's wording, what goes into it and how it is laid out with reportlab live in
`manual_layout`, loaded when a manual is first rendered.
"""
from __future__ import annotations

from pathlib import Path

from ..base import ExtractContext, Extraction, RenderContext, Transformer
from ..common import check_capacity, plan_content
from ..extract.pdf import pdf_text
from ..plan import ArtifactSpec
from ..registry import register


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
