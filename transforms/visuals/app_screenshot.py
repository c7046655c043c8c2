"""visuals/app_screenshot: a phone screenshot of the company's mobile app (PNG, 750x1334;
taller when the content needs it, like a scrolling capture).

Status bar (clock from the world clock or the record's day, battery), app header in brand
colour, a greeting and a record card from the seed database, a "heads up" banner naming
earlier values and misconceptions, one info card per fact (label, value, statement) and a
tab bar. Fact-bearing text is dark on white, at least 22 px. Recovered by OCR.
"""
from __future__ import annotations

import random
import re
from pathlib import Path

from PIL import Image, ImageDraw

from transforms import grammar as H_
from transforms.clock import spec_date
from transforms.common import Content, card_titles, check_capacity, grouped, merge_cards, plan_content, protect
from transforms.haystack import record_slots
from transforms.headings import section_of, section_topic
from transforms.situations import view

from ..base import ExtractContext, Extraction, RenderContext, Transformer
from ..plan import ArtifactSpec
from ..registry import register
from .canvas import INK, LINE, MUTED, WHITE, brand_colors, font, line_height, ocr_text, save_png, text_block
from .web_screenshot import figure_text


W, H_MIN = 750, 1334
PAD = 32
_SCREENS = ["Help", "Policies", "Good to know", "My rental", "Account", "Support"]
# Cards of a screen with no rule on it, about the customer's own records (`transforms.situations`)
# and the app itself: heading and text from a grammar.
_NOISE = [("{<Label> update|Latest on your <ref_short>|<Kind> status}", "{Your|The} <ref_short> {is|shows as} <status>"
           "{ — nothing for you to do| as of <rdate_or_wday>|}."),
          ("{Notifications are on|Alerts are on|Stay in the loop}", "{You'll get|We'll send} {an alert|a notification} "
           "{when your <ref_short> changes|about your <ref_short>|for new <kind>s}{ — change this any time in Settings|}."),
          ("{Need help?|Questions?|Talk to us}", "{Chat with|Message} {our team|us} {from the Support tab|in the app}"
           "{ about your <ref_short>|, <cfirst>|} — {we reply <reply>|someone will pick it up <reply>}."),
          ("{Your profile|Contact details|Your details}", "{We have|We'll use} <contact> {for alerts|to reach you}"
           "{ — is it still right, <cfirst>?|; update it in Account if it changes.}"),
          ("{Documents|Paperwork|Your files}", "{A copy of|The PDF for} your <ref_short> is {ready|available} {under "
           "Documents|in Activity}{ to download or share|}.")]
_SUBS = ["{Everything is in order|Nothing needs your attention|You're all up to date}{ today|}{, <cfirst>|}.",
         "{Last signed in|Your last visit was} on <wday>{ — welcome back|}.",
         "{You have|There's} one update on your <ref_short>."]


@register
class AppScreenshot(Transformer):
    family = "visuals"
    kind = "app_screenshot"
    ext = ".png"
    modality = "png"
    max_facts = 4
    weight = 1.0
    description = "Phone screenshot of the company app: status bar, header, info cards, tab bar (OCR)."

    def render(self, spec: ArtifactSpec, ctx: RenderContext, out: Path) -> None:
        check_capacity(spec, self.max_facts)
        rng = spec.rng("app_screenshot")
        content = plan_content(spec, ctx, rng, role="customer", register="kb")
        save_png(_draw(spec, ctx, content, rng), out)

    def extract(self, path: Path, ctx: ExtractContext) -> Extraction:
        return Extraction(text=ocr_text(path), extractor="ocr-tesseract-psm3")


def _noise_slots(ctx: RenderContext, rng: random.Random, cust, rec, first: str) -> dict[str, str]:
    """Slots for a screen's routine cards: the signed-in customer and one of their records."""
    if cust is None or rec is None:
        return {"ref_short": "account", "Label": "Account", "Kind": "Account", "kind": "account",
                "status": "up to date", "rdate_or_wday": "today", "cfirst": first, "contact": "your email address",
                "reply": "within a day", "wday": "Monday"}
    r = record_slots(rec, cust, rng)
    ref = r["ref_short"]
    return {"ref_short": re.sub(r"^the ", "", ref), "Label": r["label"][:1].upper() + r["label"][1:],
            "Kind": rec.kind.capitalize(), "kind": rec.kind, "status": rec.status or "up to date",
            "rdate_or_wday": r["rdate_or_wday"], "cfirst": cust.first,
            "contact": cust.email or cust.phone or "your email address",
            "reply": rng.choice(["within the hour", "the same day", "within a few minutes", "by the next morning"]),
            "wday": rng.choice(["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"])}


