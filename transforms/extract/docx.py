"""Text of a .docx file (python-docx): section headers, then body paragraphs and tables in
document order (a table row becomes one line, cells joined by " | "), then footers."""
from __future__ import annotations

from pathlib import Path


def _block_lines(container) -> list[str]:
    from docx.oxml.ns import qn  # noqa: PLC0415  (heavy; loaded on first use)
    from docx.table import Table  # noqa: PLC0415  (heavy; loaded on first use)
    from docx.text.paragraph import Paragraph  # noqa: PLC0415  (heavy; loaded on first use)

    lines: list[str] = []
    for child in container._element.iterchildren():
        if child.tag == qn("w:p"):
            text = Paragraph(child, container).text
            if text.strip():
                lines.append(text)
        elif child.tag == qn("w:tbl"):
            for row in Table(child, container).rows:
                cells: list[str] = []
                for cell in row.cells:
                    t = " ".join(_block_lines(cell)).strip()
                    if t and (not cells or cells[-1] != t):  # merged cells repeat
                        cells.append(t)
                if cells:
                    lines.append(" | ".join(cells))
    return lines


def docx_text(path: str | Path) -> str:
    import docx  # noqa: PLC0415  (heavy; loaded on first use)

    doc = docx.Document(str(path))
    head, foot = [], []
    for sec in doc.sections:
        head += _block_lines(sec.header)
        foot += _block_lines(sec.footer)
    body = _block_lines(doc._body)
    return "\n".join(head + body + foot).replace("\u00a0", " ")
