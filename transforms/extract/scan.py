"""Reading a scanned document back: an image-only PDF (no text layer) rasterised by poppler's
pdftoppm, each page deskewed and cleaned, then OCR'd by tesseract.

- **Rasterise** at 300 dpi in greyscale (`pdftoppm -r 300 -gray`, PGM), whatever resolution the
  scanner used: tesseract reads body text best at that size.
- **Deskew**: the page's skew is the angle at which its text lines are most horizontal: the
  ink of a binarised, downscaled copy projected onto rows along directions over -4..4
  degrees (coarse steps, then fine ones around the best) gives the sharpest row profile
  (`skew_angle`). The page is turned back by that angle. A scanner feeds pages a degree or so askew; tesseract's own
  line finding copes with a little skew but loses words at the end of long lines.
- **Clean**: a 3x3 median filter takes out the sensor's specks, which tesseract would read as
  full stops and commas.
- **OCR**: tesseract's automatic layout (psm 3), one process for all the pages.

Pages are joined with a form feed, as the PDF text layer reader does.
"""
from __future__ import annotations

import math
import subprocess
import tempfile
from pathlib import Path

from facts.errors import FactforgeError

from .ocr import ocr_texts


EXTERNAL_TOOLS = ("poppler", "tesseract")  # see transforms.fingerprint
RASTER_DPI = 300


def rasterise(path: str | Path, dpi: int = RASTER_DPI) -> list:
    """The PDF's pages as greyscale PIL images (pdftoppm)."""
    from PIL import Image  # noqa: PLC0415  (heavy; loaded on first use)


    with tempfile.TemporaryDirectory(prefix="scan-") as tmp:
        # PGM, not PNG: pdftoppm's PNG encoder spends seconds compressing a noisy page
        proc = subprocess.run(["pdftoppm", "-r", str(dpi), "-gray", str(path), f"{tmp}/p"],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise FactforgeError(f"pdftoppm could not rasterise the file: {(proc.stderr or '').strip()[:200]}",
                                 str(path))
        pages = []
        for p in sorted(Path(tmp).glob("p-*.pgm"), key=lambda q: int(q.stem.split("-")[-1])):
            with Image.open(p) as im:
                pages.append(im.convert("L").copy())
    return pages


def skew_angle(image, span: float = 4.0) -> float:
    """The rotation (degrees, counter-clockwise positive as PIL's `rotate`) that makes the
    page's text lines horizontal. The ink of a downscaled, binarised copy is projected onto
    rows along each candidate direction (a small rotation moves the pixel at (x, y) to row
    y - x * tan(angle)); the direction whose row profile changes most sharply from row to row
    (text lines and the gaps between them) wins, searched coarse then fine."""

    import numpy as np  # noqa: PLC0415  (heavy; loaded on first use)
    from PIL import Image  # noqa: PLC0415  (heavy; loaded on first use)

    small = image.convert("L")
    f = 1000 / max(small.width, 1)
    small = small.resize((max(1, int(small.width * f)), max(1, int(small.height * f))), Image.BILINEAR)
    a = np.asarray(small, dtype=np.float32)
    ys, xs = np.nonzero(a < min(160.0, float(a.mean()) - 40))
    if len(xs) < 50:
        return 0.0
    xs = xs.astype(np.float64) - small.width / 2
    ys = ys.astype(np.float64)

    def score(angle: float) -> float:
        rows = np.round(ys - xs * math.tan(math.radians(angle))).astype(np.int64)
        rows -= rows.min()
        prof = np.bincount(rows).astype(np.float64)
        return float(np.sum(np.diff(prof) ** 2))

    coarse = [x / 4 for x in range(int(-span * 4), int(span * 4) + 1)]
    best = max((score(x), -abs(x), x) for x in coarse)[2]
    fine = [best + d / 40 for d in range(-10, 11)]
    return max((score(x), -abs(x), x) for x in fine)[2]


def deskew(image):
    from PIL import Image  # noqa: PLC0415  (heavy; loaded on first use)

    angle = skew_angle(image)
    if abs(angle) < 0.05:
        return image
    return image.rotate(angle, resample=Image.BILINEAR, expand=False, fillcolor=255)


def clean(image):
    from PIL import ImageFilter  # noqa: PLC0415  (heavy; loaded on first use)

    return image.filter(ImageFilter.MedianFilter(3))


def scan_text(path: str | Path, dpi: int = RASTER_DPI) -> str:
    """The text of a scanned PDF: rasterised, deskewed, cleaned, OCR'd; pages joined by a form
    feed."""

    pages = [clean(deskew(p)) for p in rasterise(path, dpi)]
    return "\n\f".join(ocr_texts(pages, psm=3))
