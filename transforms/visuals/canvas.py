"""Drawing helpers shared by the visual kinds (Pillow): DejaVu fonts, word wrapping that keeps
value phrases on one line, rounded boxes, brand colours, and deterministic PNG saving."""
from __future__ import annotations

import hashlib
import re
from functools import lru_cache
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from transforms.common import NBSP, font_file
from transforms.extract.ocr import ocr_image, strip_marks


INK = (28, 34, 46)
MUTED = (88, 98, 115)
LINE = (214, 220, 230)
WHITE = (255, 255, 255)
# Dark brand colours (white text on them stays readable; dark text never sits on them).
_PALETTE = [(22, 64, 120), (17, 94, 89), (91, 33, 112), (153, 45, 34), (30, 58, 95), (12, 84, 52),
            (120, 53, 15), (40, 40, 90)]
_TINTS = [(236, 243, 251), (232, 246, 244), (244, 238, 250), (252, 240, 237), (236, 241, 248), (234, 246, 238),
          (251, 243, 232), (239, 239, 250)]


@lru_cache(maxsize=64)
def font(size: int, bold: bool = False, family: str = "sans") -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(font_file(family, bold), size)


def brand_colors(company: str) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """(dark brand colour, pale tint) chosen from the company name, stable across runs."""
    i = int(hashlib.sha256(company.encode()).hexdigest(), 16) % len(_PALETTE)
    return _PALETTE[i], _TINTS[i]


def wrap(text: str, fnt: ImageFont.FreeTypeFont, width: int) -> list[str]:
    """Greedy word wrap by pixel width. Words joined by NBSP never split (unless too wide)."""
    lines: list[str] = []
    for para in text.split("\n"):
        cur = ""
        for word in para.split(" "):
            if not word:
                continue
            trial = f"{cur} {word}" if cur else word
            if fnt.getlength(trial.replace(NBSP, " ")) <= width or not cur:
                cur = trial
            else:
                lines.append(cur)
                cur = word
        lines.append(cur)
    return [ln.replace(NBSP, " ") for ln in lines]


def line_height(fnt: ImageFont.FreeTypeFont, spacing: float = 1.35) -> int:
    return int(round(fnt.size * spacing))


def text_block(draw: ImageDraw.ImageDraw | None, x: int, y: int, text: str, fnt, fill, width: int,
               spacing: float = 1.35, align: str = "left") -> int:
    """Draw wrapped text (when draw is given); returns the height used."""
    lines = wrap(text, fnt, width)
    lh = line_height(fnt, spacing)
    if draw is not None:
        for i, ln in enumerate(lines):
            dx = 0
            if align == "center":
                dx = int((width - fnt.getlength(ln)) / 2)
            draw.text((x + dx, y + i * lh), ln, font=fnt, fill=fill)
    return lh * len(lines)


def shadow_box(img: Image.Image, box, radius: int = 14, fill=WHITE, outline=LINE) -> None:
    d = ImageDraw.Draw(img)
    x0, y0, x1, y1 = box
    d.rounded_rectangle((x0 + 2, y0 + 4, x1 + 2, y1 + 5), radius=radius, fill=(226, 230, 237))
    d.rounded_rectangle(box, radius=radius, fill=fill, outline=outline, width=1)


def save_png(img: Image.Image, out: Path) -> None:
    """PNG without time/text chunks: same pixels give the same bytes."""
    img.convert("RGB").save(out, format="PNG", optimize=False, compress_level=6)


# ("Il" too: tesseract read "I read online" as "Il read online" on an app screenshot)
_BAR_I = re.compile(r"(?<![\w|])(?:\||Il)(?=(?:\s+(?:thought|heard|was|read|am|have|had|think|believe|need|want|"
                    r"can|will|just|also|did|do|understand|see)\b|'[a-z]))")


# A capital O standing alone before a unit, or after a currency sign, is the digit zero (DejaVu
# Sans draws them alike: "O days", "$O"); no English word reads that way.
_ZERO = re.compile(r"(?<![\w.,'])O(?=(?:\.\d+)?(?:%|\s+(?:business\s+)?(?:days?|hours?|minutes?|seconds?|weeks?|"
                   r"months?|years?|dollars?|percent|miles?|GB|MB|lines?|times)\b))|(?<=[$\u20ac\u00a3])O(?![\w])")


def ocr_text(path: Path, psm: int = 3, marks: bool = False) -> str:
    """OCR of a rendered visual plus two standard post-corrections: a lone '|' (or 'Il') before
    a verb is the pronoun 'I' (DejaVu Sans draws 'I' as a plain bar), and a lone
    'O' before a unit is the digit zero. With `marks`, solid marks (bullet squares, bars) are
    painted out first (`strip_marks`): tesseract reads a square bullet as a letter ("a ATM
    withdrawals"), a reader does not."""

    with Image.open(path) as im:
        text = ocr_image(strip_marks(im) if marks else im, psm=psm)
    return _ZERO.sub("0", _BAR_I.sub("I", text))