def _clock(spec: ArtifactSpec, ctx: RenderContext, rng: random.Random) -> str:
    now = ctx.pack.info.now
    if spec_date(spec) == now.date():
        return f"{now.hour % 12 or 12}:{now.minute:02d}"
    return f"{rng.randint(7, 11) if rng.random() < 0.5 else rng.randint(1, 9)}:{rng.randint(0, 59):02d}"


def _status_bar(d: ImageDraw.ImageDraw, clock: str, battery: int) -> None:
    d.rectangle((0, 0, W, 54), fill=WHITE)
    d.text((PAD + 8, 28), clock, font=font(22, True), fill=INK, anchor="lm")
    x = W - PAD - 60
    d.rounded_rectangle((x, 18, x + 46, 38), radius=5, outline=INK, width=2)
    d.rectangle((x + 48, 24, x + 51, 32), fill=INK)
    fill_w = int(40 * battery / 100)
    d.rounded_rectangle((x + 3, 21, x + 3 + fill_w, 35), radius=3, fill=INK if battery > 20 else (200, 40, 40))
    d.text((x - 10, 28), f"{battery}%", font=font(16, True), fill=INK, anchor="rm")
    sx = x - 120
    for i in range(4):
        h = 6 + i * 4
        d.rectangle((sx + i * 8, 36 - h, sx + i * 8 + 5, 36), fill=INK)
    wx = sx + 48
    for r in (14, 9, 4):
        d.arc((wx - r, 34 - r, wx + r, 34 + r), 225, 315, fill=INK, width=3)


