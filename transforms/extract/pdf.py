"""PDF text layer (pypdf). Pages are joined with a form feed so page boundaries stay visible."""
from __future__ import annotations

from pathlib import Path


def pdf_text(path: str | Path) -> str:
    """The text layer of every page, in page order, non-breaking spaces normalised."""
    from pypdf import PdfReader  # noqa: PLC0415  (heavy; loaded on first use)

    reader = PdfReader(str(path))
    pages = [(p.extract_text() or "").replace("\u00a0", " ") for p in reader.pages]
    return "\n\f".join(pages)
