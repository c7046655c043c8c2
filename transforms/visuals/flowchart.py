"""visuals/flowchart: a process map (PNG, 1400 px wide, drawn with Pillow at 2x and
downsampled for smooth edges).

Title and document line, legend, a change note (earlier values, dated, above the flow),
then Start -> identity check (decision) -> one step box per fact (decision diamonds in
front of steps that only apply under a condition, with the "No" branch to the side) -> End.
Statements sit inside the boxes, dark on white or pale fills, >= 22 px. Recovered by OCR.
"""
from __future__ import annotations

import datetime as dt
import random
from pathlib import Path

from PIL import Image, ImageDraw

from facts.models import FactKind

from ..base import ArtifactSpec, Extraction, ExtractContext, RenderContext, Transformer
from transforms.common import Content, check_capacity, doc_number, plan_content, protect, spec_date
from ..registry import register
from ._canvas import (INK, LINE, MUTED, WHITE, brand_colors, font, ocr_text, save_png,
                      text_block)

S = 2                      # supersampling factor
W = 1400
CX = 560                   # main column centre
BOX_W = 660
SIDE_X = 1010              # side branch box left edge
SIDE_W = 330
_TRIGGERS = ["Customer request received", "Case opened", "Customer contacts support", "Request logged",
             "Ticket assigned"]
_ENDS = ["Close the case", "Confirm with customer and close", "Update the record and close", "End of process"]
_CHECKS = [("Identity verified?", "Verify identity first"), ("Record found?", "Escalate to team lead"),
           ("Request complete?", "Ask for missing details")]
_NOISE_STEPS = ["Log the request in the ticketing system.", "Check the customer's contact details.",
                "Agree next steps with the customer.", "Send the confirmation email."]
_SIDE = ["Standard terms apply", "Apply the general rule", "Skip this step"]


@register
class Flowchart(Transformer):
    family = "visuals"
    kind = "flowchart"
    ext = ".png"
    modality = "png"
    max_facts = 5
    weight = 0.8
    description = "Process map: start, decision diamonds, step boxes carrying the rules, end (OCR)."

    def render(self, spec: ArtifactSpec, ctx: RenderContext, out: Path) -> None:
        check_capacity(spec, self.max_facts)
        rng = spec.rng("flowchart")
        content = plan_content(spec, ctx, rng, role="colleague", register="slide")
        save_png(_draw(spec, ctx, content, rng), out)

    def extract(self, path: Path, ctx: ExtractContext) -> Extraction:
        return Extraction(text=ocr_text(path), extractor="ocr-tesseract-psm3")


