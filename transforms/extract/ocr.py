"""OCR of images through tesseract (pytesseract). OMP_THREAD_LIMIT=1 keeps tesseract fast on
small machines and deterministic."""
from __future__ import annotations

import os
from pathlib import Path

os.environ.setdefault("OMP_THREAD_LIMIT", "1")
EXTERNAL_TOOLS = ("tesseract",)  # see transforms.fingerprint


def ocr_image(image, psm: int = 3) -> str:
    """OCR a PIL image (upscaled when small, converted to grayscale)."""
    import pytesseract  # noqa: PLC0415

    img = image.convert("L")
    if img.width < 1200:
        f = 1200 / img.width
        img = img.resize((int(img.width * f), int(img.height * f)))
    return pytesseract.image_to_string(img, config=f"--psm {psm}")


def ocr_png(path: str | Path, psm: int = 3) -> str:
    from PIL import Image  # noqa: PLC0415

    with Image.open(path) as im:
        return ocr_image(im, psm=psm)
