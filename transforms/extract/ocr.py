"""OCR of images through tesseract (pytesseract). OMP_THREAD_LIMIT=1 keeps tesseract fast on
small machines and deterministic."""
from __future__ import annotations

import csv
import os
import subprocess
import tempfile
from pathlib import Path

from facts.errors import FactforgeError


os.environ.setdefault("OMP_THREAD_LIMIT", "1")
EXTERNAL_TOOLS = ("tesseract",)  # see transforms.fingerprint


def ocr_image(image, psm: int = 3) -> str:
    """OCR a PIL image (upscaled when small, converted to grayscale)."""
    import pytesseract  # noqa: PLC0415  (heavy; loaded on first use)

    img = image.convert("L")
    if img.width < 1200:
        f = 1200 / img.width
        img = img.resize((int(img.width * f), int(img.height * f)))
    return pytesseract.image_to_string(img, config=f"--psm {psm}")


def layout_lines(words: list[tuple[int, int, int, int, str]], gap: float = 2.2) -> str:
    """Words with their boxes (left, top, width, height, text) put back into lines as a reader
    sees them: a word joins the line whose vertical middle it shares, words of a line go left
    to right, and a wide horizontal gap (more than `gap` times the line's height: from a bar's
    label to the figure at its end, from one table cell to the next) is written " | "."""
    if not words:
        return ""
    words = sorted(words, key=lambda w: (w[1] + w[3] / 2, w[0]))
    lines: list[list[tuple[int, int, int, int, str]]] = []
    for w in words:
        mid = w[1] + w[3] / 2
        for ln in reversed(lines[-6:]):
            top = min(x[1] for x in ln)
            bottom = max(x[1] + x[3] for x in ln)
            if top <= mid <= bottom and abs(mid - sum(x[1] + x[3] / 2 for x in ln) / len(ln)) <= 0.6 * w[3] + 2:
                ln.append(w)
                break
        else:
            lines.append([w])
    out = []
    for ln in sorted(lines, key=lambda ln: (min(x[1] + x[3] / 2 for x in ln), min(x[0] for x in ln))):
        ln.sort(key=lambda x: x[0])
        height = sorted(x[3] for x in ln)[len(ln) // 2]
        parts = [ln[0][4]]
        for prev, cur in zip(ln, ln[1:]):
            space = cur[0] - (prev[0] + prev[2])
            parts.append((" | " if space > gap * height else " ") + cur[4])
        out.append("".join(parts))
    return "\n".join(out)


def _rank(a, k: int, axis: int, op: str):
    """Running max or min of width `k` along one axis (edges repeated): a separable grey-level
    dilation or erosion."""
    import numpy as np  # noqa: PLC0415  (heavy; loaded on first use)
    from numpy.lib.stride_tricks import sliding_window_view  # noqa: PLC0415  (heavy; loaded on first use)

    p = k // 2
    padded = np.pad(a, [(p, p) if i == axis else (0, 0) for i in range(2)], mode="edge")
    win = sliding_window_view(padded, k, axis=axis)
    return win.max(axis=-1) if op == "max" else win.min(axis=-1)


def strip_marks(image, size: int = 11, level: int = 215):
    """The picture with its solid marks (bars, swatches, filled areas: anything dark enough in
    which a `size` x `size` square fits) painted white, text strokes kept. Tesseract takes a
    bar beside a label for a letter or a separator and loses the label; a chart reader reads the
    labels and figures, not the ink of the bars."""
    import numpy as np  # noqa: PLC0415  (heavy; loaded on first use)
    from PIL import Image  # noqa: PLC0415  (heavy; loaded on first use)

    g = np.asarray(image.convert("L"))
    opened = _rank(_rank(_rank(_rank(g, size, 0, "max"), size, 1, "max"), size, 0, "min"), size, 1, "min")
    solid = opened < level
    solid = _rank(_rank(solid.astype(np.uint8), 3, 0, "max"), 3, 1, "max").astype(bool)  # antialiased rims
    out = g.copy()
    out[solid] = 255
    return Image.fromarray(out, mode="L")


def _gutters(strip, tol: int, min_gap: int, bg: int) -> list[tuple[int, int]]:
    """Spans [a, b) of the rows of `strip` between runs of at least `min_gap` gutter rows (a
    row all of the background shade `bg`, within `tol`)."""
    import numpy as np  # noqa: PLC0415  (heavy; loaded on first use)

    lo, hi = strip.min(axis=1).astype(int), strip.max(axis=1).astype(int)
    gutter = (hi - lo <= tol) & (np.abs(lo - bg) <= tol)
    spans, start, run = [], None, 0
    for i, u in enumerate(gutter):
        if u:
            run += 1
            if start is not None and run >= min_gap:
                spans.append((start, i - run + 1))
                start = None
        else:
            if start is None:
                start = i
            run = 0
    if start is not None:
        spans.append((start, len(gutter) - run if run else len(gutter)))
    return spans


def panels(image, tol: int = 4, min_gap: int = 14) -> list[tuple[int, int, int, int]]:
    """Boxes (left, top, right, bottom) of the panels of a dashboard-like picture, in reading
    order: bands between full-width gutters of the page's own shade (the commonest shade of
    its outer frame), then each band's panels between its full-height gutters (an XY cut).
    White space inside a panel (between a table's columns) is not a gutter."""
    import numpy as np  # noqa: PLC0415  (heavy; loaded on first use)

    g = np.asarray(image.convert("L"))
    frame = np.concatenate([g[:4].ravel(), g[-4:].ravel(), g[:, :4].ravel(), g[:, -4:].ravel()])
    bg = int(np.bincount(frame).argmax())
    out = []
    for top, bottom in _gutters(g, tol, min_gap, bg):
        band = g[top:bottom]
        for left, right in _gutters(band.T, tol, min_gap + 8, bg):  # wider: not the gap between two words
            out.append((left, top, right, bottom))
    return out


_PAGE_FORMATS = {"L": (".pgm", "PPM"), "RGB": (".ppm", "PPM")}


def _tesseract_pages(images: list, psm: int, config: str) -> str:
    """Run one tesseract process over `images` (a list file of pages: the model is loaded once,
    not once per page) with output `config` ("txt" or "tsv"); its standard output."""
    with tempfile.TemporaryDirectory(prefix="ocr-") as tmp:
        names = []
        for i, im in enumerate(images):
            # grey and colour pages as uncompressed PGM/PPM: the same pixels for tesseract as a
            # PNG, without compressing pages that live for one call
            suffix, fmt = _PAGE_FORMATS.get(im.mode, (".png", "PNG"))
            name = f"{tmp}/p{i:03d}{suffix}"
            im.save(name, format=fmt)
            names.append(name)
        Path(f"{tmp}/pages.txt").write_text("\n".join(names) + "\n")
        try:
            proc = subprocess.run(["tesseract", f"{tmp}/pages.txt", "stdout", "--psm", str(psm), config],
                                  capture_output=True, text=True, env={**os.environ, "OMP_THREAD_LIMIT": "1"})
        except FileNotFoundError:
            raise FactforgeError("tesseract is missing (OCR; apt-get install tesseract-ocr tesseract-ocr-eng)") from None
    if proc.returncode != 0:
        raise FactforgeError(f"tesseract failed: {' '.join((proc.stderr or '').split())[-200:]}")
    return proc.stdout


def ocr_texts(images: list, psm: int = 3) -> list[str]:
    """Tesseract's text of each image (one process for all)."""
    if not images:
        return []
    pages = _tesseract_pages(images, psm, "txt").split("\f")
    return [(pages[i] if i < len(pages) else "").strip("\n") for i in range(len(images))]


def ocr_pages(images: list, psm: int = 6) -> list[list[tuple[int, int, int, int, str, float]]]:
    """Words (left, top, width, height, text, confidence) of each image (one process for all)."""

    pages: list[list[tuple[int, int, int, int, str, float]]] = [[] for _ in images]
    if not images:
        return pages
    out = _tesseract_pages(images, psm, "tsv")
    for r in csv.DictReader(out.splitlines(), delimiter="\t", quoting=csv.QUOTE_NONE):
        text = (r.get("text") or "").strip()
        if not text or r.get("conf") in (None, "-1"):
            continue
        page = int(r["page_num"]) - 1
        if 0 <= page < len(pages):
            pages[page].append((int(r["left"]), int(r["top"]), int(r["width"]), int(r["height"]), text,
                                float(r["conf"])))
    return pages


def merge_words(first: list, second: list) -> list:
    """Words of two readings of one picture: all of `first`, and each word of `second` whose box
    overlaps none of them (what the first reading missed)."""
    def overlaps(a, b) -> bool:
        ix = min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0])
        iy = min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1])
        return ix > 0 and iy > 0 and ix * iy >= 0.2 * min(a[2] * a[3], b[2] * b[3])

    return list(first) + [w for w in second if not any(overlaps(w, f) for f in first)]