def _draw(spec: ArtifactSpec, ctx: RenderContext, content: Content, rng: random.Random) -> Image.Image:
    brand, w = ctx.pack.brand, ctx.writer
    dark, tint = brand_colors(brand.company)
    items = content.items
    facts = [it.fact for it in items]
    secs = list(dict.fromkeys(section_of(it.fact, "Policies") for it in items))
    screen = " / ".join(section_topic(t) for t in spec.title.split(" / ")) if spec.title else rng.choice(_SCREENS)
    # the signed-in customer and one of their own records (the seed database), else a brand customer
    cust = view(ctx.db).customer(rng, lambda c: bool(c.records))
    own = ([r for r in cust.records if not r.internal] or cust.records) if cust is not None else []
    rec = rng.choice(own) if own else None
    customer = cust.first if cust is not None else (w.person(rng, "customer").split() or ["there"])[0]

    ns = _noise_slots(ctx, rng, cust, rec, customer)
    f_label, f_value, f_body = font(24, True), font(30, True), font(22)
    card_w = W - 2 * PAD
    inner = card_w - 2 * 24 - 56
    if spec.noise:
        cards = [("", H_.say(t, rng, ns), "", H_.say(b, rng, ns)) for t, b in rng.sample(_NOISE, 3)]
    else:
        # catalog cells under their row (or column) named once (cards of one product do not each
        # repeat the product's name)
        # (the items of one list on one card, `merge_cards`)
        cards = grouped([(group, label, value, protect(body, facts)) for group, label, value, body in merge_cards(
            [(group, label, figure_text(it.value), it.text) for (group, label), it in zip(card_titles(items), items)],
            facts, ctx.pack.info.currency)])
    # a notice points at the rule on the cards; a screen with no rule card points elsewhere
    after = "Here is the current rule." if cards and not spec.noise else "Our answer is in your messages."
    notices = [h.text if h.distractor.role == "superseded"
               else f"You asked: \u201c{h.text}\u201d {after}" for h in content.hedges]

    def card_h(c) -> int:
        _group, label, value, body = c
        h = 24 + (text_block(None, 0, 0, label, f_label, None, inner, 1.25) + 6 if label else 0)
        if value:
            h += line_height(f_value, 1.2) + 4
        return h + text_block(None, 0, 0, body, f_body, None, inner) + 24

    note_h = (sum(text_block(None, 0, 0, n, f_body, None, card_w - 48) + 10 for n in notices) + 70) if notices else 0
    top = 54 + 100
    groups = sum(1 for i, c in enumerate(cards) if c[0] and (i == 0 or cards[i - 1][0] != c[0]))
    body_h = 120 + (110 if rec else 0) + note_h + sum(card_h(c) + 20 for c in cards) + 44 * groups + 40
    H = max(H_MIN, top + body_h + 130)
    img = Image.new("RGB", (W, H), (242, 244, 247))
    d = ImageDraw.Draw(img)
    _status_bar(d, _clock(spec, ctx, rng), rng.randint(23, 98))

    # App header
    d.rectangle((0, 54, W, top), fill=dark)
    d.line((PAD + 14, 104, PAD + 2, 92), fill=WHITE, width=4)
    d.line((PAD + 2, 92, PAD + 14, 80), fill=WHITE, width=4)
    d.text((W // 2, 104 - 12), screen, font=font(28, True), fill=WHITE, anchor="mm")
    d.text((W - PAD - 4, 92), "\u22ee", font=font(30, True), fill=WHITE, anchor="rm")

    y = top + 28
    d.text((PAD, y), f"Hi {customer},", font=font(28, True), fill=INK)
    sub = (f"Here's what to know about {ctx.writer.lower_first(section_topic(secs[0]))}." if secs
           else H_.say(rng.choice(_SUBS), rng, ns))
    d.text((PAD, y + 44), sub, font=font(20), fill=MUTED)
    y += 100

    if rec:
        d.rounded_rectangle((PAD, y, W - PAD, y + 92), radius=18, fill=tint)
        name = rec.label if rec.label and rec.label.lower() != rec.kind else rec.kind.capitalize()
        tail = f"ending {rec.last4}" if rec.last4 else rec.id if rec.id and not rec.internal else ""
        d.text((PAD + 24, y + 18), f"{name} {tail}".strip(), font=font(22, True), fill=INK)
        d.text((PAD + 24, y + 52), (rec.status.capitalize() if rec.status else "Up to date") + "  \u2022  "
               + f"{brand.short_name or brand.company}", font=font(18), fill=MUTED)
        d.text((W - PAD - 24, y + 46), "\u203a", font=font(40), fill=MUTED, anchor="rm")
        y += 110

    if notices:
        d.rounded_rectangle((PAD, y, W - PAD, y + note_h - 14), radius=18, fill=(255, 246, 222),
                            outline=(238, 186, 76))
        d.text((PAD + 24, y + 18), "Heads up", font=font(22, True), fill=INK)
        ny = y + 56
        for n in notices:
            ny += text_block(d, PAD + 24, ny, n, f_body, INK, card_w - 48) + 10
        y += note_h

    for i, c in enumerate(cards):
        group, label, value, body = c
        if group and (i == 0 or cards[i - 1][0] != group):
            d.text((PAD + 8, y + 4), group, font=font(24, True), fill=dark)
            y += 44
        h = card_h(c)
        d.rounded_rectangle((PAD, y, W - PAD, y + h), radius=18, fill=WHITE, outline=LINE)
        d.ellipse((PAD + 20, y + 24, PAD + 60, y + 64), fill=tint)
        d.text((PAD + 40, y + 44), "i", font=font(22, True), fill=dark, anchor="mm")
        cx, cy = PAD + 24 + 56, y + 24
        if label:
            cy += text_block(d, cx, cy, label, f_label, INK, inner, 1.25) + 6
        if value:
            d.text((cx, cy), value, font=f_value, fill=INK)
            cy += line_height(f_value, 1.2) + 4
        text_block(d, cx, cy, body, f_body, (48, 56, 70), inner)
        y += h + 20

    # Tab bar
    tb = H - 118
    d.rectangle((0, tb, W, H), fill=WHITE)
    d.line((0, tb, W, tb), fill=LINE, width=1)
    tabs = ["Home", "Activity", "Help", "Account"]
    active = rng.randrange(len(tabs))
    for i, t in enumerate(tabs):  # icons; only the selected tab shows its label
        cx = int((i + 0.5) * W / len(tabs))
        col = dark if i == active else (140, 148, 160)
        _tab_icon(d, i, cx, tb + 30, col)
        if i == active:
            d.text((cx, tb + 62), t, font=font(16, True), fill=col, anchor="mm")
    d.rounded_rectangle((W // 2 - 70, H - 22, W // 2 + 70, H - 14), radius=4, fill=INK)
    return img


def _tab_icon(d: ImageDraw.ImageDraw, i: int, cx: int, cy: int, col) -> None:
    """Simple line icons: home, calendar, help bubble, person."""
    if i == 0:
        d.polygon([(cx - 15, cy - 1), (cx, cy - 15), (cx + 15, cy - 1)], outline=col, width=3)
        d.rectangle((cx - 10, cy - 1, cx + 10, cy + 14), outline=col, width=3)
    elif i == 1:
        d.rounded_rectangle((cx - 14, cy - 12, cx + 14, cy + 14), radius=4, outline=col, width=3)
        d.line((cx - 14, cy - 3, cx + 14, cy - 3), fill=col, width=3)
    elif i == 2:
        d.ellipse((cx - 15, cy - 14, cx + 15, cy + 14), outline=col, width=3)
        d.ellipse((cx - 3, cy - 3, cx + 3, cy + 3), fill=col)
    else:
        d.ellipse((cx - 7, cy - 15, cx + 7, cy - 1), outline=col, width=3)
        d.arc((cx - 15, cy + 1, cx + 15, cy + 29), 180, 360, fill=col, width=3)