class _TextLater:
    """Wraps the 2x ImageDraw: shapes are drawn at once, text is recorded and drawn at 1x on
    the downsampled image (crisper glyphs for OCR than resampled ones)."""

    def __init__(self, draw: ImageDraw.ImageDraw):
        self._draw = draw
        self.texts: list[tuple] = []

    def __getattr__(self, name):
        return getattr(self._draw, name)

    def text(self, xy, text, font, fill, anchor=None):
        self.texts.append((xy, text, font, fill, anchor))

    def replay(self, img: Image.Image) -> None:
        d = ImageDraw.Draw(img)
        for (x, y), text, f, fill, anchor in self.texts:
            d.text((round(x / S), round(y / S)), text, font=font(f.size // S, "Bold" in f.path), fill=fill,
                   anchor=anchor)


def _f(size: int, bold: bool = False):
    return font(size * S, bold)


def _tb(draw, x, y, text, size, fill, width, bold=False, spacing=1.3, align="left") -> int:
    """text_block in final-pixel units (draw at S scale). Returns height in final pixels."""
    h = text_block(draw, x * S, y * S, text, _f(size, bold), fill, width * S, spacing, align)
    return h // S


def _arrow(d: ImageDraw.ImageDraw, pts: list[tuple[int, int]], col=(70, 80, 96), label: str = "") -> None:
    sp = [(x * S, y * S) for x, y in pts]
    d.line(sp, fill=col, width=3 * S, joint="curve")
    (x0, y0), (x1, y1) = sp[-2], sp[-1]
    a = 9 * S
    if x0 == x1:
        sgn = 1 if y1 > y0 else -1
        head = [(x1, y1), (x1 - a, y1 - sgn * a * 1.4), (x1 + a, y1 - sgn * a * 1.4)]
    else:
        sgn = 1 if x1 > x0 else -1
        head = [(x1, y1), (x1 - sgn * a * 1.4, y1 - a), (x1 - sgn * a * 1.4, y1 + a)]
    d.polygon(head, fill=col)
    if label:
        lx, ly = pts[0]
        d.text(((lx + 10) * S, (ly + 4) * S), label, font=_f(18, True), fill=MUTED)


def _draw(spec: ArtifactSpec, ctx: RenderContext, content: Content, rng: random.Random) -> Image.Image:
    brand, w = ctx.pack.brand, ctx.writer
    dark, tint = brand_colors(brand.company)
    date = spec_date(spec)
    items = content.items
    facts = [it.fact for it in items]
    secs = list(dict.fromkeys((it.fact.section[-1] if it.fact.section else "Process") for it in items))
    title = spec.title or (f"{secs[0]} process map" if secs else "Request handling process map")
    check_q, check_no = rng.choice(_CHECKS)

    # Elements of the main column: (kind, payload)
    elems: list[tuple[str, object]] = [("start", rng.choice(_TRIGGERS)), ("check", (check_q, check_no))]
    if spec.noise:
        for i in sorted(rng.sample(range(len(_NOISE_STEPS)), 3)):
            elems.append(("step", ("", _NOISE_STEPS[i], None)))
    else:
        prev = None
        for it in items:
            conds = [c for c in it.fact.conditions if c.attribute != "attribute"]
            key = (conds[0].attribute, conds[0].value) if conds else None
            if key is not None and key != prev:
                q = f"{key[0][:1].upper() + key[0][1:]}: {key[1]}?"
                elems.append(("cond", (q, rng.choice(_SIDE))))
            prev = key
            if it.fact.kind != FactKind.procedure_step and it.value:
                # a box is an action: what to apply, not the policy sentence
                elems.append(("step", ("", protect(f"{rng.choice(['Apply', 'Quote', 'Use'])} {it.label}: {it.value}",
                                                   facts), key)))
            else:
                elems.append(("step", (it.label, protect(it.text, facts), key)))
    elems.append(("end", rng.choice(_ENDS)))

    def step_h(label: str, text: str) -> int:
        h = 22
        if label:
            h += _tb(None, 0, 0, label, 22, None, BOX_W - 90, bold=True, spacing=1.25) + 6
        return h + _tb(None, 0, 0, text, 22, None, BOX_W - 90) + 22

    heights = []
    for kind, p in elems:
        if kind in ("start", "end"):
            heights.append(64)
        elif kind in ("check", "cond"):
            heights.append(150)
        else:
            heights.append(step_h(p[0], p[1]))
    notes = [h.text for h in content.hedges]
    note_h = (sum(_tb(None, 0, 0, n, 22, None, W - 160) + 8 for n in notes) + 64) if notes else 0
    top = 160 + note_h
    gap = 56
    H = top + sum(heights) + gap * (len(elems) - 1) + 120
    img = Image.new("RGB", (W * S, H * S), WHITE)
    d = _TextLater(ImageDraw.Draw(img))

    # Title block and legend
    d.rectangle((0, 0, W * S, 10 * S), fill=dark)
    d.text((60 * S, 34 * S), title, font=_f(34, True), fill=INK)
    ref = doc_number(ctx, rng, "PM")
    owner = w.person(rng, "manager")
    d.text((60 * S, 88 * S), f"{brand.company}  |  {ref}  |  Owner: {owner}  |  Rev. {date.isoformat()}",
           font=_f(18), fill=MUTED)
    lx, ly = W - 300, 30
    d.rounded_rectangle((lx * S, ly * S, (W - 40) * S, (ly + 100) * S), radius=8 * S, outline=LINE, width=S)
    d.rounded_rectangle(((lx + 14) * S, (ly + 14) * S, (lx + 54) * S, (ly + 34) * S), radius=10 * S, fill=tint,
                        outline=dark, width=S)
    d.text(((lx + 64) * S, (ly + 12) * S), "Start / end", font=_f(16), fill=MUTED)
    d.rectangle(((lx + 14) * S, (ly + 42) * S, (lx + 54) * S, (ly + 60) * S), outline=dark, width=S)
    d.text(((lx + 64) * S, (ly + 40) * S), "Step", font=_f(16), fill=MUTED)
    dx, dy = lx + 34, ly + 80
    d.polygon([(dx * S, (dy - 11) * S), ((dx + 20) * S, dy * S), (dx * S, (dy + 11) * S), ((dx - 20) * S, dy * S)],
              outline=dark, width=S)
    d.text(((lx + 64) * S, (ly + 68) * S), "Decision", font=_f(16), fill=MUTED)

    if notes:
        d.rounded_rectangle((60 * S, 142 * S, (W - 60) * S, (142 + note_h - 16) * S), radius=10 * S,
                            fill=(255, 247, 225), outline=(232, 180, 70), width=S)
        d.text((80 * S, 156 * S), "Change note", font=_f(22, True), fill=INK)
        ny = 192
        for n in notes:
            ny += _tb(d, 80, ny, n, 22, INK, W - 160) + 8

    y = top
    step_no = 0
    rejoin: int | None = None  # bottom of a condition's side box, waiting to rejoin the main line
    for idx, ((kind, p), h) in enumerate(zip(elems, heights)):
        if kind in ("start", "end"):
            label = ("Start: " if kind == "start" else "End: ") + str(p)
            bw = max(420, int(_f(22, True).getlength(label) / S) + 80)
            d.rounded_rectangle(((CX - bw // 2) * S, y * S, (CX + bw // 2) * S, (y + h) * S), radius=32 * S,
                                fill=tint, outline=dark, width=2 * S)
            d.text((CX * S, (y + h // 2) * S), label, font=_f(22, True), fill=INK, anchor="mm")
        elif kind in ("check", "cond"):
            q, no = p
            hw, hh = 230, h // 2
            cy = y + hh
            d.polygon([(CX * S, y * S), ((CX + hw) * S, cy * S), (CX * S, (y + h) * S), ((CX - hw) * S, cy * S)],
                      fill=(250, 251, 253), outline=dark, width=2 * S)
            _tb(d, CX - 150, cy - 16 if len(q) < 24 else cy - 30, q, 22, INK, 300, bold=True, align="center")
            sy = cy - 36
            d.rounded_rectangle((SIDE_X * S, sy * S, (SIDE_X + SIDE_W) * S, (sy + 72) * S), radius=8 * S,
                                fill=(248, 249, 251), outline=(150, 158, 170), width=2 * S)
            _tb(d, SIDE_X + 16, sy + 22, no, 20, (60, 68, 80), SIDE_W - 32, align="center")
            _arrow(d, [(CX + hw, cy), (SIDE_X, cy)], label="No")
            if kind == "cond":
                rejoin = sy + 72
        else:
            label, text, group = p
            step_no += 1
            x0 = CX - BOX_W // 2
            d.rectangle(((x0 + 4) * S, (y + 5) * S, (x0 + BOX_W + 4) * S, (y + h + 5) * S), fill=(228, 232, 238))
            d.rectangle((x0 * S, y * S, (x0 + BOX_W) * S, (y + h) * S), fill=WHITE, outline=dark, width=2 * S)
            d.ellipse(((x0 + 18) * S, (y + 20) * S, (x0 + 56) * S, (y + 58) * S), fill=dark)
            d.text(((x0 + 37) * S, (y + 39) * S), str(step_no), font=_f(20, True), fill=WHITE, anchor="mm")
            ty = y + 22
            if label:
                ty += _tb(d, x0 + 72, ty, label, 22, INK, BOX_W - 90, bold=True, spacing=1.25) + 6
            _tb(d, x0 + 72, ty, text, 22, (40, 46, 58), BOX_W - 90)
        if idx < len(elems) - 1:
            lab = "Yes" if kind in ("check", "cond") else ""
            _arrow(d, [(CX, y + h), (CX, y + h + gap)], label=lab)
            nxt_group = elems[idx + 1][1][2] if elems[idx + 1][0] == "step" else None
            if kind == "step" and rejoin is not None and (nxt_group != p[2] or nxt_group is None):
                mid = y + h + gap // 2
                sx = SIDE_X + SIDE_W // 2
                _arrow(d, [(sx, rejoin), (sx, mid), (CX + 6, mid)])
                rejoin = None
        y += h + gap

    d.text((60 * S, (H - 50) * S), f"Printed from the {brand.short_name or brand.company} process library. "
           f"Uncontrolled when printed. Valid from {(date - dt.timedelta(days=rng.randint(0, 20))).isoformat()}.",
           font=_f(16), fill=MUTED)
    small = img.resize((W, H), Image.LANCZOS)
    d.replay(small)
    return small