def ocr_layout(path: str | Path, psms: tuple[int, ...] = (4, 6), scale: float = 1.5, min_conf: float = 30.0,
               marks: bool = True) -> str:
    """OCR of a dashboard-like picture (tick labels, figures on bars, table cells, tiles side
    by side): solid marks removed first (`strip_marks`, when `marks`); each panel found by an
    XY cut (`panels`) is read on its own, in reading order, so text of panels side by side
    never shares a line. Each panel is read in each page segmentation mode of `psms` and the
    readings merged (`merge_words`): psm 4 (a column of text of varying sizes) reads a tile's
    big figure under its small caption but drops a table's far column; psm 6 (one uniform
    block) reads tables and lone digits but loses the big figure; the sparse mode 11 drops lone
    digits. `layout_lines` writes the lines, a wide gap between two words as " | ". Upscaled by
    `scale` (small labels read better); words read with a confidence under `min_conf` (a
    stroke of a chart taken for letters) are left out."""
    from PIL import Image  # noqa: PLC0415  (heavy; loaded on first use)

    with Image.open(path) as im:
        src = im.convert("RGB")
    img = strip_marks(src) if marks else src.convert("L")
    boxes = panels(src) or [(0, 0, img.width, img.height)]
    crops = []
    for l, t, r, b in boxes:
        c = img.crop((l, t, r, b))
        if scale != 1:
            c = c.resize((max(1, int(c.width * scale)), max(1, int(c.height * scale))), Image.LANCZOS)
        page = Image.new("L", (c.width + 40, c.height + 40), 255)
        page.paste(c, (20, 20))
        crops.append(page)
    readings = [ocr_pages(crops, psm=psm) for psm in psms]
    out = []
    for i in range(len(crops)):
        words: list = []
        for reading in readings:
            words = merge_words(words, [w[:5] for w in reading[i] if w[5] >= min_conf])
        text = layout_lines(words)
        if text:
            out.append(text)
    return "\n".join(out)
